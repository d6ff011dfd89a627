//! Argument grammars: what follows a call's opening marker, as the dialect data says.

mod call_list;
mod envelope;
pub(crate) mod harmony;
mod name_args;
mod pythonic;
mod xml;

use crate::call::args::ArgsReader;
use crate::calls::{Abort, Sink};
use crate::dialect::{Body, CallForm, Dialect, EnvelopeSpec, XmlSpec};
use crate::repairs::Repair;

pub(crate) use call_list::{ListGate, Verdict};
pub(crate) use envelope::Envelope;
pub(crate) use harmony::Harmony;
pub(crate) use name_args::NameArgs;
pub(crate) use pythonic::{python_native, Python, LIST_MARKUP};
pub(crate) use xml::Xml;

/// What feeding a grammar came to: how many input bytes it used, and what then.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Step {
    /// Input bytes used (all of them for [`StepKind::NeedMore`]).
    pub consumed: usize,
    pub kind: StepKind,
}

/// What a grammar stopped on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum StepKind {
    /// All input was used; the body goes on.
    NeedMore,
    /// The body ended (the grammar's leftover comes before the unused input).
    /// `closer_seen`: the call's closing marker was consumed too.
    Ended { closer_seen: bool },
    /// The call must end early.
    Abort(Abort),
    /// What followed a weak opener is not a call: the opener and the bytes used are
    /// text (see [`Grammar::take_rejected`]).
    Reject,
    /// A header that is not a call ended: it is dropped, and what follows is
    /// reasoning or text.
    Switch { reasoning: bool },
    /// The value reader stopped at its first weak decision (a quote that may end a
    /// string or be its content): the call forks its competing readings here
    /// (`call::readings`), then feeds the grammar the rest.
    Fork,
    /// In a body of several calls read as one call's competing readings: the call
    /// ended (not released) and the body goes on (`Policy::one_call`).
    CallEnded,
}

impl Step {
    /// All of `len` input bytes used; the body goes on.
    pub(crate) fn more(len: usize) -> Step {
        Step {
            consumed: len,
            kind: StepKind::NeedMore,
        }
    }

    /// The body ended after `consumed` bytes.
    pub(crate) fn ended(consumed: usize, closer_seen: bool) -> Step {
        Step {
            consumed,
            kind: StepKind::Ended { closer_seen },
        }
    }

    /// The call ends early, after `consumed` bytes.
    pub(crate) fn abort(why: Abort, consumed: usize) -> Step {
        Step {
            consumed,
            kind: StepKind::Abort(why),
        }
    }

    /// Not a call: the first `consumed` bytes are text.
    pub(crate) fn reject(consumed: usize) -> Step {
        Step {
            consumed,
            kind: StepKind::Reject,
        }
    }

    /// A header that is not a call ended after `consumed` bytes.
    pub(crate) fn switch(consumed: usize, reasoning: bool) -> Step {
        Step {
            consumed,
            kind: StepKind::Switch { reasoning },
        }
    }

    /// Whether the body goes on.
    pub(crate) fn goes_on(self) -> bool {
        self.kind == StepKind::NeedMore
    }

    /// The step of input that began with `n` bytes given before (and counted then).
    pub(crate) fn shifted_back(self, n: usize) -> Step {
        Step {
            consumed: self.consumed.saturating_sub(n),
            ..self
        }
    }

    /// The step of the input that followed `n` bytes already used.
    pub(crate) fn after(self, n: usize) -> Step {
        Step {
            consumed: n + self.consumed,
            ..self
        }
    }
}

/// The most input bytes a grammar built on the repairer reads in one pass: its output
/// buffer (`scratch`) stays small when a large body is pushed whole. The result does not
/// depend on the split.
pub(crate) const SLICE: usize = 64 * 1024;

/// Feed `input` to `feed` at most `SLICE` bytes at a time, until a step other than
/// `NeedMore`.
pub(crate) fn sliced(input: &[u8], mut feed: impl FnMut(&[u8]) -> Step) -> Step {
    let mut at = 0;
    loop {
        let end = input.len().min(at + SLICE);
        let step = feed(&input[at..end]);
        if !step.goes_on() || end == input.len() {
            return step.after(at);
        }
        at = end;
    }
}

#[derive(Clone)]
pub(crate) enum Grammar {
    /// Choosing among bodies by how the body begins; the bytes so far are held.
    Sniff {
        bodies: &'static [Body],
        held: Vec<u8>,
        /// The chosen body follows a weak opener.
        weak: bool,
        /// What the body may begin with.
        begins: Begins,
        /// `held[..start]` are blanks before the body, found once (sniffing reads from
        /// here, so a long run of them is linear work).
        start: usize,
    },
    Envelope(Envelope),
    /// A JSON call object found without a marker, held until its first key tells
    /// whether it is one (see [`gate`]).
    Gate {
        spec: &'static EnvelopeSpec,
        held: Vec<u8>,
    },
    /// An XML call's name after a weak opener (Beam's ` to=`), held until the name's
    /// closing tag (or a parameter's opening tag) shows it is one (see [`xml_gate`]).
    XmlGate {
        spec: &'static XmlSpec,
        held: Vec<u8>,
    },
    /// A Python call list found without a marker (`auto`), held until it shows whether
    /// it is one (see [`call_list`]).
    ListGate(Box<ListGate>),
    Xml(Box<Xml>),
    NameArgs(NameArgs),
    Harmony(Harmony),
    Python(Python),
}

