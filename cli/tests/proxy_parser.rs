//! The proxy with the real parser transform, against the replay upstream: recorded raw
//! model outputs in, OpenAI tool calls out.

mod net;
/// The replay upstream of `toolsift replay-upstream` (not library API).
#[path = "../src/cli/replay_upstream.rs"]
mod replay_upstream;

use bytes::{Bytes, BytesMut};
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, StatusCode};
use net::{listener, post, timed, Running};
use replay_upstream::{serve_replays, Replay};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::oneshot;
use tokio_util::codec::Decoder;
use toolsift::sse::{CallMode, SseFrameDecoder};
use toolsift_cli::proxy::{
    DialectChoice, Metrics, MetricsSnapshot, ModelDialects, ParserOptions, ParserTransforms, Proxy,
    ProxyOptions,
};

const HERMES: &str = include_str!("fixtures/e2e/hermes-weather.txt");
const QWEN: &str = include_str!("fixtures/e2e/qwen3-coder-write.txt");
const HERMES_CUT: &str = include_str!("fixtures/e2e/hermes-weather-cut.txt");
const QWEN_CUT: &str = include_str!("fixtures/e2e/qwen3-coder-write-cut.txt");

/// A replay upstream whose answer `pick` chooses from the request.
async fn start_upstream(pick: impl Fn(&Value) -> Replay + Send + Sync + 'static) -> Running<()> {
    let listener = listener().await;
    let addr = listener.local_addr().unwrap();
    let (tx, rx) = oneshot::channel();
    let task = tokio::spawn(serve_replays(
        listener,
        vec!["replay".into()],
        move |request| Ok(pick(request)),
        async {
            let _ = rx.await;
        },
    ));
    Running {
        addr,
        stop: Some(tx),
        task,
    }
}

async fn start_proxy(
    upstream: SocketAddr,
    mode: CallMode,
    capacity: usize,
) -> (Running<MetricsSnapshot>, Arc<Metrics>) {
    let listener = listener().await;
    let addr = listener.local_addr().unwrap();
    let options = ProxyOptions {
        upstream: format!("http://{upstream}/v1"),
        call_mode: mode,
        channel_capacity: capacity,
        log: false,
        shutdown_grace: Duration::from_secs(5),
        ..ProxyOptions::default()
    };
    let parser = ParserOptions {
        dialect: DialectChoice::ByModel(ModelDialects::default()),
        ..ParserOptions::default()
    };
    let proxy = Proxy::new(options, ParserTransforms::new(parser).into_maker()).expect("proxy");
    let metrics = proxy.metrics();
    let (tx, rx) = oneshot::channel();
    let task = tokio::spawn(proxy.serve(listener, async {
        let _ = rx.await;
    }));
    let running = Running {
        addr,
        stop: Some(tx),
        task,
    };
    (running, metrics)
}

