//! Parameters named by their own elements (MiniMax M3): `<city>Paris</city>`, an
//! object as child elements, a list as repeated `<item>` children.
//!
//! The body is read whole once its function closes, so an element is matched with its
//! own closer (`</city>`, counting nested elements of the same name). A value is
//! elements only when all of it is (blanks aside); otherwise it is text as written,
//! `<` and all. Leaves are strings: the schema types them afterwards.
//!
//! The XML grammar's side is here too: the body is collected to the function's closer
//! (or to the next function's opener, when the closer was dropped), the namespace
//! marker is dropped, and the members are typed and written.

use super::marked::{self, after_marker};
use super::{Phase, Xml};
use crate::calls::{Abort, Sink};
use crate::ordered::{Map, Value};
use crate::repairs::Repair;

/// Most nesting read as elements; deeper content stays text.
pub(super) const MAX_DEPTH: usize = 64;
/// Longest element name.
pub(super) const MAX_NAME: usize = 256;

/// What reading the members found besides them.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Oddities {
    /// Text between elements was skipped.
    pub stray: bool,
    /// An element was not closed: its value runs to the end.
    pub unclosed: bool,
}

/// The members of a body of elements, as a JSON object: repeated names become an
/// array, a value of `<item>` children an array.
pub(crate) fn members(body: &str) -> (Map, Oddities) {
    let mut odd = Oddities::default();
    let mut out = Vec::new();
    let mut at = 0;
    while at < body.len() {
        let rest = &body[at..];
        let Some(lt) = rest.find('<') else {
            odd.stray |= !rest.trim().is_empty();
            break;
        };
        odd.stray |= !rest[..lt].trim().is_empty();
        if let Some((name, value, used)) = named_parameter(&rest[lt..]) {
            out.push((name, value));
            at += lt + used;
            continue;
        }
        match element(&rest[lt..], 0) {
            Some((name, value, used)) => {
                out.push((name, value));
                at += lt + used;
            }
            None => match open_tag(&rest[lt..]) {
                Some((name, used)) => {
                    // Unclosed: the rest is its value.
                    odd.unclosed = true;
                    let text = rest[lt + used..].to_owned();
                    out.push((name.to_owned(), Value::String(text)));
                    break;
                }
                None => {
                    odd.stray = true;
                    at += lt + 1;
                }
            },
        }
    }
    (object(out), odd)
}

/// A MiniMax M2 parameter in a body of elements (`<parameter name="city">Paris
/// </parameter>`, written where M3's `<city>` belongs): its key, its text and its
/// length.
fn named_parameter(s: &str) -> Option<(String, Value, usize)> {
    const OPEN: &str = "<parameter name=";
    const CLOSE: &str = "</parameter>";
    let rest = s.strip_prefix(OPEN)?;
    let gt = rest.find('>')?;
    let key = rest[..gt].trim().trim_matches(['"', '\'']);
    if key.is_empty() || key.contains(['<', '"', '\'']) {
        return None;
    }
    let head = OPEN.len() + gt + 1;
    let end = s[head..].find(CLOSE)? + head;
    let text = s[head..end].to_owned();
    Some((key.to_owned(), Value::String(text), end + CLOSE.len()))
}

/// The arguments attribute's value (`'{...}'`, `"{&quot;a&quot;: 1}"`) without its
/// quotes: opened and closed by different quotes, `mismatched_quote` (the JSON holds the
/// quote that opened it, which then cannot have closed it); in `"`, its entities undone.
fn attribute_value(body: &str, sink: &mut Sink<'_>) -> String {
    let body = body.trim();
    let mut chars = body.chars();
    let (Some(open @ ('"' | '\'')), Some(close @ ('"' | '\''))) = (chars.next(), chars.next_back())
    else {
        return body.to_owned();
    };
    let inner = chars.as_str();
    if open != close {
        sink.repair(Repair::MismatchedQuote);
        return inner.to_owned();
    }
    match open {
        '"' if !inner.contains('"') => super::attributes::unescape_entities(inner),
        _ => inner.to_owned(),
    }
}

/// `<name>` at the start of `s`: the name and the tag's length.
fn open_tag(s: &str) -> Option<(&str, usize)> {
    let gt = s.get(1..)?.find('>')? + 1;
    let name = &s[1..gt];
    valid_name(name).then_some((name, gt + 1))
}

/// Whether `name` can name an element.
pub(super) fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME
        && !name.starts_with(['/', '!', '?'])
        && !name.contains(|c: char| c.is_whitespace() || matches!(c, '<' | '>' | '/'))
}

