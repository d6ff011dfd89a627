//! MeetKai Functionary. v3.2: `>>>NAME\n{json}` per call, text as `>>>all\n...`;
//! v3.1: `<function=NAME>{json}</function>`. Both opt-in (`>>>` and `<function=` mean
//! other things in other dialects).

use super::{Body, CallForm, Dialect, NameArgsSpec, Spec};
use crate::render::{
    Layout,
    Piece::{Markup as M, Slot},
};

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

/// How a v3.2 model writes its calls ([`Dialect::render`](crate::Dialect::render)):
/// text and each call after `>>>`.
pub(crate) static V32_FORMS: &[Layout] = &[Layout {
    name: "functionary_v32",
    note: "Functionary v3.2",
    text: &[M(">>>all\n"), Slot],
    call: ">>>$name\n$args",
    after: &[M(">>>all\n"), Slot],
    end_of_turn: "<|eot_id|>",
    closing_markup: &[">>>", "<|eot_id|>"],
    ..Layout::BASE
}];

/// How a v3.1 model writes its calls.
pub(crate) static V31_FORMS: &[Layout] = &[Layout {
    name: "functionary_v31",
    note: "Functionary v3.1",
    call: "<function=$name>$args</function>",
    end_of_turn: "<|eom_id|>",
    closing_markup: &["</function>"],
    ..Layout::BASE
}];
