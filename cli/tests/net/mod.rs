//! The harness the proxy tests share: servers on loopback that stop on request, a
//! plain HTTP client, and a deadline for every await that could hang.
#![allow(dead_code)]

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, StatusCode};
use hyper_util::client::legacy::{connect::HttpConnector, Client};
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The longest any step may take, generous for a loaded machine.
pub const LIMIT: Duration = Duration::from_secs(600);

/// A server task, its address, and the switch that stops it.
pub struct Running<T> {
    pub addr: SocketAddr,
    pub stop: Option<oneshot::Sender<()>>,
    pub task: JoinHandle<T>,
}

impl<T> Running<T> {
    /// Stop the server and wait for its task.
    pub async fn stop(mut self) -> T {
        let _ = self.stop.take().unwrap().send(());
        tokio::time::timeout(LIMIT, self.task)
            .await
            .expect("shut down in time")
            .expect("task")
    }
}

/// A listener on a free loopback port.
pub async fn listener() -> TcpListener {
    TcpListener::bind("127.0.0.1:0").await.expect("bind")
}

pub fn client() -> Client<HttpConnector, Full<Bytes>> {
    Client::builder(TokioExecutor::new()).build_http()
}

/// POST a chat completion request: the status, the content type and the whole body.
pub async fn post(addr: SocketAddr, body: &Value) -> (StatusCode, String, Bytes) {
    let request = Request::builder()
        .method(Method::POST)
        .uri(format!("http://{addr}/v1/chat/completions"))
        .header("content-type", "application/json")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let response = client().request(request).await.expect("request");
    let status = response.status();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let body = response
        .into_body()
        .collect()
        .await
        .expect("body")
        .to_bytes();
    (status, content_type, body)
}

/// Await `f` within [`LIMIT`].
pub async fn timed<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(LIMIT, f)
        .await
        .expect("test finished in time")
}
