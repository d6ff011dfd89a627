//! The oracle that a call the end of the stream cut off is never released as complete,
//! shared by the tests (`support::cut_off_not_released`) and the fuzz targets
//! (`fuzz/fuzz_targets/common`).

use toolsift::{Dialect, OwnedEvent, Repair, Repairs};

/// Whether `raw` ends (blanks aside) with one of `dialect`'s markers or body closers:
/// the model wrote the end of what it was writing, so a call closed by it at `finish`
/// was not cut. A body's own closer (`</function>` in a `<tool_call>` wrapper) counts:
/// only the wrapper's closer is missing (a repair). So does a closing fence, which
/// `markers` leaves out as ordinary text.
pub fn ends_with_marker(dialect: Dialect, raw: &[u8]) -> bool {
    let end = raw
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    dialect
        .markers()
        .into_iter()
        .chain(dialect.body_closers())
        .chain([&b"```"[..]])
        .any(|m| raw[..end].ends_with(m))
}

/// Whether call `index`, released by `finish` with `repairs` and followed by the events
/// `after`, was cut off by the end of the stream: closers were supplied, no marker ended
/// the output, and nothing was read after the call (text held to a call's bound is read
/// at the end; another call or text after it means a marker ended it). Closers of
/// arguments written as one JSON string (`arguments_string`) repair its content, and
/// text dropped as stray (`stray_text`) followed the value.
pub fn released_cut_off(
    index: u32,
    repairs: Repairs,
    after: &[OwnedEvent],
    ends_with_marker: bool,
) -> bool {
    let read_after = after.iter().any(|e| match e {
        OwnedEvent::Text(t) | OwnedEvent::Reasoning(t) => !t.is_empty(),
        OwnedEvent::CallStarted { index: next, .. } => next.0 > index,
        _ => false,
    });
    repairs.contains(Repair::MissingClosers)
        && !repairs.contains(Repair::ArgumentsString)
        && !repairs.contains(Repair::StrayText)
        && !ends_with_marker
        && !read_after
}
