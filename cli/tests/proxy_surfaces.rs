//! The proxy's surfaces and upstream shapes end to end, with the real parser, against a
//! scripted upstream: structured upstream calls, reasoning, Anthropic Messages, OpenAI
//! Responses, legacy completions, several choices, non-SSE answers, timeouts, TLS,
//! health and metrics, and bad input.

mod net;
mod scripted;

use bytes::{Bytes, BytesMut};
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, StatusCode};
use net::{client, listener, timed, Running};
use scripted::{chunk, completion, Answer, Piece};
use serde_json::{json, Value};
use std::net::SocketAddr;
use std::time::Duration;
use tokio::sync::oneshot;
use tokio_util::codec::Decoder;
use toolsift::sse::{CallMode, SseEvent, SseFrameDecoder};
use toolsift_cli::proxy::{MetricsSnapshot, ParserOptions, ParserTransforms, Proxy, ProxyOptions};

async fn start_proxy_with(
    options: ProxyOptions,
    parser: ParserOptions,
) -> Running<MetricsSnapshot> {
    let listener = listener().await;
    let addr = listener.local_addr().unwrap();
    let proxy = Proxy::new(options, ParserTransforms::new(parser).into_maker()).expect("proxy");
    let (tx, rx) = oneshot::channel();
    let task = tokio::spawn(proxy.serve(listener, async {
        let _ = rx.await;
    }));
    Running {
        addr,
        stop: Some(tx),
        task,
    }
}

fn options(upstream: SocketAddr) -> ProxyOptions {
    ProxyOptions {
        upstream: format!("http://{upstream}/v1"),
        call_mode: CallMode::Streamed,
        log: false,
        shutdown_grace: Duration::from_secs(5),
        ..ProxyOptions::default()
    }
}

async fn start_proxy(upstream: SocketAddr) -> Running<MetricsSnapshot> {
    start_proxy_with(options(upstream), ParserOptions::default()).await
}

async fn send(
    addr: SocketAddr,
    method: Method,
    path: &str,
    body: Bytes,
) -> (StatusCode, String, Bytes) {
    let request = Request::builder()
        .method(method)
        .uri(format!("http://{addr}{path}"))
        .header("content-type", "application/json")
        .body(Full::new(body))
        .unwrap();
    let response = client().request(request).await.expect("request");
    let status = response.status();
    let ct = response
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
    (status, ct, body)
}

async fn post(addr: SocketAddr, path: &str, body: &Value) -> (StatusCode, String, Bytes) {
    send(addr, Method::POST, path, Bytes::from(body.to_string())).await
}

fn events(body: &[u8]) -> Vec<SseEvent> {
    let mut decoder = SseFrameDecoder::new();
    let mut buf = BytesMut::from(body);
    let mut out = Vec::new();
    while let Some(event) = decoder.decode_eof(&mut buf).expect("sse") {
        out.push(event);
    }
    out
}

fn data(body: &[u8]) -> Vec<Value> {
    events(body)
        .iter()
        .filter(|e| e.data != "[DONE]")
        .map(|e| serde_json::from_str(&e.data).expect("json"))
        .collect()
}

