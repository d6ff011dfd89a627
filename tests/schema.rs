//! Schema library tests: definitions, matching, raw typing, conformance, validation.

use serde_json::{json, Value};
use toolsift::schema::{feedback_for_errors, ParamType, Tool, Tools, ValidationError};
use toolsift::{Repair, Repairs};

fn set(repairs: &[Repair]) -> Repairs {
    repairs.iter().copied().collect()
}

/// A tool exercising most keywords.
fn tool() -> Tool {
    Tool::new(
        "edit",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "paths": {"type": "array", "items": {"type": "string"}},
                "counts": {"type": "array", "items": {"type": "integer"}},
                "any_list": {"type": "array"},
                "count": {"type": "integer"},
                "ratio": {"type": "number"},
                "force": {"type": "boolean"},
                "opts": {"type": "object", "properties": {"depth": {"type": "integer"}}},
                "mode": {"type": "string", "enum": ["a", "w"]},
                "maybe": {"type": ["string", "null"]},
                "maybe_n": {"anyOf": [{"type": "integer"}, {"type": "null"}]},
                "label": {"type": "string", "nullable": true},
                "edits": {"type": "array", "items": {"$ref": "#/$defs/edit"}},
                "entry": {"$ref": "#/definitions/entry"},
                "anything": {},
                "str_or_list": {"type": ["string", "array"]},
                "str_or_obj": {"anyOf": [{"type": "string"}, {"type": "object"}]}
            },
            "required": ["path"],
            "$defs": {
                "edit": {
                    "type": "object",
                    "properties": {"old": {"type": "string"}, "new": {"type": "string"}, "line": {"type": "integer"}},
                    "required": ["old", "new"],
                    "additionalProperties": false
                }
            },
            "definitions": {"entry": {"type": "object", "properties": {"n": {"type": "number"}}}}
        }),
    )
}

