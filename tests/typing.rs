//! Typing without a schema (issue 27, class 10): an XML-style value no schema types is
//! the JSON it reads as (a number, boolean, null, object or array), as vLLM and SGLang
//! type it; anything else is a string. With a schema the schema decides; a tag that says
//! what the value is (`string="true"`, CDATA) decides too. Typing is the grammar's own
//! reading, not a repair. Every case runs under every chunking.

mod support;

use serde_json::{json, Value};
use toolsift::{Config, Dialect, StopReason, Tools};

/// The one call's arguments (as released text) and repairs for `raw`.
fn call(dialect: Dialect, tools: Option<&str>, raw: &str) -> (String, Value) {
    let mut config = Config::new(dialect);
    if let Some(tools) = tools {
        config.tools = std::sync::Arc::new(Tools::from_json(tools.as_bytes()).unwrap());
    }
    let events = support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop)
        .unwrap_or_else(|e| panic!("{dialect:?} {raw:?}: {e}"));
    let msg = support::message(&events);
    let calls = msg["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{dialect:?} {raw:?}: {msg}");
    let args = calls[0]["arguments"].as_str().unwrap().to_owned();
    (args, calls[0]["repairs"].clone())
}

fn glm(value: &str) -> String {
    format!("<tool_call>f<arg_key>v</arg_key><arg_value>{value}</arg_value></tool_call>")
}

fn qwen(value: &str) -> String {
    format!("<tool_call>\n<function=f>\n<parameter=v>\n{value}\n</parameter>\n</function>\n</tool_call>")
}

