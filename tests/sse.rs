//! The SSE codec: framing at every split, chunk reading, the encoder's exact output.
#![cfg(feature = "codec")]

use bytes::BytesMut;
use serde_json::{json, Value};
use tokio_util::codec::{Decoder, Encoder};
use toolsift::sse::{
    read_chunk, read_completion, CallMode, ChatChunkEncoder, Chunk, ChunkMeta, MessageBuilder,
    SseEvent, SseFrameDecoder,
};
use toolsift::{CallIndex, Category, NotReleasedReason, OwnedEvent, Repair, Repairs, StopReason};

const FIXTURES: &[&str] = &[
    "chat_content.sse",
    "chat_content_crlf.sse",
    "chat_content_cr.sse",
    "chat_reasoning.sse",
    "comments_fields.sse",
    "multiline_data.sse",
    "completions_no_trailing_blank.sse",
];

fn fixture(name: &str) -> Vec<u8> {
    let path = format!("{}/tests/fixtures/sse/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Feed `pieces` one after the other, draining events after each, then finish with EOF.
fn decode_pieces<'a>(pieces: impl IntoIterator<Item = &'a [u8]>) -> Vec<SseEvent> {
    let mut decoder = SseFrameDecoder::new();
    let mut buf = BytesMut::new();
    let mut events = Vec::new();
    for piece in pieces {
        buf.extend_from_slice(piece);
        while let Some(event) = decoder.decode(&mut buf).expect("decode") {
            events.push(event);
        }
    }
    for _ in 0..1000 {
        match decoder.decode_eof(&mut buf).expect("decode_eof") {
            Some(event) => events.push(event),
            None => return events,
        }
    }
    panic!("decode_eof did not end");
}

fn decode_whole(bytes: &[u8]) -> Vec<SseEvent> {
    decode_pieces([bytes])
}

#[test]
fn every_split_decodes_like_the_whole_buffer() {
    for name in FIXTURES {
        let bytes = fixture(name);
        let whole = decode_whole(&bytes);
        assert!(!whole.is_empty(), "{name}");
        for cut in 0..=bytes.len() {
            let (a, b) = bytes.split_at(cut);
            assert_eq!(decode_pieces([a, b]), whole, "{name} split at {cut}");
        }
        let bytewise = decode_pieces(bytes.chunks(1));
        assert_eq!(bytewise, whole, "{name} one byte at a time");
    }
}

/// The concatenated content, reasoning and the finish reason of a fixture.
fn read_all(name: &str) -> (String, String, Option<String>, bool, ChunkMeta) {
    let (mut content, mut reasoning, mut finish, mut done) =
        (String::new(), String::new(), None, false);
    let mut meta = ChunkMeta::default();
    for event in decode_whole(&fixture(name)) {
        match read_chunk(&event.data).expect("chunk") {
            Chunk::Done => done = true,
            Chunk::Delta(delta) => {
                content.push_str(delta.content.as_deref().unwrap_or(""));
                reasoning.push_str(delta.reasoning.as_deref().unwrap_or(""));
                if delta.finish_reason.is_some() {
                    finish = delta.finish_reason;
                }
                meta.update(delta.meta);
            }
            other => panic!("{name}: unexpected {other:?}"),
        }
    }
    (content, reasoning, finish, done, meta)
}

#[test]
fn fixtures_read_as_openai_chunks() {
    for name in [
        "chat_content.sse",
        "chat_content_crlf.sse",
        "chat_content_cr.sse",
    ] {
        let (content, reasoning, finish, done, meta) = read_all(name);
        assert_eq!(content, "Hello, wörld — ünïcode ✓ 🦀!", "{name}");
        assert_eq!(reasoning, "");
        assert_eq!(finish.as_deref(), Some("stop"));
        assert!(done);
        assert_eq!(meta.id, "chatcmpl-abc123");
        assert_eq!(meta.model, "qwen3-8b");
        assert_eq!(meta.created, 1717000000);
        assert_eq!(meta.system_fingerprint.as_deref(), Some("b5000-cpu"));
        assert_eq!(
            meta.usage,
            Some(json!({"prompt_tokens":10,"completion_tokens":7,"total_tokens":17}))
        );
    }
    let (content, reasoning, finish, done, _) = read_all("chat_reasoning.sse");
    assert_eq!(content, "The answer is 4.");
    assert_eq!(reasoning, "Let me think. (ollama style)");
    assert_eq!(finish.as_deref(), Some("length"));
    assert!(done);

    let (content, _, finish, done, _) = read_all("comments_fields.sse");
    assert_eq!(
        (content.as_str(), finish.as_deref(), done),
        ("AB", Some("stop"), true)
    );

    let (content, _, _, done, _) = read_all("multiline_data.sse");
    assert_eq!((content.as_str(), done), ("multi\nline", true));

    let (content, _, finish, done, meta) = read_all("completions_no_trailing_blank.sse");
    assert_eq!(content, "<tool_call>{\"name\":\"get\"}");
    assert_eq!(finish.as_deref(), Some("stop"));
    assert!(done, "the last event is flushed at EOF");
    assert_eq!(meta.id, "cmpl-xyz");
}

#[test]
fn fields_comments_and_ids() {
    let events = decode_whole(&fixture("comments_fields.sse"));
    assert_eq!(
        events.len(),
        4,
        "comments and field-only blocks dispatch nothing"
    );
    assert_eq!(events[0].event.as_deref(), Some("message"));
    assert_eq!(events[0].id.as_deref(), Some("1"));
    assert_eq!(
        events[0].retry,
        Some(3000),
        "retry without data carries into the next event"
    );
    assert!(
        events[0].data.starts_with("{\"id\""),
        "no space after data: is kept whole"
    );
    assert_eq!(events[1].id.as_deref(), Some("2"));
    assert_eq!(events[3].data, "[DONE]");
}

#[test]
fn framing_edge_cases() {
    let events = decode_whole(b"data\n\ndata:\n\ndata:  two spaces\ndata: x\n\nevent: only\n\n");
    let data: Vec<&str> = events.iter().map(|e| e.data.as_str()).collect();
    assert_eq!(data, ["", "", " two spaces\nx"]);
    // A byte order mark at the start is skipped, even split.
    let bom = b"\xEF\xBB\xBFdata: a\n\n";
    for cut in 0..bom.len() {
        let (a, b) = bom.split_at(cut);
        assert_eq!(decode_pieces([a, b])[0].data, "a");
    }
    // CR then LF in separate pieces is one line ending, not a blank line.
    let events = decode_pieces([&b"data: a\r"[..], b"\ndata: b\r", b"\n\r\n"]);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].data, "a\nb");
}