/// Table: (arguments, expected value (`None` = unchanged), expected repairs).
#[test]
fn conform_table() {
    let t = tool();
    use Repair::*;
    let cases: Vec<(Value, Option<Value>, &[Repair])> = vec![
        // Nothing to do.
        (json!({"path": "a"}), None, &[]),
        // A declared string is never reshaped or coerced.
        (json!({"path": "5"}), None, &[]),
        (json!({"path": "[\"a\",\"b\"]"}), None, &[]),
        (json!({"path": "{\"k\": 1}"}), None, &[]),
        (json!({"path": "true"}), None, &[]),
        // Array already an array.
        (json!({"path": "p", "paths": ["a"]}), None, &[]),
        // Unwrap before wrap.
        (
            json!({"path": "p", "paths": "[\"a\",\"b\"]"}),
            Some(json!({"path": "p", "paths": ["a", "b"]})),
            &[StringToArray],
        ),
        (
            json!({"path": "p", "paths": "['a', 'b']"}),
            Some(json!({"path": "p", "paths": ["a", "b"]})),
            &[StringToArray, PythonValue],
        ),
        (
            json!({"path": "p", "counts": "[1, \"2\"]"}),
            Some(json!({"path": "p", "counts": [1, 2]})),
            &[StringToArray, StringToNumber],
        ),
        // Scalar to array.
        (
            json!({"path": "p", "paths": "a"}),
            Some(json!({"path": "p", "paths": ["a"]})),
            &[ScalarToArray],
        ),
        (
            json!({"path": "p", "counts": "7"}),
            Some(json!({"path": "p", "counts": [7]})),
            &[ScalarToArray, StringToNumber],
        ),
        // An encoded array whose items do not fit is not unwrapped (nor wrapped).
        (json!({"path": "p", "counts": "[\"a\",\"b\"]"}), None, &[]),
        // A broken encoded array is not wrapped.
        (json!({"path": "p", "paths": "[a, b"}), None, &[]),
        // Not wrapped when the element does not fit.
        (json!({"path": "p", "counts": "x"}), None, &[]),
        // One-entry object to array.
        (
            json!({"path": "p", "paths": {"file": "a"}}),
            Some(json!({"path": "p", "paths": ["a"]})),
            &[ObjectToArray],
        ),
        (
            json!({"path": "p", "paths": {"items": ["a", "b"]}}),
            Some(json!({"path": "p", "paths": ["a", "b"]})),
            &[ObjectToArray],
        ),
        (
            json!({"path": "p", "paths": {"a": "x", "b": "y"}}),
            None,
            &[],
        ),
        (
            json!({"path": "p", "edits": {"old": "x", "new": "y"}}),
            Some(json!({"path": "p", "edits": [{"old": "x", "new": "y"}]})),
            &[ObjectToArray],
        ),
        // Null dropped for non-nullable scalars only.
        (
            json!({"path": "p", "count": null}),
            Some(json!({"path": "p"})),
            &[NullDropped],
        ),
        (
            json!({"path": "p", "maybe": null, "maybe_n": null, "label": null}),
            None,
            &[],
        ),
        (json!({"path": "p", "paths": null}), None, &[]),
        (json!({"path": "p", "anything": null}), None, &[]),
        // String to object.
        (
            json!({"path": "p", "opts": "{\"depth\": 2}"}),
            Some(json!({"path": "p", "opts": {"depth": 2}})),
            &[StringToObject],
        ),
        (
            json!({"path": "p", "opts": "{'depth': '3'}"}),
            Some(json!({"path": "p", "opts": {"depth": 3}})),
            &[StringToObject, PythonValue, StringToNumber],
        ),
        (json!({"path": "p", "opts": "nope"}), None, &[]),
        // Scalar coercion.
        (
            json!({"path": "p", "count": "5"}),
            Some(json!({"path": "p", "count": 5})),
            &[StringToNumber],
        ),
        (
            json!({"path": "p", "count": "5.0"}),
            Some(json!({"path": "p", "count": 5})),
            &[StringToNumber],
        ),
        (json!({"path": "p", "count": "5.5"}), None, &[]),
        (
            json!({"path": "p", "ratio": "-2.5"}),
            Some(json!({"path": "p", "ratio": -2.5})),
            &[StringToNumber],
        ),
        (
            json!({"path": "p", "force": "False"}),
            Some(json!({"path": "p", "force": false})),
            &[StringToBoolean],
        ),
        (
            json!({"path": "p", "force": "yes"}),
            Some(json!({"path": "p", "force": true})),
            &[StringToBoolean],
        ),
        (json!({"path": "p", "force": "maybe"}), None, &[]),
        (
            json!({"path": 5}),
            Some(json!({"path": "5"})),
            &[ScalarToString],
        ),
        (
            json!({"path": true}),
            Some(json!({"path": "true"})),
            &[ScalarToString],
        ),
        (
            json!({"path": "p", "maybe_n": "4"}),
            Some(json!({"path": "p", "maybe_n": 4})),
            &[StringToNumber],
        ),
        // Undeclared and any-typed values are left alone.
        (
            json!({"path": "p", "other": "5", "anything": "[1]"}),
            None,
            &[],
        ),
        // Nested by $ref / definitions.
        (
            json!({"path": "p", "edits": [{"old": "a", "new": "b", "line": "3"}]}),
            Some(json!({"path": "p", "edits": [{"old": "a", "new": "b", "line": 3}]})),
            &[StringToNumber],
        ),
        (
            json!({"path": "p", "entry": {"n": "1e3"}}),
            Some(json!({"path": "p", "entry": {"n": 1e3}})),
            &[StringToNumber],
        ),
        // Key order is kept.
        (
            json!({"count": "1", "path": "p", "force": "true"}),
            Some(json!({"count": 1, "path": "p", "force": true})),
            &[StringToNumber, StringToBoolean],
        ),
    ];
    for (args, expected, repairs) in cases {
        let got = t.conform(&args);
        assert_eq!(got.value, expected, "value for {args}");
        assert_eq!(got.repairs, set(repairs), "repairs for {args}");
        if let Some(v) = &got.value {
            let a = serde_json::to_string(v).unwrap();
            let b = serde_json::to_string(expected.as_ref().unwrap()).unwrap();
            assert_eq!(a, b, "key order for {args}");
        }
    }
}

