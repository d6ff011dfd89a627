//! A call's competing readings (`json/readings.rs`): forked at the first weak decision
//! of its body, read side by side, decided by the whole call. The same for every
//! grammar: a reading is whatever the grammar's state is, cloned.
//!
//! Each competing reading is the call's grammar, its value reader ([`ArgsReader`]) and
//! its call, cloned at the fork, with its own
//! [`Policy`](crate::json::readings::Policy), reading every byte the body reads after
//! it into a call of its own. A reading that takes the look-ahead's verdicts stands in
//! for its siblings ([`Parted`]) until a weak decision parts them; a parted sibling
//! then reads every byte kept since the fork. A reading drops out once its repairs
//! alone cost over a fixed cap, or when it reads past the call's closer without
//! ending (a closer that is a Markdown fence excepted: a file holds its own). When the
//! primary's body ends, the readings still going read on (the bytes are held, not
//! shown) until each has ended or dropped out and what follows each end
//! is known; then the cheapest complete reading is taken, by a clear margin, or the
//! call is not released. A reading that leaves text before the call's closer is never
//! taken (it would show part of the body); whatever the taken reading did not read is
//! read again by the parser. Argument deltas stop at the fork (every reading agrees on
//! what was sent before it) and resume from the reading taken.

use super::args::ArgsReader;
use super::extent::Extent;
use super::CallState;
use crate::calls::{Abort, Calls, Sink};
use crate::config::Config;
use crate::dialect::CallForm;
use crate::grammar::{Grammar, Step, StepKind};
use crate::json::cost;
use crate::json::readings::{decide, Decision, Parted, ALTERNATIVES, EXPENSIVE, MARGIN};
use crate::queue::Queue;
use crate::stats::Stats;

/// A reading that leaves text after its end (other readings read it as arguments).
const STRAY_TEXT: u32 = 30;

/// The flipped reading that takes the look-ahead's verdicts (1-based, as in
/// [`Alternative::head`](crate::json::readings::Alternative::head)): the head of the
/// flipped siblings.
const FLIPPED: usize = 1;

/// A competing reading drops out once its repairs cost more than this: costs only
/// grow (so the verdict is the same whenever it is taken, whatever the chunking), and
/// past it a reading can neither be taken (it costs [`EXPENSIVE`] or more) nor come
/// within [`MARGIN`] of one that can.
const CAP: u32 = EXPENSIVE + MARGIN - 1;

/// The readings forked at a call body's first weak decision.
pub(crate) struct Readings {
    alts: Vec<Reading>,
    /// Every byte read since the fork: a sibling that parts from its reading reads
    /// them from the fork, and what follows a reading's end is read from here.
    since: Vec<u8>,
    /// Where the primary reading ended, once it did.
    primary: Option<End>,
    /// What [`Readings::part`] last saw of the heads: the primary's parted siblings,
    /// the flipped head's, and whether the flipped head dropped out.
    heads: (Parted, Parted, bool),
    /// No competing reading reads, the primary's siblings are still the same and the
    /// primary has not ended: a byte read changes nothing but `since`.
    idle: bool,
    /// What bounds the call: a reading still going once the body has read past the
    /// first closer after the primary's end is out (it swallowed the closer), unless
    /// that closer is a fence.
    extent: Extent,
    /// The call's form, which the readings' grammars read.
    form: &'static CallForm,
}

struct Reading {
    grammar: Grammar,
    args: ArgsReader,
    calls: Calls,
    queue: Queue,
    stats: Stats,
    state: State,
}

enum State {
    /// A sibling still the same reading as its head (`Alternative::head`): not read.
    Same,
    Live,
    Ended(End),
    Out,
}

#[derive(Clone, Copy)]
struct End {
    /// Bytes read since the fork when it ended.
    at: usize,
    closer_seen: bool,
    /// Only the call ended, inside a body of several: the body goes on.
    call: bool,
}

impl Reading {
    /// Read `bytes`, the first of them byte `pos` after the fork.
    fn read(&mut self, bytes: &[u8], pos: usize, config: &Config, form: &'static CallForm) {
        let mut sink = Sink {
            calls: &mut self.calls,
            queue: &mut self.queue,
            config,
            stats: &mut self.stats,
        };
        // (The body was chosen before the fork: nothing is chosen here.)
        let step = self
            .grammar
            .feed(bytes, &mut sink, &mut self.args, form, &mut None);
        self.state = match step.kind {
            StepKind::NeedMore if cost::of(self.args.rep.repairs()) > CAP => State::Out,
            StepKind::NeedMore => State::Live,
            StepKind::Ended { closer_seen } => State::Ended(End {
                at: pos + step.consumed,
                closer_seen,
                call: false,
            }),
            StepKind::CallEnded => State::Ended(End {
                at: pos + step.consumed,
                closer_seen: false,
                call: true,
            }),
            _ => State::Out,
        };
    }

