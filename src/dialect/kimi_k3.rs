//! Kimi K3 "XTML": elements framed by the special tokens `<|open|>`, `<|close|>` and
//! `<|sep|>`. Calls are `<|open|>call tool="NAME" index="1"<|sep|>` ... `<|close|>call
//! <|sep|>` in a `tools` channel, each argument `<|open|>argument key="K" type="T"<|sep|>
//! V<|close|>argument<|sep|>` (a `string` raw, any other type JSON), or the whole
//! arguments as one `<|open|>json type="object"<|sep|>{...}<|close|>json<|sep|>`.
//! Reasoning is the `think` channel; the `response` channel's and the message's
//! markers are dropped, so the reply is text. The prompt opens `think` (thinking) or
//! `response` (instruct): thinking needs `reasoning_open`. Every marker is also read
//! degraded by blanks around its word (`<|open|> response <|sep|>`), as a server
//! decoding with blanks between special tokens shows it; never as text.

use super::{Body, CallForm, Dialect, Spec, XmlSpec};
use crate::render::{
    Args, Layout, Params,
    Piece::{Markup as M, Slot},
};

/// A marker as the template writes it, `<|open|>WORD<|sep|>`, and as a detokenizer
/// that puts blanks between special tokens and text gives it back: `<|open|> WORD
/// <|sep|>` (vLLM without `spaces_between_special_tokens=False`). Both are markup.
macro_rules! marker {
    ($edge:literal, $word:literal) => {
        concat!("<|", $edge, "|>", $word, "<|sep|>").as_bytes()
    };
    (spaced $edge:literal, $word:literal) => {
        concat!("<|", $edge, "|> ", $word, " <|sep|>").as_bytes()
    };
}

/// The call's body, as written. Attribute values are XML-escaped (`&quot;`, `&amp;`,
/// and the other entities a model writing XML uses); a raw `<` in one is text.
static XML: XmlSpec = XmlSpec {
    name_close: b"<|sep|>",
    key_open: b"<|open|>argument key=",
    key_close: b"<|sep|>",
    value_close: b"<|close|>argument<|sep|",
    func_close: marker!("close", "call"),
    type_attr: "type",
    json_open: marker!("open", "json type=\"object\""),
    json_close: marker!("close", "json"),
    attr_entities: true,
    ..XmlSpec::BASE
};

/// The same body with its markers degraded by blanks (the blank before `<|sep|>` after
/// a name or a key is one of the tag's, read past as any).
static XML_SPACED: XmlSpec = XmlSpec {
    key_open: b"<|open|> argument key=",
    value_close: b"<|close|> argument <|sep|",
    func_close: marker!(spaced "close", "call"),
    json_open: marker!(spaced "open", "json type=\"object\""),
    json_close: marker!(spaced "close", "json"),
    ..XML
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::KimiK3,
    reasoning: &[
        (marker!("open", "think"), marker!("close", "think")),
        (marker!("open", "think"), marker!(spaced "close", "think")),
        (
            marker!(spaced "open", "think"),
            marker!(spaced "close", "think"),
        ),
        (marker!(spaced "open", "think"), marker!("close", "think")),
    ],
    calls: &[
        CallForm {
            opener: b"<|open|>call tool=",
            body: Body::Xml(&XML),
            ..CallForm::BASE
        },
        CallForm {
            opener: b"<|open|> call tool=",
            body: Body::Xml(&XML_SPACED),
            ..CallForm::BASE
        },
    ],
    strip: &[
        b"<|open|>message role=\"assistant\"<|sep|>",
        marker!("close", "message"),
        marker!("open", "response"),
        marker!("close", "response"),
        marker!("open", "tools"),
        marker!("close", "tools"),
        marker!("close", "call"),
        marker!("close", "argument"),
        marker!("close", "json"),
        marker!("close", "think"),
        b"<|open|> message role=\"assistant\" <|sep|>",
        marker!(spaced "close", "message"),
        marker!(spaced "open", "response"),
        marker!(spaced "close", "response"),
        marker!(spaced "open", "tools"),
        marker!(spaced "close", "tools"),
        marker!(spaced "close", "call"),
        marker!(spaced "close", "argument"),
        marker!(spaced "close", "json"),
        marker!(spaced "close", "think"),
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
