//! The common breakage of small models' calls (issue 35), inside a call of every form
//! that carries JSON arguments (as the renderer says: `Arguments::Json`) and through
//! `toolsift::repair`: single quotes, unquoted keys, both, trailing commas, a bare value
//! for a one-field tool, unquoted values, mixed styles, command-line text, typographic
//! double and single quotes, in one member and in several, and arguments written as a
//! JSON string. Each should be released with exactly the arguments meant (by value), its
//! repairs named, whole, in random chunks of 1 to 8 bytes and one byte at a time, with
//! the request's tools declared and without (a bare value and command-line text need
//! the schema: with tools only).
//!
//! Many fail today: the pairs that pass are listed in `tests/expected/breakage.txt`, a
//! ratchet. The test fails when a listed pair fails, prints the pairs that pass and are
//! not listed (tighten with `TOOLSIFT_UPDATE_EXPECTED=1 cargo test --test breakage --
//! --nocapture`) and the pairs still failing.

mod support;

use serde_json::{json, Value};
use std::collections::BTreeMap;
use support::expected;
use toolsift::render::{Arguments, Call, Form, Style, Turn};
use toolsift::{Config, Dialect, OwnedEvent, Repair, StopReason, Tools};

/// One breakage: the tool, the arguments as the model wrote them, what it meant, and
/// the repairs that must be named.
struct Case {
    name: &'static str,
    tool: &'static str,
    written: &'static str,
    meant: &'static str,
    repairs: &'static [Repair],
    /// Only a schema can tell what was meant (a bare value, command-line text): not
    /// asked without tools.
    needs_schema: bool,
    /// The breakage is the call's (arguments written as a string, a bare value):
    /// `toolsift::repair`, which reads one JSON text and has no schema, is not asked
    /// (a JSON string is valid JSON to it).
    call_only: bool,
}

const fn case(name: &'static str, written: &'static str, repairs: &'static [Repair]) -> Case {
    Case {
        name,
        tool: "coder",
        written,
        meant: r#"{"cmd": "read", "file": "main.go"}"#,
        repairs,
        needs_schema: false,
        call_only: false,
    }
}

use Repair::{
    ArgumentsString, BareArguments, CommandLineArguments, CurlyQuotedString, SingleQuotedString,
    TrailingComma, UnquotedKey, UnquotedString,
};

