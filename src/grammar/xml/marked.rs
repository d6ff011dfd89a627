//! A body of elements whose tags carry a namespace marker (MiniMax M3's
//! `]<]minimax[>[<city>Paris]<]minimax[>[</city>`). The format writes the marker before
//! every tag, so in a call whose body opens with it only a marked tag is markup: a file
//! holding `</city>`, or even `]<]minimax[>[</invoke>`, inside an open element is that
//! element's text.
//!
//! Two readers agree on what is markup: [`Marks`], fed the body byte by byte, knows
//! whether an element is open when the function's closer comes (then it is text), and
//! [`members`] reads the whole body at the closer. A leaf keeps its text as written,
//! markers included.

use super::elements::{container, object, valid_name, Oddities, MAX_DEPTH, MAX_NAME};
use crate::ordered::{Map, Value};

/// Whether `before` ends with the marker `ns`, or with it and the blank a server
/// decoding special tokens writes after it.
pub(super) fn after_marker(before: &[u8], ns: &[u8]) -> bool {
    before.ends_with(ns) || before.strip_suffix(b" ").is_some_and(|b| b.ends_with(ns))
}

/// The elements open so far in a marked body, fed byte by byte.
#[derive(Clone, Default)]
pub(crate) struct Marks {
    /// Whether the body marks its tags: decided at its first byte that is not blank.
    pub(super) marked: Option<bool>,
    /// The names of the open elements, outermost first (at most [`MAX_DEPTH`]).
    open: Vec<String>,
    /// Marked function closers met inside an element and tried as the closer of a body
    /// whose markers were dropped (at most [`MAX_TRIES`]).
    pub(super) tries: usize,
}

/// Most marked function closers inside an element tried as the closer: each try reads
/// the body so far, so the work stays linear.
pub(super) const MAX_TRIES: usize = 16;

impl Marks {
    /// After `raw` (the body so far) grew by one byte: what it changed.
    pub(super) fn step(&mut self, raw: &[u8], ns: &[u8]) {
        let Some(&b) = raw.last() else { return };
        if self.marked.is_none() {
            if b.is_ascii_whitespace() {
                return;
            }
            let rest = raw.trim_ascii_start();
            if !ns.starts_with(&rest[..rest.len().min(ns.len())]) {
                self.marked = Some(false);
            } else if rest.len() >= ns.len() {
                self.marked = Some(true);
            }
            return;
        }
        if self.marked != Some(true) || b != b'>' {
            return;
        }
        // The tag this `>` ends: it begins within a name's length.
        let from = raw.len().saturating_sub(MAX_NAME + 3);
        let Some(lt) = raw[from..]
            .iter()
            .rposition(|&c| c == b'<')
            .map(|i| from + i)
        else {
            return;
        };
        if !after_marker(&raw[..lt], ns) {
            return;
        }
        let Ok(tag) = std::str::from_utf8(&raw[lt + 1..raw.len() - 1]) else {
            return;
        };
        match tag.strip_prefix('/') {
            Some(name) => {
                if let Some(at) = self.open.iter().rposition(|n| n == name) {
                    self.open.truncate(at);
                }
            }
            None if valid_name(tag) && self.open.len() < MAX_DEPTH => {
                self.open.push(tag.to_owned());
            }
            None => {}
        }
    }

    /// Whether an element is open: a marked closer now is its text.
    pub(super) fn inside(&self) -> bool {
        !self.open.is_empty()
    }
}

/// One marked tag of a body: where it begins (its marker) and ends, its name, whether
/// it closes.
struct Tag<'a> {
    start: usize,
    end: usize,
    name: &'a str,
    close: bool,
}

/// Every marked tag of `body`, in order.
fn tags<'a>(body: &'a str, ns: &str) -> Vec<Tag<'a>> {
    let mut out = Vec::new();
    for (mut start, _) in body.match_indices(ns) {
        let mut lt = start + ns.len();
        if body[lt..].starts_with(" <") {
            // A server decoding the marker with blanks around it: they are the marker's.
            lt += 1;
            if body[..start].ends_with(' ') {
                start -= 1;
            }
        }
        let rest = &body[lt..];
        if !rest.starts_with('<') {
            continue;
        }
        let Some(gt) = rest[1..].find('>').filter(|gt| *gt <= MAX_NAME + 1) else {
            continue;
        };
        let inner = &rest[1..1 + gt];
        let (name, close) = match inner.strip_prefix('/') {
            Some(name) => (name, true),
            None => (inner, false),
        };
        if valid_name(name) {
            out.push(Tag {
                start,
                end: lt + gt + 2,
                name,
                close,
            });
        }
    }
    out
}

/// Whether the text between elements is blank, markers aside (the marker before the
/// function's closer ends the body).
fn blank(text: &str, ns: &str) -> bool {
    text.split(ns).all(|part| part.trim().is_empty())
}

