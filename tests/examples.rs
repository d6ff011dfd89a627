//! Example syntax in prose (issue 27, class 8): a `` ```tool_call `` (or
//! `` ```tool_code ``) fence, or a `TOOL CALL:` label before JSON, says it holds a call. A call in it that names a declared
//! tool and fits its schema is released; call syntax that does not parse, names no
//! declared tool, or holds placeholders is an example of the format: reported not
//! released with its reason, never shown as raw markup, and the prose around it stays.
//! Every case under every chunking.

mod support;

use serde_json::{json, Value};
use toolsift::{Config, Dialect, StopReason, Tools};

const WEATHER: &str = r#"[{"type": "function", "function": {"name": "get_weather",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
    "required": ["city"]}}}]"#;

fn message(raw: &str, tools: Option<&str>) -> Value {
    let mut config = Config::new(Dialect::Auto);
    if let Some(tools) = tools {
        config.tools = std::sync::Arc::new(Tools::from_json(tools.as_bytes()).unwrap());
    }
    let events = support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop)
        .unwrap_or_else(|e| panic!("{raw:?}: {e}"));
    support::message(&events)
}

#[test]
fn example_call_syntax_in_a_tool_call_fence_is_reported_not_shown() {
    let cases = [
        (
            "```tool_call\n{\"name\": \"TOOL\", \"arguments\": {...}}\n```",
            "not_a_call",
        ),
        ("```tool_call\n<get_weather city=Paris>\n```", "not_a_call"),
        ("```tool_call\nsee the docs\n```", "not_a_call"),
        ("```tool_call\nget_weather(city=<city>)\n```", "invalid"),
        (
            "```tool_code\n{\"name\": \"get_weather\", \"arguments\": {\"city\": <city>}}\n```",
            "invalid",
        ),
    ];
    for (fence, reason) in cases {
        let raw = format!("To call a tool, write:\n{fence}\nThat is the format.");
        for tools in [Some(WEATHER), None] {
            let msg = message(&raw, tools);
            if tools.is_none() && reason == "not_a_call" && fence.contains("TOOL") {
                // No tools declared: any name counts, and `{...}` is a placeholder.
                assert_eq!(msg["incomplete_calls"][0]["reason"], "invalid", "{msg}");
            } else if tools.is_some() || reason == "invalid" {
                assert_eq!(
                    msg["incomplete_calls"][0]["reason"], reason,
                    "{raw:?}: {msg}"
                );
            }
            assert_eq!(msg["tool_calls"], json!([]), "{raw:?}: {msg}");
            let content = msg["content"].as_str().unwrap();
            assert!(content.starts_with("To call a tool, write:\n"), "{msg}");
            assert!(content.ends_with("That is the format."), "{msg}");
            assert!(!content.contains("```"), "{raw:?}: {msg}");
            assert!(!content.contains("city"), "{raw:?}: {msg}");
        }
    }
}

#[test]
fn a_call_in_a_tool_call_fence_is_released() {
    for body in [
        "{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}",
        "[get_weather(city='Paris')]",
        "get_weather(city=\"Paris\")",
    ] {
        for lang in ["tool_call", "tool_code"] {
            let raw = format!("Checking.\n```{lang}\n{body}\n```\nDone.");
            let msg = message(&raw, Some(WEATHER));
            let calls = msg["tool_calls"].as_array().unwrap();
            assert_eq!(calls.len(), 1, "{raw:?}: {msg}");
            let args: Value =
                serde_json::from_str(calls[0]["arguments"].as_str().unwrap()).unwrap();
            assert_eq!(args, json!({"city": "Paris"}), "{raw:?}");
            assert_eq!(msg["content"], "Checking.\n\nDone.", "{raw:?}");
        }
    }
}

/// A fence of another language stays prose, whatever it holds.
#[test]
fn other_fences_stay_prose() {
    let raw = "Use:\n```python\nget_weather(city=<city>)\n```\nok";
    let msg = message(raw, Some(WEATHER));
    assert_eq!(msg["content"], raw);
    assert_eq!(msg["incomplete_calls"], json!([]));
}

/// `TOOL CALL:` at a line start, then a JSON object: a call, or (an example) reported.
#[test]
fn a_tool_call_label_then_json() {
    let call = "TOOL CALL: {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}";
    let msg = message(&format!("Checking.\n{call}\nDone."), Some(WEATHER));
    assert_eq!(msg["tool_calls"].as_array().unwrap().len(), 1, "{msg}");
    assert_eq!(msg["content"], "Checking.\n\nDone.", "{msg}");
    for example in [
        "TOOL CALL: {\"name\": \"TOOL\", \"arguments\": {...}}",
        "TOOL CALL:{\"name\": \"get_weather\", \"arguments\": {\"city\": <city>}}",
    ] {
        let raw = format!("Plan:\n{example}\nThat is the format.");
        for tools in [Some(WEATHER), None] {
            let msg = message(&raw, tools);
            assert_eq!(msg["tool_calls"], json!([]), "{raw:?}: {msg}");
            assert_eq!(
                msg["incomplete_calls"].as_array().unwrap().len(),
                1,
                "{msg}"
            );
            assert_eq!(
                msg["content"], "Plan:\n\nThat is the format.",
                "{raw:?}: {msg}"
            );
        }
    }
    // Inside a line, or followed by anything but JSON, the label is text.
    for raw in [
        "See the TOOL CALL: {\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}} above",
        "I would do this.\nTOOL CALL: get_weather(city: Paris\nThat is it.",
    ] {
        let msg = message(raw, Some(WEATHER));
        assert_eq!(msg["content"], raw, "{msg}");
        assert_eq!(msg["tool_calls"], json!([]), "{msg}");
    }
}
