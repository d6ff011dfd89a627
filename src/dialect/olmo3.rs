//! Olmo 3: `<function_calls>` with one Python call per line, `</function_calls>`;
//! reasoning in `<think>` ... `</think>`.

use super::{Body, CallForm, Dialect, PythonicSpec, Spec};

static CALLS: PythonicSpec = PythonicSpec { in_list: false };

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Olmo3,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[CallForm {
        opener: b"<function_calls>",
        body: Body::Pythonic(&CALLS),
        closer: b"</function_calls>",
        implies: None,
        anchored: false,
        ..CallForm::BASE
    }],
    strip: &[
        b"</function_calls>",
        b"</think>",
        b"<|im_end|>",
        b"<|endoftext|>",
    ],
};
