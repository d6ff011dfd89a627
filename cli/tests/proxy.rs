//! The proxy end to end, against the replay upstream, with test transforms.

mod net;
/// The replay upstream of `toolsift replay-upstream` (not library API).
#[path = "../src/cli/replay_upstream.rs"]
mod replay_upstream;

use bytes::{Bytes, BytesMut};
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, StatusCode};
use net::{client, listener, post, timed, Running};
use replay_upstream::{serve_replay, Replay};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::oneshot;
use tokio_util::codec::Decoder;
use toolsift::sse::SseFrameDecoder;
use toolsift::{CallIndex, OwnedEvent, Repairs, StopReason};
use toolsift_cli::proxy::{Metrics, MetricsSnapshot, Passthrough, Proxy, ProxyOptions, Transform};

async fn start_replay(replay: Replay) -> Running<()> {
    let listener = listener().await;
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = oneshot::channel();
    let task = tokio::spawn(serve_replay(listener, replay, async {
        let _ = rx.await;
    }));
    Running {
        addr,
        stop: Some(tx),
        task,
    }
}

type Make = fn(&Value) -> Box<dyn Transform>;

fn passthrough(_: &Value) -> Box<dyn Transform> {
    Box::new(Passthrough::new())
}

async fn start_proxy(
    upstream: SocketAddr,
    capacity: usize,
    make: Make,
) -> (Running<MetricsSnapshot>, Arc<Metrics>) {
    let listener = listener().await;
    let addr = listener.local_addr().unwrap();
    let options = ProxyOptions {
        upstream: format!("http://{upstream}/v1"),
        channel_capacity: capacity,
        log: false,
        shutdown_grace: Duration::from_secs(5),
        ..ProxyOptions::default()
    };
    let proxy = Proxy::new(options, make).expect("proxy");
    let metrics = proxy.metrics();
    let (tx, rx) = oneshot::channel();
    let task = tokio::spawn(proxy.serve(listener, async {
        let _ = rx.await;
    }));
    (
        Running {
            addr,
            stop: Some(tx),
            task,
        },
        metrics,
    )
}

/// Decode an SSE body into its data payloads.
fn sse_data(body: &[u8]) -> Vec<String> {
    let mut decoder = SseFrameDecoder::new();
    let mut buf = BytesMut::from(body);
    let mut out = Vec::new();
    while let Some(event) = decoder.decode_eof(&mut buf).expect("sse") {
        out.push(event.data);
    }
    out
}

struct Streamed {
    content: String,
    reasoning: String,
    chunks: Vec<Value>,
    done: bool,
}

impl Streamed {
    fn last(&self) -> &Value {
        self.chunks
            .iter()
            .rev()
            .find(|c| c["choices"][0]["finish_reason"].is_string())
            .expect("final chunk")
    }
}

fn read_stream(body: &[u8]) -> Streamed {
    let data = sse_data(body);
    let done = data.last().map(String::as_str) == Some("[DONE]");
    let chunks: Vec<Value> = data
        .iter()
        .filter(|d| *d != "[DONE]")
        .map(|d| serde_json::from_str(d).expect("chunk json"))
        .collect();
    let (mut content, mut reasoning) = (String::new(), String::new());
    for chunk in &chunks {
        assert_eq!(chunk["object"], "chat.completion.chunk");
        assert_eq!(chunk["id"], "chatcmpl-replay");
        assert_eq!(chunk["model"], "replay");
        assert_eq!(chunk["created"], 1_700_000_000u64);
        let delta = &chunk["choices"][0]["delta"];
        content += delta["content"].as_str().unwrap_or("");
        reasoning += delta["reasoning_content"].as_str().unwrap_or("");
    }
    Streamed {
        content,
        reasoning,
        chunks,
        done,
    }
}

const OUTPUT: &str = "Sure — let me check ✓ the wörld 🦀.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";

fn request(stream: bool) -> Value {
    json!({
        "model": "replay",
        "stream": stream,
        "messages": [{"role": "user", "content": "weather?"}],
        "tools": [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}],
    })
}