#[test]
fn an_event_over_the_bound_is_a_limit_error_and_decoding_goes_on() {
    let mut decoder = SseFrameDecoder::with_max_event_bytes(64);
    let mut buf = BytesMut::new();
    // An endless line: held bytes stay bounded and the error comes once past the bound.
    let mut error = None;
    for _ in 0..100 {
        buf.extend_from_slice(b"data: xxxxxxxxxx");
        match decoder.decode(&mut buf) {
            Ok(None) => assert!(buf.len() <= 64 + 16, "held {} bytes", buf.len()),
            Ok(Some(event)) => panic!("unexpected {event:?}"),
            Err(e) => {
                error = Some(e);
                break;
            }
        }
    }
    let error = error.expect("limit error");
    assert_eq!(error.category(), Category::Limit);
    assert!(error.message().contains("max_event_bytes"), "{error}");
    // The rest of that event is discarded; the next one decodes.
    buf.extend_from_slice(b"more\ndata: also dropped\n\ndata: next\n\n");
    let event = decoder.decode(&mut buf).expect("decode").expect("event");
    assert_eq!(event.data, "next");
    // Many data lines adding up past the bound.
    let mut decoder = SseFrameDecoder::with_max_event_bytes(64);
    let mut buf = BytesMut::from(&b"data: 0123456789\n"[..].repeat(10)[..]);
    assert_eq!(
        decoder.decode(&mut buf).unwrap_err().category(),
        Category::Limit
    );
}

