//! What became of one written file: exact, escape-ambiguous, held or wrong.

use crate::embed::{Way, Written};
use serde_json::Value;
use toolsift::OwnedEvent;

/// The class of a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// Released, one call, `{"path": P, "content": C}` with C the file byte for byte.
    Exact,
    /// Released with the content differing only where the written text allows another
    /// reading of a backslash (see [`reading_of`]).
    Ambiguous,
    /// Not released, with a reason, and nothing wrong released.
    Held,
    /// Anything else.
    Wrong,
}

/// A class and what it rests on: the reasons a call was held, what a wrong release got
/// wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub class: Class,
    pub detail: String,
}

impl Outcome {
    fn new(class: Class, detail: impl Into<String>) -> Outcome {
        Outcome {
            class,
            detail: detail.into(),
        }
    }
}

/// What a run must come to: the file written `way` as `written` describes, to `path`.
pub struct Expect<'a> {
    pub way: Way,
    /// The arguments are Python (the form's strings read Python's escapes too).
    pub python: bool,
    pub path: &'a str,
    pub written: &'a Written,
}

/// Classify the events of one run.
pub fn classify(events: &[OwnedEvent], expect: &Expect) -> Outcome {
    let mut visible = String::new();
    let mut reasoning = String::new();
    let mut released = Vec::new();
    let mut held = Vec::new();
    for event in events {
        match event {
            OwnedEvent::Text(t) => visible.push_str(t),
            OwnedEvent::Reasoning(t) => reasoning.push_str(t),
            OwnedEvent::CallFinished {
                name,
                arguments,
                repairs,
                validation,
                ..
            } => released.push(Released {
                name,
                arguments,
                repairs: repairs.names().collect(),
                validation: validation.as_deref().unwrap_or_default(),
            }),
            OwnedEvent::CallNotReleased { reason, .. } => held.push(reason.as_str()),
            _ => {}
        }
    }
    // Any of the call in the visible text (or the visible text lost) is wrong whatever
    // became of the call.
    let shown = shown(&visible, &expect.written.visible).or_else(|| {
        (!reasoning.is_empty()).then(|| format!("reasoning: {}", excerpt(&reasoning, 0)))
    });
    let call = match (released.as_slice(), held.as_slice()) {
        ([], []) => Outcome::new(Class::Wrong, "the call was neither released nor reported"),
        ([], reasons) => Outcome::new(Class::Held, reasons.join(", ")),
        ([call], []) => released_call(call, expect, shown.is_some()),
        (released, held) => Outcome::new(
            Class::Wrong,
            format!("{} calls released, {} held", released.len(), held.len()),
        ),
    };
    match (shown, call.class) {
        (None, _) => call,
        (Some(shown), Class::Wrong) => {
            Outcome::new(Class::Wrong, format!("{}; {shown}", call.detail))
        }
        (Some(shown), class) => Outcome::new(
            Class::Wrong,
            format!(
                "the call {} ({}); {shown}",
                format!("{class:?}").to_lowercase(),
                call.detail
            ),
        ),
    }
}

/// How the visible text differs from what it must be, if it does.
fn shown(visible: &str, want: &str) -> Option<String> {
    if visible == want {
        return None;
    }
    let mut prefix = visible
        .bytes()
        .zip(want.bytes())
        .take_while(|(a, b)| a == b)
        .count();
    while !visible.is_char_boundary(prefix) {
        prefix -= 1;
    }
    let mut suffix = visible[prefix..]
        .bytes()
        .rev()
        .zip(want[prefix..].bytes().rev())
        .take_while(|(a, b)| a == b)
        .count();
    while !visible.is_char_boundary(visible.len() - suffix) {
        suffix -= 1;
    }
    let extra = &visible[prefix..visible.len() - suffix];
    let lost = want.len() - prefix - suffix;
    if lost > 0 {
        return Some(format!(
            "visible text lost: {} for {}",
            excerpt(visible, prefix),
            excerpt(want, prefix)
        ));
    }
    Some(format!(
        "{} bytes of the call in the visible text{}: {}",
        extra.len(),
        if extra.contains('<') || extra.contains('[') {
            ", markup included"
        } else {
            ""
        },
        excerpt(extra, 0)
    ))
}

/// A released call, as its `CallFinished` event has it.
struct Released<'a> {
    name: &'a str,
    arguments: &'a str,
    repairs: Vec<&'static str>,
    validation: &'a str,
}