impl Grammar {
    pub(crate) fn new(body: &'static Body, form: &'static CallForm, weak: bool) -> Grammar {
        match body {
            // A marker's body is sniffed first: prose after the marker began no call
            // (after a label saying a call follows, it is a call that does not parse).
            Body::Envelope(_) | Body::NameArgs(_) | Body::Xml(_) | Body::Pythonic(_)
                if !weak && !matches!(body, Body::Pythonic(p) if p.markerless) =>
            {
                Grammar::Sniff {
                    bodies: std::slice::from_ref(body),
                    held: Vec::new(),
                    weak,
                    begins: Begins::of(form, body),
                    start: 0,
                }
            }
            _ => Grammar::reader(body, form, weak),
        }
    }

    /// The grammar that reads `body` (once sniffed, or without sniffing).
    fn reader(body: &'static Body, form: &'static CallForm, weak: bool) -> Grammar {
        let closer = form.closer;
        match body {
            Body::Envelope(spec) if weak => Grammar::Gate {
                spec,
                held: Vec::new(),
            },
            Body::Envelope(spec) => Grammar::Envelope(Envelope::new(spec)),
            Body::Xml(spec) if weak && !spec.nameless && spec.name_open.is_empty() => {
                Grammar::XmlGate {
                    spec,
                    held: Vec::new(),
                }
            }
            Body::Xml(spec) => Grammar::Xml(Box::new(Xml::new(spec, form))),
            Body::NameArgs(spec) => Grammar::NameArgs(NameArgs::new(spec, weak)),
            Body::Harmony(spec) => Grammar::Harmony(Harmony::new(spec, weak)),
            Body::Pythonic(spec) if spec.markerless => {
                Grammar::ListGate(Box::new(ListGate::new(spec, MAX_LIST_DEPTH)))
            }
            Body::Pythonic(spec) => Grammar::Python(Python::new(spec, closer, weak)),
            Body::Sniff(bodies) => Grammar::Sniff {
                bodies,
                held: Vec::new(),
                weak,
                begins: Begins::of(form, body),
                start: 0,
            },
        }
    }

    /// The body a sniffing grammar chose, for `auto` locking.
    pub(crate) fn chosen(body: &'static Body) -> Option<Dialect> {
        crate::dialect::dialect_of_body(body)
    }

    /// Whether a string of the call object still open (its name, a key) holds
    /// `marker`: the call's closer read into it, so the model ended the call there.
    pub(crate) fn open_string_holds(&self, marker: &[u8]) -> bool {
        match self {
            Grammar::Envelope(e) => e.open_string_holds(marker),
            // Their names and keys end at a tag or a separator, not a quote.
            Grammar::Xml(_)
            | Grammar::NameArgs(_)
            | Grammar::Harmony(_)
            | Grammar::Python(_)
            | Grammar::Sniff { .. }
            | Grammar::Gate { .. }
            | Grammar::XmlGate { .. }
            | Grammar::ListGate(_) => false,
        }
    }

    /// Bytes the grammar and the repairer examined since the last call.
    pub(crate) fn take_work(&mut self, args: &mut ArgsReader) -> u64 {
        let own = match self {
            Grammar::Xml(x) => x.take_work(),
            // The others' work is the repairer's, or a few header bytes.
            Grammar::Envelope(_)
            | Grammar::NameArgs(_)
            | Grammar::Harmony(_)
            | Grammar::Python(_)
            | Grammar::Sniff { .. }
            | Grammar::Gate { .. }
            | Grammar::XmlGate { .. }
            | Grammar::ListGate(_) => 0,
        };
        own + args.rep.take_work()
    }

    /// Bytes read past the body's end, to be read again after it.
    pub(crate) fn take_leftover(&mut self, args: &mut ArgsReader) -> Vec<u8> {
        match self {
            Grammar::Sniff { held, start, .. } => {
                *start = 0;
                std::mem::take(held)
            }
            Grammar::Gate { held, .. } | Grammar::XmlGate { held, .. } => std::mem::take(held),
            Grammar::ListGate(g) => std::mem::take(g.held()),
            Grammar::Envelope(_) => args.rep.take_leftover(),
            Grammar::Xml(x) => x.take_leftover(),
            Grammar::NameArgs(n) => n.take_leftover(args),
            Grammar::Harmony(h) => h.take_leftover(args),
            Grammar::Python(p) => p.take_leftover(args),
        }
    }

    /// Bytes to read again before the next input, after what the grammar read past its
    /// place already: the rest of a body of several calls after one call's readings
    /// were decided.
    pub(crate) fn push_back(&mut self, args: &mut ArgsReader, bytes: &[u8]) {
        match self {
            Grammar::Python(p) => p.push_back(bytes),
            Grammar::Xml(x) => x.push_back(bytes),
            Grammar::Sniff { held, .. }
            | Grammar::Gate { held, .. }
            | Grammar::XmlGate { held, .. } => held.extend_from_slice(bytes),
            Grammar::ListGate(g) => g.held().extend_from_slice(bytes),
            // They read every byte through their value reader first.
            Grammar::Envelope(_) | Grammar::NameArgs(_) | Grammar::Harmony(_) => {
                args.rep.push_leftover(bytes)
            }
        }
    }

