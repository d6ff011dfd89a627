//! Hunyuan 3 / Hy3: `<tool_calls:opensource>` around `<tool_call:opensource>NAME
//! <tool_sep:opensource><arg_key:opensource>K</arg_key:opensource><arg_value:opensource>
//! V</arg_value:opensource></tool_call:opensource>` (a missing `<tool_sep>` is repaired).
//! Hunyuan's JSON variant writes a call object in the same tag:
//! `<tool_call:opensource>{"name": ..., "arguments": {...}}</tool_call:opensource>`.
//! Servers whose tokenizer lacks the `:opensource` suffix (Hy3-preview) read the same
//! grammar in plain tags, `<tool_calls><tool_call>NAME<tool_sep><arg_key>K</arg_key>
//! <arg_value>V</arg_value></tool_call></tool_calls>`; values are typed by the schema.

use super::{Body, CallForm, Dialect, Spec, XmlSpec, HERMES_ENVELOPE};
use crate::render::{Args, Layout, Params, Piece::Markup as M, THINK_TIGHT};
use crate::repairs::Repair;

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

/// The same grammar in plain tags.
static PLAIN: XmlSpec = XmlSpec {
    name_close: b"<tool_sep>",
    key_open: b"<arg_key>",
    key_close: b"</arg_key>",
    value_close: b"</arg_value",
    value_open: b"<arg_value>",
    ..XML
};

/// A call object (`{` or `[`) or the tag grammar, by how the body begins.
static BODIES: [Body; 2] = [Body::Envelope(&HERMES_ENVELOPE), Body::Xml(&XML)];
static PLAIN_BODIES: [Body; 2] = [Body::Envelope(&HERMES_ENVELOPE), Body::Xml(&PLAIN)];

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Hunyuan3,
    // A block the chat template opened may end in `</think:opensource>`.
    reasoning: &[
        (b"<think>", b"</think>"),
        (b"<think>", b"</think:opensource>"),
    ],
    calls: &[
        CallForm {
            opener: b"<tool_call:opensource>",
            body: Body::Sniff(&BODIES),
            closer: b"</tool_call:opensource>",
            implies: None,
            anchored: false,
            ..CallForm::BASE
        },
        // The section, whose call's own opener the model dropped
        // (`<tool_calls:opensource>NAME<tool_sep:opensource>...`): a call; followed by
        // `<tool_call:opensource>`, only the section.
        CallForm {
            opener: b"<tool_calls:opensource>",
            body: Body::Sniff(&BODIES),
            closer: b"</tool_call:opensource>",
            implies: Some(Repair::MissingOpener),
            wrapper: true,
            ..CallForm::BASE
        },
        CallForm {
            opener: b"<tool_call>",
            body: Body::Sniff(&PLAIN_BODIES),
            closer: b"</tool_call>",
            ..CallForm::BASE
        },
        // The plain section's opener with the first call's: in `auto` these outrank
        // Jamba's `<tool_calls>` (longest marker first) and lock onto this dialect.
        CallForm {
            opener: b"<tool_calls><tool_call>",
            body: Body::Sniff(&PLAIN_BODIES),
            closer: b"</tool_call>",
            ..CallForm::BASE
        },
        CallForm {
            opener: b"<tool_calls>\n<tool_call>",
            body: Body::Sniff(&PLAIN_BODIES),
            closer: b"</tool_call>",
            ..CallForm::BASE
        },
    ],
    strip: &[
        b"</tool_calls:opensource>",
        b"</tool_call:opensource>",
        b"</arg_key:opensource>",
        b"</arg_value:opensource>",
        b"</think>",
        b"</think:opensource>",
        b"<answer>",
        b"</answer>",
        b"<tool_calls>",
        b"</tool_calls>",
        b"</tool_call>",
        b"<tool_sep>",
        b"<arg_key>",
        b"</arg_key>",
        b"<arg_value>",
        b"</arg_value>",
    ],
};

static PARAMS: Params = Params {
    param: "<arg_key:opensource>$key</arg_key:opensource>\
            <arg_value:opensource>$value</arg_value:opensource>",
    python_values: false,
    cdata: false,
    escape_attributes: false,
};

static PLAIN_PARAMS: Params = Params {
    param: "<arg_key>$key</arg_key><arg_value>$value</arg_value>",
    ..PARAMS
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[
    Layout {
        name: "hunyuan3",
        note: "Hunyuan 3 (the tokenizer's `:opensource` tags)",
        reasoning: THINK_TIGHT,
        calls_open: &[M("<tool_calls:opensource>")],
        call: "<tool_call:opensource>$name<tool_sep:opensource>$args</tool_call:opensource>",
        args: Args::Params(&PARAMS),
        calls_close: &[M("</tool_calls:opensource>")],
        closing_markup: &[
            "</arg_value:opensource>",
            "</tool_call:opensource>",
            "</tool_calls:opensource>",
        ],
        ..Layout::BASE
    },
    Layout {
        name: "plain",
        note: "Hy3-preview served without the `:opensource` suffix",
        reasoning: THINK_TIGHT,
        calls_open: &[M("<tool_calls>")],
        call: "<tool_call>$name<tool_sep>$args</tool_call>",
        args: Args::Params(&PLAIN_PARAMS),
        calls_close: &[M("</tool_calls>")],
        closing_markup: &["</arg_value>", "</tool_call>", "</tool_calls>"],
        ..Layout::BASE
    },
    Layout {
        name: "json",
        note: "Hunyuan's JSON variant: a call object in the same tags",
        reasoning: THINK_TIGHT,
        calls_open: &[M("<tool_calls:opensource>")],
        call: "<tool_call:opensource>{\"name\": \"$name\", \"arguments\": $args}\
               </tool_call:opensource>",
        calls_close: &[M("</tool_calls:opensource>")],
        closing_markup: &["</tool_call:opensource>", "</tool_calls:opensource>"],
        ..Layout::BASE
    },
];
