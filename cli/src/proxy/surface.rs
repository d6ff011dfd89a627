//! The API surfaces the proxy answers on, and what a streaming one must do: write the
//! events of each choice in its own wire format.

use bytes::{BufMut, BytesMut};
use serde_json::Value;
use std::collections::BTreeMap;
use tokio_util::codec::Encoder;
use toolsift::sse::{CallMode, ChatChunkEncoder, ChunkMeta, Outcome};
use toolsift::OwnedEvent;

/// An API surface.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Surface {
    /// `POST /v1/chat/completions`.
    Chat,
    /// `POST /v1/messages` (Anthropic Messages).
    Messages,
    /// `POST /v1/responses` (OpenAI Responses).
    Responses,
    /// `POST /v1/completions` (legacy text completions).
    Completions,
}

impl Surface {
    /// The label in logs and metrics.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Surface::Chat => "chat_completions",
            Surface::Messages => "messages",
            Surface::Responses => "responses",
            Surface::Completions => "completions",
        }
    }
}

/// Writes a streaming response: the events of every choice, then the end of the stream.
pub(crate) trait StreamEncoder: Send {
    /// Newer upstream metadata (id, model, usage, ...).
    fn meta(&mut self, meta: ChunkMeta);
    /// One event of choice `choice`; [`OwnedEvent::End`] ends that choice.
    fn event(&mut self, choice: u32, event: &OwnedEvent, out: &mut BytesMut);
    /// The upstream sent an error in place of the rest of the stream.
    fn upstream_error(&mut self, error: Value);
    /// Every choice ended: the closing events.
    fn close(&mut self, out: &mut BytesMut);
    /// The tally of every choice, for logs and metrics.
    fn outcomes(&self) -> Vec<&Outcome>;
}

/// Write one SSE event: an optional `event:` line and one `data:` line.
pub(crate) fn write_event(out: &mut BytesMut, event: Option<&str>, data: &Value) {
    if let Some(event) = event {
        out.extend_from_slice(b"event: ");
        out.extend_from_slice(event.as_bytes());
        out.extend_from_slice(b"\n");
    }
    out.extend_from_slice(b"data: ");
    // Writing a Value into memory cannot fail.
    serde_json::to_writer(out.writer(), data).expect("serialize json into memory");
    out.extend_from_slice(b"\n\n");
}

/// Chat completion chunks, one [`ChatChunkEncoder`] per choice, one `[DONE]`.
pub(crate) struct ChatEncoder {
    mode: CallMode,
    meta: ChunkMeta,
    choices: BTreeMap<u32, ChatChunkEncoder>,
    error: Option<Value>,
}

impl ChatEncoder {
    pub(crate) fn new(mode: CallMode) -> ChatEncoder {
        ChatEncoder {
            mode,
            meta: ChunkMeta::default(),
            choices: BTreeMap::new(),
            error: None,
        }
    }

    fn choice(&mut self, index: u32) -> &mut ChatChunkEncoder {
        let (mode, meta) = (self.mode, &self.meta);
        self.choices.entry(index).or_insert_with(|| {
            let mut encoder = ChatChunkEncoder::with_mode(meta.clone(), mode);
            encoder.set_choice_index(index);
            encoder.set_closes_stream(false);
            encoder
        })
    }
}

impl StreamEncoder for ChatEncoder {
    fn meta(&mut self, meta: ChunkMeta) {
        for encoder in self.choices.values_mut() {
            encoder.update_meta(meta.clone());
        }
        self.meta.update(meta);
    }

    fn event(&mut self, choice: u32, event: &OwnedEvent, out: &mut BytesMut) {
        let error = self.error.clone();
        let encoder = self.choice(choice);
        if let Some(error) = error {
            encoder.set_upstream_error(error);
        }
        // The chunk encoder does not fail.
        let _ = encoder.encode(event, out);
    }

    fn upstream_error(&mut self, error: Value) {
        for encoder in self.choices.values_mut() {
            encoder.set_upstream_error(error.clone());
        }
        self.error = Some(error);
    }

    fn close(&mut self, out: &mut BytesMut) {
        let first = self.choice(0);
        first.write_stream_end(out);
    }

    fn outcomes(&self) -> Vec<&Outcome> {
        self.choices
            .values()
            .map(ChatChunkEncoder::outcome)
            .collect()
    }
}
