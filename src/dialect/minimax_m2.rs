//! MiniMax M2: `<minimax:tool_call><invoke name="NAME"><parameter name="KEY">V
//! </parameter></invoke>...</minimax:tool_call>`.
//!
//! The section is a wrapper; each `<invoke` begins a call, so several invokes in one
//! section are parallel calls. Values are raw text.
//!
//! MiniMax's namespace token `]<]minimax[>[` (M3's tag marker) shows up between the
//! tags as a tokenizer artifact: it is dropped wherever it appears.

use super::{Body, CallForm, Dialect, Spec, XmlSpec};
use crate::render::{
    Args, Layout, Params,
    Piece::{Markup as M, Slot, Text as T},
    THINK,
};

pub(crate) static XML: XmlSpec = XmlSpec {
    artifact: super::minimax_m3::NS,
    ..XmlSpec::INVOKE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::MinimaxM2,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[CallForm {
        opener: b"<invoke name=",
        body: Body::Xml(&XML),
        closer: b"",
        implies: None,
        anchored: false,
        ..CallForm::BASE
    }],
    strip: &[
        b"<minimax:tool_call>",
        b"</minimax:tool_call>",
        b"</invoke>",
        b"</parameter>",
        b"</think>",
        b"[e~[",
        super::minimax_m3::NS,
    ],
};

static PARAMS: Params = Params {
    param: "<parameter name=\"$key\">$value</parameter>\n",
    python_values: false,
    cdata: false,
    escape_attributes: false,
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "minimax_m2",
    note: "MiniMax M2, M2.1, M2.5, M2.7",
    reasoning: THINK,
    text: &[Slot, T("\n")],
    calls_open: &[M("<minimax:tool_call>"), T("\n")],
    call: "<invoke name=\"$name\">\n$args</invoke>",
    args: Args::Params(&PARAMS),
    between: &[T("\n")],
    calls_close: &[T("\n"), M("</minimax:tool_call>")],
    end_of_turn: "[e~[",
    closing_markup: &["</parameter>", "</invoke>", "</minimax:tool_call>"],
    ..Layout::BASE
}];
