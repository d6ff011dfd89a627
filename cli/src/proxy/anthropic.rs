//! Anthropic Messages (`POST /v1/messages`): the request translated to an OpenAI chat
//! completion for the upstream, the answer as a Messages response with `text`,
//! `thinking` and `tool_use` blocks, whole or as the Messages event stream.

use bytes::BytesMut;
use serde_json::{json, Map, Value};
use toolsift::sse::{ChunkMeta, Outcome};
use toolsift::OwnedEvent;

use crate::proxy::surface::{write_event, StreamEncoder};

/// Translate a Messages request into a chat completion request; `Err` says what is wrong.
pub(crate) fn to_chat(request: &Value) -> Result<Value, String> {
    let object = request
        .as_object()
        .ok_or("the request is not a json object")?;
    let model = object
        .get("model")
        .and_then(Value::as_str)
        .ok_or("`model` is required")?;
    let Some(input) = object.get("messages").and_then(Value::as_array) else {
        return Err("`messages` must be an array".into());
    };
    let mut messages = Vec::new();
    match object.get("system") {
        None | Some(Value::Null) => {}
        Some(Value::String(s)) => messages.push(json!({"role": "system", "content": s})),
        Some(Value::Array(blocks)) => {
            let text = blocks_text(blocks);
            messages.push(json!({"role": "system", "content": text}));
        }
        Some(_) => return Err("`system` must be a string or an array of text blocks".into()),
    }
    for message in input {
        let role = message["role"].as_str().ok_or("a message has no `role`")?;
        match &message["content"] {
            Value::String(s) => messages.push(json!({"role": role, "content": s})),
            Value::Array(blocks) => translate_blocks(role, blocks, &mut messages)?,
            _ => return Err("message `content` must be a string or an array of blocks".into()),
        }
    }
    let mut chat = Map::new();
    chat.insert("model".into(), Value::from(model));
    chat.insert("messages".into(), Value::Array(messages));
    if let Some(max) = object.get("max_tokens").filter(|v| !v.is_null()) {
        chat.insert("max_tokens".into(), max.clone());
    }
    for key in ["temperature", "top_p", "top_k", "stream"] {
        if let Some(value) = object.get(key).filter(|v| !v.is_null()) {
            chat.insert(key.into(), value.clone());
        }
    }
    if let Some(stop) = object.get("stop_sequences").filter(|v| !v.is_null()) {
        chat.insert("stop".into(), stop.clone());
    }
    if let Some(tools) = object.get("tools").and_then(Value::as_array) {
        let tools: Vec<Value> = tools
            .iter()
            .filter(|t| t.get("input_schema").is_some() || t.get("type").is_none())
            .map(|t| {
                let mut function = json!({
                    "name": t["name"],
                    "parameters": t.get("input_schema").cloned().unwrap_or_else(|| json!({"type": "object"})),
                });
                if let Some(description) = t.get("description").filter(|d| d.is_string()) {
                    function["description"] = description.clone();
                }
                json!({"type": "function", "function": function})
            })
            .collect();
        if !tools.is_empty() {
            chat.insert("tools".into(), Value::Array(tools));
        }
    }
    if let Some(choice) = object.get("tool_choice").filter(|v| v.is_object()) {
        if choice["disable_parallel_tool_use"] == true {
            chat.insert("parallel_tool_calls".into(), Value::from(false));
        }
        let choice = match choice["type"].as_str() {
            Some("any") => json!("required"),
            Some("none") => json!("none"),
            Some("tool") => json!({"type": "function", "function": {"name": choice["name"]}}),
            _ => json!("auto"),
        };
        chat.insert("tool_choice".into(), choice);
    }
    if chat.get("stream").and_then(Value::as_bool) == Some(true) {
        chat.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Ok(Value::Object(chat))
}

fn blocks_text(blocks: &[Value]) -> String {
    blocks
        .iter()
        .filter_map(|b| b["text"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// One Anthropic message's blocks as chat messages: text (and images) stay in the
/// message, `tool_use` blocks become the assistant's `tool_calls`, `tool_result` blocks
/// become `tool` messages.
fn translate_blocks(role: &str, blocks: &[Value], out: &mut Vec<Value>) -> Result<(), String> {
    let mut parts = Vec::new();
    let mut calls = Vec::new();
    for block in blocks {
        match block["type"].as_str() {
            Some("text") => parts.push(json!({"type": "text", "text": block["text"]})),
            Some("image") => {
                let source = &block["source"];
                let url = match source["type"].as_str() {
                    Some("base64") => format!(
                        "data:{};base64,{}",
                        source["media_type"].as_str().unwrap_or("image/png"),
                        source["data"].as_str().unwrap_or("")
                    ),
                    _ => source["url"].as_str().unwrap_or("").to_owned(),
                };
                parts.push(json!({"type": "image_url", "image_url": {"url": url}}));
            }
            Some("tool_use") => calls.push(json!({
                "id": block["id"],
                "type": "function",
                "function": {"name": block["name"], "arguments": block["input"].to_string()},
            })),
            Some("tool_result") => {
                let content = match &block["content"] {
                    Value::String(s) => s.clone(),
                    Value::Array(inner) => blocks_text(inner),
                    Value::Null => String::new(),
                    other => other.to_string(),
                };
                out.push(json!({"role": "tool", "tool_call_id": block["tool_use_id"], "content": content}));
            }
            // Earlier reasoning is not sent back to the model.
            Some("thinking" | "redacted_thinking") => {}
            other => return Err(format!("unsupported content block type {other:?}")),
        }
    }
    if parts.is_empty() && calls.is_empty() {
        return Ok(());
    }
    let only_text = parts.iter().all(|p| p["type"] == "text");
    let content = if parts.is_empty() {
        Value::Null
    } else if only_text {
        Value::from(blocks_text(&parts))
    } else {
        Value::Array(parts)
    };
    let mut message = json!({"role": role, "content": content});
    if !calls.is_empty() {
        message["tool_calls"] = Value::Array(calls);
    }
    out.push(message);
    Ok(())
}

/// An upstream error answer (OpenAI's shape, or any text) in Anthropic's shape, with the
/// error type Anthropic uses for the status.
pub(crate) fn error_from_upstream(status: u16, body: &[u8]) -> Value {
    let parsed: Option<Value> = serde_json::from_slice(body).ok();
    let message = parsed
        .as_ref()
        .and_then(|v| {
            v["error"]["message"]
                .as_str()
                .or_else(|| v["error"].as_str())
                .or_else(|| v["message"].as_str())
                .map(str::to_owned)
        })
        .unwrap_or_else(|| String::from_utf8_lossy(&body[..body.len().min(1000)]).into_owned());
    let kind = match status {
        400 | 422 => "invalid_request_error",
        401 => "authentication_error",
        403 => "permission_error",
        404 => "not_found_error",
        413 => "request_too_large",
        429 => "rate_limit_error",
        503 | 529 => "overloaded_error",
        _ => "api_error",
    };
    json!({"type": "error", "error": {"type": kind, "message": message}})
}

/// The Messages `stop_reason` for an OpenAI `finish_reason`.
pub(crate) fn stop_reason(finish_reason: &str) -> &'static str {
    match finish_reason {
        "length" => "max_tokens",
        "tool_calls" => "tool_use",
        _ => "end_turn",
    }
}

fn usage(chat_usage: Option<&Value>) -> Value {
    let get = |key: &str| chat_usage.and_then(|u| u[key].as_u64()).unwrap_or_default();
    json!({"input_tokens": get("prompt_tokens"), "output_tokens": get("completion_tokens")})
}

fn message_id(meta_id: &str) -> String {
    if meta_id.is_empty() {
        "msg_toolsift".into()
    } else {
        format!("msg_{meta_id}")
    }
}

/// A whole Messages response from a (repaired) chat completion.
pub(crate) fn from_chat(completion: &Value) -> Value {
    let choice = &completion["choices"][0];
    let message = &choice["message"];
    let mut content = Vec::new();
    if let Some(thinking) = message["reasoning_content"]
        .as_str()
        .filter(|s| !s.is_empty())
    {
        content.push(json!({"type": "thinking", "thinking": thinking, "signature": ""}));
    }
    if let Some(text) = message["content"].as_str().filter(|s| !s.is_empty()) {
        content.push(json!({"type": "text", "text": text}));
    }
    for call in message["tool_calls"].as_array().into_iter().flatten() {
        let input: Value =
            serde_json::from_str(call["function"]["arguments"].as_str().unwrap_or("{}"))
                .unwrap_or_else(|_| json!({}));
        content.push(json!({"type": "tool_use", "id": call["id"], "name": call["function"]["name"], "input": input}));
    }
    json!({
        "id": message_id(completion["id"].as_str().unwrap_or("")),
        "type": "message",
        "role": "assistant",
        "model": completion["model"],
        "content": content,
        "stop_reason": stop_reason(choice["finish_reason"].as_str().unwrap_or("stop")),
        "stop_sequence": null,
        "usage": usage(completion.get("usage")),
        "toolsift": completion["toolsift"],
    })
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Block {
    Text,
    Thinking,
}

/// Events → the Messages event stream. Calls are sent whole once released (a `tool_use`
/// block with its input in one `input_json_delta`): a call that is not released never
/// reaches the client as a `tool_use` block.
pub(crate) struct AnthropicEncoder {
    meta: ChunkMeta,
    started: bool,
    open: Option<Block>,
    blocks: usize,
    outcome: Outcome,
    done: bool,
}

impl AnthropicEncoder {
    pub(crate) fn new() -> AnthropicEncoder {
        AnthropicEncoder {
            meta: ChunkMeta::default(),
            started: false,
            open: None,
            blocks: 0,
            outcome: Outcome::new(),
            done: false,
        }
    }

    fn start(&mut self, out: &mut BytesMut) {
        if self.started {
            return;
        }
        self.started = true;
        let message = json!({
            "id": message_id(&self.meta.id),
            "type": "message",
            "role": "assistant",
            "model": self.meta.model,
            "content": [],
            "stop_reason": null,
            "stop_sequence": null,
            "usage": usage(self.meta.usage.as_ref()),
        });
        write_event(
            out,
            Some("message_start"),
            &json!({"type": "message_start", "message": message}),
        );
    }

    fn close_block(&mut self, out: &mut BytesMut) {
        if self.open.take().is_some() {
            write_event(
                out,
                Some("content_block_stop"),
                &json!({"type": "content_block_stop", "index": self.blocks - 1}),
            );
        }
    }

    fn open_block(&mut self, block: Value, kind: Option<Block>, out: &mut BytesMut) -> usize {
        self.close_block(out);
        let index = self.blocks;
        self.blocks += 1;
        self.open = kind;
        write_event(
            out,
            Some("content_block_start"),
            &json!({"type": "content_block_start", "index": index, "content_block": block}),
        );
        index
    }

    fn text(&mut self, kind: Block, text: &str, out: &mut BytesMut) {
        if text.is_empty() {
            return;
        }
        if self.open != Some(kind) {
            let block = match kind {
                Block::Text => json!({"type": "text", "text": ""}),
                Block::Thinking => json!({"type": "thinking", "thinking": "", "signature": ""}),
            };
            self.open_block(block, Some(kind), out);
        }
        let delta = match kind {
            Block::Text => json!({"type": "text_delta", "text": text}),
            Block::Thinking => json!({"type": "thinking_delta", "thinking": text}),
        };
        write_event(
            out,
            Some("content_block_delta"),
            &json!({"type": "content_block_delta", "index": self.blocks - 1, "delta": delta}),
        );
    }
}

impl StreamEncoder for AnthropicEncoder {
    fn meta(&mut self, meta: ChunkMeta) {
        self.meta.update(meta);
    }

    fn event(&mut self, choice: u32, event: &OwnedEvent, out: &mut BytesMut) {
        if choice != 0 || self.done {
            return;
        }
        self.start(out);
        self.outcome.record(event);
        match event {
            OwnedEvent::Text(text) => self.text(Block::Text, text, out),
            OwnedEvent::Reasoning(text) => self.text(Block::Thinking, text, out),
            OwnedEvent::CallFinished {
                id,
                name,
                arguments,
                ..
            } => {
                let block = json!({"type": "tool_use", "id": id, "name": name, "input": {}});
                let index = self.open_block(block, None, out);
                let delta = json!({"type": "input_json_delta", "partial_json": arguments});
                write_event(
                    out,
                    Some("content_block_delta"),
                    &json!({"type": "content_block_delta", "index": index, "delta": delta}),
                );
                write_event(
                    out,
                    Some("content_block_stop"),
                    &json!({"type": "content_block_stop", "index": index}),
                );
            }
            OwnedEvent::End { .. } => {
                self.close_block(out);
                self.done = true;
            }
            _ => {}
        }
    }

    fn upstream_error(&mut self, error: Value) {
        self.outcome.set_upstream_error(error);
    }

    fn close(&mut self, out: &mut BytesMut) {
        self.start(out);
        self.close_block(out);
        let delta = json!({
            "type": "message_delta",
            "delta": {"stop_reason": stop_reason(self.outcome.finish_reason()), "stop_sequence": null},
            "usage": usage(self.meta.usage.as_ref()),
            "toolsift": self.outcome.extension(),
        });
        write_event(out, Some("message_delta"), &delta);
        write_event(out, Some("message_stop"), &json!({"type": "message_stop"}));
    }

    fn outcomes(&self) -> Vec<&Outcome> {
        vec![&self.outcome]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolsift::{CallIndex, Repairs, StopReason};

    #[test]
    fn a_request_with_tools_tool_use_and_results() {
        let request = json!({
            "model": "m", "max_tokens": 100, "system": [{"type": "text", "text": "be brief"}],
            "stream": true,
            "tools": [{"name": "get_weather", "description": "d", "input_schema": {"type": "object"}}],
            "tool_choice": {"type": "any"},
            "messages": [
                {"role": "user", "content": "weather?"},
                {"role": "assistant", "content": [
                    {"type": "thinking", "thinking": "hm", "signature": "x"},
                    {"type": "text", "text": "checking"},
                    {"type": "tool_use", "id": "t1", "name": "get_weather", "input": {"city": "Paris"}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": [{"type": "text", "text": "sunny"}]}]},
            ],
        });
        let chat = to_chat(&request).unwrap();
        assert_eq!(
            chat["messages"],
            json!([
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "weather?"},
                {"role": "assistant", "content": "checking", "tool_calls": [
                    {"id": "t1", "type": "function", "function": {"name": "get_weather", "arguments": "{\"city\":\"Paris\"}"}}]},
                {"role": "tool", "tool_call_id": "t1", "content": "sunny"},
            ])
        );
        assert_eq!(
            chat["tools"],
            json!([{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}, "description": "d"}}])
        );
        assert_eq!(chat["tool_choice"], "required");
        assert_eq!(chat["max_tokens"], 100);
        assert_eq!(chat["stream_options"], json!({"include_usage": true}));
        assert!(to_chat(&json!({"model": "m"})).is_err());
        assert!(to_chat(
            &json!({"model": "m", "messages": [{"role": "user", "content": [{"type": "bogus"}]}]})
        )
        .is_err());
    }

    #[test]
    fn the_event_stream_has_blocks_in_order() {
        let mut encoder = AnthropicEncoder::new();
        let mut out = BytesMut::new();
        let events = [
            OwnedEvent::Reasoning("hm".into()),
            OwnedEvent::Text("ok".into()),
            OwnedEvent::CallStarted {
                index: CallIndex(0),
                id: "c".into(),
                name: "f".into(),
            },
            OwnedEvent::CallFinished {
                index: CallIndex(0),
                id: "c".into(),
                name: "f".into(),
                arguments: "{\"a\":1}".into(),
                repairs: Repairs::NONE,
                validation: None,
            },
            OwnedEvent::End {
                stop: StopReason::Stop,
                truncated: false,
            },
        ];
        for event in &events {
            encoder.event(0, event, &mut out);
        }
        encoder.close(&mut out);
        let text = String::from_utf8(out.to_vec()).unwrap();
        let names: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("event: "))
            .collect();
        assert_eq!(
            names,
            [
                "message_start",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "content_block_start",
                "content_block_delta",
                "content_block_stop",
                "message_delta",
                "message_stop"
            ]
        );
        assert!(text.contains(r#""stop_reason":"tool_use""#));
        assert!(text.contains(r#""partial_json":"{\"a\":1}""#));
    }
}
