//! Arguments written as one JSON string (Kimi K2's `"{\"a\": 1}"`): the string closing is
//! what tells a whole value from a cut one. Found by the `chunking` fuzz target, whose
//! truncation check took the closers such a string's content lacked for a cut. And a
//! call cut inside a value, in every form of every dialect: reported under its name.

mod support;

use toolsift::{Dialect, OwnedEvent, Parser, Repair, StopReason};

const OPEN: &str =
    "<|tool_calls_section_begin|><|tool_call_begin|>functions.f:0<|tool_call_argument_begin|>";

fn run(body: &str) -> Vec<OwnedEvent> {
    let mut p = Parser::new(Dialect::KimiK2);
    p.push(format!("{OPEN}{body}").as_bytes());
    p.finish(StopReason::Stop);
    let mut out = Vec::new();
    while let Some(e) = p.next_event() {
        out.push(e.into_owned());
    }
    out
}

#[test]
fn a_closed_arguments_string_is_whole_and_an_open_one_is_cut() {
    // Closed: the model wrote the whole string; the closer its content lacks is repaired.
    for body in [r#""{\"a\": 1""#, r#""{\"a\": 1"}}]"#] {
        let events = run(body);
        let finished = events.iter().find_map(|e| match e {
            OwnedEvent::CallFinished {
                arguments, repairs, ..
            } => Some((arguments.clone(), *repairs)),
            _ => None,
        });
        let (arguments, repairs) = finished.unwrap_or_else(|| panic!("{body}: {events:?}"));
        assert_eq!(arguments, r#"{"a": 1}"#);
        assert!(repairs.contains(Repair::ArgumentsString), "{repairs:?}");
        assert!(repairs.contains(Repair::MissingClosers), "{repairs:?}");
    }
    // Open: the stream ended inside the string, or inside plain JSON arguments.
    for body in [r#""{\"a\": 1"#, r#"{"a": 1"#] {
        let events = run(body);
        assert!(
            events.iter().any(|e| matches!(
                e,
                OwnedEvent::CallNotReleased { reason, .. }
                    if *reason == toolsift::NotReleasedReason::Truncated
            )),
            "{body}: {events:?}"
        );
        assert!(
            !events
                .iter()
                .any(|e| matches!(e, OwnedEvent::CallFinished { .. })),
            "{body}: {events:?}"
        );
    }
}

/// A call cut off by the token limit inside a value is reported truncated under its
/// tool's name, never released, in every form of every dialect (as the renderer writes
/// them), however the output is cut.
#[test]
fn a_call_cut_inside_a_value_is_reported_truncated_under_its_name() {
    use toolsift::render::{Call, Style, Turn};
    let mut wrong = Vec::new();
    for form in Dialect::ALL.iter().flat_map(|d| d.forms()) {
        let turn = Turn::new().call(Call::new(
            "get_weather",
            r#"{"city": "Paris in spring", "days": 3}"#,
        ));
        let style = Style::new().form(form.name());
        let rendered = form.dialect().render_with(&turn, &style).unwrap();
        let at = rendered.output.find("Paris in").unwrap() + "Paris in".len();
        let raw = &rendered.output.as_bytes()[..at];
        let config = toolsift::Config::new(form.dialect());
        for (chunking, cuts) in [
            ("whole", Vec::new()),
            ("bytes", (1..raw.len()).collect::<Vec<_>>()),
        ] {
            let events = support::run_cuts(&config, raw, &cuts, StopReason::Length);
            let reports = support::reports(&events);
            let released = events
                .iter()
                .any(|e| matches!(e, OwnedEvent::CallFinished { .. }));
            if released || reports != [(Some("get_weather".to_owned()), "truncated")] {
                wrong.push(format!(
                    "{}/{} {chunking}: {:?} gave {reports:?}{}",
                    form.dialect().name(),
                    form.name(),
                    String::from_utf8_lossy(raw),
                    if released { ", released" } else { "" }
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// A call cut off right after arguments that are not JSON (`{invalid json}`) is
/// reported under its tool's name (truncated, or invalid where nothing of the call
/// but its closer is missing), never released and never shown, in every form of every
/// dialect that carries JSON arguments, however the output is cut. Where the name is a
/// JSON string, the reading may run on inside it (or inside an id before it) to the
/// cut: the report takes the name the quotes it passed delimit.
#[test]
fn a_call_cut_after_broken_arguments_is_reported_under_its_name() {
    use toolsift::render::{Arguments, Call, Style, Turn};
    let mut wrong = Vec::new();
    let broken = "{invalid json}";
    for form in Dialect::ALL.iter().flat_map(|d| d.forms()) {
        if form.arguments() != Arguments::Json {
            continue;
        }
        let turn = Turn::new().call(Call::as_written("get_weather", broken));
        let style = Style::new().form(form.name());
        let rendered = form.dialect().render_with(&turn, &style).unwrap();
        let at = rendered.output.find(broken).unwrap() + broken.len();
        let raw = &rendered.output.as_bytes()[..at];
        let config = toolsift::Config::new(form.dialect());
        for (chunking, cuts) in [
            ("whole", Vec::new()),
            ("bytes", (1..raw.len()).collect::<Vec<_>>()),
        ] {
            let events = support::run_cuts(&config, raw, &cuts, StopReason::Length);
            let reports = support::reports(&events);
            let released = events
                .iter()
                .any(|e| matches!(e, OwnedEvent::CallFinished { .. }));
            let named = matches!(
                reports.as_slice(),
                [(Some(name), "truncated" | "invalid")] if name == "get_weather"
            );
            let shown = support::shown(&events);
            if released || !named || !shown.text.trim().is_empty() {
                wrong.push(format!(
                    "{}/{} {chunking}: {:?} gave {reports:?}, shown {:?}{}",
                    form.dialect().name(),
                    form.name(),
                    String::from_utf8_lossy(raw),
                    shown.text,
                    if released { ", released" } else { "" }
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
