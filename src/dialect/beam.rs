//! Beam: harmony-style messages whose call messages carry XML parameters. The prompt
//! ends with `<|start|>assistant`; a call is ` to=NAME<|channel|>analysis <|constrain|>
//! xml<|message|>` then `<rfl:parameter name="K">\nV\n</rfl:parameter>` per argument
//! (one framing newline on each side of a value), ended by `<|call|>` or by `<|end|>`
//! and the next message's `<|start|>assistant`. Reasoning is the `analysis` channel
//! without a recipient, text the `final` channel. (SGLang's `BEAM_RESPONSE_TEMPLATE`;
//! vLLM reads the same from the checkpoint's `response_template`.)

use super::{Body, CallForm, Dialect, Spec, XmlSpec};
use crate::render::{
    Args, Layout, Params,
    Piece::{Markup as M, Slot},
};

static XML: XmlSpec = XmlSpec {
    name_close: b"<|channel|>analysis <|constrain|>xml<|message|>",
    key_open: b"<rfl:parameter name=",
    key_close: b">",
    value_close: b"</rfl:parameter",
    // The stop token (often absent from the output) ends the call as `<|end|>` does.
    closer_alts: &[b"<|call|>"],
    framed: true,
    ..XmlSpec::BASE
};

const CALL: CallForm = CallForm {
    opener: b"<|start|>assistant to=",
    body: Body::Xml(&XML),
    closer: b"<|end|>",
    ..CallForm::BASE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Beam,
    reasoning: &[(b"<|channel|>analysis<|message|>", b"<|end|>")],
    calls: &[
        CALL,
        // The first message's `<|start|>assistant` is the prompt's. Elsewhere ` to=` is
        // text, so it is a weak opener (as Muse Glimmer's `to=`), not a marker.
        CallForm {
            opener: b" to=",
            anchored: true,
            start_only: true,
            ..CALL
        },
    ],
    strip: &[
        b"<|start|>assistant",
        b"<|channel|>final<|message|>",
        b"<|end|>",
        b"<|call|>",
        b"<|return|>",
        b"</rfl:parameter>",
        // A call's header after prose that began no call (`to=junk get_weather`).
        b"<|channel|>",
        b"<|constrain|>",
        b"<|message|>",
    ],
};

/// One framing newline on each side of a value; strings raw, other values as JSON.
static PARAMS: Params = Params {
    param: "<rfl:parameter name=\"$key\">\n$value\n</rfl:parameter>",
    python_values: false,
    cdata: false,
    escape_attributes: false,
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)): one
/// message each, the first `<|start|>assistant` in the prompt; every message before a
/// call ends with the next one's `<|start|>assistant`. The model stops at `<|call|>`, so
/// text after the calls is a later turn's output, written here as the same stream.
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "beam",
    note: "Beam (SGLang's BEAM_RESPONSE_TEMPLATE)",
    reasoning: &[
        M("<|channel|>analysis<|message|>"),
        Slot,
        M("<|end|><|start|>assistant"),
    ],
    text: &[
        M("<|channel|>final<|message|>"),
        Slot,
        M("<|end|><|start|>assistant"),
    ],
    call: " to=$name<|channel|>analysis <|constrain|>xml<|message|>$args",
    args: Args::Params(&PARAMS),
    between: &[M("<|end|><|start|>assistant")],
    calls_close: &[M("<|call|>")],
    after: &[M("<|start|>assistant<|channel|>final<|message|>"), Slot],
    end_of_turn: "<|return|>",
    closing_markup: &["</rfl:parameter>", "<|end|>", "<|call|>"],
    ..Layout::BASE
}];