fn tools() -> Value {
    json!([
        {"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object",
            "properties": {"city": {"type": "string"}, "unit": {"type": "string"}}, "required": ["city"]}}},
        {"type": "function", "function": {"name": "write_file", "parameters": {"type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}, "mode": {"type": "integer"}}}}},
    ])
}

fn request(model: &str, stream: bool) -> Value {
    json!({
        "model": model,
        "stream": stream,
        "messages": [{"role": "user", "content": "go"}],
        "tools": tools(),
    })
}

/// One call as the client assembles it from stream deltas (or reads it whole).
#[derive(Debug, Default, PartialEq)]
struct Call {
    id: String,
    name: String,
    arguments: String,
}

/// What a client sees of a response, streamed or whole.
#[derive(Debug)]
struct Seen {
    content: String,
    reasoning: String,
    calls: Vec<Call>,
    finish_reason: String,
    toolsift: Value,
}

impl Seen {
    fn args(&self) -> Vec<(String, Value)> {
        self.calls
            .iter()
            .map(|c| {
                let args = serde_json::from_str(&c.arguments).unwrap_or_else(|e| {
                    panic!("arguments of {} are not json: {e}: {}", c.name, c.arguments)
                });
                (c.name.clone(), args)
            })
            .collect()
    }
}

/// Assemble a stream the way the OpenAI SDKs do: tool call deltas by `index`.
fn read_stream(body: &[u8]) -> Seen {
    let mut decoder = SseFrameDecoder::new();
    let mut buf = BytesMut::from(body);
    let mut data = Vec::new();
    while let Some(event) = decoder.decode_eof(&mut buf).expect("well-formed sse") {
        data.push(event.data);
    }
    assert_eq!(
        data.last().map(String::as_str),
        Some("[DONE]"),
        "ends with [DONE]"
    );
    let mut seen = Seen {
        content: String::new(),
        reasoning: String::new(),
        calls: Vec::new(),
        finish_reason: String::new(),
        toolsift: Value::Null,
    };
    for d in &data[..data.len() - 1] {
        let chunk: Value = serde_json::from_str(d).expect("chunk json");
        let choice = &chunk["choices"][0];
        let delta = &choice["delta"];
        seen.content += delta["content"].as_str().unwrap_or("");
        seen.reasoning += delta["reasoning_content"].as_str().unwrap_or("");
        for call in delta["tool_calls"].as_array().into_iter().flatten() {
            let index = call["index"].as_u64().expect("index") as usize;
            if index == seen.calls.len() {
                seen.calls.push(Call::default());
            }
            let open = &mut seen.calls[index];
            open.id += call["id"].as_str().unwrap_or("");
            open.name += call["function"]["name"].as_str().unwrap_or("");
            open.arguments += call["function"]["arguments"].as_str().unwrap_or("");
        }
        if let Some(reason) = choice["finish_reason"].as_str() {
            seen.finish_reason = reason.to_owned();
            seen.toolsift = chunk["toolsift"].clone();
        }
    }
    seen
}

fn read_whole(body: &[u8]) -> Seen {
    let response: Value = serde_json::from_slice(body).expect("json");
    let choice = &response["choices"][0];
    let message = &choice["message"];
    let calls = message["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|c| Call {
            id: c["id"].as_str().unwrap().to_owned(),
            name: c["function"]["name"].as_str().unwrap().to_owned(),
            arguments: c["function"]["arguments"].as_str().unwrap().to_owned(),
        })
        .collect();
    Seen {
        content: message["content"].as_str().unwrap_or("").to_owned(),
        reasoning: message["reasoning_content"]
            .as_str()
            .unwrap_or("")
            .to_owned(),
        calls,
        finish_reason: choice["finish_reason"].as_str().unwrap().to_owned(),
        toolsift: response["toolsift"].clone(),
    }
}

async fn fetch(addr: SocketAddr, body: &Value) -> Seen {
    let (status, _, bytes) = post(addr, body).await;
    assert_eq!(
        status,
        StatusCode::OK,
        "{}",
        String::from_utf8_lossy(&bytes)
    );
    if body["stream"] == true {
        read_stream(&bytes)
    } else {
        read_whole(&bytes)
    }
}

/// Replays the fixture named by the model; `-cut` models break off after their text.
fn by_model(request: &Value) -> Replay {
    let model = request["model"].as_str().unwrap_or("");
    let text = match model {
        "hermes-weather" => HERMES,
        "qwen3-coder-write" => QWEN,
        "hermes-weather-cut" => HERMES_CUT,
        "qwen3-coder-write-cut" => QWEN_CUT,
        other => panic!("no fixture for {other}"),
    };
    let mut replay = Replay::new(text);
    replay.model = model.to_owned();
    replay.piece_bytes = 5;
    if model.ends_with("-cut") {
        replay.cut_after = Some(text.len());
        replay.finish_reason = "length".into();
    }
    replay
}

fn weather() -> Vec<(String, Value)> {
    vec![
        (
            "get_weather".into(),
            json!({"city": "Paris", "unit": "celsius"}),
        ),
        (
            "get_weather".into(),
            json!({"city": "Tōkyō", "unit": "celsius"}),
        ),
    ]
}

fn write_file() -> Vec<(String, Value)> {
    vec![(
        "write_file".into(),
        json!({"path": "src/hello.py", "mode": 420,
               "content": "def greet(name):\n    print(f\"Hello, {name}!\")  # </parameter> is not the end\n\ngreet(\"wörld\")"}),
    )]
}

