//! Harmony message headers (gpt-oss, Muse-Glimmer): after `<|start|>` or `<|channel|>`,
//! the header runs to `<|message|>` and says what the message is.
//!
//! A recipient (`to=functions.NAME`, in the role part or the channel part) makes the
//! message a call: its content is the JSON arguments, ended by the value itself or by
//! `<|call|>`, `<|end|>` or the next `<|start|>` (`<|call|>` is a stop token and usually
//! absent). A header without a recipient is not a call: the `analysis` channel is
//! reasoning, every other channel is text. Dialects whose calls are markup of their own
//! in the content (Muse-Glimmer's `<atem:invoke>`) only drop the header.

use super::Step;
use crate::call::args::{ArgsReader, ArgsValue};
use crate::calls::Sink;
use crate::dialect::HarmonySpec;
use crate::json::repairer::{Options, Status};
use crate::repairs::Repair;
use crate::scan::MarkerSet;

/// What ends a header.
pub(crate) const MESSAGE: &[u8] = b"<|message|>";
/// What ends a call's arguments where structure is expected.
const ENDS: [&[u8]; 3] = [b"<|call|>", b"<|end|>", b"<|start|>"];

#[derive(Clone)]
pub(crate) struct Harmony {
    spec: &'static HarmonySpec,
    header: Vec<u8>,
    in_args: bool,
    leftover: Vec<u8>,
    /// After a weak opener (a header the prompt began): what is not a header is text.
    weak: bool,
    /// The arguments as written or string-encoded.
    value: ArgsValue,
}

/// What a finished header says.
pub(crate) enum Header {
    /// A call to this tool; `stray` when the header's first word was no role, channel
    /// or recipient and one followed it (`<|channel|>junk commentary to=...`): dropped,
    /// a repair.
    Call { name: String, stray: bool },
    /// Not a call: reasoning (`analysis`) or text.
    Switch { reasoning: bool },
}

impl Harmony {
    pub(crate) fn new(spec: &'static HarmonySpec, weak: bool) -> Harmony {
        Harmony {
            spec,
            header: Vec::new(),
            in_args: false,
            leftover: Vec::new(),
            weak,
            value: ArgsValue::default(),
        }
    }

    /// After a weak opener, or after one whose header does not read as one, the
    /// header has not ended yet (at the end of the stream, it is text).
    pub(crate) fn undecided(&self) -> bool {
        (self.weak || !self.header_like()) && !self.in_args
    }

    /// Whether the header read so far reads as one: empty, or its first word a role, a
    /// channel or a recipient (or, at its end, the start of one cut short), or holding
    /// other tokens. Prose after the opener (`<|channel|>not json at all`) does not:
    /// it is text.
    fn header_like(&self) -> bool {
        let header = self.header.as_slice();
        if memchr::memmem::find(header, b"<|").is_some() {
            // Other tokens in it: markup, dropped (and never read again as text).
            return true;
        }
        let Some(from) = header.iter().position(|b| !b.is_ascii_whitespace()) else {
            return true;
        };
        let end = header[from..]
            .iter()
            .position(u8::is_ascii_whitespace)
            .map_or(header.len(), |n| from + n);
        let (word, cut) = (&header[from..end], end == header.len());
        header_word(word) || (cut && WORDS.iter().any(|w| w.starts_with(word)))
    }