    /// Whether the body holds several calls, each ending inside it (a JSON array of
    /// call objects, a list of Python calls).
    pub(crate) fn calls_inside(&self) -> bool {
        match self {
            Grammar::Envelope(e) => e.array_body(),
            Grammar::Python(_) => true,
            Grammar::Xml(_)
            | Grammar::NameArgs(_)
            | Grammar::Harmony(_)
            | Grammar::Sniff { .. }
            | Grammar::Gate { .. }
            | Grammar::XmlGate { .. }
            | Grammar::ListGate(_) => false,
        }
    }

    /// What [`take_leftover`](Self::take_leftover) would return, left in place.
    pub(crate) fn leftover(&self, args: &ArgsReader) -> Vec<u8> {
        match self {
            Grammar::Sniff { held, .. }
            | Grammar::Gate { held, .. }
            | Grammar::XmlGate { held, .. } => held.clone(),
            Grammar::ListGate(g) => g.held_bytes().to_vec(),
            Grammar::Envelope(_) => args.rep.leftover().to_vec(),
            Grammar::Xml(x) => x.leftover(),
            Grammar::NameArgs(n) => n.leftover(args),
            Grammar::Harmony(h) => h.leftover(args),
            Grammar::Python(p) => p.leftover(args),
        }
    }

    pub(crate) fn feed(
        &mut self,
        input: &[u8],
        sink: &mut Sink<'_>,
        args: &mut ArgsReader,
        form: &'static CallForm,
        chosen: &mut Option<&'static Body>,
    ) -> Step {
        let closer = form.closer;
        match self {
            Grammar::Envelope(e) => e.feed(input, sink, args),
            Grammar::Gate { spec, held } => {
                let before = held.len();
                for (n, &b) in input.iter().enumerate() {
                    held.push(b);
                    match gate(spec, held, &sink.config.tools) {
                        None => {}
                        Some(false) => return Step::reject(n + 1),
                        Some(true) => {
                            // A call: the envelope reads it from its first byte.
                            let mut again = std::mem::take(held);
                            if let Some(at) = doubled_brace(&again) {
                                again.remove(at);
                                sink.repair(Repair::DoubledBraces);
                            }
                            again.extend_from_slice(&input[n + 1..]);
                            *self = Grammar::Envelope(Envelope::new(spec));
                            let step = self.feed(&again, sink, args, form, chosen);
                            let stopped = matches!(step.kind, StepKind::Fork | StepKind::CallEnded);
                            if stopped && step.consumed < before {
                                // Forked inside the held bytes: read the rest of them first.
                                args.rep.push_leftover(&again[step.consumed..before]);
                            }
                            return step.shifted_back(before);
                        }
                    }
                }
                Step::more(input.len())
            }
            Grammar::XmlGate { spec, held } => {
                let before = held.len();
                for (n, &b) in input.iter().enumerate() {
                    held.push(b);
                    match xml_gate(spec, held, sink.config.limits.max_name_bytes) {
                        None => {}
                        Some(false) => return Step::reject(n + 1),
                        Some(true) => {
                            // A call: the XML body reads it from its first byte.
                            let mut again = std::mem::take(held);
                            again.extend_from_slice(&input[n + 1..]);
                            *self = Grammar::Xml(Box::new(Xml::new(spec, form)));
                            let step = self.feed(&again, sink, args, form, chosen);
                            return step.shifted_back(before);
                        }
                    }
                }
                Step::more(input.len())
            }
            Grammar::ListGate(gate) => {
                for (n, &b) in input.iter().enumerate() {
                    match gate.push(b, &sink.config.tools) {
                        Verdict::Open => {}
                        Verdict::Text => return Step::reject(n + 1),
                        Verdict::Calls => {
                            // Calls: the Python grammar reads them from the list's `[`.
                            self.claim_list(closer);
                            return self
                                .feed(&input[n + 1..], sink, args, form, chosen)
                                .after(n + 1);
                        }
                    }
                }
                Step::more(input.len())
            }
            Grammar::Xml(x) => x.feed(input, sink),
            Grammar::NameArgs(n) => sliced(input, |piece| n.feed(piece, sink, args)),
            Grammar::Harmony(h) => sliced(input, |piece| h.feed(piece, sink, args)),
            Grammar::Python(p) => sliced(input, |piece| p.feed(piece, sink, args)),
            Grammar::Sniff {
                bodies,
                held,
                weak,
                begins,
                start,
            } => {
                let (weak, begins) = (*weak, *begins);
                let before = held.len();
                let mut decided = None;
                let mut doubled = false;
                let mut stray = None;
                let mut used = 0;
                for &b in input {
                    held.push(b);
                    used += 1;
                    if !may_decide(held, *start, begins) {
                        continue;
                    }
                    let from = *start;
                    *start += held[from..]
                        .iter()
                        .take_while(|b| b.is_ascii_whitespace())
                        .count();
                    // Sniffing reads what is held past the blanks (work: `Stats::work`).
                    sink.stats.examined((held.len() - from) as u64);
                    match sniff(bodies, held, *start, closer, begins) {
                        Sniffed::Wait => {}
                        Sniffed::Body(body) => {
                            decided = Some(body);
                            break;
                        }
                        Sniffed::Doubled(body) => {
                            decided = Some(body);
                            doubled = true;
                            break;
                        }
                        Sniffed::Stray(body, at) => {
                            decided = Some(body);
                            stray = Some(at);
                            break;
                        }
                        // Not a call: the held bytes are text (`take_rejected`).
                        Sniffed::Prose => return Step::reject(used),
                    }
                }
                let Some(body) = decided else {
                    return Step::more(input.len());
                };
                let mut held = std::mem::take(held);
                if doubled {
                    // The outer brace is dropped; the extra closer after the object is
                    // a redundant one (`AfterCall`).
                    let at = doubled_brace(&held).expect("sniffed");
                    held.remove(at);
                    sink.repair(Repair::DoubledBraces);
                }
                if let Some(at) = stray {
                    // The word before the body's name tag is dropped.
                    held.drain(..at);
                    sink.repair(Repair::StrayText);
                }
                if held.trim_ascii_start().starts_with(closer) && !closer.is_empty() {
                    // Nothing but blanks before the closer.
                    sink.nameless_start();
                }
                *chosen = Some(body);
                *self = Grammar::reader(body, form, weak);
                if before == 0 && !doubled && stray.is_none() {
                    // Every byte sniffed came from this input: the body reads it whole
                    // (a well-formed call pushed whole takes the strict fast path).
                    return self.feed(input, sink, args, form, chosen);
                }
                let step = self.feed(&held, sink, args, form, chosen);
                match step.kind {
                    StepKind::NeedMore => self
                        .feed(&input[used..], sink, args, form, chosen)
                        .after(used),
                    StepKind::Ended { .. } => {
                        // The body ended inside the held bytes: the rest comes back.
                        let mut rest = self.take_leftover(args);
                        rest.extend_from_slice(&held[step.consumed..]);
                        *self = Grammar::Sniff {
                            bodies: &[],
                            held: rest,
                            weak: false,
                            begins: Begins::Any,
                            start: 0,
                        };
                        Step {
                            consumed: used,
                            ..step
                        }
                    }
                    StepKind::Reject => {
                        // Not a call: what the body read is text again, and so are the
                        // held bytes it did not read.
                        let mut back = self.take_rejected();
                        back.extend_from_slice(&held[step.consumed.min(held.len())..]);
                        *self = Grammar::Sniff {
                            bodies: &[],
                            held: back,
                            weak: false,
                            begins: Begins::Any,
                            start: 0,
                        };
                        Step::reject(used)
                    }
                    StepKind::Fork | StepKind::CallEnded => {
                        // Forked (or a forked call ended) inside the held bytes: the
                        // value reader reads the rest of them first (and every reading,
                        // cloned from it, too).
                        args.rep.push_leftover(&held[step.consumed..]);
                        Step {
                            consumed: used,
                            ..step
                        }
                    }
                    StepKind::Abort(_) | StepKind::Switch { .. } => Step {
                        consumed: used,
                        ..step
                    },
                }
            }
        }
    }

