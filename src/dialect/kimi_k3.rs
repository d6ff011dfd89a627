//! Kimi K3 "XTML": elements framed by the special tokens `<|open|>`, `<|close|>` and
//! `<|sep|>`. Calls are `<|open|>call tool="NAME" index="1"<|sep|>` ... `<|close|>call
//! <|sep|>` in a `tools` channel, each argument `<|open|>argument key="K" type="T"<|sep|>
//! V<|close|>argument<|sep|>` (a `string` raw, any other type JSON), or the whole
//! arguments as one `<|open|>json type="object"<|sep|>{...}<|close|>json<|sep|>`.
//! Reasoning is the `think` channel; the `response` channel's and the message's
//! markers are dropped, so the reply is text. The prompt opens `think` (thinking) or
//! `response` (instruct): thinking needs `reasoning_open`.

use super::{Body, CallForm, Dialect, Spec, XmlSpec};
use crate::render::{
    Args, Layout, Params,
    Piece::{Markup as M, Slot},
};

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

/// The tag names the type: `string` raw, any other JSON.
static PARAMS: Params = Params {
    param: "<|open|>argument key=\"$key\" type=\"$type\"<|sep|>$value<|close|>argument<|sep|>",
    python_values: false,
    cdata: false,
    escape_attributes: true,
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)): the
/// prompt opens the `think` channel (thinking) or, without reasoning, the `response`
/// channel (instruct).
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "kimi_k3",
    note: "Kimi K3",
    reasoning: &[Slot, M("<|close|>think<|sep|><|open|>response<|sep|>")],
    prompt_opens_reasoning: true,
    text: &[Slot, M("<|close|>response<|sep|>")],
    text_always: true,
    calls_open: &[M("<|open|>tools<|sep|>")],
    call: "<|open|>call tool=\"$name\" index=\"$number\"<|sep|>$args<|close|>call<|sep|>",
    args: Args::Params(&PARAMS),
    calls_close: &[M("<|close|>tools<|sep|>")],
    after: &[],
    tail: &[M("<|close|>message<|sep|>")],
    end_of_turn: "<|end_of_msg|>",
    closing_markup: &["<|close|>argument<|sep|>", "<|close|>call<|sep|>"],
    ..Layout::BASE
}];
