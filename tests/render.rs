//! Every dialect renders (issue 35), and what it renders parses back exactly.
//!
//! For every dialect of `Dialect::ALL` and every form it writes, turns of well-formed
//! calls (one call; every JSON type with unicode, quotes, backslashes and line breaks;
//! several calls with ids; reasoning, text before and after, the end-of-turn token; no
//! arguments) are rendered with only what the form carries, and parsed back under the
//! named dialect with the calls' tools declared, without tools (where the arguments
//! carry their types), and under `auto` (where the dialect takes part in it): whole, in
//! seeded random chunks of 1 to 8 bytes, and one byte at a time. Each run must release
//! exactly the calls written (name, arguments by value, and byte for byte where the form
//! carries JSON text; the given ids), report no repair and hold nothing back, show
//! exactly the rendered visible text and reasoning, and keep the invariants
//! `tests/support` checks.
//!
//! What fails today is engine work (issue 35): the failing runs are listed in
//! `tests/expected/round_trip.txt`. The test fails on a run that fails and is not listed,
//! prints the listed runs that now pass, and with `TOOLSIFT_UPDATE_EXPECTED=1` rewrites
//! the list.

mod support;

use serde_json::{json, Value};
use std::collections::BTreeMap;
use support::expected;
use toolsift::render::{Arguments, Call, CallIds, Form, InAuto, Rendered, Style, Turn};
use toolsift::{Config, Dialect, OwnedEvent, StopReason, Tools};

#[test]
fn every_dialect_has_a_renderer() {
    let missing: Vec<String> = Dialect::ALL
        .iter()
        .filter(|d| d.forms().is_empty())
        .map(|d| {
            format!(
                "dialect `{name}` has no renderer: add `pub(crate) static FORMS: &[Layout]` \
                 (how its model writes a turn: see src/dialect/hermes.rs, and \
                 src/render/layout.rs for the fields) to src/dialect/{name}.rs and return it \
                 for `Dialect::{d:?}` from `Dialect::layouts` in src/dialect/render.rs; then \
                 run `TOOLSIFT_UPDATE_EXPECTED=1 cargo test --test render --test breakage` \
                 and `TOOLSIFT_REAL_FILES=full TOOLSIFT_UPDATE_EXPECTED=1 cargo test --release \
                 --test real_files` to record how it parses",
                name = d.name()
            )
        })
        .collect();
    assert!(missing.is_empty(), "{}", missing.join("\n"));
    assert!(Dialect::Auto.forms().is_empty());
    assert!(Dialect::Auto.render(&one_call()).is_err());
    for &d in Dialect::ALL {
        let markers = d.markers();
        let forms = d.forms();
        for (i, form) in forms.iter().enumerate() {
            let at = format!("{} ({})", d.name(), form.name());
            assert!(
                forms[..i].iter().all(|f| f.name() != form.name()),
                "{at}: two forms of one name"
            );
            assert!(!form.note().is_empty(), "{at}: no note");
            assert!(!form.closing_markup().is_empty(), "{at}: no closing markup");
            // The end-of-turn token must be markup the dialect strips, or it would show.
            if let Some(eot) = form.end_of_turn() {
                assert!(
                    markers.contains(&eot.as_bytes()),
                    "{at}: end of turn {eot:?} is not one of the dialect's markers"
                );
            }
            let style = Style::new().form(form.name());
            let out = d.render_with(&one_call(), &style);
            assert!(out.is_ok(), "{at}: {out:?}");
        }
        assert!(d
            .render_with(&one_call(), &Style::new().form("nope"))
            .is_err());
    }
}

