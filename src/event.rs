//! Events drained from a [`Parser`](crate::Parser), borrowed and owned.

use crate::repairs::Repairs;

/// Position of a call in the response, counted from 0 in the order calls start.
///
/// This is the OpenAI streaming `index`: a position in the response, not in the
/// request's tool list.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallIndex(pub u32);

/// How generation ended, as told to [`Parser::finish`](crate::Parser::finish).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum StopReason {
    /// The model stopped on its own (end-of-sequence or a stop string).
    Stop,
    /// Generation was cut by the token limit (`max_tokens`).
    Length,
    /// The upstream connection ended without saying why.
    Disconnected,
}

impl StopReason {
    /// Whether generation was cut rather than finished.
    pub fn is_cut(self) -> bool {
        !matches!(self, StopReason::Stop)
    }

    /// The OpenAI-style name: `stop`, `length` or `disconnected`.
    pub fn as_str(self) -> &'static str {
        match self {
            StopReason::Stop => "stop",
            StopReason::Length => "length",
            StopReason::Disconnected => "disconnected",
        }
    }

    /// Parse `stop`, `length`, `disconnected` (also `eos` for stop, `max_tokens` for length).
    pub fn from_name(name: &str) -> Option<StopReason> {
        match name {
            "stop" | "eos" | "end_turn" => Some(StopReason::Stop),
            "length" | "max_tokens" => Some(StopReason::Length),
            "disconnected" => Some(StopReason::Disconnected),
            _ => None,
        }
    }
}

/// Why a call was not released.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NotReleasedReason {
    /// The output was cut (stop reason `length`), or the stream ended inside a value
    /// with the call's closer not written: the call never finished.
    Truncated,
    /// The call is malformed beyond a repair that is certain: arguments not strict JSON
    /// after repair, readings of a raw string too close to tell apart, a value left open
    /// before the call's closer, a name that is not a name.
    Invalid,
    /// A configured limit (arguments size, nesting depth, held-back bytes) was exceeded.
    LimitExceeded,
    /// The call named a tool the request did not declare, and the policy rejects those.
    UnknownTool,
    /// The call broke its tool's schema, and the policy holds such calls back.
    SchemaViolation,
    /// A call found without any marker (bare or fenced JSON) that does not name a declared tool.
    NotACall,
    /// The request's `tool_choice` does not allow this call: none at all, another tool,
    /// or (`required`) a tool it did not declare.
    ToolChoice,
    /// A call after the first released one, and the request allows one
    /// (`parallel_tool_calls: false`).
    ParallelCalls,
}

impl NotReleasedReason {
    /// Stable snake_case name: `truncated`, `invalid`, `limit_exceeded`, `unknown_tool`,
    /// `schema_violation`, `not_a_call`, `tool_choice`, `parallel_calls`.
    pub fn as_str(self) -> &'static str {
        match self {
            NotReleasedReason::Truncated => "truncated",
            NotReleasedReason::Invalid => "invalid",
            NotReleasedReason::LimitExceeded => "limit_exceeded",
            NotReleasedReason::UnknownTool => "unknown_tool",
            NotReleasedReason::SchemaViolation => "schema_violation",
            NotReleasedReason::NotACall => "not_a_call",
            NotReleasedReason::ToolChoice => "tool_choice",
            NotReleasedReason::ParallelCalls => "parallel_calls",
        }
    }
}

