//! Well-formed calls come back exactly, in every dialect (invariants 0 and 1): one named
//! test for each class of engine bug the round trip of `tests/render.rs` found, first in
//! the dialect it was seen in, then across every dialect and form it applies to,
//! enumerated from `Dialect::ALL` and each dialect's forms, so a dialect added later is
//! covered from its first commit.

mod support;

use serde_json::{json, Value};
use toolsift::render::{Arguments, Call, CallIds, Form, Turn};
use toolsift::{Config, Dialect, OwnedEvent, StopReason, Tools};

/// A released call: name, arguments, id, repair names.
type Released = (String, String, String, Vec<String>);

/// Parse `raw` under `config` whole, byte at a time and in random chunks: the calls
/// released (the same under every chunking), or the first call not released.
fn parse(config: &Config, raw: &str) -> Result<Vec<Released>, String> {
    let raw = raw.as_bytes();
    let mut first: Option<Result<Vec<Released>, String>> = None;
    let chunkings = [
        Vec::new(),
        (1..raw.len()).collect(),
        support::random_cuts(raw.len(), 7, 8),
    ];
    for cuts in chunkings {
        let events = support::run_cuts(config, raw, &cuts, StopReason::Stop);
        let mut out = Ok(Vec::new());
        for event in &events {
            match event {
                OwnedEvent::CallFinished {
                    id,
                    name,
                    arguments,
                    repairs,
                    ..
                } => {
                    if let Ok(calls) = &mut out {
                        calls.push((
                            name.clone(),
                            arguments.clone(),
                            id.clone(),
                            repairs.names().map(str::to_owned).collect(),
                        ));
                    }
                }
                OwnedEvent::CallNotReleased {
                    name,
                    reason,
                    feedback,
                    ..
                } => {
                    out = Err(format!("{name:?} not released: {reason:?}: {feedback}"));
                    break;
                }
                _ => {}
            }
        }
        match &first {
            None => first = Some(out),
            Some(want) => assert_eq!(*want, out, "{}: differs by chunking", show(raw)),
        }
    }
    first.unwrap()
}

fn show(raw: &[u8]) -> String {
    format!("{:?}", String::from_utf8_lossy(raw))
}

/// The tools for one call, each parameter typed by its value in `args`.
fn tools(name: &str, args: &Value) -> Tools {
    fn schema(v: &Value) -> Value {
        match v {
            Value::Null => json!({"type": "null"}),
            Value::Bool(_) => json!({"type": "boolean"}),
            Value::Number(_) => json!({"type": "number"}),
            Value::String(_) => json!({"type": "string"}),
            Value::Array(_) => json!({"type": "array"}),
            Value::Object(m) => json!({
                "type": "object",
                "properties": m.iter().map(|(k, v)| (k.clone(), schema(v))).collect::<serde_json::Map<_, _>>(),
            }),
        }
    }
    Tools::from_value(
        &json!([{"type": "function", "function": {"name": name, "parameters": schema(args)}}]),
    )
    .unwrap()
}

/// Every form of every dialect.
fn every_form() -> impl Iterator<Item = Form> {
    Dialect::ALL.iter().flat_map(|d| d.forms())
}

/// Whether a form's arguments carry their types (so they read back without tools).
fn typed(form: Form) -> bool {
    matches!(
        form.arguments(),
        Arguments::Json
            | Arguments::Python
            | Arguments::Delimited
            | Arguments::Params { typed: true }
    )
}