/// One element at the start of `s`: its name, value and length.
fn element(s: &str, depth: usize) -> Option<(String, Value, usize)> {
    let (name, head) = open_tag(s)?;
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let mut level = 1;
    let mut at = head;
    loop {
        let next = s[at..].find(['<'])? + at;
        if s[next..].starts_with(&close) {
            level -= 1;
            if level == 0 {
                let inner = &s[head..next];
                return Some((name.to_owned(), value(inner, depth), next + close.len()));
            }
            at = next + close.len();
        } else if s[next..].starts_with(&open) {
            level += 1;
            at = next + open.len();
        } else {
            at = next + 1;
        }
    }
}

/// An element's content: child elements when all of it is elements, else its text.
fn value(inner: &str, depth: usize) -> Value {
    if depth < MAX_DEPTH && inner.trim_start().starts_with('<') {
        if let Some(children) = children(inner, depth + 1) {
            return container(children);
        }
    }
    Value::String(inner.to_owned())
}

/// Child elements as a value: an array when all are `<item>`, else an object.
pub(super) fn container(children: Vec<(String, Value)>) -> Value {
    if children.iter().all(|(name, _)| name == "item") {
        Value::Array(children.into_iter().map(|(_, v)| v).collect())
    } else {
        Value::Object(object(children))
    }
}

/// Only elements and blanks, or `None`.
fn children(inner: &str, depth: usize) -> Option<Vec<(String, Value)>> {
    let mut out = Vec::new();
    let mut rest = inner.trim_start();
    while !rest.is_empty() {
        let (name, value, used) = element(rest, depth)?;
        out.push((name, value));
        rest = rest[used..].trim_start();
    }
    (!out.is_empty()).then_some(out)
}

/// Members in order; a name seen again gathers its values in an array.
pub(super) fn object(members: Vec<(String, Value)>) -> Map {
    let mut map = Map::new();
    let mut repeated: Vec<String> = Vec::new();
    for (name, value) in members {
        match map.get_mut(&name) {
            None => {
                map.insert(name, value);
            }
            Some(Value::Array(list)) if repeated.contains(&name) => list.push(value),
            Some(first) => {
                let first = std::mem::take(first);
                map.insert(name.clone(), Value::Array(vec![first, value]));
                repeated.push(name);
            }
        }
    }
    map
}

impl Xml {
    /// One byte of a body of elements; at the function's closer, the whole body.
    pub(super) fn element_byte(&mut self, b: u8, sink: &mut Sink<'_>) -> Result<(), Abort> {
        self.raw.push(b);
        let close = match self.spec.name_in_tag {
            true => &self.tag_close[..],
            false => self.spec.func_close,
        };
        let closed = !close.is_empty() && self.raw.ends_with(close) && self.attribute_closed();
        let mut body_end = self.raw.len().saturating_sub(close.len());
        let mut again: Vec<u8> = Vec::new();
        let mut closer_seen = false;
        let ns = self.spec.tag_ns;
        if !ns.is_empty() {
            self.marks.step(&self.raw, ns);
        }
        let marked = self.marks.marked == Some(true);
        if let Some(at) = self.new_function(marked) {
            // The next function began where an element could: this one's closer was
            // dropped (if it has one). Its opener (with the namespace before it) is
            // read again.
            if !close.is_empty() {
                sink.repair(Repair::MissingCloser);
            }
            again = self.raw[at..].to_vec();
            body_end = at;
        } else if let Some(at) = self.call_closed() {
            // No function closer (or it was dropped): the call's closer ends the body.
            body_end = self.function_closer_before(at, sink);
            closer_seen = true;
        } else if !closed
            || (marked
                && (self.marks.inside() || !after_marker(&self.raw[..body_end], ns))
                && !self.dropped_markers(body_end))
        {
            if self.raw.len() > sink.config.limits.max_args_bytes {
                return Err(Abort::TooLarge);
            }
            return Ok(());
        }
        let mut body = String::from_utf8_lossy(&self.raw[..body_end]).into_owned();
        self.raw.clear();
        if self.spec.attribute_call {
            body = attribute_value(&body, sink);
        }
        if body.trim_start().starts_with('{') {
            // One JSON object as the arguments (`<tool_write>{"path": ...}`), without
            // the namespace marker of the closer after it.
            let json = body.trim().as_bytes();
            let json = json.strip_suffix(ns).unwrap_or(json).trim_ascii_end();
            self.json_arguments(json, sink);
            self.phase = Phase::Done;
            self.ended = Some(closer_seen);
            self.requeue(&again);
            return Ok(());
        }
        let (mut map, odd) = self.read_members(&body, marked);
        // The leaves are text, typed by the schema as an XML parameter's text is
        // (`null` where null is declared), and by what they read as where no schema
        // reaches: this grammar's own conversion, no repair but a Python spelling.
        let typed = sink.type_raw_members(&mut map);
        sink.repairs(typed.iter().filter(|r| *r != Repair::TypedValue).collect());
        if odd.stray {
            sink.repair(Repair::StrayText);
            // Text between elements, past a value's closing tag: the value, written
            // raw, may have held that tag and gone on (`</content>\n<a b> more`).
            sink.invalid(
                "text stands between the parameters' elements, so whether a value went on past its \
                 closing tag cannot be told; write each parameter as one element, nothing between them",
            );
        }
        if odd.unclosed {
            sink.repair(Repair::MismatchedTag);
            if self.spec.func_close.is_empty() {
                // With no function closer of its own (or one named after the tool), the
                // tag that ended the body may be a value's text: the value may go on.
                sink.invalid(
                    "an element of the arguments is not closed before the call's closing tag, \
                     so where its value ends cannot be told; close every element",
                );
            }
        }
        let mut args = Value::Object(map);
        if let Some(conformed) = sink.conform_args(&args) {
            // Typing text by the schema is this grammar's own conversion.
            let native = [
                Repair::StringToNumber,
                Repair::StringToBoolean,
                Repair::StringToArray,
                Repair::StringToObject,
            ];
            sink.repairs(
                conformed
                    .repairs
                    .iter()
                    .filter(|r| !native.contains(r))
                    .collect(),
            );
            if let Some(value) = conformed.value {
                args = value;
            }
        }
        if let Value::Object(map) = args {
            for (i, (key, value)) in map.iter().enumerate() {
                if i > 0 {
                    self.out.extend_from_slice(b", ");
                }
                crate::ordered::write_str(key, &mut self.out);
                self.out.extend_from_slice(b": ");
                value.write(&mut self.out);
            }
        }
        self.out.push(b'}');
        self.phase = Phase::Done;
        self.ended = Some(closer_seen);
        self.requeue(&again);
        Ok(())
    }

