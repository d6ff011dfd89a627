//! What a response amounted to: released and held-back calls, repairs, and the honest
//! `finish_reason`. Shared by the streaming encoder and the whole-message builder.

use crate::event::{CallIndex, NotReleasedReason, OwnedEvent, StopReason};
use crate::ordered;
use crate::repairs::Repairs;
use serde_json::Value;

/// The tally of one response, fed every [`OwnedEvent`] in order.
#[derive(Clone, Debug, Default)]
pub struct Outcome {
    released: usize,
    incomplete: Vec<ordered::Value>,
    /// By call id, in the order the calls were released.
    repairs: ordered::Map,
    validation: ordered::Map,
    all_repairs: Repairs,
    truncated: bool,
    stop: Option<StopReason>,
    upstream_error: Option<Value>,
    tool_choice_unmet: Option<String>,
}

impl Outcome {
    /// A fresh tally.
    pub fn new() -> Outcome {
        Outcome::default()
    }

    /// Account for one event.
    pub fn record(&mut self, event: &OwnedEvent) {
        match event {
            OwnedEvent::CallFinished {
                id,
                repairs,
                validation,
                ..
            } => {
                self.released += 1;
                self.all_repairs = self.all_repairs.union(*repairs);
                if !repairs.is_empty() {
                    let names = repairs.names().map(ordered::Value::from).collect();
                    self.repairs
                        .insert(id.clone(), ordered::Value::Array(names));
                }
                if let Some(validation) = validation {
                    self.validation
                        .insert(id.clone(), ordered::Value::from(validation.as_str()));
                }
            }
            OwnedEvent::CallNotReleased {
                index,
                name,
                reason,
                feedback,
                completed,
                repairs,
            } => {
                self.all_repairs = self.all_repairs.union(*repairs);
                if *reason == NotReleasedReason::Truncated {
                    self.truncated = true;
                }
                self.incomplete.push(incomplete_call(
                    *index,
                    name.as_deref(),
                    *reason,
                    feedback,
                    completed,
                ));
            }
            OwnedEvent::ToolChoiceUnmet { feedback } => {
                self.tool_choice_unmet = Some(feedback.clone());
            }
            OwnedEvent::End { stop, truncated } => {
                self.stop = Some(*stop);
                self.truncated |= *truncated;
            }
            _ => {}
        }
    }

    /// Note an error the upstream sent in place of the rest of the stream.
    pub fn set_upstream_error(&mut self, error: Value) {
        self.upstream_error = Some(error);
    }

    /// How many calls were released.
    pub fn released_calls(&self) -> usize {
        self.released
    }

    /// How many calls were not released.
    pub fn incomplete_calls(&self) -> usize {
        self.incomplete.len()
    }

    /// Every repair applied in the response (released calls or not).
    pub fn repairs(&self) -> Repairs {
        self.all_repairs
    }

    /// The feedback when the request required a call and none was released
    /// ([`OwnedEvent::ToolChoiceUnmet`]).
    pub fn tool_choice_unmet(&self) -> Option<&str> {
        self.tool_choice_unmet.as_deref()
    }

    /// The stop reason, once the response ended.
    pub fn stop(&self) -> Option<StopReason> {
        self.stop
    }

    /// The honest OpenAI `finish_reason`: `length` when generation was cut
    /// ([`StopReason::Length`] or [`StopReason::Disconnected`]) or a call was truncated,
    /// else `tool_calls` when a call was released, else `stop`.
    pub fn finish_reason(&self) -> &'static str {
        let cut = self.stop.is_some_and(StopReason::is_cut);
        if cut || self.truncated {
            "length"
        } else if self.released > 0 {
            "tool_calls"
        } else {
            "stop"
        }
    }

    /// The non-standard `toolsift` extension object:
    /// `{"incomplete_calls": [{"index", "name", "reason", "feedback", "arguments"}],
    /// "repairs": {call_id: [names]}}`, plus `"validation": {call_id: errors}`,
    /// `"tool_choice_unmet": feedback` (the request required a call and none was
    /// released) and `"upstream_error"` when there are any.
    pub fn extension(&self) -> Value {
        self.extension_in_order().to_serde()
    }

    /// [`Outcome::extension`] with its members in the order documented.
    pub(crate) fn extension_in_order(&self) -> ordered::Value {
        let mut ext = ordered::Map::new();
        ext.insert(
            "incomplete_calls".into(),
            ordered::Value::Array(self.incomplete.clone()),
        );
        ext.insert(
            "repairs".into(),
            ordered::Value::Object(self.repairs.clone()),
        );
        if !self.validation.is_empty() {
            ext.insert(
                "validation".into(),
                ordered::Value::Object(self.validation.clone()),
            );
        }
        if let Some(feedback) = &self.tool_choice_unmet {
            ext.insert("tool_choice_unmet".into(), feedback.as_str().into());
        }
        if let Some(error) = &self.upstream_error {
            ext.insert("upstream_error".into(), ordered::Value::from(error));
        }
        ordered::Value::Object(ext)
    }
}

fn incomplete_call(
    index: CallIndex,
    name: Option<&str>,
    reason: NotReleasedReason,
    feedback: &str,
    completed: &str,
) -> ordered::Value {
    ordered::Value::object([
        ("index", ordered::Value::from(index.0)),
        ("name", name.into()),
        ("reason", reason.as_str().into()),
        ("feedback", feedback.into()),
        ("arguments", completed.into()),
    ])
}
