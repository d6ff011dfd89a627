//! The envelope's competing readings (`json/readings.rs`): forked at the first weak
//! decision of a call body, read side by side, decided by the whole call.
//!
//! Each competing reading is the whole projection (repairer, envelope, call) cloned
//! at the fork, with its own [`Policy`](crate::json::readings::Policy), reading every
//! byte the body reads after it into a call of its own. A reading drops out once its
//! repairs alone cost over a fixed cap, or when it reads past the call's closer without
//! ending. When the primary's body ends, the readings still going read on (the bytes
//! are held, not shown) until each has ended or dropped out and what follows each end
//! is known; then the cheapest complete reading is taken, by a clear margin, or the
//! call is not released. A reading that leaves text before the call's closer is never
//! taken (it would show part of the body); whatever the taken reading did not read is
//! read again by the parser. Argument deltas stop at the fork (every reading agrees on
//! what was sent before it) and resume from the reading taken.

use super::{Envelope, Step};
use crate::calls::{Abort, Calls, Sink};
use crate::config::Config;
use crate::json::cost;
use crate::json::readings::{decide, Decision, ALTERNATIVES};
use crate::json::repairer::Repairer;
use crate::queue::Queue;
use crate::stats::Stats;

/// A reading that leaves text after its end (other readings read it as arguments).
const STRAY_TEXT: u32 = 30;

/// A competing reading drops out once its repairs cost this much: costs only grow,
/// so the verdict is the same whenever it is taken (and whatever the chunking).
const CAP: u32 = 160;

/// An envelope's readings, if forked. A clone has none: a reading's own projection
/// never forks.
#[derive(Default)]
pub(crate) struct Fork(pub(super) Option<Box<Readings>>);

impl Clone for Fork {
    fn clone(&self) -> Fork {
        Fork(None)
    }
}

/// The readings forked at a call body's first weak decision.
pub(crate) struct Readings {
    alts: Vec<Reading>,
    /// Bytes read since the fork.
    pos: usize,
    /// Where the primary reading ended, once it did.
    primary: Option<End>,
    /// Where the first reading ended (`usize::MAX` while none has), and every byte
    /// read since: what a reading that ended there did not read.
    tail_from: usize,
    tail: Vec<u8>,
    /// The call's closing marker: a reading still going once the body has read past
    /// the first one after the primary's end is out (it swallowed the closer).
    closer: &'static [u8],
}

struct Reading {
    rep: Repairer,
    env: Envelope,
    calls: Calls,
    queue: Queue,
    stats: Stats,
    scratch: Vec<u8>,
    state: State,
}

enum State {
    Live,
    Ended(End),
    Out,
}

#[derive(Clone, Copy)]
struct End {
    /// Bytes read since the fork when it ended.
    at: usize,
    closer_seen: bool,
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
    /// readings still going read them.
    pub(super) fn read(&mut self, bytes: &[u8], config: &Config) {
        if bytes.is_empty() {
            return;
        }
        let mut first_end: Option<usize> = None;
        for alt in &mut self.alts {
            if !matches!(alt.state, State::Live) {
                continue;
            }
            let mut sink = Sink {
                calls: &mut alt.calls,
                queue: &mut alt.queue,
                config,
                stats: &mut alt.stats,
            };
            let step = alt
                .env
                .feed(bytes, &mut sink, &mut alt.rep, &mut alt.scratch);
            alt.state = match step {
                Step::NeedMore if cost::of(alt.rep.repairs()) > CAP => State::Out,
                Step::NeedMore => State::Live,
                Step::Ended {
                    consumed,
                    closer_seen,
                } => {
                    first_end = Some(first_end.map_or(consumed, |f| f.min(consumed)));
                    State::Ended(End {
                        at: self.pos + consumed,
                        closer_seen,
                    })
                }
                _ => State::Out,
            };
        }
        if self.tail_from != usize::MAX {
            self.tail.extend_from_slice(bytes);
        } else if let Some(c) = first_end {
            self.tail_from = self.pos + c;
            self.tail.extend_from_slice(&bytes[c..]);
        }
        self.pos += bytes.len();
        self.drop_past_closer();
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
                State::Live => self.pos >= closer_end,
                State::Ended(end) => end.at > closer_end,
                State::Out => false,
            };
            if past {
                alt.state = State::Out;
            }
        }
    }

    /// Where the first closing marker after the primary's end ends, once read.
    fn closer_end(&self) -> Option<usize> {
        let end = self.primary?;
        if self.closer.is_empty() {
            return None;
        }
        let from = end.at.checked_sub(self.tail_from)?;
        let at = memchr::memmem::find(self.tail.get(from..)?, self.closer)?;
        Some(end.at + at + self.closer.len())
    }

    /// What follows a reading that ended at `end` (past blanks; `pre`, the bytes its
    /// repairer read past its end before the fork, come first): the call's closer (or
    /// the body saw it) is clean; anything else is text the parser would show; `None`
    /// while the bytes read so far do not tell (at the end of the stream: clean).
    fn follow(&self, end: End, pre: &[u8], eof: bool) -> Option<bool> {
        if end.closer_seen || self.closer.is_empty() {
            return Some(true);
        }
        let from = end.at.saturating_sub(self.tail_from);
        let tail = self.tail.get(from..).unwrap_or_default();
        let joined;
        let after = if pre.is_empty() {
            tail
        } else {
            joined = [pre, tail].concat();
            &joined
        };
        let after = after.trim_ascii_start();
        if after.starts_with(self.closer) {
            return Some(true);
        } else if self.closer.starts_with(after) {
            // At the end of the stream, the closer's beginning: cut inside it.
            return eof.then_some(true);
        }
        // The closer misspelled (`</tool_action>`) is the closer too, unless the real
        // one follows it (then it was the body's own text).
        let tag = after
            .iter()
            .position(|&b| b == b'>')
            .map_or(after, |end| &after[..=end]);
        match super::super::misspelled_closer(self.closer, tag) {
            Some(true) => {
                let rest = &after[tag.len()..];
                Some(memchr::memmem::find(rest, self.closer).is_none())
            }
            Some(false) => eof.then_some(true),
            None => Some(false),
        }
    }

    /// Whether the whole call can decide: no reading still reads, and what follows each
    /// ended one is known.
    fn settled(&self, rep: &Repairer, eof: bool) -> bool {
        let mut ends = self
            .primary
            .map(|end| (end, rep.leftover()))
            .into_iter()
            .chain(self.alts.iter().filter_map(|a| match a.state {
                State::Ended(end) => Some((end, a.rep.leftover())),
                _ => None,
            }));
        !self.live() && ends.all(|(end, pre)| self.follow(end, pre, eof).is_some())
    }
}