/// The calls of a chat completion stream, by choice: (choice, name, arguments).
fn streamed_calls(chunks: &[Value]) -> Vec<(u64, String, String)> {
    let mut calls: Vec<(u64, u64, String, String)> = Vec::new();
    for chunk in chunks {
        for choice in chunk["choices"].as_array().into_iter().flatten() {
            let c = choice["index"].as_u64().unwrap();
            for call in choice["delta"]["tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
            {
                let i = call["index"].as_u64().unwrap();
                let fragment = call["function"]["arguments"].as_str().unwrap_or("");
                match calls.iter_mut().find(|x| x.0 == c && x.1 == i) {
                    Some(slot) => slot.3 += fragment,
                    None => calls.push((
                        c,
                        i,
                        call["function"]["name"].as_str().unwrap().to_owned(),
                        fragment.to_owned(),
                    )),
                }
            }
        }
    }
    calls.into_iter().map(|(c, _, n, a)| (c, n, a)).collect()
}

/// The visible text of choice 0, streamed or whole.
fn content_of(stream: bool, body: &[u8]) -> String {
    if stream {
        data(body)
            .iter()
            .filter_map(|c| {
                c["choices"][0]["delta"]["content"]
                    .as_str()
                    .map(str::to_owned)
            })
            .collect()
    } else {
        let response: Value = serde_json::from_slice(body).unwrap();
        response["choices"][0]["message"]["content"]
            .as_str()
            .unwrap_or("")
            .to_owned()
    }
}

/// The final chunk of each choice: (choice, finish_reason, toolsift).
fn finals(chunks: &[Value]) -> Vec<(u64, String, Value)> {
    chunks
        .iter()
        .filter_map(|chunk| {
            let choice = &chunk["choices"][0];
            let finish = choice["finish_reason"].as_str()?;
            Some((
                choice["index"].as_u64().unwrap(),
                finish.to_owned(),
                chunk["toolsift"].clone(),
            ))
        })
        .collect()
}

fn tools() -> Value {
    json!([{"type": "function", "function": {"name": "get_weather", "parameters": {
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer"}},
        "required": ["city"]}}}])
}

fn chat(stream: bool) -> Value {
    json!({"model": "scripted", "stream": stream, "tools": tools(),
           "messages": [{"role": "user", "content": "weather?"}]})
}

const HERMES: &str = "Checking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\",}}\n</tool_call>";

/// Raw model text, as stream pieces or one message.
fn raw_text(stream: bool, text: &str, finish: &str) -> Answer {
    if stream {
        let mut chunks = vec![chunk(0, json!({"role": "assistant", "content": ""}), None)];
        for piece in text.as_bytes().chunks(5) {
            let piece = String::from_utf8_lossy(piece).into_owned();
            chunks.push(chunk(0, json!({"content": piece}), None));
        }
        chunks.push(chunk(0, json!({}), Some(finish)));
        Answer::sse(&chunks)
    } else {
        Answer::json(&completion(&[(
            json!({"role": "assistant", "content": text}),
            finish,
        )]))
    }
}

/// Structured calls, the way vLLM streams them: the first delta with id and name, then
/// argument fragments.
fn structured(stream: bool, calls: &[(&str, &str, &str)], finish: &str) -> Answer {
    if stream {
        let mut chunks = vec![chunk(
            0,
            json!({"role": "assistant", "content": null}),
            None,
        )];
        for (i, (id, name, args)) in calls.iter().enumerate() {
            chunks.push(chunk(0, json!({"tool_calls": [{"index": i, "id": id, "type": "function", "function": {"name": name, "arguments": ""}}]}), None));
            for piece in args.as_bytes().chunks(4) {
                let piece = String::from_utf8_lossy(piece).into_owned();
                chunks.push(chunk(
                    0,
                    json!({"tool_calls": [{"index": i, "function": {"arguments": piece}}]}),
                    None,
                ));
            }
        }
        chunks.push(chunk(0, json!({}), Some(finish)));
        Answer::sse(&chunks)
    } else {
        let calls: Vec<Value> = calls
            .iter()
            .map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args}}))
            .collect();
        Answer::json(&completion(&[(
            json!({"role": "assistant", "content": null, "tool_calls": calls}),
            finish,
        )]))
    }
}

