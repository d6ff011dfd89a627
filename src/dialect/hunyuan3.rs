//! Hunyuan 3: `<tool_calls:opensource>` around `<tool_call:opensource>NAME
//! <tool_sep:opensource><arg_key:opensource>K</arg_key:opensource><arg_value:opensource>
//! V</arg_value:opensource></tool_call:opensource>` (a missing `<tool_sep>` is repaired).
//! Hunyuan's JSON variant writes a call object in the same tag:
//! `<tool_call:opensource>{"name": ..., "arguments": {...}}</tool_call:opensource>`.

use super::{Body, CallForm, Dialect, Spec, XmlSpec, HERMES_ENVELOPE};

static XML: XmlSpec = XmlSpec {
    name_open: b"",
    name_close: b"<tool_sep:opensource>",
    key_open: b"<arg_key:opensource>",
    key_close: b"</arg_key:opensource>",
    value_close: b"</arg_value:opensource",
    func_close: b"",
    nameless: false,
    value_open: b"<arg_value:opensource>",
    framed: false,
    tag_prefix: b"",
    ..XmlSpec::BASE
};

/// A call object (`{` or `[`) or the tag grammar, by how the body begins.
static BODIES: [Body; 2] = [Body::Envelope(&HERMES_ENVELOPE), Body::Xml(&XML)];

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Hunyuan3,
    // A block the chat template opened may end in `</think:opensource>`.
    reasoning: &[
        (b"<think>", b"</think>"),
        (b"<think>", b"</think:opensource>"),
    ],
    calls: &[CallForm {
        opener: b"<tool_call:opensource>",
        body: Body::Sniff(&BODIES),
        closer: b"</tool_call:opensource>",
        implies: None,
        anchored: false,
        ..CallForm::BASE
    }],
    strip: &[
        b"<tool_calls:opensource>",
        b"</tool_calls:opensource>",
        b"</tool_call:opensource>",
        b"</arg_key:opensource>",
        b"</arg_value:opensource>",
        b"</think>",
        b"</think:opensource>",
        b"<answer>",
        b"</answer>",
    ],
};
