//! MeetKai Functionary. v3.2: `>>>NAME\n{json}` per call, text as `>>>all\n...`;
//! v3.1: `<function=NAME>{json}</function>`. Both opt-in (`>>>` and `<function=` mean
//! other things in other dialects).

use super::{Body, CallForm, Dialect, NameArgsSpec, Spec};

/// `NAME\n{...}`.
static V32_CALL: NameArgsSpec = NameArgsSpec {
    separator: b"\n",
    ..NameArgsSpec::BASE
};

pub(crate) static V32: Spec = Spec {
    dialect: Dialect::FunctionaryV32,
    reasoning: &[],
    calls: &[CallForm {
        opener: b">>>",
        body: Body::NameArgs(&V32_CALL),
        ..CallForm::BASE
    }],
    // The longer `>>>all\n` wins over `>>>`: text follows.
    strip: &[b">>>all\n", b"<|eot_id|>", b"<|eom_id|>"],
};

/// `NAME>{...}`.
static V31_CALL: NameArgsSpec = NameArgsSpec {
    separator: b">",
    ..NameArgsSpec::BASE
};

pub(crate) static V31: Spec = Spec {
    dialect: Dialect::FunctionaryV31,
    reasoning: &[],
    calls: &[CallForm {
        opener: b"<function=",
        body: Body::NameArgs(&V31_CALL),
        closer: b"</function>",
        ..CallForm::BASE
    }],
    strip: &[b"</function>", b"<|eot_id|>", b"<|eom_id|>"],
};
