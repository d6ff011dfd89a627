//! The CLI's message: the events of one response folded into one JSON object.

use serde_json::{json, Value};
use toolsift::{OwnedEvent, StopReason};

/// Events folded into the `toolsift parse` message.
#[derive(Default)]
pub(crate) struct Message {
    content: String,
    reasoning: String,
    calls: Vec<Value>,
    incomplete: Vec<Value>,
    stop: Option<StopReason>,
}

impl Message {
    pub(crate) fn push(&mut self, event: &OwnedEvent) {
        match event {
            OwnedEvent::Text(t) => self.content.push_str(t),
            OwnedEvent::Reasoning(t) => self.reasoning.push_str(t),
            OwnedEvent::CallFinished {
                id,
                name,
                arguments,
                repairs,
                validation,
                ..
            } => {
                let mut call = json!({
                    "id": id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                    "repairs": repairs.names().collect::<Vec<_>>(),
                });
                if let Some(validation) = validation {
                    call["validation"] = Value::from(validation.as_str());
                }
                self.calls.push(call);
            }
            OwnedEvent::CallNotReleased {
                name,
                reason,
                feedback,
                completed,
                ..
            } => self.incomplete.push(json!({
                "name": name,
                "reason": reason.as_str(),
                "arguments": completed,
                "feedback": feedback,
            })),
            OwnedEvent::End { stop, .. } => self.stop = Some(*stop),
            _ => {}
        }
    }

    pub(crate) fn to_json(&self) -> Value {
        let cut = self.stop.is_some_and(StopReason::is_cut);
        let finish = if cut {
            "length"
        } else if !self.calls.is_empty() {
            "tool_calls"
        } else {
            "stop"
        };
        json!({
            "role": "assistant",
            "content": self.content,
            "reasoning_content": self.reasoning,
            "tool_calls": self.calls,
            "incomplete_calls": self.incomplete,
            "finish_reason": finish,
        })
    }
}

/// An event as one JSON line for `--events`.
pub(crate) fn event_json(event: &OwnedEvent) -> Value {
    match event {
        OwnedEvent::Text(t) => json!({"type": "text", "text": t}),
        OwnedEvent::Reasoning(t) => json!({"type": "reasoning", "text": t}),
        OwnedEvent::CallStarted { index, id, name } => {
            json!({"type": "call_started", "index": index.0, "id": id, "name": name})
        }
        OwnedEvent::ArgsDelta { index, fragment } => {
            json!({"type": "args_delta", "index": index.0, "fragment": fragment})
        }
        OwnedEvent::CallFinished {
            index,
            id,
            name,
            arguments,
            repairs,
            validation,
        } => json!({
            "type": "call_finished", "index": index.0, "id": id, "name": name,
            "arguments": arguments, "repairs": repairs.names().collect::<Vec<_>>(),
            "validation": validation,
        }),
        OwnedEvent::CallNotReleased {
            index,
            name,
            reason,
            feedback,
            completed,
            repairs,
        } => json!({
            "type": "call_not_released", "index": index.0, "name": name,
            "reason": reason.as_str(), "feedback": feedback, "completed": completed,
            "repairs": repairs.names().collect::<Vec<_>>(),
        }),
        OwnedEvent::End { stop, truncated } => {
            json!({"type": "end", "stop": stop.as_str(), "truncated": truncated})
        }
        // An event kind added to the library after this tool: shown, not dropped.
        other => json!({"type": "other", "event": format!("{other:?}")}),
    }
}
