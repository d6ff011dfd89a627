//! The bounded look-ahead that decides whether a quote inside a string ends it.
//!
//! When a value string meets its closing delimiter, the repairer cannot know yet whether
//! the model meant to end the string (`"dark", "columns": 3}`) or wrote a quote as
//! content (`<meta charset="UTF-8">`). It feeds the bytes after the candidate quote to a
//! [`Lookahead`], which reads on as if the string had ended and answers:
//!
//! * [`Verdict::Close`] when what follows continues as valid structure to the end of the
//!   enclosing container and then a legal continuation (the parent's next member, its
//!   closer, the call's closing marker, or the end of the stream), or when the window
//!   is used up without a contradiction (valid JSON is never reinterpreted);
//! * [`Verdict::Content`] at the first contradiction: a byte that cannot come next, a
//!   closer of the wrong kind, or (with a schema) a key the tool does not declare.
//!
//! The window is bounded (`Limits::lookahead`), so every quote is decided after at most
//! that many bytes, and each byte is examined by at most one look-ahead per quote in
//! the window: total work stays linear.

use super::bulk::{self, Classes};
use crate::scan::{Found, MarkerSet};
use smallvec::SmallVec;

/// The answer of a look-ahead.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// The candidate quote ends the string.
    Close,
    /// The candidate quote is content.
    Content,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum St {
    After,
    /// Just after a `,`: the next item must start here.
    Item,
    Key,
    KeyStr {
        quote: u8,
        esc: bool,
    },
    KeyWord,
    Colon,
    Value,
    Str {
        quote: u8,
        esc: bool,
    },
    /// After a quote that may end a nested string: blanks, then a delimiter or not.
    StrQuote {
        quote: u8,
    },
    /// A typographic quote (`“` or `‘`, as the repairer reads them) opening a key or a
    /// value: `got` of its three bytes read.
    TypoOpen {
        key: bool,
        got: u8,
    },
    /// Inside a typographic string: `close` is its closer's last byte (`”` or `’`),
    /// `got` how many of the closer's bytes were just read.
    TypoStr {
        key: bool,
        close: u8,
        got: u8,
    },
    /// A dialect's own string delimiter (Gemma's `<|"|>`) opening a value: `got` of
    /// its bytes read.
    AltOpen {
        got: u8,
    },
    /// Inside a dialect-delimited string: `got` of the delimiter's bytes just read.
    AltStr {
        got: u8,
    },
    Scalar,
    Comment {
        block: bool,
        star: bool,
    },
}

/// Keys a tool declares, checked at one depth of the structure.
#[derive(Clone, Debug, Default)]
pub(crate) struct KeyCheck {
    /// Stack depth of the arguments object (1 when the arguments are the whole value).
    pub depth: usize,
    /// The declared keys; `None` when any key is allowed.
    pub keys: Option<std::sync::Arc<[String]>>,
    /// Whether `keys` are in declaration order: a positional (Python) argument takes
    /// the key at its place only then.
    pub in_order: bool,
}

impl KeyCheck {
    /// The top-level keys `tool` declares, checked at `depth`.
    pub(crate) fn of(tool: Option<&crate::schema::Tool>, depth: usize) -> KeyCheck {
        let params = tool.and_then(|t| t.params());
        let in_order = params.as_ref().is_some_and(|(_, in_order)| *in_order);
        KeyCheck {
            depth,
            keys: params.map(|(keys, _)| keys.map(str::to_owned).collect()),
            in_order,
        }
    }
}

/// What a look-ahead reads against: the call's terminators and the declared keys.
pub(crate) struct Ctx<'a> {
    pub terminators: &'a MarkerSet,
    /// What may follow the whole value before a terminator (a closing fence).
    pub trailer: &'a [u8],
    pub check: &'a KeyCheck,
    /// The string already showed it is malformed (a quote in it was content, a raw
    /// control byte): only then does an undeclared key count against closing it, so
    /// valid JSON (which may carry extra keys) is never reinterpreted.
    pub suspect: bool,
    /// Python call arguments: `=` binds, `(`/`)` are a tuple or the call's parentheses.
    pub python: bool,
    /// Each byte's class for [`bulk::NEXT`], with `terminators`.
    pub classes: &'a Classes,
}

#[derive(Clone)]
pub(crate) struct Lookahead {
    // Vectors, not small vectors: their length is one field, read at nearly every
    // token, and the repairer reuses one look-ahead's storage from quote to quote.
    stack: Vec<u8>,
    base: usize,
    st: St,
    seen: usize,
    window: usize,
    /// The enclosing container has closed; one more legal token decides.
    closed: bool,
    /// A blank came after the last value: a value or key starting now may be the next
    /// item with its comma dropped.
    blank_seen: bool,
    /// Where a comment returns to.
    resume: St,
    key: Vec<u8>,
    marker: Vec<u8>,
    /// Where a nested `"` string ended (`seen` after its quote, stack depth then),
    /// kept only while the structure has not gone shallower than that depth since:
    /// a look-ahead started at one of them would have read the same bytes the same way
    /// (see [`Lookahead::resume_at`]).
    ends: SmallVec<[(usize, usize); 16]>,
    /// `seen` when the last nested string ended (entering `StrQuote`).
    last_end: usize,
    /// Nested string ends whose container closed since (see [`Closed`]), kept while
    /// the structure has not gone shallower than that container's parent.
    closes: SmallVec<[Closed; 8]>,
    /// The verdict was `Close` at a token only a real end allows: the parent's closer
    /// after the enclosing value, a terminator, or a blank after the whole value (see
    /// [`strong`](Self::strong)).
    strong: bool,
    /// Read past the end of the whole value to what follows it (a suspect string's
    /// look-ahead): only the call's closer there makes the `Close` strong.
    to_end: bool,
    /// The whole value ended (with `to_end`): what follows decides how strong `Close` is.
    whole_ended: bool,
    /// How many bytes of the form's trailer followed the whole value (with `whole_ended`).
    trailer_at: usize,
    /// `marker` began inside a nested string (with `to_end`): the call's closer there
    /// means the structure read never closes before the call ends.
    marker_in_str: bool,
    /// What was read past the quote is not strict JSON (a dropped comma, an unquoted
    /// key, single quotes, a comment, a nested string with quotes of its own): valid
    /// JSON never makes a `Close` so, and a reading that keeps the quote as content may
    /// be the better one.
    lenient: bool,
    /// An object where a key of a JSON envelope's call object belongs is its arguments
    /// without their key (`{"name": "f", {...}}`): set by the repairer.
    pub(crate) keyless: bool,
    /// Python call arguments, whose keys are bare words and strings may be single
    /// quoted: neither is lenient there. Set by the repairer.
    pub(crate) python: bool,
    /// The dialect's own string delimiter (Gemma's `<|"|>`), empty for none: values are
    /// strings between it, keys bare words (not lenient there). Set by the repairer.
    pub(crate) alt: &'static [u8],
}

/// A nested `"` string end that a look-ahead read on past until the string's
/// container closed: a look-ahead started at that end would have read the same bytes
/// the same way up to the closer, where its own container closes (see
/// [`Lookahead::closed_after`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
struct Closed {
    /// `seen` after the string's quote.
    at: usize,
    /// The stack depth in the string (its container's).
    depth: usize,
    /// The container's opener.
    open: u8,
    /// The bytes from the quote to the closer, the closer included.
    read: usize,
}

