//! The standalone repair API against the rule table (docs/repairs.md).

use toolsift::repair;

macro_rules! t {
    ($input:expr, $want:expr, [$($r:literal),*]) => {{
        let got = repair($input.as_bytes()).unwrap_or_else(|e| panic!("{:?}: {e}", $input));
        assert_eq!(got.json, $want, "input {:?}", $input);
        let names: Vec<&str> = got.repairs.names().collect();
        let want: Vec<&str> = vec![$($r),*];
        assert_eq!(names, want, "repairs for {:?}", $input);
    }};
}

#[test]
fn valid_json_passes_byte_identical() {
    for v in [
        r#"{"a":2.3e100,"b":"str","c":null,"d":false,"e":[1,2,3]}"#,
        "  { \n } \t ",
        r#"{"a": "x\"y\\z", "n": 12345678901234567890, "e": 1e400}"#,
        r#"[1, -0, 0.5, -1.5e-3, "\u00e9\ud83d\ude00", {"k": []}]"#,
        r#""just a string""#,
        "123",
        "true",
        r#"{"html": "<meta charset=\"UTF-8\">"}"#,
        "{\"unicode\": \"日本語 ✓\"}",
    ] {
        t!(v, v, []);
    }
}

#[test]
fn form_feeds_around_a_value_are_dropped() {
    // ASCII whitespace, but not JSON's: the value is kept, the form feeds go.
    t!("\x0c{}", "{}", ["special_whitespace"]);
    t!(" {\"a\": 1}\x0c\n", " {\"a\": 1}\n", ["special_whitespace"]);
}

