//! XML-style parameters: `<function=NAME><parameter=KEY>value</parameter></function>`.
//!
//! Values are raw text. A value ends at its closing tag only when what follows the tag
//! confirms it (another parameter, the function's or the call's closer, the end of the
//! stream): values may contain `</parameter>` themselves. The closing tag and the
//! blanks after it are held until that is decided, a bounded amount. One framing
//! newline is removed on each side of a value; all other whitespace is payload. Values
//! stream as JSON strings as they arrive, or, when the tool's schema declares a
//! non-string type, are collected and typed when they close. A value no schema types is
//! collected while it may be JSON and is that JSON when it parses as such.
//!
//! This file holds the machine (its phases, the name and key tags); by concept:
//! `input` (the filters before it), `between` (between parameters), `values` (a value
//! and its closing tag), `json_body` (a JSON object as the body), `wrapper` (one
//! parameter wrapping all), `elements` (parameters named by their own elements) and
//! `attributes`.

mod attributes;
mod between;
mod elements;
mod input;
mod json_body;
mod marked;
mod values;
mod wrapper;

use super::Step;
use crate::calls::{Abort, Sink};
use crate::dialect::{CallForm, XmlSpec};
use crate::json::repairer::escape_byte;
use crate::repairs::Repair;
use crate::scan::MarkerSet;
use attributes::{attribute, split_attributes, unescape_attribute, unescape_entities};
use between::past_blanks;
use values::json_of_raw;
use wrapper::WRAPPER_KEYS;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    /// Expecting the name's opening tag.
    NameOpen,
    Name,
    Between,
    Key,
    /// Expecting the value's opening tag (`<arg_value>`), or the type element before it.
    ValueOpen,
    /// Inside the type element (`<ifm|arg_type>T`), up to its closing tag.
    TypeName,
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

#[derive(Clone)]
pub(crate) struct Xml {
    spec: &'static XmlSpec,
    /// The call's form: its closer, its opener (after the closer read as content, the
    /// next call's), and whether that opener is a tag prefix whose tag was mangled
    /// (`<｜DSML｜toolinvoke>`, a `labelled` form: the name read from it is no tool's,
    /// never released).
    form: &'static CallForm,
    phase: Phase,
    buf: Vec<u8>,
    tail: Vec<u8>,
    tag_len: usize,
    /// Bytes of a possible tag inside a value or between parameters.
    tag: Vec<u8>,
    nl_held: bool,
    first_param: bool,
    typed: bool,
    /// No schema types the value: it is collected while it may be JSON (a number,
    /// `true`, `false`, `null`, an object or an array) and is that value when it parses
    /// as one, as vLLM and SGLang type such values; anything else streams as a string.
    untyped: bool,
    /// What the untyped value held so far may still be.
    shape: values::Shape,
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
    /// Between parameters, a tag this format does not have was read (as stray text):
    /// `Some(false)` inside it, `Some(true)` after its `>`, where text would be its
    /// value, dropped.
    unknown_tag: Option<bool>,
    /// The value being read holds its own closing tag, read as content because what
    /// followed it did not confirm it.
    closer_in_value: bool,
    /// Bytes that may begin the spec's artifact, not yet passed on.
    af: Vec<u8>,
    /// The value's own closing tag was read as content (what followed did not confirm
    /// it): what came after it is withheld from the arguments until the value ends.
    doubt: Option<Doubt>,
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
    /// The closers of the section the call sits in, as written
    /// (`</｜DSML｜function_calls>`): inside a value, the same doubt as the call's
    /// closer there (its value's, function's and call's closers dropped). Found from
    /// the dialect data the first time a value holds a tag of none of the body's.
    section_closers: Option<MarkerSet>,
    between_markers: MarkerSet,
    confirm_value: MarkerSet,
    confirm_function: MarkerSet,
    ended: Option<bool>,
    /// In a body of elements, the elements its marked tags opened.
    marks: marked::Marks,
    /// The function's closing tag when its name is in its opening tag
    /// ([`XmlSpec::name_in_tag`]): `</tool_read>`, known once the name is.
    tag_close: Vec<u8>,
    /// Bytes examined since the last [`take_work`](Self::take_work).
    work: u64,
}