#[tokio::test]
async fn recorded_outputs_come_back_as_tool_calls_streamed_held_and_whole() {
    timed(async {
        let upstream = start_upstream(by_model).await;
        for mode in [CallMode::Streamed, CallMode::Buffered] {
            let (proxy, _) = start_proxy(upstream.addr, mode, 16).await;
            let mut ids = HashSet::new();
            for stream in [true, false] {
                let seen = fetch(proxy.addr, &request("hermes-weather", stream)).await;
                assert_eq!(seen.args(), weather(), "{mode:?} stream={stream}");
                assert_eq!(seen.finish_reason, "tool_calls");
                assert_eq!(seen.content.trim(), "I'll check both cities.");
                assert!(seen.reasoning.contains("weather in Paris"));
                assert_eq!(
                    seen.toolsift["repairs"].as_object().unwrap().len(),
                    1,
                    "the first call was repaired: {}",
                    seen.toolsift
                );
                let seen = fetch(proxy.addr, &request("qwen3-coder-write", stream)).await;
                assert_eq!(seen.args(), write_file(), "{mode:?} stream={stream}");
                assert_eq!(seen.finish_reason, "tool_calls");
                assert_eq!(seen.content, "I'll write the script.\n");
                for call in &seen.calls {
                    assert!(ids.insert(call.id.clone()), "call id {} reused", call.id);
                }
            }
            let metrics = proxy.stop().await;
            assert_eq!(metrics.calls, 6);
            assert_eq!(metrics.repairs.get("trailing_comma"), Some(&2));
        }
        upstream.stop().await;
    })
    .await;
}

/// The request's `tool_choice` and `parallel_tool_calls` decide what is released: a
/// refused call is reported in the `toolsift` extension with its reason, never sent,
/// never shown; `/metrics` counts it by reason.
#[tokio::test]
async fn tool_choice_and_parallel_tool_calls_decide_what_is_released() {
    timed(async {
        let upstream = start_upstream(by_model).await;
        let (proxy, _) = start_proxy(upstream.addr, CallMode::Streamed, 16).await;
        let reasons = |seen: &Seen| -> Vec<String> {
            seen.toolsift["incomplete_calls"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| c["reason"].as_str().unwrap().to_owned())
                .collect()
        };
        for stream in [true, false] {
            let with = |key: &str, value: Value| {
                let mut body = request("hermes-weather", stream);
                body[key] = value;
                body
            };
            let seen = fetch(proxy.addr, &with("tool_choice", json!("none"))).await;
            assert!(seen.calls.is_empty(), "stream={stream}: {:?}", seen.calls);
            assert_eq!(seen.content.trim(), "I'll check both cities.");
            assert_eq!(seen.finish_reason, "stop");
            assert_eq!(reasons(&seen), ["tool_choice", "tool_choice"]);
            let feedback = &seen.toolsift["incomplete_calls"][0]["feedback"];
            assert!(
                feedback.as_str().unwrap().contains("tool_choice \"none\""),
                "{feedback}"
            );

            let seen = fetch(proxy.addr, &with("parallel_tool_calls", json!(false))).await;
            assert_eq!(seen.args(), weather()[..1], "stream={stream}");
            assert_eq!(reasons(&seen), ["parallel_calls"]);

            let named = json!({"type": "function", "function": {"name": "write_file"}});
            let seen = fetch(proxy.addr, &with("tool_choice", named)).await;
            assert!(seen.calls.is_empty());
            assert_eq!(reasons(&seen), ["tool_choice", "tool_choice"]);

            let named = json!({"type": "function", "function": {"name": "get_weather"}});
            let seen = fetch(proxy.addr, &with("tool_choice", named)).await;
            assert_eq!(seen.args(), weather());
            let seen = fetch(proxy.addr, &with("tool_choice", json!("required"))).await;
            assert_eq!(seen.args(), weather());
        }
        let metrics = proxy.stop().await;
        assert_eq!(metrics.not_released.get("tool_choice"), Some(&8));
        assert_eq!(metrics.not_released.get("parallel_calls"), Some(&2));
        assert_eq!(metrics.calls, 2 * (1 + 2 + 2));
        upstream.stop().await;
    })
    .await;
}