/// Value text → the JSON it is released as, with no tool declared.
const UNTYPED: &[(&str, &str)] = &[
    ("42", "42"),
    ("-1.50", "-1.50"),
    ("1e3", "1e3"),
    ("true", "true"),
    ("false", "false"),
    ("null", "null"),
    (r#"{"a": [1, "x"]}"#, r#"{"a": [1, "x"]}"#),
    ("[1, 2]", "[1, 2]"),
    ("[]", "[]"),
    // Blanks around JSON are not part of it.
    ("  7 ", "7"),
    // Exact, however long: the digits as written.
    (
        "123456789012345678901234567890",
        "123456789012345678901234567890",
    ),
    // Not JSON, or a JSON string: text, as written.
    ("hello", r#""hello""#),
    ("true story", r#""true story""#),
    ("nullable", r#""nullable""#),
    ("-x", r#""-x""#),
    ("12 monkeys", r#""12 monkeys""#),
    ("007", r#""007""#),
    ("{broken", r#""{broken""#),
    ("[see above]", r#""[see above]""#),
    (r#""quoted""#, r#""\"quoted\"""#),
    ("True", r#""True""#),
    ("", r#""""#),
    ("  ", r#""  ""#),
    (" a b ", r#"" a b ""#),
    ("{\"a\": 1}\nmore", r#""{\"a\": 1}\nmore""#),
];

#[test]
fn untyped_values_are_the_json_they_read_as() {
    for &(value, want) in UNTYPED {
        let (args, repairs) = call(Dialect::Glm, None, &glm(value));
        assert_eq!(args, format!("{{\"v\": {want}}}"), "glm {value:?}");
        assert_eq!(repairs, json!([]), "glm {value:?}: typing is not a repair");
        if value.trim().is_empty() {
            // Qwen3-Coder's framing newlines make a blank value another case.
            continue;
        }
        let (args, repairs) = call(Dialect::Qwen3Coder, None, &qwen(value));
        assert_eq!(args, format!("{{\"v\": {want}}}"), "qwen3_coder {value:?}");
        assert_eq!(repairs, json!([]), "qwen3_coder {value:?}");
        let (args, _) = call(Dialect::Auto, None, &qwen(value));
        assert_eq!(args, format!("{{\"v\": {want}}}"), "auto {value:?}");
    }
}

#[test]
fn json_over_several_lines_keeps_its_lines() {
    let (args, _) = call(Dialect::Qwen3Coder, None, &qwen("{\n  \"a\": 1\n}"));
    assert_eq!(args, "{\"v\": {\n  \"a\": 1\n}}");
    let parsed: Value = serde_json::from_str(&args).unwrap();
    assert_eq!(parsed, json!({"v": {"a": 1}}));
}

const TOOL: &str = r#"[{"type": "function", "function": {"name": "f", "parameters": {
    "type": "object", "properties": {"v": {"type": "string"}, "n": {"type": "integer"},
    "any": {}}}}}]"#;

/// With a schema the schema decides; a key it does not declare is typed as without one.
#[test]
fn a_schema_decides_where_it_declares_the_key() {
    let raw = "<tool_call>f<arg_key>v</arg_key><arg_value>42</arg_value>\
               <arg_key>n</arg_key><arg_value>42</arg_value>\
               <arg_key>any</arg_key><arg_value>[1]</arg_value>\
               <arg_key>extra</arg_key><arg_value>true</arg_value></tool_call>";
    let (args, _) = call(Dialect::Glm, Some(TOOL), raw);
    assert_eq!(args, r#"{"v": "42", "n": 42, "any": [1], "extra": true}"#);
    // A tool without properties declares nothing.
    let bare =
        r#"[{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}]"#;
    let (args, _) = call(Dialect::Glm, Some(bare), &glm("42"));
    assert_eq!(args, r#"{"v": 42}"#);
}

/// A tag that says what its value is decides, schema or none.
#[test]
fn a_tag_that_types_its_value_decides() {
    let dsml = |attr: &str, value: &str| {
        format!(
            "<｜DSML｜function_calls><｜DSML｜invoke name=\"f\"><｜DSML｜parameter name=\"v\" \
             {attr}>{value}</｜DSML｜parameter></｜DSML｜invoke></｜DSML｜function_calls>"
        )
    };
    let (args, _) = call(Dialect::DeepseekDsml, None, &dsml("string=\"true\"", "42"));
    assert_eq!(args, r#"{"v": "42"}"#);
    let (args, _) = call(Dialect::DeepseekDsml, None, &dsml("string=\"false\"", "42"));
    assert_eq!(args, r#"{"v": 42}"#);
    // CDATA is text by its wrapper's word.
    let cdata = "<function name=\"f\"><param name=\"v\"><![CDATA[42]]></param></function>";
    let (args, _) = call(Dialect::MiniCpm5, None, cdata);
    assert_eq!(args, r#"{"v": "42"}"#);
    let plain = "<function name=\"f\"><param name=\"v\">42</param></function>";
    let (args, _) = call(Dialect::MiniCpm5, None, plain);
    assert_eq!(args, r#"{"v": 42}"#);
}

/// MiniMax M3's parameters as elements: leaves no schema types are typed the same way,
/// but an integer a JSON number cannot hold exactly stays text.
#[test]
fn element_leaves_are_typed_without_a_schema() {
    let raw = "<minimax:tool_call><invoke name=\"f\"><n>42</n><s>Paris</s>\
               <list><item>1</item><item>x</item></list><big>123456789012345678901234567890</big>\
               <o><flag>true</flag></o></invoke></minimax:tool_call>";
    let (args, _) = call(Dialect::MinimaxM3, None, raw);
    let parsed: Value = serde_json::from_str(&args).unwrap();
    assert_eq!(
        parsed,
        json!({"n": 42, "s": "Paris", "list": [1, "x"],
               "big": "123456789012345678901234567890", "o": {"flag": true}})
    );
}

/// A value no schema types is held only while it may still be JSON: one that cannot be
/// (`from x import y`, `2024-01-01`, `nullable`) streams as a string from the byte that
/// shows it, before its closing tag.
#[test]
fn untyped_text_streams_once_it_cannot_be_json() {
    for (value, shown) in [
        ("from x import y\nprint(1)", "\"fr"),
        ("2024-01-01 is a date", "\"2024-"),
        ("nullable", "\"nulla"),
        ("trueish", "\"truei"),
        ("12 monkeys", "\"12 m"),
    ] {
        let raw = qwen(value);
        let mut p = toolsift::Parser::new(Dialect::Qwen3Coder);
        let mut args = String::new();
        // Up to the end of the value's text, before its closing tag.
        let end = raw.find("\n</parameter>").unwrap();
        for b in raw[..end].bytes() {
            p.push(&[b]);
            while let Some(ev) = p.next_event() {
                if let toolsift::Event::ArgsDelta { fragment, .. } = ev {
                    args.push_str(fragment);
                }
            }
        }
        assert!(args.contains(shown), "{value:?}: {args:?}");
    }
    // JSON is held to its closing tag.
    let raw = qwen("[1, 2]");
    let mut p = toolsift::Parser::new(Dialect::Qwen3Coder);
    let end = raw.find("\n</parameter>").unwrap();
    let mut args = String::new();
    for b in raw[..end].bytes() {
        p.push(&[b]);
        while let Some(ev) = p.next_event() {
            if let toolsift::Event::ArgsDelta { fragment, .. } = ev {
                args.push_str(fragment);
            }
        }
    }
    assert_eq!(args, "{\"v\": ");
}
