//! The streaming pipeline: upstream SSE → frames → chunks → each choice's transform and
//! upstream calls → the surface's encoder → client.

use crate::proxy::body::BoxError;
use crate::proxy::complete::read_upstream_body;
use crate::proxy::exchange::Choices;
use crate::proxy::log::RequestLog;
use crate::proxy::surface::StreamEncoder;
use crate::proxy::upstream_read::{is_event_stream, read_item, read_whole, ChoicePiece, Item};
use crate::proxy::State;
use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::Response;
use serde_json::{json, Value};
use std::sync::Arc;
use tokio::sync::mpsc::Sender;
use tokio_util::codec::Decoder;
use toolsift::sse::{ChunkMeta, SseFrameDecoder};
use toolsift::{OwnedEvent, StopReason};

/// Where one upstream stream stands.
struct Pipeline {
    choices: Choices,
    encoder: Box<dyn StreamEncoder>,
    events: Vec<OwnedEvent>,
    out: BytesMut,
    /// `[DONE]` was read.
    done: bool,
    /// The upstream sent an error, unreadable framing, or went quiet: the stream is over.
    failed: bool,
}

impl Pipeline {
    fn pieces(&mut self, meta: ChunkMeta, pieces: &[ChoicePiece]) {
        self.encoder.meta(meta);
        for piece in pieces {
            self.choices.get(piece.index).push(piece, &mut self.events);
            for event in self.events.drain(..) {
                self.encoder.event(piece.index, &event, &mut self.out);
            }
        }
    }

    fn item(&mut self, data: &str) {
        match read_item(data) {
            Some(Item::Done) => self.done = true,
            Some(Item::Chunk(meta, pieces)) => self.pieces(meta, &pieces),
            Some(Item::Error(error)) => self.fail(error),
            // Data that is not a chunk (a keep-alive, a stray line) is skipped.
            None => {}
        }
    }

    fn fail(&mut self, error: Value) {
        self.encoder.upstream_error(error);
        self.failed = true;
    }

