//! AI21 Jamba: `<tool_calls>[{"name", "arguments"}, ...]</tool_calls>`. The same wrapper
//! carries Hunyuan's array and MiniMax M1's one object per line, so the form repeats.
//! Calls written as elements inside it are read too (`tool_elements`).

use super::{tool_elements::TOOL_CALLS_BODIES, Body, CallForm, Dialect, Spec};
use crate::render::{Layout, Piece::Markup as M};

/// `<tool_calls>` + an array, or objects one per line (or calls as elements), +
/// `</tool_calls>`.
pub(crate) const TOOL_CALLS: CallForm = CallForm {
    opener: b"<tool_calls>",
    body: Body::Sniff(&TOOL_CALLS_BODIES),
    closer: b"</tool_calls>",
    repeats: true,
    ..CallForm::BASE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Jamba,
    reasoning: &[],
    calls: &[TOOL_CALLS],
    strip: &[b"</tool_calls>", b"<|eom|>"],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "jamba",
    note: "AI21 Jamba 1.5",
    calls_open: &[M("<tool_calls>[")],
    call: "{\"name\": \"$name\", \"arguments\": $args}",
    between: &[M(", ")],
    calls_close: &[M("]</tool_calls>")],
    end_of_turn: "<|eom|>",
    closing_markup: &["</tool_calls>"],
    ..Layout::BASE
}];