/// Classify the one released call (`shown`: some of the call is in the visible text).
fn released_call(call: &Released, expect: &Expect, shown: bool) -> Outcome {
    let repairs = format!("repairs [{}]", call.repairs.join(", "));
    let mut outcome = classify_arguments(call.arguments, expect, shown);
    if call.name != "write_file" {
        outcome.class = Class::Wrong;
        outcome.detail = format!("released as {:?}, {}", call.name, outcome.detail);
    }
    if !call.validation.is_empty() {
        outcome.class = Class::Wrong;
        outcome.detail = format!(
            "{}, schema errors {}",
            outcome.detail,
            short(call.validation)
        );
    }
    outcome.detail = if outcome.detail.is_empty() {
        repairs
    } else {
        format!("{}, {repairs}", outcome.detail)
    };
    outcome
}

/// Classify arguments released (or repaired) for the file (`shown`: some of the call is
/// in the visible text).
pub fn classify_arguments(arguments: &str, expect: &Expect, shown: bool) -> Outcome {
    let args: serde_json::Map<String, Value> = match serde_json::from_str(arguments) {
        Ok(args) => args,
        Err(e) => return Outcome::new(Class::Wrong, format!("arguments: {e}")),
    };
    let (path, text) = (expect.path, expect.written.content.as_str());
    let mut problems = Vec::new();
    let extra: Vec<String> = args
        .keys()
        .filter(|k| *k != "path" && *k != "content")
        .map(|k| short(k))
        .collect();
    if !extra.is_empty() {
        problems.push(format!("extra keys [{}]", extra.join(", ")));
    }
    // A map keeps the last of two equal keys: count them in the text.
    let keys = top_level_keys(arguments);
    if keys.len() != args.len() {
        problems.push(format!("{} members for {} keys", keys.len(), args.len()));
    }
    match args.get("path") {
        Some(p) if p == path => {}
        Some(p) => problems.push(format!("path {}", short(&p.to_string()))),
        None => problems.push("no path".into()),
    }
    let mut class = Class::Exact;
    let mut first_difference = String::new();
    match args.get("content").map(Value::as_str) {
        Some(Some(content)) if content == text => {}
        Some(Some(content)) => {
            // Ways 1 and 2 and raw values have one reading; ways 3 and 4 as many as
            // backslashes.
            let branch = expect.way.raw_backslashes();
            let reference = if branch {
                expect.written.written.as_str()
            } else {
                text
            };
            let python = expect.python;
            match reading_of(reference.as_bytes(), content.as_bytes(), branch, python) {
                Ok(()) => {
                    class = Class::Ambiguous;
                    let at = text
                        .bytes()
                        .zip(content.bytes())
                        .take_while(|(a, b)| a == b)
                        .count();
                    first_difference = format!(
                        "first at file byte {at}: file {} released {}",
                        excerpt(text, at),
                        excerpt(content, at)
                    );
                }
                Err((at, got)) => {
                    let mut what = describe(reference, content, at, got, branch);
                    let cut = got == content.len() && at < reference.len();
                    if cut && extra.is_empty() && !shown {
                        what.push_str(", the rest in no key and not shown");
                    }
                    problems.insert(0, what);
                }
            }
        }
        Some(None) => problems.push("content not a string".into()),
        None => problems.push("no content".into()),
    }
    if problems.is_empty() {
        Outcome::new(class, first_difference)
    } else {
        Outcome::new(Class::Wrong, problems.join(", "))
    }
}

/// The keys of a strict JSON object's members, in order, repeated keys included.
fn top_level_keys(object: &str) -> Vec<String> {
    let bytes = object.as_bytes();
    let (mut depth, mut keys, mut i) = (0usize, Vec::new(), 0);
    while i < bytes.len() {
        match bytes[i] {
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth -= 1,
            b'"' => {
                let start = i;
                i += 1;
                while bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                let next = bytes[i + 1..].iter().find(|b| !b.is_ascii_whitespace());
                if depth == 1 && next == Some(&b':') {
                    keys.push(serde_json::from_str(&object[start..=i]).unwrap());
                }
            }
            _ => {}
        }
        i += 1;
    }
    keys
}

