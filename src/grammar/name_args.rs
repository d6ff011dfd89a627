//! Name, then arguments: `call:NAME{...}` (Gemma 4), `NAME[ARGS]{...}` (Mistral v11),
//! `NAME<｜tool▁sep｜>{...}` (DeepSeek V3.1). The arguments go through the repairer,
//! with the dialect's raw string delimiter if it has one.

use super::Step;
use crate::call::args::{ArgsReader, ArgsValue};
use crate::calls::{is_name_byte, Abort, Sink};
use crate::dialect::NameArgsSpec;
use crate::json::repairer::Status;
use crate::repairs::Repair;

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Phase {
    Prefix,
    Name,
    /// After the id separator: the call id, up to the separator.
    Id,
    Args,
}

#[derive(Clone)]
pub(crate) struct NameArgs {
    spec: &'static NameArgsSpec,
    phase: Phase,
    buf: Vec<u8>,
    leftover: Vec<u8>,
    /// After a weak opener: a name that is not an identifier means no call.
    weak: bool,
    rejected: Vec<u8>,
    /// After a weak opener, with an identifier name: the bytes read before the
    /// arguments, text again if no arguments follow.
    read: Vec<u8>,
    /// With `read`: the name, told once the arguments begin (a call that turns out to
    /// be none was never shown).
    deferred: Option<String>,
    keys_pending: bool,
    /// The name, held while the call id that follows it is read.
    name: Option<String>,
    /// The arguments as written or string-encoded.
    value: ArgsValue,
}

impl NameArgs {
    pub(crate) fn new(spec: &'static NameArgsSpec, weak: bool) -> NameArgs {
        NameArgs {
            weak,
            rejected: Vec::new(),
            read: Vec::new(),
            deferred: None,
            keys_pending: true,
            spec,
            phase: if spec.name_prefix.is_empty() {
                Phase::Name
            } else {
                Phase::Prefix
            },
            buf: Vec::new(),
            leftover: Vec::new(),
            name: None,
            value: ArgsValue::default(),
        }
    }

    /// Whether `b` can continue a separator (so a weak name is not rejected at it).
    fn in_separator(&self, b: u8) -> bool {
        let s = self.spec;
        [s.separator, s.alt_separator, s.id_separator]
            .iter()
            .any(|sep| sep.contains(&b))
    }

    pub(crate) fn take_rejected(&mut self) -> Vec<u8> {
        if self.rejected.is_empty() && self.undecided() {
            return std::mem::take(&mut self.buf);
        }
        std::mem::take(&mut self.rejected)
    }

