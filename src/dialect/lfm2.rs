//! LiquidAI LFM2 / LFM2.5: `<|tool_call_start|>[name(arg="v")]<|tool_call_end|>`, or (an
//! older template) a JSON array of `{"name", "arguments", "id"}` objects in the same markers;
//! reasoning in `<think>` ... `</think>`.

use super::{Body, CallForm, Dialect, PythonicSpec, Spec, ID_AFTER_ARGUMENTS_ENVELOPE};
use crate::render::{Args, Ids, Layout, Piece::Markup as M, THINK_TIGHT};

static CALLS: PythonicSpec = PythonicSpec {
    in_list: false,
    markerless: false,
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Lfm2,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[CallForm {
        opener: b"<|tool_call_start|>",
        body: Body::Sniff(&[
            Body::Pythonic(&CALLS),
            Body::Envelope(&ID_AFTER_ARGUMENTS_ENVELOPE),
        ]),
        closer: b"<|tool_call_end|>",
        implies: None,
        anchored: false,
        ..CallForm::BASE
    }],
    strip: &[b"<|tool_call_end|>", b"</think>", b"<|im_end|>"],
};

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[
    Layout {
        name: "pythonic",
        note: "LFM2, LFM2.5",
        reasoning: THINK_TIGHT,
        calls_open: &[M("<|tool_call_start|>[")],
        call: "$name($args)",
        args: Args::Python {
            json_literals: false,
        },
        between: &[M(", ")],
        calls_close: &[M("]<|tool_call_end|>")],
        end_of_turn: "<|im_end|>",
        closing_markup: &["<|tool_call_end|>"],
        ..Layout::BASE
    },
    Layout {
        name: "json",
        note: "LFM2 with the older JSON template",
        reasoning: THINK_TIGHT,
        calls_open: &[M("<|tool_call_start|>[")],
        call: "{\"name\": \"$name\", \"arguments\": $args}",
        ids: Ids::Given("{\"name\": \"$name\", \"arguments\": $args, \"id\": \"$id\"}"),
        between: &[M(", ")],
        calls_close: &[M("]<|tool_call_end|>")],
        end_of_turn: "<|im_end|>",
        closing_markup: &["<|tool_call_end|>"],
        ..Layout::BASE
    },
];