    /// The bytes read after a weak opener that turned out to begin no header.
    pub(crate) fn take_rejected(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.header)
    }

    pub(crate) fn take_leftover(&mut self, args: &mut ArgsReader) -> Vec<u8> {
        let mut rest = std::mem::take(&mut self.leftover);
        rest.extend(args.rep.take_leftover());
        rest
    }

    /// What [`take_leftover`](Self::take_leftover) would return, left in place.
    pub(crate) fn leftover(&self, args: &ArgsReader) -> Vec<u8> {
        [&self.leftover[..], args.rep.leftover()].concat()
    }

    pub(crate) fn feed(
        &mut self,
        input: &[u8],
        sink: &mut Sink<'_>,
        args: &mut ArgsReader,
    ) -> Step {
        let mut i = 0;
        if !self.in_args {
            let limit = sink.config.limits.max_name_bytes * 4;
            loop {
                let Some(&b) = input.get(i) else {
                    return Step::more(input.len());
                };
                if b == b'\n' && !self.header.is_empty() {
                    // A header is one line: this was markup followed by text, not a header
                    // (after a weak opener, or when it reads as prose, all of it is text).
                    if self.weak || !self.header_like() {
                        return Step::reject(i);
                    }
                    return Step::switch(i, false);
                }
                i += 1;
                self.header.push(b);
                if self.header.ends_with(MESSAGE) {
                    break;
                }
                if self.header.len() > limit {
                    // Too long for a header: not one; what follows is text.
                    if self.weak || !self.header_like() {
                        return Step::reject(i);
                    }
                    return Step::switch(i, false);
                }
            }
            let text = &self.header[..self.header.len() - MESSAGE.len()];
            match read_header(text, self.spec, sink) {
                Header::Switch { reasoning } => return Step::switch(i, reasoning),
                Header::Call { name, stray } => {
                    sink.name(&name);
                    if stray {
                        sink.repair(Repair::StrayText);
                    }
                    self.in_args = true;
                    let limits = &sink.config.limits;
                    args.rep.set_options(Options {
                        max_depth: limits.max_depth,
                        lookahead: limits.lookahead,
                        max_held: limits.max_held_bytes,
                        terminators: MarkerSet::new(&ENDS),
                        trailer: b"",
                        alt_string: b"",
                        // The header named the tool: its schema's keys are known.
                        keys: sink.key_check(1),
                        python: false,
                        tool_by_name: None,
                        keyless_key: b"",
                        log_repairs: false,
                    });
                }
            }
        }
        i += self.value.begin(&input[i..]);
        let status = args.read(&input[i..]);
        let done = !matches!(status, Status::NeedMore | Status::Fork { .. });
        if let Err(why) = self.value.write(&args.out, sink, done) {
            return Step::abort(why, input.len());
        }
        if let Status::Terminated { consumed, marker } = status {
            // The end marker is read again: stripped, or the next message's opener.
            self.leftover = ENDS[marker].to_vec();
            return Step::ended(i + consumed, false);
        }
        ArgsReader::step(status, i, input.len())
    }

    pub(crate) fn finish(&mut self, sink: &mut Sink<'_>, args: &mut ArgsReader) -> bool {
        if !self.in_args {
            return false;
        }
        let status = args.drain();
        let done = ArgsReader::complete(status);
        let _ = self.value.write(&args.out, sink, done);
        done
    }
}

/// The roles and channels a header begins with.
const WORDS: [&[u8]; 8] = [
    b"assistant",
    b"analysis",
    b"commentary",
    b"final",
    b"user",
    b"system",
    b"developer",
    b"tool",
];

/// Whether `word` is a header's own: a role, a channel (either with what the template
/// glues to it) or a recipient.
fn header_word(word: &[u8]) -> bool {
    word.starts_with(b"to=")
        || word.starts_with(b"functions.")
        || WORDS.iter().any(|w| word.starts_with(w))
}

/// Whether `text`, read after a message's opener, begins a header: a line whose first
/// word is a role, a channel or a recipient, or that holds a recipient or another token
/// (a stray word before them is a repair). `None` until the line has ended or shown
/// one: prose (`<|start|>` then a sentence, a file's markup) begins none.
pub(crate) fn begins_header(text: &[u8]) -> Option<bool> {
    let text = text.trim_ascii_start();
    let end = memchr::memchr(b'\n', text);
    let line = &text[..end.unwrap_or(text.len())];
    if memchr::memmem::find(line, b"<|").is_some() {
        return Some(true);
    }
    let mut words = line
        .split(u8::is_ascii_whitespace)
        .filter(|w| !w.is_empty());
    let first = words.next().unwrap_or_default();
    if header_word(first) || words.any(|w| w.starts_with(b"to=")) {
        Some(true)
    } else if end.is_some() {
        Some(false)
    } else {
        None
    }
}

/// The header's words, its tokens read as blanks.
fn header_words(text: &[u8]) -> String {
    String::from_utf8_lossy(text)
        .replace("<|channel|>", " ")
        .replace("<|constrain|>", " ")
        .replace("<|start|>", " ")
}

/// The recipient a header (up to its `<|message|>`) names, `to=` stripped: the last
/// one, a word after a blank or a token, up to a blank or the next token. (Bytes, not
/// [`header_words`]: read at each byte a caller waits on, it allocates nothing.)
pub(crate) fn recipient(header: &[u8]) -> Option<&[u8]> {
    let at = memchr::memmem::rfind_iter(header, b"to=").find(|&at| {
        at == 0 || header[at - 1].is_ascii_whitespace() || header[..at].ends_with(b"|>")
    })?;
    let to = &header[at + 3..];
    let end = to
        .iter()
        .position(|&b| b.is_ascii_whitespace() || b == b'<');
    Some(&to[..end.unwrap_or(to.len())])
}

