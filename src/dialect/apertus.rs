//! Swiss AI Apertus: `<|tools_prefix|>[{"NAME": {...}}, {"NAME": {...}}]<|tools_suffix|>`,
//! each call an object whose one key is the tool's name; reasoning (with internal
//! calls) in `<|inner_prefix|>` ... `<|inner_suffix|>`. Every block is read: a second
//! one is calls too, never text.

use super::{Body, CallForm, Dialect, EnvelopeSpec, Spec};

static ENVELOPE: EnvelopeSpec = EnvelopeSpec {
    name_keys: &[],
    args_keys: &[],
    id_keys: &[],
    name_is_key: true,
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Apertus,
    reasoning: &[(b"<|inner_prefix|>", b"<|inner_suffix|>")],
    calls: &[CallForm {
        opener: b"<|tools_prefix|>",
        body: Body::Envelope(&ENVELOPE),
        closer: b"<|tools_suffix|>",
        repeats: true,
        ..CallForm::BASE
    }],
    strip: &[
        b"<|tools_suffix|>",
        b"<|inner_suffix|>",
        b"<|assistant_end|>",
    ],
};
