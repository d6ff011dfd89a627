//! Opt-in heuristics for models without a call marker: a `` ```json `` fenced call
//! (`fenced_json`) and a bare JSON call at the start of the output (`bare_json`). Such
//! calls are released only when they name a declared tool (or no tools are declared).

use super::{Body, CallForm, Dialect, PythonicSpec, Spec, HERMES_ENVELOPE};
use crate::render::{
    InAuto, Layout,
    Piece::{Markup as M, Slot, Text as T},
    THINK_TIGHT,
};

const FENCE: CallForm = CallForm {
    opener: b"```json",
    body: Body::Envelope(&HERMES_ENVELOPE),
    closer: b"```",
    repeats: true,
    heuristic: true,
    ..CallForm::BASE
};

static PYTHONIC: PythonicSpec = PythonicSpec {
    in_list: false,
    markerless: false,
};

/// A labelled call's bodies (a static: the oldest supported Rust does not promote the
/// array in a constant).
static LABELLED_BODIES: [Body; 2] = [Body::Pythonic(&PYTHONIC), Body::Envelope(&HERMES_ENVELOPE)];

/// A call in a fence (or after a label) that says it is one: a JSON call object or a
/// Python call. What does not parse as one is an example of the format, reported.
const LABELLED_FENCE: CallForm = CallForm {
    opener: b"```tool_call",
    body: Body::Sniff(&LABELLED_BODIES),
    labelled: true,
    ..FENCE
};

/// `TOOL CALL: {...}` at a line start: the label says a JSON call object follows, so
/// it is never text (an example of the format is reported); the call ends with its
/// value. A label followed by anything but JSON is text.
const LABEL: CallForm = CallForm {
    opener: b"TOOL CALL: {",
    body: Body::Envelope(&HERMES_ENVELOPE),
    body_prefix: b"{",
    closer: b"",
    anchored: true,
    repeats: false,
    labelled: true,
    ..FENCE
};

pub(crate) static FENCED: Spec = Spec {
    dialect: Dialect::FencedJson,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[
        FENCE,
        CallForm {
            opener: b"```JSON",
            ..FENCE
        },
        // A fence without a language, holding JSON.
        CallForm {
            opener: b"```\n{",
            body_prefix: b"{",
            ..FENCE
        },
        CallForm {
            opener: b"```\n[",
            body_prefix: b"[",
            ..FENCE
        },
        LABEL,
        CallForm {
            opener: b"TOOL CALL:{",
            ..LABEL
        },
        LABELLED_FENCE,
        CallForm {
            opener: b"```tool_code",
            ..LABELLED_FENCE
        },
    ],
    strip: &[b"</think>"],
};

const BARE: CallForm = CallForm {
    opener: b"{",
    body: Body::Envelope(&HERMES_ENVELOPE),
    anchored: true,
    body_prefix: b"{",
    start_only: true,
    repeats: true,
    heuristic: true,
    ..CallForm::BASE
};

pub(crate) static BARE_JSON: Spec = Spec {
    dialect: Dialect::BareJson,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[
        BARE,
        CallForm {
            opener: b"[",
            body_prefix: b"[",
            ..BARE
        },
    ],
    strip: &[b"</think>"],
};

/// How a model without a call marker writes a fenced call
/// ([`Dialect::render`](crate::Dialect::render)): one call object a line in the fence.
pub(crate) static FENCED_FORMS: &[Layout] = &[Layout {
    name: "fenced_json",
    note: "any model prompted to answer with a ```json fence",
    reasoning: THINK_TIGHT,
    text: &[Slot, T("\n")],
    calls_open: &[M("```json\n")],
    call: "{\"name\": \"$name\", \"arguments\": $args}",
    between: &[M("\n")],
    calls_close: &[M("\n```")],
    after: &[T("\n"), Slot],
    closing_markup: &["```"],
    ..Layout::BASE
}];

/// A bare call object is the whole output; several, one a line.
pub(crate) static BARE_FORMS: &[Layout] = &[Layout {
    name: "bare_json",
    note: "any model prompted to answer with a JSON call object",
    reasoning: THINK_TIGHT,
    text: &[],
    call: "{\"name\": \"$name\", \"arguments\": $args}",
    between: &[M("\n")],
    closing_markup: &["}"],
    auto: InAuto::Alone,
    ..Layout::BASE
}];