pub(super) const fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// Whether a look-ahead started fresh after a candidate quote ([`Lookahead::new`])
/// answers [`Verdict::Content`] at the first byte, `b`, whatever the container: a byte
/// that is no blank, no separator or closer (`,` `}` `]`), no comment start (`/` `#`)
/// and does not begin a terminator cannot follow a string's end (`charset="UTF-8"`,
/// `">`). The repairer's string run reads such a quote as content without starting
/// one. Python argument lists have their own tokens: never there.
pub(crate) fn content_at_once(b: u8, window: usize, terminators: &MarkerSet, python: bool) -> bool {
    window >= 1
        && !python
        && !is_blank(b)
        && !matches!(b, b',' | b'}' | b']' | b'/' | b'#')
        && !terminators.starts_with_byte(b)
}

pub(super) const fn is_scalar_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.' | b'_' | b'$')
}

impl Lookahead {
    /// Start after a candidate closing quote of a string in the container `stack`.
    pub(crate) fn new(stack: &[u8], window: usize) -> Lookahead {
        Lookahead {
            stack: stack.to_vec(),
            base: stack.len(),
            st: St::After,
            seen: 0,
            window,
            closed: stack.is_empty(),
            blank_seen: false,
            resume: St::After,
            key: Vec::new(),
            marker: Vec::new(),
            ends: SmallVec::new(),
            last_end: 0,
            closes: SmallVec::new(),
            strong: false,
            to_end: false,
            whole_ended: false,
            trailer_at: 0,
            marker_in_str: false,
            lenient: false,
            keyless: false,
            python: false,
            alt: b"",
        }
    }

    /// Start over as [`new`](Lookahead::new) would, in place: the repairer keeps one
    /// look-ahead's storage from quote to quote instead of moving a new one (a few
    /// hundred bytes) in and out of its fields.
    pub(crate) fn restart(&mut self, stack: &[u8], window: usize) {
        self.stack.clear();
        self.stack.extend_from_slice(stack);
        self.base = stack.len();
        self.st = St::After;
        self.seen = 0;
        self.window = window;
        self.closed = stack.is_empty();
        self.blank_seen = false;
        self.resume = St::After;
        self.key.clear();
        self.marker.clear();
        self.ends.clear();
        self.last_end = 0;
        self.closes.clear();
        self.strong = false;
        self.to_end = false;
        self.whole_ended = false;
        self.trailer_at = 0;
        self.marker_in_str = false;
        self.lenient = false;
    }

    /// Whether anything read was not strict JSON (see the field).
    pub(crate) fn lenient(&self) -> bool {
        self.lenient
    }

    /// Read on past the whole value's end before deciding how strong a `Close` is
    /// ([`strong`](Self::strong)): in a string already malformed, a quote followed by
    /// the closers of every container is strong only when the call's closer follows.
    pub(crate) fn read_to_end(&mut self) {
        self.to_end = true;
    }

    /// Whether the window ran out with no contradiction (the verdict was `Close` by
    /// exhaustion, so every byte read so far was read without a decision).
    pub(crate) fn exhausted(&self) -> bool {
        self.seen > self.window
    }

    /// Whether a `Close` was reached at a token only the string's real end allows: the
    /// parent's own closer right after the enclosing value, a terminator, or a blank
    /// after the whole value. Any other `Close` (the window ran out, a comment, the
    /// parent's next member, a nested string with quotes of its own) is weak: a
    /// reading that keeps the quote as content may still be the better one.
    pub(crate) fn strong(&self) -> bool {
        self.strong
    }

    /// The stream ended while this look-ahead read: a `Close` of a value whose every
    /// container closed, with only blanks after it, was reached at the end of the
    /// stream, a token only its real end allows.
    pub(crate) fn end_of_stream(&mut self) {
        if self.whole_ended || (self.closed && self.stack.is_empty()) {
            self.strong = true;
        }
    }

    /// How many bytes have been read.
    pub(crate) fn read(&self) -> usize {
        self.seen
    }

    /// After an exhausted run, become the look-ahead that a candidate quote ending the
    /// nested string at `at` (a `seen` count) in `stack` would be once it has read the
    /// rest of this run's bytes: same transitions, so the same state, with its own base
    /// and count. Returns how many bytes that one has read (`read`). `None`, and nothing
    /// changed, unless that quote ended a nested string here at that same depth and
    /// nothing went shallower since (so neither run closed its container), and at most
    /// `available` bytes were read after it (the bytes the caller still has).
    pub(crate) fn resume_at(&mut self, at: usize, stack: &[u8], available: usize) -> Option<usize> {
        if self.closed || stack.is_empty() || !self.exhausted() {
            return None;
        }
        let depth = stack.len();
        if !self.ends.contains(&(at, depth)) || self.stack.get(..depth) != Some(stack) {
            return None;
        }
        let read = self.window.checked_sub(at).filter(|&r| r <= available)?;
        // Right after the quote (blanks aside) this run waits for a delimiter; one
        // started there is simply after a value, and has seen the blanks read since.
        // Elsewhere both are in the same state, down to a blank seen after a value
        // (which a dropped comma depends on) and a comment's way back.
        if matches!(self.st, St::StrQuote { .. }) && self.last_end == at {
            self.st = St::After;
            self.blank_seen = read > 0;
        }
        self.base = depth;
        self.seen = read;
        self.ends.retain(|e| e.0 > at);
        for e in &mut self.ends {
            e.0 -= at;
        }
        self.closes.retain(|c| c.at > at);
        for c in &mut self.closes {
            c.at -= at;
        }
        self.last_end = self.last_end.saturating_sub(at);
        Some(read)
    }

    /// After an exhausted run: how many bytes a look-ahead started at the nested string
    /// end `at` (a `seen` count) in `stack` reads up to its container's closer, if this
    /// run read it to there ([`Closed`]) and it is at most `available` bytes and within
    /// the window. That look-ahead is then [`closed_at`](Self::closed_at) that count.
    pub(crate) fn closed_after(&self, at: usize, stack: &[u8], available: usize) -> Option<usize> {
        if self.closed || !self.exhausted() {
            return None;
        }
        let (&open, parent) = stack.split_last()?;
        let c = self
            .closes
            .iter()
            .find(|c| c.at == at && c.depth == stack.len())?;
        let same = c.open == open && self.stack.get(..parent.len()) == Some(parent);
        (same && c.read <= available && c.read <= self.window).then_some(c.read)
    }

    /// Just started after a candidate quote, be as if `read` bytes were read to the
    /// container's closer (see [`closed_after`](Self::closed_after)): popped, closed,
    /// after a value.
    pub(crate) fn closed_at(&mut self, read: usize) {
        debug_assert!(self.seen == 0 && self.st == St::After && self.base == self.stack.len());
        self.stack.pop();
        self.closed = true;
        self.seen = read;
    }

    /// Read `bytes` until decided or read out: returns how many were read (the deciding
    /// byte included) and the verdict if any. Like `step` on each byte, but runs that
    /// change nothing a byte would not (a nested string's or key's plain content, the
    /// rest of a scalar, blanks between tokens) are read in one go.
    pub(crate) fn read_run(&mut self, bytes: &[u8], ctx: &Ctx<'_>) -> (usize, Option<Verdict>) {
        let mut i = 0;
        while i < bytes.len() {
            let n = self.bulk(&bytes[i..], ctx);
            if n > 0 {
                i += n;
                continue;
            }
            let n = self.skip(&bytes[i..]);
            if n > 0 {
                i += n;
                continue;
            }
            let b = bytes[i];
            i += 1;
            if let Some(v) = self.step(b, ctx) {
                return (i, Some(v));
            }
        }
        (i, None)
    }

