//! IQuest Q1: GLM's tag body in its own wrapper, `<iquest_tool_call>NAME<arg_key>K
//! </arg_key><arg_value>V</arg_value></iquest_tool_call>`; values typed by the schema.

use super::{glm, Body, CallForm, Dialect, Spec};

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