/// Read a header: `assistant to=functions.f<|channel|>commentary json`, `analysis`,
/// `commentary to=functions.f <|constrain|>json`.
fn read_header(text: &[u8], spec: &HarmonySpec, sink: &Sink<'_>) -> Header {
    let text = header_words(text);
    let mut recipient = None;
    let mut reasoning = false;
    let stray = text
        .split_ascii_whitespace()
        .next()
        .is_some_and(|first| !header_word(first.as_bytes()))
        && text
            .split_ascii_whitespace()
            .skip(1)
            .any(|w| header_word(w.as_bytes()));
    for word in text.split_ascii_whitespace() {
        if let Some(to) = word.strip_prefix("to=") {
            recipient = Some(to.to_owned());
        } else if word == "analysis" {
            reasoning = true;
        }
    }
    match recipient {
        // A bare `to=functions` names no tool: the content carries its own markup.
        // `to=self` (Muse-Glimmer) is the model's own reasoning, `to=user` its answer.
        Some(to)
            if spec.json_args
                && !to.is_empty()
                && !matches!(&*to, "functions" | "self" | "user") =>
        {
            Header::Call {
                name: tool_name(&to, sink),
                stray,
            }
        }
        Some(to) if to == "self" => Header::Switch { reasoning: true },
        _ => Header::Switch { reasoning },
    }
}

/// The tool a recipient names: without `functions.`, and without a `json` content type
/// glued to it (`get_weatherjson`) unless that is the declared name.
fn tool_name(to: &str, sink: &Sink<'_>) -> String {
    let name = to.strip_prefix("functions.").unwrap_or(to);
    let tools = &sink.config.tools;
    if let Some(base) = name.strip_suffix("json") {
        let glued = if tools.is_empty() {
            !base.is_empty() && !base.ends_with(['_', '-', '.'])
        } else {
            tools.get(name).is_none() && tools.get(base).is_some()
        };
        if glued {
            return base.to_owned();
        }
    }
    name.to_owned()
}

#[cfg(test)]
mod tests {
    use super::{begins_header, recipient};

    #[test]
    fn a_headers_recipient_is_its_last_to_word() {
        let cases: &[(&str, Option<&str>)] = &[
            ("assistant to=functions", Some("functions")),
            (
                "commentary to=functions.f <|constrain|>json",
                Some("functions.f"),
            ),
            (
                "assistant<|channel|>commentary to=functions.g",
                Some("functions.g"),
            ),
            ("to=self", Some("self")),
            ("assistant to=x<|channel|>commentary to=user", Some("user")),
            ("analysis", None),
            ("auto=x pluto=y", None),
        ];
        for &(header, meant) in cases {
            let got = recipient(header.as_bytes()).map(|to| std::str::from_utf8(to).unwrap());
            assert_eq!(got, meant, "{header:?}");
        }
    }

    /// What follows a message's opener, and whether it begins a header. Every prefix of
    /// each reads as undecided or the same, so the answer does not depend on the chunks.
    #[test]
    fn a_header_begins_with_its_words_or_a_token() {
        let cases: &[(&str, Option<bool>)] = &[
            ("assistant to=functions<|message|>", Some(true)),
            ("assistant<|channel|>commentary to=functions.f", Some(true)),
            ("commentary to=functions.f <|constrain|>json", Some(true)),
            ("analysis<|message|>", Some(true)),
            ("junk commentary to=functions.f<|message|>", Some(true)),
            ("<|channel|>final", Some(true)),
            ("`. Send JSON with it.\n", Some(false)),
            ("main\n</header>\n", Some(false)),
            ("not json at all\n", Some(false)),
            ("the rest of a sentence", None),
            ("", None),
        ];
        for &(text, meant) in cases {
            assert_eq!(begins_header(text.as_bytes()), meant, "{text:?}");
            for cut in 0..text.len() {
                let early = begins_header(&text.as_bytes()[..cut]);
                assert!(
                    early.is_none() || early == meant,
                    "{text:?} cut at {cut}: {early:?}"
                );
            }
        }
    }
}
