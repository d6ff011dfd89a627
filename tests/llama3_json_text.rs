//! Llama 3 JSON with text around its calls (issue 37): call objects separated by `;`,
//! blanks or lines of text; an invalid object followed by a valid one; a valid object
//! followed by text. The valid calls are calls, the text is text (nothing lost, no call
//! JSON shown), an invalid object is reported with its reason, never released and never
//! dropped silently. Prose that begins the output keeps every object after it text
//! (invariant 0), and so does an object within a sentence. Each case is checked whole,
//! one byte at a time, at every split and in random chunks.

mod support;

use serde_json::{json, Value};
use toolsift::{Config, Dialect, StopReason};

/// The message of `raw` under `llama3_json`, the same under every chunking.
fn message(raw: &str) -> Value {
    let config = Config::new(Dialect::Llama3Json);
    let events = support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop)
        .unwrap_or_else(|e| panic!("{raw:?}: {e}"));
    support::message(&events)
}

const A: &str = r#"{"name": "get_weather", "parameters": {"city": "Paris"}}"#;
const B: &str = r#"{"name": "get_time", "parameters": {"zone": "CET"}}"#;

fn a() -> (&'static str, Value) {
    ("get_weather", json!({"city": "Paris"}))
}
fn b() -> (&'static str, Value) {
    ("get_time", json!({"zone": "CET"}))
}

