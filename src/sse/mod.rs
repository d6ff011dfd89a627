//! The SSE codec: OpenAI chat completion streams in and out.
//!
//! * [`SseFrameDecoder`]: bytes of a `text/event-stream` body → [`SseEvent`]s.
//! * [`read_chunk`]: an event's data → [`Chunk`] (text, reasoning, finish reason, metadata).
//! * [`ChatChunkEncoder`]: [`OwnedEvent`](crate::OwnedEvent)s → `chat.completion.chunk`
//!   SSE events with tool calls in OpenAI's streaming shape.
//! * [`MessageBuilder`]: the same events → a whole chat completion message.

mod chunk;
mod encode;
mod frame;
mod message;
mod outcome;

pub use chunk::{
    read_chunk, read_completion, stop_reason, Chunk, ChunkDelta, ChunkMeta, Completion,
};
pub use encode::{CallMode, ChatChunkEncoder};
pub use frame::{SseEvent, SseFrameDecoder, DEFAULT_MAX_EVENT_BYTES};
pub use message::MessageBuilder;
pub use outcome::Outcome;
