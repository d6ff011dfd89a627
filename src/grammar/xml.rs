//! XML-style parameters: `<function=NAME><parameter=KEY>value</parameter></function>`.
//!
//! Values are raw text. A value ends at its closing tag only when what follows the tag
//! confirms it (another parameter, the function's or the call's closer, the end of the
//! stream): values may contain `</parameter>` themselves. The closing tag and the
//! blanks after it are held until that is decided, a bounded amount. One framing
//! newline is removed on each side of a value; all other whitespace is payload. Values
//! stream as JSON strings as they arrive, or, when the tool's schema declares a
//! non-string type, are collected and typed when they close.

mod attributes;
mod elements;

use super::Step;
use crate::calls::{Abort, Sink};
use crate::dialect::XmlSpec;
use crate::json::repairer::escape_byte;
use crate::repairs::Repair;
use crate::scan::{Found, MarkerSet};
use attributes::{attribute, split_attributes, unescape_attribute};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    /// Expecting the name's opening tag.
    NameOpen,
    Name,
    Between,
    Key,
    /// Expecting the value's opening tag (`<arg_value>`).
    ValueOpen,
    ValueStart,
    Value,
    /// A closing tag inside a value; `tail` holds it while what follows decides.
    Confirm(Closing),
    /// Dropping a stray closing tag up to its `>`; the count bounds it.
    SkipTag(usize),
    /// A bare JSON object as the whole body, up to the function's or the call's closer.
    JsonBody,
    /// Parameters as elements, collected to the function's closer.
    Elements,
    /// Inside `<![CDATA[` ... `]]>`: every byte is value text; the count is the `]`
    /// held that may begin the end.
    CData(u8),
    Done,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Closing {
    Value,
    Function,
}

/// Opens a CDATA section in a value.
const CDATA_OPEN: &[u8] = b"<![CDATA[";

/// Longest misspelled value closer accepted (`</parameter_function>`).
const MAX_CLOSE_TAIL: usize = 24;
/// Most blanks between a closing tag and what confirms it.
const MAX_BLANKS: usize = 256;