/// One event, borrowing from the parser until the next call to
/// [`push`](crate::Parser::push), [`finish`](crate::Parser::finish) or
/// [`reset`](crate::Parser::reset).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Event<'a> {
    /// Visible text. Never contains any part of a marker; always whole UTF-8 characters.
    Text(&'a str),
    /// Reasoning text (`<think>`, harmony analysis, ...), markers removed.
    Reasoning(&'a str),
    /// A call began; sent as soon as its name is complete.
    CallStarted {
        /// Position of the call in the response.
        index: CallIndex,
        /// The call id: the model's own where the dialect carries one, else generated.
        id: &'a str,
        /// The tool name.
        name: &'a str,
    },
    /// A fragment of the call's arguments. Fragments only grow: their concatenation is
    /// byte for byte the `arguments` of the call's [`Event::CallFinished`].
    ArgsDelta {
        /// Position of the call in the response.
        index: CallIndex,
        /// The next bytes of the arguments (whole UTF-8 characters).
        fragment: &'a str,
    },
    /// A call is complete and its arguments passed the strict re-parse.
    CallFinished {
        /// Position of the call in the response.
        index: CallIndex,
        /// The call id.
        id: &'a str,
        /// The tool name.
        name: &'a str,
        /// The arguments: strict JSON text, an object.
        arguments: &'a str,
        /// The repairs applied to this call.
        repairs: Repairs,
        /// Schema validation errors left after repair: `None` when the arguments fit the
        /// tool's schema or no schema was given.
        validation: Option<&'a str>,
    },
    /// A call was not released.
    CallNotReleased {
        /// Position of the call in the response.
        index: CallIndex,
        /// The tool name, if it was complete.
        name: Option<&'a str>,
        /// Why it was not released.
        reason: NotReleasedReason,
        /// A short message to send back to the model as a tool error.
        feedback: &'a str,
        /// The completed top-level members, as a strict JSON object (never the member that
        /// was being written when the call broke off).
        completed: &'a str,
        /// The repairs applied before the call broke off.
        repairs: Repairs,
    },
    /// The request required a call ([`ToolChoice::Required`](crate::ToolChoice::Required)
    /// or [`ToolChoice::Function`](crate::ToolChoice::Function)) and the response
    /// released none: the model answered in text, or its calls were not released. Just
    /// before [`End`](Event::End).
    ToolChoiceUnmet {
        /// A short message to send back to the model, naming what the request required.
        feedback: &'a str,
    },
    /// The stream ended. Always the last event after [`finish`](crate::Parser::finish).
    End {
        /// How generation ended.
        stop: StopReason,
        /// Whether a call was open when the stream ended.
        truncated: bool,
    },
}

/// The owned form of an [`Event`], for queues and other threads.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum OwnedEvent {
    /// See [`Event::Text`].
    Text(String),
    /// See [`Event::Reasoning`].
    Reasoning(String),
    /// See [`Event::CallStarted`].
    CallStarted {
        /// Position of the call in the response.
        index: CallIndex,
        /// The call id.
        id: String,
        /// The tool name.
        name: String,
    },
    /// See [`Event::ArgsDelta`].
    ArgsDelta {
        /// Position of the call in the response.
        index: CallIndex,
        /// The next bytes of the arguments.
        fragment: String,
    },
    /// See [`Event::CallFinished`].
    CallFinished {
        /// Position of the call in the response.
        index: CallIndex,
        /// The call id.
        id: String,
        /// The tool name.
        name: String,
        /// The strict JSON arguments.
        arguments: String,
        /// The repairs applied.
        repairs: Repairs,
        /// Schema validation errors left after repair: `None` when the arguments fit the
        /// tool's schema or no schema was given.
        validation: Option<String>,
    },
    /// See [`Event::CallNotReleased`].
    CallNotReleased {
        /// Position of the call in the response.
        index: CallIndex,
        /// The tool name, if known.
        name: Option<String>,
        /// Why it was not released.
        reason: NotReleasedReason,
        /// Model-readable feedback.
        feedback: String,
        /// Completed top-level members as a strict JSON object.
        completed: String,
        /// The repairs applied before the call broke off.
        repairs: Repairs,
    },
    /// See [`Event::ToolChoiceUnmet`].
    ToolChoiceUnmet {
        /// Model-readable feedback.
        feedback: String,
    },
    /// See [`Event::End`].
    End {
        /// How generation ended.
        stop: StopReason,
        /// Whether a call was open when the stream ended.
        truncated: bool,
    },
}

impl<'a> Event<'a> {
    /// A text event of the kind: visible text, or reasoning.
    pub(crate) fn text(text: &'a str, reasoning: bool) -> Event<'a> {
        match reasoning {
            false => Event::Text(text),
            true => Event::Reasoning(text),
        }
    }
}

impl OwnedEvent {
    /// Borrow the event back: the inverse of [`Event::into_owned`].
    pub fn as_event(&self) -> Event<'_> {
        match self {
            OwnedEvent::Text(t) => Event::Text(t),
            OwnedEvent::Reasoning(t) => Event::Reasoning(t),
            OwnedEvent::CallStarted { index, id, name } => Event::CallStarted {
                index: *index,
                id,
                name,
            },
            OwnedEvent::ArgsDelta { index, fragment } => Event::ArgsDelta {
                index: *index,
                fragment,
            },
            OwnedEvent::CallFinished {
                index,
                id,
                name,
                arguments,
                repairs,
                validation,
            } => Event::CallFinished {
                index: *index,
                id,
                name,
                arguments,
                repairs: *repairs,
                validation: validation.as_deref(),
            },
            OwnedEvent::CallNotReleased {
                index,
                name,
                reason,
                feedback,
                completed,
                repairs,
            } => Event::CallNotReleased {
                index: *index,
                name: name.as_deref(),
                reason: *reason,
                feedback,
                completed,
                repairs: *repairs,
            },
            OwnedEvent::ToolChoiceUnmet { feedback } => Event::ToolChoiceUnmet { feedback },
            OwnedEvent::End { stop, truncated } => Event::End {
                stop: *stop,
                truncated: *truncated,
            },
        }
    }
}

impl Event<'_> {
    /// Copy the borrowed data out.
    pub fn into_owned(self) -> OwnedEvent {
        match self {
            Event::Text(t) => OwnedEvent::Text(t.to_owned()),
            Event::Reasoning(t) => OwnedEvent::Reasoning(t.to_owned()),
            Event::CallStarted { index, id, name } => OwnedEvent::CallStarted {
                index,
                id: id.to_owned(),
                name: name.to_owned(),
            },
            Event::ArgsDelta { index, fragment } => OwnedEvent::ArgsDelta {
                index,
                fragment: fragment.to_owned(),
            },
            Event::CallFinished {
                index,
                id,
                name,
                arguments,
                repairs,
                validation,
            } => OwnedEvent::CallFinished {
                index,
                id: id.to_owned(),
                name: name.to_owned(),
                arguments: arguments.to_owned(),
                repairs,
                validation: validation.map(str::to_owned),
            },
            Event::CallNotReleased {
                index,
                name,
                reason,
                feedback,
                completed,
                repairs,
            } => OwnedEvent::CallNotReleased {
                index,
                name: name.map(str::to_owned),
                reason,
                feedback: feedback.to_owned(),
                completed: completed.to_owned(),
                repairs,
            },
            Event::ToolChoiceUnmet { feedback } => OwnedEvent::ToolChoiceUnmet {
                feedback: feedback.to_owned(),
            },
            Event::End { stop, truncated } => OwnedEvent::End { stop, truncated },
        }
    }
}
