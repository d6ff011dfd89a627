//! OpenAI Responses (`POST /v1/responses`): the request translated to a chat completion
//! for the upstream; the answer as a Response with `reasoning`, `message` and
//! `function_call` output items, whole or as the Responses event stream.

use bytes::BytesMut;
use serde_json::{json, Map, Value};
use toolsift::sse::{ChunkMeta, Outcome};
use toolsift::OwnedEvent;

use crate::proxy::surface::{write_event, StreamEncoder};

/// Translate a Responses request into a chat completion request; `Err` says what is wrong.
pub(crate) fn to_chat(request: &Value) -> Result<Value, String> {
    let object = request
        .as_object()
        .ok_or("the request is not a json object")?;
    let model = object
        .get("model")
        .and_then(Value::as_str)
        .ok_or("`model` is required")?;
    if object
        .get("previous_response_id")
        .is_some_and(|v| !v.is_null())
    {
        return Err(
            "`previous_response_id` is not supported (the proxy keeps no state): send the whole conversation as `input`"
                .into(),
        );
    }
    let mut messages = Vec::new();
    if let Some(instructions) = object.get("instructions").and_then(Value::as_str) {
        messages.push(json!({"role": "system", "content": instructions}));
    }
    match object.get("input") {
        Some(Value::String(text)) => messages.push(json!({"role": "user", "content": text})),
        Some(Value::Array(items)) => {
            for item in items {
                input_item(item, &mut messages)?;
            }
        }
        _ => return Err("`input` must be a string or an array of items".into()),
    }
    let mut chat = Map::new();
    chat.insert("model".into(), Value::from(model));
    chat.insert("messages".into(), Value::Array(messages));
    for (from, to) in [
        ("max_output_tokens", "max_tokens"),
        ("temperature", "temperature"),
        ("top_p", "top_p"),
        ("stream", "stream"),
        ("parallel_tool_calls", "parallel_tool_calls"),
    ] {
        if let Some(value) = object.get(from).filter(|v| !v.is_null()) {
            chat.insert(to.into(), value.clone());
        }
    }
    if let Some(tools) = object.get("tools").and_then(Value::as_array) {
        // Only function tools reach a local model; built-in tools have no meaning there.
        let tools: Vec<Value> = tools
            .iter()
            .filter(|t| t["type"] == "function")
            .map(|t| {
                let mut function = json!({
                    "name": t["name"],
                    "parameters": t.get("parameters").filter(|p| !p.is_null()).cloned().unwrap_or_else(|| json!({"type": "object"})),
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
    match object.get("tool_choice") {
        Some(Value::String(s)) => {
            chat.insert("tool_choice".into(), Value::from(s.as_str()));
        }
        Some(choice @ Value::Object(_)) if choice["type"] == "function" => {
            chat.insert(
                "tool_choice".into(),
                json!({"type": "function", "function": {"name": choice["name"]}}),
            );
        }
        _ => {}
    }
    if chat.get("stream").and_then(Value::as_bool) == Some(true) {
        chat.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Ok(Value::Object(chat))
}

fn content_text(content: &Value) -> Result<Value, String> {
    match content {
        Value::String(s) => Ok(Value::from(s.as_str())),
        Value::Array(parts) => {
            let mut out = Vec::new();
            let mut only_text = true;
            for part in parts {
                match part["type"].as_str() {
                    Some("input_text" | "output_text" | "text") => {
                        out.push(json!({"type": "text", "text": part["text"]}));
                    }
                    Some("input_image") => {
                        only_text = false;
                        out.push(
                            json!({"type": "image_url", "image_url": {"url": part["image_url"]}}),
                        );
                    }
                    other => return Err(format!("unsupported content part type {other:?}")),
                }
            }
            if only_text {
                let text: Vec<&str> = out.iter().filter_map(|p| p["text"].as_str()).collect();
                Ok(Value::from(text.join("")))
            } else {
                Ok(Value::Array(out))
            }
        }
        _ => Err("message `content` must be a string or an array of parts".into()),
    }
}

fn input_item(item: &Value, messages: &mut Vec<Value>) -> Result<(), String> {
    match item["type"].as_str() {
        None | Some("message") => {
            let role = match item["role"].as_str() {
                Some("developer") => "system",
                Some(role) => role,
                None => return Err("an input message has no `role`".into()),
            };
            messages.push(json!({"role": role, "content": content_text(&item["content"])?}));
        }
        Some("function_call") => {
            let call = json!({
                "id": item["call_id"],
                "type": "function",
                "function": {"name": item["name"], "arguments": item["arguments"]},
            });
            // Consecutive calls belong to one assistant message.
            match messages.last_mut() {
                Some(last) if last["role"] == "assistant" && last["tool_calls"].is_array() => {
                    last["tool_calls"].as_array_mut().expect("array").push(call);
                }
                _ => messages
                    .push(json!({"role": "assistant", "content": null, "tool_calls": [call]})),
            }
        }
        Some("function_call_output") => {
            let output = match &item["output"] {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            messages
                .push(json!({"role": "tool", "tool_call_id": item["call_id"], "content": output}));
        }
        // Earlier reasoning is not sent back to the model.
        Some("reasoning") => {}
        Some(other) => return Err(format!("unsupported input item type {other:?}")),
    }
    Ok(())
}

/// What a Response echoes of its request: `tools`, `tool_choice` and
/// `parallel_tool_calls`, as the request gave them (OpenAI's defaults when absent).
pub(crate) fn echo(request: &Value) -> Value {
    let get = |key: &str, default: Value| {
        request
            .get(key)
            .filter(|v| !v.is_null())
            .cloned()
            .unwrap_or(default)
    };
    json!({
        "tools": get("tools", json!([])),
        "tool_choice": get("tool_choice", json!("auto")),
        "parallel_tool_calls": get("parallel_tool_calls", json!(true)),
    })
}

fn response_id(meta_id: &str) -> String {
    if meta_id.is_empty() {
        "resp_toolsift".into()
    } else {
        format!("resp_{meta_id}")
    }
}

fn usage(chat_usage: Option<&Value>) -> Value {
    let get = |key: &str| chat_usage.and_then(|u| u[key].as_u64()).unwrap_or_default();
    json!({
        "input_tokens": get("prompt_tokens"),
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": get("completion_tokens"),
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": get("prompt_tokens") + get("completion_tokens"),
    })
}

/// The response object around `output`, `completed` or, when generation was cut,
/// `incomplete` with the reason.
fn response(
    meta: &ChunkMeta,
    echo: &Value,
    output: Vec<Value>,
    finish_reason: Option<&str>,
    ext: Option<Value>,
) -> Value {
    let (status, incomplete) = match finish_reason {
        None => ("in_progress", Value::Null),
        Some("length") => ("incomplete", json!({"reason": "max_output_tokens"})),
        Some(_) => ("completed", Value::Null),
    };
    let mut response = json!({
        "id": response_id(&meta.id),
        "object": "response",
        "created_at": meta.created,
        "status": status,
        "model": meta.model,
        "output": output,
        "parallel_tool_calls": echo["parallel_tool_calls"],
        "tool_choice": echo["tool_choice"],
        "tools": echo["tools"],
        "incomplete_details": incomplete,
        "error": null,
        "usage": if finish_reason.is_some() { usage(meta.usage.as_ref()) } else { Value::Null },
    });
    if let Some(ext) = ext {
        response["toolsift"] = ext;
    }
    response
}

fn reasoning_item(id: &str, text: &str) -> Value {
    json!({"type": "reasoning", "id": id, "summary": [],
           "content": [{"type": "reasoning_text", "text": text}], "status": "completed"})
}

fn message_item(id: &str, text: &str, status: &str) -> Value {
    let content = if status == "in_progress" {
        json!([])
    } else {
        json!([{"type": "output_text", "text": text, "annotations": []}])
    };
    json!({"type": "message", "id": id, "status": status, "role": "assistant", "content": content})
}

fn call_item(id: &str, call_id: &str, name: &str, arguments: &str, status: &str) -> Value {
    json!({"type": "function_call", "id": id, "call_id": call_id, "name": name,
           "arguments": arguments, "status": status})
}

/// A whole Response from a (repaired) chat completion; `echo` is the request's
/// ([`echo`]).
pub(crate) fn from_chat(completion: &Value, echo: &Value) -> Value {
    let meta = ChunkMeta::from_json(completion);
    let choice = &completion["choices"][0];
    let message = &choice["message"];
    let mut output = Vec::new();
    if let Some(text) = message["reasoning_content"]
        .as_str()
        .filter(|s| !s.is_empty())
    {
        output.push(reasoning_item("rs_0", text));
    }
    if let Some(text) = message["content"].as_str().filter(|s| !s.is_empty()) {
        output.push(message_item("msg_0", text, "completed"));
    }
    for (i, call) in message["tool_calls"]
        .as_array()
        .into_iter()
        .flatten()
        .enumerate()
    {
        output.push(call_item(
            &format!("fc_{i}"),
            call["id"].as_str().unwrap_or(""),
            call["function"]["name"].as_str().unwrap_or(""),
            call["function"]["arguments"].as_str().unwrap_or("{}"),
            "completed",
        ));
    }
    let finish = choice["finish_reason"].as_str().unwrap_or("stop");
    response(
        &meta,
        echo,
        output,
        Some(finish),
        Some(completion["toolsift"].clone()),
    )
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Open {
    Reasoning,
    Message,
}

/// Events → the Responses event stream. A function call is sent once released
/// (`output_item.added`, one `function_call_arguments.delta`, `.done`,
/// `output_item.done`): a call that is not released never reaches the client.
pub(crate) struct ResponsesEncoder {
    meta: ChunkMeta,
    /// The request's tools and choices, echoed in every response object.
    echo: Value,
    sequence: u64,
    started: bool,
    open: Option<(Open, String)>,
    output: Vec<Value>,
    outcome: Outcome,
    done: bool,
}

impl ResponsesEncoder {
    pub(crate) fn new(echo: Value) -> ResponsesEncoder {
        ResponsesEncoder {
            meta: ChunkMeta::default(),
            echo,
            sequence: 0,
            started: false,
            open: None,
            output: Vec::new(),
            outcome: Outcome::new(),
            done: false,
        }
    }

    fn emit(&mut self, out: &mut BytesMut, kind: &str, mut data: Value) {
        data["type"] = Value::from(kind);
        data["sequence_number"] = Value::from(self.sequence);
        self.sequence += 1;
        write_event(out, Some(kind), &data);
    }

    fn start(&mut self, out: &mut BytesMut) {
        if self.started {
            return;
        }
        self.started = true;
        let response = response(&self.meta, &self.echo, Vec::new(), None, None);
        self.emit(
            out,
            "response.created",
            json!({"response": response.clone()}),
        );
        self.emit(out, "response.in_progress", json!({"response": response}));
    }

    fn close_open(&mut self, out: &mut BytesMut) {
        let Some((kind, text)) = self.open.take() else {
            return;
        };
        let index = self.output.len();
        let item = match kind {
            Open::Reasoning => {
                let id = format!("rs_{index}");
                self.emit(
                    out,
                    "response.reasoning_text.done",
                    json!({"item_id": id, "output_index": index, "content_index": 0, "text": text}),
                );
                reasoning_item(&id, &text)
            }
            Open::Message => {
                let id = format!("msg_{index}");
                let part = json!({"type": "output_text", "text": text, "annotations": []});
                self.emit(out, "response.output_text.done", json!({"item_id": id, "output_index": index, "content_index": 0, "text": text, "logprobs": []}));
                self.emit(
                    out,
                    "response.content_part.done",
                    json!({"item_id": id, "output_index": index, "content_index": 0, "part": part}),
                );
                message_item(&id, &text, "completed")
            }
        };
        self.emit(
            out,
            "response.output_item.done",
            json!({"output_index": index, "item": item.clone()}),
        );
        self.output.push(item);
    }

    fn text(&mut self, kind: Open, text: &str, out: &mut BytesMut) {
        if text.is_empty() {
            return;
        }
        if self.open.as_ref().map(|(k, _)| *k) != Some(kind) {
            self.close_open(out);
            let index = self.output.len();
            match kind {
                Open::Reasoning => {
                    let item =
                        json!({"type": "reasoning", "id": format!("rs_{index}"), "summary": []});
                    self.emit(
                        out,
                        "response.output_item.added",
                        json!({"output_index": index, "item": item}),
                    );
                }
                Open::Message => {
                    let id = format!("msg_{index}");
                    let item = message_item(&id, "", "in_progress");
                    self.emit(
                        out,
                        "response.output_item.added",
                        json!({"output_index": index, "item": item}),
                    );
                    let part = json!({"type": "output_text", "text": "", "annotations": []});
                    self.emit(out, "response.content_part.added", json!({"item_id": id, "output_index": index, "content_index": 0, "part": part}));
                }
            }
            self.open = Some((kind, String::new()));
        }
        let index = self.output.len();
        if let Some((_, buffer)) = self.open.as_mut() {
            buffer.push_str(text);
        }
        match kind {
            Open::Reasoning => self.emit(out, "response.reasoning_text.delta", json!({"item_id": format!("rs_{index}"), "output_index": index, "content_index": 0, "delta": text})),
            Open::Message => self.emit(out, "response.output_text.delta", json!({"item_id": format!("msg_{index}"), "output_index": index, "content_index": 0, "delta": text, "logprobs": []})),
        }
    }

    fn call(&mut self, call_id: &str, name: &str, arguments: &str, out: &mut BytesMut) {
        self.close_open(out);
        let index = self.output.len();
        let id = format!("fc_{index}");
        let added = call_item(&id, call_id, name, "", "in_progress");
        self.emit(
            out,
            "response.output_item.added",
            json!({"output_index": index, "item": added}),
        );
        self.emit(
            out,
            "response.function_call_arguments.delta",
            json!({"item_id": id, "output_index": index, "delta": arguments}),
        );
        self.emit(
            out,
            "response.function_call_arguments.done",
            json!({"item_id": id, "output_index": index, "name": name, "arguments": arguments}),
        );
        let done = call_item(&id, call_id, name, arguments, "completed");
        self.emit(
            out,
            "response.output_item.done",
            json!({"output_index": index, "item": done.clone()}),
        );
        self.output.push(done);
    }
}

impl StreamEncoder for ResponsesEncoder {
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
            OwnedEvent::Text(text) => self.text(Open::Message, text, out),
            OwnedEvent::Reasoning(text) => self.text(Open::Reasoning, text, out),
            OwnedEvent::CallFinished {
                id,
                name,
                arguments,
                ..
            } => self.call(id, name, arguments, out),
            OwnedEvent::End { .. } => {
                self.close_open(out);
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
        self.close_open(out);
        let finish = self.outcome.finish_reason();
        let response = response(
            &self.meta,
            &self.echo,
            self.output.clone(),
            Some(finish),
            Some(self.outcome.extension()),
        );
        let kind = if finish == "length" {
            "response.incomplete"
        } else {
            "response.completed"
        };
        self.emit(out, kind, json!({"response": response}));
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
    fn input_items_become_chat_messages() {
        let request = json!({
            "model": "m", "instructions": "be brief", "max_output_tokens": 50,
            "tools": [{"type": "function", "name": "f", "parameters": {"type": "object"}}, {"type": "web_search"}],
            "input": [
                {"role": "user", "content": [{"type": "input_text", "text": "hi"}]},
                {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                {"type": "function_call", "call_id": "c2", "name": "f", "arguments": "{}"},
                {"type": "function_call_output", "call_id": "c1", "output": "one"},
            ],
        });
        let chat = to_chat(&request).unwrap();
        assert_eq!(chat["max_tokens"], 50);
        assert_eq!(chat["tools"].as_array().unwrap().len(), 1);
        let messages = chat["messages"].as_array().unwrap();
        assert_eq!(
            messages[0],
            json!({"role": "system", "content": "be brief"})
        );
        assert_eq!(messages[1], json!({"role": "user", "content": "hi"}));
        assert_eq!(messages[2]["tool_calls"].as_array().unwrap().len(), 2);
        assert_eq!(
            messages[3],
            json!({"role": "tool", "tool_call_id": "c1", "content": "one"})
        );
        assert!(to_chat(&json!({"model": "m"})).is_err());
    }

    #[test]
    fn a_released_call_is_a_function_call_item() {
        let tools = json!([{"type": "function", "name": "f", "parameters": {"type": "object"}}]);
        let mut encoder =
            ResponsesEncoder::new(echo(&json!({"tools": tools, "tool_choice": "required"})));
        let mut out = BytesMut::new();
        for event in [
            OwnedEvent::Text("ok".into()),
            OwnedEvent::CallFinished {
                index: CallIndex(0),
                id: "call_1".into(),
                name: "f".into(),
                arguments: "{}".into(),
                repairs: Repairs::NONE,
                validation: None,
            },
            OwnedEvent::End {
                stop: StopReason::Stop,
                truncated: false,
            },
        ] {
            encoder.event(0, &event, &mut out);
        }
        encoder.close(&mut out);
        let text = String::from_utf8(out.to_vec()).unwrap();
        assert!(text.contains("event: response.function_call_arguments.done"));
        let last = text.trim_end().lines().last().unwrap();
        let done: Value = serde_json::from_str(last.strip_prefix("data: ").unwrap()).unwrap();
        assert_eq!(done["type"], "response.completed");
        assert_eq!(done["response"]["output"][1]["call_id"], "call_1");
        assert_eq!(done["response"]["output"][0]["content"][0]["text"], "ok");
    }
}