    /// Strict JSON structure read in bulk, within the window: string and key content,
    /// blanks, commas, colons, openers, closers of the innermost container, scalars,
    /// each with the effects `step` has on its bytes and no decision among them, with
    /// one lookup per byte in [`bulk::NEXT`]. Returns the bytes read; 0 before anything
    /// else (a possible marker, a byte that decides, a comment, a dropped comma, the
    /// closed container, Python, a long key or a checked one), which `skip` or `step`
    /// read. `read_run_reads_like_stepping` compares the two.
    fn bulk(&mut self, bytes: &[u8], ctx: &Ctx<'_>) -> usize {
        // A suspect string's look-ahead (`to_end`) watches for the call's closer inside
        // nested strings too: `step`'s.
        if !self.marker.is_empty()
            || self.closed
            || ctx.python
            || self.to_end
            || !self.alt.is_empty()
        {
            return 0;
        }
        let room = self.window.saturating_sub(self.seen).min(bytes.len());
        let bytes = &bytes[..room];
        let mut i = 0;
        // The quote of `St::StrQuote`, which the table does not keep.
        let mut quote = b'"';
        let mut tok = match self.st {
            St::After if self.blank_seen => bulk::of(bulk::BLANK_O, self.stack.last()),
            St::After => bulk::of(bulk::AFTER_O, self.stack.last()),
            St::StrQuote { quote: q } => {
                quote = q;
                bulk::of(bulk::QUOTED_O, self.stack.last())
            }
            St::Scalar => bulk::of(bulk::SCALAR_O, self.stack.last()),
            St::Item => bulk::of(bulk::ITEM_O, self.stack.last()),
            St::Key => bulk::KEY,
            St::Colon => bulk::AWAIT_COLON,
            St::Value => bulk::of(bulk::VALUE_O, self.stack.last()),
            St::Str { quote: b'"', esc } => match self.string_end(bytes, 0, esc) {
                Some(end) => {
                    i = end;
                    bulk::of(bulk::QUOTED_O, self.stack.last())
                }
                None => {
                    self.seen += bytes.len();
                    return bytes.len();
                }
            },
            St::KeyStr {
                quote: b'"',
                esc: false,
            } => match self.key_end(bytes, 0, ctx) {
                Ok(end) => {
                    i = end;
                    bulk::AWAIT_COLON
                }
                Err(read) => return self.bulk_stopped(read),
            },
            _ => return 0,
        };
        while let Some(&b) = bytes.get(i) {
            let next = bulk::NEXT[tok as usize][ctx.classes.0[b as usize] as usize];
            if next < bulk::FIRST_ACTION {
                tok = next;
                i += 1;
                continue;
            }
            match next {
                bulk::READ_STRING => match self.string_end(bytes, i + 1, false) {
                    Some(end) => {
                        quote = b'"';
                        tok = bulk::of(bulk::QUOTED_O, self.stack.last());
                        i = end;
                    }
                    None => {
                        // In a string: no blank after a value is pending (as `step`
                        // leaves it, the string's quote having taken it).
                        self.blank_seen = false;
                        self.seen += bytes.len();
                        return bytes.len();
                    }
                },
                bulk::READ_KEY => {
                    self.st = St::KeyStr {
                        quote: b'"',
                        esc: false,
                    };
                    match self.key_end(bytes, i + 1, ctx) {
                        Ok(end) => {
                            tok = bulk::AWAIT_COLON;
                            i = end;
                        }
                        Err(read) => {
                            self.blank_seen = false;
                            return self.bulk_stopped(read);
                        }
                    }
                }
                bulk::PUSH if self.stack.len() < 64 => {
                    self.stack.push(b);
                    tok = match b {
                        b'{' => bulk::KEY,
                        _ => bulk::VALUE_A,
                    };
                    i += 1;
                }
                bulk::POP if self.close_innermost(b, self.seen + i + 1) => {
                    tok = bulk::of(bulk::AFTER_O, self.stack.last());
                    i += 1;
                    if self.closed {
                        // What may follow the enclosing container is `step`'s to read.
                        break;
                    }
                }
                _ => break,
            }
        }
        self.blank_seen = matches!(tok, bulk::BLANK_O | bulk::BLANK_A);
        self.st = match tok {
            bulk::AFTER_O | bulk::AFTER_A | bulk::BLANK_O | bulk::BLANK_A => St::After,
            bulk::QUOTED_O | bulk::QUOTED_A => St::StrQuote { quote },
            bulk::SCALAR_O | bulk::SCALAR_A => St::Scalar,
            bulk::ITEM_O | bulk::ITEM_A => St::Item,
            bulk::KEY => St::Key,
            bulk::AWAIT_COLON => St::Colon,
            _ => St::Value,
        };
        self.seen += i;
        i
    }

    /// `bulk`'s return when it stops in a key, `i` bytes read (the state is set).
    fn bulk_stopped(&mut self, i: usize) -> usize {
        self.seen += i;
        i
    }

    /// Read a `"` string's content from `bytes[i..]` (`esc`: its first byte is escaped):
    /// where its closing quote ends, with the end recorded as `step` records it; `None`,
    /// with the state set to the string's, when the bytes end first.
    #[inline]
    fn string_end(&mut self, bytes: &[u8], mut i: usize, mut esc: bool) -> Option<usize> {
        loop {
            if esc {
                if i >= bytes.len() {
                    break;
                }
                i += 1;
                esc = false;
            }
            let rest = bytes.get(i..).unwrap_or_default();
            let Some(n) = rest.iter().position(|&c| c == b'"' || c == b'\\') else {
                break;
            };
            i += n + 1;
            if rest[n] == b'\\' {
                esc = true;
                continue;
            }
            let seen = self.seen + i;
            self.last_end = seen;
            if self.ends.len() < self.ends.inline_size() {
                self.ends.push((seen, self.stack.len()));
            }
            return Some(i);
        }
        self.st = St::Str { quote: b'"', esc };
        None
    }

    /// Read a `"` key's content from `bytes[i..]`: `Ok` with where its closing quote
    /// ends, the key read and done with; else `Err` with where the bytes read end: all of
    /// them when they end first (the content kept, as `skip` keeps it), `i` before what
    /// `step` must read: a backslash, the 257th byte (`step` answers `Content` there)
    /// or a key it checks.
    #[inline]
    fn key_end(&mut self, bytes: &[u8], i: usize, ctx: &Ctx<'_>) -> Result<usize, usize> {
        if ctx.suspect && self.stack.len() == ctx.check.depth && ctx.check.keys.is_some() {
            return Err(i);
        }
        let rest = bytes.get(i..).unwrap_or_default();
        let Some(n) = rest.iter().position(|&c| c == b'"' || c == b'\\') else {
            if self.key.len() + rest.len() > 256 {
                return Err(i);
            }
            self.key.extend_from_slice(rest);
            return Err(bytes.len());
        };
        if rest[n] != b'"' || self.key.len() + n > 256 {
            return Err(i);
        }
        self.key.clear();
        Ok(i + n + 1)
    }

