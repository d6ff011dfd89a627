//! A replay upstream for tests and demos: answers chat completions with a recorded raw
//! model output, as OpenAI SSE chunks or as one JSON response.
//!
//! Not library API: the `replay-upstream` subcommand uses it, and the proxy's
//! integration tests include this file (`#[path]`), each using part of it. So it uses
//! only the crates, nothing of the module tree it sits in.
#![allow(dead_code)]

use bytes::Bytes;
use http_body_util::channel::{Channel, Sender};
use http_body_util::combinators::BoxBody;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use hyper_util::server::graceful::GracefulShutdown;
use serde_json::{json, Value};
use std::convert::Infallible;
use std::future::Future;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::task::JoinSet;

type BoxError = Box<dyn std::error::Error + Send + Sync>;
type ReplayBody = BoxBody<Bytes, BoxError>;

/// What a replay upstream answers.
#[derive(Clone, Debug)]
pub(crate) struct Replay {
    /// The model name reported.
    pub(crate) model: String,
    /// The raw model output, replayed as `content`.
    pub(crate) content: String,
    /// Reasoning replayed as `reasoning_content` before the content (empty: none).
    pub(crate) reasoning: String,
    /// The finish reason of the last chunk (default `stop`).
    pub(crate) finish_reason: String,
    /// Largest piece of text per chunk, in bytes (split on character boundaries; default 4).
    pub(crate) piece_bytes: usize,
    /// A pause before each chunk (default none).
    pub(crate) piece_delay: Duration,
    /// Cut the connection (an aborted body, no `[DONE]`) after this many bytes of content.
    pub(crate) cut_after: Option<usize>,
    /// Answer every chat completion with this status and body instead.
    pub(crate) error: Option<(u16, String)>,
    /// Every chat completion request body received, in order.
    pub(crate) requests: Arc<Mutex<Vec<Value>>>,
    /// Content chunks written so far, over all responses.
    pub(crate) pieces_sent: Arc<AtomicUsize>,
}

impl Replay {
    /// Replay `content` in 4-byte pieces, finishing with `stop`.
    pub(crate) fn new(content: impl Into<String>) -> Replay {
        Replay {
            model: "replay".into(),
            content: content.into(),
            reasoning: String::new(),
            finish_reason: "stop".into(),
            piece_bytes: 4,
            piece_delay: Duration::ZERO,
            cut_after: None,
            error: None,
            requests: Arc::default(),
            pieces_sent: Arc::default(),
        }
    }

    fn chunk(&self, delta: Value, finish_reason: Option<&str>) -> Bytes {
        let chunk = json!({
            "id": "chatcmpl-replay",
            "object": "chat.completion.chunk",
            "created": 1_700_000_000u64,
            "model": self.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish_reason}],
        });
        Bytes::from(format!("data: {chunk}\n\n"))
    }

    fn whole(&self) -> Value {
        let mut message = json!({"role": "assistant", "content": self.content});
        if !self.reasoning.is_empty() {
            message["reasoning_content"] = Value::from(self.reasoning.as_str());
        }
        json!({
            "id": "chatcmpl-replay",
            "object": "chat.completion",
            "created": 1_700_000_000u64,
            "model": self.model,
            "choices": [{"index": 0, "message": message, "finish_reason": self.finish_reason}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        })
    }
}

/// Split `text` into pieces of at most `max` bytes (at least one character each).
fn pieces(text: &str, max: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let mut end = max.max(1).min(rest.len());
        while !rest.is_char_boundary(end) {
            end += 1;
        }
        let (piece, tail) = rest.split_at(end);
        out.push(piece);
        rest = tail;
    }
    out
}

/// Send one piece of the body after the replay's delay; `false` once the client left.
async fn send(tx: &mut Sender<Bytes, BoxError>, delay: Duration, bytes: Bytes) -> bool {
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    tx.send_data(bytes).await.is_ok()
}

async fn produce(replay: Arc<Replay>, mut tx: Sender<Bytes, BoxError>) {
    let delay = replay.piece_delay;
    let first = replay.chunk(json!({"role": "assistant", "content": ""}), None);
    if !send(&mut tx, delay, first).await {
        return;
    }
    for piece in pieces(&replay.reasoning, replay.piece_bytes) {
        if !send(
            &mut tx,
            delay,
            replay.chunk(json!({"reasoning_content": piece}), None),
        )
        .await
        {
            return;
        }
    }
    let mut sent = 0;
    for piece in pieces(&replay.content, replay.piece_bytes) {
        if replay.cut_after.is_some_and(|cut| sent >= cut) {
            return cut(tx).await;
        }
        if !send(
            &mut tx,
            delay,
            replay.chunk(json!({"content": piece}), None),
        )
        .await
        {
            return;
        }
        sent += piece.len();
        replay.pieces_sent.fetch_add(1, Ordering::Relaxed);
    }
    if replay.cut_after.is_some() {
        return cut(tx).await;
    }
    let last = replay.chunk(json!({}), Some(&replay.finish_reason));
    if send(&mut tx, delay, last).await {
        send(
            &mut tx,
            Duration::ZERO,
            Bytes::from_static(b"data: [DONE]\n\n"),
        )
        .await;
    }
}

