//! Writing events as OpenAI chat completion chunks over SSE.

use crate::error::Error;
use crate::event::{CallIndex, OwnedEvent};
use crate::ordered::{Map, Value};
use crate::sse::chunk::ChunkMeta;
use crate::sse::outcome::Outcome;
use bytes::BytesMut;
use std::collections::HashMap;
use tokio_util::codec::Encoder;

/// When tool calls reach the client.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum CallMode {
    /// Hold each call until it is released ([`OwnedEvent::CallFinished`]), then write its
    /// first delta and its arguments (default). A call that is not released never
    /// reaches the client as a tool call, and the `index` values on the wire are dense.
    #[default]
    Buffered,
    /// Write each call as it is parsed: its first delta on
    /// [`OwnedEvent::CallStarted`] and every [`OwnedEvent::ArgsDelta`] as an arguments
    /// fragment. Lower latency, but a call that is later not released has already been
    /// partly sent; it is still listed in the final chunk's `toolsift.incomplete_calls`.
    /// A `}` that ends the fragments so far (and whitespace after it) waits for the
    /// next fragment or the release, so the arguments of a call that is not released
    /// never reach the client as a complete JSON object.
    Streamed,
}

#[derive(Debug)]
struct OpenCall {
    id: String,
    name: String,
    wire: Option<u32>,
    /// Streamed arguments not sent yet: a final `}` and whitespace after it.
    held: String,
}

/// An [`Encoder`] of [`OwnedEvent`]s into OpenAI `chat.completion.chunk` SSE events.
///
/// * [`OwnedEvent::Text`] → `delta.content`; [`OwnedEvent::Reasoning`] →
///   `delta.reasoning_content` (the first delta also carries `role: "assistant"`).
/// * Released calls → `delta.tool_calls` in OpenAI's streaming shape: the first delta of a
///   call carries `index`, `id`, `type: "function"` and `function: {name, arguments: ""}`,
///   later deltas only `index` and `function.arguments` fragments. See [`CallMode`].
/// * [`OwnedEvent::End`] → a final chunk with an empty delta, an honest `finish_reason`
///   (see [`Outcome::finish_reason`]) and the non-standard `toolsift` extension
///   ([`Outcome::extension`]); then a `choices: []` chunk with `usage` if the upstream
///   sent usage; then `data: [DONE]`.
///
/// Every chunk carries `id`, `object`, `created`, `model` (and `system_fingerprint` when
/// known) from the [`ChunkMeta`], which can be updated as upstream chunks arrive.
#[derive(Debug)]
pub struct ChatChunkEncoder {
    meta: ChunkMeta,
    mode: CallMode,
    role_sent: bool,
    done: bool,
    next_wire: u32,
    open: HashMap<CallIndex, OpenCall>,
    outcome: Outcome,
    /// The `index` of the choice written.
    choice: u32,
    /// Whether the end of the choice also ends the stream (usage chunk and `[DONE]`).
    closes_stream: bool,
}

impl ChatChunkEncoder {
    /// An encoder in [`CallMode::Buffered`].
    pub fn new(meta: ChunkMeta) -> ChatChunkEncoder {
        ChatChunkEncoder::with_mode(meta, CallMode::default())
    }

    /// An encoder in the given mode.
    pub fn with_mode(meta: ChunkMeta, mode: CallMode) -> ChatChunkEncoder {
        ChatChunkEncoder {
            meta,
            mode,
            role_sent: false,
            done: false,
            next_wire: 0,
            open: HashMap::new(),
            outcome: Outcome::new(),
            choice: 0,
            closes_stream: true,
        }
    }

    /// Write the chunks as choice `index` (default 0), for a response with several
    /// choices (`n > 1`): one encoder per choice.
    pub fn set_choice_index(&mut self, index: u32) {
        self.choice = index;
    }

    /// Whether [`OwnedEvent::End`] also ends the stream with the usage chunk and
    /// `data: [DONE]` (default true). With several choices, only the choices' final chunks
    /// are written on `End`, and [`write_stream_end`](Self::write_stream_end) ends the
    /// stream once.
    pub fn set_closes_stream(&mut self, closes: bool) {
        self.closes_stream = closes;
    }

    /// Write the end of the stream: a `choices: []` chunk with `usage` if the upstream
    /// sent usage, then `data: [DONE]`.
    pub fn write_stream_end(&self, dst: &mut BytesMut) {
        if let Some(usage) = &self.meta.usage {
            let mut chunk = self.chunk(Value::Array(Vec::new()));
            chunk.insert("usage".into(), Value::from(usage));
            write_data(&Value::Object(chunk), dst);
        }
        dst.extend_from_slice(b"data: [DONE]\n\n");
    }

    /// The metadata written on every chunk.
    pub fn meta(&self) -> &ChunkMeta {
        &self.meta
    }

    /// Merge newer upstream metadata (see [`ChunkMeta::update`]).
    pub fn update_meta(&mut self, meta: ChunkMeta) {
        self.meta.update(meta);
    }

    /// Report an upstream error in the final chunk's `toolsift.upstream_error`.
    pub fn set_upstream_error(&mut self, error: serde_json::Value) {
        self.outcome.set_upstream_error(error);
    }

    /// The tally so far.
    pub fn outcome(&self) -> &Outcome {
        &self.outcome
    }

