//! `text/event-stream` framing: a resumable [`Decoder`] from bytes to [`SseEvent`]s.

use crate::error::{Category, Error};
use bytes::{Buf, BytesMut};
use tokio_util::codec::Decoder;

/// The default bound on one event: 8 MiB.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 8 << 20;

/// One dispatched server-sent event.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SseEvent {
    /// The `event:` field, if the event had one (the spec's default type is `message`).
    pub event: Option<String>,
    /// The `data:` lines joined by `\n`.
    pub data: String,
    /// The `id:` field, if the event had one.
    pub id: Option<String>,
    /// The `retry:` field, if the event had a valid one (milliseconds).
    pub retry: Option<u64>,
}

/// A [`Decoder`] for `text/event-stream` bodies, following the WHATWG framing rules.
///
/// * `data:` lines, with or without the single optional space after the colon; several
///   `data:` lines in one event are joined by `\n`.
/// * `event:`, `id:` and `retry:` fields; comment lines (starting with `:`) and unknown
///   fields are ignored.
/// * CRLF, LF and lone CR line endings, freely mixed; a leading byte order mark is skipped.
/// * A blank line dispatches the event; an event without any `data:` line is not dispatched.
/// * [`decode_eof`](Decoder::decode_eof) dispatches a last event that was not followed by
///   a blank line.
///
/// Bytes may be split anywhere: the decoder is resumable and never rescans bytes it has
/// already examined.
///
/// # Security
///
/// An event stream from an untrusted server could send a line (or an event) without end.
/// The decoder bounds what it holds to [`max_event_bytes`](Self::max_event_bytes)
/// (the pending event plus the unfinished line), 8 MiB by default. Past the bound,
/// `decode` returns an [`Error`] of [`Category::Limit`] and the rest of that event is
/// discarded up to the next blank line; decoding can go on after it.
#[derive(Clone, Debug)]
pub struct SseFrameDecoder {
    /// Bytes of the unfinished line already examined for a line ending.
    next_index: usize,
    /// The last line ended with CR: an LF right after it belongs to that ending.
    after_cr: bool,
    /// Whether the stream start (and a possible BOM) was handled.
    started: bool,
    /// Discarding the rest of an event that exceeded the bound.
    discarding: bool,
    /// The start of the current line was dropped (discarded): its ending is not a blank
    /// line, whatever is left of it.
    dropped_line: bool,
    /// Whether the pending event has a `data:` field.
    has_data: bool,
    pending: SseEvent,
    max_event_bytes: usize,
}

const BOM: &[u8] = b"\xEF\xBB\xBF";

impl Default for SseFrameDecoder {
    fn default() -> SseFrameDecoder {
        SseFrameDecoder::new()
    }
}

impl SseFrameDecoder {
    /// A decoder with the default bound ([`DEFAULT_MAX_EVENT_BYTES`]).
    pub fn new() -> SseFrameDecoder {
        SseFrameDecoder::with_max_event_bytes(DEFAULT_MAX_EVENT_BYTES)
    }

    /// A decoder holding at most `max_event_bytes` for one event (its fields plus the
    /// unfinished line).
    pub fn with_max_event_bytes(max_event_bytes: usize) -> SseFrameDecoder {
        SseFrameDecoder {
            next_index: 0,
            after_cr: false,
            started: false,
            discarding: false,
            dropped_line: false,
            has_data: false,
            pending: SseEvent::default(),
            max_event_bytes,
        }
    }

    /// The bound on one event, in bytes.
    pub fn max_event_bytes(&self) -> usize {
        self.max_event_bytes
    }

    fn pending_bytes(&self) -> usize {
        self.pending.data.len()
            + self.pending.event.as_ref().map_or(0, String::len)
            + self.pending.id.as_ref().map_or(0, String::len)
    }

    fn over_limit(&mut self) -> Error {
        self.discarding = true;
        self.has_data = false;
        self.pending = SseEvent::default();
        Error::new(
            Category::Limit,
            format!(
                "server-sent event longer than max_event_bytes ({} bytes)",
                self.max_event_bytes
            ),
        )
    }