#[tokio::test]
async fn upstream_reasoning_content_passes_through_as_reasoning() {
    timed(async {
        let upstream = start_upstream(|request| {
            let mut replay = by_model(request);
            replay.reasoning = "the upstream split this off".into();
            replay
        })
        .await;
        let (proxy, _) = start_proxy(upstream.addr, CallMode::Streamed, 16).await;
        for stream in [true, false] {
            let seen = fetch(proxy.addr, &request("qwen3-coder-write", stream)).await;
            assert_eq!(seen.reasoning, "the upstream split this off");
            assert_eq!(seen.args(), write_file());
        }
        proxy.stop().await;
        upstream.stop().await;
    })
    .await;
}

/// A call cut inside its arguments is reported truncated with `finish_reason: length`,
/// and no client sees its arguments as a complete JSON object.
#[tokio::test]
async fn an_upstream_cut_inside_arguments_is_a_truncated_call() {
    timed(async {
        let upstream = start_upstream(by_model).await;
        for mode in [CallMode::Streamed, CallMode::Buffered] {
            let (proxy, _) = start_proxy(upstream.addr, mode, 16).await;
            for (model, name, kept) in [
                (
                    "hermes-weather-cut",
                    "get_weather",
                    json!({"city": "Paris"}),
                ),
                (
                    "qwen3-coder-write-cut",
                    "write_file",
                    json!({"path": "src/hello.py"}),
                ),
            ] {
                for stream in [true, false] {
                    let seen = fetch(proxy.addr, &request(model, stream)).await;
                    let what = format!("{model} {mode:?} stream={stream}");
                    assert_eq!(seen.finish_reason, "length", "{what}");
                    let incomplete = &seen.toolsift["incomplete_calls"];
                    assert_eq!(incomplete.as_array().unwrap().len(), 1, "{what}");
                    assert_eq!(incomplete[0]["name"], name);
                    assert_eq!(incomplete[0]["reason"], "truncated");
                    let completed: Value =
                        serde_json::from_str(incomplete[0]["arguments"].as_str().unwrap()).unwrap();
                    assert_eq!(completed, kept, "{what}");
                    for call in &seen.calls {
                        assert!(
                            serde_json::from_str::<Value>(&call.arguments).is_err(),
                            "{what}: a cut call reached the client complete: {call:?}"
                        );
                    }
                    if mode == CallMode::Buffered || !stream {
                        assert!(seen.calls.is_empty(), "{what}");
                    }
                }
            }
            let metrics = proxy.stop().await;
            assert_eq!(
                (metrics.calls, metrics.incomplete_calls, metrics.disconnects),
                (0, 4, 2)
            );
        }
        upstream.stop().await;
    })
    .await;
}