#[test]
fn conform_is_idempotent() {
    let t = tool();
    let inputs = [
        json!({"path": 5, "paths": "[\"a\"]", "counts": "3", "count": null, "force": "no"}),
        json!({"path": "p", "opts": "{'depth': '3'}", "edits": {"old": "x", "new": "y", "line": "2"}}),
        json!({"path": "p", "paths": {"only": "x"}, "ratio": "1e3", "maybe_n": "7"}),
        json!("main.go"),
    ];
    for args in inputs {
        let first = t.conform(&args);
        let repaired = first.value.clone().unwrap_or(args.clone());
        let text = serde_json::to_string(&repaired).unwrap();
        let again: Value = serde_json::from_str(&text).unwrap();
        let second = t.conform(&again);
        assert!(!first.repairs.is_empty(), "{args} should need repair");
        assert_eq!(second.value, None, "second pass changed {args}");
        assert_eq!(second.repairs, Repairs::NONE, "second pass repaired {args}");
    }
}

/// The hard property: a value declared string is never reshaped.
#[test]
fn json_looking_strings_pass_through_untouched() {
    let t = tool();
    let mut samples: Vec<String> = Vec::new();
    let atoms = [
        "1", "-2.5", "1e3", "true", "False", "None", "null", "\"x\"", "'y'", "[]", "{}",
    ];
    for a in atoms {
        for b in atoms {
            samples.push(format!("[{a}, {b}]"));
            samples.push(format!("{{\"k\": {a}, \"j\": {b}}}"));
            samples.push(format!("{{'k': {a}}}"));
            samples.push(format!("({a}, {b})"));
            samples.push(format!(" {a} "));
            samples.push(format!("[[{a}], {{\"z\": [{b}]}}]"));
        }
    }
    assert!(samples.len() > 500);
    for s in &samples {
        for key in [
            "path",
            "maybe",
            "label",
            "mode",
            "str_or_list",
            "str_or_obj",
        ] {
            let args = json!({"path": "p", key: s});
            let got = t.conform(&args);
            assert_eq!(got.value, None, "{key} = {s:?} was changed");
            assert_eq!(got.repairs, Repairs::NONE, "{key} = {s:?} was repaired");
        }
        let (typed, repairs) = t.type_raw_value("path", s);
        assert_eq!(typed, serde_json::to_string(s).unwrap());
        assert_eq!(repairs, Repairs::NONE);
    }
}

#[test]
fn definitions_in_three_formats() {
    let params =
        json!({"type": "object", "properties": {"file": {"type": "string"}}, "required": ["file"]});
    let openai =
        json!([{"type": "function", "function": {"name": "read_file", "parameters": params}}]);
    let bare = json!([{"name": "read_file", "parameters": params}]);
    let anthropic = json!({"tools": [{"name": "read_file", "input_schema": params}]});
    for defs in [openai, bare, anthropic] {
        let tools = Tools::from_value(&defs).unwrap();
        assert_eq!(tools.names(), vec!["read_file"], "{defs}");
        let t = tools.get("read_file").unwrap();
        assert_eq!(t.parameters(), &params);
        assert_eq!(t.declares("file"), Some(true));
        assert_eq!(t.declares("nope"), Some(false));
        assert_eq!(t.param_type("file"), ParamType::String);
        let text = serde_json::to_vec(&defs).unwrap();
        assert_eq!(Tools::from_json(&text).unwrap().names(), vec!["read_file"]);
    }
    assert!(Tools::from_value(&json!({"x": 1})).is_err());
    assert!(Tools::from_value(&json!([{"parameters": {}}])).is_err());
    let none = Tools::from_value(&json!([{"name": "ping"}])).unwrap();
    assert_eq!(none.get("ping").unwrap().declares("x"), None);
}

#[test]
fn param_types() {
    let t = tool();
    let cases = [
        ("path", ParamType::String),
        ("maybe", ParamType::String),
        ("label", ParamType::String),
        ("maybe_n", ParamType::Integer),
        ("count", ParamType::Integer),
        ("ratio", ParamType::Number),
        ("force", ParamType::Boolean),
        ("paths", ParamType::Array),
        ("edits", ParamType::Array),
        ("entry", ParamType::Object),
        ("anything", ParamType::Any),
        ("undeclared", ParamType::Any),
    ];
    for (key, expected) in cases {
        assert_eq!(t.param_type(key), expected, "{key}");
    }
    let u = Tool::new(
        "u",
        json!({"properties": {"x": {"type": ["string", "integer"]}, "y": {"oneOf": [{"type": "string"}, {"type": "number"}]}}}),
    );
    assert_eq!(u.param_type("x"), ParamType::Any);
    assert_eq!(u.param_type("y"), ParamType::Any);
}

