//! Cohere Command R7B / Command A: `<|START_ACTION|>[{"tool_call_id", "tool_name",
//! "parameters"}, ...]<|END_ACTION|>`, reasoning in `<|START_THINKING|>`, text in
//! `<|START_RESPONSE|>...<|END_RESPONSE|>`.

use super::{Body, CallForm, Dialect, EnvelopeSpec, Spec};
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