    /// At the end of a stream that was not cut, a body whose values are all closed and
    /// that lacks only its closing markers is complete: close it. Whether it was.
    pub(crate) fn close_clean(&mut self, sink: &mut Sink<'_>) -> bool {
        match self {
            Grammar::Xml(x) => x.close_clean(sink),
            // A JSON value missing its closers was cut; its closers are the repairer's.
            Grammar::Envelope(_)
            | Grammar::NameArgs(_)
            | Grammar::Harmony(_)
            | Grammar::Python(_)
            | Grammar::Sniff { .. }
            | Grammar::Gate { .. }
            | Grammar::XmlGate { .. }
            | Grammar::ListGate(_) => false,
        }
    }

    /// Whether the grammar still waits to tell whether its body is a call at all (a
    /// weak opener's or markerless JSON's): at the end of the stream, it is text.
    pub(crate) fn undecided(&self) -> bool {
        match self {
            Grammar::Gate { .. } | Grammar::XmlGate { .. } => true,
            Grammar::ListGate(g) => !g.calls_at_end(),
            // A tag that never closed: the prefix was a bare marker, the rest text.
            Grammar::Sniff {
                weak,
                bodies,
                begins,
                ..
            } => (*weak || *begins == Begins::Tag) && !bodies.is_empty(),
            Grammar::Python(p) => p.undecided(),
            Grammar::Harmony(h) => h.undecided(),
            Grammar::NameArgs(n) => n.undecided(),
            Grammar::Envelope(_) | Grammar::Xml(_) => false,
        }
    }

    /// A Python list went on past a call's `)` with no separator (a raw string holding
    /// `')`): that call was not released, and what follows, up to the list's end, was
    /// its (`Parser::remains`).
    pub(crate) fn list_broke(&self) -> bool {
        matches!(self, Grammar::Python(p) if p.broke())
    }

