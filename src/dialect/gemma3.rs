//! Gemma 3 (no tool tokens; community templates): a fenced Python call
//! ```` ```tool_code\nget_weather(city="Tokyo")\n``` ````, or `tool_code = f(...)` on a
//! line of its own.

use super::{Body, CallForm, Dialect, PythonicSpec, Spec};

static CALLS: PythonicSpec = PythonicSpec { in_list: false };

/// `tool_code = f(...)` ends with its call.
const ASSIGNED: CallForm = CallForm {
    opener: b"tool_code =",
    body: Body::Pythonic(&CALLS),
    closer: b"",
    implies: None,
    anchored: true,
    ..CallForm::BASE
};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Gemma3,
    reasoning: &[],
    calls: &[
        CallForm {
            opener: b"```tool_code",
            body: Body::Pythonic(&CALLS),
            closer: b"```",
            implies: None,
            anchored: false,
            ..CallForm::BASE
        },
        ASSIGNED,
        CallForm {
            opener: b"tool_code=",
            ..ASSIGNED
        },
    ],
    strip: &[b"<end_of_turn>"],
};