    /// At the end of the stream, `at` bytes after the fork.
    fn finish(&mut self, at: usize, config: &Config) {
        let mut sink = Sink {
            calls: &mut self.calls,
            queue: &mut self.queue,
            config,
            stats: &mut self.stats,
        };
        self.state = match self.grammar.finish(&mut sink, &mut self.args) {
            true => State::Ended(End {
                at,
                closer_seen: false,
                call: self.grammar.calls_inside(),
            }),
            false => State::Out,
        };
    }
}

impl Readings {
    /// Whether the primary reading ended and competing ones still read.
    pub(super) fn parked(&self) -> bool {
        self.primary.is_some()
    }

    fn live(&self) -> bool {
        self.alts.iter().any(|a| matches!(a.state, State::Live))
    }

    /// Bytes read after the fork (by the primary, or after its end): the competing
    /// readings still going read them. `primary` is what the primary reading's
    /// siblings parted from it so far.
    pub(super) fn read(&mut self, bytes: &[u8], config: &Config, primary: Parted) {
        let pos = self.since.len();
        self.since.extend_from_slice(bytes);
        if self.idle && primary == self.heads.0 {
            // Nothing reads but the primary, and its siblings are still the same.
            return;
        }
        self.idle = false;
        // (No bytes: the primary read what it held, and its siblings may part from it.)
        if self.live() && !bytes.is_empty() {
            for alt in &mut self.alts {
                if matches!(alt.state, State::Live) {
                    alt.read(bytes, pos, config, self.form);
                }
            }
        }
        self.part(primary, config);
        if self.primary.is_some() {
            self.drop_past_closer();
        }
        self.idle = self.primary.is_none() && !self.live();
    }

    /// Read the siblings that parted from their reading from the fork; those still the
    /// same as a reading that ended or dropped out share its state.
    fn part(&mut self, primary: Parted, config: &Config) {
        // Only a change of a head's parted siblings or its dropping out parts them.
        let flipped = &self.alts[FLIPPED - 1];
        let heads = (
            primary,
            flipped.args.rep.parted(),
            matches!(flipped.state, State::Out),
        );
        if heads == self.heads {
            return;
        }
        self.heads = heads;
        for (n, alt) in ALTERNATIVES.iter().enumerate() {
            if !matches!(self.alts[n].state, State::Same) {
                continue;
            }
            let Some(head) = alt.head() else {
                continue;
            };
            let (parted, head_state) = match head {
                0 => (primary, None),
                h => (
                    self.alts[h - 1].args.rep.parted(),
                    Some(&self.alts[h - 1].state),
                ),
            };
            if parted.has(alt.weak) {
                let alt = &mut self.alts[n];
                alt.state = State::Live;
                alt.read(&self.since, 0, config, self.form);
            } else if let Some(State::Out) = head_state {
                // The same reading: it dropped out where its head did.
                self.alts[n].state = State::Out;
            }
        }
    }

    /// Bytes the competing readings examined since the last call (for
    /// [`Stats::work`](crate::Stats::work): readings are work too).
    pub(super) fn take_work(&mut self) -> u64 {
        self.alts.iter_mut().map(|a| a.args.rep.take_work()).sum()
    }

    /// Drop the readings that read on past the call's closer (the first after the
    /// primary's end) without ending before it: they swallowed it as content. By
    /// position, not by when it is seen, so whatever the chunking.
    fn drop_past_closer(&mut self) {
        let Some(closer_end) = self.closer_end() else {
            return;
        };
        for alt in &mut self.alts {
            let past = match alt.state {
                State::Live => self.since.len() >= closer_end,
                State::Ended(end) => end.at > closer_end,
                State::Same | State::Out => false,
            };
            if past {
                alt.state = State::Out;
            }
        }
    }