    /// The bytes a rejected weak call read, to be text.
    pub(crate) fn take_rejected(&mut self) -> Vec<u8> {
        match self {
            Grammar::Sniff { held, start, .. } => {
                *start = 0;
                std::mem::take(held)
            }
            Grammar::Gate { held, .. } | Grammar::XmlGate { held, .. } => std::mem::take(held),
            Grammar::ListGate(g) => std::mem::take(g.held()),
            Grammar::Harmony(h) => h.take_rejected(),
            Grammar::NameArgs(n) => n.take_rejected(),
            Grammar::Python(p) => p.take_rejected(),
            // Bodies a marker opened: never rejected.
            Grammar::Envelope(_) | Grammar::Xml(_) => Vec::new(),
        }
    }

    /// At the end of the stream: whether the body is complete.
    pub(crate) fn finish(&mut self, sink: &mut Sink<'_>, args: &mut ArgsReader) -> bool {
        match self {
            Grammar::Envelope(e) => e.finish(sink, args),
            Grammar::Xml(x) => x.finish(sink),
            Grammar::NameArgs(n) => n.finish(sink, args),
            Grammar::Harmony(h) => h.finish(sink, args),
            Grammar::Python(p) => p.finish(sink, args),
            Grammar::Sniff { .. }
            | Grammar::Gate { .. }
            | Grammar::XmlGate { .. }
            | Grammar::ListGate(_) => false,
        }
    }

    /// A held bare list is calls (its gate said so, or the output ended where
    /// [`ListGate::calls_at_end`] says it is): the Python grammar reads it, the held
    /// bytes first. Whether there was such a list.
    pub(crate) fn claim_list(&mut self, closer: &'static [u8]) -> bool {
        let Grammar::ListGate(gate) = self else {
            return false;
        };
        let gate = std::mem::replace(gate, Box::new(ListGate::new(&NO_LIST, 0)));
        *self = Grammar::Python(gate.into_python(closer));
        true
    }
}

/// A placeholder while a gate is taken apart.
static NO_LIST: crate::dialect::PythonicSpec = crate::dialect::PythonicSpec {
    in_list: false,
    markerless: true,
};

/// How deep a markerless list's values may nest (serde_json's limit): deeper is text.
const MAX_LIST_DEPTH: usize = 128;

/// Whether `held`, what followed a weak opener of an XML call (Beam's ` to=`), begins
/// one: a name without blanks, then the name's closing tag (or, the separator dropped, a
/// parameter's opening tag); or a name holding blanks on one line, then the name's
/// closing tag (a stray word in the name: a call not released). `None` while it cannot
/// be told. Anything else (` to=you later`) is not, and stays text.
fn xml_gate(spec: &XmlSpec, held: &[u8], max_name: usize) -> Option<bool> {
    if spec.attribute_call {
        return attribute_gate(spec, held, max_name);
    }
    let (name, tag) = held.split_at(held.iter().position(|&c| c == b'<').unwrap_or(held.len()));
    // A name holding blanks is text, unless the name's closing tag follows it: then a
    // call whose name holds a stray word (read, never shown).
    if name.is_empty() && !tag.is_empty() || name.contains(&b'\n') {
        return Some(false);
    }
    let blanks = name.iter().any(u8::is_ascii_whitespace);
    if blanks && !spec.name_close.starts_with(b"<") {
        return Some(false);
    }
    if name.len() > max_name {
        return Some(false);
    }
    if tag.is_empty() {
        return None;
    }
    let mut open = false;
    for t in [spec.name_close, spec.key_open] {
        if !t.starts_with(b"<") || blanks && t != spec.name_close {
            continue;
        }
        if tag.starts_with(t) {
            return Some(true);
        }
        open |= t.starts_with(tag);
    }
    (!open).then_some(false)
}

/// [`xml_gate`] for a call in one self-closing tag ([`XmlSpec::attribute_call`]):
/// `held` begins with a quoted name without blanks, then the arguments attribute
/// (`"read" arguments=`). Anything else (`<tool name=x> is how`) is text.
fn attribute_gate(spec: &XmlSpec, held: &[u8], max_name: usize) -> Option<bool> {
    let &quote = held.first()?;
    if !matches!(quote, b'"' | b'\'') {
        return Some(false);
    }
    let Some(len) = held[1..].iter().position(|&b| b == quote) else {
        let name_so_far = held[1..].iter().all(|&b| word_byte(b) || b >= 0x80);
        return (name_so_far && held.len() <= max_name).then_some(None)?;
    };
    let name = &held[1..1 + len];
    if name.is_empty() || !name.iter().all(|&b| word_byte(b) || b >= 0x80) {
        return Some(false);
    }
    let after = &held[2 + len..];
    if after.starts_with(spec.name_close) {
        Some(true)
    } else if spec.name_close.starts_with(after) {
        None
    } else {
        Some(false)
    }
}

/// Where the first of two opening braces is (`{{"name": ...`), if `held` begins so.
fn doubled_brace(held: &[u8]) -> Option<usize> {
    let first = held.iter().position(|b| !b.is_ascii_whitespace())?;
    let next = held[first + 1..]
        .iter()
        .position(|b| !b.is_ascii_whitespace())?;
    (held[first] == b'{' && held[first + 1 + next] == b'{').then_some(first)
}

/// The most bytes read before a markerless JSON value shows whether it is a call.
const GATE_MAX: usize = 192;