#[test]
fn raw_values() {
    let t = tool();
    use Repair::*;
    let cases: &[(&str, &str, &str, &[Repair])] = &[
        ("path", "5", "\"5\"", &[]),
        ("path", "line\n  two", "\"line\\n  two\"", &[]),
        ("count", " 5 ", "5", &[TypedValue]),
        ("count", "5.0", "5", &[TypedValue]),
        ("count", "five", "\"five\"", &[]),
        ("ratio", "-2.5", "-2.5", &[TypedValue]),
        ("ratio", "1e3", "1000.0", &[TypedValue]),
        ("force", "True", "true", &[TypedValue]),
        ("force", "no", "false", &[TypedValue]),
        ("force", "1", "true", &[TypedValue]),
        ("force", "perhaps", "\"perhaps\"", &[]),
        ("maybe_n", "None", "null", &[TypedValue]),
        ("maybe_n", "12", "12", &[TypedValue]),
        ("maybe", "None", "\"None\"", &[]),
        ("paths", "[\"a\", \"b\"]", "[\"a\",\"b\"]", &[TypedValue]),
        (
            "paths",
            "['a', 'b']",
            "[\"a\",\"b\"]",
            &[PythonValue, TypedValue],
        ),
        (
            "paths",
            "('a', 'b')",
            "[\"a\",\"b\"]",
            &[PythonValue, TypedValue],
        ),
        (
            "paths",
            "main.go",
            "[\"main.go\"]",
            &[ScalarToArray, TypedValue],
        ),
        ("paths", "['a', ", "\"['a', \"", &[]),
        (
            "counts",
            "3",
            "[3]",
            &[ScalarToArray, StringToNumber, TypedValue],
        ),
        (
            "opts",
            "{'depth': 2}",
            "{\"depth\":2}",
            &[PythonValue, TypedValue],
        ),
        (
            "opts",
            "{\"depth\": \"2\"}",
            "{\"depth\":2}",
            &[StringToNumber, TypedValue],
        ),
        ("opts", "plain", "\"plain\"", &[]),
        ("anything", "[1, 2]", "[1,2]", &[TypedValue]),
        ("anything", "42", "42", &[TypedValue]),
        ("anything", "hello", "\"hello\"", &[]),
        ("anything", "\"quoted\"", "\"\\\"quoted\\\"\"", &[]),
        ("undeclared", "true", "true", &[TypedValue]),
        ("undeclared", "{'a': 1}", "\"{'a': 1}\"", &[]),
    ];
    for (key, raw, json_text, repairs) in cases {
        let (got, got_repairs) = t.type_raw_value(key, raw);
        assert_eq!(&got, json_text, "{key} = {raw:?}");
        assert_eq!(got_repairs, set(repairs), "repairs for {key} = {raw:?}");
    }
}

#[test]
fn name_resolution() {
    let tools = Tools::from_value(&json!([
        {"name": "read_file", "parameters": {}},
        {"name": "write_file", "parameters": {}},
        {"name": "list", "parameters": {}},
        {"name": "List", "parameters": {}}
    ]))
    .unwrap();
    let mut case = Repairs::NONE;
    case.insert(Repair::ToolNameCase);
    let cases: &[(&str, Option<(&str, Repairs)>)] = &[
        ("read_file", Some(("read_file", Repairs::NONE))),
        ("Read_File", Some(("read_file", case))),
        ("read-file", Some(("read_file", case))),
        ("readFile", Some(("read_file", case))),
        ("READ.FILE", Some(("read_file", case))),
        ("read file", Some(("read_file", case))),
        ("List", Some(("List", Repairs::NONE))),
        ("LIST", None),
        ("reed_file", None),
        ("read", None),
    ];
    for (name, expected) in cases {
        let got = tools.resolve(name).map(|(t, r)| (t.name(), r));
        assert_eq!(got, *expected, "{name}");
    }
    assert_eq!(
        tools.unknown_tool_feedback("reed_file"),
        "unknown tool \"reed_file\"; declared tools: read_file, write_file, list, List"
    );
    assert_eq!(
        Tools::new().unknown_tool_feedback("x"),
        "unknown tool \"x\"; no tools are declared"
    );
}

