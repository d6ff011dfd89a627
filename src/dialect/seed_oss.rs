//! Seed-OSS: the Qwen3-Coder body in `<seed:tool_call>` ... `</seed:tool_call>`,
//! reasoning in `<seed:think>` ... `</seed:think>`.

use super::{qwen3_coder, Body, CallForm, Dialect, Spec, XmlSpec};

/// Qwen3-Coder's grammar, as Seed-OSS's own (so `auto` locks onto Seed-OSS).
static XML: XmlSpec = XmlSpec { ..qwen3_coder::XML };

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::SeedOss,
    reasoning: &[(b"<seed:think>", b"</seed:think>")],
    calls: &[CallForm {
        opener: b"<seed:tool_call>",
        body: Body::Xml(&XML),
        closer: b"</seed:tool_call>",
        implies: None,
        anchored: false,
        ..CallForm::BASE
    }],
    strip: &[
        b"</seed:tool_call>",
        b"</seed:think>",
        b"</function>",
        b"</parameter>",
        b"<seed:eos>",
    ],
};