    /// Whether [`OwnedEvent::End`] was written (and `[DONE]` with it).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// A chunk's members, in the order OpenAI writes them.
    fn chunk(&self, choices: Value) -> Map {
        let mut chunk = Map::new();
        chunk.insert("id".into(), Value::from(self.meta.id.as_str()));
        chunk.insert("object".into(), Value::from("chat.completion.chunk"));
        chunk.insert("created".into(), Value::from(self.meta.created));
        chunk.insert("model".into(), Value::from(self.meta.model.as_str()));
        if let Some(fp) = &self.meta.system_fingerprint {
            chunk.insert("system_fingerprint".into(), Value::from(fp.as_str()));
        }
        chunk.insert("choices".into(), choices);
        chunk
    }

    /// Write a delta of one member; the first delta also carries the role, first.
    fn write_delta(&mut self, key: &str, value: Value, dst: &mut BytesMut) {
        let mut delta = Map::new();
        if !self.role_sent {
            self.role_sent = true;
            delta.insert("role".into(), Value::from("assistant"));
        }
        delta.insert(key.into(), value);
        let choices = self.choices(Value::Object(delta), Value::Null);
        write_data(&Value::Object(self.chunk(choices)), dst);
    }

    /// The one choice this encoder writes.
    fn choices(&self, delta: Value, finish_reason: Value) -> Value {
        Value::Array(vec![Value::object([
            ("index", Value::from(self.choice)),
            ("delta", delta),
            ("logprobs", Value::Null),
            ("finish_reason", finish_reason),
        ])])
    }

    fn write_tool_delta(&mut self, call: Value, dst: &mut BytesMut) {
        self.write_delta("tool_calls", Value::Array(vec![call]), dst);
    }

    fn write_call_start(&mut self, index: CallIndex, dst: &mut BytesMut) -> u32 {
        let wire = self.next_wire;
        self.next_wire += 1;
        let call = self.open.get_mut(&index).expect("call is open");
        call.wire = Some(wire);
        let start = Value::object([
            ("index", Value::from(wire)),
            ("id", Value::from(call.id.as_str())),
            ("type", Value::from("function")),
            (
                "function",
                Value::object([
                    ("name", Value::from(call.name.as_str())),
                    ("arguments", Value::from("")),
                ]),
            ),
        ]);
        self.write_tool_delta(start, dst);
        wire
    }

    fn write_args(&mut self, wire: u32, fragment: &str, dst: &mut BytesMut) {
        if !fragment.is_empty() {
            let args = Value::object([
                ("index", Value::from(wire)),
                (
                    "function",
                    Value::object([("arguments", Value::from(fragment))]),
                ),
            ]);
            self.write_tool_delta(args, dst);
        }
    }

    fn write_end(&mut self, dst: &mut BytesMut) {
        let finish_reason = Value::from(self.outcome.finish_reason());
        let choices = self.choices(Value::Object(Map::new()), finish_reason);
        let mut last = self.chunk(choices);
        last.insert("toolsift".into(), self.outcome.extension_in_order());
        write_data(&Value::Object(last), dst);
        if self.closes_stream {
            self.write_stream_end(dst);
        }
        self.done = true;
    }
}

fn write_data(value: &Value, dst: &mut BytesMut) {
    let mut data = b"data: ".to_vec();
    value.write(&mut data);
    data.extend_from_slice(b"\n\n");
    dst.extend_from_slice(&data);
}

impl Encoder<&OwnedEvent> for ChatChunkEncoder {
    type Error = Error;

    fn encode(&mut self, event: &OwnedEvent, dst: &mut BytesMut) -> Result<(), Error> {
        if self.done {
            return Ok(());
        }
        self.outcome.record(event);
        match event {
            OwnedEvent::Text(text) if !text.is_empty() => {
                self.write_delta("content", Value::from(text.as_str()), dst);
            }
            OwnedEvent::Reasoning(text) if !text.is_empty() => {
                self.write_delta("reasoning_content", Value::from(text.as_str()), dst);
            }
            OwnedEvent::CallStarted { index, id, name } => {
                let call = OpenCall {
                    id: id.clone(),
                    name: name.clone(),
                    wire: None,
                    held: String::new(),
                };
                self.open.insert(*index, call);
                if self.mode == CallMode::Streamed {
                    self.write_call_start(*index, dst);
                }
            }
            OwnedEvent::ArgsDelta { index, fragment } => {
                let Some(call) = self.open.get_mut(index) else {
                    return Ok(());
                };
                if let Some(wire) = call.wire {
                    call.held.push_str(fragment);
                    // Only a `}` with nothing but whitespace after it can end the object.
                    let trimmed = call.held.trim_end();
                    let send = if trimmed.ends_with('}') {
                        let rest = call.held.split_off(trimmed.len() - 1);
                        std::mem::replace(&mut call.held, rest)
                    } else {
                        std::mem::take(&mut call.held)
                    };
                    self.write_args(wire, &send, dst);
                }
            }
            OwnedEvent::CallFinished {
                index,
                id,
                name,
                arguments,
                ..
            } => {
                let call = self.open.entry(*index).or_insert_with(|| OpenCall {
                    id: id.clone(),
                    name: name.clone(),
                    wire: None,
                    held: String::new(),
                });
                match call.wire {
                    // Streamed: the fragments sent and held add up to `arguments`.
                    Some(wire) => {
                        let held = std::mem::take(&mut call.held);
                        self.write_args(wire, &held, dst);
                    }
                    None => {
                        let wire = self.write_call_start(*index, dst);
                        self.write_args(wire, arguments, dst);
                    }
                }
                self.open.remove(index);
            }
            OwnedEvent::CallNotReleased { index, .. } => {
                self.open.remove(index);
            }
            OwnedEvent::End { .. } => self.write_end(dst),
            _ => {}
        }
        Ok(())
    }
}