/// Cut the connection after what was sent: once the body has taken every piece, and a
/// moment for it to write them, the error that ends the connection at once (pieces
/// not yet written would be lost with it, and the cut would fall earlier than asked).
async fn cut(mut tx: Sender<Bytes, BoxError>) {
    while tx.capacity() < tx.max_capacity() {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    tokio::time::sleep(Duration::from_millis(2)).await;
    tx.abort("replay: connection cut".into());
}

/// Chooses the replay for each chat completion request from its body, or answers with
/// an error status and body.
type PickReplay = Arc<dyn Fn(&Value) -> Result<Replay, (u16, String)> + Send + Sync>;

fn json_answer(status: u16, body: String) -> Response<ReplayBody> {
    let full = Full::new(Bytes::from(body)).map_err(|never| match never {});
    let mut response = Response::new(full.boxed());
    *response.status_mut() =
        StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    response
        .headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    response
}

async fn answer(
    models: Arc<Vec<String>>,
    pick: PickReplay,
    req: Request<Incoming>,
) -> Response<ReplayBody> {
    let json = json_answer;
    match (req.method(), req.uri().path()) {
        (&Method::GET, "/v1/models") => {
            let data: Vec<Value> = models
                .iter()
                .map(|id| json!({"id": id, "object": "model", "owned_by": "replay"}))
                .collect();
            json(200, json!({"object": "list", "data": data}).to_string())
        }
        (&Method::POST, "/v1/chat/completions") => {
            let body = match req.into_body().collect().await {
                Ok(body) => body.to_bytes(),
                Err(_) => return json(400, "{}".into()),
            };
            let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let stream = request["stream"].as_bool().unwrap_or(false);
            let replay = match pick(&request) {
                Ok(replay) => Arc::new(replay),
                Err((status, body)) => return json(status, body),
            };
            replay
                .requests
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(request);
            if let Some((status, body)) = &replay.error {
                return json(*status, body.clone());
            }
            if !stream {
                return json(200, replay.whole().to_string());
            }
            let (tx, body) = Channel::new(1);
            tokio::spawn(produce(replay, tx));
            let mut response = Response::new(body.boxed());
            response
                .headers_mut()
                .insert(CONTENT_TYPE, HeaderValue::from_static("text/event-stream"));
            response
        }
        _ => json(404, r#"{"error":{"message":"not found"}}"#.into()),
    }
}

/// Serve `replay` on `listener` (mounted at `/v1`) until `shutdown` completes.
pub(crate) async fn serve_replay(
    listener: tokio::net::TcpListener,
    replay: Replay,
    shutdown: impl Future<Output = ()>,
) {
    let models = vec![replay.model.clone()];
    serve_replays(listener, models, move |_| Ok(replay.clone()), shutdown).await;
}

/// Serve a replay chosen per request by `pick` (from the request body, e.g. by its
/// `model`); `/v1/models` lists `models`. Once `shutdown` completes, open responses get
/// a second to end; what is left is cut.
pub(crate) async fn serve_replays(
    listener: tokio::net::TcpListener,
    models: Vec<String>,
    pick: impl Fn(&Value) -> Result<Replay, (u16, String)> + Send + Sync + 'static,
    shutdown: impl Future<Output = ()>,
) {
    let models = Arc::new(models);
    let pick: PickReplay = Arc::new(pick);
    let graceful = GracefulShutdown::new();
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            () = &mut shutdown => break,
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
            accepted = listener.accept() => {
                let Ok((stream, _)) = accepted else {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                };
                let (models, pick) = (models.clone(), pick.clone());
                let service = service_fn(move |req| {
                    let response = answer(models.clone(), pick.clone(), req);
                    async move { Ok::<_, Infallible>(response.await) }
                });
                let conn = http1::Builder::new().serve_connection(TokioIo::new(stream), service);
                connections.spawn(graceful.watch(conn));
            }
        }
    }
    drop(listener);
    let _ = tokio::time::timeout(Duration::from_secs(1), graceful.shutdown()).await;
}
