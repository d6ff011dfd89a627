//! XML-style parameters: `<function=NAME><parameter=KEY>value</parameter></function>`.
//!
//! Values are raw text. A value ends at its closing tag only when what follows the tag
//! confirms it (another parameter, the function's or the call's closer, the end of the
//! stream): values may contain `</parameter>` themselves. The closing tag and the
//! blanks after it are held until that is decided, a bounded amount. One framing
//! newline is removed on each side of a value; all other whitespace is payload. Values
//! stream as JSON strings as they arrive, or, when the tool's schema declares a
//! non-string type, are collected and typed when they close.

use super::Step;
use crate::calls::{Abort, Sink};
use crate::dialect::XmlSpec;
use crate::json::repairer::escape_byte;
use crate::repairs::Repair;
use crate::scan::{Found, MarkerSet};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    /// Expecting the name's opening tag.
    NameOpen,
    Name,
    Between,
    Key,
    ValueStart,
    Value,
    /// A closing tag inside a value; `tail` holds it while what follows decides.
    Confirm(Closing),
    /// Dropping a stray closing tag up to its `>`; the count bounds it.
    SkipTag(usize),
    Done,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Closing {
    Value,
    Function,
}

/// Longest misspelled value closer accepted (`</parameter_function>`).
const MAX_CLOSE_TAIL: usize = 24;
/// Most blanks between a closing tag and what confirms it.
const MAX_BLANKS: usize = 256;