#[test]
fn the_probe_table() {
    t!("{'a': 'b'}", r#"{"a": "b"}"#, ["single_quoted_string"]);
    t!(
        r#"{a: 1, b_2: "x"}"#,
        r#"{"a": 1, "b_2": "x"}"#,
        ["unquoted_key"]
    );
    t!(
        r#"{"a": [1, 2,], "b": 3,}"#,
        r#"{"a": [1, 2], "b": 3}"#,
        ["trailing_comma"]
    );
    t!(
        "{\"a\": 1, /* block */ \"b\": 2 // line\n}",
        "{\"a\": 1,  \"b\": 2 \n}",
        ["comment"]
    );
    t!(
        r#"{"a": [1, {"b": 2"#,
        r#"{"a": [1, {"b": 2}]}"#,
        ["missing_closers"]
    );
    t!(
        r#"{"a": "hello wor"#,
        r#"{"a": "hello wor"}"#,
        ["missing_closers"]
    );
    t!(
        "{\"a\": \"line1\nline2\tend\"}",
        r#"{"a": "line1\nline2\tend"}"#,
        ["control_character"]
    );
    t!(
        r#"{"a": "say "hi" now", "b": 1}"#,
        r#"{"a": "say \"hi\" now", "b": 1}"#,
        ["unescaped_quote"]
    );
    t!(
        r#"{"path": "C:\dir\new", "re": "\d+"}"#,
        r#"{"path": "C:\\dir\new", "re": "\\d+"}"#,
        ["invalid_escape"]
    );
    t!(
        r#"{"a": True, "b": False, "c": None}"#,
        r#"{"a": true, "b": false, "c": null}"#,
        ["python_literal"]
    );
    t!(
        r#"{"a": NaN, "b": Infinity}"#,
        r#"{"a": null, "b": null}"#,
        ["non_finite_number"]
    );
    t!("{“a”: “b”}", r#"{"a": "b"}"#, ["curly_quoted_string"]);
    t!(
        "```json\n{\"a\": 1}\n```",
        "{\"a\": 1}\n",
        ["markdown_fence"]
    );
    t!(
        r#"Sure! Here it is: {"a": 1} Hope that helps."#,
        r#"{"a": 1} "#,
        ["surrounding_text"]
    );
    t!(
        r#"{a: hello world, b: 2}"#,
        r#"{"a": "hello world", "b": 2}"#,
        ["unquoted_key", "unquoted_string"]
    );
    t!("[1, 2, ...]", "[1, 2 ]", ["trailing_comma", "ellipsis"]);
    t!(
        r#"{"a": 1 "b": [1 2]}"#,
        r#"{"a": 1 ,"b": [1 ,2]}"#,
        ["missing_comma"]
    );
    t!(
        r#"{"a" 1, "b" "c"}"#,
        r#"{"a" :1, "b" :"c"}"#,
        ["missing_colon"]
    );
    t!(
        r#"{"a": [1]]}}"#,
        r#"{"a": [1]}"#,
        ["redundant_closer", "surrounding_text"]
    );
    t!(r#"{"a": 1."#, r#"{"a": 1}"#, ["missing_closers"]);
    t!(r#"{"a": tru"#, r#"{"a": null}"#, ["missing_closers"]);
    t!(
        r#"{"key": "v"alue", "key2": "value2"}"#,
        r#"{"key": "v\"alue", "key2": "value2"}"#,
        ["unescaped_quote"]
    );
    t!(
        r#"{ "height": "(5'3")" }"#,
        r#"{ "height": "(5'3\")" }"#,
        ["unescaped_quote"]
    );
    t!(
        r#"{"text": "do you know about "micheal", jackson"}"#,
        r#"{"text": "do you know about \"micheal\", jackson"}"#,
        ["unescaped_quote"]
    );
}

#[test]
fn json_looking_content_stays_in_the_string() {
    let input = "{\"name\": \"write_file\", \"arguments\": {\"path\": \"a.js\", \"content\": \"const cfg = {\"theme\": \"dark\", \"columns\": 3};\nconsole.log(cfg);\"}}";
    let got = repair(input.as_bytes()).unwrap();
    let v: serde_json::Value = serde_json::from_str(&got.json).unwrap();
    assert_eq!(
        v["arguments"]["content"],
        "const cfg = {\"theme\": \"dark\", \"columns\": 3};\nconsole.log(cfg);"
    );
}

#[test]
fn escapes_and_unicode() {
    t!(r#"["\u12"]"#, r#"["\\u12"]"#, ["invalid_escape"]);
    // A lone surrogate is no character: the escape is the text as written.
    t!(r#"["\ud83d"]"#, r#"["\\ud83d"]"#, ["lone_surrogate"]);
    t!(r#"["\ud83dx"]"#, r#"["\\ud83dx"]"#, ["lone_surrogate"]);
    t!(r#"["\ude00"]"#, r#"["\\ude00"]"#, ["lone_surrogate"]);
    t!(
        r#"["\ud83d\u0041"]"#,
        r#"["\\ud83d\u0041"]"#,
        ["lone_surrogate"]
    );
    t!("[\"a\u{1}b\"]", r#"["a\u0001b"]"#, ["control_character"]);
    // A tab inside an unquoted word is escaped like any control byte in a string.
    t!("abc\tdef", r#""abc\tdef""#, ["unquoted_string"]);
    t!(
        "{\"a\": x \t y, \"b\": 1}",
        r#"{"a": "x \t y", "b": 1}"#,
        ["unquoted_string"]
    );
    let bad = repair(b"[\"a\xffb\"]").unwrap();
    assert_eq!(bad.json, "[\"a\u{fffd}b\"]");
    assert!(bad.repairs.contains(toolsift::Repair::InvalidUtf8));
}

#[test]
fn numbers() {
    t!(
        "[.5, 1., +3, -.5]",
        "[0.5, 1.0, 3, -0.5]",
        ["number_normalized"]
    );
    t!("[007]", r#"["007"]"#, ["unquoted_string"]);
    t!("[2024-06-27]", r#"["2024-06-27"]"#, ["unquoted_string"]);
}

#[test]
fn closers_that_close_nothing_are_dropped() {
    // Once panicked: a closer matching nothing open, after a held comma.
    t!(
        "{\"a\":2,]}",
        "{\"a\":2}",
        ["trailing_comma", "redundant_closer"]
    );
    t!("[1,}]", "[1]", ["trailing_comma", "redundant_closer"]);
}

#[test]
fn errors_say_why() {
    assert!(repair(b"").is_err());
    assert!(repair(b"   ").is_err());
    let deep = "[".repeat(200);
    let err = repair(deep.as_bytes()).unwrap_err();
    assert_eq!(err.category(), toolsift::Category::Limit);
}

#[test]
fn repairing_the_output_again_changes_nothing() {
    for input in [
        "{'a': 'b', c: [1, 2,], d: True}",
        r#"{"a": "say "hi" now"}"#,
        "{\"a\": \"x\ny\"",
        "[1, 2, ...]",
    ] {
        let once = repair(input.as_bytes()).unwrap().json;
        let twice = repair(once.as_bytes()).unwrap();
        assert_eq!(twice.json, once);
        assert!(twice.repairs.is_empty(), "{input}: {:?}", twice.repairs);
    }
}

#[path = "../benches/support/inputs.rs"]
mod inputs;

/// Issue 35: `toolsift::repair` has no closer, so the end of its input bounds the value:
/// the benchmarks' malformed 19 KB `write_file` body (an HTML page written raw into a
/// string: quotes, newlines, tabs, `\d`), without its tags, comes back with the page
/// exact, not with its own `"}}` read into `content` and closers invented after it.
#[test]
fn repair_is_bounded_by_the_end_of_its_input() {
    let html = inputs::html(19 * 1024, 19);
    let call = inputs::write_file_call_malformed(&html);
    let body = std::str::from_utf8(&call).unwrap();
    let body = body
        .trim_start_matches("<tool_call>\n")
        .trim_end_matches("\n</tool_call>");
    let fixed = repair(body.as_bytes()).unwrap_or_else(|e| panic!("not repaired: {e}"));
    let value: serde_json::Value = serde_json::from_str(&fixed.json).unwrap();
    assert_eq!(value["arguments"]["content"].as_str(), Some(html.as_str()));
    assert_eq!(value["arguments"]["path"], "index.html");
    let names: Vec<&str> = fixed.repairs.names().collect();
    assert!(!names.contains(&"missing_closers"), "{names:?}");
}

/// The end of its input bounds the value: a file whose raw quotes make a reading invent
/// keys (`create_dir("/some/dir")`) and end the object at a `}` in the file comes back
/// exactly as written or not at all (an error), never with the file cut there and its
/// rest dropped as surrounding text, in every way of writing its strings.
#[test]
fn text_after_the_value_ending_as_a_string_in_it_would_is_the_values() {
    use toolsift::render::Strings;
    let content = "/// ```no_run\n/// async fn main() -> io::Result<()> {\n///     fs::create_dir(\"/some/dir\").await?;\n///     Ok(())\n/// }\n/// ```\npub async fn create_dir(path: impl AsRef<Path>) -> io::Result<()> {\n    asyncify(move || std::fs::create_dir(path)).await\n}\n";
    let mut wrong = Vec::new();
    for strings in Strings::ALL {
        let mut written = String::new();
        for c in content.chars() {
            match (strings, c) {
                (Strings::Escaped | Strings::RawNewlines, '"' | '\\') => {
                    written.push('\\');
                    written.push(c);
                }
                (Strings::Escaped | Strings::EscapedNewlines, '\n') => written.push_str("\\n"),
                _ => written.push(c),
            }
        }
        let body = format!(r#"{{"path": "a.rs", "content": "{written}"}}"#);
        if let Ok(fixed) = repair(body.as_bytes()) {
            let value: serde_json::Value = serde_json::from_str(&fixed.json).unwrap();
            if value["content"].as_str() != Some(content) || value.as_object().unwrap().len() != 2 {
                wrong.push(format!("{}: {}", strings.name(), fixed.json));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
