//! Schema-guided repair of streamed arguments, one top-level member at a time.
//!
//! Deltas only grow, so a value can be reshaped only before it is sent. A member whose
//! value is a string declared as a string streams through untouched (the schema is the
//! prior: it is never reshaped). Any other member is held until its value is complete,
//! conformed to its schema (`"5"` → `5`, `"a.txt"` → `["a.txt"]`, a non-nullable `null`
//! dropped, ...) and sent in its place. At the end, top-level parameters the whole-call
//! conformance adds (a hoisted parameter) are appended before the closing `}`; the
//! container items it came from were already sent and keep their copy.
//! Arguments that are not an object are held whole and conformed at the end (a bare
//! value wrapped into the tool's one parameter, command-line text mapped).

use crate::ordered::{Map, Value};
use crate::repairs::{Repair, Repairs};
use crate::schema::{ParamType, Tool};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    /// Before the first byte of the value.
    Start,
    /// The arguments are not an object: everything is held.
    Whole,
    /// In the object, between members (or in a key).
    Members,
    /// The member's value started; `hold` says whether it is held.
    Value { hold: bool },
    /// The object closed; its `}` and what follows are held.
    Closed,
}

/// The conformer of one call.
#[derive(Clone, Debug)]
pub(crate) struct Conformer {
    phase: Phase,
    depth: u32,
    in_str: bool,
    esc: bool,
    /// The current member's raw text (from its separator), while undecided or held.
    member: Vec<u8>,
    /// Offset of the value in `member`.
    value_at: usize,
    key: Vec<u8>,
    key_done: bool,
    reading_key: bool,
    emitted: usize,
    held: Vec<u8>,
    /// Everything sent, for the final whole-call check.
    sent: Vec<u8>,
    pub repairs: Repairs,
}

impl Conformer {
    pub(crate) fn new() -> Conformer {
        Conformer {
            phase: Phase::Start,
            depth: 0,
            in_str: false,
            esc: false,
            member: Vec::new(),
            value_at: 0,
            key: Vec::new(),
            key_done: false,
            reading_key: false,
            emitted: 0,
            held: Vec::new(),
            sent: Vec::new(),
            repairs: Repairs::NONE,
        }
    }

    fn send(&mut self, bytes: &[u8], out: &mut Vec<u8>) {
        out.extend_from_slice(bytes);
        self.sent.extend_from_slice(bytes);
    }

    /// Take decided argument bytes; append what can be sent to `out`.
    pub(crate) fn push(&mut self, tool: &Tool, bytes: &[u8], out: &mut Vec<u8>) {
        let mut run_start = 0;
        for (i, &b) in bytes.iter().enumerate() {
            match self.phase {
                Phase::Start => {
                    if b.is_ascii_whitespace() {
                        continue;
                    }
                    if b == b'{' {
                        self.send(&bytes[run_start..=i], out);
                        run_start = i + 1;
                        self.phase = Phase::Members;
                        self.depth = 1;
                        self.member.clear();
                        self.key.clear();
                        self.key_done = false;
                    } else {
                        self.phase = Phase::Whole;
                        self.held.extend_from_slice(&bytes[run_start..]);
                        return;
                    }
                }
                Phase::Whole | Phase::Closed => {
                    self.held.extend_from_slice(&bytes[i..]);
                    return;
                }
                Phase::Members => {
                    self.member.push(b);
                    if self.reading_key {
                        if self.esc {
                            self.esc = false;
                        } else if b == b'\\' {
                            self.esc = true;
                        } else if b == b'"' {
                            self.reading_key = false;
                            self.key_done = true;
                            continue;
                        }
                        self.key.push(b);
                        continue;
                    }
                    match b {
                        b'"' if !self.key_done => self.reading_key = true,
                        b'}' => {
                            // The object closed: hold the closer for the end.
                            let tail = std::mem::take(&mut self.member);
                            self.held.extend_from_slice(&tail);
                            self.phase = Phase::Closed;
                            self.held.extend_from_slice(&bytes[i + 1..]);
                            return;
                        }
                        b':' if self.key_done => {
                            self.value_at = self.member.len();
                        }
                        _ if self.key_done && self.value_at > 0 && !b.is_ascii_whitespace() => {
                            // The value's first byte: stream or hold.
                            let string_declared = tool
                                .param_type(&String::from_utf8_lossy(&self.key))
                                == ParamType::String;
                            let undeclared =
                                tool.declares(&String::from_utf8_lossy(&self.key)) != Some(true);
                            let hold = !(undeclared || (string_declared && b == b'"'));
                            self.value_at = self.member.len() - 1;
                            self.phase = Phase::Value { hold };
                            self.depth = 1;
                            self.in_str = b == b'"';
                            if matches!(b, b'{' | b'[') {
                                self.depth = 2;
                            }
                            if !hold {
                                let member = std::mem::take(&mut self.member);
                                self.emit_member_text(&member, out);
                            }
                        }
                        _ => {}
                    }
                }
                Phase::Value { hold } => {
                    let ended = self.value_byte(b);
                    match ended {
                        None => {
                            if hold {
                                self.member.push(b);
                            } else {
                                self.send(&[b], out);
                            }
                        }
                        Some(()) => {
                            // `b` (`,` or `}`) follows the value.
                            if hold {
                                self.finish_member(tool, out);
                            }
                            self.reset_member();
                            self.phase = Phase::Members;
                            if b == b'}' {
                                self.held.push(b);
                                self.phase = Phase::Closed;
                                self.held.extend_from_slice(&bytes[i + 1..]);
                                return;
                            }
                            self.member.push(b);
                        }
                    }
                }
            }
        }
        if self.phase == Phase::Start {
            // Only blanks so far: they belong before the value.
            self.send(&bytes[run_start..], out);
        }
    }

