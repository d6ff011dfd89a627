//! Arguments keep the model's key order on every path that builds or rewrites them,
//! whatever serde_json's map does in this build (it sorts keys unless its
//! `preserve_order` feature is on, which the library does not turn on). Every case uses
//! keys whose written order is not the sorted one.

mod support;

use std::sync::Arc;
use toolsift::schema::Tools;
use toolsift::{Config, Dialect, OwnedEvent, StopReason};

/// One tool whose parameters are declared in an order that is not the sorted one.
const TOOLS: &str = r#"[{"type": "function", "function": {"name": "write_file", "parameters": {
    "type": "object",
    "properties": {
        "path": {"type": "string"},
        "content": {"type": "string"},
        "limit": {"type": "integer"},
        "opts": {"type": "object", "properties": {"zeta": {"type": "integer"}, "alpha": {"type": "boolean"}}},
        "meta": {"type": "object"},
        "tags": {"type": "array", "items": {"type": "string"}}
    },
    "required": ["path"]
}}}]"#;

/// The released calls' arguments and the feedback of calls not released, checked under
/// every chunking.
fn run(dialect: Dialect, raw: &str) -> (Vec<String>, Vec<String>) {
    let mut config = Config::new(dialect);
    config.tools = Arc::new(Tools::from_json(TOOLS.as_bytes()).unwrap());
    let events = support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop)
        .unwrap_or_else(|e| panic!("{raw:?}: {e}"));
    let mut released = Vec::new();
    let mut feedback = Vec::new();
    for event in events {
        match event {
            OwnedEvent::CallFinished {
                arguments,
                validation,
                ..
            } => {
                released.push(arguments);
                feedback.push(validation.unwrap_or_default());
            }
            OwnedEvent::CallNotReleased { feedback: f, .. } => feedback.push(f),
            _ => {}
        }
    }
    (released, feedback)
}

fn released(dialect: Dialect, raw: &str) -> Vec<String> {
    run(dialect, raw).0
}