#[test]
fn inference() {
    let tools = Tools::from_value(&json!([
        {"name": "read_file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
        {"name": "write_file", "parameters": {"type": "object", "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}},
        {"name": "search", "parameters": {"type": "object", "properties": {"query": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["query"]}},
        {"name": "find", "parameters": {"type": "object", "properties": {"query": {"type": "string"}, "dir": {"type": "string"}}, "required": ["query"]}}
    ]))
    .unwrap();
    let cases: &[(Value, Option<&str>)] = &[
        (json!({"path": "a"}), Some("read_file")),
        (json!({"path": "a", "content": "x"}), Some("write_file")),
        (json!({"query": "q", "limit": 3}), Some("search")),
        (json!({"query": "q", "dir": "."}), Some("find")),
        (json!({"query": "q"}), None),
        (json!({"content": "x"}), None),
        (json!({"path": "a", "bogus": 1}), None),
        (json!({}), None),
        (json!("a"), None),
    ];
    for (args, expected) in cases {
        assert_eq!(tools.infer(args).map(Tool::name), *expected, "{args}");
    }
}

#[test]
fn bare_and_command_line_arguments() {
    let one = Tool::new(
        "read_file",
        json!({"type": "object", "properties": {"file": {"type": "string"}}, "required": ["file"]}),
    );
    let one_req = Tool::new(
        "cat",
        json!({"type": "object", "properties": {"file": {"type": "string"}, "lines": {"type": "integer"}}, "required": ["file"]}),
    );
    let list = Tool::new(
        "ls",
        json!({"type": "object", "properties": {"files": {"type": "array", "items": {"type": "string"}}}}),
    );
    let shell = Tool::new(
        "run",
        json!({"type": "object", "properties": {"command": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["command"]}),
    );
    let cli = Tool::new(
        "read_file",
        json!({
            "type": "object",
            "properties": {
                "file": {"type": "string"},
                "limit": {"type": "integer"},
                "follow_links": {"type": "boolean"},
                "exclude": {"type": "array", "items": {"type": "string"}},
                "mode": {"type": "string"}
            },
            "required": ["file", "mode"]
        }),
    );
    use Repair::*;
    let cases: Vec<(&Tool, Value, Option<Value>, &[Repair])> = vec![
        (
            &one,
            json!("main.go"),
            Some(json!({"file": "main.go"})),
            &[BareArguments],
        ),
        (
            &one,
            json!(5),
            Some(json!({"file": "5"})),
            &[BareArguments, ScalarToString],
        ),
        (&one, json!(["a"]), None, &[]),
        (
            &shell,
            json!("ls -l --color"),
            Some(json!({"command": "ls -l --color"})),
            &[BareArguments],
        ),
        (
            &shell,
            json!("--command 'ls -l' --limit 3"),
            Some(json!({"command": "ls -l", "limit": 3})),
            &[CommandLineArguments, StringToNumber],
        ),
        (
            &shell,
            json!("tail --limit"),
            Some(json!({"command": "tail --limit"})),
            &[BareArguments],
        ),
        (
            &list,
            json!(["a", "b"]),
            Some(json!({"files": ["a", "b"]})),
            &[BareArguments],
        ),
        (
            &list,
            json!("a"),
            Some(json!({"files": ["a"]})),
            &[BareArguments, ScalarToArray],
        ),
        (
            &one_req,
            json!("main.go"),
            Some(json!({"file": "main.go"})),
            &[BareArguments],
        ),
        (
            &one_req,
            json!("--file a.txt --lines 5"),
            Some(json!({"file": "a.txt", "lines": 5})),
            &[CommandLineArguments, StringToNumber],
        ),
        (
            &one,
            json!("{\"file\": \"x\"}"),
            Some(json!({"file": "x"})),
            &[StringToObject],
        ),
        (
            &cli,
            json!("read --file main.go --limit=5 -m r"),
            Some(json!({"file": "main.go", "limit": 5, "mode": "r"})),
            &[CommandLineArguments, StringToNumber],
        ),
        (
            &cli,
            json!("main.go r --follow-links"),
            Some(json!({"follow_links": true, "file": "main.go", "mode": "r"})),
            &[CommandLineArguments],
        ),
        (
            &cli,
            json!("--FOLLOW_LINKS false a b"),
            Some(json!({"follow_links": false, "file": "a", "mode": "b"})),
            &[CommandLineArguments, StringToBoolean],
        ),
        (
            &cli,
            json!("a b --exclude x --exclude 'y z'"),
            Some(json!({"exclude": ["x", "y z"], "file": "a", "mode": "b"})),
            &[CommandLineArguments],
        ),
        (
            &cli,
            json!("a b --exclude x"),
            Some(json!({"exclude": ["x"], "file": "a", "mode": "b"})),
            &[CommandLineArguments, ScalarToArray],
        ),
        // Undecidable: unknown flag, too many positionals, a flag missing its value, open quote.
        (&cli, json!("--bogus 1 a b"), None, &[]),
        (&cli, json!("a b c"), None, &[]),
        (&cli, json!("a b --limit"), None, &[]),
        (&cli, json!("'a b"), None, &[]),
        (&cli, json!(5), None, &[]),
        (&cli, Value::Null, None, &[]),
    ];
    for (t, args, expected, repairs) in cases {
        let got = t.conform(&args);
        assert_eq!(got.value, expected, "value for {args}");
        assert_eq!(got.repairs, set(repairs), "repairs for {args}");
    }
}

#[test]
fn hoisting() {
    let t = Tool::new(
        "edit_file",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "edits": {"type": "array", "items": {"type": "object", "properties": {"old": {"type": "string"}, "new": {"type": "string"}}}},
                "notes": {"type": "array", "items": {"type": "object", "properties": {"path": {"type": "string"}}}}
            },
            "required": ["path", "edits"]
        }),
    );
    use Repair::*;
    let cases: Vec<(Value, Option<Value>, &[Repair])> = vec![
        (
            json!({"edits": [{"path": "a.go", "old": "x", "new": "y"}, {"old": "p", "new": "q", "path": "a.go"}]}),
            Some(
                json!({"edits": [{"old": "x", "new": "y"}, {"old": "p", "new": "q"}], "path": "a.go"}),
            ),
            &[HoistedParameter],
        ),
        // Items disagree.
        (
            json!({"edits": [{"path": "a.go", "old": "x", "new": "y"}, {"path": "b.go", "old": "p", "new": "q"}]}),
            None,
            &[],
        ),
        // Not every item has it.
        (
            json!({"edits": [{"path": "a.go", "old": "x", "new": "y"}, {"old": "p", "new": "q"}]}),
            None,
            &[],
        ),
        // The item schema declares the key.
        (json!({"edits": [], "notes": [{"path": "a.go"}]}), None, &[]),
        // Not a scalar.
        (
            json!({"edits": [{"path": ["a.go"], "old": "x", "new": "y"}]}),
            None,
            &[],
        ),
        // Already present at top level.
        (
            json!({"path": "b", "edits": [{"path": "a.go", "old": "x", "new": "y"}]}),
            None,
            &[],
        ),
    ];
    for (args, expected, repairs) in cases {
        let got = t.conform(&args);
        assert_eq!(got.value, expected, "value for {args}");
        assert_eq!(got.repairs, set(repairs), "repairs for {args}");
    }
}

#[test]
fn validation_errors_and_feedback() {
    let t = Tool::new(
        "write_file",
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "mode": {"enum": ["a", "w"]},
                "edits": {"type": "array", "items": {"$ref": "#/$defs/edit"}},
                "tag": {"anyOf": [{"type": "string"}, {"type": "null"}]}
            },
            "required": ["path"],
            "additionalProperties": false,
            "$defs": {"edit": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}
        }),
    );
    let cases: Vec<(Value, Vec<&str>)> = vec![
        (json!({"path": "a", "mode": "w", "tag": null}), vec![]),
        (
            json!({"mode": "x"}),
            vec![
                "missing required parameter \"path\"",
                "/mode: expected one of \"a\", \"w\"",
            ],
        ),
        (
            json!({"path": "a", "extra": 1}),
            vec!["unexpected parameter \"extra\""],
        ),
        (
            json!({"path": "a", "edits": [{"path": "x"}, {"path": [1]}]}),
            vec!["/edits/1/path: expected string, got array"],
        ),
        (
            json!({"path": "a", "edits": [{}]}),
            vec!["/edits/0: missing required key \"path\""],
        ),
        (
            json!({"path": "a", "tag": [1]}),
            vec!["/tag: expected string or null, got array"],
        ),
        (json!([1]), vec!["expected object, got array"]),
    ];
    for (args, expected) in cases {
        let conformed = t.conform(&args);
        let got: Vec<String> = conformed.errors.iter().map(ToString::to_string).collect();
        assert_eq!(got, expected, "{args}");
        assert_eq!(
            t.validate(conformed.value.as_ref().unwrap_or(&args)),
            conformed.errors
        );
    }
    let errors = t.conform(&json!({"mode": "x"})).errors;
    assert_eq!(
        feedback_for_errors("write_file", &errors),
        "write_file: missing required parameter \"path\"; /mode: expected one of \"a\", \"w\""
    );
    let e = ValidationError {
        path: "/a~1b".into(),
        message: "expected string, got number".into(),
    };
    assert_eq!(e.to_string(), "/a~1b: expected string, got number");
}