const CASES: &[Case] = &[
    case(
        "single_quotes_one",
        r#"{"cmd": 'read', "file": "main.go"}"#,
        &[SingleQuotedString],
    ),
    case(
        "single_quotes_all",
        "{'cmd': 'read', 'file': 'main.go'}",
        &[SingleQuotedString],
    ),
    case(
        "unquoted_keys_one",
        r#"{cmd: "read", "file": "main.go"}"#,
        &[UnquotedKey],
    ),
    case(
        "unquoted_keys_all",
        r#"{cmd: "read", file: "main.go"}"#,
        &[UnquotedKey],
    ),
    case(
        "both_one",
        r#"{cmd: 'read', "file": "main.go"}"#,
        &[UnquotedKey, SingleQuotedString],
    ),
    case(
        "both_all",
        "{cmd: 'read', file: 'main.go'}",
        &[UnquotedKey, SingleQuotedString],
    ),
    case(
        "trailing_comma_one",
        r#"{"cmd": "read", "file": "main.go",}"#,
        &[TrailingComma],
    ),
    Case {
        meant: r#"{"cmd": "read", "file": "main.go", "lines": [1, 2]}"#,
        ..case(
            "trailing_comma_all",
            r#"{"cmd": "read", "file": "main.go", "lines": [1, 2,],}"#,
            &[TrailingComma],
        )
    },
    case(
        "unquoted_values_one",
        r#"{"cmd": read, "file": "main.go"}"#,
        &[UnquotedString],
    ),
    case(
        "unquoted_values_all",
        r#"{"cmd": read, "file": main.go}"#,
        &[UnquotedString],
    ),
    case(
        "mixed",
        r#"{cmd: 'read', "file": main.go,}"#,
        &[
            UnquotedKey,
            SingleQuotedString,
            UnquotedString,
            TrailingComma,
        ],
    ),
    case(
        "curly_double_one",
        r#"{"cmd": “read”, "file": "main.go"}"#,
        &[CurlyQuotedString],
    ),
    case(
        "curly_double_all",
        "{“cmd”: “read”, “file”: “main.go”}",
        &[CurlyQuotedString],
    ),
    case(
        "curly_single_one",
        r#"{"cmd": ‘read’, "file": "main.go"}"#,
        &[CurlyQuotedString],
    ),
    case(
        "curly_single_all",
        "{‘cmd’: ‘read’, ‘file’: ‘main.go’}",
        &[CurlyQuotedString],
    ),
    Case {
        tool: "shell",
        meant: r#"{"command": "ls -la /tmp"}"#,
        needs_schema: true,
        call_only: true,
        ..case("bare_value", r#""ls -la /tmp""#, &[BareArguments])
    },
    Case {
        call_only: true,
        ..case(
            "json_string",
            r#""{\"cmd\": \"read\", \"file\": \"main.go\"}""#,
            &[ArgumentsString],
        )
    },
    Case {
        call_only: true,
        ..case(
            "curly_double_in_string",
            r#""{“cmd”: “read”, “file”: “main.go”}""#,
            &[ArgumentsString, CurlyQuotedString],
        )
    },
    Case {
        needs_schema: true,
        call_only: true,
        ..case(
            "command_line",
            r#""--cmd read --file main.go""#,
            &[CommandLineArguments],
        )
    },
];

fn tools() -> Tools {
    Tools::from_value(&json!([
        {"type": "function", "function": {"name": "coder", "parameters": {
            "type": "object",
            "properties": {
                "cmd": {"type": "string"},
                "file": {"type": "string"},
                "lines": {"type": "array", "items": {"type": "integer"}}
            },
            "required": ["cmd", "file"]}}},
        {"type": "function", "function": {"name": "shell", "parameters": {
            "type": "object",
            "properties": {"command": {"type": "string"}},
            "required": ["command"]}}}
    ]))
    .unwrap()
}

/// Every form whose arguments are JSON text, in `Dialect::ALL` order.
fn json_forms() -> Vec<Form> {
    Dialect::ALL
        .iter()
        .flat_map(|d| d.forms())
        .filter(|f| f.arguments() == Arguments::Json)
        .collect()
}

fn target(form: Form) -> String {
    format!("{}/{}", form.dialect().name(), form.name())
}

/// Whether `case` inside a call of `form` is released as meant: `Err` says how not.
fn in_call(form: Form, case: &Case, tools: Option<&Tools>) -> Result<(), String> {
    let mut turn = Turn::new().call(Call::as_written(case.tool, case.written));
    if form.text_before() {
        turn = turn.text("Reading it.\n");
    }
    let rendered = form
        .dialect()
        .render_with(&turn, &Style::new().form(form.name()))
        .map_err(|e| format!("renders: {e}"))?;
    let mut config = Config::new(form.dialect());
    if let Some(tools) = tools {
        config = config.tools(tools.clone());
    }
    let raw = rendered.output.as_bytes();
    for (chunking, cuts) in [
        ("whole", Vec::new()),
        ("random", support::random_cuts(raw.len(), 7, 8)),
        ("bytes", (1..raw.len()).collect()),
    ] {
        let events = support::run_cuts(&config, raw, &cuts, StopReason::Stop);
        support::check(form.dialect(), &events).map_err(|e| format!("{chunking}: {e}"))?;
        let mut text = String::new();
        let mut released = Vec::new();
        for event in &events {
            match event {
                OwnedEvent::Text(t) => text.push_str(t),
                OwnedEvent::CallFinished {
                    name,
                    arguments,
                    repairs,
                    ..
                } => released.push((name.clone(), arguments.clone(), *repairs)),
                OwnedEvent::CallNotReleased {
                    reason, feedback, ..
                } => {
                    return Err(format!(
                        "{chunking}: not released ({}: {})",
                        reason.as_str(),
                        cut(feedback)
                    ))
                }
                _ => {}
            }
        }
        let [(name, arguments, repairs)] = &released[..] else {
            return Err(format!("{chunking}: {} calls released", released.len()));
        };
        if name != case.tool {
            return Err(format!("{chunking}: released as {name:?}"));
        }
        meant(
            case,
            arguments,
            |r| repairs.contains(r),
            || repairs.names().collect(),
        )
        .map_err(|e| format!("{chunking}: {e}"))?;
        if text != rendered.text {
            return Err(format!(
                "{chunking}: visible text {:?} for {:?}",
                cut(&text),
                cut(&rendered.text)
            ));
        }
    }
    Ok(())
}

/// Whether `arguments` are the ones meant with the case's repairs named.
fn meant(
    case: &Case,
    arguments: &str,
    named: impl Fn(Repair) -> bool,
    names: impl Fn() -> Vec<&'static str>,
) -> Result<(), String> {
    let got: Value = serde_json::from_str(arguments).map_err(|e| e.to_string())?;
    let want: Value = serde_json::from_str(case.meant).unwrap();
    if got != want {
        return Err(format!(
            "RELEASED WRONG: arguments {} for {}",
            cut(arguments),
            case.meant
        ));
    }
    let missing: Vec<&str> = case
        .repairs
        .iter()
        .filter(|r| !named(**r))
        .map(|r| r.name())
        .collect();
    if !missing.is_empty() {
        return Err(format!("repairs {:?} do not name {missing:?}", names()));
    }
    Ok(())
}

/// `toolsift::repair` on the arguments alone.
fn through_repair(case: &Case) -> Result<(), String> {
    let fixed = toolsift::repair(case.written.as_bytes()).map_err(|e| e.to_string())?;
    meant(
        case,
        &fixed.json,
        |r| fixed.repairs.contains(r),
        || fixed.repairs.names().collect(),
    )
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(100) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_owned(),
    }
}