    /// Where the first closing marker after the primary's end ends, once read. Not a
    /// fence: a file written raw holds its own as readily (a README's code blocks), so
    /// a reading that reads past one is still the call's, up to its bound.
    fn closer_end(&self) -> Option<usize> {
        let end = self.primary?;
        let closer = self.extent.closer;
        if closer.is_empty() || self.extent.closer_is_a_fence() {
            return None;
        }
        let at = memchr::memmem::find(self.since.get(end.at..)?, closer)?;
        Some(end.at + at + closer.len())
    }

    /// What follows a reading that ended at `end` (past blanks; `pre`, the bytes its
    /// grammar read past its end before the fork, come first) says of its end: it
    /// ended there (`Some(true)`), or text follows inside the call (`Some(false)`);
    /// `None` while the bytes read so far do not tell (see [`Extent::ended_before`]).
    fn follow(&self, end: End, pre: &[u8], eof: bool) -> Option<bool> {
        if end.closer_seen {
            return Some(true);
        }
        let since = self.since.get(end.at..).unwrap_or_default();
        let joined;
        let after = if pre.is_empty() {
            since
        } else {
            joined = [pre, since].concat();
            &joined
        };
        match end.call {
            true => self.extent.call_ended_before(after, eof),
            false => self.extent.ended_before(after, eof),
        }
    }

    /// Whether the whole call can decide: no reading still reads, and what follows each
    /// ended one is known.
    fn settled(&self, primary: &CallState, eof: bool) -> bool {
        let mut ends = self
            .primary
            .map(|end| (end, primary.grammar.leftover(&primary.args)))
            .into_iter()
            .chain(self.alts.iter().filter_map(|a| match a.state {
                State::Ended(end) => Some((end, a.grammar.leftover(&a.args))),
                _ => None,
            }));
        !self.live() && ends.all(|(end, pre)| self.follow(end, &pre, eof).is_some())
    }
}

impl CallState {
    /// Whether the call forked its readings: every byte must come through `feed` (it is
    /// kept for them), so the parser's bypasses stay closed.
    pub(crate) fn forked(&self) -> bool {
        self.readings.is_some()
    }

    /// Whether the primary reading ended and competing readings still read.
    pub(super) fn parked(&self) -> bool {
        self.readings.as_ref().is_some_and(|r| r.parked())
    }

    /// Bytes the primary reading consumed after the fork: the competing readings read
    /// them too.
    pub(super) fn record(&mut self, bytes: &[u8], sink: &mut Sink<'_>) {
        if let Some(fork) = self.readings.as_mut() {
            fork.read(bytes, sink.config, self.args.rep.parted());
            sink.stats.examined(fork.take_work());
        }
    }

    /// The value reader stopped at its first weak decision: fork the competing
    /// readings there, and hold the deltas from here.
    pub(super) fn fork_readings(&mut self, sink: &mut Sink<'_>) {
        let Some(verdict) = self.args.rep.decided() else {
            return;
        };
        // Held first, so the readings' calls hold theirs too.
        sink.hold();
        let mut alts: Vec<Reading> = ALTERNATIVES
            .iter()
            .map(|alt| {
                let mut args = self.args.clone();
                args.rep.set_policy(alt.policy(verdict));
                Reading {
                    grammar: self.grammar.clone(),
                    args,
                    calls: sink.calls.for_reading(),
                    queue: Queue::default(),
                    stats: Stats::default(),
                    state: match alt.head() {
                        Some(_) if !eager() => State::Same,
                        _ => State::Live,
                    },
                }
            })
            .collect();
        // The primary stands for its siblings until they part. Each reading is of the
        // call being read: in a body of several, it ends where that call ends.
        self.args.rep.track_siblings();
        self.args.rep.one_call();
        for alt in &mut alts {
            alt.args.rep.one_call();
            if matches!(alt.state, State::Live) {
                // What the grammar holds to read before the next input (a Python
                // list's bytes read back) is each reading's to read now.
                alt.read(&[], 0, sink.config, self.form);
            }
        }
        self.raw.lost();
        self.readings = Some(Box::new(Readings {
            alts,
            since: Vec::new(),
            primary: None,
            heads: (Parted::default(), Parted::default(), false),
            idle: false,
            extent: Extent::of(self.form),
            form: self.form,
        }));
    }

    /// The primary reading's body ended, `rest` of the input unread: decide now if no
    /// competing reading still reads, else let them read on.
    pub(super) fn primary_ended(
        &mut self,
        rest: &[u8],
        closer_seen: bool,
        call: bool,
        sink: &mut Sink<'_>,
    ) -> Step {
        let Some(fork) = self.readings.as_mut() else {
            return Step::ended(0, closer_seen);
        };
        fork.primary = Some(End {
            at: fork.since.len(),
            closer_seen,
            call,
        });
        fork.idle = false;
        fork.drop_past_closer();
        self.feed_parked(rest, sink)
    }

