//! DeepSeek V3.2 / V4 DSML: `<｜DSML｜function_calls>` (V3.2) or `<｜DSML｜tool_calls>`
//! (V4) around `<｜DSML｜invoke name="NAME">` calls with `<｜DSML｜parameter name="K"
//! string="true|false">V</｜DSML｜parameter>` (`string="false"`: the value is JSON).
//!
//! Models also drop the `｜DSML｜` prefix on some tags or all of them, write a bare JSON
//! object as an invoke's body, and write invokes without a section: every tag reads
//! with or without the prefix, each invoke begins a call, sections are wrappers.

use super::{Body, CallForm, Dialect, Spec, XmlSpec};
use crate::render::{
    Args, Layout, Params,
    Piece::{Markup as M, Slot, Text as T},
    THINK_TIGHT,
};

static XML: XmlSpec = XmlSpec {
    tag_prefix: "｜DSML｜".as_bytes(),
    ..XmlSpec::INVOKE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::DeepseekDsml,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[
        CallForm {
            opener: "<｜DSML｜invoke name=".as_bytes(),
            body: Body::Xml(&XML),
            closer: b"",
            implies: None,
            anchored: false,
            ..CallForm::BASE
        },
        CallForm {
            opener: b"<invoke name=",
            body: Body::Xml(&XML),
            closer: b"",
            implies: None,
            anchored: false,
            ..CallForm::BASE
        },
        CallForm::mangled_tag("<｜DSML｜".as_bytes(), &XML),
    ],
    strip: &[
        "<｜DSML｜function_calls>".as_bytes(),
        "</｜DSML｜function_calls>".as_bytes(),
        "<｜DSML｜tool_calls>".as_bytes(),
        "</｜DSML｜tool_calls>".as_bytes(),
        "</｜DSML｜invoke>".as_bytes(),
        "</｜DSML｜parameter>".as_bytes(),
        b"<function_calls>",
        b"</function_calls>",
        b"<tool_calls>",
        b"</tool_calls>",
        b"</invoke>",
        b"</parameter>",
        b"</think>",
        "<｜end▁of▁sentence｜>".as_bytes(),
    ],
};

/// `string="true"`: the value is raw text; `"false"`: JSON.
static PARAMS: Params = Params {
    param: "<｜DSML｜parameter name=\"$key\" string=\"$string\">$value</｜DSML｜parameter>\n",
    python_values: false,
    cdata: false,
    escape_attributes: false,
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[
    Layout {
        name: "v3.2",
        note: "DeepSeek V3.2 (`function_calls` section)",
        reasoning: THINK_TIGHT,
        text: &[Slot, T("\n\n")],
        calls_open: &[M("<｜DSML｜function_calls>"), T("\n")],
        call: "<｜DSML｜invoke name=\"$name\">\n$args</｜DSML｜invoke>",
        args: Args::Params(&PARAMS),
        between: &[T("\n")],
        calls_close: &[T("\n"), M("</｜DSML｜function_calls>")],
        end_of_turn: "<｜end▁of▁sentence｜>",
        closing_markup: &[
            "</｜DSML｜parameter>",
            "</｜DSML｜invoke>",
            "</｜DSML｜function_calls>",
        ],
        ..Layout::BASE
    },
    Layout {
        name: "v4",
        note: "DeepSeek V4 (`tool_calls` section)",
        reasoning: THINK_TIGHT,
        text: &[Slot, T("\n\n")],
        calls_open: &[M("<｜DSML｜tool_calls>"), T("\n")],
        call: "<｜DSML｜invoke name=\"$name\">\n$args</｜DSML｜invoke>",
        args: Args::Params(&PARAMS),
        between: &[T("\n")],
        calls_close: &[T("\n"), M("</｜DSML｜tool_calls>")],
        end_of_turn: "<｜end▁of▁sentence｜>",
        closing_markup: &[
            "</｜DSML｜parameter>",
            "</｜DSML｜invoke>",
            "</｜DSML｜tool_calls>",
        ],
        ..Layout::BASE
    },
];
