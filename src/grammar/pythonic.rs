//! Python calls: a list `[f(a=1, b='x'), g()]` (Llama 3.2/4, LFM2) or one call per line
//! (Olmo 3, Gemma 3 `tool_code`). The grammar reads the names and the separators; each
//! call's arguments go through the repairer in Python mode, fed a `{` in place of the
//! `(`: `KEY=` binds a value, Python literals become JSON, `)` closes the object.

use super::{Step, StepKind};
use crate::call::args::ArgsReader;
use crate::call::markup::BodyMarkup;
use crate::calls::{Abort, Sink};
use crate::dialect::PythonicSpec;
use crate::json::repairer::{Repairer, Status};
use crate::repairs::{Repair, Repairs};

/// The closing markup of a Python call list: text after a list's `]`, up to the call's
/// bound, holding it was the list's (`call::extent::body_went_on`).
pub(crate) const LIST_MARKUP: BodyMarkup = BodyMarkup::of([b")]", b"", b""]);

/// Repairs that are Python's own syntax here, not reported.
pub(crate) fn python_native() -> Repairs {
    [
        Repair::UnquotedKey,
        Repair::SingleQuotedString,
        Repair::PythonLiteral,
    ]
    .into_iter()
    .collect()
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    /// Before the first call: blanks, then the list's `[` or a name.
    Start,
    /// A call's name, up to its `(`.
    Name,
    /// Inside a call's parentheses.
    Args,
    /// After a call: separators, the next name, the list's `]` or the closer.
    Between,
}

#[derive(Clone)]
pub(crate) struct Python {
    phase: Phase,
    in_list: bool,
    closer: &'static [u8],
    name: Vec<u8>,
    /// Blanks followed the name: only `(` or `=` may come next.
    name_blank: bool,
    /// Bytes of a possible closer between calls.
    held: Vec<u8>,
    /// After a weak opener and before the first call: what was read, to give back.
    weak: bool,
    read: Vec<u8>,
    rejected: Vec<u8>,
    /// Bytes the repairer read past a call's `)`, read again first.
    back: Vec<u8>,
    leftover: Vec<u8>,
    calls: usize,
    /// A call ended at its `)` and is not released yet: only the next call or the
    /// body's end tells that it ended there (a raw string holding `')` looks the same,
    /// and then the body goes on with the rest of it). A separator alone does not: a
    /// file's `('a', 'b'),  // a-b` holds one.
    pending: bool,
    /// A separator followed the pending call: a name may begin the next call.
    separated: bool,
    /// The list went on past a call's `)` with something other than a separator: the
    /// call was not released, and the rest of the list is its (`Grammar::list_broke`).
    broke: bool,
    /// A word that began no call was dropped: the next call names it (`stray_text`).
    stray: bool,
}

/// What one run over a slice came to.
enum Run {
    /// `n` bytes used; stopped early when the repairer gave bytes back.
    Used(usize),
    End {
        used: usize,
        closer_seen: bool,
    },
    Reject {
        used: usize,
    },
    Abort(Abort, usize),
    /// The repairer stopped at its first weak decision, `used` bytes in: the call
    /// forks its readings there.
    Fork {
        used: usize,
    },
    /// A call read as one call's competing readings ended, `used` bytes in.
    CallEnded {
        used: usize,
    },
}

fn is_ident(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-') || b >= 0x80
}

impl Python {
    pub(crate) fn new(spec: &'static PythonicSpec, closer: &'static [u8], weak: bool) -> Python {
        Python {
            phase: if spec.in_list {
                Phase::Name
            } else {
                Phase::Start
            },
            in_list: spec.in_list,
            closer,
            name: Vec::new(),
            name_blank: false,
            held: Vec::new(),
            weak,
            read: Vec::new(),
            rejected: Vec::new(),
            back: Vec::new(),
            leftover: Vec::new(),
            calls: 0,
            pending: false,
            separated: false,
            broke: false,
            stray: false,
        }
    }

    pub(crate) fn take_rejected(&mut self) -> Vec<u8> {
        if self.rejected.is_empty() && self.undecided() {
            return std::mem::take(&mut self.read);
        }
        std::mem::take(&mut self.rejected)
    }

    /// After a weak opener, no call has begun yet: what was read may still be text.
    pub(crate) fn undecided(&self) -> bool {
        self.weak && self.calls == 0 && self.phase != Phase::Args
    }