    /// Take the pending event, if it has data.
    fn dispatch(&mut self) -> Option<SseEvent> {
        let event = std::mem::take(&mut self.pending);
        let has_data = std::mem::replace(&mut self.has_data, false);
        if self.discarding {
            self.discarding = false;
            return None;
        }
        has_data.then_some(event)
    }

    /// Apply one complete line (without its ending). Returns an event on a blank line.
    fn line(&mut self, line: &[u8]) -> Result<Option<SseEvent>, Error> {
        if line.is_empty() {
            return Ok(self.dispatch());
        }
        if self.discarding {
            return Ok(None);
        }
        // The same bound as on an unfinished line (in `decode`), so where the input was
        // split never changes which event is over the bound.
        if self.pending_bytes() + line.len() + 1 > self.max_event_bytes {
            return Err(self.over_limit());
        }
        if line[0] == b':' {
            return Ok(None);
        }
        let (name, value) = match memchr::memchr(b':', line) {
            Some(colon) => {
                let value = &line[colon + 1..];
                (&line[..colon], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &b""[..]),
        };
        // The bound is on what is kept: invalid UTF-8 grows to U+FFFD (3 bytes a byte).
        let value = String::from_utf8_lossy(value);
        if self.pending_bytes() + value.len() + 1 > self.max_event_bytes {
            return Err(self.over_limit());
        }
        match name {
            b"data" => {
                if self.has_data {
                    self.pending.data.push('\n');
                }
                self.pending.data.push_str(&value);
                self.has_data = true;
            }
            b"event" => self.pending.event = Some(value.into_owned()),
            b"id" if !value.contains('\0') => self.pending.id = Some(value.into_owned()),
            b"retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.pending.retry = value.parse().ok();
            }
            _ => {}
        }
        Ok(None)
    }

    /// Skip a byte order mark at the very start. Returns false while undecided.
    fn start(&mut self, buf: &mut BytesMut) -> bool {
        if self.started {
            return true;
        }
        let n = buf.len().min(BOM.len());
        if buf[..n] != BOM[..n] {
            self.started = true;
        } else if n == BOM.len() {
            buf.advance(BOM.len());
            self.started = true;
        }
        self.started
    }
}

impl Decoder for SseFrameDecoder {
    type Item = SseEvent;
    type Error = Error;

    fn decode(&mut self, buf: &mut BytesMut) -> Result<Option<SseEvent>, Error> {
        loop {
            if buf.is_empty() || !self.start(buf) {
                return Ok(None);
            }
            if self.after_cr {
                self.after_cr = false;
                if buf[0] == b'\n' {
                    buf.advance(1);
                    continue;
                }
            }
            let Some(offset) = memchr::memchr2(b'\n', b'\r', &buf[self.next_index..]) else {
                self.next_index = buf.len();
                if self.discarding {
                    // Nothing in an event being discarded is kept.
                    buf.advance(self.next_index);
                    self.next_index = 0;
                    self.dropped_line = true;
                } else if self.pending_bytes() + buf.len() + 1 > self.max_event_bytes {
                    buf.advance(self.next_index);
                    self.next_index = 0;
                    self.dropped_line = true;
                    return Err(self.over_limit());
                }
                return Ok(None);
            };
            let end = self.next_index + offset;
            self.next_index = 0;
            let line = buf.split_to(end + 1);
            self.after_cr = line[end] == b'\r';
            if std::mem::take(&mut self.dropped_line) {
                continue; // the rest of a line already dropped
            }
            if let Some(event) = self.line(&line[..end])? {
                return Ok(Some(event));
            }
        }
    }

    fn decode_eof(&mut self, buf: &mut BytesMut) -> Result<Option<SseEvent>, Error> {
        if let Some(event) = self.decode(buf)? {
            return Ok(Some(event));
        }
        if !buf.is_empty() {
            // An unfinished last line (or an undecided BOM prefix): it ends here.
            self.started = true;
            let line = buf.split();
            self.next_index = 0;
            if !std::mem::take(&mut self.dropped_line) {
                self.line(&line)?;
            }
        }
        self.after_cr = false;
        self.dropped_line = false;
        Ok(self.dispatch())
    }
}
