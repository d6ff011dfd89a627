//! An OpenAI-compatible proxy that runs model output through a [`Transform`] (the tool-call
//! parser) between an upstream server (llama.cpp, ollama, mlx, ...) and the client.
//!
//! * `POST /v1/chat/completions`, streaming or not: the request body goes upstream
//!   untouched (including `tools`); the upstream's text goes through the transform and
//!   comes back as OpenAI chunks ([`ChatChunkEncoder`](toolsift::sse::ChatChunkEncoder)) or
//!   a whole completion ([`MessageBuilder`]).
//! * `GET /v1/models` is forwarded as it is.
//! * Upstream errors pass through with their status and body.
//!
//! See `docs/proxy.md`.

mod body;
mod parser_transform;
mod replay;
mod server;
mod stats;
mod stream;
mod transform;
mod upstream;

pub use body::{BoxError, ProxyBody};
pub use parser_transform::{
    DialectChoice, ModelDialects, ParserOptions, ParserTransform, ParserTransforms,
};
pub use replay::{serve_replay, serve_replays, Replay};
pub use stats::{Stats, StatsSnapshot};
pub use transform::{MakeTransform, Passthrough, Transform};

use body::{full, ChannelBody};
use bytes::Bytes;
use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CACHE_CONTROL, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};
use serde_json::{json, Value};
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tokio::net::TcpListener;
use toolsift::sse::{read_completion, stop_reason, CallMode, MessageBuilder, Outcome};
use toolsift::Error;
use toolsift::StopReason;
use upstream::Upstream;

/// How the proxy runs.
#[derive(Clone, Debug)]
pub struct ProxyOptions {
    /// The upstream base URL, up to and including `/v1` (`http://127.0.0.1:8080/v1`).
    /// Only plain `http://` is supported.
    pub upstream: String,
    /// Chunks that may wait for a slow client in one response before the upstream read
    /// pauses (default 16).
    pub channel_capacity: usize,
    /// The bound on one upstream SSE event (default 8 MiB).
    pub max_event_bytes: usize,
    /// The bound on a request body, and on a whole non-streaming upstream response
    /// (default 32 MiB).
    pub max_body_bytes: usize,
    /// When tool calls reach a streaming client (default [`CallMode::Buffered`]).
    pub call_mode: CallMode,
    /// Print one line per request and a summary on shutdown to stderr (default true).
    pub log: bool,
    /// How long open responses may go on after shutdown begins (default 10 s).
    pub shutdown_grace: Duration,
}

