//! Kimi K3's markup as servers hand it over (issue 37): attribute values XML-escaped
//! (`&quot;`, `&lt;`, `&#39;`, ...) are unescaped, a raw `<` in one is text, and every
//! marker degraded by blanks around its word (`<|open|> response <|sep|>`, what a
//! server decoding with blanks between special tokens shows) is markup, never shown.
//! Each case is checked whole, one byte at a time, at every split and in random chunks.

mod support;

use serde_json::{json, Value};
use toolsift::{Config, Dialect, StopReason};

/// The message of `raw` under `dialect`, the same under every chunking.
fn message(dialect: Dialect, raw: &str, reasoning_open: bool) -> Value {
    let mut config = Config::new(dialect);
    config.reasoning_open = reasoning_open;
    let events = support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop)
        .unwrap_or_else(|e| panic!("{dialect:?} {raw:?}: {e}"));
    support::message(&events)
}

/// One call in a tools channel, its arguments `args` (already written), with the
/// markers written tight or degraded by blanks.
fn channel(spaced: bool, reply: &str, tool: &str, args: &str) -> String {
    let m = |edge: &str, word: &str| match spaced {
        true => format!("<|{edge}|> {word} <|sep|>"),
        false => format!("<|{edge}|>{word}<|sep|>"),
    };
    format!(
        "{}{reply}{}{}{}{args}{}{}{}<|end_of_msg|>",
        m("open", "response"),
        m("close", "response"),
        m("open", "tools"),
        m("open", &format!("call tool=\"{tool}\" index=\"1\"")),
        m("close", "call"),
        m("close", "tools"),
        m("close", "message"),
    )
}

/// One argument element.
fn arg(spaced: bool, key: &str, ty: &str, value: &str) -> String {
    match spaced {
        true => format!(
            "<|open|> argument key=\"{key}\" type=\"{ty}\" <|sep|>{value}<|close|> argument <|sep|>"
        ),
        false => format!(
            "<|open|>argument key=\"{key}\" type=\"{ty}\"<|sep|>{value}<|close|>argument<|sep|>"
        ),
    }
}

fn released(msg: &Value) -> Vec<(String, Value)> {
    msg["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let args = serde_json::from_str(c["arguments"].as_str().unwrap()).unwrap();
            (c["name"].as_str().unwrap().to_owned(), args)
        })
        .collect()
}

/// Keys written with entities read as the characters they stand for: the five named
/// entities, decimal and hex numeric ones, in tight and degraded markup, and a raw `<`
/// or `>` as itself. What is not a whole entity stays as written.
#[test]
fn attribute_entities_are_unescaped() {
    let cases: &[(&str, &str)] = &[
        ("path", "path"),
        ("say &quot;hi&quot;", "say \"hi\""),
        ("a&lt;b", "a<b"),
        ("a&gt;b", "a>b"),
        ("q&amp;a", "q&a"),
        ("it&apos;s", "it's"),
        ("it&#39;s", "it's"),
        ("it&#x27;s", "it's"),
        ("caf&#233;", "café"),
        ("&amp;lt;", "&lt;"),
        ("a<b", "a<b"),
        ("a<b>c", "a<b>c"),
        ("<tag>", "<tag>"),
        ("x <| y", "x <| y"),
        // Not entities: as written.
        ("a & b", "a & b"),
        ("&nbsp;", "&nbsp;"),
        ("&lt", "&lt"),
        ("&#xD800;", "&#xD800;"),
    ];
    for spaced in [false, true] {
        for &(key, want) in cases {
            let args = arg(spaced, key, "string", "v") + &arg(spaced, "n", "number", "2");
            let raw = channel(spaced, "Sure.", "write", &args);
            let msg = message(Dialect::KimiK3, &raw, false);
            assert_eq!(
                released(&msg),
                vec![("write".to_owned(), json!({want: "v", "n": 2}))],
                "{raw:?}: {msg}"
            );
            assert_eq!(msg["content"], "Sure.", "{raw:?}");
            assert_eq!(msg["incomplete_calls"], json!([]), "{raw:?}");
        }
    }
}

/// The tool name's attribute is unescaped too: a name that is one after unescaping is
/// the call's; one that is not (a quote, a `<`) is not released under another name.
#[test]
fn tool_attribute_is_unescaped_and_checked() {
    for spaced in [false, true] {
        let args = arg(spaced, "a", "string", "1");
        let raw = channel(spaced, "", "get&#95;weather", &args);
        let msg = message(Dialect::KimiK3, &raw, false);
        assert_eq!(
            released(&msg),
            vec![("get_weather".to_owned(), json!({"a": "1"}))]
        );
        for bad in ["get&quot;weather", "get&lt;weather"] {
            let raw = channel(spaced, "", bad, &args);
            let msg = message(Dialect::KimiK3, &raw, false);
            assert_eq!(msg["tool_calls"], json!([]), "{raw:?}: {msg}");
            assert_eq!(
                msg["incomplete_calls"].as_array().unwrap().len(),
                1,
                "{raw:?}"
            );
            assert_eq!(msg["incomplete_calls"][0]["reason"], "invalid", "{raw:?}");
        }
    }
}