#[tokio::test]
async fn streaming_passes_text_and_the_request_through() {
    timed(async {
        let mut replay = Replay::new(OUTPUT);
        replay.reasoning = "thinking…".into();
        let requests = replay.requests.clone();
        let upstream = start_replay(replay).await;
        let (proxy, _) = start_proxy(upstream.addr, 16, passthrough).await;
        let (status, ct, body) = post(proxy.addr, &request(true)).await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(ct, "text/event-stream");
        let stream = read_stream(&body);
        assert_eq!(stream.content, OUTPUT);
        assert_eq!(stream.reasoning, "thinking…");
        assert!(stream.done);
        assert_eq!(stream.chunks[0]["choices"][0]["delta"]["role"], "assistant");
        assert_eq!(stream.last()["choices"][0]["finish_reason"], "stop");
        assert_eq!(
            stream.last()["toolsift"],
            json!({"incomplete_calls": [], "repairs": {}})
        );
        assert_eq!(
            requests.lock().unwrap().as_slice(),
            &[request(true)],
            "body passed through with tools"
        );
        let metrics = proxy.stop().await;
        assert_eq!(
            (metrics.requests, metrics.streams, metrics.disconnects),
            (1, 1, 0)
        );
        upstream.stop().await;
    })
    .await;
}

#[tokio::test]
async fn non_streaming_goes_through_the_same_transform() {
    timed(async {
        let mut replay = Replay::new(OUTPUT);
        replay.reasoning = "hm".into();
        replay.finish_reason = "length".into();
        let upstream = start_replay(replay).await;
        let (proxy, _) = start_proxy(upstream.addr, 16, passthrough).await;
        let (status, ct, body) = post(proxy.addr, &request(false)).await;
        assert_eq!((status, ct.as_str()), (StatusCode::OK, "application/json"));
        let response: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(response["object"], "chat.completion");
        assert_eq!(response["id"], "chatcmpl-replay");
        assert_eq!(
            response["usage"]["total_tokens"], 2,
            "upstream fields are kept"
        );
        let choice = &response["choices"][0];
        assert_eq!(
            choice["message"],
            json!({"role": "assistant", "content": OUTPUT, "reasoning_content": "hm"})
        );
        assert_eq!(choice["finish_reason"], "length");
        assert_eq!(response["toolsift"]["incomplete_calls"], json!([]));
        proxy.stop().await;
        upstream.stop().await;
    })
    .await;
}

/// A stand-in for the parser: text passes, and one call is released at the end.
struct OneCall;

impl Transform for OneCall {
    fn push(&mut self, text: &[u8], out: &mut Vec<OwnedEvent>) {
        out.push(OwnedEvent::Text(String::from_utf8_lossy(text).into_owned()));
    }

    fn finish(&mut self, stop: StopReason, out: &mut Vec<OwnedEvent>) {
        let index = CallIndex(0);
        out.push(OwnedEvent::CallStarted {
            index,
            id: "call_0".into(),
            name: "get_weather".into(),
        });
        out.push(OwnedEvent::ArgsDelta {
            index,
            fragment: "{\"city\":\"Paris\"}".into(),
        });
        out.push(OwnedEvent::CallFinished {
            index,
            id: "call_0".into(),
            name: "get_weather".into(),
            arguments: "{\"city\":\"Paris\"}".into(),
            repairs: Repairs::NONE,
            validation: None,
        });
        out.push(OwnedEvent::End {
            stop,
            truncated: false,
        });
    }
}