    /// Input after the primary reading ended: the competing readings still going read
    /// it, held; once none is, the whole call decides.
    pub(super) fn feed_parked(&mut self, input: &[u8], sink: &mut Sink<'_>) -> Step {
        let parted = self.args.rep.parted();
        let Some(fork) = self.readings.as_mut() else {
            return Step::more(input.len());
        };
        fork.read(input, sink.config, parted);
        sink.stats.examined(fork.take_work());
        let settled = self
            .readings
            .as_ref()
            .is_some_and(|f| f.settled(self, false));
        if !settled {
            return Step::more(input.len());
        }
        let fork = self.readings.take().expect("checked");
        match self.decide(*fork, sink, false) {
            Some(Taken::CallEnded) => {
                // The body goes on after the call: read what followed it.
                let step = self.resume_body(sink);
                Step {
                    consumed: input.len(),
                    ..step
                }
            }
            Some(Taken::Ended { closer_seen, .. }) => Step::ended(input.len(), closer_seen),
            Some(Taken::Skip) => Step::abort(Abort::Ambiguous, input.len()),
            None => Step::more(input.len()),
        }
    }

    /// The readings of a call inside a body of several were decided and the call ended
    /// (released or not): the body goes on, armed again, from what followed the call
    /// in the reading taken.
    fn resume_body(&mut self, sink: &mut Sink<'_>) -> Step {
        let (open, released) = (sink.calls.is_open(), sink.calls.released);
        // A call object of an array body ends as the envelope ends it
        // ([`Sink::end_in_body`]); a Python call at once.
        let ended = match self.grammar {
            Grammar::Envelope(_) => sink.end_in_body(),
            _ => {
                sink.end();
                true
            }
        };
        self.refused_call |= open && ended && sink.calls.released == released;
        let after = std::mem::take(&mut self.after);
        self.grammar.push_back(&mut self.args, &after);
        self.args.arm();
        self.feed(&[], sink, &mut None)
    }

    /// At the end of the stream with readings forked: end every reading, decide, and
    /// return whether the taken one completed.
    pub(super) fn finish_readings(&mut self, sink: &mut Sink<'_>) -> bool {
        let mut fork = self.readings.take().expect("forked");
        let at = fork.since.len();
        if fork.primary.is_none() && self.grammar.finish(sink, &mut self.args) {
            fork.primary = Some(End {
                at,
                closer_seen: false,
                call: self.grammar.calls_inside(),
            });
        }
        // Ending a reading may decide what it held, and part its siblings from it:
        // until none is left reading.
        loop {
            fork.part(self.args.rep.parted(), sink.config);
            if !fork.live() {
                break;
            }
            for alt in &mut fork.alts {
                if matches!(alt.state, State::Live) {
                    alt.finish(at, sink.config);
                }
            }
        }
        sink.stats.examined(fork.take_work());
        let closer = self.form.closer;
        match self.decide(*fork, sink, true) {
            Some(Taken::CallEnded) => {
                // The body went on after the call: read the rest, then end it.
                let step = self.resume_body(sink);
                matches!(step.kind, StepKind::Ended { .. }) || self.finish(sink)
            }
            Some(Taken::Ended { taken: true, .. }) => true,
            Some(Taken::Ended { taken: false, .. } | Taken::Skip) => {
                // Not released: what its reading left unread before the call's closer
                // (its own leftover, read back at the end) is the call's, not shown;
                // the closer and what follows it are read on.
                let left = self.take_leftover();
                self.after = match memchr::memmem::find(&left, closer) {
                    Some(at) if !closer.is_empty() => left[at..].to_vec(),
                    _ => Vec::new(),
                };
                true
            }
            None => {
                // No reading completed: the call was cut.
                sink.release_hold();
                false
            }
        }
    }

