//! Llama 3.x JSON: `{"name": ..., "parameters": {...}}` at the start of the output or
//! after `<|python_tag|>`, parallel calls separated by `;`; Llama 4 wraps it in
//! `<|python_start|>...<|python_end|>`. `parameters` is native here.

use super::{Body, CallForm, Dialect, EnvelopeSpec, Spec};
use crate::render::{InAuto, Layout, Piece::Markup as M};
use crate::repairs::Repair;

/// Llama's call object: `parameters` (and `arguments`) are both native.
pub(crate) static ENVELOPE: EnvelopeSpec = EnvelopeSpec {
    name_keys: &["name", "tool_name", "function_name"],
    args_keys: &[
        ("parameters", None),
        ("arguments", None),
        ("args", Some(Repair::ParametersKey)),
        ("input", Some(Repair::ParametersKey)),
    ],
    id_keys: &["id", "tool_call_id", "call_id"],
    name_is_key: false,
    id_after_arguments: false,
};

/// The forms with a marker.
const PYTHON_TAG: CallForm = CallForm {
    opener: b"<|python_tag|>",
    body: Body::Envelope(&ENVELOPE),
    repeats: true,
    ..CallForm::BASE
};
/// Llama 4 writes JSON or a pythonic call list after `<|python_start|>`: a list whose
/// first item is a name is pythonic, anything else the JSON envelope.
static PYTHON_START_BODIES: [Body; 2] = [
    Body::Pythonic(&super::pythonic::TAGGED),
    Body::Envelope(&ENVELOPE),
];

const PYTHON_START: CallForm = CallForm {
    opener: b"<|python_start|>",
    body: Body::Sniff(&PYTHON_START_BODIES),
    closer: b"<|python_end|>",
    repeats: true,
    ..CallForm::BASE
};

/// The next call object after a `;`: where a call object that did not close expects
/// structure, its call ended there unfinished (an invalid object, then a valid one).
const NEXT_CALL: &[&[u8]] = &[
    b";{\"name\"",
    b"; {\"name\"",
    b";\n{\"name\"",
    b"; \n{\"name\"",
];

const STRIP: &[&[u8]] = &[b"<|eom_id|>", b"<|eot_id|>", b"<|python_end|>", b"<|eot|>"];

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Llama3Json,
    reasoning: &[],
    calls: &[
        PYTHON_TAG,
        PYTHON_START,
        // Bare JSON counts only at the start of the output.
        CallForm {
            opener: b"{",
            body: Body::Envelope(&ENVELOPE),
            anchored: true,
            body_prefix: b"{",
            start_only: true,
            repeats: true,
            heuristic: true,
            next_call: NEXT_CALL,
            after_calls: true,
            ..CallForm::BASE
        },
    ],
    strip: STRIP,
};

/// In `auto`, only the marked forms: bare JSON is opt-in.
pub(crate) static AUTO_SPEC: Spec = Spec {
    dialect: Dialect::Llama3Json,
    reasoning: &[],
    calls: &[PYTHON_TAG, PYTHON_START],
    strip: STRIP,
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[
    Layout {
        name: "python_tag",
        note: "Llama 3.1-3.3 (ipython mode)",
        calls_open: &[M("<|python_tag|>")],
        call: "{\"name\": \"$name\", \"parameters\": $args}",
        between: &[M("; ")],
        end_of_turn: "<|eom_id|>",
        closing_markup: &["<|eom_id|>", "<|eot_id|>"],
        ..Layout::BASE
    },
    Layout {
        name: "bare",
        note: "Llama 3.x JSON templates: the call object is the whole output",
        text: &[],
        call: "{\"name\": \"$name\", \"parameters\": $args}",
        between: &[M("; ")],
        end_of_turn: "<|eot_id|>",
        closing_markup: &["<|eot_id|>"],
        auto: InAuto::No,
        ..Layout::BASE
    },
    Layout {
        name: "llama4",
        note: "Llama 4 with the JSON template",
        calls_open: &[M("<|python_start|>")],
        call: "{\"name\": \"$name\", \"parameters\": $args}",
        between: &[M("; ")],
        calls_close: &[M("<|python_end|>")],
        end_of_turn: "<|eot|>",
        closing_markup: &["<|python_end|>", "<|eot|>"],
        ..Layout::BASE
    },
];