#[test]
fn common_breakage_is_released_as_meant() {
    const FILE: &str = "breakage.txt";
    let tools = tools();
    let forms = json_forms();
    assert!(forms.len() >= 20, "only {} JSON forms", forms.len());
    // Pair (case, target) -> the failure, or None when it passes.
    let mut results: BTreeMap<String, Option<String>> = BTreeMap::new();
    for case in CASES {
        for &form in &forms {
            for declared in [Some(&tools), None] {
                if declared.is_none() && case.needs_schema {
                    continue;
                }
                let with = if declared.is_some() {
                    "tools"
                } else {
                    "no_tools"
                };
                let key = format!("{} {} {with}", case.name, target(form));
                results.insert(key, in_call(form, case, declared).err());
            }
        }
        if !case.call_only {
            let key = format!("{} repair no_tools", case.name);
            results.insert(key, through_repair(case).err());
        }
    }
    let listed = expected::load(FILE, 3);
    let passing: BTreeMap<String, String> = results
        .iter()
        .filter(|(_, r)| r.is_none())
        .map(|(k, _)| (k.clone(), String::new()))
        .collect();
    let regressed: Vec<String> = listed
        .keys()
        .filter(|k| results.get(*k).is_some_and(|r| r.is_some()))
        .map(|k| format!("{k}: {}", results[k].as_ref().unwrap()))
        .collect();
    let unknown: Vec<&String> = listed
        .keys()
        .filter(|k| !results.contains_key(*k))
        .collect();
    let gained: Vec<&String> = passing
        .keys()
        .filter(|k| !listed.contains_key(*k))
        .collect();
    // The matrix: per case, how many targets pass.
    let wrong = results
        .values()
        .filter(|r| r.as_ref().is_some_and(|e| e.contains("RELEASED WRONG")))
        .count();
    println!(
        "breakage: {} pairs, {} pass, {wrong} released wrong",
        results.len(),
        passing.len()
    );
    for case in CASES {
        let of_case: Vec<(&String, &Option<String>)> = results
            .iter()
            .filter(|(k, _)| k.split(' ').next() == Some(case.name))
            .collect();
        let pass = of_case.iter().filter(|(_, r)| r.is_none()).count();
        println!("  {:<22} {pass:>3} of {:>3} pass", case.name, of_case.len());
    }
    for (k, r) in &results {
        if let Some(why) = r {
            println!("  failing: {k}: {why}");
        }
    }
    if !gained.is_empty() {
        println!(
            "{} pairs pass that tests/expected/{FILE} does not list (tighten it: {}=1):",
            gained.len(),
            expected::UPDATE
        );
        for k in &gained {
            println!("  passes: {k}");
        }
    }
    if expected::updating() {
        let header = "Breakage that is released as meant today (tests/breakage.rs): one passing \
                      pair a line, CASE TARGET TOOLS\n(TARGET a dialect/form carrying JSON arguments, \
                      or `repair` for toolsift::repair; TOOLS whether the request declared them). A listed pair that fails fails the test.\n\
                      Target: every pair. Rewrite: TOOLSIFT_UPDATE_EXPECTED=1 cargo test --test \
                      breakage -- --nocapture";
        expected::save(FILE, header, &passing, &listed);
        return;
    }
    assert!(
        regressed.is_empty() && unknown.is_empty(),
        "{} pairs listed in tests/expected/{FILE} fail now:\n{}\n{} listed pairs no longer \
         exist: {unknown:?}",
        regressed.len(),
        regressed.join("\n"),
        unknown.len()
    );
}

