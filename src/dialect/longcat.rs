//! Meituan LongCat. Flash-Chat writes a call object, `<longcat_tool_call>\n{"name":
//! ..., "arguments": {...}}\n</longcat_tool_call>`; Flash-Thinking-2601 and Flash-Lite
//! write key/value tags, `<longcat_tool_call>NAME\n<longcat_arg_key>K</longcat_arg_key>
//! \n<longcat_arg_value>V</longcat_arg_value>\n</longcat_tool_call>` (GLM's grammar,
//! values typed by the schema). Parallel calls are blocks back to back; reasoning is
//! `<longcat_think>` ... `</longcat_think>`.

use super::{Body, CallForm, Dialect, Spec, XmlSpec, HERMES_ENVELOPE};
use crate::render::{
    Args, Layout, Params,
    Piece::{Markup as M, Reasoning as R, Slot, Text as T},
};

static XML: XmlSpec = XmlSpec {
    name_open: b"",
    name_close: b"",
    key_open: b"<longcat_arg_key>",
    key_close: b"</longcat_arg_key>",
    value_close: b"</longcat_arg_value",
    func_close: b"",
    nameless: false,
    value_open: b"<longcat_arg_value>",
    framed: false,
    tag_prefix: b"",
    ..XmlSpec::BASE
};

/// `{`/`[` begins the call object, a name the key/value tags.
static BODIES: [Body; 2] = [Body::Envelope(&HERMES_ENVELOPE), Body::Xml(&XML)];

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::LongCat,
    reasoning: &[(b"<longcat_think>", b"</longcat_think>")],
    calls: &[CallForm {
        opener: b"<longcat_tool_call>",
        body: Body::Sniff(&BODIES),
        closer: b"</longcat_tool_call>",
        ..CallForm::BASE
    }],
    strip: &[
        b"</longcat_tool_call>",
        b"</longcat_think>",
        b"</longcat_arg_key>",
        b"</longcat_arg_value>",
        b"</longcat_s>",
    ],
};

/// The key/value tags, one a line.
static PARAMS: Params = Params {
    param:
        "<longcat_arg_key>$key</longcat_arg_key>\n<longcat_arg_value>$value</longcat_arg_value>\n",
    python_values: false,
    cdata: false,
    escape_attributes: false,
};

const THINK: &[crate::render::Piece] = &[
    M("<longcat_think>"),
    R("\n"),
    Slot,
    R("\n"),
    M("</longcat_think>"),
    T("\n"),
];

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[
    Layout {
        name: "json",
        note: "LongCat-Flash-Chat",
        reasoning: THINK,
        text: &[Slot, T("\n")],
        call:
            "<longcat_tool_call>\n{\"name\": \"$name\", \"arguments\": $args}\n</longcat_tool_call>",
        end_of_turn: "</longcat_s>",
        closing_markup: &["</longcat_tool_call>"],
        ..Layout::BASE
    },
    Layout {
        name: "xml",
        note: "LongCat-Flash-Thinking-2601, LongCat-Flash-Lite",
        reasoning: THINK,
        text: &[Slot, T("\n")],
        call: "<longcat_tool_call>$name\n$args</longcat_tool_call>",
        args: Args::Params(&PARAMS),
        end_of_turn: "</longcat_s>",
        closing_markup: &["</longcat_arg_value>", "</longcat_tool_call>"],
        ..Layout::BASE
    },
];