#[test]
fn well_formed_json_passes_through_in_its_order() {
    let raw = r#"<tool_call>{"name": "write_file", "arguments": {"tags": ["b", "a"], "path": "a.txt", "meta": {"z": 1, "a": {"y": 2, "b": 3}}}}</tool_call>"#;
    assert_eq!(
        released(Dialect::Hermes, raw),
        [r#"{"tags": ["b", "a"], "path": "a.txt", "meta": {"z": 1, "a": {"y": 2, "b": 3}}}"#]
    );
}

#[test]
fn coerced_members_keep_their_order_inside_and_around() {
    // `opts.zeta` is coerced ("5" → 5): the member is written again, in its order.
    let raw = r#"<tool_call>{"name": "write_file", "arguments": {"path": "a.txt", "opts": {"zeta": "5", "alpha": true}, "limit": "3", "meta": {"z": 1, "a": 2}}}</tool_call>"#;
    assert_eq!(
        released(Dialect::Hermes, raw),
        [
            r#"{"path": "a.txt", "opts": {"zeta":5,"alpha":true}, "limit": 3, "meta": {"z": 1, "a": 2}}"#
        ]
    );
    // An object sent as a string (`string_to_object`), JSON or Python.
    let raw = r#"<tool_call>{"name": "write_file", "arguments": {"path": "a", "meta": "{\"z\": 1, \"a\": 2}"}}</tool_call>"#;
    assert_eq!(
        released(Dialect::Hermes, raw),
        [r#"{"path": "a", "meta": {"z":1,"a":2}}"#]
    );
    let raw = r#"<tool_call>{"name": "write_file", "arguments": {"path": "a", "meta": "{'z': 1, 'a': None}"}}</tool_call>"#;
    assert_eq!(
        released(Dialect::Hermes, raw),
        [r#"{"path": "a", "meta": {"z":1,"a":null}}"#]
    );
}

#[test]
fn arguments_that_are_not_an_object_map_in_the_order_written() {
    // Command-line text: the flags' order, then positionals.
    let raw = r#"<tool_call>{"name": "write_file", "arguments": "write_file --path a.txt --limit 10 --content hi"}</tool_call>"#;
    assert_eq!(
        released(Dialect::Hermes, raw),
        [r#"{"path":"a.txt","limit":10,"content":"hi"}"#]
    );
    // A whole object encoded in a string is the object as written.
    let raw = r#"<tool_call>{"name": "write_file", "arguments": "{\"path\": \"a\", \"meta\": {\"z\": 1, \"a\": 2}}"}</tool_call>"#;
    assert_eq!(
        released(Dialect::Hermes, raw),
        [r#"{"path": "a", "meta": {"z": 1, "a": 2}}"#]
    );
}

#[test]
fn xml_parameters_keep_the_order_written() {
    let raw = "<tool_call>\n<function=write_file>\n<parameter=tags>\n['b', 'a']\n</parameter>\n\
               <parameter=path>\na.txt\n</parameter>\n<parameter=meta>\n{\"z\": 1, \"a\": {\"y\": 2, \"b\": 3}}\n</parameter>\n\
               <parameter=opts>\n{'zeta': '7', 'alpha': 'true'}\n</parameter>\n</function>\n</tool_call>";
    assert_eq!(
        released(Dialect::Qwen3Coder, raw),
        [
            r#"{"tags": ["b","a"], "path": "a.txt", "meta": {"z":1,"a":{"y":2,"b":3}}, "opts": {"zeta":7,"alpha":true}}"#
        ]
    );
}

#[test]
fn xml_wrapped_arguments_keep_the_order_written() {
    let raw = "<tool_call>\n<function=write_file>\n<parameter=arguments>\n{\"path\": \"a.txt\", \"content\": \"hi\", \"limit\": 2}\n</parameter>\n</function>\n</tool_call>";
    assert_eq!(
        released(Dialect::Qwen3Coder, raw),
        [r#"{"path": "a.txt", "content": "hi", "limit": 2}"#]
    );
}

#[test]
fn parameters_as_elements_keep_the_order_written() {
    let ns = "]<]minimax[>[";
    let raw = format!(
        "{ns}<tool_call>\n{ns}<invoke name=\"write_file\">\n{ns}<path>a.txt{ns}</path>\n\
         {ns}<tags>\n{ns}<item>b{ns}</item>\n{ns}<item>a{ns}</item>\n{ns}</tags>\n\
         {ns}<meta>\n{ns}<z>1{ns}</z>\n{ns}<a>2{ns}</a>\n{ns}</meta>\n{ns}<limit>4{ns}</limit>\n\
         {ns}</invoke>\n{ns}</tool_call>"
    );
    assert_eq!(
        released(Dialect::MinimaxM3, &raw),
        // `meta`'s members have no schema: typed by what they read as, as without tools.
        [r#"{"path": "a.txt", "tags": ["b","a"], "meta": {"z":1,"a":2}, "limit": 4}"#]
    );
}

#[test]
fn python_calls_keep_the_order_written_and_the_declared_order() {
    // Positional arguments take the parameters in declaration order (path, content),
    // not the sorted one (content, path).
    assert_eq!(
        released(Dialect::Pythonic, "[write_file('a.txt', 'hi', limit=2)]"),
        [r#"{"path":"a.txt", "content":"hi", "limit":2}"#]
    );
    assert_eq!(
        released(
            Dialect::Pythonic,
            "[write_file(tags=['b'], path='a', meta={'z': 1, 'a': 2})]"
        ),
        [r#"{"tags":["b"], "path":"a", "meta":{"z": 1, "a": 2}}"#]
    );
}

#[test]
fn validation_feedback_lists_members_in_the_order_written() {
    let raw = r#"<tool_call>{"name": "write_file", "arguments": {"path": "a", "tags": {"z": [1], "a": [2]}, "limit": "many"}}</tool_call>"#;
    let (_, feedback) = run(Dialect::Hermes, raw);
    assert_eq!(
        feedback,
        ["write_file: /tags: expected array, got object; /limit: expected integer, got string"]
    );
}

/// The declared order of a tool built from a `serde_json::Value` is the order its maps
/// iterate in: known only where serde_json keeps insertion order. Without it a
/// positional argument is not guessed onto a parameter.
#[test]
fn positional_arguments_need_the_declared_order() {
    let parameters = serde_json::json!({
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path"]
    });
    let keeps_order = parameters["properties"]
        .as_object()
        .unwrap()
        .keys()
        .next()
        .is_some_and(|k| k == "path");
    let mut config = Config::new(Dialect::Pythonic);
    let tools = serde_json::json!([{"name": "write_file", "parameters": parameters}]);
    config.tools = Arc::new(Tools::from_value(&tools).unwrap());
    let events = support::run_cuts(
        &config,
        b"[write_file('a.txt', 'hi')]",
        &[],
        StopReason::Stop,
    );
    let arguments: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            OwnedEvent::CallFinished { arguments, .. } => Some(arguments.as_str()),
            _ => None,
        })
        .collect();
    let expected = if keeps_order {
        r#"{"path":"a.txt", "content":"hi"}"#
    } else {
        r#"{"arg0":"a.txt", "arg1":"hi"}"#
    };
    assert_eq!(arguments, [expected]);
}
