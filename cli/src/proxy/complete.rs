//! Whole (non-streaming) responses: every choice of the upstream's completion through its
//! transform and upstream calls, written back in the surface's shape.

use crate::proxy::body::ProxyBody;
use crate::proxy::exchange::Choices;
use crate::proxy::log::RequestLog;
use crate::proxy::routes::{error_response, json_response};
use crate::proxy::surface::Surface;
use crate::proxy::upstream_read::{is_event_stream, read_item, read_whole, ChoicePiece, Item};
use crate::proxy::{anthropic, completions, responses, State};
use bytes::{Bytes, BytesMut};
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Response, StatusCode};
use serde_json::{json, Value};
use std::collections::BTreeMap;
use std::sync::Arc;
use tokio_util::codec::Decoder;
use toolsift::sse::MessageBuilder;
use toolsift::sse::{ChunkMeta, SseFrameDecoder};
use toolsift::StopReason;

/// Read a whole upstream body, bounded in size and in silence between reads. `Err` is
/// the failure's kind (`broken`, `timeout`, `too_large`) and a message.
pub(crate) async fn read_upstream_body(
    state: &State,
    mut body: Incoming,
) -> Result<Bytes, (&'static str, String)> {
    let idle = state.upstream.idle_timeout();
    let limit = state.options.max_body_bytes;
    let mut out = BytesMut::new();
    loop {
        match tokio::time::timeout(idle, body.frame()).await {
            Ok(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    if out.len() + data.len() > limit {
                        return Err((
                            "too_large",
                            format!("the upstream response is over the limit of {limit} bytes"),
                        ));
                    }
                    out.extend_from_slice(&data);
                }
            }
            Ok(Some(Err(err))) => {
                return Err(("broken", format!("the upstream response broke off: {err}")))
            }
            Ok(None) => return Ok(out.freeze()),
            Err(_) => {
                return Err((
                    "timeout",
                    format!("the upstream sent nothing for {} s", idle.as_secs_f64()),
                ))
            }
        }
    }
}

/// Parse every choice of the upstream's whole answer and answer in the surface's shape.
pub(crate) async fn complete(
    state: Arc<State>,
    upstream: Response<Incoming>,
    mut choices: Choices,
    surface: Surface,
    echo: &Value,
    mut log: RequestLog,
) -> Response<ProxyBody> {
    let fail = |log: &mut RequestLog, status: StatusCode, kind: &'static str, message: String| {
        state.metrics.failure();
        state.metrics.upstream_failure(kind);
        log.error = Some(message.clone());
        log.finish(&state, status.as_u16(), &[]);
        error_response(Some(surface), status, "upstream_error", &message)
    };
    let sse = is_event_stream(&upstream);
    let bytes = match read_upstream_body(&state, upstream.into_body()).await {
        Ok(bytes) => bytes,
        Err((kind, message)) => {
            let status = if kind == "timeout" {
                StatusCode::GATEWAY_TIMEOUT
            } else {
                StatusCode::BAD_GATEWAY
            };
            return fail(&mut log, status, kind, message);
        }
    };
    let (mut response, pieces, ended) = if sse {
        // An event stream in answer to a whole request: read it as one.
        match read_event_stream(&bytes) {
            Ok(read) => read,
            Err(error) => {
                let message = format!("upstream error: {error}");
                return fail(&mut log, StatusCode::BAD_GATEWAY, "unreadable", message);
            }
        }
    } else {
        let response: Value = match serde_json::from_slice(&bytes) {
            Ok(value @ Value::Object(_)) => value,
            _ => {
                let shown = String::from_utf8_lossy(&bytes[..bytes.len().min(200)]).into_owned();
                let message = format!("the upstream response is not a json object: {shown:?}");
                return fail(&mut log, StatusCode::BAD_GATEWAY, "unreadable", message);
            }
        };
        if let Some(error) = response.get("error").filter(|e| !e.is_null()) {
            let message = format!("upstream error: {error}");
            return fail(&mut log, StatusCode::BAD_GATEWAY, "unreadable", message);
        }
        let pieces = read_whole(&response);
        (response, pieces, true)
    };
    if pieces.is_empty() {
        let message = "the upstream response has no choices".to_owned();
        return fail(&mut log, StatusCode::BAD_GATEWAY, "unreadable", message);
    }
    let mut builders: BTreeMap<u32, MessageBuilder> = BTreeMap::new();
    let mut events = Vec::new();
    for piece in &pieces {
        choices.get(piece.index).push(piece, &mut events);
        let builder = builders.entry(piece.index).or_default();
        for event in events.drain(..) {
            builder.push(&event);
        }
    }
    for (index, choice) in choices.iter_mut() {
        // A choice ends as the upstream said, or as cut off when its stream broke off.
        let stop = match (ended, choice.stop()) {
            (true, stop) => stop.unwrap_or(StopReason::Stop),
            (false, Some(stop)) => stop,
            (false, None) => StopReason::Disconnected,
        };
        choice.finish(stop, &mut events);
        let builder = builders.entry(index).or_default();
        for event in events.drain(..) {
            builder.push(&event);
        }
    }
    let built: Vec<(u32, MessageBuilder)> = builders.into_iter().collect();
    if surface == Surface::Completions {
        completions::apply_whole(&mut response, &built);
    } else {
        apply_chat(&mut response, &built);
    }
    let answer = match surface {
        Surface::Messages => anthropic::from_chat(&response),
        Surface::Responses => responses::from_chat(&response, echo),
        Surface::Chat | Surface::Completions => response,
    };
    choices.describe(&mut log);
    let outcomes: Vec<_> = built.iter().map(|(_, b)| b.outcome()).collect();
    log.finish(&state, 200, &outcomes);
    json_response(StatusCode::OK, answer.to_string())
}

