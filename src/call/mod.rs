//! A call's life, from its opener to its release: what every grammar shares.
//!
//! ```text
//!   opener ─► CallState::feed ─► grammar (layout of the dialect's call)
//!                  │                  │ values
//!                  │                  ▼
//!                  │             ArgsReader (repairer) ──► sink (deltas, strict release)
//!                  │                  │ weak decision (Fork)
//!                  ▼                  ▼
//!             readings: the grammar, its reader and the call cloned there, read side
//!             by side, decided by the whole call (`readings`)
//! ```
//!
//! - [`args`]: the value reader every grammar that reads JSON uses.
//! - [`readings`]: the competing readings of a call, generic over the grammar.
//!
//! The parser holds a [`CallState`] (boxed) while a call's body is read; what bounds
//! the call (its closer, an end-of-turn token, the next opener, the end of the stream)
//! is the call's extent.

pub(crate) mod args;
pub(crate) mod extent;
pub(crate) mod markup;
pub(crate) mod readings;

use crate::calls::Sink;
use crate::dialect::{Body, CallForm};
use crate::grammar::{Grammar, Step, StepKind};
use crate::repairs::Repairs;
use args::ArgsReader;

/// A call whose body is being read.
pub(crate) struct CallState {
    pub form: &'static CallForm,
    pub grammar: Grammar,
    /// The call's value reader: its repairer and output buffer.
    pub args: ArgsReader,
    /// The reasoning block the call was written in, to return to.
    pub within: Option<u16>,
    /// Repairs that are the dialect's own syntax, not reported.
    pub native: Repairs,
    /// The competing readings forked at the body's first weak decision.
    readings: Option<Box<readings::Readings>>,
    /// Bytes after the end of the reading taken, read again after the call.
    after: Vec<u8>,
    /// Raw body bytes read so far, for the arguments size limit.
    pub body: usize,
    /// A backslash or a quote that ended the last chunk inside a string of the
    /// arguments, not read yet (the parser's string run).
    pub byte_held: Option<u8>,
    /// The last string run found the call inside a string of the arguments with
    /// nothing held, and nothing but string runs read since: the next run need not
    /// check again. Only the parser's `process` can leave the string, so it clears this.
    pub in_string_arg: bool,
    /// A call of this body that its readings ended (a body of several goes on past it)
    /// was not released: the body's closer may be a value's, as a lone call's may.
    pub refused_call: bool,
    /// The body's bytes as written, for an echo of it after the call (`parser::echo`).
    pub raw: RawBody,
}

/// A call's body as the model wrote it, kept up to [`RawBody::MAX`] bytes: a model that
/// writes its released call's body again after the closer, then the closer again
/// (LFM2's echo), wrote no text, and only the body's own bytes tell it.
pub(crate) struct RawBody {
    /// The bytes read into the body so far (more than it held, past its end).
    pub bytes: Vec<u8>,
    /// Whether `bytes` are all the body's: not past the cap, and no competing readings
    /// (whose bytes are read again in another order).
    pub whole: bool,
}

impl RawBody {
    /// The longest body kept: an echo is of a short call (a long one is shown as text).
    pub const MAX: usize = 4096;

    /// Keep `bytes`, read into the body.
    #[inline]
    pub fn keep(&mut self, bytes: &[u8]) {
        if self.whole {
            self.keep_more(bytes);
        }
    }

    fn keep_more(&mut self, bytes: &[u8]) {
        if self.bytes.len() + bytes.len() > Self::MAX {
            self.lost();
            return;
        }
        self.bytes.extend_from_slice(bytes);
    }

    /// The body's bytes are no longer all kept.
    pub fn lost(&mut self) {
        self.whole = false;
        self.bytes.clear();
    }

    fn restart(&mut self) {
        self.bytes.clear();
        self.whole = true;
    }

    /// How long the body as written is, at the start of `bytes`, once the call ended:
    /// less `leftover` (read past its end, to be read again), the closer when
    /// `closer_seen` read it, the form's trailer, and the blanks before them. 0 when it
    /// was not all kept.
    pub fn len(&self, leftover: &[u8], form: &CallForm, closer_seen: bool) -> usize {
        let Some(mut body) = self.bytes.strip_suffix(leftover).filter(|_| self.whole) else {
            return 0;
        };
        body = body.trim_ascii_end();
        if closer_seen && !form.closer.is_empty() {
            body = body
                .strip_suffix(form.closer)
                .unwrap_or(body)
                .trim_ascii_end();
        }
        let trailer = form.trailer.trim_ascii();
        if !trailer.is_empty() {
            body = body.strip_suffix(trailer).unwrap_or(body).trim_ascii_end();
        }
        body.len()
    }
}

