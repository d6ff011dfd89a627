//! Building a whole (non-streaming) chat completion message from events.

use crate::event::OwnedEvent;
use crate::sse::outcome::Outcome;
use serde_json::{json, Map, Value};

/// Collects [`OwnedEvent`]s into an OpenAI chat completion `message`.
#[derive(Clone, Debug, Default)]
pub struct MessageBuilder {
    content: String,
    reasoning: String,
    tool_calls: Vec<Value>,
    outcome: Outcome,
}

impl MessageBuilder {
    /// An empty message.
    pub fn new() -> MessageBuilder {
        MessageBuilder::default()
    }

    /// Add one event.
    pub fn push(&mut self, event: &OwnedEvent) {
        self.outcome.record(event);
        match event {
            OwnedEvent::Text(text) => self.content.push_str(text),
            OwnedEvent::Reasoning(text) => self.reasoning.push_str(text),
            OwnedEvent::CallFinished {
                id,
                name,
                arguments,
                ..
            } => self.tool_calls.push(json!({
                "id": id,
                "type": "function",
                "function": {"name": name, "arguments": arguments},
            })),
            _ => {}
        }
    }

    /// The tally so far.
    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }

    /// Mutable access to the tally (to note an upstream error).
    pub fn outcome_mut(&mut self) -> &mut Outcome {
        &mut self.outcome
    }

    /// The `message` object: `role`, `content` (`null` when empty and there are tool
    /// calls), `reasoning_content` (when any) and `tool_calls` (when any).
    pub fn message(&self) -> Value {
        let mut message = Map::new();
        message.insert("role".into(), Value::from("assistant"));
        let content = if self.content.is_empty() && !self.tool_calls.is_empty() {
            Value::Null
        } else {
            Value::from(self.content.as_str())
        };
        message.insert("content".into(), content);
        if !self.reasoning.is_empty() {
            message.insert(
                "reasoning_content".into(),
                Value::from(self.reasoning.as_str()),
            );
        }
        if !self.tool_calls.is_empty() {
            message.insert("tool_calls".into(), Value::Array(self.tool_calls.clone()));
        }
        Value::Object(message)
    }

    /// Rewrite an upstream response in place: `choices[0].message`,
    /// `choices[0].finish_reason` and the top-level `toolsift` extension. Everything else
    /// (id, usage, ...) is kept; `object` becomes `chat.completion`.
    pub fn apply_to(&self, response: &mut Value) {
        if !response.is_object() {
            *response = json!({});
        }
        response["object"] = Value::from("chat.completion");
        if !response["choices"].is_array() || response["choices"][0].is_null() {
            response["choices"] = json!([{"index": 0}]);
        }
        let choice = &mut response["choices"][0];
        if let Some(choice) = choice.as_object_mut() {
            choice.remove("text");
        }
        choice["message"] = self.message();
        choice["finish_reason"] = Value::from(self.outcome.finish_reason());
        response["toolsift"] = self.outcome.extension();
    }
}
