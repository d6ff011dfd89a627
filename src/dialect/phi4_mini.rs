//! Phi-4-mini (and Firefunction v2): `functools[{"name", "arguments"}, ...]`, no closer.

use super::{Body, CallForm, Dialect, Spec, HERMES_ENVELOPE};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Phi4Mini,
    reasoning: &[],
    calls: &[CallForm {
        opener: b"functools[",
        body: Body::Envelope(&HERMES_ENVELOPE),
        body_prefix: b"[",
        ..CallForm::BASE
    }],
    strip: &[b"<|end|>"],
};