/// Degraded markers: reply, reasoning, calls, both argument forms and the message's
/// frame are markup, in every chunking and under `auto`; the reply and reasoning are
/// exactly their text.
#[test]
fn markers_degraded_by_blanks_are_markup() {
    let s = |edge: &str, word: &str| format!("<|{edge}|> {word} <|sep|>");
    let json_body = format!(
        "{}{{\"path\": \"a.txt\", \"n\": [1, 2]}}{}",
        s("open", "json type=\"object\""),
        s("close", "json")
    );
    let params = arg(true, "path", "string", "a.txt") + &arg(true, "n", "array", "[1, 2]");
    for body in [json_body, params] {
        let raw = channel(true, "answer", "write", &body);
        for dialect in [Dialect::KimiK3, Dialect::Auto] {
            let msg = message(dialect, &raw, false);
            assert_eq!(msg["content"], "answer", "{dialect:?} {raw:?}");
            assert_eq!(
                released(&msg),
                vec![("write".to_owned(), json!({"path": "a.txt", "n": [1, 2]}))],
                "{dialect:?} {raw:?}"
            );
        }
        // Thinking: the prompt opened `think`, the model closes it degraded.
        let thought = format!("plan it{}{raw}", s("close", "think"));
        let msg = message(Dialect::KimiK3, &thought, true);
        assert_eq!(msg["reasoning"], "plan it", "{thought:?}");
        assert_eq!(msg["content"], "answer", "{thought:?}");
        assert_eq!(released(&msg).len(), 1, "{thought:?}");
        // A whole think block, opened and closed degraded, or one side tight.
        for (open, close) in [
            (s("open", "think"), s("close", "think")),
            ("<|open|>think<|sep|>".to_owned(), s("close", "think")),
            (s("open", "think"), "<|close|>think<|sep|>".to_owned()),
        ] {
            let block = format!("{open}plan it{close}{raw}");
            let msg = message(Dialect::KimiK3, &block, false);
            assert_eq!(msg["reasoning"], "plan it", "{block:?}");
            assert_eq!(msg["content"], "answer", "{block:?}");
        }
    }
    // A reply only: nothing of the frame is shown.
    let reply = format!(
        "{}Hello there.{}{}<|end_of_msg|>",
        s("open", "response"),
        s("close", "response"),
        s("close", "message")
    );
    for dialect in [Dialect::KimiK3, Dialect::Auto] {
        let msg = message(dialect, &reply, false);
        assert_eq!(msg["content"], "Hello there.", "{dialect:?}");
        assert_eq!(msg["tool_calls"], json!([]));
    }
}

/// Two calls in one degraded channel, each with entities: both released, in order.
#[test]
fn degraded_parallel_calls_are_released_in_order() {
    let one = |name: &str, key: &str| {
        format!(
            "<|open|> call tool=\"{name}\" index=\"1\" <|sep|>{}<|close|> call <|sep|>",
            arg(true, key, "string", "x &lt; y")
        )
    };
    let raw = format!(
        "<|open|> tools <|sep|>{}{}<|close|> tools <|sep|>",
        one("a", "k&quot;1"),
        one("b", "k&#38;2")
    );
    let msg = message(Dialect::KimiK3, &raw, false);
    // Values are raw text: an entity in one is the model's text, kept.
    assert_eq!(
        released(&msg),
        vec![
            ("a".to_owned(), json!({"k\"1": "x &lt; y"})),
            ("b".to_owned(), json!({"k&2": "x &lt; y"})),
        ],
        "{msg}"
    );
    assert_eq!(msg["content"], "");
}

/// Negatives: words that are not markers stay text, and a degraded call cut off is
/// reported truncated, never released.
#[test]
fn near_markers_stay_text_and_cut_calls_are_not_released() {
    for text in [
        "open response sep: plain words",
        "<open> response <sep> is not Kimi's markup",
        "a &lt; b in a reply stays as written",
    ] {
        let msg = message(Dialect::KimiK3, text, false);
        assert_eq!(msg["content"], text);
        assert_eq!(msg["tool_calls"], json!([]));
    }
    let cut = format!(
        "<|open|> tools <|sep|><|open|> call tool=\"f\" index=\"1\" <|sep|>{}",
        "<|open|> argument key=\"a&lt;\" type=\"string\" <|sep|>half"
    );
    let mut config = Config::new(Dialect::KimiK3);
    config.reasoning_open = false;
    let events = support::check_all_chunkings(&config, cut.as_bytes(), StopReason::Length)
        .unwrap_or_else(|e| panic!("{e}"));
    let msg = support::message(&events);
    assert_eq!(msg["tool_calls"], json!([]), "{msg}");
    assert_eq!(msg["incomplete_calls"][0]["reason"], "truncated", "{msg}");
    assert_eq!(msg["content"], "", "{msg}");
}
