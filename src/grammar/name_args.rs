//! Name, then arguments: `call:NAME{...}` (Gemma 4), `NAME[ARGS]{...}` (Mistral v11),
//! `NAME<｜tool▁sep｜>{...}` (DeepSeek V3.1). The arguments go through the repairer,
//! with the dialect's raw string delimiter if it has one.

use super::Step;
use crate::calls::{Abort, Sink};
use crate::dialect::NameArgsSpec;
use crate::json::lookahead::KeyCheck;
use crate::json::repairer::{Repairer, Status};
use crate::repairs::Repair;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    Prefix,
    Name,
    Args,
}

pub(crate) struct NameArgs {
    spec: &'static NameArgsSpec,
    phase: Phase,
    buf: Vec<u8>,
    leftover: Vec<u8>,
    /// After a weak opener: a name that is not an identifier means no call.
    weak: bool,
    rejected: Vec<u8>,
    keys_pending: bool,
}

/// Bytes a tool name is made of.
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':' | b'/')
}

impl NameArgs {
    pub(crate) fn new(spec: &'static NameArgsSpec, weak: bool) -> NameArgs {
        NameArgs {
            weak,
            rejected: Vec::new(),
            keys_pending: true,
            spec,
            phase: if spec.name_prefix.is_empty() {
                Phase::Name
            } else {
                Phase::Prefix
            },
            buf: Vec::new(),
            leftover: Vec::new(),
        }
    }

    pub(crate) fn take_rejected(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.rejected)
    }

    pub(crate) fn take_leftover(&mut self, rep: &mut Repairer) -> Vec<u8> {
        let mut rest = std::mem::take(&mut self.leftover);
        rest.extend(rep.take_leftover());
        rest
    }

    pub(crate) fn feed(
        &mut self,
        input: &[u8],
        sink: &mut Sink<'_>,
        rep: &mut Repairer,
        scratch: &mut Vec<u8>,
    ) -> Step {
        let mut i = 0;
        while self.phase != Phase::Args {
            let Some(&b) = input.get(i) else {
                return Step::NeedMore;
            };
            i += 1;
            match self.phase {
                Phase::Prefix => {
                    if self.buf.is_empty() && b.is_ascii_whitespace() {
                        continue;
                    }
                    self.buf.push(b);
                    let p = self.spec.name_prefix;
                    if p.starts_with(&self.buf) {
                        if self.buf.len() == p.len() {
                            self.buf.clear();
                            self.phase = Phase::Name;
                        }
                        continue;
                    }
                    let held = std::mem::take(&mut self.buf);
                    let last = held.len() - 1;
                    if held[last] == b'{' && p.starts_with(&held[..last]) && p.len() == last + 1 {
                        // `call{`: the name was dropped; the arguments begin here.
                        self.phase = Phase::Args;
                        i -= 1;
                        break;
                    }
                    // No prefix: the held bytes begin the name; read them again.
                    self.phase = Phase::Name;
                    let mut again = held;
                    again.extend_from_slice(&input[i..]);
                    return match self.feed(&again, sink, rep, scratch) {
                        Step::NeedMore => Step::NeedMore,
                        step => shift(step, i, last + 1),
                    };
                }
                Phase::Name => {
                    if self.weak
                        && !is_name_byte(b)
                        && !(self.spec.separator.is_empty() && matches!(b, b'{' | b'('))
                    {
                        // Not a call after all: the opener and the name read so far are text.
                        self.rejected = std::mem::take(&mut self.buf);
                        return Step::Reject { consumed: i - 1 };
                    }
                    if self.name_byte(b, sink) && self.spec.separator.is_empty() {
                        if b == b'(' {
                            // `call:NAME(city="Tokyo")`: Python arguments; the `(` reads
                            // as the object's `{` and the `)` closes it.
                            rep.set_python(true);
                            scratch.clear();
                            let _ = rep.feed(b"{", scratch);
                            let _ = sink.args(scratch);
                        } else {
                            // The `{` that ended the name starts the arguments.
                            i -= 1;
                        }
                    }
                    if self.buf.len() > sink.config.limits.max_name_bytes {
                        return Step::Abort {
                            why: Abort::TooLarge,
                            consumed: i,
                        };
                    }
                }
                Phase::Args => unreachable!(),
            }
        }
        if self.keys_pending {
            // The tool is known before its arguments: the look-ahead may count an
            // undeclared key against closing a string.
            self.keys_pending = false;
            if let Some(keys) = sink.declared_keys() {
                rep.set_keys(KeyCheck {
                    depth: 1,
                    keys: Some(keys),
                });
            }
        }
        scratch.clear();
        let status = rep.feed(&input[i..], scratch);
        if let Err(why) = sink.args(scratch) {
            return Step::Abort {
                why,
                consumed: input.len(),
            };
        }
        match status {
            Status::NeedMore => Step::NeedMore,
            Status::Complete { consumed } => Step::Ended {
                consumed: i + consumed,
                closer_seen: false,
            },
            Status::Terminated { consumed, .. } => Step::Ended {
                consumed: i + consumed,
                closer_seen: true,
            },
            Status::TooDeep { consumed } => Step::Abort {
                why: Abort::TooDeep,
                consumed: i + consumed,
            },
            Status::HeldOverflow { consumed } => Step::Abort {
                why: Abort::HeldTooLong,
                consumed: i + consumed,
            },
        }
    }

    /// One byte of the name; true when the name ended at it.
    ///
    /// The separator-less form ends the name at `{` (or a Python-style `(`).
    fn name_byte(&mut self, b: u8, sink: &mut Sink<'_>) -> bool {
        let sep = self.spec.separator;
        let ends = if sep.is_empty() {
            matches!(b, b'{' | b'(')
        } else {
            self.buf.push(b);
            self.buf.ends_with(sep)
        };
        if !ends {
            if sep.is_empty() {
                self.buf.push(b);
            }
            return false;
        }
        if !sep.is_empty() {
            let n = self.buf.len() - sep.len();
            self.buf.truncate(n);
        } else {
            self.leftover.clear();
        }
        let name = String::from_utf8_lossy(&self.buf).into_owned();
        self.buf.clear();
        sink.name(name.trim());
        if b == b'(' {
            sink.repair(Repair::PythonValue);
        }
        self.phase = Phase::Args;
        true
    }

    pub(crate) fn finish(
        &mut self,
        sink: &mut Sink<'_>,
        rep: &mut Repairer,
        scratch: &mut Vec<u8>,
    ) -> bool {
        if self.phase != Phase::Args {
            return false;
        }
        scratch.clear();
        let status = rep.drain_at_eof(scratch);
        let _ = sink.args(scratch);
        matches!(status, Status::Complete { .. } | Status::Terminated { .. })
    }
}

/// Map a step over `again` (which began with `held` bytes already counted in `i`) back
/// to the caller's input.
fn shift(step: Step, i: usize, held: usize) -> Step {
    let map = |c: usize| (i + c).saturating_sub(held);
    match step {
        Step::NeedMore => Step::NeedMore,
        Step::Ended {
            consumed,
            closer_seen,
        } => Step::Ended {
            consumed: map(consumed),
            closer_seen,
        },
        Step::Abort { why, consumed } => Step::Abort {
            why,
            consumed: map(consumed),
        },
        Step::Reject { consumed } => Step::Reject {
            consumed: map(consumed),
        },
        Step::Switch {
            consumed,
            reasoning,
        } => Step::Switch {
            consumed: map(consumed),
            reasoning,
        },
    }
}