#[tokio::test]
async fn upstream_tool_calls_are_checked_repaired_or_reported_never_dropped() {
    timed(async {
        let calls = [
            ("call_a", "get_weather", "{\"city\": \"Oslo\"}"),
            ("call_b", "get_weather", "{'city': 'Paris', 'days': '3',}"),
            ("call_c", "get_weather", "{\"city\": \"Ber"),
        ];
        let upstream = scripted::start(
            move |_, request| structured(request["stream"] == true, &calls, "tool_calls"),
            None,
        )
        .await;
        let proxy = start_proxy(upstream.addr).await;
        for stream in [true, false] {
            let (status, _, body) = post(proxy.addr, "/v1/chat/completions", &chat(stream)).await;
            assert_eq!(status, StatusCode::OK);
            let (got, finish, ext): (Vec<(String, String)>, String, Value) = if stream {
                let chunks = data(&body);
                let finals = finals(&chunks);
                let calls = streamed_calls(&chunks)
                    .into_iter()
                    .map(|(_, n, a)| (n, a))
                    .collect();
                (calls, finals[0].1.clone(), finals[0].2.clone())
            } else {
                let response: Value = serde_json::from_slice(&body).unwrap();
                let choice = &response["choices"][0];
                let calls = choice["message"]["tool_calls"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| {
                        assert!(c["id"] == "call_a" || c["id"] == "call_b", "{c}");
                        (
                            c["function"]["name"].as_str().unwrap().to_owned(),
                            c["function"]["arguments"].as_str().unwrap().to_owned(),
                        )
                    })
                    .collect();
                (
                    calls,
                    choice["finish_reason"].as_str().unwrap().to_owned(),
                    response["toolsift"].clone(),
                )
            };
            // The cut third call's fragments may have been streamed, but never as a
            // complete object.
            let complete: Vec<_> = got
                .iter()
                .filter(|(_, a)| serde_json::from_str::<Value>(a).is_ok())
                .cloned()
                .collect();
            assert_eq!(
                complete,
                [
                    ("get_weather".to_owned(), "{\"city\": \"Oslo\"}".to_owned()),
                    (
                        "get_weather".to_owned(),
                        "{\"city\": \"Paris\", \"days\": 3}".to_owned()
                    ),
                ],
                "stream={stream}"
            );
            assert_eq!(finish, "length", "a cut call makes the answer honest");
            let incomplete = ext["incomplete_calls"].as_array().unwrap();
            assert_eq!(incomplete.len(), 1, "{ext}");
            assert_eq!(incomplete[0]["reason"], "truncated");
            assert_eq!(incomplete[0]["index"], 2);
            let repairs = ext["repairs"]["call_b"].as_array().unwrap();
            assert!(repairs.contains(&json!("single_quoted_string")), "{ext}");
            assert!(ext["repairs"].get("call_a").is_none(), "valid passes as is");
        }
        let metrics = proxy.stop().await;
        assert_eq!(metrics.upstream_calls, 6);
        assert_eq!(metrics.calls, 4);
        assert_eq!(metrics.not_released.get("truncated"), Some(&2));
    })
    .await;
}

#[tokio::test]
async fn calls_in_text_and_structured_calls_in_one_answer_are_both_kept() {
    timed(async {
        let upstream = scripted::start(
            |_, _| {
                Answer::json(&completion(&[(
                    json!({"role": "assistant", "content": HERMES, "tool_calls": [
                        {"id": "up_1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\": \"Rome\"}"}}]}),
                    "tool_calls",
                )]))
            },
            None,
        )
        .await;
        let proxy = start_proxy(upstream.addr).await;
        let (_, _, body) = post(proxy.addr, "/v1/chat/completions", &chat(false)).await;
        let response: Value = serde_json::from_slice(&body).unwrap();
        let message = &response["choices"][0]["message"];
        assert_eq!(message["content"], "Checking.\n");
        let args: Vec<&str> = message["tool_calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["function"]["arguments"].as_str().unwrap())
            .collect();
        assert_eq!(args, ["{\"city\": \"Paris\"}", "{\"city\": \"Rome\"}"]);
        assert_eq!(message["tool_calls"][1]["id"], "up_1");
        assert_eq!(response["choices"][0]["finish_reason"], "tool_calls");
        proxy.stop().await;
    })
    .await;
}