/// The members of a marked body, as [`super::elements::members`] reads a bare one.
pub(super) fn members(body: &str, ns: &str) -> (Map, Oddities) {
    let tags = tags(body, ns);
    let mut odd = Oddities::default();
    let mut out = Vec::new();
    let (mut at, mut i) = (0, 0);
    while i < tags.len() {
        odd.stray |= !blank(&body[at..tags[i].start], ns);
        if tags[i].close {
            odd.stray = true;
            at = tags[i].end;
            i += 1;
            continue;
        }
        match element(body, &tags, i, 0) {
            Some((value, next)) => {
                out.push((tags[i].name.to_owned(), value));
                at = tags[next - 1].end;
                i = next;
            }
            None => {
                odd.unclosed = true;
                let text = body[tags[i].end..].to_owned();
                out.push((tags[i].name.to_owned(), Value::String(text)));
                at = body.len();
                break;
            }
        }
    }
    odd.stray |= !blank(&body[at..], ns);
    (object(out), odd)
}

/// The element opened by `tags[i]`: its value and the index after its closing tag.
fn element(body: &str, tags: &[Tag<'_>], i: usize, depth: usize) -> Option<(Value, usize)> {
    let name = tags[i].name;
    let mut level = 1;
    let j = (i + 1..tags.len()).find(|&j| {
        if tags[j].name == name {
            level += if tags[j].close { -1 } else { 1 };
        }
        level == 0
    })?;
    Some((value(body, tags, i, j, depth), j + 1))
}

/// The content between `tags[i]` and its closing `tags[j]`: child elements when all of
/// it is elements and blanks, else its text.
fn value(body: &str, tags: &[Tag<'_>], i: usize, j: usize, depth: usize) -> Value {
    let inner = &body[tags[i].end..tags[j].start];
    if depth < MAX_DEPTH {
        if let Some(children) = children(body, tags, i + 1, j, depth + 1) {
            return container(children);
        }
    }
    // As written: a marker in a value is its text (a file about the format);
    // dropping it would change the value with no repair to name.
    Value::String(inner.to_owned())
}

/// The elements `tags[from..to]` as children, when only blanks are between them.
fn children(
    body: &str,
    tags: &[Tag<'_>],
    from: usize,
    to: usize,
    depth: usize,
) -> Option<Vec<(String, Value)>> {
    let mut out = Vec::new();
    let mut at = tags[from - 1].end;
    let mut i = from;
    while i < to {
        if tags[i].close || !body[at..tags[i].start].trim().is_empty() {
            return None;
        }
        let (value, next) = element(body, &tags[..to], i, depth)?;
        out.push((tags[i].name.to_owned(), value));
        at = tags[next - 1].end;
        i = next;
    }
    (!out.is_empty() && body[at..tags[to].start].trim().is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const NS: &str = "]<]minimax[>[";

    fn read(body: &str) -> (serde_json::Value, Oddities) {
        let body = body.replace("NS", NS);
        let (map, odd) = members(&body, NS);
        (Value::Object(map).to_serde(), odd)
    }

    #[test]
    fn marked_tags_are_markup_and_bare_ones_text() {
        let cases = [
            ("NS<a>1NS</a>", json!({"a": "1"})),
            (
                "\nNS<o>NS<x>xNS</x> NS<y>NS<item>1NS</item>NS<item>2NS</item>NS</y>NS</o>\n",
                json!({"o": {"x": "x", "y": ["1", "2"]}}),
            ),
            ("NS<t>pNS</t>NS<t>qNS</t>", json!({"t": ["p", "q"]})),
            (
                "NS<c>see </c> and <c>x</c>NS</c>",
                json!({"c": "see </c> and <c>x</c>"}),
            ),
            (
                "NS<c>a NS</invoke> bNS</c>",
                json!({"c": format!("a {NS}</invoke> b")}),
            ),
            ("NS<c>a NS bNS</c>", json!({"c": format!("a {NS} b")})),
            ("NS <c>spacedNS </c>", json!({"c": "spaced"})),
            (
                "NS<c>NS<c>inNS</c>outNS</c>",
                json!({"c": format!("{NS}<c>in{NS}</c>out")}),
            ),
        ];
        for (body, want) in cases {
            let (got, odd) = read(body);
            assert_eq!(odd, Oddities::default(), "{body}");
            assert_eq!(got, want, "{body}");
        }
    }

    #[test]
    fn an_unclosed_element_or_stray_text_is_odd() {
        let (got, odd) = read("NS<a>1NS</a>NS<b>rest");
        assert!(odd.unclosed && !odd.stray);
        assert_eq!(got, json!({"a": "1", "b": "rest"}));
        let (_, odd) = read("NS<a>1NS</a> junk");
        assert!(odd.stray && !odd.unclosed);
    }

    #[test]
    fn the_tracker_sees_the_elements_the_reader_reads() {
        let ns = NS.as_bytes();
        for (body, inside_at_end) in [
            ("NS<a>1NS</a>", false),
            ("NS<a>1 </a>", true),
            ("NS<a>NS<b>xNS</b>", true),
            ("NS<a>NS<b>xNS</a>", false),
            ("NS<a>x NS</invoke>", true),
            ("<a>x</a>", false),
        ] {
            let body = body.replace("NS", NS);
            let mut marks = Marks::default();
            let mut raw = Vec::new();
            for &b in body.as_bytes() {
                raw.push(b);
                marks.step(&raw, ns);
            }
            assert_eq!(marks.inside(), inside_at_end, "{body}");
        }
    }
}
