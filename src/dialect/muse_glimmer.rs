//! Meta Muse-Glimmer: harmony-style segments `<|start|>assistant to=NAME<|message|>
//! ...<|eom|>` whose content carries the calls as `<atem:function_calls><atem:invoke
//! name="NAME"><atem:parameter name="K">V</atem:parameter></atem:invoke>
//! </atem:function_calls>`; values are raw strings. Headers are dropped, each
//! `<atem:invoke` begins a call. A `to=self` segment is reasoning, `to=user` text; the
//! output may begin inside the first header (` to=self<|message|>`).

use super::{Body, CallForm, Dialect, HarmonySpec, Spec, XmlSpec};
use crate::render::{
    Args, Layout, Params,
    Piece::{Markup as M, Slot},
};

static HEADER: HarmonySpec = HarmonySpec {
    json_args: false,
    reasoning_close: b"<|eom|>",
};

/// A `to=self` segment: the model's reasoning, to its end.
const SELF: &[u8] = b"<|start|>assistant to=self<|message|>";

static XML: XmlSpec = XmlSpec {
    name_open: b"",
    name_close: b">",
    key_open: b"<atem:parameter name=",
    key_close: b">",
    value_close: b"</atem:parameter",
    func_close: b"</atem:invoke>",
    nameless: false,
    value_open: b"",
    framed: false,
    tag_prefix: b"",
    ..XmlSpec::BASE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::MuseGlimmer,
    reasoning: &[(SELF, b"<|eom|>"), (SELF, b"<|eot|>")],
    calls: &[
        CallForm {
            opener: b"<|start|>",
            body: Body::Harmony(&HEADER),
            closer: b"",
            implies: None,
            anchored: false,
            ..CallForm::BASE
        },
        // The prompt began the first segment's header: the output starts with its
        // recipient (` to=self<|message|>`, ` to=user<|message|>`).
        CallForm {
            opener: b"to=",
            body: Body::Harmony(&HEADER),
            anchored: true,
            body_prefix: b"to=",
            start_only: true,
            ..CallForm::BASE
        },
        CallForm {
            opener: b"<atem:invoke name=",
            body: Body::Xml(&XML),
            closer: b"",
            implies: None,
            anchored: false,
            ..CallForm::BASE
        },
    ],
    strip: &[
        b"<atem:function_calls>",
        b"</atem:function_calls>",
        b"</atem:invoke>",
        b"</atem:parameter>",
        b"<|eom|>",
        b"<|eot|>",
        b"<|message|>",
    ],
};

static PARAMS: Params = Params {
    param: "<atem:parameter name=\"$key\">$value</atem:parameter>",
    python_values: false,
    cdata: false,
    escape_attributes: false,
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[Layout {
    name: "muse_glimmer",
    note: "Meta Muse-Glimmer",
    reasoning: &[
        M("<|start|>assistant to=self<|message|>"),
        Slot,
        M("<|eom|>"),
    ],
    text: &[
        M("<|start|>assistant to=user<|message|>"),
        Slot,
        M("<|eom|>"),
    ],
    calls_open: &[M(
        "<|start|>assistant to=functions<|message|><atem:function_calls>",
    )],
    call: "<atem:invoke name=\"$name\">$args</atem:invoke>",
    args: Args::Params(&PARAMS),
    calls_close: &[M("</atem:function_calls><|eom|>")],
    after: &[
        M("<|start|>assistant to=user<|message|>"),
        Slot,
        M("<|eom|>"),
    ],
    end_of_turn: "<|eot|>",
    closing_markup: &[
        "</atem:parameter>",
        "</atem:invoke>",
        "</atem:function_calls>",
    ],
    ..Layout::BASE
}];
