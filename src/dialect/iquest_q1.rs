//! IQuest Q1: GLM's tag body in its own wrapper, `<iquest_tool_call>NAME<arg_key>K
//! </arg_key><arg_value>V</arg_value></iquest_tool_call>`; values typed by the schema.

use super::{glm, Body, CallForm, Dialect, Spec};
use crate::render::{Args, Layout, Piece::Text as T, THINK_TIGHT};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::IQuestQ1,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[CallForm {
        opener: b"<iquest_tool_call>",
        body: Body::Xml(&glm::XML),
        closer: b"</iquest_tool_call>",
        ..CallForm::BASE
    }],
    strip: &[
        b"</iquest_tool_call>",
        b"</think>",
        b"<arg_key>",
        b"</arg_key>",
        b"<arg_value>",
        b"</arg_value>",
    ],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)): GLM-4.7's
/// tight parameters in IQuest's wrapper, one call a line.
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "iquest_q1",
    note: "IQuest Q1",
    reasoning: THINK_TIGHT,
    call: "<iquest_tool_call>$name$args</iquest_tool_call>",
    args: Args::Params(&glm::TIGHT),
    between: &[T("\n")],
    closing_markup: &["</arg_value>", "</iquest_tool_call>"],
    ..Layout::BASE
}];