/// A whole event stream: a response object with its metadata, every piece of every
/// choice, and whether it reached `[DONE]` (else each choice ends as its finish reason
/// says, or as cut off). `Err` is an error the stream carried.
fn read_event_stream(bytes: &[u8]) -> Result<(Value, Vec<ChoicePiece>, bool), Value> {
    let mut decoder = SseFrameDecoder::new();
    let mut buf = BytesMut::from(bytes);
    let mut meta = ChunkMeta::default();
    let mut pieces = Vec::new();
    let mut done = false;
    while let Ok(Some(event)) = decoder.decode_eof(&mut buf) {
        match read_item(&event.data) {
            Some(Item::Done) => {
                done = true;
                break;
            }
            Some(Item::Chunk(chunk_meta, chunk_pieces)) => {
                meta.update(chunk_meta);
                pieces.extend(chunk_pieces);
            }
            Some(Item::Error(error)) => return Err(error),
            None => {}
        }
    }
    let mut response = json!({
        "id": meta.id,
        "object": "chat.completion",
        "created": meta.created,
        "model": meta.model,
        "choices": [],
    });
    if let Some(usage) = meta.usage {
        response["usage"] = usage;
    }
    Ok((response, pieces, done))
}

/// Rewrite a chat completion in place: each choice's `message` and `finish_reason`; the
/// `toolsift` extension at the top for the first choice and, with several choices, on
/// each choice too. Everything else (id, usage, ...) is kept.
fn apply_chat(response: &mut Value, built: &[(u32, MessageBuilder)]) {
    response["object"] = Value::from("chat.completion");
    let several = built.len() > 1;
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
        if let Some(object) = choice.as_object_mut() {
            object.remove("text");
        }
        choice["index"] = Value::from(*index);
        choice["message"] = builder.message();
        choice["finish_reason"] = Value::from(builder.outcome().finish_reason());
        if several {
            choice["toolsift"] = builder.outcome().extension();
        }
        list.push(choice);
    }
    if let Some((_, first)) = built.first() {
        response["toolsift"] = first.outcome().extension();
    }
    response["choices"] = Value::Array(list);
}