/// Whether `held`, the start of a JSON value found without a call marker, is a call
/// object: its first key (of the object, or of an array's first object) names the tool
/// (`{"name": "f"`, a declared tool when tools are declared; with none declared,
/// followed by another member), or is OpenAI's `{"function": ...`. `None` while it
/// cannot be told. Anything else (`{"answer": 42}`, `[1, 2]`, an undeclared name,
/// `{"name": "Alice"}` with no tools) is not, and stays text.
fn gate(spec: &EnvelopeSpec, held: &[u8], tools: &crate::Tools) -> Option<bool> {
    let mut i = 0;
    let skip = |i: &mut usize| {
        while held.get(*i).is_some_and(u8::is_ascii_whitespace) {
            *i += 1;
        }
    };
    // A quoted word at `i` (a key or a name): `Some(None)` while unfinished.
    let word = |i: &mut usize| -> Option<Option<&[u8]>> {
        let quote = match held.get(*i) {
            None => return Some(None),
            Some(&q @ (b'"' | b'\'')) => q,
            Some(_) => return None,
        };
        let start = *i + 1;
        let len = held[start..].iter().position(|&c| c == quote);
        let Some(len) = len else {
            return Some(None);
        };
        *i = start + len + 1;
        Some(Some(&held[start..start + len]))
    };
    let verdict = (|| {
        skip(&mut i);
        if held.get(i) == Some(&b'[') {
            i += 1;
            skip(&mut i);
        }
        match held.get(i) {
            None => return None,
            Some(b'{') => i += 1,
            Some(_) => return Some(false),
        }
        skip(&mut i);
        if held.get(i) == Some(&b'{') {
            // `{{`: a doubled brace (`Sniffed::Doubled`).
            i += 1;
            skip(&mut i);
        }
        let key = match word(&mut i) {
            None => return Some(false),
            Some(None) => return None,
            Some(Some(key)) => key,
        };
        if key == b"function" {
            return Some(true);
        }
        if !spec.name_keys.iter().any(|k| k.as_bytes() == key) {
            return Some(false);
        }
        skip(&mut i);
        match held.get(i) {
            None => return None,
            Some(b':') => i += 1,
            Some(_) => return Some(false),
        }
        skip(&mut i);
        let name = match word(&mut i) {
            None => return Some(false),
            Some(None) => return None,
            Some(Some(name)) => name,
        };
        let name = std::str::from_utf8(name).ok()?;
        if !tools.is_empty() {
            return Some(tools.resolve(name).is_some());
        }
        // No tool to name: an object holding a name and nothing else (`{"name":
        // "Alice"}`) is as likely data as a call; a call goes on to its arguments.
        skip(&mut i);
        match held.get(i) {
            None => None,
            Some(b',') => Some(true),
            Some(_) => Some(false),
        }
    })();
    match verdict {
        None if held.len() > GATE_MAX => Some(false),
        v => v,
    }
}

/// What a marker's body may begin with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Begins {
    /// Anything: what does not parse is reported (after a label saying a call follows).
    Any,
    /// Not prose: prose right after the marker began no call.
    NoProse,
    /// The rest of a tag (after a tag prefix such as `<｜DSML｜`): up to its `>`, with no
    /// `<` or line break before it; else the prefix was a bare marker.
    Tag,
    /// Not prose, nor markup (after a wrapper that opens a call only when the call's
    /// own opener was dropped, [`CallForm::wrapper`]).
    NoMarkup,
}

impl Begins {
    /// What `form`'s body may begin with.
    fn of(form: &CallForm, body: &Body) -> Begins {
        match body {
            _ if form.wrapper => Begins::NoMarkup,
            _ if !form.labelled => Begins::NoProse,
            // A tag prefix that says a call follows (`<｜DSML｜`): its tag.
            Body::Xml(_) => Begins::Tag,
            _ => Begins::Any,
        }
    }
}