#[tokio::test]
async fn reasoning_opened_by_the_template_does_not_leak_into_content() {
    timed(async {
        let text = "The user wants weather.</think>Checking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>";
        let upstream = scripted::start(
            move |_, request| {
                if request["model"] == "separated-thinker" {
                    // The server split the reasoning off itself.
                    let chunks = [
                        chunk(0, json!({"reasoning_content": "Hm."}), None),
                        chunk(0, json!({"content": "Plain answer."}), None),
                        chunk(0, json!({}), Some("stop")),
                    ];
                    return Answer::sse(&chunks);
                }
                raw_text(request["stream"] == true, text, "stop")
            },
            None,
        )
        .await;
        let parser = ParserOptions {
            reasoning_models: vec!["thinker".into()],
            ..ParserOptions::default()
        };
        let proxy = start_proxy_with(options(upstream.addr), parser.clone()).await;
        for stream in [true, false] {
            let mut request = chat(stream);
            request["model"] = json!("qwen3-Thinker-30b");
            let (_, _, body) = post(proxy.addr, "/v1/chat/completions", &request).await;
            let (content, reasoning) = if stream {
                let chunks = data(&body);
                let mut content = String::new();
                let mut reasoning = String::new();
                for c in &chunks {
                    content += c["choices"][0]["delta"]["content"].as_str().unwrap_or("");
                    reasoning += c["choices"][0]["delta"]["reasoning_content"]
                        .as_str()
                        .unwrap_or("");
                }
                assert_eq!(streamed_calls(&chunks).len(), 1);
                (content, reasoning)
            } else {
                let response: Value = serde_json::from_slice(&body).unwrap();
                let message = &response["choices"][0]["message"];
                assert_eq!(message["tool_calls"].as_array().unwrap().len(), 1);
                (
                    message["content"].as_str().unwrap().to_owned(),
                    message["reasoning_content"].as_str().unwrap().to_owned(),
                )
            };
            assert_eq!(content, "Checking.\n", "stream={stream}");
            assert_eq!(reasoning, "The user wants weather.");
            // A model without the rule: the text is not reasoning.
            let mut request = chat(stream);
            request["model"] = json!("other");
            let (_, _, body) = post(proxy.addr, "/v1/chat/completions", &request).await;
            assert!(content_of(stream, &body).starts_with("The user wants weather."));
        }
        // Reasoning the upstream separated passes through, and the text after it is not
        // taken for reasoning.
        let mut request = chat(true);
        request["model"] = json!("separated-thinker");
        let (_, _, body) = post(proxy.addr, "/v1/chat/completions", &request).await;
        let chunks = data(&body);
        let content: String = chunks
            .iter()
            .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
            .collect();
        let reasoning: String = chunks
            .iter()
            .filter_map(|c| c["choices"][0]["delta"]["reasoning_content"].as_str())
            .collect();
        assert_eq!((content.as_str(), reasoning.as_str()), ("Plain answer.", "Hm."));
        proxy.stop().await;
    })
    .await;
}

#[tokio::test]
async fn several_choices_are_each_parsed() {
    timed(async {
        let upstream = scripted::start(
            |_, request| {
                let a = "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"A\"}}</tool_call>";
                let b = "<tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"B\",}}</tool_call>";
                if request["stream"] == true {
                    let mut chunks = Vec::new();
                    for (x, y) in a.as_bytes().chunks(7).zip(b.as_bytes().chunks(7)) {
                        chunks.push(chunk(0, json!({"content": String::from_utf8_lossy(x)}), None));
                        chunks.push(chunk(1, json!({"content": String::from_utf8_lossy(y)}), None));
                    }
                    chunks.push(chunk(0, json!({}), Some("stop")));
                    chunks.push(chunk(1, json!({}), Some("stop")));
                    Answer::sse(&chunks)
                } else {
                    Answer::json(&completion(&[
                        (json!({"role": "assistant", "content": a}), "stop"),
                        (json!({"role": "assistant", "content": b}), "stop"),
                    ]))
                }
            },
            None,
        )
        .await;
        let proxy = start_proxy(upstream.addr).await;
        let mut request = chat(true);
        request["n"] = json!(2);
        let (_, _, body) = post(proxy.addr, "/v1/chat/completions", &request).await;
        assert!(body.ends_with(b"data: [DONE]\n\n"));
        assert_eq!(
            String::from_utf8_lossy(&body).matches("[DONE]").count(),
            1
        );
        let chunks = data(&body);
        assert_eq!(
            streamed_calls(&chunks),
            [
                (0, "get_weather".into(), "{\"city\": \"A\"}".into()),
                (1, "get_weather".into(), "{\"city\": \"B\"}".into())
            ]
        );
        let finals = finals(&chunks);
        assert_eq!(finals.len(), 2);
        assert!(finals.iter().all(|f| f.1 == "tool_calls"));
        let mut request = chat(false);
        request["n"] = json!(2);
        let (_, _, body) = post(proxy.addr, "/v1/chat/completions", &request).await;
        let response: Value = serde_json::from_slice(&body).unwrap();
        for (i, city) in ["A", "B"].iter().enumerate() {
            let choice = &response["choices"][i];
            assert_eq!(choice["index"], i);
            assert_eq!(choice["message"]["content"], Value::Null);
            let args: Value = serde_json::from_str(
                choice["message"]["tool_calls"][0]["function"]["arguments"]
                    .as_str()
                    .unwrap(),
            )
            .unwrap();
            assert_eq!(args, json!({"city": city}));
            assert_eq!(choice["finish_reason"], "tool_calls");
            assert!(choice["toolsift"].is_object());
        }
        proxy.stop().await;
    })
    .await;
}

