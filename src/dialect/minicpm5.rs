//! OpenBMB MiniCPM5: `<function name="NAME"><param name="K">V</param></function>`,
//! calls one per line; a value holding `<`, `&` or a newline is written in
//! `<![CDATA[` ... `]]>`. Values are raw text typed by the schema (non-strings as Python
//! prints them: `True`, `['a']`); reasoning in `<think>`.

use super::{Body, CallForm, Dialect, Spec, XmlSpec};
use crate::render::{
    Args, Layout, Params,
    Piece::{Slot, Text as T},
    THINK,
};
use crate::repairs::Repair;

static XML: XmlSpec = XmlSpec {
    name_close: b">",
    key_open: b"<param name=",
    key_close: b">",
    value_close: b"</param",
    func_close: b"</function>",
    cdata: true,
    python_values: true,
    key_open_alts: &["<param\u{120}name=".as_bytes(), b"<paramname="],
    ..XmlSpec::BASE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::MiniCpm5,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[
        CallForm {
            opener: b"<function name=",
            body: Body::Xml(&XML),
            ..CallForm::BASE
        },
        // The space as a byte-level tokenizer's `Ġ` (U+0120), or lost, when a server
        // decodes the tags' pieces without joining them.
        CallForm {
            opener: "<function\u{120}name=".as_bytes(),
            body: Body::Xml(&XML),
            implies: Some(Repair::MismatchedTag),
            ..CallForm::BASE
        },
        CallForm {
            opener: b"<functionname=",
            body: Body::Xml(&XML),
            implies: Some(Repair::MismatchedTag),
            ..CallForm::BASE
        },
    ],
    strip: &[b"</function>", b"</param>", b"</think>", b"<|im_end|>"],
};

/// A value holding `<`, `&` or a line break in CDATA; other values as Python prints them.
static PARAMS: Params = Params {
    param: "<param name=\"$key\">$value</param>",
    python_values: true,
    cdata: true,
    escape_attributes: false,
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "minicpm5",
    note: "MiniCPM5",
    reasoning: THINK,
    text: &[Slot, T("\n")],
    call: "<function name=\"$name\">$args</function>",
    args: Args::Params(&PARAMS),
    between: &[T("\n")],
    end_of_turn: "<|im_end|>",
    closing_markup: &["</param>", "</function>"],
    ..Layout::BASE
}];
