//! InternLM2 / 2.5, Intern-S1: `<|action_start|><|plugin|>{"name", "parameters"}<|action_end|>`
//! (Intern-S1 writes a blank between the two tokens: `<|action_start|> <|plugin|>`).

use super::{llama3_json, Body, CallForm, Dialect, Spec};
use crate::render::{Layout, Piece::Text as T, THINK};

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

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "internlm",
    note: "InternLM2/2.5, Intern-S1",
    reasoning: THINK,
    call: "<|action_start|><|plugin|>\n{\"name\": \"$name\", \"parameters\": $args}<|action_end|>",
    between: &[T("\n")],
    end_of_turn: "<|im_end|>",
    closing_markup: &["<|action_end|>"],
    ..Layout::BASE
}];
