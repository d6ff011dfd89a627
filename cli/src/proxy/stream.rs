//! The streaming pipeline: upstream SSE → frames → chunks → transform → encoder → client.

use crate::proxy::body::BoxError;
use crate::proxy::transform::Transform;
use crate::proxy::{RequestLog, State};
use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use serde_json::Value;
use std::sync::Arc;
use tokio::sync::mpsc::Sender;
use tokio_util::codec::{Decoder, Encoder};
use toolsift::sse::{read_chunk, ChatChunkEncoder, Chunk, ChunkMeta, SseEvent, SseFrameDecoder};
use toolsift::{OwnedEvent, StopReason};

/// Where one upstream stream stands.
struct Pipeline {
    transform: Box<dyn Transform>,
    encoder: ChatChunkEncoder,
    events: Vec<OwnedEvent>,
    out: BytesMut,
    /// The upstream's own finish reason, once seen.
    stop: Option<StopReason>,
    /// `[DONE]` was read.
    done: bool,
    /// The upstream sent an error or unreadable framing: the stream is over.
    failed: bool,
}

impl Pipeline {
    fn event(&mut self, event: SseEvent) {
        match read_chunk(&event.data) {
            Ok(Chunk::Done) => self.done = true,
            Ok(Chunk::Delta(delta)) => {
                self.encoder.update_meta(delta.meta.clone());
                if let Some(reasoning) = &delta.reasoning {
                    self.transform.push_reasoning(reasoning, &mut self.events);
                }
                if let Some(content) = &delta.content {
                    self.transform.push(content.as_bytes(), &mut self.events);
                }
                if let Some(stop) = delta.stop_reason() {
                    self.stop = Some(stop);
                }
            }
            Ok(Chunk::Error(error)) => self.fail(error),
            // A kind of chunk this version does not know carries nothing to pass on.
            Ok(_) => {}
            // Data that is not a chunk (a keep-alive, a stray line) is skipped.
            Err(err) => eprintln!("toolsift: skipped an unreadable upstream event: {err}"),
        }
        self.encode();
    }

    fn fail(&mut self, error: Value) {
        self.encoder.set_upstream_error(error);
        self.failed = true;
    }

    fn encode(&mut self) {
        for event in self.events.drain(..) {
            // The chunk encoder does not fail.
            let _ = self.encoder.encode(&event, &mut self.out);
        }
    }

    fn finish(&mut self, stop: StopReason) {
        self.transform.finish(stop, &mut self.events);
        if !self
            .events
            .iter()
            .any(|e| matches!(e, OwnedEvent::End { .. }))
        {
            self.events.push(OwnedEvent::End {
                stop,
                truncated: false,
            });
        }
        self.encode();
    }
}

/// Send what was encoded; false when the client went away.
async fn flush(out: &mut BytesMut, tx: &Sender<Result<Bytes, BoxError>>, state: &State) -> bool {
    if out.is_empty() {
        return true;
    }
    if tx.send(Ok(out.split().freeze())).await.is_err() {
        return false;
    }
    state.stats.queued(tx.max_capacity() - tx.capacity());
    true
}

/// Read the upstream stream to its end and feed the client through `tx`.
pub(crate) async fn pump(
    state: Arc<State>,
    mut body: Incoming,
    transform: Box<dyn Transform>,
    tx: Sender<Result<Bytes, BoxError>>,
    mut log: RequestLog,
) {
    let mut decoder = SseFrameDecoder::with_max_event_bytes(state.options.max_event_bytes);
    let mut p = Pipeline {
        transform,
        encoder: ChatChunkEncoder::with_mode(ChunkMeta::default(), state.options.call_mode),
        events: Vec::new(),
        out: BytesMut::new(),
        stop: None,
        done: false,
        failed: false,
    };
    let mut buf = BytesMut::new();
    let mut clean_end = false;
    while !p.done && !p.failed {
        match body.frame().await {
            Some(Ok(frame)) => {
                let Ok(data) = frame.into_data() else {
                    continue;
                };
                state.stats.upstream_read(data.len());
                buf.extend_from_slice(&data);
                loop {
                    match decoder.decode(&mut buf) {
                        Ok(Some(event)) => p.event(event),
                        Ok(None) => break,
                        Err(err) => {
                            p.fail(Value::from(err.to_string()));
                            break;
                        }
                    }
                    if p.done || p.failed {
                        break;
                    }
                }
            }
            Some(Err(err)) => {
                if state.options.log {
                    eprintln!("toolsift proxy: upstream stream broke: {err}");
                }
                break;
            }
            None => {
                while let Ok(Some(event)) = decoder.decode_eof(&mut buf) {
                    p.event(event);
                    if p.done || p.failed {
                        break;
                    }
                }
                clean_end = true;
                break;
            }
        }
        if !flush(&mut p.out, &tx, &state).await {
            // The client went away: dropping the upstream body closes that connection
            // too, which stops generation on most servers.
            log.dialect = p.transform.dialect();
            log.finish(&state, 499, Some(p.encoder.outcome()));
            return;
        }
    }
    let stop = match (p.done, p.failed, clean_end, p.stop) {
        (true, _, _, stop) => stop.unwrap_or(StopReason::Stop),
        // A server that closes cleanly right after its finish reason said how it ended.
        (false, false, true, Some(stop)) => stop,
        _ => StopReason::Disconnected,
    };
    if stop == StopReason::Disconnected {
        state.stats.disconnect();
    }
    drop(body);
    p.finish(stop);
    flush(&mut p.out, &tx, &state).await;
    log.dialect = p.transform.dialect();
    log.finish(&state, 200, Some(p.encoder.outcome()));
}
