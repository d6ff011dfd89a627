//! A tool name written just before a call marker whose opener was swallowed or omitted
//! (`CallForm::name_before`): Mistral `NAME[ARGS]{...}` with no `[TOOL_CALLS]`, GLM
//! `NAME<arg_key>...` with no `<tool_call>`. Each case whole, at every split point and
//! in random chunks (`support::check_all_chunkings`, which also checks every invariant).

mod support;

use serde_json::{json, Value};
use toolsift::{Config, Dialect, StopReason, Tools};

const WEATHER: &str = r#"[{"type": "function", "function": {"name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
    "required": ["city"]}}}]"#;

fn message(dialect: Dialect, tools: Option<&str>, raw: &str, stop: StopReason) -> Value {
    let mut config = Config::new(dialect);
    if let Some(tools) = tools {
        config.tools = std::sync::Arc::new(Tools::from_json(tools.as_bytes()).unwrap());
    }
    let events = support::check_all_chunkings(&config, raw.as_bytes(), stop)
        .unwrap_or_else(|e| panic!("{dialect} {raw:?}: {e}"));
    support::message(&events)
}

/// The released calls as `(name, arguments)`.
fn calls(msg: &Value) -> Vec<(String, Value)> {
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

fn call(name: &str, args: Value) -> (String, Value) {
    (name.to_owned(), args)
}

#[test]
fn mistral_calls_whose_tool_calls_marker_was_swallowed() {
    let paris = json!({"city": "Paris"});
    for (dialect, tools) in [(Dialect::Mistral, None), (Dialect::Auto, Some(WEATHER))] {
        let one = r#"get_weather[ARGS]{"city": "Paris"}"#;
        let msg = message(dialect, tools, one, StopReason::Stop);
        assert_eq!(calls(&msg), [call("get_weather", paris.clone())], "{msg}");
        assert_eq!(msg["content"], "", "{msg}");
        assert_eq!(msg["tool_calls"][0]["repairs"], json!(["missing_opener"]));
        // The first of several parallel calls, the others with their marker.
        let two =
            r#"get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]get_weather[ARGS]{"city": "Rome"}"#;
        let msg = message(dialect, tools, two, StopReason::Stop);
        let rome = json!({"city": "Rome"});
        assert_eq!(
            calls(&msg),
            [
                call("get_weather", paris.clone()),
                call("get_weather", rome)
            ],
            "{msg}"
        );
        assert_eq!(msg["content"], "", "{msg}");
        // Blanks before the name are text; blanks between it and `[ARGS]` framing.
        let spaced = "\n get_weather [ARGS]{\"city\": \"Paris\"}";
        let msg = message(dialect, tools, spaced, StopReason::Stop);
        assert_eq!(calls(&msg), [call("get_weather", paris.clone())], "{msg}");
        assert_eq!(msg["content"], "\n ", "{msg}");
    }
    // Named: any identifier, also right after a call, and with a call id.
    let msg = message(
        Dialect::Mistral,
        None,
        r#"a[ARGS]{"x": 1}b[CALL_ID]abc123456[ARGS]{"y": 2}"#,
        StopReason::Stop,
    );
    assert_eq!(
        calls(&msg),
        [call("a", json!({"x": 1})), call("b", json!({"y": 2}))]
    );
    assert_eq!(msg["tool_calls"][1]["id"], "abc123456");
    // Right after a call that text preceded.
    let msg = message(
        Dialect::Mistral,
        None,
        r#"Sure.[TOOL_CALLS]a[ARGS]{"x": 1}b[ARGS]{"y": 2} Done."#,
        StopReason::Stop,
    );
    assert_eq!(
        calls(&msg),
        [call("a", json!({"x": 1})), call("b", json!({"y": 2}))]
    );
    assert_eq!(msg["content"], "Sure. Done.", "{msg}");
    // Reasoning before the name.
    let msg = message(
        Dialect::Mistral,
        None,
        r#"[THINK]hmm[/THINK]get_weather[ARGS]{"city": "Paris"}"#,
        StopReason::Stop,
    );
    assert_eq!(calls(&msg), [call("get_weather", paris)]);
    assert_eq!(msg["reasoning"], "hmm");
}

#[test]
fn glm_calls_whose_tool_call_tag_was_dropped() {
    let paris = json!({"city": "Paris"});
    let raws = [
        "get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call>",
        "get_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>",
    ];
    for raw in raws {
        for (dialect, tools) in [(Dialect::Glm, None), (Dialect::Auto, Some(WEATHER))] {
            let msg = message(dialect, tools, raw, StopReason::Stop);
            assert_eq!(calls(&msg), [call("get_weather", paris.clone())], "{msg}");
            assert_eq!(msg["content"], "", "{msg}");
            assert_eq!(msg["tool_calls"][0]["repairs"], json!(["missing_opener"]));
        }
    }
    // The next call with its tag.
    let two = "a<arg_key>x</arg_key><arg_value>p</arg_value></tool_call>\
               <tool_call>b<arg_key>y</arg_key><arg_value>q</arg_value></tool_call>";
    let msg = message(Dialect::Glm, None, two, StopReason::Stop);
    assert_eq!(
        calls(&msg),
        [call("a", json!({"x": "p"})), call("b", json!({"y": "q"}))]
    );
}

/// A call cut off by the token limit is reported truncated, with the held name.
#[test]
fn a_cut_call_is_truncated_with_its_name() {
    for (dialect, raw) in [
        (Dialect::Mistral, r#"get_weather[ARGS]{"city": "Par"#),
        (Dialect::Mistral, "get_weather[CALL_ID]abc12"),
        (
            Dialect::Glm,
            "get_weather<arg_key>city</arg_key><arg_value>Par",
        ),
    ] {
        let msg = message(dialect, None, raw, StopReason::Length);
        assert_eq!(msg["tool_calls"], json!([]), "{msg}");
        assert_eq!(msg["incomplete_calls"][0]["name"], "get_weather", "{msg}");
        assert_eq!(msg["incomplete_calls"][0]["reason"], "truncated", "{msg}");
        assert_eq!(msg["content"], "", "{msg}");
    }
}

/// Invariants 0 and 5: what is not a name before the marker, or a marker that turns out
/// to begin no call, stays text (the marker itself dropped); nothing is released.
#[test]
fn text_that_is_not_a_named_call_stays_text() {
    let cases: [(Dialect, Option<&str>, &str, &str); 10] = [
        // Under a named dialect, a name after text is read (see below); a word that
        // does not begin with a letter or `_` is none.
        (
            Dialect::Mistral,
            None,
            r#"Take 3get_weather[ARGS]{"city": "Paris"}"#,
            r#"Take 3get_weather{"city": "Paris"}"#,
        ),
        (Dialect::Mistral, None, "Hello world", "Hello world"),
        (Dialect::Mistral, None, "get_weather", "get_weather"),
        (
            Dialect::Mistral,
            None,
            "get_weather[ARGS] not json at all",
            "get_weather not json at all",
        ),
        (Dialect::Glm, None, "Hello world", "Hello world"),
        // Under `auto`, a name after text is not read.
        (
            Dialect::Auto,
            Some(WEATHER),
            r#"Sure: get_weather[ARGS]{"city": "Paris"}"#,
            r#"Sure: get_weather{"city": "Paris"}"#,
        ),
        // Under `auto`: only with tools declared, only a declared tool's name.
        (
            Dialect::Auto,
            None,
            r#"get_weather[ARGS]{"city": "Paris"}"#,
            r#"get_weather{"city": "Paris"}"#,
        ),
        (
            Dialect::Auto,
            Some(WEATHER),
            r#"get_time[ARGS]{"city": "Paris"}"#,
            r#"get_time{"city": "Paris"}"#,
        ),
        (
            Dialect::Auto,
            Some(WEATHER),
            "get_weathercity<arg_key>x</arg_key>",
            "get_weathercityx",
        ),
        (
            Dialect::Auto,
            Some(WEATHER),
            "get weather now",
            "get weather now",
        ),
    ];
    for (dialect, tools, raw, content) in cases {
        let msg = message(dialect, tools, raw, StopReason::Stop);
        assert_eq!(msg["tool_calls"], json!([]), "{dialect} {raw:?}: {msg}");
        assert_eq!(msg["content"], content, "{dialect} {raw:?}: {msg}");
    }
    // A name longer than `max_name_bytes` is not held to the end: text.
    let long = "x".repeat(300);
    let raw = format!("{long}[ARGS]{{\"a\": 1}}");
    let msg = message(Dialect::Mistral, None, &raw, StopReason::Stop);
    assert_eq!(msg["tool_calls"], json!([]), "{msg}");
    assert_eq!(msg["content"], format!("{long}{{\"a\": 1}}"));
}

/// Under `auto`, arguments that do not fit the declared tool's schema are not a call.
#[test]
fn under_auto_the_arguments_must_fit_the_tool() {
    let raw = r#"get_weather[ARGS]{"town": "Paris"}"#;
    let msg = message(Dialect::Auto, Some(WEATHER), raw, StopReason::Stop);
    assert_eq!(msg["tool_calls"], json!([]), "{msg}");
    assert_eq!(msg["incomplete_calls"][0]["reason"], "not_a_call", "{msg}");
}

/// Inkling: the tool name written before `<|content_invoke_tool_json|>` (after an
/// echoed `<|content_text|>`, which is markup) is not shown; it names a call cut before
/// its own name, and a call naming another tool is not released.
#[test]
fn inkling_names_written_before_the_call() {
    let call_json = r#"<|content_invoke_tool_json|>{"name": "get_weather", "args": {"city": "Paris"}}<|end_message|>"#;
    let raw = format!("<|message_model|><|content_text|>get_weather{call_json}");
    for (dialect, tools) in [(Dialect::Inkling, None), (Dialect::Auto, Some(WEATHER))] {
        let msg = message(dialect, tools, &raw, StopReason::Stop);
        assert_eq!(
            calls(&msg),
            [call("get_weather", json!({"city": "Paris"}))],
            "{msg}"
        );
        assert_eq!(msg["content"], "", "{msg}");
        // Text before the call that is not a name stays.
        let prose = format!("<|content_text|>Checking now<|end_message|>{call_json}");
        let msg = message(dialect, tools, &prose, StopReason::Stop);
        assert_eq!(msg["content"], "Checking now", "{msg}");
        assert_eq!(calls(&msg).len(), 1, "{msg}");
    }
    let cut = "<|content_text|>get_weather<|content_invoke_tool_json|>{\"na";
    let msg = message(Dialect::Inkling, None, cut, StopReason::Length);
    assert_eq!(msg["incomplete_calls"][0]["name"], "get_weather", "{msg}");
    assert_eq!(msg["incomplete_calls"][0]["reason"], "truncated", "{msg}");
    assert_eq!(msg["content"], "", "{msg}");
    let other =
        r#"get_weather<|content_invoke_tool_json|>{"name": "get_time", "args": {}}<|end_message|>"#;
    let msg = message(Dialect::Inkling, None, other, StopReason::Stop);
    assert_eq!(msg["tool_calls"], json!([]), "{msg}");
    assert_eq!(msg["incomplete_calls"][0]["reason"], "invalid", "{msg}");
}

/// Under a named dialect, a tool name after visible text (`Sure: get_weather[ARGS]`, the
/// `[TOOL_CALLS]` swallowed mid-output) is read: the identifier that ends the text is
/// held until what follows shows whether it is a name, never shown when it is, and
/// shown as text when it is not. Every chunking gives the same message.
#[test]
fn a_name_after_visible_text_is_read_under_a_named_dialect() {
    let cases: [(Dialect, &str, &str, &str); 5] = [
        (
            Dialect::Mistral,
            r#"Sure: get_weather[ARGS]{"city": "Paris"}"#,
            "Sure: ",
            r#"{"city": "Paris"}"#,
        ),
        (
            Dialect::Mistral,
            "I will check.\nget_weather [ARGS]{\"city\": \"Paris\"} Done.",
            "I will check.\n Done.",
            r#"{"city": "Paris"}"#,
        ),
        (
            Dialect::Mistral,
            r#"Checking (get_weather[CALL_ID]abc123def[ARGS]{"city": "Paris"})."#,
            "Checking ().",
            r#"{"city": "Paris"}"#,
        ),
        (
            Dialect::Glm,
            "Sure, get_weather<arg_key>city</arg_key><arg_value>Paris</arg_value></tool_call> ok",
            "Sure,  ok",
            r#"{"city": "Paris"}"#,
        ),
        (
            Dialect::Glm,
            "Sure,\nget_weather\n<arg_key>city</arg_key>\n<arg_value>Paris</arg_value>\n</tool_call>",
            "Sure,\n",
            r#"{"city": "Paris"}"#,
        ),
    ];
    for (dialect, raw, content, args) in cases {
        let msg = message(dialect, None, raw, StopReason::Stop);
        let calls = msg["tool_calls"].as_array().unwrap();
        assert_eq!(calls.len(), 1, "{dialect} {raw:?}: {msg}");
        assert_eq!(calls[0]["name"], "get_weather", "{raw:?}: {msg}");
        assert_eq!(calls[0]["arguments"], args, "{raw:?}: {msg}");
        assert_eq!(msg["content"], content, "{dialect} {raw:?}: {msg}");
    }
}
