//! GLM-4.5/4.6 (`<tool_call>NAME\n<arg_key>K</arg_key>\n<arg_value>V</arg_value>\n
//! </tool_call>`), GLM-4.7/5 (the same without newlines) and Poolside Laguna.
//!
//! The name ends at the first newline or tag; values are raw text (typed by the schema
//! when tools are given). `<tool_call>` is shared with Hermes and Qwen3-Coder: in `auto`
//! (and under Hermes) a body that begins with a name is read as GLM's. Hy3's plain
//! tags write the same body with `<tool_sep>` after the name: it is dropped. With the
//! `<tool_call>` dropped, the output begins `NAME<arg_key>` (`CallForm::name_before`).

use super::{Body, CallForm, Dialect, Spec, XmlSpec};
use crate::render::{Args, Layout, Params, Piece::Text as T, THINK_TIGHT};
use crate::repairs::Repair;

pub(crate) static XML: XmlSpec = XmlSpec {
    name_open: b"",
    name_close: b"",
    key_open: b"<arg_key>",
    key_close: b"</arg_key>",
    value_close: b"</arg_value",
    func_close: b"",
    nameless: false,
    value_open: b"<arg_value>",
    framed: false,
    tag_prefix: b"",
    name_sep: b"<tool_sep>",
    ..XmlSpec::BASE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Glm,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[
        CallForm {
            opener: b"<tool_call>",
            body: Body::Xml(&XML),
            closer: b"</tool_call>",
            implies: None,
            anchored: false,
            ..CallForm::BASE
        },
        // `<tool_call>` dropped: the name held before the first `<arg_key>`.
        CallForm {
            opener: b"<arg_key>",
            body: Body::Xml(&XML),
            closer: b"</tool_call>",
            body_prefix: b"<arg_key>",
            implies: Some(Repair::MissingOpener),
            heuristic: true,
            name_before: true,
            ..CallForm::BASE
        },
    ],
    // The key and value tags are special tokens: outside a call they are markup, never
    // text (`<arg_key>` with no name held before it reads as stripped).
    strip: &[
        b"</tool_call>",
        b"</think>",
        b"<arg_key>",
        b"</arg_key>",
        b"<arg_value>",
        b"</arg_value>",
        b"<|user|>",
        b"<|observation|>",
        b"<|endoftext|>",
    ],
};

/// GLM-4.5/4.6: one tag a line.
static PARAMS: Params = Params {
    param: "<arg_key>$key</arg_key>\n<arg_value>$value</arg_value>\n",
    python_values: false,
    cdata: false,
    escape_attributes: false,
};

/// GLM-4.7/5: no newlines.
pub(crate) static TIGHT: Params = Params {
    param: "<arg_key>$key</arg_key><arg_value>$value</arg_value>",
    ..PARAMS
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)): the
/// chat template begins every call on a new line.
pub(crate) static FORMS: &[Layout] = &[
    Layout {
        name: "glm45",
        note: "GLM-4.5, GLM-4.6",
        reasoning: THINK_TIGHT,
        calls_open: &[T("\n")],
        call: "<tool_call>$name\n$args</tool_call>",
        args: Args::Params(&PARAMS),
        between: &[T("\n")],
        end_of_turn: "<|observation|>",
        closing_markup: &["</arg_value>", "</tool_call>"],
        ..Layout::BASE
    },
    Layout {
        name: "glm47",
        note: "GLM-4.7, GLM-5, Poolside Laguna",
        reasoning: THINK_TIGHT,
        call: "<tool_call>$name$args</tool_call>",
        args: Args::Params(&TIGHT),
        end_of_turn: "<|observation|>",
        closing_markup: &["</arg_value>", "</tool_call>"],
        ..Layout::BASE
    },
];