#[tokio::test]
async fn anthropic_messages_whole_and_streamed() {
    timed(async {
        let upstream = scripted::start(
            |_, request| {
                if request["model"] == "busy" {
                    let mut answer = Answer::json(&json!({"error": {"message": "slow down", "type": "rate_limit"}}));
                    answer.status = 429;
                    return answer;
                }
                let mut answer = raw_text(request["stream"] == true, HERMES, "stop");
                if request["stream"] != true {
                    let mut value = completion(&[(
                        json!({"role": "assistant", "content": HERMES, "reasoning_content": "Think."}),
                        "stop",
                    )]);
                    value["id"] = json!("x1");
                    answer = Answer::json(&value);
                }
                answer
            },
            None,
        )
        .await;
        let proxy = start_proxy(upstream.addr).await;
        let request = json!({
            "model": "scripted", "max_tokens": 64,
            "tools": [{"name": "get_weather", "input_schema": tools()[0]["function"]["parameters"]}],
            "messages": [{"role": "user", "content": "weather?"}],
        });
        let (status, _, body) = post(proxy.addr, "/v1/messages", &request).await;
        assert_eq!(status, StatusCode::OK);
        let message: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(message["type"], "message");
        assert_eq!(message["id"], "msg_x1");
        assert_eq!(message["stop_reason"], "tool_use");
        assert_eq!(message["content"][0], json!({"type": "thinking", "thinking": "Think.", "signature": ""}));
        assert_eq!(message["content"][1], json!({"type": "text", "text": "Checking.\n"}));
        assert_eq!(message["content"][2]["type"], "tool_use");
        assert_eq!(message["content"][2]["input"], json!({"city": "Paris"}));
        assert_eq!(message["usage"], json!({"input_tokens": 3, "output_tokens": 5}));
        // What went upstream: a chat completion with OpenAI tools.
        let (_, path, sent) = upstream.requests.lock().unwrap()[0].clone();
        assert_eq!(path, "/v1/chat/completions");
        assert_eq!(sent["tools"][0]["function"]["name"], "get_weather");
        assert_eq!(sent["max_tokens"], 64);

        let mut request = request;
        request["stream"] = json!(true);
        let (status, ct, body) = post(proxy.addr, "/v1/messages", &request).await;
        assert_eq!((status, ct.as_str()), (StatusCode::OK, "text/event-stream"));
        let events = events(&body);
        let names: Vec<&str> = events.iter().map(|e| e.event.as_deref().unwrap()).collect();
        assert_eq!(names.first(), Some(&"message_start"));
        assert_eq!(names.last(), Some(&"message_stop"));
        let mut json_input = String::new();
        let mut text = String::new();
        for event in &events {
            let value: Value = serde_json::from_str(&event.data).unwrap();
            assert_eq!(value["type"], event.event.as_deref().unwrap());
            match value["delta"]["type"].as_str() {
                Some("input_json_delta") => json_input += value["delta"]["partial_json"].as_str().unwrap(),
                Some("text_delta") => text += value["delta"]["text"].as_str().unwrap(),
                _ => {}
            }
            if value["type"] == "message_delta" {
                assert_eq!(value["delta"]["stop_reason"], "tool_use");
            }
        }
        assert_eq!(text, "Checking.\n");
        assert_eq!(serde_json::from_str::<Value>(&json_input).unwrap(), json!({"city": "Paris"}));
        // Upstream errors come back with their status, in Anthropic's error shape.
        let mut busy = request.clone();
        busy["model"] = json!("busy");
        let (status, _, body) = post(proxy.addr, "/v1/messages", &busy).await;
        assert_eq!(status, StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(
            serde_json::from_slice::<Value>(&body).unwrap(),
            json!({"type": "error", "error": {"type": "rate_limit_error", "message": "slow down"}})
        );
        // A bad request is a 400 in Anthropic's error shape.
        let (status, _, body) = post(proxy.addr, "/v1/messages", &json!({"model": "m"})).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        let error: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(error["type"], "error");
        assert_eq!(error["error"]["type"], "invalid_request_error");
        proxy.stop().await;
    })
    .await;
}

#[tokio::test]
async fn openai_responses_whole_and_streamed() {
    timed(async {
        let upstream = scripted::start(
            |_, request| structured(request["stream"] == true, &[("call_r", "get_weather", "{city: 'Paris'}")], "tool_calls"),
            None,
        )
        .await;
        let proxy = start_proxy(upstream.addr).await;
        let request = json!({
            "model": "scripted", "input": "weather?", "instructions": "be brief",
            "tools": [{"type": "function", "name": "get_weather", "parameters": tools()[0]["function"]["parameters"]}],
        });
        let (status, _, body) = post(proxy.addr, "/v1/responses", &request).await;
        assert_eq!(status, StatusCode::OK);
        let response: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(response["object"], "response");
        assert_eq!(response["status"], "completed");
        let item = &response["output"][0];
        assert_eq!(item["type"], "function_call");
        assert_eq!(item["call_id"], "call_r");
        assert_eq!(item["arguments"], "{\"city\": \"Paris\"}");
        assert!(response["toolsift"]["repairs"]["call_r"].is_array());

        let mut request = request;
        request["stream"] = json!(true);
        let (_, _, body) = post(proxy.addr, "/v1/responses", &request).await;
        let events = events(&body);
        let mut deltas = String::new();
        let mut done_args = None;
        for (sequence, event) in events.iter().enumerate() {
            let value: Value = serde_json::from_str(&event.data).unwrap();
            assert_eq!(value["type"], event.event.as_deref().unwrap());
            assert_eq!(value["sequence_number"], sequence);
            match value["type"].as_str().unwrap() {
                "response.function_call_arguments.delta" => deltas += value["delta"].as_str().unwrap(),
                "response.function_call_arguments.done" => done_args = Some(value["arguments"].clone()),
                _ => {}
            }
        }
        assert_eq!(deltas, "{\"city\": \"Paris\"}");
        assert_eq!(done_args, Some(json!("{\"city\": \"Paris\"}")));
        let last: Value = serde_json::from_str(&events.last().unwrap().data).unwrap();
        assert_eq!(last["type"], "response.completed");
        assert_eq!(last["response"]["output"][0]["call_id"], "call_r");
        proxy.stop().await;
    })
    .await;
}

#[tokio::test]
async fn legacy_completions_pass_through_or_parse_with_tools() {
    timed(async {
        let text = "x <tool_call>{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}</tool_call>";
        let upstream = scripted::start(
            move |_, request| {
                let value = json!({"id": "cmpl-1", "object": "text_completion", "created": 1, "model": "m",
                    "choices": [{"index": 0, "text": text, "logprobs": null, "finish_reason": "stop"}]});
                if request["stream"] == true {
                    let chunks: Vec<Value> = text.as_bytes().chunks(6).map(|p| json!({"id": "cmpl-1", "object": "text_completion", "created": 1, "model": "m",
                        "choices": [{"index": 0, "text": String::from_utf8_lossy(p), "finish_reason": null}]})).collect();
                    Answer::sse(&chunks)
                } else {
                    Answer::json(&value)
                }
            },
            None,
        )
        .await;
        let proxy = start_proxy(upstream.addr).await;
        let plain = json!({"model": "m", "prompt": "go"});
        let (_, _, body) = post(proxy.addr, "/v1/completions", &plain).await;
        let response: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(response["choices"][0]["text"], text, "no tools: untouched");
        assert!(response.get("toolsift").is_none());

        let mut with_tools = plain.clone();
        with_tools["tools"] = tools();
        let (_, _, body) = post(proxy.addr, "/v1/completions", &with_tools).await;
        let response: Value = serde_json::from_slice(&body).unwrap();
        let choice = &response["choices"][0];
        assert_eq!(choice["text"], "x ");
        assert_eq!(choice["tool_calls"][0]["function"]["arguments"], "{\"city\": \"Paris\"}");
        assert_eq!(choice["finish_reason"], "tool_calls");

        with_tools["stream"] = json!(true);
        let (_, _, body) = post(proxy.addr, "/v1/completions", &with_tools).await;
        let chunks = data(&body);
        let text: String = chunks.iter().filter_map(|c| c["choices"][0]["text"].as_str()).collect();
        assert_eq!(text, "x ");
        let calls: Vec<&Value> = chunks.iter().filter_map(|c| c["choices"][0].get("tool_calls")).collect();
        assert_eq!(calls.len(), 1);
        assert_eq!(chunks.last().unwrap()["choices"][0]["finish_reason"], "tool_calls");
        proxy.stop().await;
    })
    .await;
}

#[tokio::test]
async fn odd_upstream_answers_get_honest_finish_reasons_and_clear_errors() {
    timed(async {
        let upstream = scripted::start(
            |path, request| match request["model"].as_str().unwrap_or("") {
                // A whole JSON answer to a streaming request.
                "json-anyway" => raw_text(false, HERMES, "stop"),
                // An event stream to a whole request.
                "sse-anyway" => raw_text(true, HERMES, "stop"),
                // Plain text to a streaming request.
                "not-sse" => Answer {
                    status: 200,
                    content_type: "text/plain",
                    pieces: vec![Piece::Bytes(Bytes::from_static(b"oops"))],
                },
                // Closes mid-call.
                "cut" => {
                    let mut answer = raw_text(true, HERMES, "stop");
                    answer.pieces.truncate(12);
                    answer.pieces.push(Piece::Cut);
                    answer
                }
                // Stalls after the first chunk.
                "stall" => {
                    let mut answer = raw_text(request["stream"] == true, "Hello", "stop");
                    answer.pieces.insert(
                        if request["stream"] == true { 1 } else { 0 },
                        Piece::Pause(Duration::from_secs(30)),
                    );
                    answer
                }
                _ => Answer::json(&json!({"data": [], "path": path})),
            },
            None,
        )
        .await;
        let mut options = options(upstream.addr);
        options.idle_timeout = Duration::from_millis(400);
        options.max_body_bytes = 4096;
        let proxy = start_proxy_with(options, ParserOptions::default()).await;
        let streamed = |model: &str| {
            let mut request = chat(true);
            request["model"] = json!(model);
            request
        };
        let (_, _, body) = post(proxy.addr, "/v1/chat/completions", &streamed("json-anyway")).await;
        let chunks = data(&body);
        assert_eq!(streamed_calls(&chunks).len(), 1);
        assert_eq!(finals(&chunks)[0].1, "tool_calls");

        let mut whole = chat(false);
        whole["model"] = json!("sse-anyway");
        let (status, _, body) = post(proxy.addr, "/v1/chat/completions", &whole).await;
        assert_eq!(status, StatusCode::OK);
        let response: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(response["object"], "chat.completion");
        assert_eq!(response["id"], "chatcmpl-s");
        assert_eq!(response["choices"][0]["message"]["content"], "Checking.\n");
        assert_eq!(
            response["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"],
            "{\"city\": \"Paris\"}"
        );
        assert_eq!(response["choices"][0]["finish_reason"], "tool_calls");

        let (_, _, body) = post(proxy.addr, "/v1/chat/completions", &streamed("not-sse")).await;
        let finals_ = finals(&data(&body));
        assert_eq!(finals_[0].1, "length");
        assert!(finals_[0].2["upstream_error"]["message"]
            .as_str()
            .unwrap()
            .contains("oops"));

        let (_, _, body) = post(proxy.addr, "/v1/chat/completions", &streamed("cut")).await;
        let chunks = data(&body);
        let finals_ = finals(&chunks);
        assert_eq!(finals_[0].1, "length");
        assert_eq!(finals_[0].2["incomplete_calls"][0]["reason"], "truncated");
        assert!(body.ends_with(b"data: [DONE]\n\n"));

        let (_, _, body) = post(proxy.addr, "/v1/chat/completions", &streamed("stall")).await;
        let finals_ = finals(&data(&body));
        assert_eq!(finals_[0].1, "length");
        assert_eq!(finals_[0].2["upstream_error"]["code"], "timeout");
        let mut whole = chat(false);
        whole["model"] = json!("stall");
        let (status, _, body) = post(proxy.addr, "/v1/chat/completions", &whole).await;
        assert_eq!(status, StatusCode::GATEWAY_TIMEOUT);
        let error: Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(error["error"]["type"], "upstream_error");

        // Bad input.
        let (status, _, _) = send(
            proxy.addr,
            Method::POST,
            "/v1/chat/completions",
            Bytes::from_static(b"{nope"),
        )
        .await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        let big = Bytes::from(vec![b' '; 5000]);
        let (status, _, body) = send(proxy.addr, Method::POST, "/v1/chat/completions", big).await;
        assert_eq!(status, StatusCode::PAYLOAD_TOO_LARGE);
        assert!(String::from_utf8_lossy(&body).contains("4096"));
        // Other routes go upstream as they are.
        let (status, _, body) = send(
            proxy.addr,
            Method::POST,
            "/v1/embeddings?x=1",
            Bytes::from_static(b"{}"),
        )
        .await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(
            serde_json::from_slice::<Value>(&body).unwrap()["path"],
            "/v1/embeddings"
        );
        let (status, _, body) = send(proxy.addr, Method::GET, "/health", Bytes::new()).await;
        assert_eq!(
            (status, body.as_ref()),
            (StatusCode::OK, br#"{"status":"ok"}"#.as_ref())
        );

        let (status, ct, body) = send(proxy.addr, Method::GET, "/metrics", Bytes::new()).await;
        assert_eq!(status, StatusCode::OK);
        assert!(ct.starts_with("text/plain; version=0.0.4"));
        let metrics = String::from_utf8(body.to_vec()).unwrap();
        for line in [
            "toolsift_route_requests_total{route=\"chat_completions\"} 8",
            "toolsift_upstream_errors_total{kind=\"timeout\"} 2",
            "toolsift_upstream_errors_total{kind=\"unreadable\"} 1",
            "toolsift_calls_not_released_by_reason_total{reason=\"truncated\"} 1",
            "toolsift_calls_released_total 2",
            "toolsift_request_duration_seconds_count 10",
        ] {
            assert!(metrics.contains(line), "{line} not in\n{metrics}");
        }
        proxy.stop().await;
        // An unreachable upstream.
        drop(upstream);
        let proxy = start_proxy(listener().await.local_addr().unwrap()).await;
        let (status, _, body) = post(proxy.addr, "/v1/chat/completions", &chat(false)).await;
        assert_eq!(status, StatusCode::BAD_GATEWAY);
        assert!(String::from_utf8_lossy(&body).contains("upstream_error"));
        proxy.stop().await;
    })
    .await;
}

#[tokio::test]
async fn an_https_upstream_with_its_own_certificate() {
    timed(async {
        let (tls, pem) = scripted::self_signed();
        let upstream = scripted::start(
            |_, request| raw_text(request["stream"] == true, HERMES, "stop"),
            Some(tls),
        )
        .await;
        let dir = std::env::temp_dir().join(format!("toolsift-ca-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let ca = dir.join("ca.pem");
        std::fs::write(&ca, pem).unwrap();
        let url = format!("https://localhost:{}/v1", upstream.addr.port());
        // Without the certificate: refused, and said so.
        let mut options = options(upstream.addr);
        options.upstream = url.clone();
        let proxy = start_proxy_with(options.clone(), ParserOptions::default()).await;
        let (status, _, body) = post(proxy.addr, "/v1/chat/completions", &chat(false)).await;
        assert_eq!(status, StatusCode::BAD_GATEWAY);
        assert!(
            String::from_utf8_lossy(&body)
                .to_lowercase()
                .contains("certificate"),
            "{}",
            String::from_utf8_lossy(&body)
        );
        proxy.stop().await;
        options.upstream_ca = Some(ca.clone());
        let proxy = start_proxy_with(options, ParserOptions::default()).await;
        for stream in [true, false] {
            let (status, _, body) = post(proxy.addr, "/v1/chat/completions", &chat(stream)).await;
            assert_eq!(status, StatusCode::OK);
            assert_eq!(content_of(stream, &body), "Checking.\n");
        }
        proxy.stop().await;
        let _ = std::fs::remove_dir_all(dir);
    })
    .await;
}