impl Envelope {
    /// The repairer stopped at its first weak decision: fork the competing readings
    /// there, and hold the deltas from here.
    pub(super) fn fork_readings(&mut self, rep: &Repairer, sink: &mut Sink<'_>) {
        let Some(verdict) = rep.decided() else {
            return;
        };
        // Held first, so the readings' calls hold theirs too.
        sink.hold();
        let alts = ALTERNATIVES
            .iter()
            .map(|alt| {
                let mut rep = rep.clone();
                rep.set_policy(alt.policy(verdict));
                Reading {
                    rep,
                    env: self.clone(),
                    calls: sink.calls.for_reading(),
                    queue: Queue::default(),
                    stats: Stats::default(),
                    scratch: Vec::new(),
                    state: State::Live,
                }
            })
            .collect();
        self.fork.0 = Some(Box::new(Readings {
            alts,
            pos: 0,
            primary: None,
            tail_from: usize::MAX,
            tail: Vec::new(),
            closer: self.closer,
        }));
    }

    /// The primary reading's body ended, `rest` of the input unread: decide now if no
    /// competing reading still reads, else let them read on.
    pub(super) fn primary_ended(
        &mut self,
        rest: &[u8],
        closer_seen: bool,
        sink: &mut Sink<'_>,
        rep: &mut Repairer,
    ) -> Step {
        let Some(fork) = self.fork.0.as_mut() else {
            return Step::Ended {
                consumed: 0,
                closer_seen,
            };
        };
        fork.primary = Some(End {
            at: fork.pos,
            closer_seen,
        });
        fork.tail_from = fork.tail_from.min(fork.pos);
        fork.drop_past_closer();
        self.feed_parked(rest, sink, rep)
    }

    /// Input after the primary reading ended: the competing readings still going read
    /// it, held; once none is, the whole call decides.
    pub(super) fn feed_parked(
        &mut self,
        input: &[u8],
        sink: &mut Sink<'_>,
        rep: &mut Repairer,
    ) -> Step {
        let Some(fork) = self.fork.0.as_mut() else {
            return Step::NeedMore;
        };
        fork.read(input, sink.config);
        if !fork.settled(rep, false) {
            return Step::NeedMore;
        }
        let fork = self.fork.0.take().expect("checked");
        match decide_call(*fork, sink, rep, false) {
            Some(Taken::Ended { closer_seen }) => Step::Ended {
                consumed: input.len(),
                closer_seen,
            },
            Some(Taken::Skip) => Step::Abort {
                why: Abort::Ambiguous,
                consumed: input.len(),
            },
            None => Step::NeedMore,
        }
    }