#[tokio::test]
async fn released_calls_come_back_as_openai_tool_calls() {
    timed(async {
        let upstream = start_replay(Replay::new("hi")).await;
        let (proxy, _) = start_proxy(upstream.addr, 16, |_| Box::new(OneCall)).await;
        let (_, _, body) = post(proxy.addr, &request(true)).await;
        let stream = read_stream(&body);
        let calls: Vec<&Value> = stream.chunks.iter().filter_map(|c| c["choices"][0]["delta"].get("tool_calls")).collect();
        assert_eq!(
            calls,
            [
                &json!([{"index": 0, "id": "call_0", "type": "function", "function": {"name": "get_weather", "arguments": ""}}]),
                &json!([{"index": 0, "function": {"arguments": "{\"city\":\"Paris\"}"}}]),
            ]
        );
        assert_eq!(stream.last()["choices"][0]["finish_reason"], "tool_calls");

        let (_, _, body) = post(proxy.addr, &request(false)).await;
        let response: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(response["choices"][0]["finish_reason"], "tool_calls");
        assert_eq!(
            response["choices"][0]["message"]["tool_calls"],
            json!([{"id": "call_0", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}])
        );
        let metrics = proxy.stop().await;
        assert_eq!(metrics.calls, 2);
        upstream.stop().await;
    })
    .await;
}

#[tokio::test]
async fn upstream_errors_pass_through() {
    timed(async {
        let mut replay = Replay::new("unused");
        let error = r#"{"error":{"message":"slow down","type":"rate_limit"}}"#;
        replay.error = Some((429, error.into()));
        let upstream = start_replay(replay).await;
        let (proxy, _) = start_proxy(upstream.addr, 16, passthrough).await;
        for stream in [true, false] {
            let (status, ct, body) = post(proxy.addr, &request(stream)).await;
            assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
            assert_eq!(ct, "application/json");
            assert_eq!(body, error.as_bytes());
        }
        // /v1/models is forwarded, and so is any other path: the upstream's 404 comes back.
        let response = client()
            .get(format!("http://{}/v1/models", proxy.addr).parse().unwrap())
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        let models: Value =
            serde_json::from_slice(&response.into_body().collect().await.unwrap().to_bytes())
                .unwrap();
        assert_eq!(models["data"][0]["id"], "replay");
        let response = client()
            .get(format!("http://{}/v2/nope", proxy.addr).parse().unwrap())
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
        let metrics = proxy.stop().await;
        assert_eq!(metrics.upstream_errors, 3);
        upstream.stop().await;

        // An unreachable upstream is a 502 with an OpenAI-style error.
        let gone = listener().await.local_addr().unwrap();
        let (proxy, _) = start_proxy(gone, 16, passthrough).await;
        let (status, _, body) = post(proxy.addr, &request(true)).await;
        assert_eq!(status, StatusCode::BAD_GATEWAY);
        let body: Value = serde_json::from_slice(&body).unwrap();
        assert!(body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("upstream"));
        proxy.stop().await;
    })
    .await;
}

#[tokio::test]
async fn an_upstream_cut_mid_stream_finishes_with_length() {
    timed(async {
        let mut replay = Replay::new(OUTPUT);
        replay.cut_after = Some(12);
        let upstream = start_replay(replay).await;
        let (proxy, _) = start_proxy(upstream.addr, 16, passthrough).await;
        let (status, _, body) = post(proxy.addr, &request(true)).await;
        assert_eq!(status, StatusCode::OK);
        let stream = read_stream(&body);
        assert!(
            OUTPUT.starts_with(&stream.content)
                && stream.content.len() >= 12
                && stream.content.len() < OUTPUT.len()
        );
        assert_eq!(stream.last()["choices"][0]["finish_reason"], "length");
        assert!(stream.done, "the client still gets a well-formed end");
        let metrics = proxy.stop().await;
        assert_eq!(metrics.disconnects, 1);
        upstream.stop().await;
    })
    .await;
}

/// Tags each response with the request's `user`, to catch crossed streams.
struct Tag(Option<String>);

impl Transform for Tag {
    fn push(&mut self, text: &[u8], out: &mut Vec<OwnedEvent>) {
        if let Some(tag) = self.0.take() {
            out.push(OwnedEvent::Text(tag));
        }
        out.push(OwnedEvent::Text(String::from_utf8_lossy(text).into_owned()));
    }

