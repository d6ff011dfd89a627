//! K2 Horizon "IFM": `<ifm|tool_calls>` around `<ifm|tool_call>` ... `</ifm|tool_call>`
//! calls, each GLM's tag body in `ifm|` tags, `NAME<ifm|arg_key>K</ifm|arg_key>
//! <ifm|arg_value>V</ifm|arg_value>`, with an optional `<ifm|arg_type>T</ifm|arg_type>`
//! between key and value (the typed form: `string` raw, any other type JSON), or a JSON
//! call object (the template's `json` form). Reasoning in `<ifm|think>`, `<ifm|think_fast>`
//! or `<ifm|think_faster>`, by effort.

use super::{Body, CallForm, Dialect, Spec, XmlSpec, HERMES_ENVELOPE};
use crate::render::{
    Args, Layout, Params,
    Piece::{Markup as M, Slot},
};

static XML: XmlSpec = XmlSpec {
    key_open: b"<ifm|arg_key>",
    key_close: b"</ifm|arg_key>",
    value_open: b"<ifm|arg_value>",
    value_close: b"</ifm|arg_value",
    type_open: b"<ifm|arg_type>",
    type_close: b"</ifm|arg_type>",
    ..XmlSpec::BASE
};

static BODIES: [Body; 2] = [Body::Envelope(&HERMES_ENVELOPE), Body::Xml(&XML)];

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::K2Horizon,
    reasoning: &[
        (b"<ifm|think>", b"</ifm|think>"),
        (b"<ifm|think_fast>", b"</ifm|think_fast>"),
        (b"<ifm|think_faster>", b"</ifm|think_faster>"),
    ],
    calls: &[CallForm {
        opener: b"<ifm|tool_call>",
        body: Body::Sniff(&BODIES),
        closer: b"</ifm|tool_call>",
        ..CallForm::BASE
    }],
    strip: &[
        b"<ifm|tool_calls>",
        b"</ifm|tool_calls>",
        b"</ifm|tool_call>",
        b"<ifm|arg_key>",
        b"</ifm|arg_key>",
        b"<ifm|arg_type>",
        b"</ifm|arg_type>",
        b"<ifm|arg_value>",
        b"</ifm|arg_value>",
        b"</ifm|think>",
        b"</ifm|think_fast>",
        b"</ifm|think_faster>",
    ],
};

/// The `xml` format: strings raw, other values as JSON.
static PARAMS: Params = Params {
    param: "<ifm|arg_key>$key</ifm|arg_key><ifm|arg_value>$value</ifm|arg_value>",
    python_values: false,
    cdata: false,
    escape_attributes: false,
};

/// The `xml_typed` format: the JSON type's name before each value.
static TYPED: Params = Params {
    param: "<ifm|arg_key>$key</ifm|arg_key><ifm|arg_type>$type</ifm|arg_type><ifm|arg_value>$value</ifm|arg_value>",
    ..PARAMS
};

const THINK: &[crate::render::Piece] = &[M("<ifm|think>"), Slot, M("</ifm|think>")];

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)), in each
/// `tool_call_format` the chat template offers (`xml` by default).
pub(crate) static FORMS: &[Layout] = &[
    Layout {
        name: "xml",
        note: "K2 Horizon (`tool_call_format` xml, the default)",
        reasoning: THINK,
        calls_open: &[M("<ifm|tool_calls>")],
        call: "<ifm|tool_call>$name$args</ifm|tool_call>",
        args: Args::Params(&PARAMS),
        calls_close: &[M("</ifm|tool_calls>")],
        closing_markup: &["</ifm|arg_value>", "</ifm|tool_call>", "</ifm|tool_calls>"],
        ..Layout::BASE
    },
    Layout {
        name: "xml_typed",
        note: "K2 Horizon (`tool_call_format` xml_typed)",
        reasoning: THINK,
        calls_open: &[M("<ifm|tool_calls>")],
        call: "<ifm|tool_call>$name$args</ifm|tool_call>",
        args: Args::Params(&TYPED),
        calls_close: &[M("</ifm|tool_calls>")],
        closing_markup: &["</ifm|arg_value>", "</ifm|tool_call>", "</ifm|tool_calls>"],
        ..Layout::BASE
    },
    Layout {
        name: "json",
        note: "K2 Horizon (`tool_call_format` json)",
        reasoning: THINK,
        calls_open: &[M("<ifm|tool_calls>")],
        call: "<ifm|tool_call>{\"name\": \"$name\", \"arguments\": $args}</ifm|tool_call>",
        calls_close: &[M("</ifm|tool_calls>")],
        closing_markup: &["</ifm|tool_call>", "</ifm|tool_calls>"],
        ..Layout::BASE
    },
];
