//! Arguments written as one JSON string (Kimi K2's `"{\"a\": 1}"`): the string closing is
//! what tells a whole value from a cut one. Found by the `chunking` fuzz target, whose
//! truncation check took the closers such a string's content lacked for a cut.

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