    /// `close` of the innermost container when `b` closes it (and the enclosing
    /// container is not closed yet), `seen` once it is read, but for the state, which
    /// the caller sets (`After`); false, with nothing changed, for any other closer.
    fn close_innermost(&mut self, b: u8, seen: usize) -> bool {
        let open = if b == b'}' { b'{' } else { b'[' };
        if self.closed || self.stack.last() != Some(&open) {
            return false;
        }
        self.pop(seen);
        let depth = self.stack.len();
        if depth < self.base {
            self.closed = true;
        }
        true
    }

    /// Pop the innermost container, its closer read at `seen`: the string ends recorded
    /// in it become [`Closed`] ones, and those whose parent this closes are dropped.
    fn pop(&mut self, seen: usize) {
        let Some(open) = self.stack.pop() else {
            return;
        };
        let depth = self.stack.len();
        self.closes.retain(|c| c.depth <= depth + 1);
        for &(at, d) in &self.ends {
            if d > depth && self.closes.len() < self.closes.inline_size() {
                self.closes.push(Closed {
                    at,
                    depth: d,
                    open,
                    read: seen - at,
                });
            }
        }
        self.ends.retain(|e| e.1 <= depth);
    }

    /// How many of `bytes` can be read at once with no decision and no state change
    /// but what `step` would make byte by byte, within the window; 0 means `step` the
    /// next byte.
    #[inline]
    fn skip(&mut self, bytes: &[u8]) -> usize {
        let (Some(&first), true) = (bytes.first(), self.marker.is_empty()) else {
            return 0;
        };
        // Most bytes of structure begin no run: decided on the first byte.
        let runs = match self.st {
            St::Str { .. } | St::KeyStr { .. } if self.to_end => false,
            St::Str { quote, esc: false } | St::KeyStr { quote, esc: false } => {
                first != quote && first != b'\\'
            }
            St::Scalar => is_scalar_byte(first),
            St::After | St::Item | St::Key | St::Colon | St::Value => is_blank(first),
            _ => false,
        };
        if !runs {
            return 0;
        }
        let room = self.window.saturating_sub(self.seen).min(bytes.len());
        let bytes = &bytes[..room];
        let n = match self.st {
            St::Str { quote, esc: false } => bytes
                .iter()
                .position(|&b| b == quote || b == b'\\')
                .unwrap_or(room),
            St::KeyStr { quote, esc: false } => {
                // `step` answers `Content` at a key's 257th byte: leave that to it.
                let room = room.min(256 - self.key.len().min(256));
                let n = bytes[..room]
                    .iter()
                    .position(|&b| b == quote || b == b'\\')
                    .unwrap_or(room);
                self.key.extend_from_slice(&bytes[..n]);
                n
            }
            St::Scalar => bytes
                .iter()
                .position(|&b| !is_scalar_byte(b))
                .unwrap_or(room),
            // A blank after the whole value decides (`structural`): not skipped.
            St::After | St::Item | St::Key | St::Colon | St::Value
                if !(self.closed && self.stack.is_empty() && self.base > 0) =>
            {
                let n = bytes.iter().position(|&b| !is_blank(b)).unwrap_or(room);
                if n > 0 && self.st == St::After {
                    self.blank_seen = true;
                }
                // A syntax of the dialect's own delimiter writes no blanks.
                self.lenient |= n > 0 && !self.alt.is_empty();
                n
            }
            _ => 0,
        };
        self.seen += n;
        n
    }

    /// Feed one byte; `Some` once decided. (Inlined in `read_run` as well as called
    /// on its own: a broken string's look-aheads mostly decide here.)
    #[inline(always)]
    pub(crate) fn step(&mut self, b: u8, ctx: &Ctx<'_>) -> Option<Verdict> {
        self.seen += 1;
        if self.seen > self.window {
            return Some(Verdict::Close);
        }
        if !self.marker.is_empty() {
            self.marker.push(b);
            if self.marker_in_str {
                return match ctx.terminators.match_at(&self.marker, 0) {
                    Found::Full { .. } => Some(Verdict::Content),
                    Found::Partial { .. } => None,
                    Found::None => {
                        // Content of the string after all: read this byte again in it.
                        self.marker.clear();
                        self.marker_in_str = false;
                        self.seen -= 1;
                        self.step(b, ctx)
                    }
                };
            }
            return match ctx.terminators.match_at(&self.marker, 0) {
                Found::Full { .. } => self.strong_close(),
                Found::Partial { .. } => None,
                Found::None if self.whole_ended => Some(Verdict::Close),
                // After the whole value, a closing tag may be the call's closer
                // misspelled (`</tool_action>` for `</tool_call>`), or a string's
                // content (`"}</b>`): a weak close, which the whole call decides.
                Found::None if self.stack.is_empty() && self.marker.starts_with(b"</") => {
                    match crate::call::extent::closing_tag(&self.marker) {
                        Some(true) => {
                            self.lenient = true;
                            Some(Verdict::Close)
                        }
                        Some(false) => None,
                        None => Some(Verdict::Content),
                    }
                }
                Found::None => {
                    // No marker after all: its first byte is structure here, the rest
                    // read again as they come (the repairer reads them so).
                    let bytes: SmallVec<[u8; 32]> = SmallVec::from_slice(&self.marker);
                    self.marker.clear();
                    self.seen -= bytes.len() - 1;
                    let first = match ctx.python {
                        true => self.python_token(bytes[0]),
                        false => self.structural_token(bytes[0]),
                    };
                    if first.is_some() {
                        return first;
                    }
                    bytes[1..].iter().find_map(|&c| self.step(c, ctx))
                }
            };
        }
        if self.to_end
            && matches!(
                self.st,
                St::KeyStr { esc: false, .. } | St::Str { esc: false, .. }
            )
            && ctx.terminators.starts_with_byte(b)
        {
            self.marker.push(b);
            if matches!(
                ctx.terminators.match_at(&self.marker, 0),
                Found::Partial { .. }
            ) {
                self.marker_in_str = true;
                return None;
            }
            self.marker.clear();
        }
        match self.st {
            St::KeyStr { quote, esc } => {
                if esc {
                    self.st = St::KeyStr { quote, esc: false };
                } else if b == b'\\' {
                    self.st = St::KeyStr { quote, esc: true };
                } else if b == quote {
                    return self.key_done(ctx);
                } else {
                    self.key.push(b);
                    if self.key.len() > 256 {
                        return Some(Verdict::Content);
                    }
                }
                None
            }
            St::Str { quote, esc } => {
                if esc {
                    self.st = St::Str { quote, esc: false };
                } else if b == b'\\' {
                    self.st = St::Str { quote, esc: true };
                } else if b == quote {
                    self.st = St::StrQuote { quote };
                    self.last_end = self.seen;
                    if quote == b'"' && self.ends.len() < self.ends.inline_size() {
                        self.ends.push((self.seen, self.stack.len()));
                    }
                }
                None
            }
            St::TypoOpen { key, got } => {
                self.st = match (got, b) {
                    (1, 0x80) => St::TypoOpen { key, got: 2 },
                    (2, 0x9c) => St::TypoStr {
                        key,
                        close: 0x9d,
                        got: 0,
                    },
                    (2, 0x98) => St::TypoStr {
                        key,
                        close: 0x99,
                        got: 0,
                    },
                    _ => return Some(Verdict::Content),
                };
                None
            }
            St::TypoStr { key, close, got } => {
                let got = match (got, b) {
                    (2, _) if b == close => {
                        // Its closer: a key, then a colon; a value, then what follows.
                        self.key.clear();
                        self.st = if key { St::Colon } else { St::After };
                        return None;
                    }
                    (_, 0xe2) => 1,
                    (1, 0x80) => 2,
                    _ => 0,
                };
                self.st = St::TypoStr { key, close, got };
                None
            }
            St::AltOpen { got } => {
                if self.alt.get(usize::from(got)) != Some(&b) {
                    // A bare value after its key: `bare_value`'s.
                    return self.bare_value();
                }
                self.st = match usize::from(got) + 1 == self.alt.len() {
                    true => St::AltStr { got: 0 },
                    false => St::AltOpen { got: got + 1 },
                };
                None
            }
            St::AltStr { got } => {
                let got = match self.alt.get(usize::from(got)) == Some(&b) {
                    true => got + 1,
                    false => u8::from(self.alt.first() == Some(&b)),
                };
                // Its delimiter ends it, or is content as the one this started at
                // may be: what follows tells, as after a nested `"` string.
                self.st = match usize::from(got) == self.alt.len() {
                    true => St::StrQuote { quote: self.alt[0] },
                    false => St::AltStr { got },
                };
                None
            }
            St::StrQuote { quote } => {
                if is_blank(b) {
                    return None;
                }
                if matches!(b, b',' | b'}' | b']')
                    || (ctx.python && b == b')')
                    || ctx.terminators.starts_with_byte(b)
                {
                    self.st = St::After;
                    return self.structural(b, ctx);
                }
                // The nested string has quotes of its own: the structure cannot be read
                // any further, and nothing so far contradicted the candidate.
                let _ = quote;
                Some(Verdict::Close)
            }
            St::KeyWord => {
                if b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'-' {
                    self.key.push(b);
                    None
                } else if b == b'"' && !ctx.python {
                    // `arguments": {`: a key that lost its opening quote.
                    self.lenient = true;
                    self.key_done(ctx)
                } else if ctx.python && matches!(b, b',' | b')') && self.stack.len() == 1 {
                    // `f('a', True)`: the word was a positional value, not a key.
                    self.key.clear();
                    self.st = St::After;
                    self.structural(b, ctx)
                } else {
                    if let Some(v) = self.key_done(ctx) {
                        return Some(v);
                    }
                    self.structural(b, ctx)
                }
            }
            St::Scalar => {
                if is_scalar_byte(b) {
                    None
                } else if is_blank(b) && !self.alt.is_empty() {
                    // A word then a blank: text, no value of the syntax (which writes
                    // no blanks).
                    self.bare_value()
                } else {
                    self.st = St::After;
                    self.structural(b, ctx)
                }
            }
            St::Comment { block, star } => {
                if block {
                    if star && b == b'/' {
                        self.st = self.resume;
                    } else {
                        self.st = St::Comment {
                            block,
                            star: b == b'*',
                        };
                    }
                } else if star && b == b'*' {
                    self.st = St::Comment {
                        block: true,
                        star: false,
                    };
                } else if b == b'\n' {
                    self.st = self.resume;
                } else if star {
                    self.st = St::Comment {
                        block: false,
                        star: false,
                    };
                }
                None
            }
            _ => self.structural(b, ctx),
        }
    }