    fn finish(&mut self, stop: StopReason, out: &mut Vec<OwnedEvent>) {
        out.push(OwnedEvent::End {
            stop,
            truncated: false,
        });
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_concurrent_streams_are_each_correct() {
    timed(async {
        let upstream = start_replay(Replay::new(OUTPUT)).await;
        let make: Make = |req| Box::new(Tag(Some(format!("[{}]", req["user"].as_str().unwrap()))));
        let (proxy, _) = start_proxy(upstream.addr, 16, make).await;
        let addr = proxy.addr;
        let tasks: Vec<_> = (0..100)
            .map(|i| {
                tokio::spawn(async move {
                    let mut body = request(true);
                    body["user"] = Value::from(format!("u{i}"));
                    let (status, _, body) = post(addr, &body).await;
                    assert_eq!(status, StatusCode::OK);
                    let stream = read_stream(&body);
                    assert_eq!(stream.content, format!("[u{i}]{OUTPUT}"));
                    assert_eq!(stream.last()["choices"][0]["finish_reason"], "stop");
                    assert!(stream.done);
                })
            })
            .collect();
        for task in tasks {
            task.await.expect("stream task");
        }
        let metrics = proxy.stop().await;
        assert_eq!(
            (metrics.requests, metrics.streams, metrics.disconnects),
            (100, 100, 0)
        );
        upstream.stop().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reader_pauses_the_upstream_instead_of_buffering() {
    timed(async {
        const CAPACITY: usize = 2;
        // More output than the kernel buffers between proxy and client hold (the client
        // socket's receive buffer is made small; the proxy's send buffer is at most 4 MiB
        // on Linux by default).
        let content: String = (0..200_000).map(|i| format!("l{i:08} ")).collect();
        let mut replay = Replay::new(content.clone());
        replay.piece_bytes = 64;
        let upstream = start_replay(replay).await;
        let (proxy, metrics) = start_proxy(upstream.addr, CAPACITY, passthrough).await;

        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        let stream = socket.connect(proxy.addr).await.unwrap();
        let (mut sender, conn) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .unwrap();
        tokio::spawn(conn);
        let request = Request::builder()
            .method(Method::POST)
            .uri("/v1/chat/completions")
            .header("host", proxy.addr.to_string())
            .body(Full::new(Bytes::from(request(true).to_string())))
            .unwrap();
        let response = sender.send_request(request).await.unwrap();
        let mut body = response.into_body();
        // Read nothing for a while: the queue fills and the proxy stops reading upstream.
        let mut read_before = 0;
        for _ in 0..100 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let read = metrics.snapshot().upstream_bytes;
            if read == read_before && metrics.snapshot().max_queued == CAPACITY {
                break;
            }
            read_before = read;
        }
        let paused = metrics.snapshot();
        assert_eq!(
            paused.max_queued, CAPACITY,
            "the queue filled up to its bound"
        );
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(
            metrics.snapshot().upstream_bytes,
            paused.upstream_bytes,
            "the upstream read stays paused while the client does not read"
        );
        // Then read slowly, with small delays, to the end.
        let mut bytes = BytesMut::new();
        let mut frames = 0u32;
        while let Some(frame) = body.frame().await {
            if let Ok(data) = frame.expect("frame").into_data() {
                bytes.extend_from_slice(&data);
            }
            frames += 1;
            if frames % 256 == 0 {
                tokio::time::sleep(Duration::from_millis(1)).await;
            }
        }
        let stream = read_stream(&bytes);
        assert!(stream.content == content, "all content arrives, in order");
        let end = metrics.snapshot();
        assert_eq!(
            end.max_queued, CAPACITY,
            "never more than the bound in flight"
        );
        assert!(
            paused.upstream_bytes < end.upstream_bytes,
            "the upstream was paused before its end ({} of {} bytes)",
            paused.upstream_bytes,
            end.upstream_bytes
        );
        proxy.stop().await;
        upstream.stop().await;
    })
    .await;
}
