//! Cohere Command R7B / Command A: `<|START_ACTION|>[{"tool_call_id", "tool_name",
//! "parameters"}, ...]<|END_ACTION|>`, reasoning in `<|START_THINKING|>`, text in
//! `<|START_RESPONSE|>...<|END_RESPONSE|>`.

use super::{Body, CallForm, Dialect, EnvelopeSpec, Spec};
use crate::render::{
    Ids, Layout,
    Piece::{Markup as M, Slot},
};
use crate::repairs::Repair;

static ENVELOPE: EnvelopeSpec = EnvelopeSpec {
    name_keys: &["tool_name", "name"],
    args_keys: &[
        ("parameters", None),
        ("arguments", None),
        ("args", Some(Repair::ParametersKey)),
    ],
    id_keys: &["tool_call_id", "id"],
    name_is_key: false,
    id_after_arguments: false,
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::CommandR,
    reasoning: &[(b"<|START_THINKING|>", b"<|END_THINKING|>")],
    calls: &[CallForm {
        opener: b"<|START_ACTION|>",
        body: Body::Envelope(&ENVELOPE),
        closer: b"<|END_ACTION|>",
        ..CallForm::BASE
    }],
    strip: &[
        b"<|END_ACTION|>",
        b"<|END_THINKING|>",
        b"<|START_RESPONSE|>",
        b"<|END_RESPONSE|>",
        b"<|END_OF_TURN_TOKEN|>",
    ],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)): the
/// call id is its position unless one is given.
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "command_r",
    note: "Command R7B, Command A",
    reasoning: &[M("<|START_THINKING|>"), Slot, M("<|END_THINKING|>")],
    text: &[M("<|START_RESPONSE|>"), Slot, M("<|END_RESPONSE|>")],
    calls_open: &[M("<|START_ACTION|>[\n    ")],
    call: "{\"tool_call_id\": \"$id\", \"tool_name\": \"$name\", \"parameters\": $args}",
    ids: Ids::Default("$index"),
    between: &[M(",\n    ")],
    calls_close: &[M("\n]<|END_ACTION|>")],
    after: &[M("<|START_RESPONSE|>"), Slot, M("<|END_RESPONSE|>")],
    end_of_turn: "<|END_OF_TURN_TOKEN|>",
    closing_markup: &["<|END_ACTION|>"],
    ..Layout::BASE
}];