pub(crate) struct Xml {
    spec: &'static XmlSpec,
    closer: &'static [u8],
    phase: Phase,
    buf: Vec<u8>,
    tail: Vec<u8>,
    tag_len: usize,
    /// Bytes of a possible tag inside a value or between parameters.
    tag: Vec<u8>,
    nl_held: bool,
    first_param: bool,
    typed: bool,
    skip: bool,
    raw: Vec<u8>,
    key: String,
    keys: Vec<String>,
    replay: Vec<u8>,
    rpos: usize,
    out: Vec<u8>,
    utf8: Vec<u8>,
    in_value_markers: MarkerSet,
    between_markers: MarkerSet,
    confirm_value: MarkerSet,
    confirm_function: MarkerSet,
    ended: Option<bool>,
    /// Bytes examined since the last [`take_work`](Self::take_work).
    work: u64,
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl Xml {
    pub(crate) fn new(spec: &'static XmlSpec, closer: &'static [u8]) -> Xml {
        let mut in_value = vec![spec.value_close, spec.key_open, spec.func_close];
        let mut between = vec![spec.key_open, spec.func_close];
        let mut confirm_value = vec![spec.key_open, spec.func_close];
        let mut confirm_function: Vec<&'static [u8]> = vec![];
        if !closer.is_empty() {
            in_value.push(closer);
            between.push(closer);
            confirm_value.push(closer);
            confirm_function.push(closer);
        }
        if !spec.name_open.is_empty() {
            confirm_function.push(spec.name_open);
        }
        confirm_function.push(b"<tool_call>");
        Xml {
            spec,
            closer,
            phase: if spec.nameless {
                Phase::Key
            } else if spec.name_open.is_empty() {
                Phase::Name
            } else {
                Phase::NameOpen
            },
            buf: Vec::new(),
            tail: Vec::new(),
            tag_len: 0,
            tag: Vec::new(),
            nl_held: false,
            first_param: true,
            typed: false,
            skip: false,
            raw: Vec::new(),
            key: String::new(),
            keys: Vec::new(),
            replay: Vec::new(),
            rpos: 0,
            out: if spec.nameless {
                b"{".to_vec()
            } else {
                Vec::new()
            },
            utf8: Vec::new(),
            in_value_markers: MarkerSet::new(&in_value),
            between_markers: MarkerSet::new(&between),
            confirm_value: MarkerSet::new(&confirm_value),
            confirm_function: MarkerSet::new(&confirm_function),
            ended: None,
            work: 0,
        }
    }

    /// Bytes examined since the last call (for [`Stats::work`](crate::Stats::work)).
    pub(crate) fn take_work(&mut self) -> u64 {
        std::mem::take(&mut self.work)
    }

    pub(crate) fn take_leftover(&mut self) -> Vec<u8> {
        let rest = self.replay.split_off(self.rpos);
        self.replay.clear();
        self.rpos = 0;
        rest
    }

    fn requeue(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let mut next = Vec::with_capacity(bytes.len() + self.replay.len() - self.rpos);
        next.extend_from_slice(bytes);
        next.extend_from_slice(&self.replay[self.rpos..]);
        self.replay = next;
        self.rpos = 0;
    }

    pub(crate) fn feed(&mut self, input: &[u8], sink: &mut Sink<'_>) -> Step {
        let mut i = 0;
        loop {
            if let Some(closer_seen) = self.ended.take() {
                if let Err(why) = self.flush(sink) {
                    return Step::Abort { why, consumed: i };
                }
                return Step::Ended {
                    consumed: i,
                    closer_seen,
                };
            }
            let b = if self.rpos < self.replay.len() {
                let b = self.replay[self.rpos];
                self.rpos += 1;
                if self.rpos == self.replay.len() {
                    self.replay.clear();
                    self.rpos = 0;
                }
                b
            } else if i < input.len() {
                if self.phase == Phase::Value
                    && self.tag.is_empty()
                    && !self.typed
                    && self.utf8.is_empty()
                {
                    let n = self.value_run(&input[i..]);
                    if n > 0 {
                        i += n;
                        continue;
                    }
                }
                i += 1;
                input[i - 1]
            } else {
                break;
            };
            if let Err(why) = self.step(b, sink) {
                let _ = self.flush(sink);
                return Step::Abort { why, consumed: i };
            }
        }
        match self.flush(sink) {
            Ok(()) => Step::NeedMore,
            Err(why) => Step::Abort { why, consumed: i },
        }
    }

    fn flush(&mut self, sink: &mut Sink<'_>) -> Result<(), Abort> {
        if self.out.is_empty() {
            return Ok(());
        }
        let out = std::mem::take(&mut self.out);
        let r = sink.args(&out);
        self.out = out;
        self.out.clear();
        r
    }

    /// Copy plain value text (no `<`, no newline) in bulk.
    fn value_run(&mut self, input: &[u8]) -> usize {
        let n = input
            .iter()
            .position(|&b| b == b'<' || b == b'\n' || b >= 0x80)
            .unwrap_or(input.len());
        self.work += n as u64;
        if n == 0 {
            return 0;
        }
        if self.nl_held {
            self.nl_held = false;
            self.emit_content(b'\n');
        }
        if self.skip {
            return n;
        }
        for &b in &input[..n] {
            escape_byte(b, &mut self.out);
        }
        n
    }

    fn emit_content(&mut self, b: u8) {
        if self.skip {
            return;
        }
        if self.typed {
            self.raw.push(b);
            return;
        }
        if b >= 0x80 || !self.utf8.is_empty() {
            self.utf8.push(b);
            let need = match self.utf8[0] {
                0xc2..=0xdf => 2,
                0xe0..=0xef => 3,
                0xf0..=0xf4 => 4,
                _ => 1,
            };
            if self.utf8.len() < need
                && (b >= 0x80 && self.utf8.len() == 1 || (0x80..=0xbf).contains(&b))
            {
                return;
            }
            match std::str::from_utf8(&self.utf8) {
                Ok(_) => self.out.extend_from_slice(&self.utf8),
                Err(_) => self.out.extend_from_slice("\u{fffd}".as_bytes()),
            }
            self.utf8.clear();
            return;
        }
        escape_byte(b, &mut self.out);
    }

    fn step(&mut self, b: u8, sink: &mut Sink<'_>) -> Result<(), Abort> {
        self.work += 1;
        match self.phase {
            Phase::NameOpen => {
                if self.tag.is_empty() && is_blank(b) {
                    return Ok(());
                }
                self.tag.push(b);
                if self.spec.name_open.starts_with(&self.tag) {
                    if self.tag.len() == self.spec.name_open.len() {
                        self.tag.clear();
                        self.phase = Phase::Name;
                    }
                } else {
                    // No function tag: read the name from here.
                    sink.repair(Repair::MismatchedTag);
                    let bytes = std::mem::take(&mut self.tag);
                    self.phase = Phase::Name;
                    self.requeue(&bytes);
                }
            }
            Phase::Name => {
                let close = self.spec.name_close;
                if b == b'\n' || b == b'<' {
                    if self.buf.iter().all(|c| is_blank(*c)) {
                        self.buf.clear();
                        if b == b'\n' {
                            return Ok(());
                        }
                    }
                    // The name's closing `>` was dropped.
                    sink.repair(Repair::MismatchedTag);
                    self.end_name(sink)?;
                    if b == b'<' {
                        self.requeue(&[b]);
                    }
                    return Ok(());
                }
                self.buf.push(b);
                if self.buf.ends_with(close) {
                    let n = self.buf.len() - close.len();
                    self.buf.truncate(n);
                    self.end_name(sink)?;
                } else if self.buf.len() > sink.config.limits.max_name_bytes {
                    return Err(Abort::TooLarge);
                }
            }
            Phase::Between => self.between(b, sink)?,
            Phase::Key => {
                let close = self.spec.key_close;
                if b == b'\n' && !self.buf.is_empty() {
                    sink.repair(Repair::MismatchedTag);
                    self.end_key(sink)?;
                    self.phase = Phase::Value;
                    return Ok(());
                }
                self.buf.push(b);
                if self.buf.ends_with(close) {
                    let n = self.buf.len() - close.len();
                    self.buf.truncate(n);
                    self.end_key(sink)?;
                } else if self.buf.len() > sink.config.limits.max_name_bytes {
                    return Err(Abort::TooLarge);
                }
            }
            Phase::ValueStart => {
                self.phase = Phase::Value;
                if b != b'\n' {
                    self.value_byte(b, sink)?;
                }
            }
            Phase::Value => self.value_byte(b, sink)?,
            Phase::Confirm(closing) => self.confirm(b, closing, sink)?,
            Phase::SkipTag(n) => {
                if b == b'>' || n > MAX_CLOSE_TAIL {
                    self.phase = Phase::Between;
                } else {
                    self.phase = Phase::SkipTag(n + 1);
                }
            }
            Phase::Done => self.requeue(&[b]),
        }
        Ok(())
    }

    fn end_name(&mut self, sink: &mut Sink<'_>) -> Result<(), Abort> {
        let raw = String::from_utf8_lossy(&self.buf).into_owned();
        let name = raw.trim().trim_matches('"');
        self.buf.clear();
        sink.name(name);
        self.out.push(b'{');
        self.phase = Phase::Between;
        Ok(())
    }

    fn end_key(&mut self, sink: &mut Sink<'_>) -> Result<(), Abort> {
        let raw = String::from_utf8_lossy(&self.buf).into_owned();
        self.buf.clear();
        let key = raw.trim().trim_matches('"').to_owned();
        self.phase = Phase::ValueStart;
        self.skip = self.keys.contains(&key);
        if self.skip {
            sink.repair(Repair::DuplicateKey);
            return Ok(());
        }
        self.typed = sink.param_is_typed(&key);
        if !self.first_param {
            self.out.extend_from_slice(b", ");
        }
        self.first_param = false;
        self.out.push(b'"');
        for &c in key.as_bytes() {
            escape_byte(c, &mut self.out);
        }
        self.out.extend_from_slice(b"\": ");
        if !self.typed {
            self.out.push(b'"');
        }
        self.raw.clear();
        self.keys.push(key.clone());
        self.key = key;
        Ok(())
    }

    fn end_value(&mut self, sink: &mut Sink<'_>) -> Result<(), Abort> {
        // The held newline before the closing tag was framing.
        self.nl_held = false;
        if !self.utf8.is_empty() {
            self.utf8.clear();
            self.out.extend_from_slice("\u{fffd}".as_bytes());
        }
        if self.skip {
            self.skip = false;
        } else if self.typed {
            let raw = String::from_utf8_lossy(&self.raw).into_owned();
            let (json, mut repairs) = sink.type_value(&self.key, &raw);
            // Typing raw text by the schema is this grammar's own conversion; only
            // Python spellings and coercions are repairs.
            repairs = repairs
                .iter()
                .filter(|r| *r != Repair::TypedValue)
                .collect();
            sink.repairs(repairs);
            self.out.extend_from_slice(json.as_bytes());
            self.typed = false;
        } else {
            self.out.push(b'"');
        }
        self.phase = Phase::Between;
        Ok(())
    }

    fn between(&mut self, b: u8, sink: &mut Sink<'_>) -> Result<(), Abort> {
        if self.tag.is_empty() && is_blank(b) {
            return Ok(());
        }
        self.tag.push(b);
        match self.between_markers.match_at(&self.tag, 0) {
            Found::Partial { .. } => Ok(()),
            Found::Full { id, .. } => {
                let m = self.between_markers.get(id);
                self.tag.clear();
                if m == self.spec.key_open {
                    self.phase = Phase::Key;
                } else if m == self.spec.func_close {
                    self.out.push(b'}');
                    self.phase = Phase::Done;
                    self.ended = Some(false);
                } else {
                    // The call's closer with the function left open.
                    sink.repair(Repair::MissingCloser);
                    self.out.push(b'}');
                    self.phase = Phase::Done;
                    self.ended = Some(true);
                }
                Ok(())
            }
            Found::None => {
                let bytes = std::mem::take(&mut self.tag);
                if bytes.starts_with(self.spec.value_close) || bytes.starts_with(b"</") {
                    // An orphan or misspelled closing tag between parameters.
                    sink.repair(Repair::MismatchedTag);
                    self.skip_tag(bytes);
                    return Ok(());
                }
                if !self.spec.name_open.is_empty()
                    && self
                        .spec
                        .name_open
                        .starts_with(&bytes[..bytes.len().min(self.spec.name_open.len())])
                    && bytes.len() >= self.spec.name_open.len()
                {
                    // A new function while this one is open: end this call here.
                    sink.repair(Repair::MissingCloser);
                    self.out.push(b'}');
                    self.phase = Phase::Done;
                    self.ended = Some(false);
                    self.requeue(&bytes);
                    return Ok(());
                }
                sink.repair(Repair::StrayText);
                self.requeue(&bytes[1..]);
                Ok(())
            }
        }
    }

    /// Drop a stray closing tag up to its `>` (bounded).
    fn skip_tag(&mut self, bytes: Vec<u8>) {
        match bytes.iter().position(|&c| c == b'>') {
            Some(gt) => self.requeue(&bytes[gt + 1..]),
            None => self.phase = Phase::SkipTag(bytes.len()),
        }
    }

    fn value_byte(&mut self, b: u8, sink: &mut Sink<'_>) -> Result<(), Abort> {
        if self.tag.is_empty() {
            match b {
                b'<' => {
                    self.tag.push(b);
                    return Ok(());
                }
                b'\n' => {
                    if self.nl_held {
                        self.emit_content(b'\n');
                    }
                    self.nl_held = true;
                    return Ok(());
                }
                _ => {
                    if self.nl_held {
                        self.nl_held = false;
                        self.emit_content(b'\n');
                    }
                    self.emit_content(b);
                    return Ok(());
                }
            }
        }
        self.tag.push(b);
        // A misspelled value closer: `</parameter` + up to `>`.
        let vc = self.spec.value_close;
        if self.tag.len() > vc.len() && self.tag.starts_with(vc) {
            if b == b'>' {
                if self.tag.len() != vc.len() + 1 {
                    sink.repair(Repair::MismatchedTag);
                }
                self.start_confirm(Closing::Value);
            } else if self.tag.len() > vc.len() + MAX_CLOSE_TAIL || b == b'<' || b == b'\n' {
                self.tag_is_content();
            }
            return Ok(());
        }
        match self.in_value_markers.match_at(&self.tag, 0) {
            Found::Partial { .. } => {}
            Found::Full { id, .. } => {
                let m = self.in_value_markers.get(id);
                if m == vc {
                    // Keep reading to the `>` (handled above).
                } else if m == self.spec.key_open {
                    if self.nl_held {
                        // A new parameter at line start: the closer was dropped.
                        sink.repair(Repair::MismatchedTag);
                        self.tag.clear();
                        self.end_value(sink)?;
                        self.phase = Phase::Key;
                    } else {
                        self.tag_is_content();
                    }
                } else if m == self.spec.func_close {
                    self.start_confirm(Closing::Function);
                } else {
                    // The call's closer inside a value: parameter and function left open.
                    sink.repair(Repair::MissingCloser);
                    self.tag.clear();
                    self.end_value(sink)?;
                    self.out.push(b'}');
                    self.phase = Phase::Done;
                    self.ended = Some(true);
                }
            }
            Found::None => self.tag_is_content(),
        }
        Ok(())
    }

    /// The bytes in `tag` were not a tag: the `<` is content, the rest is read again.
    fn tag_is_content(&mut self) {
        let bytes = std::mem::take(&mut self.tag);
        if self.nl_held {
            self.nl_held = false;
            self.emit_content(b'\n');
        }
        self.emit_content(bytes[0]);
        self.requeue(&bytes[1..]);
    }

    fn start_confirm(&mut self, closing: Closing) {
        self.tail = std::mem::take(&mut self.tag);
        self.tag_len = self.tail.len();
        self.phase = Phase::Confirm(closing);
    }

    fn confirm(&mut self, b: u8, closing: Closing, sink: &mut Sink<'_>) -> Result<(), Abort> {
        self.tail.push(b);
        let after = &self.tail[self.tag_len..];
        let start = after.iter().position(|c| !is_blank(*c));
        let Some(start) = start else {
            if after.len() > MAX_BLANKS {
                self.reject_confirm();
            }
            return Ok(());
        };
        let set = match closing {
            Closing::Value => &self.confirm_value,
            Closing::Function => &self.confirm_function,
        };
        match set.match_at(after, start) {
            Found::Partial { .. } => Ok(()),
            Found::Full { .. } => self.accept_confirm(closing, sink),
            Found::None => {
                self.reject_confirm();
                Ok(())
            }
        }
    }

    fn accept_confirm(&mut self, closing: Closing, sink: &mut Sink<'_>) -> Result<(), Abort> {
        let tail = std::mem::take(&mut self.tail);
        if closing == Closing::Function {
            // The function closed with its last parameter left open.
            sink.repair(Repair::MismatchedTag);
        }
        self.end_value(sink)?;
        if closing == Closing::Function {
            self.out.push(b'}');
            self.phase = Phase::Done;
            self.ended = Some(false);
        }
        self.requeue(&tail[self.tag_len..]);
        Ok(())
    }

    fn reject_confirm(&mut self) {
        let tail = std::mem::take(&mut self.tail);
        self.phase = Phase::Value;
        if self.nl_held {
            self.nl_held = false;
            self.emit_content(b'\n');
        }
        self.emit_content(tail[0]);
        self.requeue(&tail[1..]);
    }

    /// At the end of the stream: whether the call completed.
    pub(crate) fn finish(&mut self, sink: &mut Sink<'_>) -> bool {
        if let Phase::Confirm(closing) = self.phase {
            // The stream ended right after a closing tag: it was one.
            let _ = self.accept_confirm(closing, sink);
            let _ = self.feed(&[], sink);
        }
        let _ = self.flush(sink);
        self.phase == Phase::Done
    }
}
