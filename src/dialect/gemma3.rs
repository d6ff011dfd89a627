//! Gemma 3 (no tool tokens; community templates): a fenced Python call
//! ```` ```tool_code\nget_weather(city="Tokyo")\n``` ````, or `tool_code = f(...)` on a
//! line of its own.

use super::{Body, CallForm, Dialect, PythonicSpec, Spec};
use crate::render::{
    Args, Layout,
    Piece::{Markup as M, Slot, Text as T},
};

static CALLS: PythonicSpec = PythonicSpec {
    in_list: false,
    markerless: false,
};

/// `tool_code = f(...)` ends with its call.
const ASSIGNED: CallForm = CallForm {
    opener: b"tool_code =",
    body: Body::Pythonic(&CALLS),
    closer: b"",
    implies: None,
    anchored: true,
    ..CallForm::BASE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Gemma3,
    reasoning: &[],
    calls: &[
        CallForm {
            opener: b"```tool_code",
            body: Body::Pythonic(&CALLS),
            closer: b"```",
            implies: None,
            anchored: false,
            ..CallForm::BASE
        },
        ASSIGNED,
        CallForm {
            opener: b"tool_code=",
            ..ASSIGNED
        },
    ],
    strip: &[b"<end_of_turn>"],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "gemma3",
    note: "Gemma 3 with community tool templates",
    text: &[Slot, T("\n")],
    calls_open: &[M("```tool_code\n")],
    call: "$name($args)",
    args: Args::Python {
        json_literals: false,
    },
    between: &[M("\n")],
    calls_close: &[M("\n```")],
    after: &[T("\n"), Slot],
    end_of_turn: "<end_of_turn>",
    closing_markup: &["```"],
    ..Layout::BASE
}];