/// Cut the full Hermes output at every byte: the client never sees a call complete that
/// the model did not finish, every call it sees complete is the right one, and the
/// finish reason is always `length`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_at_any_byte_never_presents_an_unfinished_call() {
    timed(async {
        let upstream = start_upstream(|request| {
            let cut = request["user"].as_str().unwrap().parse::<usize>().unwrap();
            let mut replay = Replay::new(&HERMES[..cut]);
            replay.model = "hermes".into();
            replay.piece_bytes = 3;
            replay.cut_after = Some(cut);
            replay
        })
        .await;
        let (proxy, _) = start_proxy(upstream.addr, CallMode::Streamed, 16).await;
        // A call is complete once its envelope closes, closer or not (`missing_closer`).
        let ends: Vec<usize> = HERMES
            .match_indices("}}\n</tool_call>")
            .map(|(i, _)| i + 2)
            .collect();
        assert_eq!(ends.len(), 2);
        let cuts: Vec<usize> = (0..=HERMES.len())
            .filter(|&i| HERMES.is_char_boundary(i))
            .collect();
        for cut in cuts.iter().copied() {
            let mut body = request("hermes", true);
            body["user"] = Value::from(cut.to_string());
            let seen = fetch(proxy.addr, &body).await;
            assert_eq!(seen.finish_reason, "length", "cut at {cut}");
            let complete: Vec<(String, Value)> = seen
                .calls
                .iter()
                .filter_map(|c| {
                    serde_json::from_str(&c.arguments)
                        .ok()
                        .map(|a| (c.name.clone(), a))
                })
                .collect();
            let expected = weather();
            assert_eq!(
                complete,
                expected[..ends.iter().filter(|&&end| cut >= end).count()].to_vec(),
                "cut at {cut}"
            );
        }
        let metrics = proxy.stop().await;
        assert_eq!(metrics.disconnects, cuts.len() as u64);
        upstream.stop().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hundred_concurrent_streams_are_each_correct() {
    timed(async {
        // Each request gets its own city; a crossed stream would show another's.
        let upstream = start_upstream(|request| {
            let user = request["user"].as_str().unwrap();
            let mut replay = Replay::new(format!(
                "<tool_call>\n{{\"name\": \"get_weather\", \"arguments\": {{\"city\": \"{user}\",}}}}\n</tool_call>"
            ));
            replay.piece_bytes = 3;
            replay
        })
        .await;
        let (proxy, _) = start_proxy(upstream.addr, CallMode::Streamed, 16).await;
        let addr = proxy.addr;
        let tasks: Vec<_> = (0..100)
            .map(|i| {
                tokio::spawn(async move {
                    let mut body = request("qwen3", true);
                    body["user"] = Value::from(format!("city {i}"));
                    let seen = fetch(addr, &body).await;
                    assert_eq!(
                        seen.args(),
                        [("get_weather".to_owned(), json!({"city": format!("city {i}")}))]
                    );
                    assert_eq!(seen.finish_reason, "tool_calls");
                    seen.calls[0].id.clone()
                })
            })
            .collect();
        let mut ids = HashSet::new();
        for task in tasks {
            assert!(ids.insert(task.await.expect("stream task")), "call ids are unique");
        }
        let metrics = proxy.stop().await;
        assert_eq!((metrics.streams, metrics.calls, metrics.disconnects), (100, 100, 0));
        assert_eq!(metrics.repairs.get("trailing_comma"), Some(&100));
        upstream.stop().await;
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_reader_pauses_the_upstream_and_still_gets_the_call() {
    timed(async {
        const CAPACITY: usize = 2;
        // A long call: more output than the kernel buffers between proxy and client hold.
        let content: String = (0..150_000).map(|i| format!("l{i:08} ")).collect();
        let raw = format!(
            "<tool_call>\n<function=write_file>\n<parameter=path>\nbig.txt\n</parameter>\n<parameter=content>\n{content}\n</parameter>\n</function>\n</tool_call>"
        );
        let upstream = start_upstream(move |_| {
            let mut replay = Replay::new(raw.clone());
            replay.piece_bytes = 64;
            replay
        })
        .await;
        let (proxy, metrics) = start_proxy(upstream.addr, CallMode::Streamed, CAPACITY).await;

        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        let stream = socket.connect(proxy.addr).await.unwrap();
        let (mut sender, conn) =
            hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream))
                .await
                .unwrap();
        tokio::spawn(conn);
        let http = Request::builder()
            .method(Method::POST)
            .uri("/v1/chat/completions")
            .header("host", proxy.addr.to_string())
            .body(Full::new(Bytes::from(request("qwen3-coder", true).to_string())))
            .unwrap();
        let mut body = sender.send_request(http).await.unwrap().into_body();
        // Paused: the queue is full and the upstream read has not moved for three checks
        // in a row (one quiet 100 ms alone can be a busy machine, not a pause).
        let mut read_before = 0;
        let mut quiet = 0;
        for _ in 0..200 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            let now = metrics.snapshot();
            if now.upstream_bytes == read_before && now.max_queued == CAPACITY {
                quiet += 1;
                if quiet == 3 {
                    break;
                }
            } else {
                quiet = 0;
            }
            read_before = now.upstream_bytes;
        }
        let paused = metrics.snapshot();
        assert_eq!(paused.max_queued, CAPACITY, "the queue filled to its bound");
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(
            metrics.snapshot().upstream_bytes,
            paused.upstream_bytes,
            "the upstream read stays paused while the client does not read"
        );
        let mut bytes = BytesMut::new();
        while let Some(frame) = body.frame().await {
            if let Ok(data) = frame.expect("frame").into_data() {
                bytes.extend_from_slice(&data);
            }
        }
        let seen = read_stream(&bytes);
        assert_eq!(
            seen.args(),
            [(
                "write_file".to_owned(),
                json!({"path": "big.txt", "content": content})
            )]
        );
        let end = metrics.snapshot();
        assert_eq!(end.max_queued, CAPACITY, "never more than the bound in flight");
        assert!(paused.upstream_bytes < end.upstream_bytes);
        proxy.stop().await;
        upstream.stop().await;
    })
    .await;
}
