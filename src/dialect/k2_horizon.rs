//! K2 Horizon "IFM": `<ifm|tool_calls>` around `<ifm|tool_call>` ... `</ifm|tool_call>`
//! calls, each GLM's tag body in `ifm|` tags, `NAME<ifm|arg_key>K</ifm|arg_key>
//! <ifm|arg_value>V</ifm|arg_value>`, with an optional `<ifm|arg_type>T</ifm|arg_type>`
//! between key and value (the typed form: `string` raw, any other type JSON), or a JSON
//! call object (the template's `json` form). Reasoning in `<ifm|think>`, `<ifm|think_fast>`
//! or `<ifm|think_faster>`, by effort.

use super::{Body, CallForm, Dialect, Spec, XmlSpec, HERMES_ENVELOPE};

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
