//! MiniMax M3: every structural tag carries the namespace marker `]<]minimax[>[`.
//! `NS<tool_call>` around `NS<invoke name="NAME">` calls whose parameters are named by
//! their own elements, `NS<city>Paris NS</city>`; objects nest as child elements and
//! lists repeat `NS<item>`. Leaves are raw text typed by the schema; reasoning is
//! `<mm:think>` ... `</mm:think>`.
//!
//! The marker is a special token: a server may decode it with a space after it, or
//! the model may drop it. A call whose body opens with the marker marks its tags: there
//! only a marked tag is markup, and a bare `</city>` in a value is text (a file about
//! tool calls), unless reading so leaves an element unclosed (a marker dropped), and a
//! marker inside a value is the value's text. A call written without it reads every
//! tag, and a marker alone there is dropped.

use super::{Body, CallForm, Dialect, Spec, XmlSpec};
use crate::render::{
    Args, Layout,
    Piece::{Markup as M, Slot, Text as T},
};

/// The namespace marker before every tag (a special token).
pub(crate) const NS: &[u8] = b"]<]minimax[>[";

static XML: XmlSpec = XmlSpec {
    name_close: b">",
    func_close: b"</invoke>",
    func_open: b"<invoke name=",
    element_keys: true,
    tag_ns: NS,
    ..XmlSpec::BASE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::MinimaxM3,
    reasoning: &[(b"<mm:think>", b"</mm:think>")],
    calls: &[
        CallForm {
            opener: b"]<]minimax[>[<invoke name=",
            body: Body::Xml(&XML),
            ..CallForm::BASE
        },
        CallForm {
            opener: b"<invoke name=",
            body: Body::Xml(&XML),
            ..CallForm::BASE
        },
    ],
    strip: &[
        b"]<]minimax[>[<tool_call>",
        b"]<]minimax[>[</tool_call>",
        b"]<]minimax[>[</invoke>",
        NS,
        b"<tool_call>",
        b"</tool_call>",
        b"</invoke>",
        b"</mm:think>",
        // MiniMax M2's section tags, when an M3 model writes them.
        b"<minimax:tool_call>",
        b"</minimax:tool_call>",
    ],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)): every
/// tag after the namespace marker, one element a line.
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "minimax_m3",
    note: "MiniMax M3",
    reasoning: &[M("<mm:think>"), Slot, M("</mm:think>")],
    text: &[Slot, T("\n")],
    calls_open: &[M("]<]minimax[>[<tool_call>"), T("\n")],
    call: "]<]minimax[>[<invoke name=\"$name\">\n$args]<]minimax[>[</invoke>",
    args: Args::Elements { ns: NS_STR },
    between: &[T("\n")],
    calls_close: &[T("\n"), M("]<]minimax[>[</tool_call>")],
    closing_markup: &["]<]minimax[>[</invoke>", "]<]minimax[>[</tool_call>"],
    ..Layout::BASE
}];

/// [`NS`] as text.
const NS_STR: &str = "]<]minimax[>[";