    fn reset_member(&mut self) {
        self.member.clear();
        self.key.clear();
        self.key_done = false;
        self.reading_key = false;
        self.value_at = 0;
        self.in_str = false;
        self.esc = false;
    }

    /// Track one byte of a member's value; `Some` when the value ended before it.
    fn value_byte(&mut self, b: u8) -> Option<()> {
        if self.in_str {
            if self.esc {
                self.esc = false;
            } else if b == b'\\' {
                self.esc = true;
            } else if b == b'"' {
                self.in_str = false;
            }
            return None;
        }
        match b {
            b'"' => self.in_str = true,
            b'{' | b'[' => self.depth += 1,
            b'}' | b']' if self.depth > 1 => self.depth -= 1,
            b',' | b'}' if self.depth == 1 => return Some(()),
            _ => {}
        }
        None
    }

    /// Send a member's text, without its leading comma when it is the first one sent.
    fn emit_member_text(&mut self, text: &[u8], out: &mut Vec<u8>) {
        let text = if self.emitted == 0 {
            let start = text
                .iter()
                .position(|b| !b.is_ascii_whitespace())
                .unwrap_or(0);
            if text.get(start) == Some(&b',') {
                &text[start + 1..]
            } else {
                text
            }
        } else {
            text
        };
        self.emitted += 1;
        self.send(text, out);
    }

    /// A held member is complete: conform its value and send it (or drop it).
    fn finish_member(&mut self, tool: &Tool, out: &mut Vec<u8>) {
        let member = std::mem::take(&mut self.member);
        let (head, value_text) = member.split_at(self.value_at);
        let key: String = serde_json::from_slice(&[b"\"", self.key.as_slice(), b"\""].concat())
            .unwrap_or_default();
        let Some(value) = Value::parse_slice(value_text) else {
            self.emit_member_text(&member, out);
            return;
        };
        let mut one = Map::new();
        one.insert(key.clone(), value);
        let conformed = tool.conform_in_order(&Value::Object(one));
        match conformed.value {
            None => self.emit_member_text(&member, out),
            // Conforming one member must not touch others (a hoisted parameter is added
            // at the end instead, where the whole call is known).
            Some(Value::Object(map)) if map.keys().any(|k| *k != key) => {
                self.emit_member_text(&member, out)
            }
            Some(Value::Object(map)) => match map.get(&key) {
                Some(v) => {
                    self.repairs = self.repairs.union(conformed.repairs);
                    let mut text = head.to_vec();
                    text.extend_from_slice(v.to_string().as_bytes());
                    self.emit_member_text(&text, out);
                }
                None => self.repairs = self.repairs.union(conformed.repairs),
            },
            Some(_) => self.emit_member_text(&member, out),
        }
    }

    /// The body ended: conform what is held and close the arguments.
    pub(crate) fn finish(&mut self, tool: &Tool, out: &mut Vec<u8>) {
        match self.phase {
            Phase::Whole => {
                let held = std::mem::take(&mut self.held);
                let conformed = Value::parse_slice(&held).map(|v| tool.conform_in_order(&v));
                match conformed {
                    Some(c) if c.value.as_ref().is_some_and(Value::is_object) => {
                        self.repairs = self.repairs.union(c.repairs);
                        let text = c.value.map(|v| v.to_string()).unwrap_or_default();
                        self.send(text.as_bytes(), out);
                    }
                    _ => self.send(&held, out),
                }
            }
            Phase::Closed => {
                let held = std::mem::take(&mut self.held);
                // Top-level parameters the whole-call conformance adds go before `}`.
                let mut whole = self.sent.clone();
                whole.extend_from_slice(&held);
                if let Some(value @ Value::Object(_)) = Value::parse_slice(&whole) {
                    if let Some(Value::Object(fixed)) = tool.conform_in_order(&value).value {
                        let before = value.as_object().expect("an object");
                        for (k, v) in fixed.iter().filter(|(k, _)| !before.contains_key(k)) {
                            let sep = if self.emitted == 0 { "" } else { ", " };
                            let text = format!("{sep}{}: {v}", Value::String(k.clone()));
                            self.emitted += 1;
                            self.repairs.insert(Repair::HoistedParameter);
                            self.send(text.as_bytes(), out);
                        }
                    }
                }
                self.send(&held, out);
            }
            _ => {
                let held = std::mem::take(&mut self.held);
                self.send(&held, out);
            }
        }
    }
}
