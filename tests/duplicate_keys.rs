//! A key given twice in one object of a call's arguments, in every dialect and form
//! `Dialect::render` writes (issue 37): with different values the call is never
//! released (clients disagree on which value they read); with the same value, released
//! only with `duplicate_key` named. The calls are written by the renderer, so a dialect
//! added later is covered from its first commit.

use toolsift::render::{Call, Style, Turn};
use toolsift::{Dialect, OwnedEvent, Parser, Repair, StopReason};

/// Every event of `output` parsed whole by `dialect`.
fn events(dialect: Dialect, output: &str) -> Vec<OwnedEvent> {
    let mut p = Parser::new(dialect);
    p.push(output.as_bytes());
    p.finish(StopReason::Stop);
    let mut out = Vec::new();
    while let Some(e) = p.next_event() {
        out.push(e.into_owned());
    }
    out
}

/// The rendered outputs of a call with `arguments`, in every dialect and form that
/// writes both members (a form may not carry a key twice: its output then holds it
/// once, and is skipped).
fn rendered(arguments: &str, key: &str) -> Vec<(String, Dialect, String)> {
    let mut out = Vec::new();
    for &d in Dialect::ALL {
        for form in d.forms() {
            let turn = Turn::new().call(Call::new("write_file", arguments));
            let Ok(r) = d.render_with(&turn, &Style::new().form(form.name())) else {
                continue;
            };
            if r.output.matches(key).count() >= 2 {
                out.push((format!("{} ({})", d.name(), form.name()), d, r.output));
            }
        }
    }
    out
}

/// Every dialect has a form that writes the key twice (MiniMax M3 cannot: an element
/// given twice is an array there): fewer means the check lost cases.
fn assert_every_dialect(cases: &[(String, Dialect, String)]) {
    let missing: Vec<&str> = Dialect::ALL
        .iter()
        .filter(|d| **d != Dialect::MinimaxM3 && !cases.iter().any(|c| c.1 == **d))
        .map(|d| d.name())
        .collect();
    assert!(
        missing.is_empty(),
        "no form writes the key twice: {missing:?}"
    );
}

#[test]
fn a_key_with_two_values_is_never_released() {
    let cases = rendered(r#"{"file": "a.txt", "file": "b.txt"}"#, "file");
    assert_every_dialect(&cases);
    let mut wrong = Vec::new();
    for (at, d, output) in &cases {
        for e in events(*d, output) {
            if let OwnedEvent::CallFinished { arguments, .. } = e {
                wrong.push(format!("{at}: released {arguments}\n  from {output:?}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn a_key_with_one_value_twice_is_released_with_the_repair_named() {
    let cases = rendered(r#"{"file": "a.txt", "file": "a.txt"}"#, "file");
    assert_every_dialect(&cases);
    let mut wrong = Vec::new();
    let mut released = 0;
    for (at, d, output) in &cases {
        for e in events(*d, output) {
            if let OwnedEvent::CallFinished {
                arguments, repairs, ..
            } = e
            {
                released += 1;
                if !repairs.contains(Repair::DuplicateKey) {
                    wrong.push(format!("{at}: released {arguments} without duplicate_key"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(released >= Dialect::ALL.len() - 1, "{released} released");
}

/// A call refused for a key given twice after its deltas went out reports its members
/// only as far as it sent them (found by the chunking fuzz target).
#[test]
fn a_refused_call_reports_only_what_it_sent() {
    let output = "<tool_call>\n{\"name\": \"f\", \"arguments\": {\"a\": \"x\", \"b\": \"he said \"hi\" to me\", \"a\": \"y\"}}\n</tool_call>";
    let mut p = Parser::new(Dialect::Hermes);
    let mut sent = String::new();
    let mut refused = None;
    let mut seen = |p: &mut Parser, sent: &mut String| {
        while let Some(e) = p.next_event() {
            match e.into_owned() {
                OwnedEvent::ArgsDelta { fragment, .. } => sent.push_str(&fragment),
                OwnedEvent::CallNotReleased { completed, .. } => refused = Some(completed),
                _ => {}
            }
        }
    };
    for b in output.as_bytes().chunks(1) {
        p.push(b);
        seen(&mut p, &mut sent);
    }
    p.finish(StopReason::Stop);
    seen(&mut p, &mut sent);
    let completed = refused.expect("refused");
    assert!(
        completed == "{}" || sent.starts_with(completed.trim_end_matches('}')),
        "completed {completed:?}, sent {sent:?}"
    );
}