/// Render one call of `args` (strict JSON) in `form` and parse it back under the named
/// dialect, with the tool declared and (where the form carries types) without: each
/// must release exactly `args`, with no repair. Returns the failures.
fn round_trip(form: Form, name: &str, args: &str) -> Vec<String> {
    let at = format!("{} ({})", form.dialect().name(), form.name());
    let turn = Turn::new().call(Call::new(name, args));
    let rendered = match form
        .dialect()
        .render_with(&turn, &toolsift::render::Style::new().form(form.name()))
    {
        Ok(r) => r,
        Err(e) => return vec![format!("{at}: does not render {args}: {e}")],
    };
    let want: Value = serde_json::from_str(args).unwrap();
    let mut configs = vec![(
        "tools",
        Config::new(form.dialect()).tools(tools(name, &want)),
    )];
    if typed(form) {
        configs.push(("no tools", Config::new(form.dialect())));
    }
    let mut failures = Vec::new();
    for (how, config) in configs {
        let fail = |why: String| format!("{at}, {how}: {} {why}", show(rendered.output.as_bytes()));
        match parse(&config, &rendered.output) {
            Err(e) => failures.push(fail(e)),
            Ok(calls) if calls.len() != 1 => failures.push(fail(format!("{} calls", calls.len()))),
            Ok(calls) => {
                let (got_name, got, _, repairs) = &calls[0];
                let value: Value = serde_json::from_str(got).unwrap();
                if got_name != name || value != want || !repairs.is_empty() {
                    failures.push(fail(format!("released {got_name} {got} {repairs:?}")));
                }
            }
        }
    }
    failures
}