    pub(crate) fn take_leftover(&mut self, args: &mut ArgsReader) -> Vec<u8> {
        let mut rest = std::mem::take(&mut self.leftover);
        rest.append(&mut self.back);
        rest.extend(args.rep.take_leftover());
        rest
    }

    /// Read `bytes` again after what is read back already (see `Grammar::push_back`).
    pub(crate) fn push_back(&mut self, bytes: &[u8]) {
        self.back.extend_from_slice(bytes);
    }

    /// What [`take_leftover`](Self::take_leftover) would return, left in place.
    pub(crate) fn leftover(&self, args: &ArgsReader) -> Vec<u8> {
        [&self.leftover[..], &self.back, args.rep.leftover()].concat()
    }

    pub(crate) fn feed(
        &mut self,
        input: &[u8],
        sink: &mut Sink<'_>,
        args: &mut ArgsReader,
    ) -> Step {
        let mut i = 0;
        loop {
            while !self.back.is_empty() {
                let back = std::mem::take(&mut self.back);
                match self.run(&back, sink, args) {
                    Run::Used(n) => {
                        let mut next = std::mem::take(&mut self.back);
                        next.extend_from_slice(&back[n..]);
                        self.back = next;
                    }
                    Run::End { used, closer_seen } => {
                        self.leftover.extend_from_slice(&back[used..]);
                        return Step::ended(i, closer_seen);
                    }
                    // Nothing is read back before a call has begun.
                    Run::Reject { .. } => return Step::reject(i),
                    Run::Abort(why, _) => return Step::abort(why, i),
                    Run::Fork { used } => {
                        // The rest of the bytes read back is read back after the fork.
                        let mut next = back[used..].to_vec();
                        next.append(&mut self.back);
                        self.back = next;
                        return Step {
                            consumed: i,
                            kind: StepKind::Fork,
                        };
                    }
                    Run::CallEnded { used } => {
                        // What the call read past its end, then the rest read back.
                        let mut next = std::mem::take(&mut self.back);
                        next.extend_from_slice(&back[used..]);
                        self.back = next;
                        return Step {
                            consumed: i,
                            kind: StepKind::CallEnded,
                        };
                    }
                }
            }
            if i >= input.len() {
                return Step::more(input.len());
            }
            match self.run(&input[i..], sink, args) {
                Run::Used(n) => i += n,
                Run::End { used, closer_seen } => return Step::ended(i + used, closer_seen),
                Run::Reject { used } => return Step::reject(i + used),
                Run::Abort(why, used) => return Step::abort(why, i + used),
                Run::Fork { used } => {
                    return Step {
                        consumed: i + used,
                        kind: StepKind::Fork,
                    }
                }
                Run::CallEnded { used } => {
                    return Step {
                        consumed: i + used,
                        kind: StepKind::CallEnded,
                    }
                }
            }
        }
    }