    /// After a weak opener, the name has not ended yet: what was read may still be text.
    pub(crate) fn undecided(&self) -> bool {
        self.weak && matches!(self.phase, Phase::Prefix | Phase::Name)
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
        while self.phase != Phase::Args {
            let Some(&b) = input.get(i) else {
                return Step::more(input.len());
            };
            i += 1;
            if self.weak && self.spec.identifier_name {
                self.read.push(b);
            }
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
                    let step = self.feed(&again, sink, args);
                    return match step.goes_on() {
                        true => Step::more(input.len()),
                        false => shift(step, i, last + 1),
                    };
                }
                Phase::Name => {
                    let opens_args = self.spec.separator.is_empty() && matches!(b, b'{' | b'(');
                    if self.weak && !is_name_byte(b) && !opens_args && !self.in_separator(b) {
                        // Not a call after all: the opener and the name read so far are text.
                        self.rejected = std::mem::take(&mut self.buf);
                        return Step::reject(i - 1);
                    }
                    if self.spec.identifier_name && !self.weak && self.not_a_name(b) {
                        // Prose after the marker: no call; the marker is dropped and the
                        // bytes read so far are text.
                        self.rejected = std::mem::take(&mut self.buf);
                        return Step::reject(i - 1);
                    }
                    if self.dropped_separator(b) {
                        // `NAME{`: the separator was dropped; the `{` starts the arguments.
                        let n = self.buf.len();
                        self.end_name(n, false, b, sink);
                        sink.repair(Repair::MissingSeparator);
                        sink.loose_name();
                        i -= 1;
                    } else if self.name_byte(b, sink) && self.spec.separator.is_empty() {
                        if b == b'(' {
                            // `call:NAME(city="Tokyo")`: Python arguments; the `(` reads
                            // as the object's `{` and the `)` closes it.
                            args.rep.set_python(true);
                            let _ = args.read(b"{");
                            let _ = sink.args(&args.out);
                        } else {
                            // The `{` that ended the name starts the arguments.
                            i -= 1;
                        }
                    }
                    if self.buf.len() > sink.config.limits.max_name_bytes {
                        return Step::abort(Abort::TooLarge, i);
                    }
                }
                Phase::Id => {
                    self.buf.push(b);
                    if self.buf.ends_with(self.spec.separator) {
                        let n = self.buf.len() - self.spec.separator.len();
                        let id = String::from_utf8_lossy(&self.buf[..n]).into_owned();
                        self.buf.clear();
                        sink.id(id.trim());
                        if let Some(name) = self.name.take() {
                            self.tell_name(name, sink);
                        }
                        self.phase = Phase::Args;
                    } else if self.buf.len() > sink.config.limits.max_name_bytes {
                        return Step::abort(Abort::TooLarge, i);
                    }
                }
                Phase::Args => unreachable!(),
            }
        }
        if self.deferred.is_some() {
            while let Some(&b) = input.get(i).filter(|b| b.is_ascii_whitespace()) {
                self.read.push(b);
                i += 1;
            }
            let Some(&b) = input.get(i) else {
                return Step::more(input.len());
            };
            if !matches!(b, b'{' | b'"') {
                // After a weak opener, prose where the arguments belong: no call; the
                // name, the separator and the blanks are text again.
                self.rejected = std::mem::take(&mut self.read);
                return Step::reject(i);
            }
            self.read = Vec::new();
            if let Some(name) = self.deferred.take() {
                sink.name(&name);
            }
        }
        if !self.spec.alt_string.is_empty() {
            // Strings between a delimiter the syntax cannot escape.
            sink.values_written_raw();
        }
        if self.keys_pending {
            // The tool is known before its arguments: the look-ahead may count an
            // undeclared key against closing a string.
            self.keys_pending = false;
            let check = sink.key_check(1);
            if check.keys.is_some() {
                args.rep.set_keys(check);
            }
        }
        // Blanks before the arguments are framing (DeepSeek's fence line).
        i += self.value.begin(&input[i..]);
        let status = args.read(&input[i..]);
        let done = !matches!(status, Status::NeedMore | Status::Fork { .. });
        if let Err(why) = self.value.write(&args.out, sink, done) {
            return Step::abort(why, input.len());
        }
        ArgsReader::step(status, i, input.len())
    }

    /// One byte of the name; true when the name ended at it.
    ///
    /// The separator-less form ends the name at `{` (or a Python-style `(`).
    fn name_byte(&mut self, b: u8, sink: &mut Sink<'_>) -> bool {
        let sep = self.spec.separator;
        let mut for_id = false;
        let mut sep_len = sep.len();
        let ends = if sep.is_empty() {
            matches!(b, b'{' | b'(')
        } else {
            self.buf.push(b);
            let alt = self.spec.alt_separator;
            let id = self.spec.id_separator;
            if !alt.is_empty() && self.buf.ends_with(alt) {
                sep_len = alt.len();
                true
            } else if !id.is_empty() && self.buf.ends_with(id) {
                sep_len = id.len();
                for_id = true;
                true
            } else {
                self.buf.ends_with(sep)
            }
        };
        if !ends {
            if sep.is_empty() {
                self.buf.push(b);
            }
            return false;
        }
        let n = if sep.is_empty() {
            self.leftover.clear();
            self.buf.len()
        } else {
            self.buf.len() - sep_len
        };
        self.end_name(n, for_id, b, sink);
        true
    }

    /// With an identifier name (`identifier_name`), whether `b` is the `{`
    /// of arguments right after a whole name.
    fn dropped_separator(&self, b: u8) -> bool {
        let name = self.buf.trim_ascii();
        b == b'{'
            && self.spec.identifier_name
            && !name.is_empty()
            && name.iter().all(|&c| is_name_byte(c))
    }

    /// Whether `b` shows that what follows the opener is not `NAME` + separator: a byte
    /// that is neither a name's, a blank nor a separator's, or a second word.
    fn not_a_name(&self, b: u8) -> bool {
        let blank_after_name = self.buf.last().is_some_and(u8::is_ascii_whitespace)
            && self.buf.iter().any(|c| !c.is_ascii_whitespace());
        if b.is_ascii_whitespace() || self.in_separator(b) || b == b'{' {
            return false;
        }
        !is_name_byte(b) || blank_after_name
    }

    /// The name is `buf[..n]`: give it to the sink (or hold it for the call id that
    /// follows) and read the arguments next.
    fn end_name(&mut self, n: usize, for_id: bool, b: u8, sink: &mut Sink<'_>) {
        self.buf.truncate(n);
        let raw = String::from_utf8_lossy(&self.buf).trim().to_owned();
        self.buf.clear();
        let mut malformed = false;
        let name = if self.spec.name_is_id {
            sink.id(&raw);
            malformed = index_misplaced(&raw);
            name_in_id(&raw).to_owned()
        } else {
            raw
        };
        if for_id {
            // The id follows; the call starts once it is read.
            self.name = Some(name);
            self.phase = Phase::Id;
            return;
        }
        self.tell_name(name, sink);
        if malformed {
            sink.invalid(
                "the call id is not functions.NAME:INDEX, so the tool name cannot be told \
                 from its index; write the id as functions.NAME:INDEX",
            );
        }
        if b == b'(' {
            sink.repair(Repair::PythonValue);
        }
        self.phase = Phase::Args;
    }

    /// Tell the sink the name, or, after a weak opener with an identifier name, keep
    /// it until the arguments begin.
    fn tell_name(&mut self, name: String, sink: &mut Sink<'_>) {
        if self.weak && self.spec.identifier_name {
            self.deferred = Some(name);
        } else {
            sink.name(&name);
        }
    }

    pub(crate) fn finish(&mut self, sink: &mut Sink<'_>, args: &mut ArgsReader) -> bool {
        if let Some(name) = self.name.take().filter(|_| self.phase == Phase::Id) {
            // Cut inside the call id: reported with the name before it.
            sink.name(&name);
        }
        if self.phase != Phase::Args {
            return false;
        }
        if let Some(name) = self.deferred.take() {
            // Cut before its arguments: a call, reported with its name.
            sink.name(&name);
        }
        let status = args.drain();
        let done = ArgsReader::complete(status);
        let _ = self.value.write(&args.out, sink, done);
        done
    }
}