    /// For a call in one self-closing tag ([`XmlSpec::attribute_call`]), whether the
    /// `/>` just read ends it: right after the object's `}` and the value's closing
    /// quote (a `/>` inside the JSON, `<br/>`, is the value's). Other bodies: yes.
    fn attribute_closed(&self) -> bool {
        if !self.spec.attribute_call {
            return true;
        }
        let before = self.raw[..self.raw.len() - self.spec.func_close.len()].trim_ascii_end();
        before
            .strip_suffix(b"\"")
            .or_else(|| before.strip_suffix(b"'"))
            .is_some_and(|v| v.trim_ascii_end().ends_with(b"}"))
    }

    /// In a body of elements whose function has no closer of its own, or has it in its
    /// name ([`XmlSpec::name_in_tag`]): where the call's closer (or another marker that
    /// ends the call) begins, when the body just read it.
    fn call_closed(&self) -> Option<usize> {
        if !self.spec.func_close.is_empty() {
            return None;
        }
        std::iter::once(self.form.closer)
            .chain(self.spec.closer_alts.iter().copied())
            .find(|m| !m.is_empty() && self.raw.ends_with(m))
            .map(|m| self.raw.len() - m.len())
    }

    /// Where the body before the call's closer at `end` ends: before the function's
    /// closing tag when it was written misspelled (`<tool_read>...</tool_call>`,
    /// `mismatched_tag`: a closing tag of no element the body opened), or dropped
    /// (`missing_closer`), for a function whose name is in its tag.
    fn function_closer_before(&self, end: usize, sink: &mut Sink<'_>) -> usize {
        if !self.spec.name_in_tag {
            return end;
        }
        let body = self.raw[..end].trim_ascii_end();
        let tag = body
            .strip_suffix(b">")
            .and_then(|b| b.windows(2).rposition(|w| w == b"</"))
            .map(|lt| &body[lt + 2..body.len() - 1])
            .filter(|name| valid_name(&String::from_utf8_lossy(name)));
        if let Some(name) = tag {
            let open = [b"<", name, b">"].concat();
            if memchr::memmem::find(&body[..body.len() - name.len() - 3], &open).is_none() {
                sink.repair(Repair::MismatchedTag);
                return body.len() - name.len() - 3;
            }
        }
        sink.repair(Repair::MissingCloser);
        end
    }

    /// At a function closer the marked reading does not take (one inside an open
    /// element, or one without its marker): whether it is the closer all the same, the
    /// model having dropped markers (read with every tag as markup, the body up to it
    /// is whole elements). Else it is text, as in a file about tool calls.
    fn dropped_markers(&mut self, body_end: usize) -> bool {
        if self.marks.tries >= marked::MAX_TRIES {
            return false;
        }
        self.marks.tries += 1;
        let ns = String::from_utf8_lossy(self.spec.tag_ns);
        let body = String::from_utf8_lossy(&self.raw[..body_end]);
        members(&drop_namespace(&body, &ns)).1 == Oddities::default()
    }

