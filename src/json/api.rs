//! `toolsift::repair`: the same repair rules over one complete text.

use super::cost;
use super::readings::{decide, Decision, Policy, ALTERNATIVES};
use super::repairer::{Options, Repairer, Status, LITERALS};
use crate::error::{Category, Error};
use crate::repairs::{Repair, Repairs};

/// The result of [`repair`]: strict JSON and the repairs applied to get it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Repaired {
    /// Strict JSON text (serde_json parses it).
    pub json: String,
    /// The repairs applied; empty when the input was already valid JSON.
    pub repairs: Repairs,
}

/// Repair one possibly malformed JSON text into strict JSON.
///
/// Valid JSON comes back byte for byte, with no repair reported. Otherwise the rules of
/// the streaming engine apply (see `docs/repairs.md`); a markdown fence around the value
/// and prose before or after it are removed. Fails when the text holds no JSON value or
/// nests deeper than 128 levels.
///
/// ```
/// let fixed = toolsift::repair(b"{'path': 'a.txt', recursive: True,}").unwrap();
/// assert_eq!(fixed.json, r#"{"path": "a.txt", "recursive": true}"#);
/// let names: Vec<_> = fixed.repairs.names().collect();
/// assert_eq!(names, ["single_quoted_string", "unquoted_key", "trailing_comma", "python_literal"]);
/// ```
pub fn repair(text: &[u8]) -> Result<Repaired, Error> {
    // Well-formed input comes back as it is, after one strict pass and one copy
    // (invariant 1).
    if let Some(json) = super::strict::whole_value(text, Options::default().max_depth) {
        return Ok(Repaired {
            json: json.to_owned(),
            repairs: Repairs::NONE,
        });
    }
    if let Some(fixed) = form_feeds_around(text) {
        return Ok(fixed);
    }
    let mut wrapping = Repairs::NONE;
    let body = strip_wrapping(text, &mut wrapping);
    let mut repairer = Repairer::new(Options {
        max_held: usize::MAX,
        ..Options::default()
    });
    repairer.set_policy(Policy::ARMED);
    let mut out = Vec::with_capacity(body.len() + 16);
    let mut status = repairer.feed(body, &mut out);
    // Competing readings of the first weak quote (`readings.rs`): forked there, each
    // read to the end, and the whole text decides.
    let mut fork = None;
    if let Status::Fork { consumed } = status {
        fork = Some((repairer.clone(), out.clone(), consumed));
        status = repairer.feed(&body[consumed..], &mut out);
        status = offset(status, consumed);
    }
    let primary = finish_reading(repairer, status, body, out);
    let Some((at_fork, written, consumed)) = fork else {
        return primary.map(|r| with(r, wrapping));
    };
    let verdict = at_fork.decided().expect("a fork holds its decision");
    let mut readings = vec![primary];
    for alt in ALTERNATIVES {
        let mut rep = at_fork.clone();
        rep.set_policy(alt.policy(verdict));
        let mut out = Vec::with_capacity(body.len() + 16);
        out.extend_from_slice(&written);
        let status = offset(rep.feed(&body[consumed..], &mut out), consumed);
        readings.push(finish_reading(rep, status, body, out));
    }
    let scored: Vec<Option<(u32, &str)>> = readings
        .iter()
        .map(|r| {
            r.as_ref()
                .ok()
                .map(|r| (cost::of(r.repairs), r.json.as_str()))
        })
        .collect();
    match decide(&scored) {
        Some(Decision::Take(n)) => {
            let taken = readings.swap_remove(n);
            taken.map(|r| with(r, wrapping))
        }
        Some(Decision::Ambiguous) => Err(Error::new(
            Category::Syntax,
            "a string holds unescaped quotes, and where it ends cannot be told",
        )),
        None => readings.swap_remove(0).map(|r| with(r, wrapping)),
    }
}

/// A well-formed value with form feeds among the blanks around it (ASCII whitespace
/// JSON does not allow there): the same text without them.
fn form_feeds_around(text: &[u8]) -> Option<Repaired> {
    let core = text.trim_ascii();
    if core.len() == text.len() {
        return None;
    }
    let value = super::strict::whole_value(core, Options::default().max_depth)?;
    let start = core.as_ptr() as usize - text.as_ptr() as usize;
    let blanks = |b: &[u8]| -> String {
        b.iter()
            .filter(|&&b| b != 0x0c)
            .map(|&b| b as char)
            .collect()
    };
    let json = blanks(&text[..start]) + value + &blanks(&text[start + core.len()..]);
    let mut repairs = Repairs::NONE;
    repairs.insert(Repair::SpecialWhitespace);
    Some(Repaired { json, repairs })
}