fn one_call() -> Turn<'static> {
    Turn::new().call(Call::new("get_weather", r#"{"city": "Paris"}"#))
}

#[test]
fn what_a_form_cannot_carry_is_an_error() {
    let two = one_call().call(Call::new("get_time", "{}"));
    assert!(Dialect::GigaChat3.render(&two).is_err());
    assert!(Dialect::Jamba.render(&one_call().reasoning("x")).is_err());
    assert!(Dialect::BareJson.render(&one_call().text("Sure.")).is_err());
    assert!(Dialect::Hermes
        .render(&Turn::new().call(Call::new("f", "{'a': 1}")))
        .is_err());
    assert!(Dialect::Hermes
        .render(&Turn::new().call(Call::new("f", "[1]")))
        .is_err());
    assert!(Dialect::Hermes
        .render(&Turn::new().call(Call::new("a b", "{}")))
        .is_err());
    assert!(Dialect::Pythonic
        .render(&Turn::new().call(Call::new("my-tool", "{}")))
        .is_err());
    assert!(Dialect::Pythonic
        .render(&Turn::new().call(Call::new("f", r#"{"a b": 1}"#)))
        .is_err());
    assert!(Dialect::Gemma4
        .render(&Turn::new().call(Call::new("f", r#"{"a": {"b c": 1}}"#)))
        .is_err());
    assert!(Dialect::Qwen3Coder
        .render(&Turn::new().call(Call::as_written("f", "{a: 1}")))
        .is_err());
    assert!(Dialect::Hermes
        .render(&Turn::new().call(Call::new("f", "{}").id("a\"b")))
        .is_err());
}

#[test]
fn ids_are_written_where_carried() {
    let turn = Turn::new().call(Call::new("f", "{}").id("a1b2c3d4e"));
    let out = |d: Dialect, form: &str| {
        d.render_with(&turn, &Style::new().form(form))
            .unwrap()
            .output
    };
    assert_eq!(
        out(Dialect::Mistral, "v11"),
        "[TOOL_CALLS]f[CALL_ID]a1b2c3d4e[ARGS]{}"
    );
    assert!(out(Dialect::CommandR, "command_r").contains(r#""tool_call_id": "a1b2c3d4e""#));
    // Kimi writes its own ids, and a given one only in their shape.
    assert!(out(Dialect::KimiK2, "kimi_k2").contains("functions.f:0<|"));
    let kimi = Turn::new().call(Call::new("f", "{}").id("functions.f:7"));
    assert!(Dialect::KimiK2
        .render(&kimi)
        .unwrap()
        .output
        .contains("functions.f:7<|"));
    assert_eq!(
        out(Dialect::Hermes, "hermes"),
        Dialect::Hermes.render(&turn).unwrap().output
    );
}

#[test]
fn markup_inserted_into_a_value_is_part_of_what_is_meant() {
    let turn = Turn::new().call(Call::new("write", r#"{"path": "a", "content": "abcdef"}"#));
    let out = Dialect::Qwen3Coder
        .render_with(&turn, &Style::new().markup("content", &[2, 4, 100]))
        .unwrap();
    assert_eq!(
        out.arguments,
        [r#"{"path": "a", "content": "ab</parameter>cd</function>ef</tool_call>"}"#]
    );
    assert!(out
        .output
        .contains("\nab</parameter>cd</function>ef</tool_call>\n</parameter>"));
    assert!(Dialect::Qwen3Coder
        .render_with(&turn, &Style::new().markup("nope", &[1]))
        .is_err());
}

/// How a trip is parsed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Under the named dialect, the calls' tools declared (typed by the arguments).
    Named,
    /// Under `auto`, the tools declared.
    Auto,
    /// Under the named dialect with no tools: for forms whose arguments carry their
    /// types (JSON, Python, Gemma, XML tags that name the type).
    NoTools,
}

/// One round trip: a dialect's form, a case, and how it is parsed.
struct Trip {
    dialect: Dialect,
    form: Form,
    case: &'static str,
    mode: Mode,
}

impl Trip {
    fn key(&self) -> String {
        format!(
            "{} {} {} {}",
            self.dialect.name(),
            self.form.name(),
            self.case,
            match self.mode {
                Mode::Named => "named",
                Mode::Auto => "auto",
                Mode::NoTools => "no_tools",
            }
        )
    }
}

/// Every JSON type, for a form whose arguments are JSON text.
const VALUES_JSON: &str = r#"{"text": "héllo wörld — 日本語 🎉 “curly” ‘single’", "quote": "say \"hi\" and 'bye'", "path": "C:\\Users\\me\\file.txt", "lines": "a\nb\n\tc\r\nd", "code": "fn main() { println!(\"{}\", 1); }", "n": 42, "neg": -7, "pi": 3.14159, "big": 1e21, "yes": true, "no": false, "nothing": null, "list": [1, "two", 3.5, false, null, {"k": "v"}, []], "obj": {"nested": {"deep": ["x", {"y": "z"}]}, "empty": {}, "odd key \"q\"": "\u00e9\u0000"}, "empty": ""}"#;

/// The same without control characters but line breaks in strings (raw in XML).
const VALUES_XML: &str = r#"{"text": "héllo wörld — 日本語 🎉 “curly” ‘single’", "quote": "say \"hi\" and 'bye'", "path": "C:\\Users\\me\\file.txt", "lines": "a\nb\n\tc\r\nd", "code": "fn main() { println!(\"{}\", 1); }", "markup": "a < b && c > d <b>x</b>", "n": 42, "neg": -7, "pi": 3.14159, "big": 1e21, "yes": true, "no": false, "nothing": null, "list": [1, "two", 3.5, false, null, {"k": "v"}, []], "obj": {"nested": {"deep": ["x", {"y": "z"}]}, "empty": {}, "odd key \"q\"": "\u00e9"}, "empty": ""}"#;

/// Identifier keys at every level (Gemma's bare keys).
const VALUES_BARE_KEYS: &str = r#"{"text": "héllo wörld — 日本語 🎉 “curly” ‘single’", "quote": "say \"hi\" and 'bye'", "path": "C:\\Users\\me\\file.txt", "lines": "a\nb\n\tc\r\nd", "code": "fn main() { println!(\"{}\", 1); }", "n": 42, "neg": -7, "pi": 3.14159, "big": 1e21, "yes": true, "no": false, "nothing": null, "list": [1, "two", 3.5, false, null, {"k": "v"}, []], "obj": {"nested": {"deep": ["x", {"y": "z"}]}, "empty": {}}, "empty": ""}"#;

/// MiniMax M3's elements: identifier keys, no empty object or array.
const VALUES_ELEMENTS: &str = r#"{"text": "héllo wörld — 日本語 🎉 “curly” ‘single’", "quote": "say \"hi\" and 'bye'", "path": "C:\\Users\\me\\file.txt", "lines": "a\nb\n\tc\r\nd", "code": "fn main() { println!(\"{}\", 1); }", "n": 42, "neg": -7, "pi": 3.14159, "big": 1e21, "yes": true, "no": false, "nothing": null, "list": [1, "two", 3.5, false, {"k": "v"}], "obj": {"nested": {"deep": ["x", {"y": "z"}]}}}"#;

/// One turn to write: its parts, kept so the test knows what it wrote.
#[derive(Clone, Default)]
struct Case {
    name: &'static str,
    reasoning: Option<&'static str>,
    text: &'static str,
    /// Name, arguments, id.
    calls: Vec<(&'static str, &'static str, Option<&'static str>)>,
    text_after: &'static str,
    end_of_turn: bool,
}

impl Case {
    fn turn(&self) -> Turn<'static> {
        let mut turn = Turn::new()
            .text(self.text)
            .text_after(self.text_after)
            .end_of_turn(self.end_of_turn);
        if let Some(r) = self.reasoning {
            turn = turn.reasoning(r);
        }
        for &(name, args, id) in &self.calls {
            let call = Call::new(name, args);
            turn = turn.call(match id {
                Some(id) => call.id(id),
                None => call,
            });
        }
        turn
    }
}

/// The cases a form can carry.
fn cases(form: Form) -> Vec<Case> {
    let values = match form.arguments() {
        Arguments::Json | Arguments::Python => VALUES_JSON,
        Arguments::Params { .. } => VALUES_XML,
        Arguments::Delimited => VALUES_BARE_KEYS,
        Arguments::Elements => VALUES_ELEMENTS,
        other => panic!("no values for {other:?}"),
    };
    // Containers in containers, empty ones too (not MiniMax M3's elements: an empty one
    // reads as an empty string).
    let nested = match form.arguments() {
        Arguments::Elements => r#"{"obj": {"list": [{"k": "v"}, {"k": "w"}]}, "after": 1}"#,
        _ => r#"{"obj": {"list": [{"k": "v"}, [], {}]}, "after": 1}"#,
    };
    let call = |name, args| (name, args, None);
    let mut out = vec![
        Case {
            name: "one",
            calls: vec![call("get_weather", r#"{"city": "Paris"}"#)],
            ..Case::default()
        },
        Case {
            name: "values",
            calls: vec![call("write_file", values)],
            ..Case::default()
        },
        Case {
            name: "nested",
            calls: vec![call("write_file", nested)],
            ..Case::default()
        },
        // An object in an array in an object, then a member: `}]` then `,`.
        Case {
            name: "objects_in_arrays",
            calls: vec![call(
                "write_file",
                r#"{"a": "x", "obj": {"deep": [{"y": "z"}], "b": 1}}"#,
            )],
            ..Case::default()
        },
        Case {
            name: "no_arguments",
            calls: vec![call("list_files", "{}")],
            ..Case::default()
        },
    ];
    if form.parallel() {
        let ids = form.ids() == CallIds::Given;
        let id = |id| ids.then_some(id);
        out.push(Case {
            name: "parallel",
            calls: vec![
                ("get_weather", r#"{"city": "Paris"}"#, id("a1b2c3d4e")),
                (
                    "read_file",
                    r#"{"path": "src/main.rs", "limit": 20}"#,
                    id("f5g6h7i8j"),
                ),
                ("list_files", "{}", id("k9l0m1n2o")),
            ],
            ..Case::default()
        });
    }
    let mut around = Case {
        name: "around",
        end_of_turn: true,
        calls: vec![call("get_weather", r#"{"city": "Paris", "days": 3}"#)],
        ..Case::default()
    };
    if form.reasoning() {
        around.reasoning = Some("The user wants the weather; I'll check <both> cities.");
    }
    if form.text_before() {
        around.text = "Let me check “both” cities & more.";
    }
    if form.text_after() {
        around.text_after = "Done: it's 20 °C.";
    }
    if form.parallel() {
        around
            .calls
            .push(call("get_time", r#"{"zone": "Europe/Paris"}"#));
    }
    out.push(around);
    out
}

/// The tools a turn calls, each typed by its arguments.
fn tools_for(turn_args: &[(String, Value)]) -> Tools {
    fn schema(v: &Value) -> Value {
        match v {
            Value::Null => json!({"type": "null"}),
            Value::Bool(_) => json!({"type": "boolean"}),
            Value::Number(_) => json!({"type": "number"}),
            Value::String(_) => json!({"type": "string"}),
            Value::Array(items) => match items.first() {
                // Items of one type are typed (MiniMax M3's leaves need it).
                Some(first) if items.iter().all(|i| schema(i) == schema(first)) => {
                    json!({"type": "array", "items": schema(first)})
                }
                _ => json!({"type": "array"}),
            },
            Value::Object(members) => {
                let props: serde_json::Map<String, Value> = members
                    .iter()
                    .map(|(k, v)| (k.clone(), schema(v)))
                    .collect();
                json!({"type": "object", "properties": props})
            }
        }
    }
    let mut seen = BTreeMap::new();
    for (name, args) in turn_args {
        let mut params = schema(args);
        let keys: Vec<&String> = args.as_object().unwrap().keys().collect();
        params["required"] = json!(keys);
        seen.insert(name.clone(), params);
    }
    let tools: Vec<Value> = seen
        .into_iter()
        .map(|(name, params)| json!({"type": "function", "function": {"name": name, "parameters": params}}))
        .collect();
    Tools::from_value(&Value::Array(tools)).unwrap()
}

/// The first way a run of `raw` misses `rendered`, if any.
fn check_run(
    trip: &Trip,
    rendered: &Rendered,
    events: &[OwnedEvent],
    names: &[&str],
    ids: &[Option<&str>],
) -> Result<(), String> {
    support::check(trip.dialect, events)?;
    let mut text = String::new();
    let mut reasoning = String::new();
    let mut released = Vec::new();
    for event in events {
        match event {
            OwnedEvent::Text(t) => text.push_str(t),
            OwnedEvent::Reasoning(t) => reasoning.push_str(t),
            OwnedEvent::CallFinished {
                id,
                name,
                arguments,
                repairs,
                ..
            } => released.push((id, name, arguments, repairs)),
            OwnedEvent::CallNotReleased {
                name,
                reason,
                feedback,
                ..
            } => {
                return Err(format!(
                    "call {name:?} not released: {} ({})",
                    reason.as_str(),
                    short(feedback)
                ))
            }
            _ => {}
        }
    }
    if released.len() != names.len() {
        return Err(format!(
            "{} calls released for {}: {:?}",
            released.len(),
            names.len(),
            released.iter().map(|c| c.1).collect::<Vec<_>>()
        ));
    }
    for (i, (id, name, arguments, repairs)) in released.into_iter().enumerate() {
        if name != names[i] {
            return Err(format!("call {i} released as {name:?}, not {:?}", names[i]));
        }
        let want = &rendered.arguments[i];
        let same = serde_json::from_str::<Value>(arguments).ok()
            == serde_json::from_str::<Value>(want).ok();
        if !same {
            return Err(format!(
                "RELEASED WRONG: call {i} arguments {}",
                differ(arguments, want)
            ));
        }
        if trip.form.arguments() == Arguments::Json && arguments != want {
            return Err(format!(
                "call {i} arguments not byte-identical: {} for {}",
                short(arguments),
                short(want)
            ));
        }
        if !repairs.is_empty() {
            let names: Vec<&str> = repairs.names().collect();
            return Err(format!("call {i} reports repairs {names:?}"));
        }
        if let Some(want) = ids[i] {
            if id != want {
                return Err(format!("call {i} id {id:?}, not {want:?}"));
            }
        }
    }
    if text != rendered.text {
        return Err(format!(
            "visible text {} for {}",
            short(&text),
            short(&rendered.text)
        ));
    }
    if reasoning != rendered.reasoning {
        return Err(format!(
            "reasoning {} for {}",
            short(&reasoning),
            short(&rendered.reasoning)
        ));
    }
    Ok(())
}

/// Where released arguments differ from the ones meant: the first member that does.
fn differ(got: &str, want: &str) -> String {
    let (Ok(Value::Object(g)), Ok(Value::Object(w))) = (
        serde_json::from_str::<Value>(got),
        serde_json::from_str::<Value>(want),
    ) else {
        return format!("{} for {}", short(got), short(want));
    };
    for (k, v) in &w {
        match g.get(k) {
            None => return format!("lack {k:?}"),
            Some(x) if x != v => {
                return format!(
                    "have {k:?} = {}, not {}",
                    short(&x.to_string()),
                    short(&v.to_string())
                )
            }
            _ => {}
        }
    }
    let extra: Vec<&String> = g.keys().filter(|k| !w.contains_key(*k)).collect();
    format!("have extra keys {extra:?}")
}

/// Up to 120 bytes, Debug-quoted.
fn short(text: &str) -> String {
    let end = (0..=text.len().min(120))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap();
    format!(
        "{:?}{}",
        &text[..end],
        if end < text.len() { "..." } else { "" }
    )
}

/// Run one trip under every chunking; the first failure.
fn run_trip(trip: &Trip, case: &Case) -> Result<(), String> {
    let rendered = trip
        .dialect
        .render_with(&case.turn(), &Style::new().form(trip.form.name()))
        .unwrap_or_else(|e| panic!("{}: renders: {e}", trip.key()));
    let names: Vec<&str> = case.calls.iter().map(|c| c.0).collect();
    let ids: Vec<Option<&str>> = case.calls.iter().map(|c| c.2).collect();
    let args: Vec<(String, Value)> = case
        .calls
        .iter()
        .zip(&rendered.arguments)
        .map(|(c, a)| (c.0.to_owned(), serde_json::from_str(a).unwrap()))
        .collect();
    let mut config = Config::new(if trip.mode == Mode::Auto {
        Dialect::Auto
    } else {
        trip.dialect
    });
    if trip.mode != Mode::NoTools {
        config = config.tools(tools_for(&args));
    }
    if trip.form.prompt_opens_reasoning() && case.reasoning.is_some() {
        config = config.reasoning_open(true);
    }
    let raw = rendered.output.as_bytes();
    let mut first: Option<Vec<OwnedEvent>> = None;
    let chunkings: Vec<(String, Vec<usize>)> = vec![
        ("whole".into(), Vec::new()),
        ("random:1".into(), support::random_cuts(raw.len(), 1, 8)),
        ("random:2".into(), support::random_cuts(raw.len(), 2, 8)),
        ("bytes".into(), (1..raw.len()).collect()),
    ];
    for (name, cuts) in chunkings {
        let events = support::run_cuts(&config, raw, &cuts, StopReason::Stop);
        check_run(trip, &rendered, &events, &names, &ids).map_err(|e| format!("{name}: {e}"))?;
        let merged = support::merge(&events);
        match &first {
            None => first = Some(merged),
            Some(want) if *want != merged => {
                return Err(format!("{name}: events differ from the whole input"))
            }
            _ => {}
        }
    }
    Ok(())
}

#[test]
fn rendered_calls_parse_back_exactly() {
    let mut failing: BTreeMap<String, String> = BTreeMap::new();
    let mut runs = 0;
    for &dialect in Dialect::ALL {
        for form in dialect.forms() {
            for case in cases(form) {
                for mode in [Mode::Named, Mode::Auto, Mode::NoTools] {
                    let typed = matches!(
                        form.arguments(),
                        Arguments::Json
                            | Arguments::Python
                            | Arguments::Delimited
                            | Arguments::Params { typed: true }
                    );
                    match mode {
                        Mode::Auto if !auto_reads(form, &case) => continue,
                        Mode::NoTools if !typed => continue,
                        _ => {}
                    }
                    let trip = Trip {
                        dialect,
                        form,
                        case: case.name,
                        mode,
                    };
                    runs += 1;
                    if let Err(e) = run_trip(&trip, &case) {
                        failing.insert(trip.key(), e.replace(['\n', '\r'], " "));
                    }
                }
            }
        }
    }
    ratchet(runs, &failing);
}

/// Whether `auto` reads `case` in `form` as the named dialect does: not an opt-in form;
/// a heuristic one only as the whole output; a block of reasoning the prompt opened only
/// when `</think>` closes it (`auto` ends such reasoning there).
fn auto_reads(form: Form, case: &Case) -> bool {
    match form.auto() {
        InAuto::No => false,
        InAuto::Alone if !case.text.is_empty() || !case.text_after.is_empty() => false,
        _ if case.reasoning.is_some() && form.prompt_opens_reasoning() => {
            let turn = case.turn();
            let out = form_render(form, &turn);
            out.output.contains("</think>")
        }
        _ => true,
    }
}

fn form_render(form: Form, turn: &Turn) -> Rendered {
    form.dialect()
        .render_with(turn, &Style::new().form(form.name()))
        .unwrap()
}

/// Compare the failing runs with `tests/expected/round_trip.txt`.
fn ratchet(runs: usize, failing: &BTreeMap<String, String>) {
    const FILE: &str = "round_trip.txt";
    let listed = expected::load(FILE, 4);
    let new: Vec<String> = failing
        .iter()
        .filter(|(k, _)| !listed.contains_key(*k))
        .map(|(k, v)| format!("{k}: {v}"))
        .collect();
    let fixed: Vec<&String> = listed
        .keys()
        .filter(|k| !failing.contains_key(*k))
        .collect();
    println!(
        "round trip: {runs} runs, {} failing ({} listed in tests/expected/{FILE})",
        failing.len(),
        listed.len()
    );
    for (k, v) in failing {
        println!("  failing: {k}: {v}");
    }
    if !fixed.is_empty() {
        println!(
            "{} listed runs now pass (tighten the list: {}=1 cargo test --test render):",
            fixed.len(),
            expected::UPDATE
        );
        for k in &fixed {
            println!("  passes: {k}");
        }
    }
    if expected::updating() {
        let header = "Round trips that fail today (tests/render.rs): dialect form case mode, \
                      then the first failure.\nTarget: none. Written by \
                      TOOLSIFT_UPDATE_EXPECTED=1 cargo test --test render -- --nocapture.";
        expected::save(FILE, header, failing, &listed);
        return;
    }
    assert!(
        new.is_empty(),
        "{} round trips fail that tests/expected/{FILE} does not list:\n{}",
        new.len(),
        new.join("\n")
    );
}

/// The section of `docs/dialects.md` that shows what each dialect writes.
const DOCS_BEGIN: &str = "<!-- Generated from Dialect::render by tests/render.rs; \
                          TOOLSIFT_UPDATE_EXPECTED=1 cargo test --test render rewrites it. -->";
const DOCS_END: &str = "<!-- End of the generated examples. -->";

/// The examples, one per dialect and form: reasoning, text, two calls (one where the
/// form writes one per turn) with ids, text after, the end-of-turn token, each where
/// the form carries it.
fn docs_examples() -> String {
    let mut out = String::new();
    out.push_str(DOCS_BEGIN);
    out.push_str(
        "\n\n## What each dialect writes\n\nEvery dialect both reads and writes its calls: \
         `Dialect::render` writes a turn as the dialect's model writes it (`toolsift::render`). \
         Below, for every form of every dialect, the same turn (reasoning, text, two calls \
         with ids, text after them, the end-of-turn token), each part only where the form \
         carries it. `tests/render.rs` checks that every form's output parses back exactly \
         and that these examples are what the renderer writes.\n",
    );
    for &dialect in Dialect::ALL {
        for form in dialect.forms() {
            let mut turn = Turn::new()
                .end_of_turn(true)
                .call(Call::new("get_weather", r#"{"city": "Paris"}"#).id("a1b2c3d4e"));
            let mut carries = vec![format!("arguments: {}", arguments_name(form.arguments()))];
            if form.parallel() {
                turn = turn.call(
                    Call::new("get_weather", r#"{"city": "Tokyo", "days": 3}"#).id("f5g6h7i8j"),
                );
            } else {
                carries.push("one call per turn".into());
            }
            match form.ids() {
                CallIds::Given => carries.push("ids".into()),
                CallIds::Own => carries.push("its own ids".into()),
                _ => {}
            }
            if form.reasoning() {
                turn = turn.reasoning("Paris and Tokyo, then compare.");
                if form.prompt_opens_reasoning() {
                    carries.push("reasoning (the prompt opens it)".into());
                }
            }
            if form.text_before() {
                turn = turn.text("Let me check both cities.");
            } else {
                carries.push("no text before the calls".into());
            }
            if form.text_after() {
                turn = turn.text_after("One moment.");
            }
            match form.auto() {
                InAuto::No => carries.push("not in `auto`".into()),
                InAuto::Alone => carries.push("`auto`: as the whole output".into()),
                _ => {}
            }
            let rendered = form_render(form, &turn);
            let fence = if rendered.output.contains("```") {
                "````"
            } else {
                "```"
            };
            out.push_str(&format!(
                "\n### `{}`, form `{}`\n\n{} ({}).\n\n{fence}text\n{}\n{fence}\n",
                dialect.name(),
                form.name(),
                form.note(),
                carries.join(", "),
                rendered.output
            ));
        }
    }
    out.push('\n');
    out.push_str(DOCS_END);
    out.push('\n');
    out
}

fn arguments_name(arguments: Arguments) -> &'static str {
    match arguments {
        Arguments::Json => "JSON text",
        Arguments::Delimited => "bare keys, delimited strings",
        Arguments::Params { typed: true } => "XML parameters, typed by the tag",
        Arguments::Params { typed: false } => "XML parameters",
        Arguments::Elements => "XML elements",
        Arguments::Python => "Python",
        _ => "other",
    }
}

#[test]
fn the_dialect_docs_show_what_the_renderer_writes() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/dialects.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let want = docs_examples();
    let (before, rest) = match doc.find(DOCS_BEGIN) {
        Some(at) => doc.split_at(at),
        None => (doc.as_str(), ""),
    };
    let after = rest
        .find(DOCS_END)
        .map_or("", |at| &rest[at + DOCS_END.len()..])
        .trim_start_matches('\n');
    let got = &rest[..rest.len() - after.len()];
    if expected::updating() {
        let mut text = before.trim_end().to_owned();
        text.push_str("\n\n");
        text.push_str(&want);
        text.push_str(after);
        std::fs::write(&path, text).unwrap();
        return;
    }
    assert!(
        got == want,
        "docs/dialects.md: the generated examples differ from what Dialect::render writes; \
         rewrite them with {}=1 cargo test --test render",
        expected::UPDATE
    );
}