impl Default for ProxyOptions {
    fn default() -> ProxyOptions {
        ProxyOptions {
            upstream: "http://127.0.0.1:8080/v1".into(),
            channel_capacity: 16,
            max_event_bytes: toolsift::sse::DEFAULT_MAX_EVENT_BYTES,
            max_body_bytes: 32 << 20,
            call_mode: CallMode::default(),
            log: true,
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

pub(crate) struct State {
    options: ProxyOptions,
    upstream: Upstream,
    make_transform: MakeTransform,
    stats: Arc<Stats>,
}

/// A configured proxy, ready to [`serve`](Proxy::serve).
pub struct Proxy {
    state: Arc<State>,
}

impl Proxy {
    /// Check the options (the upstream URL) and build the proxy. `make_transform` is
    /// called once per chat completion request with the request body.
    pub fn new(
        options: ProxyOptions,
        make_transform: impl Fn(&Value) -> Box<dyn Transform> + Send + Sync + 'static,
    ) -> Result<Proxy, Error> {
        let upstream = Upstream::new(&options.upstream)?;
        Ok(Proxy {
            state: Arc::new(State {
                options,
                upstream,
                make_transform: Arc::new(make_transform),
                stats: Arc::default(),
            }),
        })
    }

    /// The live counters.
    pub fn stats(&self) -> Arc<Stats> {
        self.state.stats.clone()
    }

    /// Serve on `listener` until `shutdown` completes; open responses then get
    /// [`shutdown_grace`](ProxyOptions::shutdown_grace) to finish. Returns the final
    /// counters (also printed to stderr when logging).
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
    ) -> StatsSnapshot {
        let state = self.state;
        let handler_state = state.clone();
        let handler = move |req| handle(handler_state.clone(), req);
        server::run(listener, handler, shutdown, state.options.shutdown_grace).await;
        let summary = state.stats.snapshot();
        if state.options.log {
            eprintln!("toolsift proxy: shut down: {summary}");
        }
        summary
    }
}

/// Serve the proxy on `listener` until `shutdown` completes (see [`Proxy`]).
pub async fn serve(
    listener: TcpListener,
    options: ProxyOptions,
    make_transform: impl Fn(&Value) -> Box<dyn Transform> + Send + Sync + 'static,
    shutdown: impl Future<Output = ()>,
) -> Result<StatsSnapshot, Error> {
    Ok(Proxy::new(options, make_transform)?
        .serve(listener, shutdown)
        .await)
}

/// What the per-request log line says.
pub(crate) struct RequestLog {
    method: Method,
    path: String,
    model: String,
    stream: bool,
    start: Instant,
    /// The transform's dialect, once known.
    pub(crate) dialect: Option<String>,
}

impl RequestLog {
    pub(crate) fn finish(&self, state: &State, status: u16, outcome: Option<&Outcome>) {
        if let Some(outcome) = outcome {
            state.stats.outcome(outcome);
        }
        if !state.options.log {
            return;
        }
        let mut line = format!(
            "toolsift proxy: {} {} status={status}",
            self.method, self.path
        );
        if !self.model.is_empty() {
            line += &format!(" model={} stream={}", self.model, self.stream);
        }
        if let Some(dialect) = &self.dialect {
            line += &format!(" dialect={dialect}");
        }
        if let Some(outcome) = outcome {
            let repairs: Vec<&str> = outcome.repairs().names().collect();
            line += &format!(
                " finish={} calls={} incomplete={} repairs={}",
                outcome.finish_reason(),
                outcome.released_calls(),
                outcome.incomplete_calls(),
                if repairs.is_empty() {
                    "-".to_owned()
                } else {
                    repairs.join(",")
                },
            );
        }
        line += &format!(" duration={}ms", self.start.elapsed().as_millis());
        eprintln!("{line}");
    }
}

fn error_response(status: StatusCode, message: &str) -> Response<ProxyBody> {
    let body = json!({"error": {"message": message, "type": "toolsift_proxy_error"}});
    json_response(status, body.to_string())
}

fn json_response(status: StatusCode, body: impl Into<Bytes>) -> Response<ProxyBody> {
    let mut response = Response::new(full(body));
    *response.status_mut() = status;
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

/// Pass an upstream response through: status, content type, body as it streams.
fn passthrough(response: Response<Incoming>) -> Response<ProxyBody> {
    let (parts, body) = response.into_parts();
    let mut out = Response::new(body.map_err(BoxError::from).boxed());
    *out.status_mut() = parts.status;
    if let Some(ct) = parts.headers.get(CONTENT_TYPE) {
        out.headers_mut().insert(CONTENT_TYPE, ct.clone());
    }
    out
}

async fn handle(state: Arc<State>, req: Request<Incoming>) -> Response<ProxyBody> {
    state.stats.request();
    let mut log = RequestLog {
        method: req.method().clone(),
        path: req.uri().path().to_owned(),
        model: String::new(),
        stream: false,
        start: Instant::now(),
        dialect: None,
    };
    let response = match (req.method(), req.uri().path()) {
        (&Method::POST, "/v1/chat/completions") => return chat(state, req, log).await,
        (&Method::GET, "/v1/models") => {
            match state
                .upstream
                .send(Method::GET, "/models", req.headers(), Bytes::new())
                .await
            {
                Ok(response) => passthrough(response),
                Err(err) => {
                    state.stats.failure();
                    error_response(StatusCode::BAD_GATEWAY, err.message())
                }
            }
        }
        _ => error_response(
            StatusCode::NOT_FOUND,
            "not found: the proxy serves POST /v1/chat/completions and GET /v1/models",
        ),
    };
    log.stream = false;
    log.finish(&state, response.status().as_u16(), None);
    response
}

async fn chat(
    state: Arc<State>,
    req: Request<Incoming>,
    mut log: RequestLog,
) -> Response<ProxyBody> {
    let (parts, body) = req.into_parts();
    let bytes = match Limited::new(body, state.options.max_body_bytes)
        .collect()
        .await
    {
        Ok(collected) => collected.to_bytes(),
        Err(err) => {
            state.stats.failure();
            let response = error_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                &format!("request body: {err}"),
            );
            log.finish(&state, 413, None);
            return response;
        }
    };
    let request: Value = match serde_json::from_slice(&bytes) {
        Ok(value @ Value::Object(_)) => value,
        _ => {
            state.stats.failure();
            log.finish(&state, 400, None);
            return error_response(StatusCode::BAD_REQUEST, "request body is not a json object");
        }
    };
    log.model = request["model"].as_str().unwrap_or("-").to_owned();
    log.stream = request["stream"].as_bool().unwrap_or(false);
    let transform = (state.make_transform)(&request);
    let upstream = match state
        .upstream
        .send(Method::POST, "/chat/completions", &parts.headers, bytes)
        .await
    {
        Ok(response) => response,
        Err(err) => {
            state.stats.failure();
            log.finish(&state, 502, None);
            return error_response(StatusCode::BAD_GATEWAY, err.message());
        }
    };
    if !upstream.status().is_success() {
        state.stats.upstream_error();
        log.finish(&state, upstream.status().as_u16(), None);
        return passthrough(upstream);
    }
    if log.stream {
        state.stats.stream();
        let (tx, body) = ChannelBody::channel(state.options.channel_capacity);
        tokio::spawn(stream::pump(
            state.clone(),
            upstream.into_body(),
            transform,
            tx,
            log,
        ));
        let mut response = Response::new(body);
        let headers = response.headers_mut();
        headers.insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-cache"));
        return response;
    }
    complete(state, upstream, transform, log).await
}

/// A non-streaming completion: the whole upstream message through the transform.
async fn complete(
    state: Arc<State>,
    upstream: Response<Incoming>,
    mut transform: Box<dyn Transform>,
    log: RequestLog,
) -> Response<ProxyBody> {
    let body = Limited::new(upstream.into_body(), state.options.max_body_bytes);
    let mut response: Value = match body.collect().await {
        Ok(collected) => match serde_json::from_slice(&collected.to_bytes()) {
            Ok(value) => value,
            Err(err) => {
                state.stats.failure();
                log.finish(&state, 502, None);
                return error_response(
                    StatusCode::BAD_GATEWAY,
                    &format!("upstream response is not json: {err}"),
                );
            }
        },
        Err(err) => {
            state.stats.failure();
            log.finish(&state, 502, None);
            return error_response(
                StatusCode::BAD_GATEWAY,
                &format!("upstream response: {err}"),
            );
        }
    };
    let completion = match read_completion(&response) {
        Ok(completion) => completion,
        Err(err) => {
            state.stats.failure();
            log.finish(&state, 502, None);
            return error_response(StatusCode::BAD_GATEWAY, err.message());
        }
    };
    let mut events = Vec::new();
    if let Some(reasoning) = &completion.reasoning {
        transform.push_reasoning(reasoning, &mut events);
    }
    if let Some(content) = &completion.content {
        transform.push(content.as_bytes(), &mut events);
    }
    let stop = completion
        .finish_reason
        .as_deref()
        .map_or(StopReason::Stop, stop_reason);
    transform.finish(stop, &mut events);
    let mut builder = MessageBuilder::new();
    for event in &events {
        builder.push(event);
    }
    builder.apply_to(&mut response);
    let mut log = log;
    log.dialect = transform.dialect();
    log.finish(&state, 200, Some(builder.outcome()));
    json_response(StatusCode::OK, response.to_string())
}
