//! PLaMo 3: every marker is `<|plamo:...:plamo|>`. A call is `<|plamo:begin_tool_request:
//! plamo|><|plamo:begin_tool_name:plamo|>NAME<|plamo:end_tool_name:plamo|>
//! <|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>{...}
//! <|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>`, the calls inside
//! `<|plamo:begin_tool_requests:plamo|>` ... `<|plamo:end_tool_requests:plamo|>`.
//! Reasoning is `<|plamo:begin_think:plamo|>` ... `<|plamo:end_think:plamo|>` (the
//! template opens it in the prompt: thinking needs `reasoning_open`); `<|plamo:tag|>`
//! ends the turn.

use super::{Body, CallForm, Dialect, NameArgsSpec, Spec};
use crate::render::{
    Layout,
    Piece::{Markup as M, Slot},
};

const ARGS: &[u8] = b"<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>";

static CALL: NameArgsSpec = NameArgsSpec {
    separator: ARGS,
    ..NameArgsSpec::BASE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Plamo3,
    reasoning: &[(b"<|plamo:begin_think:plamo|>", b"<|plamo:end_think:plamo|>")],
    calls: &[CallForm {
        opener: b"<|plamo:begin_tool_name:plamo|>",
        body: Body::NameArgs(&CALL),
        closer: b"<|plamo:end_tool_arguments:plamo|>",
        ..CallForm::BASE
    }],
    strip: &[
        b"<|plamo:begin_tool_requests:plamo|>",
        b"<|plamo:end_tool_requests:plamo|>",
        b"<|plamo:begin_tool_request:plamo|>",
        b"<|plamo:end_tool_request:plamo|>",
        b"<|plamo:end_tool_arguments:plamo|>",
        b"<|plamo:end_think:plamo|>",
        b"<|plamo:tag|>",
    ],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)), as
/// vLLM's `plamo3` structural tag lays them out: the requests right after the text, no
/// separator; the prompt opens the reasoning when thinking.
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "plamo3",
    note: "PLaMo 3",
    reasoning: &[Slot, M("<|plamo:end_think:plamo|>")],
    prompt_opens_reasoning: true,
    calls_open: &[M("<|plamo:begin_tool_requests:plamo|>")],
    call: "<|plamo:begin_tool_request:plamo|><|plamo:begin_tool_name:plamo|>$name<|plamo:end_tool_name:plamo|><|plamo:begin_tool_arguments:plamo|><|plamo:constrain|>json<|plamo:msg|>$args<|plamo:end_tool_arguments:plamo|><|plamo:end_tool_request:plamo|>",
    calls_close: &[M("<|plamo:end_tool_requests:plamo|>")],
    after: &[],
    end_of_turn: "<|plamo:tag|>",
    closing_markup: &[
        "<|plamo:end_tool_arguments:plamo|>",
        "<|plamo:end_tool_requests:plamo|>",
    ],
    ..Layout::BASE
}];
