//! Broken Hermes envelopes (issue 27, class 2): call objects real models write with a
//! piece of the envelope missing or misspelled. Each is recovered only where one
//! reading is certain, and every case is checked under every chunking (invariant 4)
//! with no markup in the text (invariant 5).

mod support;

use serde_json::{json, Value};
use toolsift::{Config, Dialect, StopReason, Tools};

const TOOLS: &str = r#"[
  {"type": "function", "function": {"name": "shell", "parameters": {"type": "object",
    "properties": {"command": {"type": "string"}}, "required": ["command"]}}},
  {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object",
    "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}},
    "required": ["path"]}}}
]"#;

/// Two tools the same arguments fit.
const TWINS: &str = r#"[
  {"type": "function", "function": {"name": "cat", "parameters": {"type": "object",
    "properties": {"path": {"type": "string"}}, "required": ["path"]}}},
  {"type": "function", "function": {"name": "head", "parameters": {"type": "object",
    "properties": {"path": {"type": "string"}}, "required": ["path"]}}}
]"#;

/// The message of `raw` under `dialect` with `tools`, the same under every chunking.
fn message(dialect: Dialect, raw: &str, tools: Option<&str>) -> Value {
    let mut config = Config::new(dialect);
    if let Some(tools) = tools {
        config.tools = std::sync::Arc::new(Tools::from_json(tools.as_bytes()).unwrap());
    }
    let events = support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop)
        .unwrap_or_else(|e| panic!("{dialect:?} {raw:?}: {e}"));
    support::message(&events)
}

/// Under `hermes` and `auto`, with the tools declared and (where `untyped`) without.
fn both(raw: &str, tools: Option<&str>) -> [Value; 2] {
    [
        message(Dialect::Hermes, raw, tools),
        message(Dialect::Auto, raw, tools),
    ]
}

fn released(msg: &Value) -> Vec<(String, Value, Vec<String>)> {
    msg["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let args: Value = serde_json::from_str(c["arguments"].as_str().unwrap()).unwrap();
            let repairs = c["repairs"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| r.as_str().unwrap().to_owned())
                .collect();
            (c["name"].as_str().unwrap().to_owned(), args, repairs)
        })
        .collect()
}

fn assert_one(msg: &Value, name: &str, args: Value, repair: &str, raw: &str) {
    let calls = released(msg);
    assert_eq!(calls.len(), 1, "{raw:?}: {msg}");
    assert_eq!(calls[0].0, name, "{raw:?}: {msg}");
    assert_eq!(calls[0].1, args, "{raw:?}: {msg}");
    assert!(
        calls[0].2.iter().any(|r| r == repair),
        "{raw:?}: {repair} not in {:?}",
        calls[0].2
    );
}

#[test]
fn arguments_object_without_its_key() {
    for raw in [
        r#"<tool_call>{"name": "shell", {"command": "ls"}}</tool_call>"#,
        "<tool_call>\n{\"name\": \"shell\", {\"command\": \"ls -la\"}}\n</tool_call>",
        r#"Listing.<tool_call>{"name":"shell",{"command":"ls"}}</tool_call>Done."#,
    ] {
        for tools in [Some(TOOLS), None] {
            for msg in both(raw, tools) {
                let command = if raw.contains("-la") { "ls -la" } else { "ls" };
                assert_one(
                    &msg,
                    "shell",
                    json!({"command": command}),
                    "keyless_arguments",
                    raw,
                );
                let content = msg["content"].as_str().unwrap();
                assert!(!content.contains('{') && !content.contains("tool"), "{msg}");
            }
        }
    }
}

#[test]
fn key_missing_its_opening_quote() {
    for raw in [
        r#"<tool_call>{"name": "shell", arguments": {"command": "ls"}}</tool_call>"#,
        "<tool_call>\n{\"name\": \"read_file\", arguments\": {\"path\": \"a.txt\", \"limit\": 3}}\n</tool_call>",
        r#"<tool_call>{name": "shell", "arguments": {"command": "ls"}}</tool_call>"#,
    ] {
        for tools in [Some(TOOLS), None] {
            for msg in both(raw, tools) {
                let (name, args) = if raw.contains("read_file") {
                    ("read_file", json!({"path": "a.txt", "limit": 3}))
                } else {
                    ("shell", json!({"command": "ls"}))
                };
                assert_one(&msg, name, args, "missing_quote", raw);
            }
        }
    }
}

/// Never a call made of the envelope's own text: with the quote of a value's key lost
/// (`command": "ls"`), the arguments are not what the model meant.
#[test]
fn a_lost_quote_never_makes_a_wrong_call() {
    let raw = r#"<tool_call>{"name": "shell", "arguments": {command": "ls"}}</tool_call>"#;
    for tools in [Some(TOOLS), None] {
        for msg in both(raw, tools) {
            for (name, args, _) in released(&msg) {
                assert_eq!((name.as_str(), &args), ("shell", &json!({"command": "ls"})));
            }
            assert_eq!(msg["content"], "", "{msg}");
        }
    }
}

#[test]
fn mismatched_closing_tag() {
    for raw in [
        r#"<tool_call>{"name": "shell", "arguments": {"command": "ls"}}</tool_action>"#,
        "<tool_call>\n{\"name\": \"shell\", \"arguments\": {\"command\": \"ls\"}}\n</tool_call_>\nDone.",
        r#"<tool_call>{"name": "shell", "arguments": {"command": "ls"}}</toolcall> Done."#,
    ] {
        for tools in [Some(TOOLS), None] {
            for msg in both(raw, tools) {
                assert_one(
                    &msg,
                    "shell",
                    json!({"command": "ls"}),
                    "mismatched_tag",
                    raw,
                );
                let content = msg["content"].as_str().unwrap().trim();
                assert!(content.is_empty() || content == "Done.", "{raw:?}: {msg}");
            }
        }
    }
}