#[test]
fn bad_chunks_are_errors_or_items_not_panics() {
    assert_eq!(
        read_chunk("not json").unwrap_err().category(),
        Category::Syntax
    );
    assert_eq!(
        read_chunk("{\"trunc").unwrap_err().category(),
        Category::Truncated
    );
    assert_eq!(
        read_chunk("[1,2]").unwrap_err().category(),
        Category::Syntax
    );
    assert_eq!(read_chunk(" [DONE] ").unwrap(), Chunk::Done);
    let error = read_chunk(r#"{"error":{"message":"context too long","code":400}}"#).unwrap();
    assert_eq!(
        error,
        Chunk::Error(json!({"message":"context too long","code":400}))
    );
    // An empty object or empty choices is a delta with nothing in it.
    match read_chunk(r#"{"choices":[]}"#).unwrap() {
        Chunk::Delta(d) => assert_eq!(
            (d.content, d.reasoning, d.finish_reason),
            (None, None, None)
        ),
        other => panic!("{other:?}"),
    }
    assert!(read_completion(&json!({"error": {"message": "x"}})).is_err());
    let completion = read_completion(&json!({
        "id": "c1", "model": "m", "created": 5,
        "choices": [{"message": {"content": "hi", "reasoning_content": "hm"}, "finish_reason": "length"}]
    }))
    .unwrap();
    assert_eq!(completion.content.as_deref(), Some("hi"));
    assert_eq!(completion.reasoning.as_deref(), Some("hm"));
    assert_eq!(completion.finish_reason.as_deref(), Some("length"));
}

fn meta() -> ChunkMeta {
    ChunkMeta {
        id: "chatcmpl-1".into(),
        model: "m".into(),
        created: 7,
        system_fingerprint: None,
        usage: None,
    }
}

fn encode_all(encoder: &mut ChatChunkEncoder, events: &[OwnedEvent]) -> String {
    let mut dst = BytesMut::new();
    for event in events {
        encoder.encode(event, &mut dst).expect("encode");
    }
    String::from_utf8(dst.to_vec()).expect("utf-8")
}

fn sample_events() -> Vec<OwnedEvent> {
    let repairs: Repairs = [Repair::TrailingComma].into_iter().collect();
    vec![
        OwnedEvent::Reasoning("plan".into()),
        OwnedEvent::Text("Checking.".into()),
        OwnedEvent::CallStarted {
            index: CallIndex(0),
            id: "call_0".into(),
            name: "get_weather".into(),
        },
        OwnedEvent::ArgsDelta {
            index: CallIndex(0),
            fragment: "{\"city\":".into(),
        },
        OwnedEvent::ArgsDelta {
            index: CallIndex(0),
            fragment: "\"Paris\"}".into(),
        },
        OwnedEvent::CallFinished {
            index: CallIndex(0),
            id: "call_0".into(),
            name: "get_weather".into(),
            arguments: "{\"city\":\"Paris\"}".into(),
            repairs,
            validation: None,
        },
        OwnedEvent::CallStarted {
            index: CallIndex(1),
            id: "call_1".into(),
            name: "search".into(),
        },
        OwnedEvent::ArgsDelta {
            index: CallIndex(1),
            fragment: "{\"q\":\"ru".into(),
        },
        OwnedEvent::CallNotReleased {
            index: CallIndex(1),
            name: Some("search".into()),
            reason: NotReleasedReason::Truncated,
            feedback: "the call to search was cut off".into(),
            completed: "{}".into(),
            repairs: Repairs::NONE,
        },
        OwnedEvent::End {
            stop: StopReason::Stop,
            truncated: true,
        },
    ]
}

const HEAD: &str = r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"m","choices":[{"index":0,"delta":"#;
const OPEN: &str = r#","logprobs":null,"finish_reason":null}]}"#;

#[test]
fn encoder_golden_buffered() {
    let out = encode_all(&mut ChatChunkEncoder::new(meta()), &sample_events());
    let expected = [
        format!(r#"{HEAD}{{"role":"assistant","reasoning_content":"plan"}}{OPEN}"#),
        format!(r#"{HEAD}{{"content":"Checking."}}{OPEN}"#),
        format!(
            r#"{HEAD}{{"tool_calls":[{{"index":0,"id":"call_0","type":"function","function":{{"name":"get_weather","arguments":""}}}}]}}{OPEN}"#
        ),
        format!(
            r#"{HEAD}{{"tool_calls":[{{"index":0,"function":{{"arguments":"{{\"city\":\"Paris\"}}"}}}}]}}{OPEN}"#
        ),
        format!(
            r#"{HEAD}{{}},"logprobs":null,"finish_reason":"length"}}],"toolsift":{{"incomplete_calls":[{{"index":1,"name":"search","reason":"truncated","feedback":"the call to search was cut off","arguments":"{{}}"}}],"repairs":{{"call_0":["trailing_comma"]}}}}}}"#
        ),
        "data: [DONE]".to_owned(),
    ];
    let expected: String = expected.iter().map(|l| format!("{l}\n\n")).collect();
    assert_eq!(out, expected);
}

#[test]
fn encoder_writes_calls_in_release_order() {
    // Repairs and validation by call id in the order the calls were released (not
    // sorted: `call_b` first); arguments as they are.
    let repairs: Repairs = [Repair::TrailingComma].into_iter().collect();
    let finished = |index, id: &str, validation: &str| OwnedEvent::CallFinished {
        index: CallIndex(index),
        id: id.into(),
        name: "f".into(),
        arguments: r#"{"z":1,"a":2}"#.into(),
        repairs,
        validation: Some(validation.into()),
    };
    let events = [
        finished(0, "call_b", "f: /z: bad"),
        finished(1, "call_a", "f: /a: bad"),
        OwnedEvent::End {
            stop: StopReason::Stop,
            truncated: false,
        },
    ];
    let out = encode_all(&mut ChatChunkEncoder::new(meta()), &events);
    let last = out.lines().find(|l| l.contains("toolsift")).unwrap();
    assert!(
        last.ends_with(
            r#""toolsift":{"incomplete_calls":[],"repairs":{"call_b":["trailing_comma"],"call_a":["trailing_comma"]},"validation":{"call_b":"f: /z: bad","call_a":"f: /a: bad"}}}"#
        ),
        "{last}"
    );
    assert!(out.contains(r#""arguments":"{\"z\":1,\"a\":2}""#), "{out}");
}

#[test]
fn encoder_golden_streamed() {
    let mut events = sample_events();
    // The not-released call was already partly sent in streamed mode; keep only call 0.
    events.truncate(6);
    events.push(OwnedEvent::End {
        stop: StopReason::Stop,
        truncated: false,
    });
    let mut m = meta();
    m.usage = Some(json!({"total_tokens": 3}));
    let out = encode_all(
        &mut ChatChunkEncoder::with_mode(m, CallMode::Streamed),
        &events,
    );
    let expected = [
        format!(r#"{HEAD}{{"role":"assistant","reasoning_content":"plan"}}{OPEN}"#),
        format!(r#"{HEAD}{{"content":"Checking."}}{OPEN}"#),
        format!(r#"{HEAD}{{"tool_calls":[{{"index":0,"id":"call_0","type":"function","function":{{"name":"get_weather","arguments":""}}}}]}}{OPEN}"#),
        format!(r#"{HEAD}{{"tool_calls":[{{"index":0,"function":{{"arguments":"{{\"city\":"}}}}]}}{OPEN}"#),
        // The closing brace waits for the release.
        format!(r#"{HEAD}{{"tool_calls":[{{"index":0,"function":{{"arguments":"\"Paris\""}}}}]}}{OPEN}"#),
        format!(r#"{HEAD}{{"tool_calls":[{{"index":0,"function":{{"arguments":"}}"}}}}]}}{OPEN}"#),
        format!(r#"{HEAD}{{}},"logprobs":null,"finish_reason":"tool_calls"}}],"toolsift":{{"incomplete_calls":[],"repairs":{{"call_0":["trailing_comma"]}}}}}}"#),
        r#"data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":7,"model":"m","choices":[],"usage":{"total_tokens":3}}"#.to_owned(),
        "data: [DONE]".to_owned(),
    ];
    let expected: String = expected.iter().map(|l| format!("{l}\n\n")).collect();
    assert_eq!(out, expected);
}

#[test]
fn encoder_output_decodes_back_and_wire_indices_are_dense() {
    // Call 0 not released, call 1 released: on the wire the released call is index 0.
    let events = vec![
        OwnedEvent::CallNotReleased {
            index: CallIndex(0),
            name: None,
            reason: NotReleasedReason::Invalid,
            feedback: "bad".into(),
            completed: "{}".into(),
            repairs: Repairs::NONE,
        },
        OwnedEvent::CallFinished {
            index: CallIndex(1),
            id: "call_1".into(),
            name: "f".into(),
            arguments: "{}".into(),
            repairs: Repairs::NONE,
            validation: None,
        },
        OwnedEvent::End {
            stop: StopReason::Stop,
            truncated: false,
        },
    ];
    let out = encode_all(&mut ChatChunkEncoder::new(meta()), &events);
    let decoded = decode_whole(out.as_bytes());
    let chunks: Vec<Value> = decoded
        .iter()
        .filter(|e| e.data != "[DONE]")
        .map(|e| serde_json::from_str(&e.data).unwrap())
        .collect();
    assert_eq!(
        chunks[0]["choices"][0]["delta"]["tool_calls"][0]["index"],
        0
    );
    assert_eq!(
        chunks[0]["choices"][0]["delta"]["tool_calls"][0]["id"],
        "call_1"
    );
    let last = chunks.last().unwrap();
    assert_eq!(last["choices"][0]["finish_reason"], "tool_calls");
    assert_eq!(last["toolsift"]["incomplete_calls"][0]["reason"], "invalid");
    assert_eq!(last["toolsift"]["incomplete_calls"][0]["name"], Value::Null);
    // Disconnected and Length say `length`; nothing at all says `stop`.
    for (stop, reason) in [
        (StopReason::Disconnected, "length"),
        (StopReason::Length, "length"),
        (StopReason::Stop, "stop"),
    ] {
        let out = encode_all(
            &mut ChatChunkEncoder::new(meta()),
            &[OwnedEvent::End {
                stop,
                truncated: false,
            }],
        );
        assert!(
            out.contains(&format!("\"finish_reason\":\"{reason}\"")),
            "{out}"
        );
    }
}

#[test]
fn message_builder_makes_a_whole_completion() {
    let mut builder = MessageBuilder::new();
    for event in sample_events() {
        builder.push(&event);
    }
    let mut response = json!({"id": "x", "object": "chat.completion", "usage": {"total_tokens": 1},
        "choices": [{"index": 0, "message": {"role": "assistant", "content": "raw"}, "finish_reason": "stop"}]});
    builder.apply_to(&mut response);
    assert_eq!(
        response,
        json!({
            "id": "x", "object": "chat.completion", "usage": {"total_tokens": 1},
            "choices": [{"index": 0, "message": {
                "role": "assistant", "content": "Checking.", "reasoning_content": "plan",
                "tool_calls": [{"id": "call_0", "type": "function",
                    "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]
            }, "finish_reason": "length"}],
            "toolsift": {"incomplete_calls": [{"index": 1, "name": "search", "reason": "truncated",
                "feedback": "the call to search was cut off", "arguments": "{}"}],
                "repairs": {"call_0": ["trailing_comma"]}}
        })
    );
}