/// Whether `content` is a reading of `written`: byte for byte, except that (when
/// `branch`) each backslash is read either as a literal backslash or as the start of a
/// JSON escape (`\n`, `\"`, `\\`, `\u0041`, a surrogate pair), and in `python`
/// strings of Python's too (`\a`, `\x41`, `\101`, ...), each on its own. On failure,
/// the furthest place both could be followed to: (written offset, content offset).
pub fn reading_of(
    written: &[u8],
    content: &[u8],
    branch: bool,
    python: bool,
) -> Result<(), (usize, usize)> {
    let mut furthest = (0, 0);
    let mut stack = vec![(0usize, 0usize)];
    let mut seen = std::collections::HashSet::new();
    while let Some((mut i, mut j)) = stack.pop() {
        // The plain run up to the next backslash is one way only.
        while i < written.len()
            && j < content.len()
            && written[i] == content[j]
            && !(branch && written[i] == b'\\')
        {
            i += 1;
            j += 1;
        }
        if (j, i) > (furthest.1, furthest.0) {
            furthest = (i, j);
        }
        if i == written.len() && j == content.len() {
            return Ok(());
        }
        let at_backslash = branch && i < written.len() && written[i] == b'\\';
        if !(at_backslash && seen.insert((i, j))) {
            continue;
        }
        if content.get(j) == Some(&b'\\') {
            stack.push((i + 1, j + 1));
        }
        let decoded = escape(&written[i..]).map(|(used, c)| (used, Some(c)));
        let decoded = decoded.or_else(|| python.then(|| python_escape(&written[i..])).flatten());
        if let Some((used, decoded)) = decoded {
            let mut buf = [0; 4];
            let bytes = decoded.map_or(&[][..], |c| c.encode_utf8(&mut buf).as_bytes());
            if content[j..].starts_with(bytes) {
                stack.push((i + used, j + bytes.len()));
            }
        }
    }
    Err(furthest)
}

/// The JSON escape at the start of `s` (which starts with a backslash): bytes used and
/// the character.
fn escape(s: &[u8]) -> Option<(usize, char)> {
    let simple = match s.get(1)? {
        b'n' => '\n',
        b't' => '\t',
        b'r' => '\r',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'u' => {
            let unit = hex4(s.get(2..6)?)?;
            if let Some(c) = char::from_u32(unit) {
                return Some((6, c));
            }
            // A surrogate pair.
            if (0xd800..0xdc00).contains(&unit) && s.get(6..8) == Some(b"\\u") {
                let low = hex4(s.get(8..12)?)?;
                if (0xdc00..0xe000).contains(&low) {
                    let c = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
                    return Some((12, char::from_u32(c)?));
                }
            }
            return None;
        }
        _ => return None,
    };
    Some((2, simple))
}

/// The escape of Python's that JSON lacks at the start of `s` (which starts with a
/// backslash), as Python reads it: bytes used and the character (none for a line
/// continuation).
fn python_escape(s: &[u8]) -> Option<(usize, Option<char>)> {
    let hex = |n: usize| {
        let digits = std::str::from_utf8(s.get(2..2 + n)?).ok()?;
        if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        Some((
            2 + n,
            Some(char::from_u32(u32::from_str_radix(digits, 16).ok()?)?),
        ))
    };
    match *s.get(1)? {
        b'a' => Some((2, Some('\u{7}'))),
        b'v' => Some((2, Some('\u{b}'))),
        b'\'' => Some((2, Some('\''))),
        b'\n' => Some((2, None)),
        b'x' => hex(2),
        b'U' => hex(8),
        b'0'..=b'7' => {
            let digits = s[1..]
                .iter()
                .take(3)
                .take_while(|b| (b'0'..=b'7').contains(b));
            let (n, value) = digits.fold((0, 0), |(n, v), &b| (n + 1, v * 8 + u32::from(b - b'0')));
            Some((1 + n, Some(char::from_u32(value)?)))
        }
        _ => None,
    }
}

fn hex4(s: &[u8]) -> Option<u32> {
    let s = std::str::from_utf8(s).ok()?;
    if !s.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(s, 16).ok()
}

/// One line on what a wrong content got wrong: where it stops following the written text.
fn describe(reference: &str, content: &str, at: usize, got: usize, branch: bool) -> String {
    let of = if branch { "written" } else { "file" };
    if got == content.len() && at < reference.len() {
        return format!(
            "content cut at {of} byte {at} of {}, at {}",
            reference.len(),
            excerpt(reference, at)
        );
    }
    format!(
        "content leaves the {of} text at its byte {at} of {} (released byte {got} of {}): \
         {of} {} released {}",
        reference.len(),
        content.len(),
        excerpt(reference, at),
        excerpt(content, got)
    )
}

/// Up to 40 bytes of `text`, Debug-quoted.
fn short(text: &str) -> String {
    let end = (0..=text.len().min(40))
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap();
    let more = if end < text.len() { "..." } else { "" };
    format!("{:?}{more}", &text[..end])
}