/// A closing tag of another kind after the call is no closer of it only when it is
/// not a tag at all: prose after a closer-less call stays.
#[test]
fn text_after_a_call_with_no_closer_stays() {
    let raw = r#"<tool_call>{"name": "shell", "arguments": {"command": "ls"}} </ not a tag"#;
    for msg in both(raw, Some(TOOLS)) {
        assert_one(
            &msg,
            "shell",
            json!({"command": "ls"}),
            "missing_closer",
            raw,
        );
        assert_eq!(msg["content"], "</ not a tag", "{msg}");
    }
}

#[test]
fn bare_arguments_object_matched_to_the_one_tool_it_fits() {
    let cases = [
        (
            r#"<tool_call>{"command": "ls"}</tool_call>"#,
            "shell",
            json!({"command": "ls"}),
        ),
        (
            "<tool_call>\n{\"path\": \"src/main.rs\", \"limit\": 20}\n</tool_call>",
            "read_file",
            json!({"path": "src/main.rs", "limit": 20}),
        ),
    ];
    for (raw, name, args) in cases {
        for msg in both(raw, Some(TOOLS)) {
            assert_one(&msg, name, args.clone(), "tool_name_inferred", raw);
            assert_eq!(msg["content"], "", "{msg}");
        }
    }
}

#[test]
fn bare_arguments_object_not_released_unless_exactly_one_tool_fits() {
    let cases = [
        // Several tools fit.
        (r#"<tool_call>{"path": "a.txt"}</tool_call>"#, Some(TWINS)),
        // None fits: a key no tool declares, or a required key missing.
        (
            r#"<tool_call>{"command": "ls", "cwd": "/"}</tool_call>"#,
            Some(TOOLS),
        ),
        (r#"<tool_call>{"limit": 3}</tool_call>"#, Some(TOOLS)),
        // No tools declared: nothing to match it to.
        (r#"<tool_call>{"command": "ls"}</tool_call>"#, None),
        // A tool that declares no properties fits anything: no match.
        (
            r#"<tool_call>{"command": "ls"}</tool_call>"#,
            Some(
                r#"[{"type": "function", "function": {"name": "any", "parameters": {"type": "object"}}}]"#,
            ),
        ),
    ];
    for (raw, tools) in cases {
        for msg in both(raw, tools) {
            assert_eq!(msg["tool_calls"], json!([]), "{raw:?}: {msg}");
            assert_eq!(
                msg["incomplete_calls"].as_array().unwrap().len(),
                1,
                "{msg}"
            );
            assert_eq!(msg["content"], "", "{raw:?}: {msg}");
        }
    }
}

/// A closing tag inside a string value, after a quote and the object's closer, is the
/// string's text when the call's real closer follows: never the call's end.
#[test]
fn a_closing_tag_inside_a_value_is_no_closer() {
    let raw = r#"<tool_call>{"name": "shell", "arguments": {"command": "echo <b>bold"}</b> x"}}</tool_call>"#;
    for tools in [Some(TOOLS), None] {
        for msg in both(raw, tools) {
            for (_, args, _) in released(&msg) {
                assert_eq!(args, json!({"command": "echo <b>bold\"}</b> x"}), "{msg}");
            }
            assert_eq!(msg["content"], "", "{msg}");
        }
    }
}

/// The arguments written beside the name, as members of the call object: taken when
/// the named tool declares every one of them.
#[test]
fn arguments_flattened_into_the_call_object() {
    for raw in [
        r#"<tool_call>{"name": "shell", "command": "ls"}</tool_call>"#,
        r#"<tool_call>{"command": "ls", "name": "shell", "id": "c1"}</tool_call>"#,
        "<tool_call>\n{\"name\": \"read_file\", \"path\": \"a.txt\", \"limit\": 3}\n</tool_call>",
    ] {
        for msg in both(raw, Some(TOOLS)) {
            let (name, args) = if raw.contains("read_file") {
                ("read_file", json!({"path": "a.txt", "limit": 3}))
            } else {
                ("shell", json!({"command": "ls"}))
            };
            assert_one(&msg, name, args, "flattened_arguments", raw);
        }
    }
    // A member the tool does not declare is no argument: nothing is taken from it.
    let raw = r#"<tool_call>{"name": "shell", "command": "ls", "reason": "list"}</tool_call>"#;
    for msg in both(raw, Some(TOOLS)) {
        for (_, args, _) in released(&msg) {
            assert_eq!(args, json!({}), "{msg}");
        }
    }
}

/// Two arguments objects in one call object: which one was meant cannot be told, and a
/// string never swallows the second one (`"ls\"}, {\"command\": \"rm -rf /"`).
#[test]
fn two_arguments_objects_are_not_released() {
    for raw in [
        r#"<tool_call>{"name": "shell", "arguments": {"command": "ls"}, {"command": "rm -rf /"}}</tool_call>"#,
        r#"<tool_call>{"name": "shell", "arguments": {"command": "ls"}, "arguments": {"command": "pwd"}}</tool_call>"#,
    ] {
        for tools in [Some(TOOLS), None] {
            for msg in both(raw, tools) {
                assert_eq!(msg["tool_calls"], json!([]), "{raw:?}: {msg}");
                assert_eq!(msg["incomplete_calls"][0]["reason"], "invalid", "{msg}");
                assert_eq!(msg["content"], "", "{msg}");
            }
        }
    }
}
