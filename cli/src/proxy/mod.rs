//! A repairing proxy between clients (OpenAI and Anthropic SDKs, agents) and an
//! OpenAI-compatible model server (vLLM, llama.cpp, ollama, mlx, ...): model output goes
//! through a [`Transform`] (the tool-call parser), and tool calls the upstream parsed
//! itself through the same engine.
//!
//! * `POST /v1/chat/completions`, streaming or not: the request body goes upstream
//!   untouched; every choice is parsed.
//! * `POST /v1/messages` (Anthropic Messages) and `POST /v1/responses` (OpenAI
//!   Responses): translated to a chat completion upstream, answered in their own shape.
//! * `POST /v1/completions`: passed through; with `tools` in the request, calls are
//!   parsed out of the text.
//! * `GET /health`, `GET /metrics` (Prometheus); any other route is passed through.
//! * Upstream errors pass through with their status and body.
//!
//! See `docs/proxy.md`.

mod anthropic;
mod body;
mod choice;
mod complete;
mod completions;
mod config;
mod exchange;
mod log;
mod metrics;
mod parser_transform;
mod prometheus;
mod responses;
mod routes;
mod server;
mod stream;
mod surface;
mod transform;
mod upstream;
mod upstream_calls;
mod upstream_read;

pub use body::{BoxError, ProxyBody};
pub use config::{ConfigFile, ModelRule, Settings};
pub use log::LogFormat;
pub use metrics::{Metrics, MetricsSnapshot, LATENCY_BUCKETS};
pub use parser_transform::{
    DialectChoice, ModelDialects, ParserOptions, ParserTransform, ParserTransforms,
};
pub use transform::{MakeTransform, Passthrough, Transform};

use serde_json::Value;
use std::future::Future;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use toolsift::sse::CallMode;
use toolsift::Error;
use upstream::Upstream;

/// How the proxy runs.
#[derive(Clone, Debug)]
pub struct ProxyOptions {
    /// The upstream base URL, up to and including `/v1` (`http://127.0.0.1:8080/v1` or
    /// `https://...`).
    pub upstream: String,
    /// PEM certificates trusted for an `https://` upstream, besides the built-in roots.
    pub upstream_ca: Option<PathBuf>,
    /// The bound on connecting to the upstream (default 10 s).
    pub connect_timeout: Duration,
    /// The longest the upstream may stay silent: before its answer starts, and between
    /// two reads of it (default 300 s). Past it the client gets an `upstream_error`.
    pub idle_timeout: Duration,
    /// Chunks that may wait for a slow client in one response before the upstream read
    /// pauses (default 16).
    pub channel_capacity: usize,
    /// The bound on one upstream SSE event (default 8 MiB).
    pub max_event_bytes: usize,
    /// The bound on a request body, and on a whole non-streaming upstream response
    /// (default 32 MiB).
    pub max_body_bytes: usize,
    /// When tool calls reach a streaming chat completions client (default
    /// [`CallMode::Buffered`]). Anthropic and Responses streams always send calls once
    /// released.
    pub call_mode: CallMode,
    /// Log one line per request and a summary on shutdown to stderr (default true).
    pub log: bool,
    /// The per-request line's format (default [`LogFormat::Text`]).
    pub log_format: LogFormat,
    /// How long open responses may go on after shutdown begins (default 10 s).
    pub shutdown_grace: Duration,
}

impl Default for ProxyOptions {
    fn default() -> ProxyOptions {
        ProxyOptions {
            upstream: "http://127.0.0.1:8080/v1".into(),
            upstream_ca: None,
            connect_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(300),
            channel_capacity: 16,
            max_event_bytes: toolsift::sse::DEFAULT_MAX_EVENT_BYTES,
            max_body_bytes: 32 << 20,
            call_mode: CallMode::default(),
            log: true,
            log_format: LogFormat::default(),
            shutdown_grace: Duration::from_secs(10),
        }
    }
}

pub(crate) struct State {
    options: ProxyOptions,
    upstream: Upstream,
    make_transform: MakeTransform,
    metrics: Arc<Metrics>,
}

/// A configured proxy, ready to [`serve`](Proxy::serve).
pub struct Proxy {
    state: Arc<State>,
}

impl Proxy {
    /// Check the options (the upstream URL, the CA file) and build the proxy.
    /// `make_transform` is called once per choice of each request with the (chat
    /// completion) request body.
    pub fn new(
        options: ProxyOptions,
        make_transform: impl Fn(&Value) -> Box<dyn Transform> + Send + Sync + 'static,
    ) -> Result<Proxy, Error> {
        let upstream = Upstream::new(
            &options.upstream,
            options.upstream_ca.as_deref(),
            options.connect_timeout,
            options.idle_timeout,
        )?;
        Ok(Proxy {
            state: Arc::new(State {
                options,
                upstream,
                make_transform: Arc::new(make_transform),
                metrics: Arc::default(),
            }),
        })
    }

    /// The live counters (what `GET /metrics` reports).
    pub fn metrics(&self) -> Arc<Metrics> {
        self.state.metrics.clone()
    }

    /// Serve on `listener` until `shutdown` completes; open responses then get
    /// [`shutdown_grace`](ProxyOptions::shutdown_grace) to finish. Returns the final
    /// counters (also printed to stderr when logging).
    pub async fn serve(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
    ) -> MetricsSnapshot {
        let state = self.state;
        let handler_state = state.clone();
        let handler = move |req| routes::handle(handler_state.clone(), req);
        server::run(listener, handler, shutdown, state.options.shutdown_grace).await;
        let summary = state.metrics.snapshot();
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
) -> Result<MetricsSnapshot, Error> {
    Ok(Proxy::new(options, make_transform)?
        .serve(listener, shutdown)
        .await)
}
