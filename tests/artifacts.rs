//! Tokenizer artifacts (issue 27, class 6): MiniMax's namespace token `]<]minimax[>[`
//! between a call's tags is markup: the call reads as if it were absent, and the token
//! never reaches the text, under every chunking.

mod support;

use serde_json::{json, Value};
use toolsift::{Config, Dialect, StopReason};

const NS: &str = "]<]minimax[>[";

fn message(dialect: Dialect, raw: &str) -> Value {
    let config = Config::new(dialect);
    let events = support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop)
        .unwrap_or_else(|e| panic!("{dialect:?} {raw:?}: {e}"));
    support::message(&events)
}

#[test]
fn minimax_m2_call_with_artifacts_between_its_tags() {
    let raw = format!(
        "Hi {NS}there.\n<minimax:tool_call>{NS}<invoke name=\"f\">{NS}\n<parameter name=\"a\">1{NS}</parameter>{NS}</invoke>{NS}</minimax:tool_call>"
    );
    for dialect in [Dialect::MinimaxM2, Dialect::MinimaxM3, Dialect::Auto] {
        let msg = message(dialect, &raw);
        let calls = msg["tool_calls"].as_array().unwrap();
        assert_eq!(calls.len(), 1, "{dialect:?}: {msg}");
        assert_eq!(calls[0]["name"], "f");
        let args: Value = serde_json::from_str(calls[0]["arguments"].as_str().unwrap()).unwrap();
        // No schema: the value is typed by what it reads as.
        assert_eq!(args, json!({"a": 1}), "{dialect:?}: {msg}");
        if dialect == Dialect::MinimaxM2 {
            assert_eq!(calls[0]["repairs"], json!(["tokenizer_artifact"]), "{msg}");
        }
        let content = msg["content"].as_str().unwrap();
        assert_eq!(content.trim(), "Hi there.", "{dialect:?}: {msg}");
    }
}

/// A piece of the token that never completes is the body's own text.
#[test]
fn half_an_artifact_in_a_value_is_text() {
    let raw = "<minimax:tool_call><invoke name=\"f\"><parameter name=\"a\">x]<]mini y</parameter></invoke></minimax:tool_call>";
    let msg = message(Dialect::MinimaxM2, raw);
    let args: Value =
        serde_json::from_str(msg["tool_calls"][0]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"a": "x]<]mini y"}), "{msg}");
}

/// Inside a value too the token is dropped; a `]` that begins no token stays.
#[test]
fn an_artifact_inside_a_value_is_dropped() {
    let raw = format!(
        "<minimax:tool_call><invoke name=\"f\"><parameter name=\"a\">x[0]]{NS}y]<z</parameter></invoke></minimax:tool_call>"
    );
    let msg = message(Dialect::MinimaxM2, &raw);
    let args: Value =
        serde_json::from_str(msg["tool_calls"][0]["arguments"].as_str().unwrap()).unwrap();
    assert_eq!(args, json!({"a": "x[0]]y]<z"}), "{msg}");
}
