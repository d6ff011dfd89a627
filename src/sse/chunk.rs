//! Reading OpenAI streaming chunks (chat and text completions) from SSE data.

use crate::error::{Category, Error};
use crate::event::StopReason;
use serde_json::Value;

/// The response metadata an encoder copies onto every chunk it writes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChunkMeta {
    /// The completion id (`chatcmpl-...`).
    pub id: String,
    /// The model name.
    pub model: String,
    /// Creation time, Unix seconds.
    pub created: u64,
    /// The backend fingerprint, if the upstream sent one.
    pub system_fingerprint: Option<String>,
    /// Token usage, if the upstream sent it (usually on the last chunk).
    pub usage: Option<Value>,
}

impl ChunkMeta {
    /// Read the metadata fields of a chunk or a whole response; missing fields are empty.
    pub fn from_json(value: &Value) -> ChunkMeta {
        ChunkMeta {
            id: value["id"].as_str().unwrap_or_default().to_owned(),
            model: value["model"].as_str().unwrap_or_default().to_owned(),
            created: value["created"].as_u64().unwrap_or_default(),
            system_fingerprint: value["system_fingerprint"].as_str().map(str::to_owned),
            usage: value.get("usage").filter(|u| !u.is_null()).cloned(),
        }
    }

    /// Take what `later` knows: non-empty fields replace these, usage is kept once seen.
    pub fn update(&mut self, later: ChunkMeta) {
        if !later.id.is_empty() {
            self.id = later.id;
        }
        if !later.model.is_empty() {
            self.model = later.model;
        }
        if later.created != 0 {
            self.created = later.created;
        }
        if later.system_fingerprint.is_some() {
            self.system_fingerprint = later.system_fingerprint;
        }
        if later.usage.is_some() {
            self.usage = later.usage;
        }
    }
}

/// The useful content of one streaming chunk.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChunkDelta {
    /// The chunk's metadata.
    pub meta: ChunkMeta,
    /// Model text: `choices[0].delta.content` (chat) or `choices[0].text` (completions).
    pub content: Option<String>,
    /// Reasoning text: `choices[0].delta.reasoning_content` (or `reasoning`).
    pub reasoning: Option<String>,
    /// `choices[0].finish_reason`, when set.
    pub finish_reason: Option<String>,
}

impl ChunkDelta {
    /// The finish reason as a [`StopReason`]: `length` (and `max_tokens`) is
    /// [`StopReason::Length`], any other reason is [`StopReason::Stop`].
    pub fn stop_reason(&self) -> Option<StopReason> {
        self.finish_reason.as_deref().map(stop_reason)
    }
}

/// Map an upstream `finish_reason` to a [`StopReason`]: `length` (and `max_tokens`) is
/// [`StopReason::Length`], anything else (`stop`, `tool_calls`, `eos`, ...) is
/// [`StopReason::Stop`].
pub fn stop_reason(finish_reason: &str) -> StopReason {
    match StopReason::from_name(finish_reason) {
        Some(StopReason::Length) => StopReason::Length,
        _ => StopReason::Stop,
    }
}

/// One item of an OpenAI stream.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum Chunk {
    /// `data: [DONE]`: the stream is complete.
    Done,
    /// A chat or text completion chunk.
    Delta(ChunkDelta),
    /// An `{"error": ...}` object sent in the stream; the value is the `error` member.
    Error(Value),
}

/// Read the data of one SSE event of an OpenAI stream.
///
/// Data that is not JSON (other than `[DONE]`) is an [`Error`] of [`Category::Syntax`];
/// JSON that is not an object is one too. Neither panics nor stops the caller from
/// reading on.
pub fn read_chunk(data: &str) -> Result<Chunk, Error> {
    if data.trim() == "[DONE]" {
        return Ok(Chunk::Done);
    }
    let value: Value = serde_json::from_str(data)?;
    if !value.is_object() {
        return Err(Error::new(
            Category::Syntax,
            "stream chunk is not a json object",
        ));
    }
    if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
        return Ok(Chunk::Error(error.clone()));
    }
    let choice = &value["choices"][0];
    let delta = &choice["delta"];
    let text = |v: &Value| v.as_str().map(str::to_owned);
    Ok(Chunk::Delta(ChunkDelta {
        meta: ChunkMeta::from_json(&value),
        content: text(&delta["content"]).or_else(|| text(&choice["text"])),
        reasoning: text(&delta["reasoning_content"]).or_else(|| text(&delta["reasoning"])),
        finish_reason: text(&choice["finish_reason"]),
    }))
}

/// The useful content of a whole (non-streaming) chat or text completion response.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Completion {
    /// The response metadata.
    pub meta: ChunkMeta,
    /// `choices[0].message.content` (chat) or `choices[0].text` (completions).
    pub content: Option<String>,
    /// `choices[0].message.reasoning_content` (or `reasoning`).
    pub reasoning: Option<String>,
    /// `choices[0].finish_reason`.
    pub finish_reason: Option<String>,
}

/// Read a whole completion response; an `{"error": ...}` body is an [`Error`].
pub fn read_completion(value: &Value) -> Result<Completion, Error> {
    if let Some(error) = value.get("error").filter(|e| !e.is_null()) {
        return Err(Error::new(
            Category::Syntax,
            format!("upstream error: {error}"),
        ));
    }
    if !value.is_object() {
        return Err(Error::new(
            Category::Syntax,
            "response is not a json object",
        ));
    }
    let choice = &value["choices"][0];
    let message = &choice["message"];
    let text = |v: &Value| v.as_str().map(str::to_owned);
    Ok(Completion {
        meta: ChunkMeta::from_json(value),
        content: text(&message["content"]).or_else(|| text(&choice["text"])),
        reasoning: text(&message["reasoning_content"]).or_else(|| text(&message["reasoning"])),
        finish_reason: text(&choice["finish_reason"]),
    })
}
