//! Llama 3.2 / Llama 4 pythonic calls: the output is a Python list of calls
//! `[get_weather(city='Paris'), get_time()]`, bare or inside Llama 4's
//! `<|python_start|>` ... `<|python_end|>`.

use super::{Body, CallForm, Dialect, PythonicSpec, Spec};
use crate::render::{
    Args, InAuto, Layout,
    Piece::{Markup as M, Slot, Text as T},
};

/// After `<|python_start|>`: a list or calls one per line.
pub(crate) static TAGGED: PythonicSpec = PythonicSpec {
    in_list: false,
    markerless: false,
};

/// After a bare `[` at the start of a line.
static BARE: PythonicSpec = PythonicSpec {
    in_list: true,
    markerless: false,
};

const TAGGED_FORM: CallForm = CallForm {
    opener: b"<|python_start|>",
    body: Body::Pythonic(&TAGGED),
    closer: b"<|python_end|>",
    implies: None,
    anchored: false,
    ..CallForm::BASE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Pythonic,
    reasoning: &[],
    calls: &[
        TAGGED_FORM,
        // A weak opener: prose may begin with `[`; only `[NAME(` is a call.
        CallForm {
            opener: b"[",
            body: Body::Pythonic(&BARE),
            closer: b"",
            implies: None,
            anchored: true,
            ..CallForm::BASE
        },
    ],
    strip: &[b"<|python_end|>", b"<|eot_id|>", b"<|eom_id|>", b"<|eot|>"],
};

/// What `auto` knows of this dialect: the tagged form, and a bare list without a
/// marker, a call list only as `grammar/call_list.rs` says (every item a call whose
/// arguments are Python literals, the list ending its line): at the start of the
/// output (there also bare JSON's array, by its first item), and with tools declared
/// at the start of any line, naming one of them. Never locks `auto`: a bare `[` is too
/// common in prose.
pub(crate) static AUTO_SPEC: Spec = Spec {
    dialect: Dialect::Pythonic,
    reasoning: &[],
    calls: &[
        TAGGED_FORM,
        CallForm {
            opener: b"[",
            body: Body::Sniff(&AUTO_BARE),
            anchored: true,
            body_prefix: b"[",
            start_only: true,
            past_start: Some(&AUTO_LIST),
            heuristic: true,
            ..CallForm::BASE
        },
    ],
    strip: &[b"<|python_end|>"],
};

/// A bare list under `auto`, held until it shows whether it is a list of calls.
static MARKERLESS: PythonicSpec = PythonicSpec {
    in_list: false,
    markerless: true,
};

/// A markerless call list past the start of the output.
static AUTO_LIST: Body = Body::Pythonic(&MARKERLESS);

/// A bare list at the start of the output under `auto`: Python calls or JSON call
/// objects (the bare JSON heuristic's array), by its first item.
static AUTO_BARE: [Body; 2] = [
    Body::Pythonic(&MARKERLESS),
    Body::Envelope(&super::HERMES_ENVELOPE),
];

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[
    Layout {
        name: "bare",
        note: "Llama 3.2 / Llama 4 pythonic templates, ToolACE: a list at a line's start",
        text: &[Slot, T("\n")],
        calls_open: &[M("[")],
        call: "$name($args)",
        args: Args::Python {
            json_literals: false,
        },
        between: &[M(", ")],
        calls_close: &[M("]")],
        end_of_turn: "<|eot_id|>",
        closing_markup: &[")]"],
        auto: InAuto::Alone,
        ..Layout::BASE
    },
    Layout {
        name: "llama4",
        note: "Llama 4 in `<|python_start|>`",
        calls_open: &[M("<|python_start|>[")],
        call: "$name($args)",
        args: Args::Python {
            json_literals: false,
        },
        between: &[M(", ")],
        calls_close: &[M("]<|python_end|>")],
        end_of_turn: "<|eot|>",
        closing_markup: &["<|python_end|>"],
        ..Layout::BASE
    },
];