    /// The members of `body`: in a call that marks its tags (its body opens with the
    /// namespace marker), read with only the marked tags as markup, unless that leaves
    /// an element unclosed or text between them (a marker the model dropped): then, as
    /// in a call that does not mark them, every tag is markup.
    fn read_members(&self, body: &str, marked: bool) -> (Map, Oddities) {
        let ns = String::from_utf8_lossy(self.spec.tag_ns);
        if marked {
            let (map, odd) = marked::members(body, &ns);
            if odd == Oddities::default() {
                return (map, odd);
            }
        }
        if ns.is_empty() {
            return members(body);
        }
        members(&drop_namespace(body, &ns))
    }

    /// In a body of elements that just read the function's opening tag where an element
    /// could begin (at the start, or after a closing tag): where that tag (and the
    /// namespace marker before it) begins. In a call that marks its tags, only a marked
    /// opening tag is one.
    fn new_function(&self, marked: bool) -> Option<usize> {
        let open = self.spec.func_open;
        if open.is_empty() || !self.raw.ends_with(open) {
            return None;
        }
        let mut at = self.raw.len() - open.len();
        let ns = self.spec.tag_ns;
        if marked && (self.marks.inside() || !after_marker(&self.raw[..at], ns)) {
            return None;
        }
        if !ns.is_empty() && self.raw[..at].ends_with(ns) {
            at -= ns.len();
        }
        let mut before = self.raw[..at].trim_ascii_end();
        if !ns.is_empty() {
            while let Some(rest) = before.strip_suffix(ns) {
                before = rest.trim_ascii_end();
            }
        }
        // All that came is the end of a namespace marker whose start was read as the
        // name (`NS<invoke name=NS<invoke name=`): nothing came.
        let broken_ns = !ns.is_empty() && ns.ends_with(before);
        let boundary = before.is_empty()
            || broken_ns
            || (before.ends_with(b">")
                && before
                    .iter()
                    .rposition(|&c| c == b'<')
                    .is_some_and(|lt| before[lt..].starts_with(b"</")));
        boundary.then_some(at)
    }
}

/// `text` without the namespace marker `ns`. A server that decodes special tokens
/// with spaces between them writes ` NS <tag>`: those spaces go with the marker.
fn drop_namespace(text: &str, ns: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(ns) {
        let after = &rest[at + ns.len()..];
        let spaced = after.starts_with(' ');
        let before = &rest[..at];
        out.push_str(if spaced {
            before.strip_suffix(' ').unwrap_or(before)
        } else {
            before
        });
        rest = if spaced { &after[1..] } else { after };
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn json(map: Map) -> serde_json::Value {
        Value::Object(map).to_serde()
    }

    #[test]
    fn nested_objects_lists_and_repeats() {
        let body = "\n<a>1</a>\n<o>\n<x>x</x>\n<y><item>1</item><item>2</item></y>\n</o>\
                    <t>p</t><t>q</t><t>r</t>\n";
        let (map, odd) = members(body);
        assert_eq!(odd, Oddities::default());
        assert_eq!(
            json(map),
            json!({"a": "1", "o": {"x": "x", "y": ["1", "2"]}, "t": ["p", "q", "r"]})
        );
    }

    #[test]
    fn text_with_markup_stays_text() {
        let (map, _) = members("<html><b>bold</b> and <i>x</i></html><cmp>a < b</cmp>");
        assert_eq!(
            json(map),
            json!({"html": "<b>bold</b> and <i>x</i>", "cmp": "a < b"})
        );
    }

    #[test]
    fn same_name_nesting_is_counted() {
        let (map, _) = members("<n><n>inner</n></n>");
        assert_eq!(json(map), json!({"n": {"n": "inner"}}));
    }

    #[test]
    fn stray_text_and_unclosed_elements_are_reported() {
        let (map, odd) = members("junk<a>1</a><b>tail");
        assert!(odd.stray && odd.unclosed);
        assert_eq!(json(map), json!({"a": "1", "b": "tail"}));
    }

    #[test]
    fn namespace_markers_go_with_their_decoding_spaces() {
        assert_eq!(drop_namespace("NS<a>1NS</a>", "NS"), "<a>1</a>");
        assert_eq!(
            drop_namespace("NS <a>1 NS </a>\nNS <b> x NS </b>", "NS"),
            "<a>1</a>\n<b> x</b>"
        );
        assert_eq!(drop_namespace("<a>two  NS</a>", "NS"), "<a>two  </a>");
    }
}