    /// Decide among the ended readings of the call: take one (its grammar and value
    /// reader become the call's, its call the sink's, and what it did not read is left
    /// to the parser) or mark the call ambiguous. `None` when no reading ended.
    fn decide(&mut self, mut fork: Readings, sink: &mut Sink<'_>, eof: bool) -> Option<Taken> {
        let config = sink.config;
        let mut alts = std::mem::take(&mut fork.alts);
        let stray = |end: End, pre: &[u8]| match fork.follow(end, pre, eof) {
            Some(false) => STRAY_TEXT,
            _ => 0,
        };
        let primary_call = sink.calls.current.as_deref();
        // A name already shown binds every reading to it.
        let shown = primary_call.filter(|c| c.started).map(|c| c.name.clone());
        // The primary competes when it ended (at the end of the stream it may not have:
        // its own verdicts left a value open that another reading closed).
        // Each reading's outcome, before the text it leaves: readings often agree, and
        // one that wrote the same call as an earlier one costs what it did.
        let mut outcomes: Vec<Option<(u32, Vec<u8>)>> = Vec::with_capacity(alts.len());
        for (n, alt) in alts.iter().enumerate() {
            let call = match alt.state {
                State::Ended(_) => alt.calls.current.as_deref(),
                _ => None,
            };
            let repairs = alt.args.rep.repairs();
            let outcome = call.and_then(|call| {
                if cost::of(repairs) > CAP || shown.as_ref().is_some_and(|name| call.name != *name)
                {
                    // Too costly, or it names another tool than the one shown: another
                    // call.
                    return None;
                }
                let same = alts[..n].iter().zip(&outcomes).find_map(|(prev, done)| {
                    let prev_call = prev.calls.current.as_deref()?;
                    (prev.args.rep.repairs() == repairs && prev_call.same_outcome(call))
                        .then(|| done.clone())
                });
                same.unwrap_or_else(|| call.outcome(repairs, config, true))
            });
            outcomes.push(outcome);
        }
        // With no other reading to compare with, the primary's arguments need no strict
        // parse here: the call's end parses them (and does not release them if not
        // strict).
        let alone = outcomes.iter().all(Option::is_none);
        let primary_pre = self.grammar.leftover(&self.args);
        let mut scored = vec![fork.primary.zip(primary_call).and_then(|(primary, call)| {
            call.outcome(self.args.rep.repairs(), config, !alone)
                .map(|(c, args)| (c.saturating_add(stray(primary, &primary_pre)), args))
        })];
        for (alt, outcome) in alts.iter().zip(outcomes) {
            scored.push(match alt.state {
                State::Ended(end) => {
                    let pre = alt.grammar.leftover(&alt.args);
                    outcome.map(|(c, args)| (c.saturating_add(stray(end, &pre)), args))
                }
                _ => None,
            });
        }
        let mut decision = decide(&scored);
        if let Some(Decision::Take(n)) = decision {
            // A reading its own grammar found invalid (two arguments objects, a bad id)
            // competes, but is never taken: the call is not released.
            let call = match n {
                0 => sink.calls.current.as_deref(),
                n => alts[n - 1].calls.current.as_deref(),
            };
            if call.is_some_and(|c| c.ambiguous.is_some()) {
                decision = Some(Decision::Ambiguous);
            }
        }
        let (taken, end) = match decision {
            Some(Decision::Take(0)) | None => (decision.is_some(), fork.primary),
            Some(Decision::Take(n)) => {
                let call = match &mut alts[n - 1].calls.current {
                    Some(call) => std::mem::take(&mut **call),
                    None => unreachable!("scored, so open"),
                };
                match sink.replace_reading(call) {
                    true => (true, self.take(&mut alts, n)),
                    false => (false, fork.primary),
                }
            }
            Some(Decision::Ambiguous) => {
                // Not released, and reported with the name the readings that have one
                // read, when the primary's is not one.
                let named = (1..=ALTERNATIVES.len())
                    .filter(|&n| scored[n].is_some())
                    .find_map(|n| alts[n - 1].calls.current.as_deref());
                if let Some(call) = named {
                    sink.name_for_report(call);
                }
                // Its body ends where the reading that read furthest ended, so no byte
                // of it is shown as text.
                let furthest = (1..=ALTERNATIVES.len())
                    .filter(|&n| scored[n].is_some())
                    .max_by_key(|&n| match alts[n - 1].state {
                        State::Ended(end) => end.at,
                        _ => 0,
                    });
                let primary_at = fork.primary.map_or(0, |p| p.at);
                match furthest {
                    Some(n) if matches!(alts[n - 1].state, State::Ended(e) if e.at > primary_at) => {
                        (false, self.take(&mut alts, n))
                    }
                    _ => (false, fork.primary),
                }
            }
        };
        let end = end?;
        // A reading that leaves text before the call's closer is no reading of the call:
        // taken, it would show part of the body as text.
        let stray = fork.follow(end, &self.grammar.leftover(&self.args), eof) == Some(false);
        let taken = taken && !stray;
        if let Some(after) = fork.since.get(end.at..) {
            self.after.extend_from_slice(after);
        }
        if !taken {
            sink.ambiguous();
            if stray && !end.call {
                return Some(Taken::Skip);
            }
        }
        if end.call {
            return Some(Taken::CallEnded);
        }
        Some(Taken::Ended {
            closer_seen: end.closer_seen,
            taken,
        })
    }

