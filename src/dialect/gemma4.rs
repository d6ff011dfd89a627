//! Gemma 4: `<|tool_call>call:NAME{key:<|"|>value<|"|>,n:42}<tool_call|>`, reasoning in
//! `<|channel>thought ... <channel|>`.

use super::{Body, CallForm, Dialect, NameArgsSpec, Spec};
use crate::render::{
    Args, Layout,
    Piece::{Markup as M, Reasoning as R, Slot},
};
use crate::repairs::Repair;

/// After `<|tool_call>`: `call:NAME{...}`.
static CALL: NameArgsSpec = NameArgsSpec {
    name_prefix: b"call:",
    separator: b"",
    alt_string: b"<|\"|>",
    native: &[Repair::UnquotedKey],
    ..NameArgsSpec::BASE
};

/// The opener dropped: `call:NAME{...}` at the start of a line.
static BARE: NameArgsSpec = NameArgsSpec {
    name_prefix: b"",
    ..CALL
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Gemma4,
    // Output may begin with a bare `<|channel>` (the channel name dropped).
    reasoning: &[
        (b"<|channel>thought", b"<channel|>"),
        (b"<|channel>", b"<channel|>"),
    ],
    calls: &[
        CallForm {
            opener: b"<|tool_call>",
            body: Body::NameArgs(&CALL),
            closer: b"<tool_call|>",
            implies: None,
            anchored: false,
            ..CallForm::BASE
        },
        CallForm {
            opener: b"call:",
            body: Body::NameArgs(&BARE),
            closer: b"<tool_call|>",
            implies: Some(Repair::MissingOpener),
            anchored: true,
            ..CallForm::BASE
        },
    ],
    strip: &[
        b"<tool_call|>",
        b"<channel|>",
        b"<end_of_turn>",
        b"<|tool_response>",
        b"<turn|>",
    ],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "gemma4",
    note: "Gemma 4 (its chat template writes keys sorted; any order reads)",
    reasoning: &[
        M("<|channel>thought"),
        R("\n"),
        Slot,
        R("\n"),
        M("<channel|>"),
    ],
    call: "<|tool_call>call:$name$args<tool_call|>",
    args: Args::Delimited { quote: "<|\"|>" },
    end_of_turn: "<turn|>",
    closing_markup: &["<|\"|>", "<tool_call|>"],
    ..Layout::BASE
}];
