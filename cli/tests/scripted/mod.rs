//! A scripted upstream for the proxy's tests: each request gets the answer a closure
//! writes for it (status, content type, body pieces with pauses, a stall, a cut), over
//! plain HTTP or TLS with a certificate made for the test.
#![allow(dead_code)]

use bytes::Bytes;
use http_body_util::{combinators::BoxBody, BodyExt};
use hyper::body::{Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// One piece of an answer's body.
#[derive(Clone, Debug)]
pub enum Piece {
    /// Bytes to write.
    Bytes(Bytes),
    /// A pause.
    Pause(Duration),
    /// Break the connection here.
    Cut,
}

/// An answer.
#[derive(Clone, Debug)]
pub struct Answer {
    pub status: u16,
    pub content_type: &'static str,
    pub pieces: Vec<Piece>,
}

impl Answer {
    pub fn json(value: &Value) -> Answer {
        Answer {
            status: 200,
            content_type: "application/json",
            pieces: vec![Piece::Bytes(Bytes::from(value.to_string()))],
        }
    }

    /// An SSE body of `data:` events, then `[DONE]`.
    pub fn sse(chunks: &[Value]) -> Answer {
        let mut pieces: Vec<Piece> = chunks
            .iter()
            .map(|c| Piece::Bytes(Bytes::from(format!("data: {c}\n\n"))))
            .collect();
        pieces.push(Piece::Bytes(Bytes::from_static(b"data: [DONE]\n\n")));
        Answer {
            status: 200,
            content_type: "text/event-stream",
            pieces,
        }
    }
}

/// A chat completion chunk with one choice's delta.
pub fn chunk(index: u32, delta: Value, finish_reason: Option<&str>) -> Value {
    json!({"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": 1_700_000_000u64,
           "model": "scripted", "choices": [{"index": index, "delta": delta, "finish_reason": finish_reason}]})
}

/// A whole chat completion with the given choices' messages and finish reasons.
pub fn completion(choices: &[(Value, &str)]) -> Value {
    let choices: Vec<Value> = choices
        .iter()
        .enumerate()
        .map(|(i, (message, finish))| json!({"index": i, "message": message, "finish_reason": finish}))
        .collect();
    json!({"id": "chatcmpl-s", "object": "chat.completion", "created": 1_700_000_000u64,
           "model": "scripted", "choices": choices,
           "usage": {"prompt_tokens": 3, "completion_tokens": 5, "total_tokens": 8}})
}

/// A running scripted upstream.
pub struct Scripted {
    pub addr: SocketAddr,
    /// Every request received: method, path, body.
    pub requests: Arc<Mutex<Vec<(String, String, Value)>>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Scripted {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type Script = Arc<dyn Fn(&str, &Value) -> Answer + Send + Sync>;

async fn answer(
    script: Script,
    log: Arc<Mutex<Vec<(String, String, Value)>>>,
    req: Request<Incoming>,
) -> Response<BoxBody<Bytes, BoxError>> {
    let method = req.method().to_string();
    let path = req.uri().path().to_owned();
    let body = req
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let answer = script(&path, &request);
    log.lock().unwrap().push((method, path, request));
    let (tx, rx) = mpsc::channel::<Result<Frame<Bytes>, BoxError>>(1);
    tokio::spawn(async move {
        for piece in answer.pieces {
            match piece {
                Piece::Bytes(bytes) => {
                    if tx.send(Ok(Frame::data(bytes))).await.is_err() {
                        return;
                    }
                }
                Piece::Pause(pause) => tokio::time::sleep(pause).await,
                Piece::Cut => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                    let _ = tx.send(Err("scripted: cut".into())).await;
                    return;
                }
            }
        }
    });
    let mut response = Response::new(BodyExt::boxed(ChannelBody(rx)));
    *response.status_mut() = hyper::StatusCode::from_u16(answer.status).unwrap();
    response
        .headers_mut()
        .insert("content-type", answer.content_type.parse().unwrap());
    response
}

/// A body fed by a channel of frames.
struct ChannelBody(mpsc::Receiver<Result<Frame<Bytes>, BoxError>>);

impl hyper::body::Body for ChannelBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        self.0.poll_recv(cx)
    }
}

/// Serve `script` on a loopback port; with `tls`, over TLS with that server config.
pub async fn start(
    script: impl Fn(&str, &Value) -> Answer + Send + Sync + 'static,
    tls: Option<Arc<rustls::ServerConfig>>,
) -> Scripted {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let script: Script = Arc::new(script);
    let requests: Arc<Mutex<Vec<(String, String, Value)>>> = Arc::default();
    let log = requests.clone();
    let acceptor = tls.map(tokio_rustls::TlsAcceptor::from);
    let task = tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let (script, log, acceptor) = (script.clone(), log.clone(), acceptor.clone());
            tokio::spawn(async move {
                let service = service_fn(move |req| {
                    let (script, log) = (script.clone(), log.clone());
                    async move { Ok::<_, Infallible>(answer(script, log, req).await) }
                });
                match acceptor {
                    Some(acceptor) => {
                        if let Ok(stream) = acceptor.accept(stream).await {
                            let _ = http1::Builder::new()
                                .serve_connection(TokioIo::new(stream), service)
                                .await;
                        }
                    }
                    None => {
                        let _ = http1::Builder::new()
                            .serve_connection(TokioIo::new(stream), service)
                            .await;
                    }
                }
            });
        }
    });
    Scripted {
        addr,
        requests,
        task,
    }
}

/// A self-signed certificate for `localhost` and 127.0.0.1: the server config, and the
/// certificate as PEM for the client to trust.
pub fn self_signed() -> (Arc<rustls::ServerConfig>, String) {
    let certified =
        rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()]).unwrap();
    let pem = certified.cert.pem();
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(certified.signing_key.serialize_der().into());
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![certified.cert.der().clone()], key)
        .unwrap();
    (Arc::new(config), pem)
}