/// The tool name inside a call id: `functions.NAME:0`, `NAME:0`, `functions_NAME_0`.
fn name_in_id(id: &str) -> &str {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some(rest) = id.strip_prefix("functions_") {
        return match rest.rsplit_once('_') {
            Some((name, n)) if digits(n) && !name.is_empty() => name,
            _ => rest,
        };
    }
    let rest = id.strip_prefix("functions.").unwrap_or(id);
    match rest.rsplit_once(':') {
        Some((name, n)) if digits(n) && !name.is_empty() => name,
        _ => rest,
    }
}

/// Whether a `functions.` call id has no `:INDEX` but ends in `.DIGITS`
/// (`functions.invalid.0`): the index written with the wrong separator, or a name
/// ending in digits, cannot be told apart.
fn index_misplaced(id: &str) -> bool {
    let Some(rest) = id.strip_prefix("functions.") else {
        return false;
    };
    !rest.contains(':')
        && rest.rsplit_once('.').is_some_and(|(name, n)| {
            !name.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())
        })
}

/// Map a step over `again` (which began with `held` bytes already counted in `i`) back
/// to the caller's input.
fn shift(step: Step, i: usize, held: usize) -> Step {
    Step {
        consumed: (i + step.consumed).saturating_sub(held),
        ..step
    }
}
