//! A call's extent: what bounds a call, and what the bytes after a body the model
//! closed itself say about where it ended. One place for every grammar: the call's
//! closer, an end-of-turn or section token, the next call's opener and the end of the
//! stream bound a call the same way.

use crate::dialect::{auto_specs, CallForm, Dialect};
use crate::scan::MarkerSet;

/// Whether `text`, read after a JSON call object the model closed itself and before the
/// call's closer, was the rest of the body: it ends in `}` (a raw `"}}` inside a string
/// looked like the body's end).
pub(crate) fn body_went_on(text: &[u8]) -> bool {
    text.trim_ascii_end().ends_with(b"}")
}

/// Where a closing tag standing for `closer` ends, when `text` begins with one (past
/// blanks): see [`misspelled_closer`].
pub(crate) fn misspelled_closer_at(closer: &[u8], text: &[u8]) -> Option<usize> {
    let blanks = text.len() - text.trim_ascii_start().len();
    let rest = &text[blanks..];
    let end = memchr::memchr(b'>', &rest[..rest.len().min(40)])?;
    (misspelled_closer(closer, &rest[..=end]) == Some(true)).then_some(blanks + end + 1)
}

/// The markers that end an unfinished body of a call of `form` where structure is
/// expected: its closer (or, without one, the next call's opener and a repeat
/// separator), and the end-of-turn and section markers of its dialect, which also tell
/// the look-ahead that a value may end before them.
pub(crate) fn call_terminators(form: &'static CallForm) -> MarkerSet {
    let mut terminators = MarkerSet::default();
    if !form.closer.is_empty() {
        terminators.push(form.closer);
    } else {
        if !form.anchored && form.opener.len() > 1 {
            terminators.push(form.opener);
        }
        if form.repeats {
            terminators.push(b";");
        }
    }
    let all = auto_specs()
        .iter()
        .copied()
        .chain(Dialect::ALL.iter().map(|d| d.spec()));
    for spec in all {
        if spec.calls.iter().any(|f| std::ptr::eq(f, form)) {
            for &m in spec.strip.iter().filter(|m| m.len() > 1) {
                terminators.push(m);
            }
            if form.closer.is_empty() && form.name_before {
                // With no closer, the dialect's other openers end the call too (a
                // `[TOOL_CALLS]` after a call read from a name held before `[ARGS]`).
                let others = spec
                    .calls
                    .iter()
                    .filter(|f| !f.anchored && f.opener.len() > 1);
                for f in others {
                    terminators.push(f.opener);
                }
            }
        }
    }
    terminators
}

/// Whether `held`, right after a call's body, is a closing tag standing for the call's
/// closer `</...>` (`</tool_action>` for `</tool_call>`): see [`closing_tag`]; `None`
/// when the closer is no closing tag.
pub(crate) fn misspelled_closer(closer: &[u8], held: &[u8]) -> Option<bool> {
    if !closer.starts_with(b"</") || !closer.ends_with(b">") {
        return None;
    }
    closing_tag(held)
}

/// Whether `held` is a closing tag `</NAME>`: `Some(true)` when whole, `Some(false)`
/// while it may still become one, `None` when it cannot. A tag name is at most 32
/// bytes of letters, digits and `_ - . :`.
pub(crate) fn closing_tag(held: &[u8]) -> Option<bool> {
    let name = held.strip_prefix(b"</")?;
    let is_name = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':');
    match name.split_last() {
        None => Some(false),
        Some((b'>', name)) if !name.is_empty() && name.iter().all(is_name) => Some(true),
        Some(_) if name.len() <= 32 && name.iter().all(is_name) => Some(false),
        Some(_) => None,
    }
}
