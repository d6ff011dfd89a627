//! Llama 3.x JSON: `{"name": ..., "parameters": {...}}` at the start of the output or
//! after `<|python_tag|>`, parallel calls separated by `;`; Llama 4 wraps it in
//! `<|python_start|>...<|python_end|>`. `parameters` is native here.

use super::{Body, CallForm, Dialect, EnvelopeSpec, Spec};
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