impl CallState {
    /// A call of `form` read with `args` (a value reader kept from an earlier call:
    /// its storage and tables are reused).
    pub(crate) fn new(
        form: &'static CallForm,
        grammar: Grammar,
        args: ArgsReader,
        within: Option<u16>,
        native: Repairs,
    ) -> CallState {
        CallState {
            form,
            grammar,
            args,
            within,
            native,
            readings: None,
            after: Vec::new(),
            body: 0,
            byte_held: None,
            in_string_arg: false,
            refused_call: false,
            raw: RawBody {
                bytes: Vec::new(),
                whole: true,
            },
        }
    }

    /// Start reading a call of `form` in this state's storage.
    pub(crate) fn restart(
        &mut self,
        form: &'static CallForm,
        grammar: Grammar,
        within: Option<u16>,
        native: Repairs,
    ) {
        self.form = form;
        self.grammar = grammar;
        self.within = within;
        self.native = native;
        self.readings = None;
        self.after.clear();
        self.body = 0;
        self.raw.restart();
        self.byte_held = None;
        self.in_string_arg = false;
        self.refused_call = false;
    }

    /// Feed the body. A weak decision forks the competing readings here, whatever the
    /// grammar; once forked, every byte the body reads is theirs too, and the body ends
    /// when the whole call decides.
    pub(crate) fn feed(
        &mut self,
        input: &[u8],
        sink: &mut Sink<'_>,
        chosen: &mut Option<&'static Body>,
    ) -> Step {
        if self.parked() {
            return self.feed_parked(input, sink);
        }
        let mut at = 0;
        loop {
            let form = self.form;
            let step = self
                .grammar
                .feed(&input[at..], sink, &mut self.args, form, chosen);
            if self.forked() {
                let used = match step.kind {
                    StepKind::NeedMore => input.len() - at,
                    _ => step.consumed,
                };
                self.record(&input[at..at + used], sink);
            }
            match step.kind {
                StepKind::Fork => {
                    self.fork_readings(sink);
                    at += step.consumed;
                }
                StepKind::Ended { closer_seen } if self.forked() => {
                    let end = at + step.consumed;
                    return self
                        .primary_ended(&input[end..], closer_seen, false, sink)
                        .after(end);
                }
                StepKind::CallEnded if self.forked() => {
                    let end = at + step.consumed;
                    return self
                        .primary_ended(&input[end..], false, true, sink)
                        .after(end);
                }
                StepKind::CallEnded => {
                    // (Only readings of one call stop so.) The call ended: released.
                    sink.end();
                    at += step.consumed;
                }
                _ => return step.after(at),
            }
        }
    }

    /// At the end of the stream: whether the body is complete.
    pub(crate) fn finish(&mut self, sink: &mut Sink<'_>) -> bool {
        match self.forked() {
            true => self.finish_readings(sink),
            false => self.grammar.finish(sink, &mut self.args),
        }
    }

    /// Bytes read past the body's end, to be read again after it.
    pub(crate) fn take_leftover(&mut self) -> Vec<u8> {
        let mut rest = self.grammar.take_leftover(&mut self.args);
        rest.append(&mut self.after);
        rest
    }

    /// The repairs the value reader made, less the dialect's own syntax (none for a
    /// grammar that does not read through it).
    pub(crate) fn repairs(&self) -> Repairs {
        match self.grammar {
            // A sniff with no bodies left carries the bytes after a body that ended in
            // what was held: the repairer's repairs are that body's (none for XML, which
            // does not use it).
            Grammar::Xml(_)
            | Grammar::XmlGate { .. }
            | Grammar::ListGate(_)
            | Grammar::Sniff {
                bodies: [_, ..], ..
            } => Repairs::NONE,
            Grammar::Sniff { bodies: [], .. }
            | Grammar::Envelope(_)
            | Grammar::Gate { .. }
            | Grammar::NameArgs(_)
            | Grammar::Harmony(_)
            | Grammar::Python(_) => {
                // A Python body read after sniffing has no native repairs of its form.
                let native = match self.grammar {
                    Grammar::Python(_) => self.native.union(crate::grammar::python_native()),
                    _ => self.native,
                };
                self.args
                    .rep
                    .repairs()
                    .iter()
                    .filter(|r| !native.contains(*r))
                    .collect()
            }
        }
    }

    /// The call ended: free what its grammar and readings hold, keeping the value
    /// reader's storage for the next call.
    pub(crate) fn retire(&mut self) {
        self.grammar = Grammar::new(&self.form.body, self.form, false);
        self.readings = None;
        self.after.clear();
    }

    /// Bytes the grammar and its value reader examined since the last call.
    pub(crate) fn take_work(&mut self) -> u64 {
        self.grammar.take_work(&mut self.args)
    }
}