/// Mistral v11 without tools released `{"a": "x", "obj": {"deep": [{"y": "z"}], "b": 1}}`
/// as `{"a": "x\", \"obj\": {\"deep\": [{\"y\": \"z"}` with `unescaped_quote`, and
/// showed `], "b": 1}}` as text (with tools it held the call). The look-ahead deciding
/// the quote after `x` read the `[` as the start of the call's terminator
/// `[TOOL_CALLS]` and, when `[{` turned out to begin none, took it as a contradiction
/// instead of reading it as the array it is. Every `[` after a string in a call was
/// misread so: the cause of the Mistral and Phi-4-mini failures of the round trip.
#[test]
fn mistral_v11_an_array_after_a_string_is_an_array() {
    let obj = r#"{"a": "x", "obj": {"deep": [{"y": "z"}], "b": 1}}"#;
    let v11 = format!("[TOOL_CALLS]f[ARGS]{obj}");
    let pre_v11 = format!(r#"[TOOL_CALLS] [{{"name": "f", "arguments": {obj}}}]"#);
    for raw in [v11, pre_v11] {
        let tools = tools("f", &serde_json::from_str(obj).unwrap());
        for config in [
            Config::new(Dialect::Mistral),
            Config::new(Dialect::Mistral).tools(tools),
        ] {
            let calls = parse(&config, &raw).unwrap_or_else(|e| panic!("{raw}: {e}"));
            assert_eq!(calls.len(), 1, "{raw}");
            assert_eq!(calls[0].1, obj, "{raw}");
            assert!(calls[0].3.is_empty(), "{raw}: {:?}", calls[0].3);
        }
    }
}

/// The class: a byte of structure that begins a terminator of the call (Mistral's `[`,
/// MiniMax's, any dialect's) is structure when what follows makes it no terminator.
/// Arrays and objects after strings, at every depth, in every form whose arguments are
/// JSON or Python.
#[test]
fn structure_after_a_string_comes_back_in_every_dialect() {
    const ARGS: &[&str] = &[
        r#"{"a": "x", "d": [1]}"#,
        r#"{"a": "x", "obj": {"deep": [{"y": "z"}], "b": 1}}"#,
        r#"{"a": "x", "d": [[2], {"e": "f"}, [], {}], "g": "h", "i": {"j": [{"k": [null]}]}}"#,
        r#"{"list": ["a", ["b", {"c": "d"}], "e"], "n": {"o": "p", "q": [{"r": "s"}, "t"]}}"#,
    ];
    let mut failures = Vec::new();
    let mut forms = 0;
    for form in every_form() {
        if !matches!(form.arguments(), Arguments::Json | Arguments::Python) {
            continue;
        }
        forms += 1;
        for args in ARGS {
            failures.extend(round_trip(form, "write_file", args));
        }
    }
    assert!(forms > 20, "{forms} forms");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Pythonic, Olmo 3, LFM2 and Gemma 3 released `'\x00'` as a backslash, `x00` and
/// `invalid_escape`: the repairer knew only JSON's escapes. In Python arguments,
/// Python's own are read as Python reads them: `\xhh`, `\Uhhhhhhhh`, octal `\ooo`,
/// `\a`, `\v`, `\'` in a `"` string and a line continuation (a backslash before a line
/// break); an escape Python refuses keeps its backslash, as an invalid escape.
#[test]
fn python_escapes_are_read_as_python_reads_them_in_every_python_form() {
    // The renderer writes control characters as `repr` does (`\x00`).
    let written = r#"{"s": "é\u0000\u0001\u001f\u007f\u009f end", "k": {"odd \"q\"": "\u0000"}}"#;
    // Escapes a model writes that `repr` does not: put in place of a rendered value.
    let by_hand: &[(&str, &str)] = &[
        (r"\x41\x7e\xe9", "A~é"),
        (r"\101\0\08\7z", "A\u{0}\u{0}8\u{7}z"),
        (r"\U0001F389 \u00e9", "🎉 é"),
        (r"\a\v\b\f", "\u{7}\u{b}\u{8}\u{c}"),
        (r#"it\'s \"x\""#, "it's \"x\""),
        ("one\\\ntwo", "onetwo"),
    ];
    let mut failures = Vec::new();
    let mut forms = 0;
    for form in every_form() {
        if form.arguments() != Arguments::Python {
            continue;
        }
        forms += 1;
        failures.extend(round_trip(form, "write_file", written));
        let at = format!("{} ({})", form.dialect().name(), form.name());
        let turn = Turn::new().call(Call::new("write_file", r#"{"s": "PLACEHOLDER"}"#));
        let style = toolsift::render::Style::new().form(form.name());
        let rendered = form.dialect().render_with(&turn, &style).unwrap().output;
        for &(escaped, meant) in by_hand {
            // In a `"` string where the form writes one, else in its `'` string.
            let raw = rendered.replace("PLACEHOLDER", escaped);
            let config = Config::new(form.dialect());
            match parse(&config, &raw) {
                Ok(calls) if calls.len() == 1 => {
                    let got: Value = serde_json::from_str(&calls[0].1).unwrap();
                    if got != json!({ "s": meant }) || !calls[0].3.is_empty() {
                        failures.push(format!(
                            "{at}: {raw:?} released {} {:?}",
                            calls[0].1, calls[0].3
                        ));
                    }
                }
                other => failures.push(format!("{at}: {raw:?}: {other:?}")),
            }
        }
    }
    assert!(forms >= 4, "{forms} forms");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// What Python refuses is no escape: the backslash stays text, the repair is named. So
/// is a Python escape in a string that already showed it was written raw (a raw line
/// break, as a file written unescaped shows): the file's own backslash, as JSON's
/// strings read `\'` there.
#[test]
fn python_escapes_python_refuses_keep_their_backslash() {
    let raw = "[f(s='a\nC:\\agents\\01 \\x41')]";
    let calls = parse(&Config::new(Dialect::Pythonic), raw).unwrap();
    let got: Value = serde_json::from_str(&calls[0].1).unwrap();
    assert_eq!(got, json!({ "s": "a\nC:\\agents\\01 \\x41" }), "{raw}");
    assert_eq!(calls[0].3, ["control_character", "invalid_escape"], "{raw}");
    for (escaped, meant) in [
        (r"\x4g", r"\x4g"),
        (r"\x", r"\x"),
        (r"\U0011FFFF", r"\U0011FFFF"),
        (r"\q", r"\q"),
    ] {
        let raw = format!("[f(s='{escaped}')]");
        let calls = parse(&Config::new(Dialect::Pythonic), &raw).unwrap();
        let got: Value = serde_json::from_str(&calls[0].1).unwrap();
        assert_eq!(got, json!({ "s": meant }), "{raw}");
        assert_eq!(calls[0].3, ["invalid_escape"], "{raw}");
    }
}

/// MiniMax M3 released a leaf declared `{"type": "null"}` as the string `"null"`: the
/// elements' leaves were typed as JSON values are conformed (a string is a string),
/// not as the text they are. Every text leaf, at every depth, is now typed by the
/// schema node it stands at as an XML parameter's text is, and where no schema reaches
/// by what it reads as (as without tools). In every form whose values are text.
#[test]
fn text_leaves_are_typed_by_their_schema_at_every_depth_in_every_xml_form() {
    const ARGS: &[&str] = &[
        r#"{"nothing": null, "s": "null", "n": 1.5, "b": false}"#,
        r#"{"obj": {"none": null, "s": "null", "list": [null, "x", 2], "deep": {"t": true}}}"#,
        r#"{"list": [{"k": null}, {"k": "v"}], "after": "null"}"#,
    ];
    let mut failures = Vec::new();
    let mut forms = 0;
    for form in every_form() {
        if !matches!(
            form.arguments(),
            Arguments::Params { .. } | Arguments::Elements
        ) {
            continue;
        }
        forms += 1;
        for args in ARGS {
            failures.extend(round_trip(form, "write_file", args));
        }
    }
    assert!(forms > 10, "{forms} forms");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Mistral before v11 and LFM2's JSON template write a call's id after its arguments
/// (`{"name": "f", "arguments": {...}, "id": "a1b2c3d4e"}`): the call had started with
/// a generated id by then, and the model's was lost (Mistral's template refuses ids that
/// are not 9 letters and digits when the conversation comes back). Such a call now
/// starts once its id is read, or its object ends without one (in an array of calls,
/// where these forms write them, a call is sent whole at its end anyway); an id written
/// before the arguments still lets it start there.
#[test]
fn mistral_pre_v11_ids_after_the_arguments_are_the_calls_ids() {
    let raw = r#"[TOOL_CALLS] [{"name": "f", "arguments": {"a": "x"}, "id": "a1b2c3d4e"}, {"name": "g", "arguments": {}}, {"name": "h", "id": "k9l0m1n2o", "arguments": {"b": 1}}]"#;
    let calls = parse(&Config::new(Dialect::Mistral), raw).unwrap();
    let ids: Vec<&str> = calls.iter().map(|c| c.2.as_str()).collect();
    assert_eq!(ids, ["a1b2c3d4e", "call_1", "k9l0m1n2o"]);
    // One call object, not in an array; in LFM2's JSON form too.
    let raw = r#"[TOOL_CALLS] {"name": "f", "arguments": {"a": [1]}, "id": "a1b2c3d4e"}"#;
    let calls = parse(&Config::new(Dialect::Mistral), raw).unwrap();
    assert_eq!(calls[0].2, "a1b2c3d4e");
    let raw = r#"<|tool_call_start|>[{"name": "f", "arguments": {"a": "x"}, "id": "a1b2c3d4e"}]<|tool_call_end|>"#;
    let calls = parse(&Config::new(Dialect::Lfm2), raw).unwrap();
    assert_eq!(calls[0].2, "a1b2c3d4e");
}

/// The class: in every form that carries the model's ids, every call comes back with
/// its own id, the same in its start and its end, one call or several.
#[test]
fn ids_come_back_in_every_form_that_carries_them() {
    let mut failures = Vec::new();
    let mut forms = 0;
    for form in every_form() {
        if form.ids() != CallIds::Given {
            continue;
        }
        forms += 1;
        let at = format!("{} ({})", form.dialect().name(), form.name());
        let mut calls = vec![(
            "read_file",
            r#"{"path": "a", "n": [1, {"k": "v"}]}"#,
            "a1b2c3d4e",
        )];
        if form.parallel() {
            calls.push(("list_files", "{}", "f5g6h7i8j"));
            calls.push(("get_weather", r#"{"city": "Paris"}"#, "k9l0m1n2o"));
        }
        let mut turn = Turn::new();
        for &(name, args, id) in &calls {
            turn = turn.call(Call::new(name, args).id(id));
        }
        let style = toolsift::render::Style::new().form(form.name());
        let raw = form.dialect().render_with(&turn, &style).unwrap().output;
        for config in [Config::new(form.dialect()), Config::new(Dialect::Auto)] {
            let events = support::run_cuts(&config, raw.as_bytes(), &[], StopReason::Stop);
            let started: Vec<&str> = events
                .iter()
                .filter_map(|e| match e {
                    OwnedEvent::CallStarted { id, .. } => Some(id.as_str()),
                    _ => None,
                })
                .collect();
            let want: Vec<&str> = calls.iter().map(|c| c.2).collect();
            let finished =
                parse(&config, &raw).map(|c| c.into_iter().map(|c| c.2).collect::<Vec<_>>());
            if started != want
                || finished.as_deref()
                    != Ok(&want.iter().map(|s| s.to_string()).collect::<Vec<_>>()[..])
            {
                failures.push(format!(
                    "{at}: {raw:?}: started {started:?}, finished {finished:?}"
                ));
            }
            if form.auto() == toolsift::render::InAuto::No {
                break;
            }
        }
    }
    assert!(forms >= 4, "{forms} forms");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// DeepSeek DSML dropped its tag prefix `｜DSML｜` after every `<` and `</` of a call's
/// body before reading it, values included: a value holding `</｜DSML｜parameter>` as
/// text (a file about DSML, read as content since no parameter followed it) or any
/// `<｜DSML｜...` came back without the prefix. The prefix is now dropped only where the
/// grammar reads structure; a value's bytes are read as written, its tags with or
/// without the prefix.
#[test]
fn deepseek_dsml_a_prefix_in_a_value_is_kept() {
    let raw = "<｜DSML｜function_calls>\n<｜DSML｜invoke name=\"write_file\">\n\
               <｜DSML｜parameter name=\"path\" string=\"true\">a.md</｜DSML｜parameter>\n\
               <｜DSML｜parameter name=\"content\" string=\"true\">x ``</｜DSML｜parameter>`json \
               <｜DSML｜b> ｜DSML｜ </｜DSML｜invoke>z <parameter</｜DSML｜parameter>\n\
               </｜DSML｜invoke>\n</｜DSML｜function_calls>";
    let want = json!({"path": "a.md", "content": "x ``</｜DSML｜parameter>`json <｜DSML｜b> ｜DSML｜ </｜DSML｜invoke>z <parameter"});
    for dialect in [Dialect::DeepseekDsml, Dialect::Auto] {
        let calls = parse(&Config::new(dialect), raw).unwrap();
        assert_eq!(calls.len(), 1);
        assert_eq!(serde_json::from_str::<Value>(&calls[0].1).unwrap(), want);
    }
    // Without the prefix, the same.
    let bare = raw.replace("｜DSML｜", "");
    let calls = parse(&Config::new(Dialect::DeepseekDsml), &bare).unwrap();
    let want =
        json!({"path": "a.md", "content": "x ``</parameter>`json <b>  </invoke>z <parameter"});
    assert_eq!(serde_json::from_str::<Value>(&calls[0].1).unwrap(), want);
}

/// The class: a value holding its own closing tag as text, with text after it (so
/// nothing confirms it as the value's end), comes back as written, with no repair, in
/// every form whose values are text: the closer as the model writes it, as an opening
/// tag, misspelled (`</parameterx>` was read as content but reported
/// `mismatched_tag`), and, where the form writes a tag prefix, without it and with it
/// on another tag. (A value holding the call's own closer is the whole call's to decide,
/// issue 35's readings of XML values: not here.)
#[test]
fn a_values_own_closing_tag_held_as_text_comes_back_in_every_xml_form() {
    let mut failures = Vec::new();
    let mut forms = 0;
    for form in every_form() {
        if !matches!(form.arguments(), Arguments::Params { .. }) {
            continue;
        }
        forms += 1;
        let closer = form.closing_markup()[0];
        let mut texts = vec![closer.to_owned()];
        // A closing tag (Kimi K3's closer is not one): its other spellings too.
        if let Some(name) = closer.strip_prefix("</").and_then(|c| c.strip_suffix('>')) {
            texts.push(format!("<{name}>"));
            texts.push(format!("</{name}x>"));
            texts.push(format!("a </{name}"));
            // A prefix the form writes before its tag names (DSML's `｜DSML｜`).
            if let Some(bar) = name.rfind('｜') {
                let (prefix, bare) = name.split_at(bar + '｜'.len_utf8());
                texts.push(format!("</{bare}>"));
                texts.push(format!("<{prefix}b> {prefix}"));
            }
        }
        for text in texts {
            let content = format!("see {text} here");
            let args = json!({"path": "a.md", "content": content}).to_string();
            failures.extend(round_trip(form, "write_file", &args));
        }
    }
    assert!(forms > 10, "{forms} forms");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
