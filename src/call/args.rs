//! The argument-reading layer: every grammar that reads a JSON value (an envelope's
//! call object, a name's arguments, a harmony message, Python arguments, JSON in an
//! XML body) reads it through one [`ArgsReader`].
//!
//! It owns the [`Repairer`] and the buffer its output is written to, and turns the
//! repairer's [`Status`] into the grammar's [`Step`] in one place ([`ArgsReader::step`]):
//! a grammar says where the value's bytes are, the reader says how far they went and
//! what stopped them. A weak decision of an armed reader stops it with
//! [`StepKind::Fork`]: the call ([`super::CallState`]) forks its competing readings
//! there, whatever the grammar. The fast paths (a string's run, a look-ahead reading a
//! chunk, a strict value passed whole) are the repairer's, reached through here.

use crate::calls::{Abort, Sink};
use crate::grammar::{Step, StepKind};
use crate::json::readings::Policy;
use crate::json::repairer::{Options, Repairer, Status};
use crate::repairs::Repair;

/// The repairer of a call's values and its output.
#[derive(Clone)]
pub(crate) struct ArgsReader {
    pub(crate) rep: Repairer,
    /// The repairer's output for the grammar, reused across chunks.
    pub(crate) out: Vec<u8>,
}

impl Default for ArgsReader {
    fn default() -> ArgsReader {
        ArgsReader {
            rep: Repairer::new(Options::default()),
            out: Vec::new(),
        }
    }
}

impl ArgsReader {
    /// Read `input` through the repairer; its output is in `out` (cleared first).
    pub(crate) fn read(&mut self, input: &[u8]) -> Status {
        self.out.clear();
        self.rep.feed(input, &mut self.out)
    }

    /// At the end of the stream: resolve what is held (into `out`, cleared first)
    /// without closing anything.
    pub(crate) fn drain(&mut self) -> Status {
        self.out.clear();
        self.rep.drain_at_eof(&mut self.out)
    }

    /// Arm the reader to stop at its first weak decision: the call forks its readings
    /// there.
    pub(crate) fn arm(&mut self) {
        self.rep.set_policy(Policy::ARMED);
    }

    /// The step a repairer `status` comes to, for a grammar that gave the repairer its
    /// input from byte `at` of `len`: the one mapping of the repairer's stops to the
    /// grammar's.
    pub(crate) fn step(status: Status, at: usize, len: usize) -> Step {
        let (consumed, kind) = match status {
            Status::NeedMore => return Step::more(len),
            Status::Complete { consumed } => (consumed, StepKind::Ended { closer_seen: false }),
            Status::Terminated { consumed, .. } => {
                (consumed, StepKind::Ended { closer_seen: true })
            }
            Status::TooDeep { consumed } => (consumed, StepKind::Abort(Abort::TooDeep)),
            Status::HeldOverflow { consumed } => (consumed, StepKind::Abort(Abort::HeldTooLong)),
            Status::Fork { consumed } => (consumed, StepKind::Fork),
            Status::CallEnded { consumed } => (consumed, StepKind::CallEnded),
        };
        Step {
            consumed: at + consumed,
            kind,
        }
    }

    /// Whether the value (or, read as one call's readings, the call) ended with what
    /// was held (a `drain` status).
    pub(crate) fn complete(status: Status) -> bool {
        matches!(
            status,
            Status::Complete { .. } | Status::Terminated { .. } | Status::CallEnded { .. }
        )
    }
}

/// How a call's arguments value began: as written (an object, streamed as it is
/// decided), or as a JSON string holding them (collected, then decoded and repaired).
/// For the grammars whose arguments are the whole value after a name or header.
#[derive(Clone, Debug, Default)]
pub(crate) struct ArgsValue {
    kind: ArgsKind,
    /// The repaired string of string-encoded arguments.
    encoded: Vec<u8>,
}

#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
enum ArgsKind {
    /// Nothing but blanks yet.
    #[default]
    Unknown,
    /// An object (or anything but a string): streamed as it is decided.
    Value,
    /// A JSON string holding the arguments: collected, then decoded.
    Encoded,
}

impl ArgsValue {
    /// Skip the blanks before the value in `input` (framing: DeepSeek's fence line) and
    /// tell its kind from its first byte; returns the bytes skipped.
    pub(crate) fn begin(&mut self, input: &[u8]) -> usize {
        if self.kind != ArgsKind::Unknown {
            return 0;
        }
        let blanks = input.iter().take_while(|b| b.is_ascii_whitespace()).count();
        if let Some(&b) = input.get(blanks) {
            self.kind = match b {
                b'"' => ArgsKind::Encoded,
                _ => ArgsKind::Value,
            };
        }
        blanks
    }

    /// Repaired argument bytes: streamed, or collected when they are an encoded string
    /// (decoded and repaired once the string ends, `done`).
    pub(crate) fn write(
        &mut self,
        bytes: &[u8],
        sink: &mut Sink<'_>,
        done: bool,
    ) -> Result<(), Abort> {
        if self.kind != ArgsKind::Encoded {
            return sink.args(bytes);
        }
        self.encoded.extend_from_slice(bytes);
        if !done {
            return Ok(());
        }
        sink.repair(Repair::ArgumentsString);
        let encoded = std::mem::take(&mut self.encoded);
        let text: Option<String> = serde_json::from_slice(&encoded).ok();
        match text.as_deref().map(|t| crate::repair(t.as_bytes())) {
            Some(Ok(fixed)) => {
                sink.repairs(fixed.repairs);
                sink.args(fixed.json.as_bytes())
            }
            _ => sink.args(&encoded),
        }
    }
}
