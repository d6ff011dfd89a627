//! gpt-oss harmony: messages `<|start|>assistant<|channel|>CHANNEL<|message|>...<|end|>`.
//! Output usually starts at `<|channel|>` (the first `<|start|>assistant` was in the
//! prompt). `analysis` is reasoning, `final` and `commentary` without a recipient are
//! text, and a recipient (`to=functions.NAME`, in the role part or the channel part,
//! on any channel) makes the message a call whose content is its JSON arguments.

use super::{Body, CallForm, Dialect, HarmonySpec, Spec};

static HEADER: HarmonySpec = HarmonySpec {
    json_args: true,
    reasoning_close: b"<|end|>",
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Harmony,
    reasoning: &[(b"<|channel|>analysis<|message|>", b"<|end|>")],
    calls: &[
        CallForm {
            opener: b"<|channel|>",
            body: Body::Harmony(&HEADER),
            closer: b"",
            implies: None,
            anchored: false,
            ..CallForm::BASE
        },
        CallForm {
            opener: b"<|start|>",
            body: Body::Harmony(&HEADER),
            closer: b"",
            implies: None,
            anchored: false,
            ..CallForm::BASE
        },
    ],
    strip: &[
        b"<|end|>",
        b"<|call|>",
        b"<|return|>",
        b"<|message|>",
        b"<|constrain|>",
        b"<|endoftext|>",
    ],
};
