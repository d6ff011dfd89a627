//! InternLM2 / 2.5, Intern-S1: `<|action_start|><|plugin|>{"name", "parameters"}<|action_end|>`
//! (Intern-S1 writes a blank between the two tokens: `<|action_start|> <|plugin|>`).

use super::{llama3_json, Body, CallForm, Dialect, Spec};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::InternLm,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[
        CallForm {
            opener: b"<|action_start|><|plugin|>",
            body: Body::Envelope(&llama3_json::ENVELOPE),
            closer: b"<|action_end|>",
            ..CallForm::BASE
        },
        CallForm {
            opener: b"<|action_start|> <|plugin|>",
            body: Body::Envelope(&llama3_json::ENVELOPE),
            closer: b"<|action_end|>",
            ..CallForm::BASE
        },
    ],
    strip: &[b"<|action_end|>", b"<|im_end|>", b"</think>"],
};