    /// In a syntax of the dialect's own delimiter, a value that does not begin as that
    /// syntax writes one after its key and colon: the model dropped the value's opening
    /// delimiter (Gemma's `content:<!DOCTYPE html>...`), which the repairer reads as
    /// a bare value. The structure read so far bore the candidate out and cannot be
    /// read further: as the next member of the candidate's own container in the
    /// syntax's own spelling (`<|"|>,key:` then the value, no blanks: a file holds it
    /// only if it is about the syntax), a close as firm as the delimiter was before it
    /// could be content; deeper, or after blanks (`self, item: u32, dst: &mut`), weak.
    fn bare_value(&mut self) -> Option<Verdict> {
        if self.stack.len() == self.base && !self.lenient {
            return self.strong_close();
        }
        self.lenient = true;
        Some(Verdict::Close)
    }

    fn strong_close(&mut self) -> Option<Verdict> {
        self.strong = true;
        Some(Verdict::Close)
    }

    fn key_done(&mut self, ctx: &Ctx<'_>) -> Option<Verdict> {
        if ctx.suspect && self.stack.len() == ctx.check.depth {
            if let Some(keys) = &ctx.check.keys {
                if !keys.iter().any(|k| k.as_bytes() == self.key.as_slice()) {
                    return Some(Verdict::Content);
                }
            }
        }
        self.key.clear();
        self.st = St::Colon;
        None
    }

    fn close(&mut self, b: u8) -> Option<Verdict> {
        let open = if b == b'}' { b'{' } else { b'[' };
        match self.stack.last() {
            Some(&top) if top == open => {
                self.pop(self.seen);
                if self.closed {
                    // The parent's own closer after the enclosing value: legal. In a
                    // string already malformed, with the whole value (or a call object
                    // of a top-level array) closed, what follows decides how strong.
                    if self.to_end && matches!(self.stack.as_slice(), [] | [b'[']) {
                        self.whole_ended = true;
                        self.st = St::After;
                        return None;
                    }
                    return self.strong_close();
                }
                if self.stack.len() < self.base {
                    self.closed = true;
                }
                self.st = St::After;
                None
            }
            _ => Some(Verdict::Content),
        }
    }

    fn structural(&mut self, b: u8, ctx: &Ctx<'_>) -> Option<Verdict> {
        if !self.whole_ended
            && self.closed
            && self.stack.is_empty()
            && ctx.trailer.first() == Some(&b)
        {
            // The whole value ended, and the form's trailer (a closing fence) begins:
            // what follows it decides, as after a value read to its end.
            self.whole_ended = true;
        }
        if self.whole_ended {
            // After the whole value: the call's closer makes the close strong; anything
            // else (prose) leaves it weak.
            if is_blank(b) {
                return None;
            }
            if b == b']' && self.stack.as_slice() == b"[" && self.marker.is_empty() {
                // The top-level array's end, after the call object: the whole value.
                self.stack.pop();
                return None;
            }
            let trailer = ctx.trailer;
            if self.marker.is_empty()
                && self.trailer_at < trailer.len()
                && (self.trailer_at > 0 || trailer[0] == b)
            {
                // The form's trailer (a closing fence) before its closer.
                if trailer[self.trailer_at] != b {
                    return Some(Verdict::Close);
                }
                self.trailer_at += 1;
                return None;
            }
            if ctx.terminators.starts_with_byte(b) {
                self.marker.push(b);
                return match ctx.terminators.match_at(&self.marker, 0) {
                    Found::Full { .. } => self.strong_close(),
                    Found::Partial { .. } => None,
                    Found::None => Some(Verdict::Close),
                };
            }
            return Some(Verdict::Close);
        }
        if is_blank(b) {
            if self.closed && self.stack.is_empty() && self.base > 0 {
                // The whole value ended and a blank follows: nothing else to check (a
                // call may be followed by prose). A top-level string goes on: `"a 24"
                // screen"` is one string.
                if self.to_end {
                    self.whole_ended = true;
                    return None;
                }
                return self.strong_close();
            }
            if self.st == St::After {
                self.blank_seen = true;
            }
            self.lenient |= !self.alt.is_empty();
            return None;
        }
        if ctx.terminators.starts_with_byte(b) {
            self.marker.push(b);
            return match ctx.terminators.match_at(&self.marker, 0) {
                Found::Full { .. } => self.strong_close(),
                Found::Partial { .. } => None,
                Found::None => {
                    self.marker.clear();
                    if ctx.python {
                        return self.python_token(b);
                    }
                    self.structural_token(b)
                }
            };
        }
        if ctx.python {
            return self.python_token(b);
        }
        if self.closed && self.stack.is_empty() && self.base > 0 && !ctx.suspect {
            // The whole value ended in a clean string, and text follows it at once
            // (`"Paris"}. Done.`, a call with no closer): valid JSON is never
            // reinterpreted. (A redundant closer is still read as one.)
            if !matches!(b, b'}' | b']') {
                return self.strong_close();
            }
        }
        self.structural_token(b)
    }

