//! Kimi K3 "XTML": elements framed by the special tokens `<|open|>`, `<|close|>` and
//! `<|sep|>`. Calls are `<|open|>call tool="NAME" index="1"<|sep|>` ... `<|close|>call
//! <|sep|>` in a `tools` channel, each argument `<|open|>argument key="K" type="T"<|sep|>
//! V<|close|>argument<|sep|>` (a `string` raw, any other type JSON), or the whole
//! arguments as one `<|open|>json type="object"<|sep|>{...}<|close|>json<|sep|>`.
//! Reasoning is the `think` channel; the `response` channel's and the message's
//! markers are dropped, so the reply is text. The prompt opens `think` (thinking) or
//! `response` (instruct): thinking needs `reasoning_open`.

use super::{Body, CallForm, Dialect, Spec, XmlSpec};

static XML: XmlSpec = XmlSpec {
    name_close: b"<|sep|>",
    key_open: b"<|open|>argument key=",
    key_close: b"<|sep|>",
    value_close: b"<|close|>argument<|sep|",
    func_close: b"<|close|>call<|sep|>",
    type_attr: "type",
    json_open: b"<|open|>json type=\"object\"<|sep|>",
    json_close: b"<|close|>json<|sep|>",
    ..XmlSpec::BASE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::KimiK3,
    reasoning: &[(b"<|open|>think<|sep|>", b"<|close|>think<|sep|>")],
    calls: &[CallForm {
        opener: b"<|open|>call tool=",
        body: Body::Xml(&XML),
        ..CallForm::BASE
    }],
    strip: &[
        b"<|open|>message role=\"assistant\"<|sep|>",
        b"<|close|>message<|sep|>",
        b"<|open|>response<|sep|>",
        b"<|close|>response<|sep|>",
        b"<|open|>tools<|sep|>",
        b"<|close|>tools<|sep|>",
        b"<|close|>call<|sep|>",
        b"<|close|>argument<|sep|>",
        b"<|close|>json<|sep|>",
        b"<|close|>think<|sep|>",
        b"<|end_of_msg|>",
    ],
};
