//! Drift inside a `<tool_calls>` section (Jamba's, Hunyuan A13B's, MiniMax M1's): small
//! models write the call as XML elements instead of a JSON call object. Either the tool
//! is named by its own element and the arguments are its siblings,
//!
//! ```text
//! <tool_calls>
//! <tool_name>shell</tool_name>
//! <command>ls -la</command>
//! </tool_calls>
//! ```
//!
//! or the tool's name is in the tag, the arguments elements or one JSON object inside it,
//! often closed by another tag than its own (`</tool_call>`):
//!
//! ```text
//! <tool_calls>
//! <tool_write>{"path": "a.txt", "content": "hi"}</tool_call>
//! </tool_calls>
//! ```
//!
//! Both are bodies of elements (MiniMax M3's grammar): leaves are text typed by the
//! schema, and the body is read whole once it closes.
//!
//! Or the call is one self-closing tag, the arguments a JSON object in an attribute,
//! its quote often broken by the quotes inside (`ATTRIBUTE_CALL`, read in the Hermes
//! family's output):
//!
//! ```text
//! <tool name="read" arguments="{"path": "a.txt"}'/>
//! ```

use super::{Body, CallForm, XmlSpec, HERMES_ENVELOPE};

/// `<tool_name>NAME</tool_name>` then the arguments as elements, up to the section's
/// closer or the next `<tool_name>`.
static NAME_ELEMENT: XmlSpec = XmlSpec {
    name_open: b"<tool_name>",
    name_close: b"</tool_name>",
    element_keys: true,
    func_open: b"<tool_name>",
    ..XmlSpec::BASE
};

/// `<tool_NAME>` ... `</tool_NAME>`; the section's own tags are no tool's.
static NAME_IN_TAG: XmlSpec = XmlSpec {
    name_open: b"<tool_",
    name_close: b">",
    element_keys: true,
    name_in_tag: true,
    not_names: &[b"call", b"calls", b"name", b"sep"],
    ..XmlSpec::BASE
};

/// What a `<tool_calls>` section holds: JSON call objects, or either element form.
pub(crate) static TOOL_CALLS_BODIES: [Body; 3] = [
    Body::Envelope(&HERMES_ENVELOPE),
    Body::Xml(&NAME_ELEMENT),
    Body::Xml(&NAME_IN_TAG),
];

/// `<tool name="NAME" arguments='{...}'/>`.
static ATTRIBUTES: XmlSpec = XmlSpec {
    name_close: b" arguments=",
    func_close: b"/>",
    element_keys: true,
    attribute_call: true,
    ..XmlSpec::BASE
};

/// A call in one self-closing tag. A weak opener: at a line's start only, and what does
/// not follow it as a quoted name then the arguments attribute stays text.
pub(crate) const ATTRIBUTE_CALL: CallForm = CallForm {
    opener: b"<tool name=",
    body: Body::Xml(&ATTRIBUTES),
    anchored: true,
    ..CallForm::BASE
};
