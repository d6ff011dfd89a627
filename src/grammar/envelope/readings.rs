//! The envelope's competing readings (`json/readings.rs`): forked at the first weak
//! decision of a call body, read side by side, decided by the whole call.
//!
//! Each competing reading is the whole projection (repairer, envelope, call) cloned
//! at the fork, with its own [`Policy`](crate::json::readings::Policy), reading every
//! byte the body reads after it into a call of its own. A reading whose repairs alone
//! cost far more than the primary's is dropped as it reads. When the primary's body
//! ends, the readings still going read on (the bytes are held, not shown) until each
//! has ended or dropped out; then the cheapest complete reading is taken, by a clear
//! margin, or the call is not released. A reading that ended before another pays for
//! the bytes it leaves after its end (they would be shown as text), and whatever the
//! taken reading did not read is read again by the parser. Argument deltas stop at the
//! fork (every reading agrees on what was sent before it) and resume from the
//! reading taken.

use super::{Envelope, Step};
use crate::calls::{Calls, Sink};
use crate::config::Config;
use crate::json::cost;
use crate::json::readings::{decide, Decision, ALTERNATIVES};
use crate::json::repairer::Repairer;
use crate::queue::Queue;
use crate::stats::Stats;

/// A reading that leaves text after its end (other readings read it as arguments).
const STRAY_TEXT: u32 = 30;

/// A competing reading drops out once its repairs cost this much more than the
/// primary's.
const DROP: u32 = 64;

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
    pub(super) fn read(&mut self, bytes: &[u8], config: &Config, primary: &Repairer) {
        if bytes.is_empty() {
            return;
        }
        let budget = cost::of(primary.repairs()).saturating_add(DROP);
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
                Step::NeedMore if cost::of(alt.rep.repairs()) > budget => State::Out,
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
                    calls: Calls::with_call(sink.calls.current.clone()),
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
        fork.read(input, sink.config, rep);
        if fork.live() {
            return Step::NeedMore;
        }
        let fork = self.fork.0.take().expect("checked");
        match decide_call(*fork, sink, rep, false) {
            Some(closer_seen) => Step::Ended {
                consumed: input.len(),
                closer_seen,
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
        if fork.primary.is_none() {
            // The primary was cut: it is reported so, whatever another reading made.
            sink.release_hold();
            return false;
        }
        decide_call(*fork, sink, rep, true).is_some()
    }
}

/// Decide among the ended readings of a call whose primary ended: take one (its
/// repairer becomes `rep`, its call the sink's, and what it did not read is left to
/// the parser) or mark the call ambiguous. Returns whether the taken body saw its
/// closer; `None` when the primary had not ended.
fn decide_call(fork: Readings, sink: &mut Sink<'_>, rep: &mut Repairer, eof: bool) -> Option<bool> {
    let primary = fork.primary?;
    let config = sink.config;
    let last = fork.pos;
    // The bytes a reading ended before: text after the call, unless only blanks.
    let stray = |end: End| {
        let from = end.at.saturating_sub(fork.tail_from);
        let after = fork.tail.get(from..).unwrap_or_default();
        match after.iter().all(u8::is_ascii_whitespace) || end.at >= last {
            true => 0,
            false if eof => u32::MAX / 2,
            false => STRAY_TEXT,
        }
    };
    let call = sink.calls.current.as_deref()?;
    let name = call.name.clone();
    let mut scored = vec![call
        .outcome(rep.repairs(), config)
        .map(|(c, args)| (c.saturating_add(stray(primary)), args))];
    let mut alts = fork.alts;
    for alt in &alts {
        scored.push(match alt.state {
            State::Ended(end) => alt.calls.current.as_deref().and_then(|call| {
                // A reading that names another tool is another call.
                (call.name == name)
                    .then(|| call.outcome(alt.rep.repairs(), config))
                    .flatten()
                    .map(|(c, args)| (c.saturating_add(stray(end)), args))
            }),
            _ => None,
        });
    }
    let (taken, end) = match decide(&scored) {
        Some(Decision::Take(n)) if n > 0 => {
            let alt = &mut alts[n - 1];
            let State::Ended(end) = alt.state else {
                unreachable!("scored, so ended")
            };
            let call = alt.calls.current.take().expect("scored, so open");
            match sink.replace_reading(*call) {
                true => {
                    std::mem::swap(rep, &mut alt.rep);
                    (true, end)
                }
                false => (false, primary),
            }
        }
        Some(Decision::Take(_)) => (true, primary),
        Some(Decision::Ambiguous) => (false, primary),
        // No reading re-parses: the primary is reported as it is.
        None => (true, primary),
    };
    if !taken {
        sink.ambiguous();
    }
    let from = end.at.saturating_sub(fork.tail_from);
    if let Some(after) = fork.tail.get(from..) {
        rep.push_leftover(after);
    }
    Some(end.closer_seen)
}