    fn run(&mut self, bytes: &[u8], sink: &mut Sink<'_>, args: &mut ArgsReader) -> Run {
        let mut i = 0;
        while i < bytes.len() {
            if self.phase == Phase::Args {
                let status = args.read(&bytes[i..]);
                if let Err(why) = sink.args(&args.out) {
                    return Run::Abort(why, bytes.len());
                }
                let rep = &mut args.rep;
                return match status {
                    Status::NeedMore => Run::Used(bytes.len()),
                    Status::Complete { consumed } => {
                        // Read as one call's competing readings, the call is released
                        // once they are decided, not here.
                        let one_call = rep.policy().one_call;
                        // The call is released once the next call or the
                        // body's end follows: a raw string's `')` looks like its end.
                        let wait = !one_call && (self.in_list || !self.closer.is_empty());
                        self.end_call(sink, rep, !one_call && !wait);
                        self.pending = wait;
                        self.separated = false;
                        self.back = rep.take_leftover();
                        if !self.in_list && self.closer.is_empty() {
                            // One call and no closer: the body is this call.
                            self.leftover = std::mem::take(&mut self.back);
                            return Run::End {
                                used: i + consumed,
                                closer_seen: false,
                            };
                        }
                        if one_call {
                            return Run::CallEnded { used: i + consumed };
                        }
                        Run::Used(i + consumed)
                    }
                    Status::Terminated { consumed, .. } => {
                        self.leftover = rep.take_leftover();
                        Run::End {
                            used: i + consumed,
                            closer_seen: true,
                        }
                    }
                    Status::TooDeep { consumed } => Run::Abort(Abort::TooDeep, i + consumed),
                    Status::HeldOverflow { consumed } => {
                        Run::Abort(Abort::HeldTooLong, i + consumed)
                    }
                    Status::Fork { consumed } => Run::Fork { used: i + consumed },
                    // (Only an array's objects end so: each Python call is a value.)
                    Status::CallEnded { consumed } => Run::CallEnded { used: i + consumed },
                };
            }
            let b = bytes[i];
            i += 1;
            if self.weak && self.calls == 0 {
                self.read.push(b);
            }
            match self.phase {
                Phase::Start | Phase::Between => {
                    let held = self.held.len();
                    if let Some(end) = self.closer_byte(b) {
                        if end && self.undecided() {
                            // After a weak opener, no call before the closer: text.
                            return self.reject(i);
                        }
                        if end {
                            // A call still pending ends with the body: the parser's
                            // to release at the closer (`Parser::end_at_closer`).
                            return Run::End {
                                used: i,
                                closer_seen: true,
                            };
                        }
                        continue;
                    }
                    if b.is_ascii_whitespace() {
                        continue;
                    }
                    if self.phase == Phase::Between && matches!(b, b',' | b';') {
                        // The call before stays pending until the next one begins.
                        self.separated = self.pending;
                        continue;
                    }
                    if self.phase == Phase::Start && b == b'[' && !self.in_list {
                        self.in_list = true;
                        continue;
                    }
                    if b == b']' && self.in_list {
                        // The list's end: a call still pending is the parser's to settle
                        // (`CallState::may_go_on`), by what follows up to its bound.
                        return Run::End {
                            used: i,
                            closer_seen: false,
                        };
                    }
                    let name_may_begin = is_ident(b) && !b.is_ascii_digit();
                    if self.pending && (!name_may_begin || (self.in_list && !self.separated)) {
                        // A false start of the closer read before this byte is the
                        // rest's too, wherever the chunk began.
                        let here = held.min(i - 1);
                        let before = self.closer[..held - here].to_vec();
                        return self.went_on(sink, before, i - 1 - here);
                    }
                    if is_ident(b) && !b.is_ascii_digit() {
                        self.phase = Phase::Name;
                        self.name.clear();
                        self.name.push(b);
                        self.name_blank = false;
                    } else if b == b';' {
                        // `f(); g()`: a statement separator.
                    } else if self.weak && self.calls == 0 {
                        return self.reject(i);
                    }
                }
                Phase::Name => {
                    if b == b'(' && !self.name.is_empty() {
                        // Another call after a line break: the one before ended.
                        self.settle(sink);
                        self.begin_call(sink, args);
                        continue;
                    }
                    if b == b'=' && !self.name.is_empty() {
                        // `tool_code = f(...)`: an assignment; the call follows.
                        self.name.clear();
                        self.name_blank = false;
                        continue;
                    }
                    if b == b' ' || b == b'\t' {
                        self.name_blank = !self.name.is_empty();
                        continue;
                    }
                    if is_ident(b) && !self.name_blank {
                        self.name.push(b);
                        if self.name.len() > sink.config.limits.max_name_bytes {
                            return Run::Abort(Abort::TooLarge, i);
                        }
                        continue;
                    }
                    // After a weak opener only a word alone on its line is stray:
                    // anything else before the first call is text (`reject`).
                    if self.weak && self.calls == 0 && b != b'\n' {
                        return self.reject(i);
                    }
                    if self.pending {
                        // Not a call: the string before went on past its `')`.
                        let name = std::mem::take(&mut self.name);
                        return self.went_on(sink, name, i - 1);
                    }
                    // Not a call: the word is dropped, named on the next call; the byte
                    // is read again.
                    self.stray = true;
                    self.phase = Phase::Between;
                    i -= 1;
                    if self.weak && self.calls == 0 {
                        // Read again, it is kept again.
                        self.read.pop();
                    }
                }
                Phase::Args => unreachable!(),
            }
        }
        Run::Used(bytes.len())
    }

