//! The schema prior: a value declared as a string is never reshaped. Strings that look
//! like JSON (arrays, objects, numbers, literals, quoted text) go through
//! `Tool::conform`, `Tool::type_raw_value` and the parser with tools (a Hermes call and
//! a Qwen3-Coder XML call) and must come back unchanged.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Map, Value};
use std::sync::Arc;
use toolsift::{Config, Dialect, OwnedEvent, Parser, StopReason, Tools};

const KEYS: [&str; 3] = ["plain", "listed", "described"];

#[derive(Arbitrary, Debug)]
struct Val {
    shape: u8,
    text: String,
}

impl Val {
    /// The string value, shaped to look like JSON or Python most of the time.
    fn value(&self) -> String {
        let t = &self.text;
        match self.shape % 10 {
            0 => t.clone(),
            1 => format!("[{t}]"),
            2 => format!("{{\"x\": {t}}}"),
            3 => format!("{{{t}}}"),
            4 => format!("['{t}']"),
            5 => format!("\"{t}\""),
            6 => ["true", "False", "null", "None", "0", "-1.5e3", "[]", "{}"]
                [self.shape as usize / 10 % 8]
                .to_owned(),
            7 => format!("{}{t}", self.shape),
            8 => format!("({t},)"),
            _ => format!("{t} --flag={t}"),
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Input {
    vals: [Val; 3],
}

fn tools() -> Tools {
    Tools::from_value(
        &json!([{"type": "function", "function": {"name": "save", "parameters": {
            "type": "object",
            "properties": {
                "plain": {"type": "string"},
                "listed": {"type": ["string"]},
                "described": {"type": "string", "description": "any text"}
            },
            "required": ["plain"]
        }}}]),
    )
    .unwrap()
}

fn released(dialect: Dialect, tools: &Tools, raw: &str) -> Option<Value> {
    let mut config = Config::new(dialect);
    config.tools = Arc::new(tools.clone());
    let mut p = Parser::with_config(config);
    p.push(raw.as_bytes());
    p.finish(StopReason::Stop);
    let mut out = None;
    while let Some(ev) = p.next_event() {
        match ev.into_owned() {
            OwnedEvent::CallFinished { arguments, .. } => {
                assert!(out.is_none(), "two calls from one: {raw:?}");
                out = Some(serde_json::from_str(&arguments).unwrap());
            }
            OwnedEvent::CallNotReleased {
                reason, feedback, ..
            } => {
                panic!("{dialect}: call not released ({reason:?}: {feedback}) for {raw:?}")
            }
            _ => {}
        }
    }
    out
}

fuzz_target!(|input: Input| {
    let tools = tools();
    let tool = tools.get("save").unwrap();
    let mut args = Map::new();
    for (key, val) in KEYS.iter().zip(&input.vals) {
        let v = val.value();
        let (typed, _) = tool.type_raw_value(key, &v);
        assert_eq!(
            typed,
            Value::String(v.clone()).to_string(),
            "type_raw_value reshaped {key}"
        );
        args.insert((*key).to_owned(), Value::String(v));
    }
    let args = Value::Object(args);
    let conformed = tool.conform(&args);
    let after = conformed.value.as_ref().unwrap_or(&args);
    assert_eq!(
        after, &args,
        "conform reshaped a string: {:?}",
        conformed.repairs
    );

    let hermes = format!(
        "<tool_call>\n{}\n</tool_call>",
        json!({"name": "save", "arguments": args})
    );
    let got = released(Dialect::Hermes, &tools, &hermes).expect("hermes call released");
    assert_eq!(got, args, "hermes call reshaped a string");

    // The XML form carries raw text: only values that cannot close their tag or lose
    // framing newlines are comparable.
    let xml_safe =
        |s: &str| !s.contains('<') && !s.starts_with(['\n', '\r']) && !s.ends_with(['\n', '\r']);
    if args
        .as_object()
        .unwrap()
        .values()
        .all(|v| xml_safe(v.as_str().unwrap()))
    {
        let mut xml = String::from("<tool_call>\n<function=save>\n");
        for (k, v) in args.as_object().unwrap() {
            xml.push_str(&format!(
                "<parameter={k}>\n{}\n</parameter>\n",
                v.as_str().unwrap()
            ));
        }
        xml.push_str("</function>\n</tool_call>");
        let got = released(Dialect::Qwen3Coder, &tools, &xml).expect("xml call released");
        assert_eq!(got, args, "xml call reshaped a string");
    }
});