#[test]
fn ref_cycles_and_unknown_keywords() {
    let t = Tool::new(
        "tree",
        json!({
            "$ref": "#/$defs/node",
            "$defs": {
                "node": {
                    "type": "object",
                    "x-vendor": {"whatever": true},
                    "properties": {"name": {"type": "string", "format": "uri"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
                    "required": ["name"]
                },
                "loop": {"$ref": "#/$defs/loop"}
            },
            "properties": {"ignored": {}}
        }),
    );
    let args = json!({"name": 1, "kids": [{"name": "a", "kids": {"name": 2}}]});
    let got = t.conform(&args);
    assert_eq!(
        got.value,
        Some(json!({"name": "1", "kids": [{"name": "a", "kids": [{"name": "2"}]}]}))
    );
    assert_eq!(
        got.repairs,
        set(&[Repair::ScalarToString, Repair::ObjectToArray])
    );
    assert!(got.errors.is_empty(), "{:?}", got.errors);
    let looped = Tool::new(
        "l",
        json!({"properties": {"x": {"$ref": "#/$defs/a"}}, "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"anyOf": [{"$ref": "#/$defs/a"}]}}}),
    );
    assert_eq!(looped.param_type("x"), ParamType::Any);
    assert_eq!(looped.conform(&json!({"x": "5"})).value, None);
}

/// Every (parameter, value) pair from a grid: a second conform pass changes nothing,
/// and a repaired value has no more errors than the original.
#[test]
fn conform_grid_is_idempotent_and_never_worse() {
    let t = tool();
    let keys: Vec<String> = t.parameters()["properties"]
        .as_object()
        .unwrap()
        .keys()
        .cloned()
        .chain(["undeclared".to_owned()])
        .collect();
    let values = [
        json!(null),
        json!(true),
        json!(0),
        json!(5),
        json!(-2.5),
        json!("5"),
        json!("5.0"),
        json!("yes"),
        json!("False"),
        json!("a"),
        json!(""),
        json!("[\"a\",\"b\"]"),
        json!("['a', 1]"),
        json!("[1, \"2\"]"),
        json!("{\"depth\": \"2\"}"),
        json!("{'n': None}"),
        json!("[broken"),
        json!([]),
        json!(["a", 1]),
        json!([["x"]]),
        json!({}),
        json!({"only": "x"}),
        json!({"only": ["x"]}),
        json!({"old": "o", "new": "n"}),
        json!({"depth": "3"}),
        json!({"a": 1, "b": 2}),
        json!([{"old": "o", "new": "n", "line": "1"}]),
    ];
    for key in &keys {
        for v in &values {
            let args = json!({"path": "p", key.as_str(): v});
            let first = t.conform(&args);
            let repaired = first.value.clone().unwrap_or_else(|| args.clone());
            let second = t.conform(&repaired);
            assert_eq!(
                second.value, None,
                "second pass changed {args} -> {repaired}"
            );
            assert_eq!(second.repairs, Repairs::NONE, "second pass repaired {args}");
            assert_eq!(first.value.is_some(), !first.repairs.is_empty(), "{args}");
            let before = t.validate(&args).len();
            assert!(first.errors.len() <= before, "{args}: {:?}", first.errors);
        }
    }
}
