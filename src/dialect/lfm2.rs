//! LiquidAI LFM2 / LFM2.5: `<|tool_call_start|>[name(arg="v")]<|tool_call_end|>`, or (an
//! older template) a JSON array of `{"name", "arguments"}` objects in the same markers;
//! reasoning in `<think>` ... `</think>`.

use super::{Body, CallForm, Dialect, PythonicSpec, Spec, HERMES_ENVELOPE};

static CALLS: PythonicSpec = PythonicSpec { in_list: false };

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Lfm2,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[CallForm {
        opener: b"<|tool_call_start|>",
        body: Body::Sniff(&[Body::Pythonic(&CALLS), Body::Envelope(&HERMES_ENVELOPE)]),
        closer: b"<|tool_call_end|>",
        implies: None,
        anchored: false,
        ..CallForm::BASE
    }],
    strip: &[b"<|tool_call_end|>", b"</think>", b"<|im_end|>"],
};
