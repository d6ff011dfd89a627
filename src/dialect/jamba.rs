//! AI21 Jamba: `<tool_calls>[{"name", "arguments"}, ...]</tool_calls>`. The same wrapper
//! carries Hunyuan's array and MiniMax M1's one object per line, so the form repeats.

use super::{Body, CallForm, Dialect, Spec, HERMES_ENVELOPE};

/// `<tool_calls>` + an array, or objects one per line, + `</tool_calls>`.
pub(crate) const TOOL_CALLS: CallForm = CallForm {
    opener: b"<tool_calls>",
    body: Body::Envelope(&HERMES_ENVELOPE),
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