    /// A byte between calls that may belong to the closer: `Some(true)` once complete.
    fn closer_byte(&mut self, b: u8) -> Option<bool> {
        if self.closer.is_empty() {
            return None;
        }
        if self.closer.get(self.held.len()) == Some(&b) {
            self.held.push(b);
            return Some(self.held.len() == self.closer.len());
        }
        // A false start of the closer: those bytes were not a call either.
        self.held.clear();
        if self.closer[0] == b {
            self.held.push(b);
            return Some(false);
        }
        None
    }

    /// The body went on past a pending call's `)` with something other than a
    /// separator, another call or the body's end: its string did (a raw `')` in it), or
    /// the list is broken. Either way the call is not released, and the rest up to the
    /// body's end (`before`, then the bytes from `at`) was its (`Parser::remains`).
    fn went_on(&mut self, sink: &mut Sink<'_>, before: Vec<u8>, at: usize) -> Run {
        self.pending = false;
        self.separated = false;
        self.broke = true;
        sink.went_on(&LIST_MARKUP);
        sink.end();
        self.leftover = before;
        Run::End {
            used: at,
            closer_seen: false,
        }
    }

    /// Whether the body's last call ended at its `)` and is not settled yet: what
    /// follows the list's `]` up to the call's bound tells (`CallState::may_go_on`).
    pub(crate) fn pending(&self) -> bool {
        self.pending
    }

    /// The body's closing markup: a list's, once it began one.
    pub(crate) fn markup(&self) -> BodyMarkup {
        match self.in_list {
            true => LIST_MARKUP,
            false => BodyMarkup::NONE,
        }
    }

    /// A separator or the next call followed a pending call, or the stream ended: it
    /// ended at its `)`, and is released. (At the list's `]` or the closer the parser
    /// settles it, by what follows up to its bound.)
    fn settle(&mut self, sink: &mut Sink<'_>) {
        self.separated = false;
        if std::mem::take(&mut self.pending) {
            sink.end();
        }
    }

    /// The list went on past a call's `)` with no separator: the rest of the list was
    /// that call's, and it was not released.
    pub(crate) fn broke(&self) -> bool {
        self.broke
    }

    fn reject(&mut self, i: usize) -> Run {
        self.read.pop();
        self.rejected = std::mem::take(&mut self.read);
        Run::Reject { used: i - 1 }
    }

    fn begin_call(&mut self, sink: &mut Sink<'_>, args: &mut ArgsReader) {
        let name = String::from_utf8_lossy(&self.name).into_owned();
        self.name.clear();
        self.calls += 1;
        self.read.clear();
        sink.name(&name);
        if std::mem::take(&mut self.stray) {
            sink.repair(Repair::StrayText);
        }
        // Each call is a value of its own: a fresh reader, armed as the body's is.
        let policy = args.rep.policy();
        args.rep.reset();
        args.rep.set_policy(policy);
        args.rep.set_python(true);
        args.rep.set_keys(sink.key_check(1));
        let _ = args.read(b"{");
        let _ = sink.args(&args.out);
        self.phase = Phase::Args;
    }

    /// A call's `)`: its repairs (less Python's own syntax) are the call's; it is
    /// released if `release` (else the readings of it release it once decided).
    fn end_call(&mut self, sink: &mut Sink<'_>, rep: &Repairer, release: bool) {
        let native = python_native();
        let repairs: Repairs = rep
            .repairs()
            .iter()
            .filter(|r| !native.contains(*r))
            .collect();
        sink.repairs(repairs);
        if release {
            sink.end();
        }
        self.phase = Phase::Between;
    }

    /// At the end of the stream: a call cut inside its parentheses stays open (and is
    /// reported truncated); complete calls were released as they ended.
    pub(crate) fn finish(&mut self, sink: &mut Sink<'_>, args: &mut ArgsReader) -> bool {
        if !self.back.is_empty() {
            // Bytes read back and not read yet come first.
            let step = self.feed(&[], sink, args);
            if !step.goes_on() {
                return matches!(step.kind, StepKind::Ended { .. });
            }
        }
        if self.phase != Phase::Args {
            // A call the stream ended after (its list's `]` missing) ended at its `)`.
            self.settle(sink);
            return false;
        }
        let status = args.drain();
        let _ = sink.args(&args.out);
        if !matches!(status, Status::Complete { .. }) {
            return false;
        }
        // Read as one call's competing readings, the call completed: theirs to
        // release (the body is complete for them).
        let one_call = args.rep.policy().one_call;
        self.end_call(sink, &args.rep, !one_call);
        one_call
    }
}