/// Up to 40 bytes of `text` from `at` (on character boundaries), Debug-quoted, with the
/// 20 bytes before it.
pub fn excerpt(text: &str, at: usize) -> String {
    let floor = |mut i: usize| {
        i = i.min(text.len());
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let (start, at, end) = (floor(at.saturating_sub(20)), floor(at), floor(at + 40));
    format!("{:?}|{:?}", &text[start..at], &text[at..end])
}

/// The instrument itself: which readings count as escape-ambiguous.
#[test]
fn readings_of_a_written_text() {
    let ok = |w: &str, c: &str| reading_of(w.as_bytes(), c.as_bytes(), true, false).is_ok();
    // The intended reading, and each backslash read as an escape or as itself.
    assert!(ok(r"a\nb", r"a\nb"));
    assert!(ok(r"a\nb", "a\nb"));
    assert!(ok(r#"say \"hi\""#, r#"say "hi\""#));
    assert!(ok(r"\\n", r"\n"));
    assert!(ok(r"\\n", "\\\n"));
    assert!(ok(r"\u0041\d", r"A\d"));
    assert!(ok(r"\ud83d\ude00", "\u{1f600}"));
    // Way 4 writes a shell line continuation (`\` and a line break) as `\\n`.
    assert!(ok(r"a \\nb", r"a \nb"));
    // Not readings: a cut, a dropped byte, an escape that is not one.
    assert_eq!(reading_of(br"abc\n", b"ab", true, false), Err((2, 2)));
    assert!(!ok(r"a\qb", "aqb"));
    assert!(!ok(r"a\nb", "anb"));
    assert!(!ok(r"\ud83d", "\u{fffd}"));
    // Without branching, byte for byte.
    assert!(reading_of(br"a\nb", b"a\nb", false, false).is_err());
    assert_eq!(reading_of(b"abc", b"abX", false, false), Err((2, 2)));
    // In Python strings, Python's escapes are readings too (octal takes up to three
    // digits), JSON's still are; not in JSON strings.
    let py = |w: &str, c: &str| reading_of(w.as_bytes(), c.as_bytes(), true, true).is_ok();
    assert!(py(r"C:\agents\01", "C:\u{7}gents\u{1}"));
    assert!(py(r"C:\agents\01", r"C:\agents\01"));
    assert!(py(r"\2713", "\u{b9}3"));
    assert!(py(r"\x41\U0001F600\u00e9", "A\u{1f600}é"));
    assert!(py("a\\\nb", "ab"));
    assert!(!py(r"\2713", "\u{2}713"));
    assert!(!ok(r"\x41", "A"));
}

#[test]
fn keys_of_an_object_are_counted_with_repeats() {
    let keys = top_level_keys(r#"{"a": {"b": [1, {"c": 2}]}, "d\"": "e:", "a" : "f"}"#);
    assert_eq!(keys, ["a", "d\"", "a"]);
}

#[test]
fn a_call_cut_short_and_shown_is_wrong() {
    let events = |args: &str, shown: &str| {
        vec![
            OwnedEvent::Text(format!("{}{shown}", crate::embed::PREAMBLE)),
            OwnedEvent::CallFinished {
                index: toolsift::CallIndex(0),
                id: "call_0".into(),
                name: "write_file".into(),
                arguments: args.into(),
                repairs: Default::default(),
                validation: None,
            },
            OwnedEvent::End {
                stop: toolsift::StopReason::Stop,
                truncated: false,
            },
        ]
    };
    let class = |args: &str, shown: &str, way: Way| {
        let text = "x \\n \"y\"";
        let mut written = Written {
            raw: String::new(),
            visible: crate::embed::PREAMBLE.into(),
            arguments: String::new(),
            content: text.into(),
            written: String::new(),
        };
        way.write(text, &mut written.written);
        let expect = Expect {
            way,
            python: false,
            path: "a.txt",
            written: &written,
        };
        classify(&events(args, shown), &expect).class
    };
    let exact = r#"{"path": "a.txt", "content": "x \\n \"y\""}"#;
    let read = r#"{"path": "a.txt", "content": "x \n \"y\""}"#;
    assert_eq!(class(exact, "", Way::Escaped), Class::Exact);
    assert_eq!(class(read, "", Way::Raw), Class::Ambiguous);
    assert_eq!(class(read, "", Way::RawNewlines), Class::Wrong);
    assert_eq!(class(read, "", Way::Verbatim), Class::Wrong);
    assert_eq!(
        class(r#"{"path": "a.txt", "content": "x \\n "}"#, "", Way::Raw),
        Class::Wrong
    );
    assert_eq!(class(exact, "y\"}}", Way::Raw), Class::Wrong);
    let extra = r#"{"path": "a.txt", "content": "x \\n \"y\"", "y": 1}"#;
    assert_eq!(class(extra, "", Way::Raw), Class::Wrong);
    let twice = r#"{"path": "a.txt", "content": "x", "content": "x \\n \"y\""}"#;
    assert_eq!(class(twice, "", Way::Raw), Class::Wrong);
}