    /// A structural byte of Python call arguments, read as its JSON counterpart.
    fn python_token(&mut self, b: u8) -> Option<Verdict> {
        if self.closed && self.stack.is_empty() && self.to_end && b == b']' {
            // A string already malformed, its call's `)`, then the list's `]`: the end
            // of the stream or the call's closer after it makes the close strong.
            self.whole_ended = true;
            return None;
        }
        if self.closed && self.stack.is_empty() {
            // After the call's `)`: the next call, the list's end or the next line.
            return Some(if matches!(b, b',' | b']' | b';' | b')') {
                Verdict::Close
            } else {
                Verdict::Content
            });
        }
        let arguments = self.stack.len() == 1 && self.stack[0] == b'{';
        let b = match b {
            // Only the call's `)` closes its arguments.
            b'}' if arguments => return Some(Verdict::Content),
            b'(' => b'[',
            b')' if arguments => b'}',
            b')' => b']',
            b'=' if self.st == St::Colon => b':',
            _ => b,
        };
        if arguments && self.st == St::Item && !(b.is_ascii_alphabetic() || b == b'_') {
            // A positional argument after the comma.
            self.st = St::Value;
        }
        self.structural_token(b)
    }

    fn structural_token(&mut self, b: u8) -> Option<Verdict> {
        if self.closed && self.stack.is_empty() {
            // After the whole value only a redundant closer is structure.
            return Some(if matches!(b, b'}' | b']') {
                Verdict::Close
            } else {
                Verdict::Content
            });
        }
        // (A syntax of the dialect's own delimiter, Gemma's, has no comments.)
        if (b == b'/' || b == b'#') && self.alt.is_empty() {
            // A comment start after the quote: accepted (BAML's rule), but only where a
            // blank could stand.
            if matches!(
                self.st,
                St::After | St::Item | St::Key | St::Value | St::Colon
            ) {
                self.lenient = true;
                self.resume = self.st;
                // `star` right after a `/`: a `*` next makes it a block comment.
                self.st = St::Comment {
                    block: false,
                    star: b == b'/',
                };
                return if self.closed {
                    Some(Verdict::Close)
                } else {
                    None
                };
            }
        }
        let blank_seen = std::mem::take(&mut self.blank_seen);
        match self.st {
            St::After => match b {
                b',' => {
                    self.st = St::Item;
                    None
                }
                b'}' | b']' => self.close(b),
                // After a blank, the next item with its comma dropped: keep reading it as
                // structure; a contradiction later still rejects the close.
                b'"'
                | b'\''
                | b'{'
                | b'['
                | b'-'
                | b'_'
                | b'$'
                | b'0'..=b'9'
                | b'a'..=b'z'
                | b'A'..=b'Z'
                    if blank_seen && !self.closed =>
                {
                    self.lenient = true;
                    self.st = St::Item;
                    self.structural_token(b)
                }
                _ => Some(Verdict::Content),
            },
            St::Item => {
                let in_object = self.stack.last() == Some(&b'{');
                let starts = if in_object {
                    matches!(b, b'"' | b'\'' | 0xe2)
                        || b.is_ascii_alphabetic()
                        || b == b'_'
                        || b == b'$'
                } else {
                    matches!(b, b'"' | b'\'' | b'{' | b'[' | b'-' | b'.' | 0xe2)
                        || b.is_ascii_alphanumeric()
                };
                if matches!(b, b'}' | b']') {
                    // A trailing comma (after the enclosing value too: then the parent's
                    // closer is the one legal token).
                    self.lenient |= self.closed;
                    return self.close(b);
                }
                if self.closed {
                    return Some(if starts {
                        Verdict::Close
                    } else {
                        Verdict::Content
                    });
                }
                // (Not in an array body: there the repairer reads `{` at a key as the
                // next call object, its `}` dropped.)
                if b == b'{' && in_object && self.keyless && self.stack.as_slice() == b"{" {
                    // The call's arguments without their key, as the repairer reads them.
                    self.lenient = true;
                    self.st = St::Value;
                    return self.structural_token(b);
                }
                self.st = if in_object { St::Key } else { St::Value };
                self.structural_token(b)
            }
            St::Key => match b {
                b'"' | b'\'' => {
                    self.lenient |= b == b'\'' && !self.python;
                    self.st = St::KeyStr {
                        quote: b,
                        esc: false,
                    };
                    None
                }
                b'}' => self.close(b),
                0xe2 => {
                    self.lenient = true;
                    self.st = St::TypoOpen { key: true, got: 1 };
                    None
                }
                _ if b.is_ascii_alphabetic() || b == b'_' || b == b'$' => {
                    self.lenient |= !self.python && self.alt.is_empty();
                    self.key.push(b);
                    self.st = St::KeyWord;
                    None
                }
                _ => Some(Verdict::Content),
            },
            St::Colon => match b {
                b':' => {
                    self.st = St::Value;
                    None
                }
                _ => Some(Verdict::Content),
            },
            St::Value => match b {
                b'"' | b'\'' => {
                    self.lenient |= b == b'\'' && !self.python;
                    self.st = St::Str {
                        quote: b,
                        esc: false,
                    };
                    None
                }
                b'{' | b'[' => {
                    if self.stack.len() >= 64 {
                        return Some(Verdict::Close);
                    }
                    self.stack.push(b);
                    self.st = if b == b'{' { St::Key } else { St::Value };
                    None
                }
                b']' if self.stack.last() == Some(&b'[') => self.close(b),
                _ if self.alt.first() == Some(&b) => {
                    self.st = match self.alt.len() {
                        1 => St::AltStr { got: 0 },
                        _ => St::AltOpen { got: 1 },
                    };
                    None
                }
                0xe2 => {
                    self.lenient = true;
                    self.st = St::TypoOpen { key: false, got: 1 };
                    None
                }
                _ if is_scalar_byte(b) => {
                    self.st = St::Scalar;
                    None
                }
                _ if !self.alt.is_empty() => self.bare_value(),
                _ => Some(Verdict::Content),
            },
            _ => Some(Verdict::Content),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decide(
        stack: &[u8],
        after: &str,
        terms: &[&'static [u8]],
        keys: Option<&[&str]>,
    ) -> Verdict {
        let set = MarkerSet::new(terms);
        let check = KeyCheck {
            depth: stack.len(),
            keys: keys.map(|k| k.iter().map(|s| s.to_string()).collect()),
            in_order: true,
        };
        let ctx = Ctx {
            terminators: &set,
            trailer: b"",
            classes: &Classes::new(&set),
            check: &check,
            suspect: true,
            python: false,
        };
        let mut la = Lookahead::new(stack, 256);
        for &b in after.as_bytes() {
            if let Some(v) = la.step(b, &ctx) {
                return v;
            }
        }
        Verdict::Close // end of stream
    }

    #[test]
    fn content_at_once_is_what_a_fresh_look_ahead_decides() {
        let terminators = MarkerSet::new(&[b"</tool_call>", b"<|im_end|>"]);
        let check = KeyCheck::default();
        for python in [false, true] {
            let ctx = Ctx {
                terminators: &terminators,
                trailer: b"",
                classes: &Classes::new(&terminators),
                check: &check,
                suspect: false,
                python,
            };
            for stack in [&b""[..], b"{", b"[", b"{[{"] {
                for window in [0, 1, 64] {
                    for b in 0..=255u8 {
                        let first = Lookahead::new(stack, window).step(b, &ctx);
                        if content_at_once(b, window, &terminators, python) {
                            assert_eq!(first, Some(Verdict::Content), "{:?} {stack:?}", b as char);
                        }
                    }
                }
            }
        }
        // It says yes where the HTML of a broken write_file needs it.
        let yes = |b| content_at_once(b, 64, &terminators, false);
        assert!(yes(b'U') && yes(b'>') && yes(b'=') && yes(b';') && yes(b')'));
        assert!(!yes(b' ') && !yes(b',') && !yes(b'}') && !yes(b'<') && !yes(b'/'));
    }

    /// A byte that begins one of a call's terminators but is followed by what makes it
    /// none is read as what it is: Mistral's `[TOOL_CALLS]` made every `[` after a clean
    /// string a contradiction, so `{"a": "x", "d": [1]}` was read with `x", "d": [1` as
    /// content (a wrong release without tools). Every terminator of every call form of
    /// every dialect, against well-formed structure after a clean string's quote, byte by
    /// byte and in one run.
    #[test]
    fn a_terminator_prefix_that_is_structure_is_structure() {
        const AFTER: &[&str] = &[
            r#", "d": [1]}"#,
            r#", "d": [[2], {"e": "f"}, [], {}], "g": 1}"#,
            r#", "d": {"e": [{"f": -1.5e3}]}, "g": true}"#,
            r#", "d": [null, false, "s", {"t": [{"u": "v"}]}]}"#,
            r#"}, {"y": [["z"]]}]"#,
            r#", "n": {"o": {"p": [{"q": {"r": "s"}}]}}}"#,
        ];
        let forms = crate::dialect::Dialect::ALL
            .iter()
            .flat_map(|d| d.spec().calls)
            .chain(crate::dialect::auto_specs().iter().flat_map(|s| s.calls));
        let mut checked = 0;
        for form in forms {
            let terminators = crate::call::extent::call_terminators(form);
            let check = KeyCheck::default();
            let ctx = Ctx {
                terminators: &terminators,
                trailer: form.trailer,
                classes: &Classes::new(&terminators),
                check: &check,
                suspect: false,
                python: false,
            };
            for after in AFTER {
                let stack: &[u8] = if after.starts_with('}') { b"[{" } else { b"{" };
                let mut stepped = Lookahead::new(stack, 4096);
                let by_byte = after.bytes().find_map(|b| stepped.step(b, &ctx));
                let mut run = Lookahead::new(stack, 4096);
                let (_, in_run) = run.read_run(after.as_bytes(), &ctx);
                for verdict in [by_byte, in_run] {
                    assert_ne!(
                        verdict,
                        Some(Verdict::Content),
                        "{:?} after a quote, terminators of {:?}",
                        after,
                        String::from_utf8_lossy(form.opener)
                    );
                }
                checked += 1;
            }
        }
        assert!(checked > 100);
    }

    /// `read_run` reads like `step` byte by byte, in pieces of any size: the same verdict at
    /// the same byte, or the same state when undecided.
    #[test]
    fn read_run_reads_like_stepping() {
        const BYTES: &[u8] = b"{}[]\",: \n\t\\ab1.-e/*#<ku'";
        const VALUES: &[&[u8]] = &[
            b"12345.678",
            b"true",
            b"\"a \\\"b\\\"\\nc\"",
            b"[1, 22, null, \"w\"]",
            b"{\"id\": 7, \"ok\": false}",
        ];
        const TOKENS: &[&[u8]] = &[
            b"\"a\"",
            b"\"ab\"",
            b"\"k x\"",
            b": ",
            b":",
            b", ",
            b",",
            b"  \n",
            b"12.5e3",
            b"-7",
            b"true",
            b"null",
            b"{",
            b"}",
            b"[",
            b"]",
            b"\"x\\\"y\"",
            b"'s'",
            b"a=",
            b"(",
            b")",
            b"</tool_call>",
        ];
        // Terminators that begin with structure and with a scalar's byte too: those
        // bytes may not be read as structure.
        let terminators = MarkerSet::new(&[b"</tool_call>", b"<|im_end|>", b"}]<", b"ab<"]);
        let keys = KeyCheck {
            depth: 1,
            keys: Some(["a", "ab"].iter().map(|s| s.to_string()).collect()),
            in_order: true,
        };
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut decided = 0;
        for round in 0..20_000 {
            let len = next(40);
            let mut input: Vec<u8> = if round % 2 == 0 {
                (0..len).map(|_| BYTES[next(BYTES.len())]).collect()
            } else if round % 4 == 1 {
                // JSON-like: runs that `skip` takes, between structure.
                (0..len / 3)
                    .flat_map(|_| TOKENS[next(TOKENS.len())].iter().copied())
                    .collect()
            } else {
                // Valid members after the value, one byte perhaps changed: undecided
                // within a window more often.
                let mut v = Vec::new();
                for _ in 0..1 + next(6) {
                    v.extend_from_slice(b", \"key\":");
                    v.extend_from_slice(b"  \n"[..next(4)].as_ref());
                    v.extend_from_slice(VALUES[next(VALUES.len())]);
                }
                if next(2) == 0 {
                    let at = next(v.len());
                    v[at] = BYTES[next(BYTES.len())];
                }
                v
            };
            let len = input.len();
            if round % 7 == 0 {
                // Long keys and long runs, about the key limit and the window.
                let at = next(len + 1);
                let run = vec![b'a'; 250 + next(20)];
                input.splice(at..at, run.iter().copied());
                if round % 3 == 0 {
                    let key = [&b", \""[..], &run, b"\": 1"].concat();
                    input.splice(0..0, key);
                }
            }
            let stack: &[u8] = [&b""[..], b"{", b"[", b"{[", b"[{"][next(5)];
            let window = [1, 8, 64, 256, 1024][next(5)];
            let ctx = Ctx {
                terminators: &terminators,
                trailer: b"",
                classes: &Classes::new(&terminators),
                check: &keys,
                suspect: next(2) == 0,
                python: next(4) == 0,
            };
            let mut stepped = Lookahead::new(stack, window);
            let by_step = (input.iter().enumerate())
                .find_map(|(i, &b)| stepped.step(b, &ctx).map(|v| (i, v)));
            let mut skipped = Lookahead::new(stack, window);
            let mut by_skip = None;
            // In pieces, as chunks come.
            let mut i = 0;
            while i < input.len() && by_skip.is_none() {
                let piece = &input[i..(i + 1 + next(12)).min(input.len())];
                let (n, verdict) = skipped.read_run(piece, &ctx);
                by_skip = verdict.map(|v| (i + n - 1, v));
                i += n;
            }
            let case = format!("{:?} {stack:?} {window}", String::from_utf8_lossy(&input));
            assert_eq!(by_skip, by_step, "{case}");
            if by_step.is_none() {
                assert_eq!(skipped.seen, stepped.seen, "{case}");
                assert_eq!(skipped.st, stepped.st, "{case}");
                assert_eq!(skipped.key, stepped.key, "{case}");
                assert_eq!(skipped.blank_seen, stepped.blank_seen, "{case}");
                assert_eq!(skipped.stack, stepped.stack, "{case}");
                assert_eq!(skipped.ends, stepped.ends, "{case}");
                assert_eq!(skipped.last_end, stepped.last_end, "{case}");
                assert_eq!(skipped.closed, stepped.closed, "{case}");
            } else {
                decided += 1;
            }
        }
        // Both outcomes are represented.
        assert!((1_000..19_000).contains(&decided), "{decided}");
    }

    #[test]
    fn byte_classes_are_the_predicates() {
        let terminators = MarkerSet::new(&[b"</tool_call>", b"}]<", b"ab<", b" x"]);
        let classes = Classes::new(&terminators);
        for b in 0..=255u8 {
            let class = classes.0[b as usize];
            let term = class >= bulk::TERM;
            let base = class - if term { bulk::TERM } else { 0 };
            assert_eq!(base == bulk::BLANK, is_blank(b), "{b}");
            assert_eq!(base == bulk::SCALAR, is_scalar_byte(b), "{b}");
            assert_eq!(term, terminators.starts_with_byte(b) && !is_blank(b), "{b}");
        }
    }

    #[test]
    fn decides_like_the_rule_table() {
        use Verdict::*;
        let cases: &[(&[u8], &str, Verdict)] = &[
            (b"{", "}", Close),
            (b"{", ", \"b\": 1}", Close),
            (b"{", "alue\", \"key2\": \"value2\"}", Content),
            (b"{", " screen\"}", Content),
            (b"{", ", jackson\"}", Content),
            (b"[", ", \"b\"]", Close),
            (b"[", "]", Close),
            (b"{", "UTF-8\">", Content),
            (b"{", ":", Content),
            (b"{{", ", \"b\": {\"c\": [1, 2]}}, \"d\": 1}", Close),
            (b"{{", "}}", Close),
            // The trap: JSON-looking text inside the content of a hermes call.
            (b"{{", ", \"columns\": 3};\nconsole.log(cfg);\"}}", Content),
            (b"", "", Close),
            (b"", " ", Close),
            (b"", "x", Content),
            (b"{{", "}}}", Close),
            (b"[", " 2]", Close),
            (b"{", "\n  lastName: Smith", Close),
            (b"{", ",//note\n\"b\": 1}", Close),
            (b"", " screen", Content),
            (b"{", " world\"}", Content),
        ];
        for (stack, after, want) in cases {
            assert_eq!(decide(stack, after, &[], None), *want, "{after:?}");
        }
    }

    #[test]
    fn the_call_closer_is_a_legal_continuation() {
        assert_eq!(
            decide(b"{{", "</tool_call>", &[b"</tool_call>"], None),
            Verdict::Close
        );
        assert_eq!(
            decide(b"{{", "</tool_x>", &[b"</tool_call>"], None),
            Verdict::Content
        );
    }

    #[test]
    fn undeclared_keys_count_only_in_a_string_already_malformed() {
        // Valid JSON may carry a key the schema does not declare: never reinterpreted.
        let set = MarkerSet::new(&[]);
        let check = KeyCheck {
            depth: 1,
            keys: Some(vec!["path".to_string()].into()),
            in_order: true,
        };
        let ctx = Ctx {
            terminators: &set,
            trailer: b"",
            classes: &Classes::new(&set),
            check: &check,
            suspect: false,
            python: false,
        };
        let mut la = Lookahead::new(b"{", 256);
        let verdict = ", \"extra\": 1} ".bytes().find_map(|b| la.step(b, &ctx));
        assert_eq!(verdict, Some(Verdict::Close));
    }

    #[test]
    fn undeclared_keys_count_against_closing() {
        let keys = Some(&["path", "content"][..]);
        assert_eq!(
            decide(b"{", ", \"columns\": 3}", &[], keys),
            Verdict::Content
        );
        assert_eq!(
            decide(b"{", ", \"path\": \"a\"}", &[], keys),
            Verdict::Close
        );
    }

    /// After a Gemma delimiter inside a value, what follows is read in Gemma's syntax:
    /// bare keys and values between the delimiter, with no comments and nothing lenient
    /// about a bare key; a word, a comment or a stray closer makes the delimiter content.
    #[test]
    fn after_a_dialects_own_delimiter_its_syntax_is_read() {
        use Verdict::*;
        const Q: &[u8] = b"<|\"|>";
        let set = MarkerSet::new(&[b"<tool_call|>"]);
        let check = KeyCheck::default();
        let ctx = Ctx {
            terminators: &set,
            trailer: b"",
            classes: &Classes::new(&set),
            check: &check,
            suspect: false,
            python: false,
        };
        let cases: &[(&str, Verdict, bool)] = &[
            ("kage]\nname = 1", Content, false),
            ("\n// a comment", Content, false),
            ("#x", Content, false),
            ("}<tool_call|>", Close, true),
            (",content:<|\"|>a\nb<|\"|>}<tool_call|>", Close, true),
            (
                ",n:3,list:[<|\"|>x<|\"|>,1],o:{k:<|\"|>v<|\"|>}}<tool_call|>",
                Close,
                true,
            ),
            (",content:<|\"|>a<|\"|>b<|\"|>}", Close, false),
            (",content:<|\"x", Close, true),
            (", = 1", Content, false),
        ];
        // The next member's opening delimiter dropped: as firm as a close; deeper, weak.
        let bare = [
            (",content:<!DOCTYPE html>", true),
            (",content:line1\nline2, more", true),
            (",content:#!/bin/sh", true),
            (",o:{k:<!DOCTYPE", false),
            (",o:{k:word more", false),
            (", item: u32, dst: &mut B", false),
            ("\nerror: expected `x`", false),
        ];
        for (after, strong) in bare {
            let mut la = Lookahead::new(b"{", 256);
            la.alt = Q;
            let got = after.bytes().find_map(|b| la.step(b, &ctx));
            assert_eq!(got, Some(Close), "{after:?}");
            assert_eq!((la.strong(), la.lenient()), (strong, !strong), "{after:?}");
        }
        for &(after, verdict, strong) in cases {
            for stepped in [true, false] {
                let mut la = Lookahead::new(b"{", 256);
                la.alt = Q;
                let got = match stepped {
                    true => after.bytes().find_map(|b| la.step(b, &ctx)),
                    false => la.read_run(after.as_bytes(), &ctx).1,
                };
                assert_eq!(got.unwrap_or(Close), verdict, "{after:?}");
                assert_eq!(la.strong(), strong, "{after:?}: strong");
                assert!(verdict == Content || !la.lenient(), "{after:?}: lenient");
            }
        }
    }
}