/// Bare words in braces (`{invalid json}`, found in Llama 3 JSON): a key and its value
/// only by inventing the colon and every quote. With no schema to confirm the guess,
/// the call is not released, in every form carrying JSON arguments; nothing of it is
/// shown either, nor text after it up to the call's closer (the rest of its body).
#[test]
fn bare_words_in_braces_are_not_released_without_a_schema() {
    let mut wrong = Vec::new();
    for form in json_forms() {
        for written in [
            "{invalid json}",
            "{city Paris}",
            "{city Paris, days 3}",
            // Text after the object, before the call's closer: the call's, not shown.
            "{invalid json} and more",
        ] {
            let turn = Turn::new().call(Call::as_written("get_weather", written));
            let style = Style::new().form(form.name());
            let rendered = form.dialect().render_with(&turn, &style).unwrap();
            let raw = rendered.output.as_bytes();
            let config = Config::new(form.dialect());
            let events = support::run_cuts(&config, raw, &[], StopReason::Stop);
            let released: Vec<String> = events
                .iter()
                .filter_map(|e| match e {
                    OwnedEvent::CallFinished { arguments, .. } => Some(arguments.clone()),
                    _ => None,
                })
                .collect();
            let held = events
                .iter()
                .filter(|e| matches!(e, OwnedEvent::CallNotReleased { .. }))
                .count();
            let text: String = events
                .iter()
                .filter_map(|e| match e {
                    OwnedEvent::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect();
            // Text after the object is the call's when the call's closing markup
            // follows it (a form with none has no bound but the end: the text may be
            // the model's). Harmony's `<|call|>` ends its call as an end-of-message
            // token, not as a closer: still shown there (issue 35).
            let after = rendered
                .output
                .find(" and more")
                .map(|at| &rendered.output[at..]);
            let closed = after
                .is_some_and(|after| form.closing_markup().iter().any(|m| after.contains(m)))
                && form.dialect() != Dialect::Harmony;
            let leaked = closed && text.contains("and more");
            if !released.is_empty() || held != 1 || leaked {
                wrong.push(format!(
                    "{}: {:?} gave {released:?}, {held} held, text {text:?}",
                    target(form),
                    rendered.output
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A broken call cut off by the end of the stream inside its arguments is reported
/// truncated under the tool's name in every form carrying JSON arguments, however the
/// output is cut (found in Llama 3 JSON: `{"name": "invalidTool", "parameters":
/// {invalid json}` was reported with no name, its competing readings undecided).
///
/// Ignored: the reading that read the name may or may not have parted from its head
/// when the stream ends, depending on the chunking (the known class
/// `forked-readings-decide-per-chunk`), so the name cannot be taken from it yet.
#[test]
#[ignore = "needs readings that part the same under every chunking (forked-readings-decide-per-chunk)"]
fn a_broken_call_cut_off_is_reported_under_its_name() {
    let mut wrong = Vec::new();
    for form in json_forms() {
        for (written, cut_after) in [
            ("{invalid json}", "{invalid json"),
            ("{a}", "{a"),
            ("{city: 'Paris', days: 3}", "{city: 'Paris', days: 3"),
            ("{\"city\" Paris}", "{\"city\" Paris"),
        ] {
            let turn = Turn::new().call(Call::as_written("get_weather", written));
            let style = Style::new().form(form.name());
            let rendered = form.dialect().render_with(&turn, &style).unwrap();
            let at = rendered.output.find(cut_after).unwrap() + cut_after.len();
            let raw = &rendered.output.as_bytes()[..at];
            let config = Config::new(form.dialect());
            for (chunking, cuts) in [
                ("whole", Vec::new()),
                ("random", support::random_cuts(raw.len(), 11, 8)),
                ("bytes", (1..raw.len()).collect()),
            ] {
                let events = support::run_cuts(&config, raw, &cuts, StopReason::Length);
                let reports = support::reports(&events);
                let released = events
                    .iter()
                    .any(|e| matches!(e, OwnedEvent::CallFinished { .. }));
                let want = [(Some("get_weather".to_owned()), "truncated")];
                if released || reports != want {
                    wrong.push(format!(
                        "{} {chunking}: {:?} gave {reports:?}{}",
                        target(form),
                        String::from_utf8_lossy(raw),
                        if released { ", released" } else { "" }
                    ));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A call object in a second pair of braces (`{{"name": ..., "arguments": {...}}}`, a
/// template's escaped braces copied by a small model): released as meant, with
/// `doubled_braces` named, in every form whose body is one JSON call object (after a
/// marker or markerless), however the output is cut.
#[test]
fn a_call_object_in_doubled_braces_is_released_as_meant() {
    let mut wrong = Vec::new();
    let mut checked = 0;
    for form in json_forms() {
        let turn = Turn::new().call(Call::new("get_weather", r#"{"city": "Paris"}"#));
        let style = Style::new().form(form.name());
        let written = form.dialect().render_with(&turn, &style).unwrap().output;
        let Some(at) = written.find("{\"name\"") else {
            continue;
        };
        // Only a body that is the call object itself (not an element of an array).
        let before = written[..at].trim_end();
        if before.ends_with(['[', ',', '{']) {
            continue;
        }
        let mut stream = serde_json::Deserializer::from_str(&written[at..]).into_iter::<Value>();
        let Some(Ok(_)) = stream.next() else {
            continue;
        };
        let end = at + stream.byte_offset();
        let raw = format!(
            "{}{{{}}}{}",
            &written[..at],
            &written[at..end],
            &written[end..]
        );
        checked += 1;
        let config = Config::new(form.dialect());
        let events = match support::check_all_chunkings(&config, raw.as_bytes(), StopReason::Stop) {
            Ok(events) => events,
            Err(e) => {
                wrong.push(format!("{}: {raw:?}: {e}", target(form)));
                continue;
            }
        };
        let m = support::message(&events);
        let ok = m["tool_calls"].as_array().is_some_and(|calls| {
            calls.len() == 1
                && calls[0]["name"] == "get_weather"
                && serde_json::from_str::<Value>(calls[0]["arguments"].as_str().unwrap_or("")).ok()
                    == Some(json!({"city": "Paris"}))
                && calls[0]["repairs"]
                    .as_array()
                    .is_some_and(|r| r.iter().any(|r| r == "doubled_braces"))
        });
        if !ok || m["content"].as_str().is_some_and(|c| c.contains('{')) {
            wrong.push(format!("{}: {raw:?}: {m}", target(form)));
        }
    }
    assert!(checked >= 10, "only {checked} forms checked");
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