/// What a sniffed body's first bytes show.
enum Sniffed {
    /// Not yet told.
    Wait,
    Body(&'static Body),
    /// Prose, not a body (`not json at all`): the opener began no call.
    Prose,
    /// A JSON call object in a second pair of braces (`{{"name": ...}}`): the body is
    /// read from the inner `{`, the first one dropped.
    Doubled(&'static Body),
    /// A stray word before a body's own name tag or a list of call objects
    /// ([`stray_word`]): the body is read from `at` of what is held, the word dropped.
    Stray(&'static Body, usize),
}

/// The longest first word [`prose`] reads: past it, the bodies decide.
const PROSE_WORD_MAX: usize = 128;

/// Whether sniffing at the byte just held may end the wait so far: a blank decides
/// nothing the next byte does not, the first word waits for its end, and a tag for its
/// `>`, a `<` or a line break. Not sniffing at the others keeps a long wait linear.
fn may_decide(held: &[u8], start: usize, begins: Begins) -> bool {
    let len = held.len();
    let b = held[len - 1];
    match begins {
        Begins::Tag => matches!(b, b'>' | b'<' | b'\n') || len > PROSE_WORD_MAX,
        _ if b.is_ascii_whitespace() => false,
        // Inside a tag's name (`<tool_calls`): every body waits for the byte that ends
        // it (`>`, `=`), and one that fits none fits none after more of the name, so
        // the name is sniffed once, at its end.
        _ if len >= start + 3
            && len - start <= PROSE_WORD_MAX
            && held[start] == b'<'
            && word_byte(b)
            && word_byte(held[len - 2]) =>
        {
            false
        }
        Begins::NoProse | Begins::NoMarkup => {
            let in_first_word = len >= start + 2
                && len - start <= PROSE_WORD_MAX
                && held[start].is_ascii_alphabetic()
                && word_byte(b)
                && word_byte(held[len - 2]);
            !in_first_word
        }
        Begins::Any => true,
    }
}

/// A word, blanks or none, then a body's own name tag (`junk <function=f>`), a list
/// of call objects (`junk [{"name": ...}]`) or, where no body reads a name before its
/// arguments, a call object (`<|python_tag|>junk {"name": ...}`): no name is followed
/// by any of them, so the word is stray. The body, and where what follows the word
/// begins in `text`; `Err` while the bytes after the word may still begin one.
fn stray_word(bodies: &'static [Body], text: &[u8]) -> Option<Result<(&'static Body, usize), ()>> {
    let (_, skip) = word_then_blanks(text)?;
    let rest = &text[skip..];
    // A body that reads a name before its arguments reads `word {...}` as a call.
    let name_first = bodies.iter().any(|b| match b {
        Body::NameArgs(_) => true,
        Body::Xml(spec) => spec.name_open.is_empty(),
        _ => false,
    });
    let mut waiting = false;
    for body in bodies {
        match body {
            // Arguments are an object: a list after a word is no tool's, and where no
            // body reads a name first, neither is an object.
            Body::Envelope(_) => {
                if rest.first() == Some(&b'{') && !name_first {
                    return Some(Ok((body, skip)));
                }
                let after = rest
                    .strip_prefix(b"[")
                    .map(|a| a.iter().find(|b| !b.is_ascii_whitespace()));
                match after {
                    Some(Some(b'{')) => return Some(Ok((body, skip))),
                    Some(None) => waiting = true,
                    _ => {}
                }
            }
            Body::Xml(spec) => match opens_name_tag(spec, rest) {
                Some(true) => return Some(Ok((body, skip))),
                Some(false) => {}
                None => waiting = true,
            },
            _ => {}
        }
    }
    waiting.then_some(Err(()))
}

/// The first word of `text` and the blanks after it, once the word has ended: where
/// the word ends and where the blanks do. `None` while the word goes on, or when
/// `text` does not begin with one.
fn word_then_blanks(text: &[u8]) -> Option<(usize, usize)> {
    if !text.first()?.is_ascii_alphabetic() {
        return None;
    }
    let end = text.iter().position(|&b| !word_byte(b))?;
    let blanks = text[end..]
        .iter()
        .take_while(|b| b.is_ascii_whitespace())
        .count();
    Some((end, end + blanks))
}

/// A byte of a word [`prose`] reads.
fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// Whether `text`, a body's first bytes after blanks, is prose: a word, blanks and a
/// second word (`not json at all`, `I will check`). No body begins so (a name is
/// followed by its separator, its arguments or markup, never by a second word). Two
/// words followed by what follows a name (`junk get_weather<sep>{...}`, `junk
/// get_weather\n{...}`) are a call whose name holds a stray word, not prose: read as a
/// call, never shown. `None` while it cannot be told.
fn prose(text: &[u8]) -> Option<bool> {
    if !text.first()?.is_ascii_alphabetic() {
        return Some(false);
    }
    let Some(end) = text.iter().position(|&b| !word_byte(b)) else {
        return (text.len() > PROSE_WORD_MAX).then_some(false);
    };
    let gap = text[end..].iter().position(|b| !matches!(b, b' ' | b'\t'));
    let second = match gap {
        Some(0) => return Some(false),
        Some(n) if text[end + n].is_ascii_alphabetic() => end + n,
        Some(_) => return Some(false),
        None => return None,
    };
    if second > PROSE_WORD_MAX {
        return Some(true);
    }
    let Some(second_end) = text[second..].iter().position(|&b| !word_byte(b)) else {
        return (text.len() > PROSE_WORD_MAX).then_some(true);
    };
    let rest = &text[second + second_end..];
    let blanks = rest.iter().take_while(|b| b.is_ascii_whitespace()).count();
    match rest.get(blanks) {
        // Markup, the end of a name's tag, arguments, or Gemma's `call:NAME`.
        Some(b'<' | b'>' | b'{' | b'[') => Some(false),
        Some(b':') if blanks == 0 => rest.get(1).map(|&b| !word_byte(b)),
        Some(_) => Some(true),
        None if text.len() > PROSE_WORD_MAX => Some(true),
        None => None,
    }
}

/// For a grammar whose name is in its opening tag ([`XmlSpec::name_in_tag`]), whether
/// `rest`, what follows the tag's fixed start (`read>` after `<tool_`), names a tool:
/// not one of the names that are markup (`<tool_call>`), nor a sentence. Other grammars
/// name their tool after the tag: `Some(true)`. `None` until the tag's `>` comes.
pub(crate) fn tag_names_a_tool(spec: &XmlSpec, rest: &[u8]) -> Option<bool> {
    if !spec.name_in_tag {
        return Some(true);
    }
    let Some(end) = rest.iter().position(|&b| !word_byte(b)) else {
        return (rest.len() > PROSE_WORD_MAX).then_some(false);
    };
    Some(rest[end] == b'>' && end > 0 && !spec.not_names.contains(&&rest[..end]))
}

/// Whether `text` begins with `spec`'s name tag (`<function=`, `<tool_name>`, a
/// `<tool_NAME>` naming a tool): `None` while more of it may still, `Some(false)` when
/// it cannot. A spec whose name follows the opener directly has no such tag.
fn opens_name_tag(spec: &XmlSpec, text: &[u8]) -> Option<bool> {
    let open = spec.name_open;
    if open.is_empty() {
        return Some(false);
    }
    let verdict = match text.strip_prefix(open) {
        Some(rest) => tag_names_a_tool(spec, rest),
        None => Some(false),
    };
    match verdict {
        Some(false) if open.starts_with(text) => None,
        v => v,
    }
}

/// Whether `held`, after a body of tags of the repeated `form`, begins another of its
/// bodies of tags (`<tool_write>` after `</tool_read>` in one `<tool_calls>`): `None`
/// until it can be told.
pub(crate) fn begins_body_of_tags(form: &CallForm, held: &[u8]) -> Option<bool> {
    let bodies = match &form.body {
        Body::Sniff(bodies) => &bodies[..],
        body => std::slice::from_ref(body),
    };
    let mut waiting = false;
    for body in bodies {
        let Body::Xml(spec) = body else { continue };
        match opens_name_tag(spec, held) {
            Some(true) => return Some(true),
            Some(false) => {}
            None => waiting = true,
        }
    }
    (!waiting).then_some(false)
}

/// Pick the body whose start matches `held` (blanks up to `start`), once it can be
/// told, given what it may begin with.
fn sniff(
    bodies: &'static [Body],
    held: &[u8],
    start: usize,
    closer: &[u8],
    begins: Begins,
) -> Sniffed {
    if bodies.is_empty() {
        // What a body ended in, held to be read again: nothing to choose.
        return Sniffed::Wait;
    }
    if begins == Begins::Tag {
        match held.iter().position(|&b| matches!(b, b'>' | b'<' | b'\n')) {
            Some(at) if held[at] == b'>' => {}
            Some(_) => return Sniffed::Prose,
            None if held.len() > PROSE_WORD_MAX => return Sniffed::Prose,
            None => return Sniffed::Wait,
        }
    }
    let text = &held[start..];
    if text.is_empty() {
        return Sniffed::Wait;
    }
    if !closer.is_empty() && closer.starts_with(text) && text.len() < closer.len() {
        // Perhaps an empty body: wait for the closer (any body then reads it).
        return Sniffed::Wait;
    }
    if begins == Begins::NoMarkup {
        // After a wrapper, markup, or a word, blanks and markup: the wrapper alone (the
        // word is text); blanks after a word wait for what follows them.
        match word_then_blanks(text) {
            _ if text[0] == b'<' => return Sniffed::Prose,
            Some((end, skip)) if skip > end => match text.get(skip) {
                Some(b'<') => return Sniffed::Prose,
                None => return Sniffed::Wait,
                Some(_) => {}
            },
            _ => {}
        }
    }
    match begins {
        Begins::NoProse | Begins::NoMarkup => match prose(text) {
            None => return Sniffed::Wait,
            Some(true) => return Sniffed::Prose,
            Some(false) => {}
        },
        Begins::Any | Begins::Tag => {}
    }
    let mut waiting = false;
    if begins != Begins::Tag {
        match stray_word(bodies, text) {
            Some(Ok((body, skip))) => return Sniffed::Stray(body, start + skip),
            Some(Err(())) => return Sniffed::Wait,
            None => {}
        }
    }
    for body in bodies {
        match body {
            Body::Envelope(_) => {
                if text[0] == b'{' {
                    // `{{` begins no JSON value (keys are strings): a doubled brace.
                    let next = text[1..].iter().find(|b| !b.is_ascii_whitespace());
                    return match next {
                        None => Sniffed::Wait,
                        Some(b'{') => Sniffed::Doubled(body),
                        Some(_) => Sniffed::Body(body),
                    };
                }
                if text[0] == b'[' {
                    return Sniffed::Body(body);
                }
            }
            Body::Xml(spec) => {
                let open = spec.name_open;
                if open.is_empty() {
                    // The name right after the opener (GLM).
                    if text[0].is_ascii_alphabetic() || text[0] == b'_' {
                        return Sniffed::Body(body);
                    }
                } else {
                    match opens_name_tag(spec, text) {
                        Some(true) => return Sniffed::Body(body),
                        Some(false) => {}
                        None => waiting = true,
                    }
                }
            }
            Body::NameArgs(_) => return Sniffed::Body(body),
            Body::Pythonic(_) => {
                // A name, or a list whose first item is a name (not a JSON object).
                let item = if text[0] == b'[' {
                    let Some(at) = text[1..].iter().position(|b| !b.is_ascii_whitespace()) else {
                        return Sniffed::Wait;
                    };
                    text[1 + at]
                } else {
                    text[0]
                };
                if item.is_ascii_alphabetic() || item == b'_' {
                    return Sniffed::Body(body);
                }
            }
            Body::Sniff(_) | Body::Harmony(_) => {}
        }
    }
    if waiting {
        return Sniffed::Wait;
    }
    // Nothing fits: the first body reads it (and reports what it cannot use).
    bodies.first().map_or(Sniffed::Wait, Sniffed::Body)
}