fn with(mut r: Repaired, wrapping: Repairs) -> Repaired {
    r.repairs = wrapping.union(r.repairs);
    r
}

/// `status` of a feed of `input[at..]`, as of `input`.
fn offset(status: Status, at: usize) -> Status {
    match status {
        Status::Complete { consumed } => Status::Complete {
            consumed: consumed + at,
        },
        other => other,
    }
}

/// End one reading of `body`: the repairer read it to `status`, writing `out`.
fn finish_reading(
    mut repairer: Repairer,
    status: Status,
    body: &[u8],
    mut out: Vec<u8>,
) -> Result<Repaired, Error> {
    let mut repairs = Repairs::NONE;
    let (status, tail) = match status {
        Status::Complete { consumed } => {
            let mut tail = repairer.take_leftover();
            tail.extend_from_slice(&body[consumed..]);
            (Status::Complete { consumed }, tail)
        }
        Status::NeedMore => {
            // The value may end only now (a held decision resolved at the end); what it
            // read past its end comes back as the tail.
            let status = repairer.finish(&mut out);
            (status, repairer.take_leftover())
        }
        Status::TooDeep { .. } => {
            return Err(Error::new(
                Category::Limit,
                "nesting deeper than 128 levels",
            ));
        }
        other => {
            return Err(Error::new(
                Category::Limit,
                format!("cannot repair: {other:?}"),
            ))
        }
    };
    // A top-level number or literal at the very end is complete as it is: only a value
    // whose text had to change at the end of input was cut off.
    let cut = out.trim_ascii() != body.trim_ascii();
    if !matches!(status, Status::Complete { .. }) && repairer.started() && cut {
        repairs.insert(Repair::MissingClosers);
    }
    if !repairer.started() {
        return Err(Error::new(Category::Syntax, "no JSON value in the input"));
    }
    repairs = repairs.union(repairer.repairs());
    // The end of the input bounds the value, as a closer bounds a call: a value that
    // may have been misread (a string written raw, structure invented around text)
    // and is followed by text ending in a string's quote and the value's closers went
    // on past where this reading ended it (a raw `"}` inside a string). No reading of
    // the whole text.
    let closing = out.trim_ascii_end().last().copied();
    let tail_end = tail.trim_ascii_end();
    let before_closers = tail_end
        .iter()
        .rposition(|b| !matches!(b, b'}' | b']') && !b.is_ascii_whitespace());
    if matches!(closing, Some(b'}' | b']'))
        && tail_end.last().copied() == closing
        && before_closers.is_some_and(|at| tail_end[at] == b'"')
        && crate::calls::misread(repairs)
    {
        return Err(Error::new(
            Category::Syntax,
            "text after the value ends as a string inside it would (`\"}`): a string holds unescaped quotes, and where it ends cannot be told",
        ));
    }
    // Blanks after the value are kept; anything else is dropped and reported.
    let blanks = tail.iter().take_while(|b| b.is_ascii_whitespace()).count();
    out.extend_from_slice(&tail[..blanks]);
    if blanks < tail.len() {
        repairs.insert(Repair::SurroundingText);
    }
    if let Err(err) = serde_json::from_slice::<&serde_json::value::RawValue>(&out) {
        return Err(Error::new(
            Category::Syntax,
            format!("repaired text is still not JSON: {err}"),
        ));
    }
    let json = String::from_utf8(out)
        .map_err(|_| Error::new(Category::Syntax, "repaired text is not UTF-8"))?;
    Ok(Repaired { json, repairs })
}

/// Remove a markdown fence and prose around the value.
fn strip_wrapping<'a>(text: &'a [u8], repairs: &mut Repairs) -> &'a [u8] {
    let start = text
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(text.len());
    let rest = &text[start..];
    if rest.starts_with(b"```") {
        repairs.insert(Repair::MarkdownFence);
        let body_start = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
        let body = &rest[body_start..];
        let end = memchr::memmem::find(body, b"```").unwrap_or(body.len());
        return &body[..end];
    }
    if let Some(&first) = rest.first() {
        if first.is_ascii_alphabetic() && !starts_with_literal(rest) {
            if let Some(open) = rest.iter().position(|&b| b == b'{' || b == b'[') {
                repairs.insert(Repair::SurroundingText);
                return &rest[open..];
            }
        }
    }
    text
}

fn starts_with_literal(text: &[u8]) -> bool {
    LITERALS.iter().any(|l| {
        text.starts_with(l) && text.get(l.len()).is_none_or(|b| !b.is_ascii_alphanumeric())
    })
}
