//! Legacy text completions (`POST /v1/completions`) whose request declares `tools`: the
//! text of each choice without call markup, and its released calls as `tool_calls` on
//! the choice (OpenAI's shape; a non-standard field on this endpoint). Requests without
//! tools pass through untouched.

use bytes::BytesMut;
use serde_json::{json, Map, Value};
use std::collections::BTreeMap;
use toolsift::sse::{ChunkMeta, MessageBuilder, Outcome};
use toolsift::OwnedEvent;

use crate::proxy::surface::{write_event, StreamEncoder};

fn call(wire: usize, id: &str, name: &str, arguments: &str) -> Value {
    json!({"index": wire, "id": id, "type": "function", "function": {"name": name, "arguments": arguments}})
}

/// Rewrite a whole text completion in place: each choice's `text`, `tool_calls` (when
/// any), `finish_reason` and `toolsift` extension (also at the top for the first choice).
pub(crate) fn apply_whole(response: &mut Value, built: &[(u32, MessageBuilder)]) {
    let mut list = Vec::new();
    for (index, builder) in built {
        let mut choice = response["choices"]
            .as_array()
            .and_then(|l| {
                l.iter()
                    .find(|c| c["index"].as_u64() == Some(u64::from(*index)))
            })
            .cloned()
            .unwrap_or_else(|| json!({"index": index}));
        let message = builder.message();
        choice["index"] = Value::from(*index);
        choice["text"] = Value::from(message["content"].as_str().unwrap_or(""));
        if let Some(calls) = message.get("tool_calls") {
            choice["tool_calls"] = calls.clone();
        }
        if let Some(reasoning) = message.get("reasoning_content") {
            choice["reasoning_content"] = reasoning.clone();
        }
        choice["finish_reason"] = Value::from(builder.outcome().finish_reason());
        choice["toolsift"] = builder.outcome().extension();
        list.push(choice);
    }
    if let Some((_, first)) = built.first() {
        response["toolsift"] = first.outcome().extension();
    }
    response["choices"] = Value::Array(list);
}

#[derive(Default)]
struct ChoiceState {
    outcome: Outcome,
    calls: usize,
}

/// Events → `text_completion` chunks: text as `text`, each released call whole as a
/// `tool_calls` entry, the honest `finish_reason` and the `toolsift` extension on each
/// choice's last chunk, then usage and `[DONE]`.
pub(crate) struct CompletionsEncoder {
    meta: ChunkMeta,
    choices: BTreeMap<u32, ChoiceState>,
}

impl CompletionsEncoder {
    pub(crate) fn new() -> CompletionsEncoder {
        CompletionsEncoder {
            meta: ChunkMeta::default(),
            choices: BTreeMap::new(),
        }
    }

    fn chunk(&self, choice: Value) -> Value {
        let mut chunk = Map::new();
        chunk.insert("id".into(), Value::from(self.meta.id.as_str()));
        chunk.insert("object".into(), Value::from("text_completion"));
        chunk.insert("created".into(), Value::from(self.meta.created));
        chunk.insert("model".into(), Value::from(self.meta.model.as_str()));
        chunk.insert("choices".into(), json!([choice]));
        Value::Object(chunk)
    }
}

impl StreamEncoder for CompletionsEncoder {
    fn meta(&mut self, meta: ChunkMeta) {
        self.meta.update(meta);
    }

    fn event(&mut self, index: u32, event: &OwnedEvent, out: &mut BytesMut) {
        let state = self.choices.entry(index).or_default();
        state.outcome.record(event);
        let choice = match event {
            OwnedEvent::Text(text) if !text.is_empty() => {
                json!({"index": index, "text": text, "logprobs": null, "finish_reason": null})
            }
            OwnedEvent::CallFinished {
                id,
                name,
                arguments,
                ..
            } => {
                let wire = state.calls;
                state.calls += 1;
                json!({"index": index, "text": "", "logprobs": null, "finish_reason": null,
                       "tool_calls": [call(wire, id, name, arguments)]})
            }
            OwnedEvent::End { .. } => {
                let finish = state.outcome.finish_reason();
                let extension = state.outcome.extension();
                let mut last = self.chunk(
                    json!({"index": index, "text": "", "logprobs": null, "finish_reason": finish}),
                );
                last["toolsift"] = extension;
                write_event(out, None, &last);
                return;
            }
            _ => return,
        };
        let chunk = self.chunk(choice);
        write_event(out, None, &chunk);
    }

    fn upstream_error(&mut self, error: Value) {
        for state in self.choices.values_mut() {
            state.outcome.set_upstream_error(error.clone());
        }
        self.choices
            .entry(0)
            .or_default()
            .outcome
            .set_upstream_error(error);
    }

    fn close(&mut self, out: &mut BytesMut) {
        if let Some(usage) = self.meta.usage.clone() {
            let mut chunk = self.chunk(json!(null));
            chunk["choices"] = json!([]);
            chunk["usage"] = usage;
            write_event(out, None, &chunk);
        }
        out.extend_from_slice(b"data: [DONE]\n\n");
    }

    fn outcomes(&self) -> Vec<&Outcome> {
        self.choices.values().map(|s| &s.outcome).collect()
    }
}
