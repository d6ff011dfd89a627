//! Reading what the upstream sent, every choice of it: text, reasoning, structured tool
//! call pieces and the finish reason, from stream chunks and from whole responses.

use serde_json::Value;
use toolsift::sse::ChunkMeta;

/// A piece of a structured tool call the upstream parsed itself (`tool_calls` in OpenAI's
/// shape). Streams send a call in pieces keyed by `index`; a whole response sends each
/// call in one piece.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct CallPiece {
    /// The call's position in the upstream's list.
    pub(crate) index: u32,
    pub(crate) id: Option<String>,
    pub(crate) name: Option<String>,
    /// The next fragment of the arguments (a whole response: all of them). Upstreams that
    /// send the arguments as a JSON object rather than a string get its text.
    pub(crate) arguments: Option<String>,
}

/// What one choice of one chunk (or of a whole response) carries.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ChoicePiece {
    pub(crate) index: u32,
    pub(crate) content: Option<String>,
    pub(crate) reasoning: Option<String>,
    pub(crate) calls: Vec<CallPiece>,
    pub(crate) finish_reason: Option<String>,
}

/// One upstream stream item.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Item {
    /// `[DONE]`.
    Done,
    /// A chunk: its metadata and its choices.
    Chunk(ChunkMeta, Vec<ChoicePiece>),
    /// An `{"error": ...}` in the stream.
    Error(Value),
}

fn text(value: &Value) -> Option<String> {
    value.as_str().map(str::to_owned)
}

fn calls(value: &Value) -> Vec<CallPiece> {
    let Some(list) = value.as_array() else {
        return Vec::new();
    };
    list.iter()
        .enumerate()
        .map(|(i, call)| {
            let function = &call["function"];
            let arguments = match &function["arguments"] {
                Value::String(s) => Some(s.clone()),
                Value::Null => None,
                other => Some(other.to_string()),
            };
            CallPiece {
                index: call["index"]
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .unwrap_or(i as u32),
                id: text(&call["id"]).filter(|id| !id.is_empty()),
                name: text(&function["name"]).filter(|n| !n.is_empty()),
                arguments,
            }
        })
        .collect()
}

/// Reasoning under any of the names upstreams use.
fn reasoning(message: &Value) -> Option<String> {
    text(&message["reasoning_content"])
        .or_else(|| text(&message["reasoning"]))
        .or_else(|| text(&message["thinking"]))
}

fn choices(value: &Value, message_key: &str) -> Vec<ChoicePiece> {
    let Some(list) = value["choices"].as_array() else {
        return Vec::new();
    };
    list.iter()
        .enumerate()
        .map(|(i, choice)| {
            let message = &choice[message_key];
            ChoicePiece {
                index: choice["index"]
                    .as_u64()
                    .and_then(|n| u32::try_from(n).ok())
                    .unwrap_or(i as u32),
                content: text(&message["content"]).or_else(|| text(&choice["text"])),
                reasoning: reasoning(message),
                calls: calls(&message["tool_calls"]),
                finish_reason: text(&choice["finish_reason"]),
            }
        })
        .collect()
}

/// Whether an upstream answer is an event stream (by its content type).
pub(crate) fn is_event_stream<B>(response: &hyper::Response<B>) -> bool {
    response
        .headers()
        .get(hyper::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.trim_start().starts_with("text/event-stream"))
}

/// Read the data of one upstream SSE event. `None`: not JSON, or not an object.
pub(crate) fn read_item(data: &str) -> Option<Item> {
    if data.trim() == "[DONE]" {
        return Some(Item::Done);
    }
    let value: Value = serde_json::from_str(data).ok()?;
    if !value.is_object() {
        return None;
    }
    if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
        return Some(Item::Error(error.clone()));
    }
    Some(Item::Chunk(
        ChunkMeta::from_json(&value),
        choices(&value, "delta"),
    ))
}

/// Read every choice of a whole chat (or text) completion.
pub(crate) fn read_whole(value: &Value) -> Vec<ChoicePiece> {
    choices(value, "message")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_chunk_with_two_choices_and_a_call_piece() {
        let data = json!({"id": "x", "model": "m", "choices": [
            {"index": 0, "delta": {"content": "a", "reasoning": "r"}},
            {"index": 1, "delta": {"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f", "arguments": "{\"a"}}]}, "finish_reason": null},
        ]});
        let Some(Item::Chunk(meta, choices)) = read_item(&data.to_string()) else {
            panic!("a chunk");
        };
        assert_eq!(meta.id, "x");
        assert_eq!(choices[0].content.as_deref(), Some("a"));
        assert_eq!(choices[0].reasoning.as_deref(), Some("r"));
        assert_eq!(
            choices[1].calls,
            [CallPiece {
                index: 0,
                id: Some("c1".into()),
                name: Some("f".into()),
                arguments: Some("{\"a".into()),
            }]
        );
    }

    #[test]
    fn object_arguments_are_read_as_their_text() {
        let whole = json!({"choices": [{"message": {"tool_calls": [{"function": {"name": "f", "arguments": {"a": 1}}}]}, "finish_reason": "tool_calls"}]});
        let choices = read_whole(&whole);
        assert_eq!(choices[0].calls[0].arguments.as_deref(), Some("{\"a\":1}"));
        assert_eq!(choices[0].finish_reason.as_deref(), Some("tool_calls"));
    }

    #[test]
    fn done_errors_and_junk() {
        assert_eq!(read_item(" [DONE]"), Some(Item::Done));
        assert_eq!(
            read_item(r#"{"error": {"message": "boom"}}"#),
            Some(Item::Error(json!({"message": "boom"})))
        );
        assert_eq!(read_item("keep-alive"), None);
        assert_eq!(read_item("[1]"), None);
    }
}
