//! rednote dots.llm: `<dots_function_call>` around `<invoke name="NAME"><parameter
//! name="K">V</parameter></invoke>` calls (MiniMax M2's elements, several invokes per
//! block), or one JSON call object `{"name": ..., "arguments": {...}}` as the block.
//! Values are raw text, typed by the schema (without one, by what they read as).

use super::{Body, CallForm, Dialect, Spec, XmlSpec, HERMES_ENVELOPE};
use crate::render::{
    Args, Layout, Params,
    Piece::{Markup as M, Slot, Text as T},
    THINK,
};

static XML: XmlSpec = XmlSpec::INVOKE;

/// The block holding a call object rather than invokes.
const fn json_block(opener: &'static [u8]) -> CallForm {
    CallForm {
        opener,
        body: Body::Envelope(&HERMES_ENVELOPE),
        body_prefix: b"{",
        closer: b"</dots_function_call>",
        ..CallForm::BASE
    }
}

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Dots,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[
        CallForm {
            opener: b"<invoke name=",
            body: Body::Xml(&XML),
            ..CallForm::BASE
        },
        json_block(b"<dots_function_call>{"),
        json_block(b"<dots_function_call>\n{"),
    ],
    strip: &[
        b"<dots_function_call>",
        b"</dots_function_call>",
        b"</invoke>",
        b"</parameter>",
        b"</think>",
    ],
};

/// Strings raw, other values as JSON.
static PARAMS: Params = Params {
    param: "<parameter name=\"$key\">$value</parameter>\n",
    python_values: false,
    cdata: false,
    escape_attributes: false,
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)): invokes
/// one a line in one block, or (the parsers' fallback) a call object per block.
pub(crate) static FORMS: &[Layout] = &[
    Layout {
        name: "invoke",
        note: "dots.llm (`<invoke>` elements)",
        reasoning: THINK,
        text: &[Slot, T("\n")],
        calls_open: &[M("<dots_function_call>"), T("\n")],
        call: "<invoke name=\"$name\">\n$args</invoke>",
        args: Args::Params(&PARAMS),
        between: &[T("\n")],
        calls_close: &[T("\n"), M("</dots_function_call>")],
        after: &[T("\n"), Slot],
        closing_markup: &["</parameter>", "</invoke>", "</dots_function_call>"],
        ..Layout::BASE
    },
    Layout {
        name: "json",
        note: "dots.llm (a call object per block)",
        reasoning: THINK,
        text: &[Slot, T("\n")],
        call: "<dots_function_call>\n{\"name\": \"$name\", \"arguments\": $args}\n</dots_function_call>",
        between: &[T("\n")],
        after: &[T("\n"), Slot],
        closing_markup: &["</dots_function_call>"],
        ..Layout::BASE
    },
];