    /// End every choice: with its own finish reason when the stream ended properly, else
    /// as disconnected. Then the closing events.
    fn finish(&mut self, ended_properly: bool) -> bool {
        let mut disconnected = false;
        if self.choices.indices().is_empty() {
            self.choices.get(0);
        }
        let done = self.done;
        // A stream that closed cleanly with a choice unfinished (no `[DONE]`, no finish
        // reason) ended early: say so, as a broken-off stream does, so a client can tell
        // it from the token limit.
        let unfinished = self
            .choices
            .iter_mut()
            .any(|(_, choice)| choice.stop().is_none());
        if ended_properly && !done && !self.failed && unfinished {
            self.encoder.upstream_error(json!({
                "type": "upstream_error",
                "code": "incomplete",
                "message": "the upstream stream ended without [DONE] or a finish reason",
            }));
        }
        for (index, choice) in self.choices.iter_mut() {
            let stop = match (ended_properly, choice.stop()) {
                (true, Some(stop)) => stop,
                (true, None) if done => StopReason::Stop,
                _ => StopReason::Disconnected,
            };
            disconnected |= stop == StopReason::Disconnected;
            choice.finish(stop, &mut self.events);
            for event in self.events.drain(..) {
                self.encoder.event(index, &event, &mut self.out);
            }
        }
        self.encoder.close(&mut self.out);
        disconnected
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
    state.metrics.queued(tx.max_capacity() - tx.capacity());
    true
}

/// Read the upstream answer to its end and feed the client through `tx`.
pub(crate) async fn pump(
    state: Arc<State>,
    upstream: Response<Incoming>,
    choices: Choices,
    encoder: Box<dyn StreamEncoder>,
    tx: Sender<Result<Bytes, BoxError>>,
    mut log: RequestLog,
) {
    let mut p = Pipeline {
        choices,
        encoder,
        events: Vec::new(),
        out: BytesMut::new(),
        done: false,
        failed: false,
    };
    let sse = is_event_stream(&upstream);
    let ended_properly = if sse {
        match read_sse(&state, upstream.into_body(), &mut p, &tx, &mut log).await {
            Some(ended) => ended,
            None => return finish_gone(&state, &mut p, &mut log),
        }
    } else {
        // A whole response to a streaming request: parse it and stream it.
        match read_upstream_body(&state, upstream.into_body()).await {
            Ok(bytes) => match serde_json::from_slice::<Value>(&bytes) {
                Ok(value) if value.get("error").is_some_and(|e| !e.is_null()) => {
                    p.fail(value["error"].clone());
                    false
                }
                Ok(value) if value["choices"].is_array() => {
                    p.pieces(ChunkMeta::from_json(&value), &read_whole(&value));
                    p.done = true;
                    true
                }
                _ => {
                    let shown =
                        String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned();
                    state.metrics.upstream_failure("unreadable");
                    p.fail(json!({"type": "upstream_error", "message": format!("the upstream answered a streaming request with neither an event stream nor a completion: {shown:?}")}));
                    false
                }
            },
            Err(failure) => {
                state.metrics.upstream_failure(failure.0);
                p.fail(json!({"type": "upstream_error", "message": failure.1}));
                false
            }
        }
    };
    if p.finish(ended_properly && !p.failed) {
        state.metrics.disconnect();
    }
    // Counted before the client sees the end, so that counters read after a response
    // include it.
    p.choices.describe(&mut log);
    log.finish(&state, 200, &p.encoder.outcomes());
    flush(&mut p.out, &tx, &state).await;
}

/// The client went away: dropping the upstream body closes that connection too, which
/// stops generation on most servers.
fn finish_gone(state: &State, p: &mut Pipeline, log: &mut RequestLog) {
    p.choices.describe(log);
    log.error = Some("the client went away".into());
    let outcomes = p.encoder.outcomes();
    log.finish(state, 499, &outcomes);
}

/// Read an SSE body into the pipeline. `Some(ended properly)` when the upstream is done
/// (`[DONE]`, or a clean close), broke off, or went quiet; `None` when the client left.
async fn read_sse(
    state: &State,
    mut body: Incoming,
    p: &mut Pipeline,
    tx: &Sender<Result<Bytes, BoxError>>,
    log: &mut RequestLog,
) -> Option<bool> {
    let mut decoder = SseFrameDecoder::with_max_event_bytes(state.options.max_event_bytes);
    let mut buf = BytesMut::new();
    let idle = state.upstream.idle_timeout();
    let mut ended = false;
    while !p.done && !p.failed {
        match tokio::time::timeout(idle, body.frame()).await {
            Ok(Some(Ok(frame))) => {
                let Ok(data) = frame.into_data() else {
                    continue;
                };
                state.metrics.upstream_read(data.len());
                buf.extend_from_slice(&data);
                loop {
                    match decoder.decode(&mut buf) {
                        Ok(Some(event)) => p.item(&event.data),
                        Ok(None) => break,
                        Err(err) => {
                            state.metrics.upstream_failure("unreadable");
                            p.fail(json!({"type": "upstream_error", "message": err.to_string()}));
                            break;
                        }
                    }
                    if p.done || p.failed {
                        break;
                    }
                }
            }
            Ok(Some(Err(err))) => {
                state.metrics.upstream_failure("broken");
                log.error = Some(format!("upstream stream broke: {err}"));
                p.encoder.upstream_error(json!({"type": "upstream_error", "message": format!("the upstream stream broke off: {err}")}));
                break;
            }
            Ok(None) => {
                while let Ok(Some(event)) = decoder.decode_eof(&mut buf) {
                    p.item(&event.data);
                    if p.done || p.failed {
                        break;
                    }
                }
                ended = true;
                break;
            }
            Err(_) => {
                state.metrics.upstream_failure("timeout");
                let message = format!("the upstream sent nothing for {} s", idle.as_secs_f64());
                log.error = Some(message.clone());
                p.fail(json!({"type": "upstream_error", "code": "timeout", "message": message}));
                break;
            }
        }
        if !flush(&mut p.out, tx, state).await {
            return None;
        }
    }
    Some(p.done || ended)
}