/// A value's closing tag read as content, not yet confirmed either way. The stream may
/// end with only text after it (`</arg_value>\nDone.`, the call's closers forgotten):
/// then the value ended at the tag and the text is the model's, shown.
#[derive(Clone)]
struct Doubt {
    /// Where the tag begins in `out` (what is not yet passed on) and in `raw`.
    out: usize,
    raw: usize,
    /// The input after the tag, as it came.
    text: Vec<u8>,
    /// Another closing tag was read as content since: the text is not prose.
    again: bool,
    /// The tag is the call's closer (not the value's): ended there, the call ends.
    closer: bool,
    /// Text was read as content since the tag: a byte other than a blank, outside tags
    /// (`<...>`, markup such as a section token).
    prose: bool,
    /// The last `<` read as content since the tag is not yet closed by a `>`.
    angle: bool,
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

impl Xml {
    /// A name read from a mangled tag is a guess: the call is not released.
    fn refuse_mangled(&self, sink: &mut Sink<'_>) {
        if self.form.labelled {
            sink.invalid(
                "the call's opening tag is mangled after its prefix, so its tool cannot be told; \
                 write the opening tag whole",
            );
        }
    }

    pub(crate) fn new(spec: &'static XmlSpec, form: &'static CallForm) -> Xml {
        let closer = form.closer;
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
        for &closer in std::iter::once(&closer).chain(spec.closer_alts) {
            if !closer.is_empty() {
                in_value.push(closer);
                between.push(closer);
                confirm_value.push(closer);
                confirm_function.push(closer);
            }
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
            form,
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
            untyped: false,
            shape: values::Shape::Blank,
            json_value: false,
            json_done: false,
            wrapper: false,
            esc: false,
            esc_replayed: false,
            pf: Vec::new(),
            af: Vec::new(),
            doubt: None,
            closer_in_value: false,
            unknown_tag: None,
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
            section_closers: None,
            between_markers: MarkerSet::new(&between),
            confirm_value: MarkerSet::new(&confirm_value),
            confirm_function: MarkerSet::new(&confirm_function),
            ended: None,
            marks: marked::Marks::default(),
            tag_close: Vec::new(),
            work: 0,
        }
    }

    /// The markup that closes this body's values and function (`</parameter`,
    /// `</function>`): met after the body, it was the body's (`call::extent`).
    pub(crate) fn markup(&self) -> crate::call::extent::BodyMarkup {
        // (A self-closing call's `/>` closes no value: its arguments are JSON.)
        if self.spec.element_keys && !self.spec.attribute_call {
            return crate::call::extent::BodyMarkup::elements(self.spec.func_close);
        }
        crate::call::extent::BodyMarkup::tags(
            self.spec.value_close,
            self.spec.func_close,
            self.spec.key_open,
            self.spec.tag_prefix,
        )
    }

    /// Bytes examined since the last call (for [`Stats::work`](crate::Stats::work)).
    pub(crate) fn take_work(&mut self) -> u64 {
        std::mem::take(&mut self.work)
    }

    /// Read `bytes` again after what is read back already.
    pub(crate) fn push_back(&mut self, bytes: &[u8]) {
        self.replay.extend_from_slice(bytes);
    }

    /// What [`take_leftover`](Self::take_leftover) would return, left in place.
    pub(crate) fn leftover(&self) -> Vec<u8> {
        [&self.replay[self.rpos..], &self.pf, &self.af].concat()
    }

    pub(crate) fn take_leftover(&mut self) -> Vec<u8> {
        let mut rest = self.replay.split_off(self.rpos);
        self.replay.clear();
        self.rpos = 0;
        rest.append(&mut self.pf);
        rest.append(&mut self.af);
        rest
    }