/// One case: the output, its content, the calls released and those reported (name,
/// reason).
struct Case {
    raw: String,
    content: &'static str,
    released: Vec<(&'static str, Value)>,
    reported: Vec<(Option<&'static str>, &'static str)>,
}

fn judge(case: &Case) {
    let msg = message(&case.raw);
    let raw = &case.raw;
    assert_eq!(msg["content"], case.content, "{raw:?}: {msg}");
    let released: Vec<(String, Value)> = msg["tool_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let args = serde_json::from_str(c["arguments"].as_str().unwrap()).unwrap();
            (c["name"].as_str().unwrap().to_owned(), args)
        })
        .collect();
    let want: Vec<(String, Value)> = case
        .released
        .iter()
        .map(|(n, a)| (n.to_string(), a.clone()))
        .collect();
    assert_eq!(released, want, "{raw:?}: {msg}");
    let reported: Vec<(Option<String>, String)> = msg["incomplete_calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().map(str::to_owned),
                c["reason"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let want: Vec<(Option<String>, String)> = case
        .reported
        .iter()
        .map(|(n, r)| (n.map(str::to_owned), r.to_string()))
        .collect();
    assert_eq!(reported, want, "{raw:?}: {msg}");
    // Whatever was not released: its feedback says why.
    for c in msg["incomplete_calls"].as_array().unwrap() {
        assert!(!c["feedback"].as_str().unwrap().is_empty(), "{raw:?}: {c}");
    }
}

/// Calls separated by `;`, by blanks, or by lines of text: each call is a call, and
/// the text between and after them is the content, in order.
#[test]
fn calls_separated_by_semicolons_blanks_or_text() {
    let cases = [
        Case {
            raw: format!("{A}; {B}"),
            content: "",
            released: vec![a(), b()],
            reported: vec![],
        },
        Case {
            raw: format!("{A};{B};{A}"),
            content: "",
            released: vec![a(), b(), a()],
            reported: vec![],
        },
        Case {
            raw: format!("{A}\n{B}"),
            content: "",
            released: vec![a(), b()],
            reported: vec![],
        },
        Case {
            raw: format!("<|python_tag|>{A}; {B}"),
            content: "",
            released: vec![a(), b()],
            reported: vec![],
        },
        Case {
            raw: format!("{A}\nNow the time:\n{B}\nDone."),
            content: "\nNow the time:\n\nDone.",
            released: vec![a(), b()],
            reported: vec![],
        },
        Case {
            raw: format!("<|python_tag|>{A}\nand\n{B}"),
            content: "\nand\n",
            released: vec![a(), b()],
            reported: vec![],
        },
        Case {
            raw: format!("{A}; {B} Would you like to know more?"),
            content: " Would you like to know more?",
            released: vec![a(), b()],
            reported: vec![],
        },
        Case {
            raw: format!("{A} Would you like to know more?"),
            content: " Would you like to know more?",
            released: vec![a()],
            reported: vec![],
        },
        Case {
            raw: format!("{A}\n\nI checked Paris.\nAnything else?"),
            content: "\n\nI checked Paris.\nAnything else?",
            released: vec![a()],
            reported: vec![],
        },
    ];
    for case in &cases {
        judge(case);
    }
}

/// An invalid call object, then a valid one: the valid one is released, the invalid
/// one reported with its reason, and none of it is shown.
#[test]
fn an_invalid_object_then_a_valid_one() {
    let invalid = [
        // Arguments that are not an object.
        r#"{"name": "get_weather", "parameters": [1, 2]}"#,
        r#"{"name": "get_weather", "parameters": "Paris"}"#,
        // A key after the arguments with no comma: structure invented.
        r#"{"name": "get_weather", "parameters": {"days": 3} "unit": 2}"#,
    ];
    for bad in invalid {
        for sep in ["; ", ";", " ; "] {
            judge(&Case {
                raw: format!("{bad}{sep}{B}"),
                content: "",
                released: vec![b()],
                reported: vec![(Some("get_weather"), "invalid")],
            });
            judge(&Case {
                raw: format!("{A}{sep}{bad}{sep}{B} ok?"),
                content: " ok?",
                released: vec![a(), b()],
                reported: vec![(Some("get_weather"), "invalid")],
            });
        }
    }
    // The object's own closing brace missing before `; {"name"`: the arguments closed,
    // only the call object's brace is missing (`missing_closers`), as at the end.
    let open = r#"{"name": "get_weather", "parameters": {"city": "Paris"}"#;
    judge(&Case {
        raw: format!("{open}; {B}"),
        content: "",
        released: vec![a(), b()],
        reported: vec![],
    });
}

/// Negatives: prose first keeps everything text; an object within a sentence, or one
/// that is no call object, stays text after calls too; a non-call object on its own line
/// is text.
#[test]
fn prose_and_objects_in_sentences_stay_text() {
    for raw in [
        format!("Here is the result: {A} Would you like to know more?"),
        format!("Here is the result:\n{A}\nMore?"),
        format!("{{\"answer\": 42}} then\n{A}"),
        format!("The format is {B}; for example {A}"),
    ] {
        judge(&Case {
            raw: raw.clone(),
            content: Box::leak(raw.into_boxed_str()),
            released: vec![],
            reported: vec![],
        });
    }
    judge(&Case {
        raw: format!("{A} and then {B} if you want"),
        content: Box::leak(format!(" and then {B} if you want").into_boxed_str()),
        released: vec![a()],
        reported: vec![],
    });
    judge(&Case {
        raw: format!("{A}\n{{\"temp\": 20}} is the shape."),
        content: "\n{\"temp\": 20} is the shape.",
        released: vec![a()],
        reported: vec![],
    });
    // After an object that is no call, nothing is a call any more: an object nested in
    // it may begin a line.
    let nested = format!("{A}\nnote\n{{\"k\":\n{B}}}\n{B}");
    judge(&Case {
        raw: nested.clone(),
        content: Box::leak(nested[A.len()..].to_owned().into_boxed_str()),
        released: vec![a()],
        reported: vec![],
    });
    judge(&Case {
        raw: format!("{A}\n[1, 2] are the days."),
        content: "\n[1, 2] are the days.",
        released: vec![a()],
        reported: vec![],
    });
}

/// Known failure: an invalid object whose arguments closed, then a line break and the
/// next call: the next call is read as the invalid one's (reported with it, not
/// released, not shown). `}` + a line break + `{"name"` never occurs in a strict object,
/// but where the repairer reads it, it is inside a string it is deciding on.
#[test]
#[ignore = "known failure: an invalid object swallows the next call after a line break"]
fn an_invalid_object_then_a_line_break_then_a_valid_one() {
    let bad = r#"{"name": "get_weather", "parameters": {"days": 3} "unit": 2}"#;
    judge(&Case {
        raw: format!("{bad}\n{B}"),
        content: "",
        released: vec![b()],
        reported: vec![(Some("get_weather"), "invalid")],
    });
}

/// Known failure (found by this file's first table; main behaves the same): a string
/// argument followed by a stray key (`"Paris"} "days": 2}`) and then the next call is
/// read as one string holding unescaped quotes, up to the next call's last quote, and
/// released as `get_weather` with that string. Invariant 0: not released. The fix
/// belongs to the repairer's unescaped-quote readings (a reading whose string swallows
/// `}` + a call object's start is not the model's).
#[test]
#[ignore = "known failure: a stray key after a string argument swallows the next call"]
fn a_stray_key_after_a_string_argument_does_not_swallow_the_next_call() {
    let bad = r#"{"name": "get_weather", "parameters": {"city": "Paris"} "days": 2}"#;
    for sep in ["; ", "\n"] {
        judge(&Case {
            raw: format!("{bad}{sep}{B}"),
            content: "",
            released: vec![b()],
            reported: vec![(Some("get_weather"), "invalid")],
        });
    }
}

/// JSON data that holds a name and nothing else (`{"name": "Alice"}`, the answer to
/// "give me the person as JSON") is text in every dialect and under `auto` when no
/// tools are declared: without a marker, a call goes on to its arguments. With the
/// name declared as a tool, a dialect reading markerless JSON (Llama 3's bare form)
/// calls it with no arguments.
#[test]
fn an_object_holding_only_a_name_is_text_without_tools() {
    let mut wrong = Vec::new();
    for raw in [
        r#"{"name": "Alice"}"#,
        "{\"name\": \"Alice\"}\n",
        r#"[{"name": "Alice"}]"#,
        r#"{"name": "Alice" }"#,
    ] {
        for &dialect in Dialect::ALL.iter().chain([&Dialect::Auto]) {
            let config = Config::new(dialect);
            let events =
                match support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop) {
                    Ok(events) => events,
                    Err(e) => {
                        wrong.push(format!("{} {raw:?}: {e}", dialect.name()));
                        continue;
                    }
                };
            let m = support::message(&events);
            if m["content"] != raw || m["tool_calls"] != json!([]) {
                wrong.push(format!("{} {raw:?}: {m}", dialect.name()));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    let tools = toolsift::Tools::from_value(&json!([{"type": "function", "function": {
        "name": "Alice", "parameters": {"type": "object", "properties": {}}}}]))
    .unwrap();
    let config = Config::new(Dialect::Llama3Json).tools(tools);
    let events =
        support::check_all_chunkings(&config, br#"{"name": "Alice"}"#, StopReason::Stop).unwrap();
    let m = support::message(&events);
    assert_eq!(m["tool_calls"][0]["name"], "Alice", "{m}");
    assert_eq!(m["tool_calls"][0]["arguments"], "{}", "{m}");
}
