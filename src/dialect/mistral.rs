//! Mistral `[TOOL_CALLS]`: before v11 a JSON array of `{"name", "arguments", "id"}`, from
//! v11 `NAME[ARGS]{...}` (with `[CALL_ID]ID` in Mistral Small 3.2; `NAME{...}` when the
//! `[ARGS]` was dropped), parallel calls as repeated markers. No closer: a call ends where its value ends. Reasoning in
//! `[THINK]...[/THINK]`.

use super::{Body, CallForm, Dialect, NameArgsSpec, Spec, ID_AFTER_ARGUMENTS_ENVELOPE};
use crate::render::{
    Ids, Layout,
    Piece::{Markup as M, Slot},
};
use crate::repairs::Repair;

/// v11+: `NAME[ARGS]{...}` or `NAME[CALL_ID]ID[ARGS]{...}`.
static V11: NameArgsSpec = NameArgsSpec {
    separator: b"[ARGS]",
    id_separator: b"[CALL_ID]",
    identifier_name: true,
    ..NameArgsSpec::BASE
};

/// A JSON array (or object) before v11, its ids after the arguments; the name first
/// from v11 on.
static BODIES: [Body; 2] = [
    Body::Envelope(&ID_AFTER_ARGUMENTS_ENVELOPE),
    Body::NameArgs(&V11),
];

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Mistral,
    reasoning: &[(b"[THINK]", b"[/THINK]")],
    calls: &[
        CallForm {
            opener: b"[TOOL_CALLS]",
            body: Body::Sniff(&BODIES),
            ..CallForm::BASE
        },
        // `[TOOL_CALLS]` swallowed: the name held before `[ARGS]` (or `[CALL_ID]`).
        CallForm {
            opener: b"[ARGS]",
            body: Body::NameArgs(&V11),
            body_prefix: b"[ARGS]",
            implies: Some(Repair::MissingOpener),
            heuristic: true,
            name_before: true,
            ..CallForm::BASE
        },
        CallForm {
            opener: b"[CALL_ID]",
            body: Body::NameArgs(&V11),
            body_prefix: b"[CALL_ID]",
            implies: Some(Repair::MissingOpener),
            heuristic: true,
            name_before: true,
            ..CallForm::BASE
        },
    ],
    strip: &[b"[/THINK]", b"[ARGS]", b"[CALL_ID]", b"</s>"],
};

const THINK: &[crate::render::Piece] = &[M("[THINK]"), Slot, M("[/THINK]")];

/// How the model writes its calls ([`Dialect::render`](crate::Dialect::render)).
pub(crate) static FORMS: &[Layout] = &[
    Layout {
        name: "v11",
        note: "Mistral Small 3.x, Magistral, Devstral, Ministral 3 (`[CALL_ID]` from Small 3.2)",
        reasoning: THINK,
        call: "[TOOL_CALLS]$name[ARGS]$args",
        ids: Ids::Given("[TOOL_CALLS]$name[CALL_ID]$id[ARGS]$args"),
        end_of_turn: "</s>",
        closing_markup: &["[TOOL_CALLS]", "</s>"],
        ..Layout::BASE
    },
    Layout {
        name: "pre_v11",
        note: "Mistral 7B v0.3, Mixtral 8x22B, Nemo, Small 2409, Large 2407/2411",
        reasoning: THINK,
        calls_open: &[M("[TOOL_CALLS] [")],
        call: "{\"name\": \"$name\", \"arguments\": $args}",
        ids: Ids::Given("{\"name\": \"$name\", \"arguments\": $args, \"id\": \"$id\"}"),
        between: &[M(", ")],
        calls_close: &[M("]")],
        end_of_turn: "</s>",
        closing_markup: &["[TOOL_CALLS]", "</s>"],
        ..Layout::BASE
    },
];