    /// Take competing reading `n` (1-based) as the body's end: its grammar and value
    /// reader become the call's.
    fn take(&mut self, alts: &mut [Reading], n: usize) -> Option<End> {
        let alt = alts.get_mut(n.checked_sub(1)?)?;
        let State::Ended(end) = alt.state else {
            return None;
        };
        std::mem::swap(&mut self.args, &mut alt.args);
        std::mem::swap(&mut self.grammar, &mut alt.grammar);
        Some(end)
    }
}

/// How a call's body ends once its readings are decided.
enum Taken {
    /// Where the reading taken (or, not released, the one that read furthest) ended;
    /// what it did not read is the parser's.
    Ended { closer_seen: bool, taken: bool },
    /// Not released, and the reading ended before the call's closer with text after
    /// it: the rest of the body (left to the parser) is dropped up to the closer,
    /// never shown.
    Skip,
    /// A call inside a body of several ended (taken or not): the body goes on.
    CallEnded,
}

/// Whether siblings are read from the fork like every other reading instead of standing
/// in for their reading until they part: the plain path the lazy one is checked against.
#[cfg(test)]
fn eager() -> bool {
    tests::EAGER.with(|e| e.get())
}

#[cfg(not(test))]
fn eager() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use crate::{Config, Dialect, OwnedEvent, Parser, StopReason, Tools};
    use std::cell::Cell;

    thread_local! {
        pub(super) static EAGER: Cell<bool> = const { Cell::new(false) };
    }

    fn events(raw: &str, chunk: usize, eager: bool) -> Vec<OwnedEvent> {
        EAGER.with(|e| e.set(eager));
        let mut config = Config::new(Dialect::Hermes);
        config.tools = std::sync::Arc::new(
            Tools::from_value(&serde_json::json!([{"type": "function", "function": {
                "name": "write_file", "parameters": {"type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"]}}}]))
            .unwrap(),
        );
        let mut p = Parser::with_config(config);
        let mut out = Vec::new();
        for piece in raw.as_bytes().chunks(chunk) {
            p.push(piece);
            while let Some(e) = p.next_event() {
                out.push(e.into_owned());
            }
        }
        p.finish(StopReason::Stop);
        while let Some(e) = p.next_event() {
            out.push(e.into_owned());
        }
        EAGER.with(|e| e.set(false));
        out
    }

    /// Siblings that stand in for their reading until they part give what reading
    /// every sibling from the fork gives.
    #[test]
    fn lazy_siblings_give_what_eager_ones_give() {
        let files = [
            "<p class=\"a\">x</p>\n<a href=\"#top\">up</a>",
            "fetch(u, {\n  headers: {\"Content-Type\": \"application/json\"},\n  body: JSON.stringify(x)\n});",
            "{\n  \"name\": \"demo\",\n  \"scripts\": {\"build\": \"tsc\"}\n}\n",
            "echo \"it's\"\nsed 's/\\'/x/' \"$@\"\n",
            "say \"hi\", \"b\": fast and safe",
            "a \"}} b\n\"}, c: \"d\"",
            "x = \"1\"\ny = [\"a\", \"b\"]\nz = {\"k\": \"v\"}",
        ];
        for file in files {
            for escaped_newlines in [false, true] {
                let content = match escaped_newlines {
                    true => file.replace('\n', "\\n"),
                    false => file.to_owned(),
                };
                let raw = format!(
                    "<tool_call>{{\"name\": \"write_file\", \"arguments\": {{\"path\": \"a\", \"content\": \"{content}\"}}}}</tool_call>"
                );
                for chunk in [1, 3, 7, raw.len()] {
                    assert_eq!(
                        events(&raw, chunk, false),
                        events(&raw, chunk, true),
                        "{raw}, chunks of {chunk}"
                    );
                }
            }
        }
    }
}