pub(crate) struct Xml {
    spec: &'static XmlSpec,
    /// The call's closing marker.
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
    /// The value is JSON by its tag's own attribute (`string="false"`).
    json_value: bool,
    /// A JSON element gave the arguments, closed already.
    json_done: bool,
    /// A backslash was held where only blanks are expected: with `n`, `r` or `t` after
    /// it, a blank written double-escaped.
    esc: bool,
    /// That backslash is being read again as itself.
    esc_replayed: bool,
    /// The first parameter's key is a wrapper the schema does not declare (`arguments`,
    /// `input`): its value is held, and unwrapped if it holds the declared parameters.
    wrapper: bool,
    /// Bytes that may begin `<` + the spec's tag prefix, not yet passed on.
    pf: Vec<u8>,
    /// Bytes that may begin the spec's artifact, not yet passed on.
    af: Vec<u8>,
    /// An artifact was dropped and not yet reported.
    af_dropped: bool,
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
        let func: &[&'static [u8]] = if spec.func_close.is_empty() {
            &[]
        } else {
            std::slice::from_ref(&spec.func_close)
        };
        let mut in_value = vec![spec.value_close, spec.key_open];
        in_value.extend_from_slice(func);
        if spec.cdata {
            in_value.push(CDATA_OPEN);
        }
        let mut between = vec![spec.key_open];
        between.extend_from_slice(func);
        between.extend_from_slice(spec.key_open_alts);
        if !spec.name_sep.is_empty() {
            between.push(spec.name_sep);
        }
        if !spec.json_open.is_empty() {
            between.push(spec.json_open);
        }
        let mut confirm_value = vec![spec.key_open];
        confirm_value.extend_from_slice(func);
        confirm_value.extend_from_slice(spec.key_open_alts);
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
        // A body of elements has no key or value tags.
        for set in [&mut in_value, &mut between, &mut confirm_value] {
            set.retain(|m| !m.is_empty());
        }
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
            json_value: false,
            json_done: false,
            wrapper: false,
            esc: false,
            esc_replayed: false,
            pf: Vec::new(),
            af: Vec::new(),
            af_dropped: false,
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
        let mut rest = self.replay.split_off(self.rpos);
        self.replay.clear();
        self.rpos = 0;
        rest.append(&mut self.pf);
        rest.append(&mut self.af);
        rest
    }

    /// Pass one input byte on, dropping the spec's artifact wherever it appears; what
    /// is left goes to the tag prefix filter (`filter`), or to the replay queue.
    fn pass(&mut self, b: u8) {
        let artifact = self.spec.artifact;
        if artifact.is_empty() {
            return self.unprefixed(b);
        }
        self.af.push(b);
        if artifact.starts_with(&self.af) {
            if self.af.len() == artifact.len() {
                self.af.clear();
                self.af_dropped = true;
            }
            return;
        }
        // Not the artifact: its first byte passes on, the rest is read again.
        let held = std::mem::take(&mut self.af);
        self.unprefixed(held[0]);
        for &c in &held[1..] {
            self.pass(c);
        }
    }

    fn unprefixed(&mut self, b: u8) {
        if self.spec.tag_prefix.is_empty() {
            self.replay.push(b);
        } else {
            self.filter(b);
        }
    }

    /// Pass one input byte on (to the replay queue), dropping the spec's tag prefix
    /// right after `<` or `</`: `<｜DSML｜invoke` reads as `<invoke`.
    fn filter(&mut self, b: u8) {
        let prefix = self.spec.tag_prefix;
        if self.pf.is_empty() {
            if b == b'<' {
                self.pf.push(b);
            } else {
                self.replay.push(b);
            }
            return;
        }
        self.pf.push(b);
        let body = if self.pf.starts_with(b"</") {
            &self.pf[2..]
        } else {
            &self.pf[1..]
        };
        if prefix.starts_with(body) {
            if body.len() == prefix.len() {
                let keep = self.pf.len() - prefix.len();
                self.replay.extend_from_slice(&self.pf[..keep]);
                self.pf.clear();
            }
            return;
        }
        let last = self.pf.pop().unwrap_or(b);
        self.replay.append(&mut self.pf);
        self.filter(last);
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
                if !self.spec.tag_prefix.is_empty() || !self.spec.artifact.is_empty() {
                    i += 1;
                    self.pass(input[i - 1]);
                    continue;
                }
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
        if std::mem::take(&mut self.af_dropped) {
            sink.repair(Repair::TokenizerArtifact);
        }
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
                // A name tag after a prefix (`function<｜tool_sep｜><steptml:invoke
                // name=`) is also read without the prefix.
                let open = self.spec.name_open;
                let tail = match open.iter().rposition(|&c| c == b'<') {
                    Some(lt) if lt > 0 => &open[lt..],
                    _ => open,
                };
                if open.starts_with(&self.tag) {
                    if self.tag.len() == open.len() {
                        self.tag.clear();
                        self.phase = Phase::Name;
                    }
                } else if tail.starts_with(&self.tag) {
                    if self.tag.len() == tail.len() {
                        sink.repair(Repair::MismatchedTag);
                        self.tag.clear();
                        self.phase = Phase::Name;
                    }
                } else {
                    // No function tag: read the name from here (after the prefix, if
                    // it was written whole).
                    sink.repair(Repair::MismatchedTag);
                    let bytes = std::mem::take(&mut self.tag);
                    let prefix = &open[..open.len() - tail.len()];
                    let from = if !prefix.is_empty() && bytes.starts_with(prefix) {
                        prefix.len()
                    } else {
                        0
                    };
                    self.phase = Phase::Name;
                    self.requeue(&bytes[from..]);
                }
            }
            Phase::Name if self.spec.name_close.is_empty() => {
                // The name ends natively at a newline or the next tag (GLM).
                if b == b'\n' || b == b'<' {
                    if self.buf.iter().all(|c| is_blank(*c)) {
                        self.buf.clear();
                        if b == b'\n' {
                            return Ok(());
                        }
                    }
                    if b == b'<' {
                        self.requeue(&[b]);
                    }
                    self.end_name(sink)?;
                    return Ok(());
                }
                self.buf.push(b);
                if self.buf.len() > sink.config.limits.max_name_bytes {
                    return Err(Abort::TooLarge);
                }
            }
            Phase::Name if self.spec.name_close.starts_with(b"<") => {
                // The name ends at a separator tag (`<tool_sep>`); another tag means
                // the separator was dropped.
                let close = self.spec.name_close;
                self.buf.push(b);
                if self.buf.ends_with(close) {
                    let n = self.buf.len() - close.len();
                    self.buf.truncate(n);
                    self.end_name(sink)?;
                } else if let Some(lt) = self.buf.iter().rposition(|&c| c == b'<') {
                    if !close.starts_with(&self.buf[lt..]) {
                        let rest = self.buf.split_off(lt);
                        sink.repair(Repair::MissingSeparator);
                        self.end_name(sink)?;
                        self.requeue(&rest);
                    }
                } else if self.buf.len() > sink.config.limits.max_name_bytes {
                    return Err(Abort::TooLarge);
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
                } else if let Some(p) = self.misclosed_key(b) {
                    // The key closed by another closing tag (`</arg_value>`).
                    sink.repair(Repair::MismatchedTag);
                    self.buf.truncate(p);
                    self.end_key(sink)?;
                } else if self.buf.len() > sink.config.limits.max_name_bytes {
                    return Err(Abort::TooLarge);
                }
            }
            Phase::ValueOpen => {
                if self.tag.is_empty() && is_blank(b) || self.escaped_blank(b, sink) {
                    return Ok(());
                }
                self.tag.push(b);
                let open = self.spec.value_open;
                if !open.starts_with(&self.tag) {
                    // The value's opening tag was dropped: the value starts here.
                    sink.repair(Repair::MismatchedTag);
                    let bytes = std::mem::take(&mut self.tag);
                    self.phase = Phase::Value;
                    self.requeue(&bytes);
                } else if self.tag.len() == open.len() {
                    self.tag.clear();
                    self.phase = Phase::ValueStart;
                }
            }
            Phase::ValueStart => {
                self.phase = Phase::Value;
                if b != b'\n' || !self.spec.framed {
                    self.value_byte(b, sink)?;
                }
            }
            Phase::JsonBody => self.json_body(b, sink)?,
            Phase::Value => self.value_byte(b, sink)?,
            Phase::CData(held) => self.cdata_byte(b, held),
            Phase::Elements => self.element_byte(b, sink)?,
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
        // `"NAME"`, also followed by attributes (`"NAME" index="1"`).
        let (name, _) = split_attributes(raw.trim());
        let name = unescape_attribute(name);
        let mut name = name.as_str();
        self.buf.clear();
        // Blanks written double-escaped around the name (`NAME\n<arg_key>`).
        while let Some(rest) = ["\\n", "\\r", "\\t"]
            .iter()
            .find_map(|e| name.strip_suffix(e).or_else(|| name.strip_prefix(e)))
        {
            sink.repair(Repair::StrayText);
            name = rest.trim();
        }
        if name.is_empty() {
            sink.nameless_start();
        }
        if let Some(tool) = self.glued_tool(name, sink) {
            // `<arg_key>` dropped, the key glued to the name: split at the tool's name.
            let key = name.as_bytes()[tool.len()..].to_vec();
            name = &name[..tool.len()];
            sink.repair(Repair::MismatchedTag);
            sink.name(name);
            self.out.push(b'{');
            self.phase = Phase::Key;
            self.requeue(&key);
            return Ok(());
        }
        sink.name(name);
        self.out.push(b'{');
        self.phase = if self.spec.element_keys {
            self.raw.clear();
            Phase::Elements
        } else {
            Phase::Between
        };
        Ok(())
    }

    fn end_key(&mut self, sink: &mut Sink<'_>) -> Result<(), Abort> {
        let raw = String::from_utf8_lossy(&self.buf).into_owned();
        self.buf.clear();
        let (key, attrs) = split_attributes(raw.trim());
        let key = unescape_attribute(key);
        self.json_value = attrs.replace(' ', "").contains("string=\"false\"")
            || attribute(attrs, self.spec.type_attr).is_some_and(|t| t != "string");
        self.phase = if self.spec.value_open.is_empty() {
            Phase::ValueStart
        } else {
            Phase::ValueOpen
        };
        if self.json_done {
            // A parameter after the JSON element gave the arguments: not the call's.
            sink.repair(Repair::StrayText);
            self.skip = true;
            return Ok(());
        }
        self.skip = self.keys.contains(&key);
        if self.skip {
            sink.repair(Repair::DuplicateKey);
            return Ok(());
        }
        self.typed = self.json_value || sink.param_is_typed(&key);
        self.wrapper = self.first_param
            && WRAPPER_KEYS.contains(&key.as_str())
            && sink
                .declared_keys()
                .is_some_and(|keys| !keys.is_empty() && !keys.contains(&key));
        if self.wrapper {
            // Written when the value ends: as the parameters it holds, or as itself.
            self.typed = true;
            self.raw.clear();
            self.keys.push(key.clone());
            self.key = key;
            return Ok(());
        }
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

    fn between(&mut self, b: u8, sink: &mut Sink<'_>) -> Result<(), Abort> {
        if self.tag.is_empty() && is_blank(b) || self.escaped_blank(b, sink) {
            return Ok(());
        }
        if self.tag.is_empty() && b == b'{' && self.keys.is_empty() {
            // A bare JSON object as the body (DeepSeek DSML invokes).
            self.raw.clear();
            self.raw.push(b);
            self.phase = Phase::JsonBody;
            return Ok(());
        }
        self.tag.push(b);
        match self.between_markers.match_at(&self.tag, 0) {
            Found::Partial { .. } => Ok(()),
            Found::Full { id, .. } => {
                let m = self.between_markers.get(id);
                self.tag.clear();
                if m == self.spec.name_sep {
                    // The separator after a name that ended at it: nothing to read.
                } else if m == self.spec.json_open && self.keys.is_empty() {
                    self.raw.clear();
                    self.phase = Phase::JsonBody;
                } else if m == self.spec.key_open {
                    self.phase = Phase::Key;
                } else if self.spec.key_open_alts.contains(&m) {
                    sink.repair(Repair::MismatchedTag);
                    self.phase = Phase::Key;
                } else if m == self.spec.func_close {
                    self.close_object();
                    self.phase = Phase::Done;
                    self.ended = Some(false);
                } else {
                    // The call's closer (with the function left open, if it has a closer).
                    if !self.spec.func_close.is_empty() {
                        sink.repair(Repair::MissingCloser);
                    }
                    self.close_object();
                    self.phase = Phase::Done;
                    self.ended = Some(true);
                }
                Ok(())
            }
            Found::None => {
                let bytes = std::mem::take(&mut self.tag);
                if self.nameless_key_tag(&bytes) {
                    // `<param>`: a parameter whose name was lost. Dropping it would
                    // release the call without its value: it is not released.
                    sink.invalid(
                        "a parameter has no name, so where its value goes cannot be told; \
                         write every parameter with its name",
                    );
                    sink.repair(Repair::StrayText);
                    return Ok(());
                }
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
                    self.close_object();
                    self.phase = Phase::Done;
                    self.ended = Some(false);
                    self.requeue(&bytes);
                    return Ok(());
                }
                if !self.spec.value_open.is_empty() && bytes[0] != b'<' {
                    // A key whose opening tag was dropped (`city</arg_key>`).
                    sink.repair(Repair::MismatchedTag);
                    self.phase = Phase::Key;
                    self.requeue(&bytes);
                    return Ok(());
                }
                sink.repair(Repair::StrayText);
                self.requeue(&bytes[1..]);
                Ok(())
            }
        }
    }

    /// Whether `bytes` is the key's opening tag with its name attribute dropped
    /// (`<param>` for `<param name="K">`).
    fn nameless_key_tag(&self, bytes: &[u8]) -> bool {
        let key_open = self.spec.key_open;
        let Some((&b'>', head)) = bytes.split_last() else {
            return false;
        };
        head.len() > 1 && key_open.starts_with(head) && key_open.get(head.len()) == Some(&b' ')
    }

    /// Where only blanks are expected (`tag` empty), a blank written double-escaped
    /// (`\n` as a backslash and `n`: the model escaped its output once more) is one,
    /// and dropped (`stray_text`): never the start of a key. True when `b` was used;
    /// a held backslash not followed by `n`, `r` or `t` is read again, then `b`.
    fn escaped_blank(&mut self, b: u8, sink: &mut Sink<'_>) -> bool {
        if self.esc {
            self.esc = false;
            if matches!(b, b'n' | b'r' | b't') {
                sink.repair(Repair::StrayText);
                return true;
            }
            self.requeue(&[b'\\', b]);
            self.esc_replayed = true;
            return true;
        }
        if self.tag.is_empty() && b == b'\\' && !self.esc_replayed {
            self.esc = true;
            return true;
        }
        self.esc_replayed = false;
        false
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
                } else if m == CDATA_OPEN {
                    self.tag.clear();
                    if self.nl_held {
                        self.nl_held = false;
                        self.emit_content(b'\n');
                    }
                    self.phase = Phase::CData(0);
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

    /// One byte of a CDATA section: content, up to `]]>`.
    fn cdata_byte(&mut self, b: u8, held: u8) {
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
        let Some(start) = past_blanks(after) else {
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
        if !self.af.is_empty() {
            // Not the artifact after all: its bytes are the body's.
            let af = std::mem::take(&mut self.af);
            for &b in &af {
                self.unprefixed(b);
            }
        }
        if !self.pf.is_empty() {
            let pf = std::mem::take(&mut self.pf);
            self.replay.extend_from_slice(&pf);
            let _ = self.feed(&[], sink);
        }
        if let Phase::Confirm(closing) = self.phase {
            // The stream ended right after a closing tag: it was one.
            let _ = self.accept_confirm(closing, sink);
            let _ = self.feed(&[], sink);
        }
        let _ = self.flush(sink);
        self.phase == Phase::Done
    }
}

impl Xml {
    /// Between parameters, every value closed (`...</arg_value>` and the end): close the
    /// arguments, as the missing closers would have.
    pub(crate) fn close_clean(&mut self, sink: &mut Sink<'_>) -> bool {
        if self.phase != Phase::Between || !self.tag.is_empty() || self.esc || self.keys.is_empty()
        {
            return false;
        }
        if !self.spec.func_close.is_empty() {
            // The function's closer is missing too (the only closer, in a dialect
            // whose calls have no other: Kimi K3, MiniCPM5).
            sink.repair(Repair::MissingCloser);
        }
        self.close_object();
        self.phase = Phase::Done;
        self.flush(sink).is_ok()
    }

    /// For a grammar whose name ends at the next tag: the declared tool that `name`
    /// begins with but is not, when the name has a key glued to it.
    fn glued_tool(&self, name: &str, sink: &Sink<'_>) -> Option<String> {
        if !self.spec.name_close.is_empty() || self.spec.value_open.is_empty() {
            return None;
        }
        let tools = &sink.config.tools;
        if tools.get(name).is_some() {
            return None;
        }
        tools
            .iter()
            .map(|t| t.name())
            .filter(|t| name.len() > t.len() && name.starts_with(t))
            .max_by_key(|t| t.len())
            .map(str::to_owned)
    }

    /// In a key: the start of a closing tag other than the key's own that just ended
    /// at `>` (`city</arg_value>`).
    fn misclosed_key(&self, b: u8) -> Option<usize> {
        if b != b'>' || !self.spec.key_close.starts_with(b"</") {
            return None;
        }
        self.buf.windows(2).rposition(|w| w == b"</")
    }

    /// One byte of a bare JSON body; at the closer, the repaired object continues the
    /// `{` already written.
    fn json_body(&mut self, b: u8, sink: &mut Sink<'_>) -> Result<(), Abort> {
        self.raw.push(b);
        let inner = self.spec.json_close;
        if !inner.is_empty() && self.raw.ends_with(inner) {
            // The JSON element closed: its object is the arguments; the function's
            // closer follows.
            let body = self.raw[..self.raw.len() - inner.len()]
                .trim_ascii()
                .to_vec();
            self.json_arguments(&body, sink);
            self.raw.clear();
            self.json_done = true;
            self.keys.push(String::new());
            self.phase = Phase::Between;
            return Ok(());
        }
        let ends = [(self.spec.func_close, false), (self.closer, true)]
            .into_iter()
            .find(|(m, _)| !m.is_empty() && self.raw.ends_with(m));
        let Some((m, closer_seen)) = ends else {
            return Ok(());
        };
        let body = self.raw[..self.raw.len() - m.len()].trim_ascii().to_vec();
        self.json_arguments(&body, sink);
        self.raw.clear();
        self.phase = Phase::Done;
        self.ended = Some(closer_seen);
        Ok(())
    }
}

impl Xml {
    /// Close the arguments object, unless a JSON element closed it already.
    fn close_object(&mut self) {
        if !self.json_done {
            self.out.push(b'}');
        }
    }

    /// A JSON arguments body: the repaired object continues the `{` already written.
    fn json_arguments(&mut self, body: &[u8], sink: &mut Sink<'_>) {
        match crate::repair(body) {
            Ok(fixed) if fixed.json.starts_with('{') => {
                sink.repairs(fixed.repairs);
                self.out.extend_from_slice(&fixed.json.as_bytes()[1..]);
            }
            _ => {
                sink.repair(Repair::StrayText);
                self.out.push(b'}');
            }
        }
    }
}

/// Where what follows `bytes`' blanks begins, blanks written double-escaped (`\\n`)
/// included; `None` while it cannot be told yet.
fn past_blanks(bytes: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            c if is_blank(c) => i += 1,
            b'\\' => match bytes.get(i + 1) {
                Some(b'n' | b'r' | b't') => i += 2,
                Some(_) => return Some(i),
                None => return None,
            },
            _ => return Some(i),
        }
    }
    None
}

