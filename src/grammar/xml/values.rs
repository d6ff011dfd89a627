//! A parameter's value: raw text streamed as a JSON string (or collected and typed),
//! a closing tag inside it held until what follows confirms it, CDATA sections, and a
//! value its tag says is JSON.

use super::input::unprefix;
use super::{past_blanks, Closing, Phase, Xml, CDATA_OPEN, MAX_BLANKS, MAX_CLOSE_TAIL};
use crate::calls::{Abort, Sink};
use crate::json::repairer::escape_byte;
use crate::repairs::Repair;
use crate::scan::{Found, MarkerSet};

impl Xml {
    /// Copy plain value text (no `<`, no newline) in bulk.
    pub(super) fn value_run(&mut self, input: &[u8]) -> usize {
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

    pub(super) fn emit_content(&mut self, b: u8) {
        if let Some(doubt) = &mut self.doubt {
            match b {
                b'<' => doubt.angle = true,
                b'>' => doubt.angle = false,
                _ => doubt.prose |= !doubt.angle && !super::is_blank(b),
            }
        }
        if self.skip {
            return;
        }
        if self.untyped && !self.shape.admits(b) {
            // It cannot be JSON (`from x import y`, `2024-01-01`): a string, streamed.
            self.untyped_is_string();
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

    pub(super) fn end_value(&mut self, sink: &mut Sink<'_>) -> Result<(), Abort> {
        // The held newline before the closing tag was framing.
        self.nl_held = false;
        // A closing tag read as content before: the value went on past it.
        self.doubt = None;
        self.closer_in_value = false;
        if !self.utf8.is_empty() {
            self.utf8.clear();
            self.out.extend_from_slice("\u{fffd}".as_bytes());
        }
        if self.skip {
            self.skip = false;
        } else if self.wrapper {
            self.wrapper = false;
            self.typed = false;
            self.end_wrapper(sink);
        } else if self.json_value && sink.param_is_plain_string(&self.key) {
            // The schema decides: JSON text where a plain string is declared is that text.
            let raw = String::from_utf8_lossy(&self.raw).into_owned();
            let json = match serde_json::from_str::<serde_json::Value>(raw.trim()) {
                Ok(serde_json::Value::String(_)) => raw.trim().to_owned(),
                Ok(_) => {
                    sink.repair(Repair::ScalarToString);
                    serde_json::Value::String(raw.trim().to_owned()).to_string()
                }
                Err(_) => serde_json::Value::String(raw).to_string(),
            };
            self.out.extend_from_slice(json.as_bytes());
            self.typed = false;
        } else if self.json_value && !sink.param_is_typed(&self.key) {
            let raw = String::from_utf8_lossy(&self.raw).into_owned();
            self.out
                .extend_from_slice(json_of_raw(&raw, sink).as_bytes());
            self.typed = false;
        } else if self.untyped {
            self.untyped = false;
            self.typed = false;
            let raw = String::from_utf8_lossy(&self.raw).into_owned();
            self.out.extend_from_slice(untyped_json(&raw).as_bytes());
        } else if self.typed {
            let raw = String::from_utf8_lossy(&self.raw).into_owned();
            let (json, mut repairs) = sink.type_value(&self.key, &raw);
            // Typing raw text by the schema is this grammar's own conversion; only
            // Python spellings and coercions are repairs.
            let python = self.spec.python_values;
            repairs = repairs
                .iter()
                .filter(|r| *r != Repair::TypedValue && !(python && *r == Repair::PythonValue))
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

    pub(super) fn value_byte(&mut self, b: u8, sink: &mut Sink<'_>) -> Result<(), Abort> {
        if self.tag.is_empty() {
            match b {
                b'<' => {
                    self.tag.push(b);
                    return Ok(());
                }
                b'\n' if self.spec.framed => {
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
        // The tag as the grammar reads it: without the spec's tag prefix (the bytes
        // held stay as written, for a tag that turns out to be content).
        let Some(tag) = unprefix(self.spec.tag_prefix, &self.tag) else {
            return Ok(());
        };
        if self.doubt.as_ref().is_some_and(|d| d.closer && !d.again) {
            // The call's closer read as content, then the next call's opener: the call
            // ended at that closer (its value and function closers dropped).
            let name_open = self.spec.name_open;
            // (Also the name tag without its prefix: `<steptml:invoke name=`.)
            let tail = match name_open.iter().rposition(|&c| c == b'<') {
                Some(lt) => &name_open[lt..],
                None => name_open,
            };
            let opens = [name_open, tail, self.form.opener];
            // (The tag as written too: an opener holds the tag prefix, `<｜DSML｜invoke`.)
            let written: &[u8] = &self.tag;
            let begins = opens
                .iter()
                .any(|o| !o.is_empty() && (tag.starts_with(o) || written.starts_with(o)));
            let may_begin = opens.iter().any(|o| {
                (o.len() > tag.len() && o.starts_with(&tag))
                    || (o.len() > written.len() && o.starts_with(written))
            });
            if begins {
                if self.doubt.as_ref().is_some_and(|d| !d.prose) {
                    self.end_at_doubted_closer(sink)?;
                    return Ok(());
                }
                // Text between them: a value holding a call's closer, text and an
                // opener (a file about tool calls) reads the same as a call whose
                // value's and function's closers were dropped, then text and the next
                // call. Which cannot be told: not released, and the rest is content.
                if let Some(doubt) = &mut self.doubt {
                    doubt.again = true;
                }
                sink.invalid(crate::call::extent::CLOSER_THEN_TEXT_AND_A_CALL);
            }
            if may_begin {
                return Ok(());
            }
        }
        // A misspelled value closer: `</parameter` + up to `>`.
        let vc = self.spec.value_close;
        if tag.len() > vc.len() && tag.starts_with(vc) {
            if b == b'>' {
                // Misspelled (`</parameterx>`): a repair once what follows confirms it.
                self.start_confirm(Closing::Value);
            } else if tag.len() > vc.len() + MAX_CLOSE_TAIL || b == b'<' || b == b'\n' {
                self.tag_is_content();
            }
            return Ok(());
        }
        match self.in_value_markers.match_at(&tag, 0) {
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
                } else if m == CDATA_OPEN {
                    self.tag.clear();
                    if self.untyped {
                        // Text by its wrapper's own word.
                        self.untyped_is_string();
                    }
                    if self.nl_held {
                        self.nl_held = false;
                        self.emit_content(b'\n');
                    }
                    self.phase = Phase::CData(0);
                } else if m == self.spec.func_close {
                    self.start_confirm(Closing::Function);
                } else {
                    // The call's closer inside a value: the parameter and function were
                    // left open, or the value holds the dialect's markup (a file about
                    // tool calls). What follows tells (`closer_as_content`).
                    self.closer_as_content();
                }
            }
            // The section's closer, as written (the tag prefix kept): as the call's.
            Found::None => {
                let form = self.form;
                let found = self
                    .section_closers
                    .get_or_insert_with(|| {
                        MarkerSet::new(&crate::call::extent::section_closers(form))
                    })
                    .match_at(&self.tag, 0);
                match found {
                    Found::Full { .. } => self.closer_as_content(),
                    Found::Partial { .. } => {}
                    Found::None => self.tag_is_content(),
                }
            }
        }
        Ok(())
    }

    /// An untyped value turned out not to be JSON: it streams as a string from here,
    /// the blanks collected before it first.
    fn untyped_is_string(&mut self) {
        self.untyped = false;
        self.typed = false;
        self.out.push(b'"');
        // Through the string path, which checks what is not ASCII.
        let raw = std::mem::take(&mut self.raw);
        for &c in &raw {
            self.emit_content(c);
        }
        self.raw = raw;
        self.raw.clear();
    }

    /// One byte of a CDATA section: content, up to `]]>`.
    pub(super) fn cdata_byte(&mut self, b: u8, held: u8) {
        match (b, held) {
            (b']', 0 | 1) => self.phase = Phase::CData(held + 1),
            (b']', _) => self.emit_content(b']'),
            (b'>', 2) => self.phase = Phase::Value,
            _ => {
                for _ in 0..held {
                    self.emit_content(b']');
                }
                self.emit_content(b);
                self.phase = Phase::CData(0);
            }
        }
    }

    /// A value closed by another tag than its own (the function's closer, the call's,
    /// a misspelled one) after holding its own closing tag
    /// (`C</parameter>\n<city>Paris</city></function>`): the held closer may have been
    /// the real end and what followed a parameter written another way, so where the
    /// value ends cannot be told, and the call is not released.
    fn closed_past_own_closer(&mut self, sink: &mut Sink<'_>) {
        if self.closer_in_value {
            sink.invalid(
                "a parameter's value holds its own closing tag and was closed by another; \
                 where it ends cannot be told: write each parameter in the format's own tags",
            );
        }
    }

    /// The bytes in `tag` were not a tag: the `<` is content, the rest is read again.
    pub(super) fn tag_is_content(&mut self) {
        let bytes = std::mem::take(&mut self.tag);
        if self.nl_held {
            self.nl_held = false;
            self.emit_content(b'\n');
        }
        self.emit_content(bytes[0]);
        self.requeue(&bytes[1..]);
    }

    pub(super) fn start_confirm(&mut self, closing: Closing) {
        self.tail = std::mem::take(&mut self.tag);
        self.tag_len = self.tail.len();
        self.phase = Phase::Confirm(closing);
    }

    pub(super) fn confirm(
        &mut self,
        b: u8,
        closing: Closing,
        sink: &mut Sink<'_>,
    ) -> Result<(), Abort> {
        self.tail.push(b);
        let after = &self.tail[self.tag_len..];
        let Some(start) = past_blanks(after) else {
            if after.len() > MAX_BLANKS {
                self.reject_confirm();
            }
            return Ok(());
        };
        let Some(next) = unprefix(self.spec.tag_prefix, &after[start..]) else {
            return Ok(());
        };
        let set = match closing {
            Closing::Value => &self.confirm_value,
            Closing::Function => &self.confirm_function,
        };
        match set.match_at(&next, 0) {
            Found::Partial { .. } => Ok(()),
            Found::Full { .. } => self.accept_confirm(closing, sink),
            Found::None => {
                self.reject_confirm();
                Ok(())
            }
        }
    }

    pub(super) fn accept_confirm(
        &mut self,
        closing: Closing,
        sink: &mut Sink<'_>,
    ) -> Result<(), Abort> {
        let tail = std::mem::take(&mut self.tail);
        if closing == Closing::Function {
            // The function closed with its last parameter left open.
            sink.repair(Repair::MismatchedTag);
        }
        let vc = self.spec.value_close;
        let closer = unprefix(self.spec.tag_prefix, &tail[..self.tag_len]).unwrap_or_default();
        let exact = closing == Closing::Value
            && closer.len() == vc.len() + 1
            && closer.starts_with(vc)
            && closer.ends_with(b">");
        if !exact {
            if closing == Closing::Value {
                sink.repair(Repair::MismatchedTag);
            }
            self.closed_past_own_closer(sink);
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

    /// The call's closer inside a value, held as content while what follows tells: the
    /// value's own closer confirmed further on (the markup was the value's), or more of
    /// the dialect's markup as content (the same); the next call's opener or the end of
    /// the stream with only text after it: the call ended at the closer, its parameter
    /// and function left open, and the text is the model's (`end_at_doubted_closer`).
    fn closer_as_content(&mut self) {
        let tag = std::mem::take(&mut self.tag);
        self.closer_in_value = true;
        match &mut self.doubt {
            Some(doubt) => doubt.again = true,
            None => {
                let mut text = self.replay[self.rpos..].to_vec();
                text.extend_from_slice(&self.pf);
                text.extend_from_slice(&self.af);
                self.doubt = Some(super::Doubt {
                    out: self.out.len(),
                    raw: self.raw.len(),
                    text,
                    again: false,
                    closer: true,
                    prose: false,
                    angle: false,
                });
            }
        }
        if self.nl_held {
            self.nl_held = false;
            self.emit_content(b'\n');
        }
        self.emit_content(tag[0]);
        self.requeue(&tag[1..]);
    }

    /// The value held the call's closer as content, then the next call's opener or the
    /// end of the stream came with only text after it: the call ended at the closer
    /// (its parameter and function left open) and the text after it is read again
    /// after the call. False when the closer was not the doubted tag.
    pub(super) fn end_at_doubted_closer(&mut self, sink: &mut Sink<'_>) -> Result<bool, Abort> {
        match &self.doubt {
            Some(doubt) if doubt.closer && !doubt.again && !self.skip && !self.esc => {}
            _ => return Ok(false),
        }
        let doubt = self.doubt.take().expect("checked");
        self.out.truncate(doubt.out);
        self.raw.truncate(doubt.raw);
        self.utf8.clear();
        self.tag.clear();
        self.nl_held = false;
        self.closer_in_value = false;
        sink.repair(Repair::MissingCloser);
        self.end_value(sink)?;
        self.close_object();
        self.phase = Phase::Done;
        self.ended = Some(true);
        self.replay = doubt.text;
        self.rpos = 0;
        Ok(true)
    }

    pub(super) fn reject_confirm(&mut self) {
        let tail = std::mem::take(&mut self.tail);
        // With no closer of the call's own, the function's closing tag ends the call:
        // inside a value, the same doubt as a call's closer there.
        let ends_call =
            self.phase == Phase::Confirm(Closing::Function) && self.form.closer.is_empty();
        if self.phase == Phase::Confirm(Closing::Value) || ends_call {
            self.closer_in_value = true;
            match &mut self.doubt {
                Some(doubt) => doubt.again = true,
                None => {
                    // The input not yet read past the tag: what follows it, held.
                    let mut text = tail[self.tag_len..].to_vec();
                    text.extend_from_slice(&self.replay[self.rpos..]);
                    text.extend_from_slice(&self.pf);
                    text.extend_from_slice(&self.af);
                    self.doubt = Some(super::Doubt {
                        out: self.out.len(),
                        raw: self.raw.len(),
                        text,
                        again: false,
                        closer: ends_call,
                        prose: false,
                        angle: false,
                    });
                }
            }
        }
        self.phase = Phase::Value;
        if self.nl_held {
            self.nl_held = false;
            self.emit_content(b'\n');
        }
        self.emit_content(tail[0]);
        self.requeue(&tail[1..]);
    }
}

/// A value its tag says is JSON: kept when strict, repaired when it can be, a string
/// otherwise.
pub(super) fn json_of_raw(raw: &str, sink: &mut Sink<'_>) -> String {
    let text = raw.trim();
    if serde_json::from_str::<serde_json::Value>(text).is_ok() {
        return text.to_owned();
    }
    match crate::repair(text.as_bytes()) {
        Ok(fixed) => {
            let mut repairs = fixed.repairs;
            if !fixed.json.starts_with(['{', '[']) {
                // A scalar has no containers to close.
                repairs = repairs
                    .iter()
                    .filter(|r| *r != Repair::MissingClosers)
                    .collect();
            }
            sink.repairs(repairs);
            fixed.json
        }
        Err(_) => {
            sink.repair(Repair::UnquotedString);
            serde_json::Value::String(raw.to_owned()).to_string()
        }
    }
}

/// What an untyped value held so far may still be, as JSON other than a string: read a
/// byte at a time, so a value that cannot be (`from x import y`) streams as a string
/// from the byte that shows it. An object or array is held to its closing tag.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// Only blanks so far.
    Blank,
    /// `{` or `[`.
    Container,
    /// A number; `ended` once blanks followed it.
    Number { ended: bool },
    /// `true`, `false` or `null`, `at` bytes of it read.
    Literal { word: &'static [u8], at: u8 },
}

impl Shape {
    /// Whether the value may still be JSON after `b`; updates the shape.
    fn admits(&mut self, b: u8) -> bool {
        let blank = super::is_blank(b);
        match *self {
            Shape::Blank => {
                *self = match b {
                    _ if blank => Shape::Blank,
                    b'{' | b'[' => Shape::Container,
                    b'-' | b'0'..=b'9' => Shape::Number { ended: false },
                    b't' => Shape::Literal {
                        word: b"true",
                        at: 1,
                    },
                    b'f' => Shape::Literal {
                        word: b"false",
                        at: 1,
                    },
                    b'n' => Shape::Literal {
                        word: b"null",
                        at: 1,
                    },
                    _ => return false,
                };
                true
            }
            Shape::Container => true,
            Shape::Number { ended } => {
                if blank {
                    *self = Shape::Number { ended: true };
                    true
                } else {
                    !ended && matches!(b, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                }
            }
            Shape::Literal { word, at } => match word.get(at as usize) {
                Some(&c) if c == b => {
                    *self = Shape::Literal { word, at: at + 1 };
                    true
                }
                Some(_) => false,
                None => blank,
            },
        }
    }
}

/// An untyped value: the JSON it is, as written, when it parses strictly as anything but
/// a string (blanks around it trimmed); else the text as a string.
fn untyped_json(raw: &str) -> String {
    let text = raw.trim();
    let json = serde_json::from_str::<&serde_json::value::RawValue>(text).is_ok();
    if json && !text.starts_with('"') {
        text.to_owned()
    } else {
        serde_json::Value::String(raw.to_owned()).to_string()
    }
}
