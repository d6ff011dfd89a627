//! The SSE frame decoder over arbitrary bytes split anywhere: no panic, the events (and
//! errors) do not depend on the split, no event is larger than `max_event_bytes`, and
//! `read_chunk` on every event's data never panics.
#![no_main]

mod common;

use bytes::BytesMut;
use common::{header, Chunking};
use libfuzzer_sys::fuzz_target;
use tokio_util::codec::Decoder;
use toolsift::sse::{read_chunk, SseFrameDecoder};

/// Decoded events (or error categories) in order.
fn decode(
    raw: &[u8],
    chunking: &Chunking,
    max: usize,
) -> Vec<Result<toolsift::sse::SseEvent, String>> {
    let mut dec = SseFrameDecoder::with_max_event_bytes(max);
    let mut buf = BytesMut::new();
    let mut out = Vec::new();
    let mut at = 0;
    for n in chunking.lengths(raw.len()) {
        buf.extend_from_slice(&raw[at..at + n]);
        at += n;
        loop {
            match dec.decode(&mut buf) {
                Ok(Some(ev)) => out.push(Ok(ev)),
                Ok(None) => {
                    // What the decoder keeps is bounded too: the unfinished line (and
                    // at most an undecided byte order mark).
                    assert!(
                        buf.len() <= max + 3,
                        "decoder holds {} bytes, max {max}",
                        buf.len()
                    );
                    break;
                }
                Err(e) => out.push(Err(format!("{:?}", e.category()))),
            }
        }
    }
    loop {
        match dec.decode_eof(&mut buf) {
            Ok(Some(ev)) => out.push(Ok(ev)),
            Ok(None) => break,
            Err(e) => out.push(Err(format!("{:?}", e.category()))),
        }
    }
    out
}

fuzz_target!(|data: &[u8]| {
    // Header: the event bound minus one (1 byte), two Chunkings (6 bytes each); then
    // the SSE body.
    let ((max, ca, cb), raw): ((u8, Chunking, Chunking), _) = header(data, 13);
    let max = 1 + max as usize;
    let a = decode(raw, &ca, max);
    let b = decode(raw, &cb, max);
    let whole = decode(raw, &Chunking([0; 6]), max);
    assert_eq!(a, whole, "chunking {:?} differs from the whole input", ca);
    assert_eq!(b, whole, "chunking {:?} differs from the whole input", cb);
    for ev in whole.iter().flatten() {
        let size = ev.data.len()
            + ev.event.as_ref().map_or(0, String::len)
            + ev.id.as_ref().map_or(0, String::len);
        assert!(size <= max, "event of {size} bytes over max {max}: {ev:?}");
        let _ = read_chunk(&ev.data);
    }
    // The default bound, chunk reading on the real decoder: no panic.
    for ev in decode(raw, &ca, toolsift::sse::DEFAULT_MAX_EVENT_BYTES)
        .into_iter()
        .flatten()
    {
        let _ = read_chunk(&ev.data);
    }
});
