//! FunctionGemma (270M): `<start_function_call>call:NAME{key:<escape>value<escape>,n:1}
//! <end_function_call>`; the `<escape>` token delimits raw strings, keys are bare.

use super::{Body, CallForm, Dialect, NameArgsSpec, Spec};
use crate::render::{Args, Layout};
use crate::repairs::Repair;

static CALL: NameArgsSpec = NameArgsSpec {
    name_prefix: b"call:",
    separator: b"",
    alt_string: b"<escape>",
    native: &[Repair::UnquotedKey],
    ..NameArgsSpec::BASE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::FunctionGemma,
    reasoning: &[],
    calls: &[CallForm {
        opener: b"<start_function_call>",
        body: Body::NameArgs(&CALL),
        closer: b"<end_function_call>",
        implies: None,
        anchored: false,
        ..CallForm::BASE
    }],
    strip: &[
        b"<end_function_call>",
        b"<start_function_response>",
        b"<end_function_response>",
        b"<end_of_turn>",
    ],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "functiongemma",
    note: "FunctionGemma 270M",
    call: "<start_function_call>call:$name$args<end_function_call>",
    args: Args::Delimited { quote: "<escape>" },
    end_of_turn: "<end_of_turn>",
    closing_markup: &["<escape>", "<end_function_call>"],
    ..Layout::BASE
}];