    /// At the end of the stream with readings forked: end every reading, decide, and
    /// return whether the taken one completed.
    pub(super) fn finish_readings(
        &mut self,
        sink: &mut Sink<'_>,
        rep: &mut Repairer,
        scratch: &mut Vec<u8>,
    ) -> bool {
        let mut fork = self.fork.0.take().expect("forked");
        if fork.primary.is_none() && self.finish(sink, rep, scratch) {
            fork.primary = Some(End {
                at: fork.pos,
                closer_seen: false,
            });
        }
        for alt in &mut fork.alts {
            if matches!(alt.state, State::Live) {
                let mut sink = Sink {
                    calls: &mut alt.calls,
                    queue: &mut alt.queue,
                    config: sink.config,
                    stats: &mut alt.stats,
                };
                alt.state = match alt.env.finish(&mut sink, &mut alt.rep, &mut alt.scratch) {
                    true => State::Ended(End {
                        at: fork.pos,
                        closer_seen: false,
                    }),
                    false => State::Out,
                };
            }
        }
        match decide_call(*fork, sink, rep, true) {
            Some(Taken::Ended { .. }) => true,
            Some(Taken::Skip) => {
                // Not released, and what followed its end is the call's: not shown.
                let _ = rep.take_leftover();
                true
            }
            None => {
                // No reading completed: the call was cut.
                sink.release_hold();
                false
            }
        }
    }
}

/// Decide among the ended readings of a call: take one (its repairer becomes `rep`,
/// its call the sink's, and what it did not read is left to the parser) or mark the
/// call ambiguous. `None` when no reading ended.
/// How a call's body ends once its readings are decided.
enum Taken {
    /// Where the reading taken (or, not released, the one that read furthest) ended;
    /// what it did not read is the parser's.
    Ended { closer_seen: bool },
    /// Not released, and the reading ended before the call's closer with text after
    /// it: the rest of the body (left to the parser) is dropped up to the closer,
    /// never shown.
    Skip,
}

fn decide_call(
    mut fork: Readings,
    sink: &mut Sink<'_>,
    rep: &mut Repairer,
    eof: bool,
) -> Option<Taken> {
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
    let mut scored = vec![fork.primary.zip(primary_call).and_then(|(primary, call)| {
        call.outcome(rep.repairs(), config)
            .map(|(c, args)| (c.saturating_add(stray(primary, rep.leftover())), args))
    })];
    for alt in &alts {
        scored.push(match alt.state {
            State::Ended(_) if cost::of(alt.rep.repairs()) > CAP => None,
            State::Ended(end) => alt.calls.current.as_deref().and_then(|call| {
                // A reading that names another tool than the one shown is another call.
                shown
                    .as_ref()
                    .is_none_or(|name| call.name == *name)
                    .then(|| call.outcome(alt.rep.repairs(), config))
                    .flatten()
                    .map(|(c, args)| (c.saturating_add(stray(end, alt.rep.leftover())), args))
            }),
            _ => None,
        });
    }
    let decision = decide(&scored);
    let (taken, end) = match decision {
        Some(Decision::Take(0)) | None => (decision.is_some(), fork.primary),
        Some(Decision::Take(n)) => {
            let call = match &mut alts[n - 1].calls.current {
                Some(call) => std::mem::take(&mut **call),
                None => unreachable!("scored, so open"),
            };
            match sink.replace_reading(call) {
                true => (true, take(&mut alts, n, rep)),
                false => (false, fork.primary),
            }
        }
        Some(Decision::Ambiguous) => {
            // Not released: its body ends where the reading that read furthest ended,
            // so no byte of it is shown as text.
            let furthest = (1..=ALTERNATIVES.len())
                .filter(|&n| scored[n].is_some())
                .max_by_key(|&n| match alts[n - 1].state {
                    State::Ended(end) => end.at,
                    _ => 0,
                });
            let primary_at = fork.primary.map_or(0, |p| p.at);
            match furthest {
                Some(n) if matches!(alts[n - 1].state, State::Ended(e) if e.at > primary_at) => {
                    (false, take(&mut alts, n, rep))
                }
                _ => (false, fork.primary),
            }
        }
    };
    let end = end?;
    // A reading that leaves text before the call's closer is no reading of the call:
    // taken, it would show part of the body as text.
    let stray = fork.follow(end, rep.leftover(), eof) == Some(false);
    let taken = taken && !stray;
    let from = end.at.saturating_sub(fork.tail_from);
    if let Some(after) = fork.tail.get(from..) {
        rep.push_leftover(after);
    }
    if !taken {
        sink.ambiguous();
        if stray {
            return Some(Taken::Skip);
        }
    }
    Some(Taken::Ended {
        closer_seen: end.closer_seen,
    })
}

/// Take competing reading `n` (1-based) as the body's end: its repairer becomes `rep`.
fn take(alts: &mut [Reading], n: usize, rep: &mut Repairer) -> Option<End> {
    let alt = alts.get_mut(n.checked_sub(1)?)?;
    let State::Ended(end) = alt.state else {
        return None;
    };
    std::mem::swap(rep, &mut alt.rep);
    Some(end)
}
