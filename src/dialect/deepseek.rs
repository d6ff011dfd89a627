//! DeepSeek V3 / R1 and V3.1. Each call is `<｜tool▁call▁begin｜>` ... `<｜tool▁call▁end｜>`
//! inside `<｜tool▁calls▁begin｜>` ... `<｜tool▁calls▁end｜>`:
//! V3/R1 `function<｜tool▁sep｜>NAME\n```json\n{...}\n```` (a fenced body),
//! V3.1 `NAME<｜tool▁sep｜>{...}`. The bars are U+FF5C and the spaces U+2581, matched as
//! bytes; R1 distills also write look-alike section markers, stripped as well.

use super::{Body, CallForm, Dialect, NameArgsSpec, Spec};
use crate::render::{
    Layout,
    Piece::{Markup as M, Text as T},
    THINK,
};
use crate::repairs::Repair;

/// After the call opener: an optional `function<｜tool▁sep｜>`, the name, then either
/// `<｜tool▁sep｜>` (V3.1) or a `` ```json `` fence (V3).
static CALL: NameArgsSpec = NameArgsSpec {
    name_prefix: "function<｜tool▁sep｜>".as_bytes(),
    separator: "<｜tool▁sep｜>".as_bytes(),
    alt_separator: b"```json",
    ..NameArgsSpec::BASE
};

/// The call opener dropped: `function<｜tool▁sep｜>NAME...`.
static BARE: NameArgsSpec = NameArgsSpec {
    name_prefix: b"",
    ..CALL
};

const CLOSER: &[u8] = "<｜tool▁call▁end｜>".as_bytes();

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::DeepSeekV3,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[
        CallForm {
            opener: "<｜tool▁call▁begin｜>".as_bytes(),
            body: Body::NameArgs(&CALL),
            closer: CLOSER,
            trailer: b"```",
            ..CallForm::BASE
        },
        CallForm {
            opener: "function<｜tool▁sep｜>".as_bytes(),
            body: Body::NameArgs(&BARE),
            closer: CLOSER,
            implies: Some(Repair::MissingOpener),
            trailer: b"```",
            ..CallForm::BASE
        },
    ],
    strip: &[
        "<｜tool▁calls▁begin｜>".as_bytes(),
        "<｜tool_calls_begin｜>".as_bytes(),
        "<｜tool calls begin｜>".as_bytes(),
        "<｜tool\\_calls\\_begin｜>".as_bytes(),
        "<｜tool▁calls｜>".as_bytes(),
        "<｜tool▁calls▁end｜>".as_bytes(),
        "<｜tool_calls_end｜>".as_bytes(),
        "<｜tool calls end｜>".as_bytes(),
        CLOSER,
        "<｜tool▁sep｜>".as_bytes(),
        "<｜end▁of▁sentence｜>".as_bytes(),
        b"</think>",
    ],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[
    Layout {
        name: "v3",
        note: "DeepSeek V3, V3-0324, R1, R1-0528",
        reasoning: THINK,
        calls_open: &[M("<｜tool▁calls▁begin｜>")],
        call: "<｜tool▁call▁begin｜>function<｜tool▁sep｜>$name\n```json\n$args\n```<｜tool▁call▁end｜>",
        between: &[T("\n")],
        calls_close: &[M("<｜tool▁calls▁end｜>")],
        end_of_turn: "<｜end▁of▁sentence｜>",
        closing_markup: &["<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>"],
        ..Layout::BASE
    },
    Layout {
        name: "v3.1",
        note: "DeepSeek V3.1, V3.1-Terminus",
        reasoning: THINK,
        calls_open: &[M("<｜tool▁calls▁begin｜>")],
        call: "<｜tool▁call▁begin｜>$name<｜tool▁sep｜>$args<｜tool▁call▁end｜>",
        calls_close: &[M("<｜tool▁calls▁end｜>")],
        end_of_turn: "<｜end▁of▁sentence｜>",
        closing_markup: &["<｜tool▁call▁end｜>", "<｜tool▁calls▁end｜>"],
        ..Layout::BASE
    },
];