/// Keys a model wraps all of a call's parameters in, as one parameter.
const WRAPPER_KEYS: &[&str] = &["arguments", "input", "properties", "parameters", "args"];

impl Xml {
    /// The wrapper parameter ended: write the parameters it holds when they are an
    /// object of declared keys (`wrapped_arguments`), else the parameter as it is.
    fn end_wrapper(&mut self, sink: &mut Sink<'_>) {
        let raw = String::from_utf8_lossy(&self.raw).into_owned();
        let mut value = serde_json::from_str::<serde_json::Value>(raw.trim())
            .ok()
            .or_else(|| {
                let fixed = crate::repair(raw.trim().as_bytes()).ok()?;
                serde_json::from_str(&fixed.json).ok()
            });
        if let Some(serde_json::Value::String(inner)) = &value {
            value = serde_json::from_str(inner.trim()).ok();
        }
        let declared = sink.declared_keys().unwrap_or_else(|| Vec::new().into());
        let inner = value
            .as_ref()
            .and_then(|v| v.as_object())
            .filter(|o| !o.is_empty() && o.keys().all(|k| declared.contains(k)));
        let key = std::mem::take(&mut self.key);
        if let Some(members) = inner {
            sink.repair(Repair::WrappedArguments);
            for (k, v) in members {
                if !self.first_param {
                    self.out.extend_from_slice(b", ");
                }
                self.first_param = false;
                let quoted = serde_json::Value::String(k.clone()).to_string();
                self.out.extend_from_slice(quoted.as_bytes());
                self.out.extend_from_slice(b": ");
                self.out.extend_from_slice(v.to_string().as_bytes());
                self.keys.push(k.clone());
            }
            self.key = key;
            return;
        }
        self.first_param = false;
        self.out.extend_from_slice(
            serde_json::Value::String(key.clone())
                .to_string()
                .as_bytes(),
        );
        self.out.extend_from_slice(b": ");
        let json = if self.json_value {
            json_of_raw(&raw, sink)
        } else {
            sink.type_value(&key, &raw).0
        };
        self.out.extend_from_slice(json.as_bytes());
        self.key = key;
    }
}

/// A value its tag says is JSON: kept when strict, repaired when it can be, a string
/// otherwise.
fn json_of_raw(raw: &str, sink: &mut Sink<'_>) -> String {
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