    pub(crate) fn feed(&mut self, input: &[u8], sink: &mut Sink<'_>) -> Step {
        let mut i = 0;
        loop {
            if let Some(closer_seen) = self.ended.take() {
                if let Err(why) = self.flush(sink) {
                    return Step::abort(why, i);
                }
                return Step::ended(i, closer_seen);
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
                let artifact = self.spec.artifact;
                if let Some(doubt) = &mut self.doubt {
                    doubt.text.push(input[i]);
                }
                if !self.spec.tag_prefix.is_empty()
                    || !self.af.is_empty()
                    || artifact.first() == Some(&input[i])
                {
                    i += 1;
                    self.pass(input[i - 1]);
                    continue;
                }
                if self.phase == Phase::Value
                    && self.tag.is_empty()
                    && !self.typed
                    && self.utf8.is_empty()
                    && self.doubt.is_none()
                {
                    // A run of value text stops where an artifact may begin.
                    let end = match artifact.first() {
                        Some(&a) => memchr::memchr(a, &input[i..]).map_or(input.len(), |p| i + p),
                        None => input.len(),
                    };
                    let n = self.value_run(&input[i..end]);
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
            if let Err(why) = self.step_unprefixed(b, sink) {
                let _ = self.flush(sink);
                return Step::abort(why, i);
            }
        }
        match self.flush(sink) {
            Ok(()) => Step::more(input.len()),
            Err(why) => Step::abort(why, i),
        }
    }

    fn flush(&mut self, sink: &mut Sink<'_>) -> Result<(), Abort> {
        if std::mem::take(&mut self.af_dropped) {
            sink.repair(Repair::TokenizerArtifact);
        }
        if let Some(doubt) = &mut self.doubt {
            // What follows the doubted tag waits for the value's end.
            let ready = std::mem::take(&mut doubt.out);
            if ready == 0 {
                return Ok(());
            }
            let r = sink.args(&self.out[..ready]);
            self.out.drain(..ready);
            return r;
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
                // The name ends natively at a newline or the next tag (GLM), and at a
                // JSON body written right after it (`write{"path": ...}`).
                let body = b == b'{' && !self.buf.trim_ascii().is_empty();
                if b == b'\n' || b == b'<' || body {
                    if self.buf.iter().all(|c| is_blank(*c)) {
                        self.buf.clear();
                        if b == b'\n' {
                            return Ok(());
                        }
                    }
                    if b != b'\n' {
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
                } else if let Some(lt) = self.buf.iter().position(|&c| c == b'<') {
                    // A name holds no `<`: from the first one on, the separator (which
                    // may be several tags) or what replaced it.
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
                let type_open = self.spec.type_open;
                if !type_open.is_empty() && type_open.starts_with(&self.tag) {
                    if self.tag.len() == type_open.len() {
                        self.tag.clear();
                        self.phase = Phase::TypeName;
                    }
                } else if !open.starts_with(&self.tag) {
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
            Phase::TypeName => {
                self.buf.push(b);
                if self.buf.ends_with(self.spec.type_close) {
                    let n = self.buf.len() - self.spec.type_close.len();
                    self.buf.truncate(n);
                    self.value_type();
                    self.phase = Phase::ValueOpen;
                } else if self.buf.len() > sink.config.limits.max_name_bytes {
                    return Err(Abort::TooLarge);
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

    /// An attribute value with its escapes undone, as the dialect escapes them.
    fn unescape(&self, value: &str) -> String {
        match self.spec.attr_entities {
            true => unescape_entities(value),
            false => unescape_attribute(value),
        }
    }

    fn end_name(&mut self, sink: &mut Sink<'_>) -> Result<(), Abort> {
        let raw = String::from_utf8_lossy(&self.buf).into_owned();
        // `"NAME"`, also followed by attributes (`"NAME" index="1"`).
        let (name, _) = match self.spec.attribute_call {
            // (Its gate read the name in either quote.)
            true => (raw.trim().trim_matches(['"', '\'']), ""),
            false => split_attributes(raw.trim()),
        };
        let name = self.unescape(name);
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
            self.refuse_mangled(sink);
            self.out.push(b'{');
            self.phase = Phase::Key;
            self.requeue(&key);
            return Ok(());
        }
        if self.spec.name_in_tag {
            if self.spec.not_names.contains(&name.as_bytes()) {
                // (The sniffing that chose this body reads no such tag as a name.)
                sink.invalid("the call's tag names no tool; write the tool's name");
            }
            // `<tool_read>` closes with `</tool_read>`.
            let open = self.spec.name_open;
            self.tag_close = [b"</", &open[1..], name.as_bytes(), b">"].concat();
        }
        sink.name(name);
        sink.values_written_raw();
        self.refuse_mangled(sink);
        self.out.push(b'{');
        self.phase = if self.spec.element_keys {
            self.raw.clear();
            self.marks = marked::Marks::default();
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
        let key = self.unescape(key);
        self.untyped = false;
        self.json_value = attrs.replace(' ', "").contains("string=\"false\"")
            || attribute(attrs, self.spec.type_attr).is_some_and(|t| t != "string");
        // The tag itself says what the value is (`string="true"`, `type="string"`).
        let told =
            attribute(attrs, "string").is_some() || attribute(attrs, self.spec.type_attr).is_some();
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
        sink.values_written_raw();
        // A key given twice is written as given: the release gate decides whether the
        // two values are one (`json::duplicates`).
        self.skip = false;
        // No schema declares the key: the value is typed by what it reads as.
        self.untyped = !told && !sink.param_is_declared(&key);
        self.shape = values::Shape::Blank;
        self.typed = self.json_value || self.untyped || sink.param_is_typed(&key);
        self.wrapper = self.first_param
            && WRAPPER_KEYS.contains(&key.as_str())
            && sink
                .key_check(1)
                .keys
                .is_some_and(|keys| !keys.is_empty() && !keys.contains(&key));
        if self.wrapper {
            // Written when the value ends: as the parameters it holds, or as itself.
            self.typed = true;
            self.untyped = false;
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

    /// The type element's word, read before the value opens: a value no schema types
    /// is a string (`string`, `str`), JSON (any other type) or typed by what it reads as
    /// (`any`). A key the schema declares is typed by the schema, as the servers do.
    fn value_type(&mut self) {
        let raw = String::from_utf8_lossy(&self.buf).to_ascii_lowercase();
        self.buf.clear();
        // `array[string]` is an array.
        let word = raw.split('[').next().unwrap_or("").trim();
        if !self.untyped || self.skip || self.wrapper || word.is_empty() || word == "any" {
            return;
        }
        self.untyped = false;
        if matches!(word, "string" | "str" | "text") {
            // Nothing of the value was written yet: it streams as a string.
            self.typed = false;
            self.out.push(b'"');
        } else {
            self.json_value = true;
        }
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
        if self.doubt.as_ref().is_some_and(|d| d.closer) {
            // The call's closer in the value, then only text: the call ended there.
            return matches!(self.end_at_doubted_closer(sink), Ok(true))
                && self.flush(sink).is_ok();
        }
        if let Some(doubt) = self.doubt.take() {
            let in_value = matches!(self.phase, Phase::Value | Phase::CData(_));
            if doubt.again || !in_value || self.esc || self.skip {
                self.doubt = Some(doubt);
                return false;
            }
            // Only text after the value's closing tag: the value ended there, and the
            // text is given back to be shown.
            self.out.truncate(doubt.out);
            self.raw.truncate(doubt.raw);
            self.utf8.clear();
            self.tag.clear();
            self.closer_in_value = false;
            if self.end_value(sink).is_err() {
                return false;
            }
            self.replay = doubt.text;
            self.rpos = 0;
        }
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
}
