//! The JSON envelope grammar: `{"name": ..., "arguments": {...}}`, or an array of them.
//!
//! The whole body goes through the [`Repairer`]; a projector then reads the repaired
//! (strict) text and picks out the name, the id and the arguments value, whose bytes
//! stream to the sink as they are decided.

use super::{Step, StepKind};
use crate::call::args::ArgsReader;
use crate::calls::{Abort, Sink};
use crate::dialect::EnvelopeSpec;
use crate::json::repairer::{Nesting, Repairer, Status};
use crate::repairs::{Repair, Repairs};
use smallvec::SmallVec;

/// The bytes that matter inside a container below the call object's level.
const NESTED: [bool; 256] = {
    let mut t = [false; 256];
    t[b'"' as usize] = true;
    t[b'{' as usize] = true;
    t[b'[' as usize] = true;
    t[b'}' as usize] = true;
    t[b']' as usize] = true;
    t
};

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Field {
    Name,
    Args,
    Id,
    Function,
    Other,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Expect {
    Key,
    Colon,
    Value,
    Comma,
}

#[derive(Clone)]
pub(crate) struct Envelope {
    spec: &'static EnvelopeSpec,
    depth: u32,
    /// Depth of the call object(s): 1 for an object body, 2 for an array of them; one
    /// more inside an OpenAI-style `"function": {...}`.
    base: u32,
    in_str: bool,
    esc: bool,
    expect: Expect,
    field: Field,
    /// (Inline: a call object's keys and name fit, so a call allocates none.)
    key: SmallVec<[u8; 24]>,
    /// A string value being collected (name, id, or string-encoded arguments).
    buf: SmallVec<[u8; 40]>,
    /// Inside a value at `base`: its kind.
    in_value: bool,
    value_is_str: bool,
    value_is_container: bool,
    function_depth: Option<u32>,
    array_body: bool,
    /// The name, held until the arguments begin or the call object ends, so that an id
    /// written after the name (but before the arguments) still becomes the call id.
    name: Option<String>,
    /// `"arguments": null`: `{}` is written when the call object ends, unless it was cut.
    args_null: bool,
    /// The start of a scalar arguments value (`null`, a number) that an output ended
    /// in: a scalar is judged whole, whatever the chunking.
    args_scalar: Vec<u8>,
    /// Where in the current output the closers begin that a marker supplied when it
    /// ended the body before its JSON ended.
    cut_from: usize,
    /// The call object's repaired text while it has shown no arguments key (`None`
    /// once it has, or past the size limit): a call object that never does holds its
    /// arguments as its own members, beside its name (`{"name": "f", "a": 1}`) or with
    /// no name at all (`{"path": "a"}`, whose tool the schema may tell).
    object_text: Option<Vec<u8>>,
    /// The call object has had its arguments value.
    args_seen: bool,
    /// In an array body, the repairs the repairer made in each call object, in order
    /// (`Repairer::take_log`), not yet taken: each call takes its own at its end.
    repair_log: std::collections::VecDeque<Repairs>,
    /// Each call object of an array body read as one call's competing readings
    /// (`Policy::one_call`): a call that closes is not released here (the readings
    /// release it once decided).
    one_call: bool,
}

impl Envelope {
    pub(crate) fn new(spec: &'static EnvelopeSpec) -> Envelope {
        Envelope {
            spec,
            depth: 0,
            base: 1,
            in_str: false,
            esc: false,
            expect: Expect::Key,
            field: Field::Other,
            key: SmallVec::new(),
            buf: SmallVec::new(),
            in_value: false,
            value_is_str: false,
            value_is_container: false,
            function_depth: None,
            array_body: false,
            name: None,
            args_null: false,
            args_scalar: Vec::new(),
            cut_from: usize::MAX,
            object_text: (!spec.name_is_key).then(Vec::new),
            args_seen: false,
            repair_log: std::collections::VecDeque::new(),
            one_call: false,
        }
    }

    /// Whether the body is an array of call objects.
    pub(crate) fn array_body(&self) -> bool {
        self.array_body
    }

    pub(crate) fn feed(
        &mut self,
        input: &[u8],
        sink: &mut Sink<'_>,
        args: &mut ArgsReader,
    ) -> Step {
        if self.in_args_string() {
            // Inside a string of the arguments: its content goes to the sink as the
            // repairer writes it, with no projection (`project` would pass it as is).
            args.out.clear();
            let n = args.rep.pass_string(input, &mut args.out);
            if n > 0 {
                if let Err(why) = sink.string_args(&args.out) {
                    return Step::abort(why, n);
                }
                if n == input.len() {
                    return Step::more(n);
                }
                return self.feed(&input[n..], sink, args).after(n);
            }
        }
        if args.rep.at_first_value() {
            // A well-formed call object read whole is projected from the input itself:
            // no repairer pass, no copy (`json/strict.rs`).
            let blanks = input.iter().take_while(|b| b.is_ascii_whitespace()).count();
            if matches!(input.get(blanks), Some(b'{' | b'[')) {
                if blanks > 0 {
                    let step = self.feed_repaired(&input[..blanks], sink, args);
                    if !step.goes_on() {
                        return step;
                    }
                }
                let n = args.rep.pass_value(&input[blanks..]);
                if n > 0 {
                    let value = &input[blanks..blanks + n];
                    // The model closed it: nothing in it was supplied by a marker.
                    self.cut_from = usize::MAX;
                    if let Err(why) = self.project(value, sink) {
                        return Step::abort(why, blanks + n);
                    }
                    let rest = &input[blanks + n..];
                    return self.feed_repaired(rest, sink, args).after(blanks + n);
                }
                return self.feed_sliced(&input[blanks..], sink, args).after(blanks);
            }
        }
        self.feed_sliced(input, sink, args)
    }

    /// Feed the repairer in slices (see [`super::SLICE`]).
    fn feed_sliced(&mut self, input: &[u8], sink: &mut Sink<'_>, args: &mut ArgsReader) -> Step {
        super::sliced(input, |piece| self.feed_repaired(piece, sink, args))
    }

    fn feed_repaired(&mut self, input: &[u8], sink: &mut Sink<'_>, args: &mut ArgsReader) -> Step {
        self.one_call = args.rep.policy().one_call;
        let status = args.read(input);
        self.take_repair_log(&mut args.rep);
        if let Status::Fork { consumed } = status {
            // The output so far is every reading's: project it, then fork.
            self.cut_from = usize::MAX;
            if let Err(why) = self.project(&args.out, sink) {
                return Step::abort(why, consumed);
            }
            // Readings compete over one call (`call::readings`): in an array, over the
            // call object being read, up to its end.
            return Step {
                consumed,
                kind: StepKind::Fork,
            };
        }
        self.cut_from = cut_from(status, &args.rep, &args.out);
        let passed = match status {
            // Below the call object's level: else `project` has the call's fields to read.
            Status::NeedMore if self.depth > self.base => args
                .rep
                .nesting()
                .and_then(|n| self.pass_nested(&args.out, n, sink)),
            _ => None,
        };
        if let Err(why) = passed.unwrap_or_else(|| self.project(&args.out, sink)) {
            let consumed = match status {
                Status::Complete { consumed } | Status::Terminated { consumed, .. } => consumed,
                _ => input.len(),
            };
            return Step::abort(why, consumed);
        }
        ArgsReader::step(status, 0, input.len())
    }

    /// At the end of the stream: whether the body completed with what was held.
    pub(crate) fn finish(&mut self, sink: &mut Sink<'_>, args: &mut ArgsReader) -> bool {
        let status = args.drain();
        self.take_repair_log(&mut args.rep);
        self.cut_from = cut_from(status, &args.rep, &args.out);
        let _ = self.project(&args.out, sink);
        let complete = ArgsReader::complete(status);
        if !complete {
            self.name_before_quote();
        }
        self.flush_name(sink);
        complete
    }

    /// A call cut inside a string of its call object that its reading ran on past a
    /// quote (`{"name": "f", "arguments": {bad json}` read as one open name, or the
    /// same after `{"id": "0", `): the name reported is the one the quotes the reading
    /// escaped delimit, when it is a name. The call is not released either way; only
    /// its report names it.
    fn name_before_quote(&mut self) {
        let open = self.in_str && self.in_value && self.depth == self.base;
        if !open || self.name.is_some() || self.field == Field::Args {
            return;
        }
        // The repaired string so far, after its opening quote, with the quotes the
        // reading escaped taken back as the model wrote them.
        let text = self.buf.strip_prefix(b"\"").unwrap_or(&self.buf);
        let raw = String::from_utf8_lossy(text).replace("\\\"", "\"");
        let name = match self.field {
            Field::Name => raw.split_once('"').map(|(name, _)| name),
            _ => self.spec.name_keys.iter().find_map(|key| {
                let (_, after) = raw.split_once(&format!("\"{key}\""))?;
                let value = after.trim_start().strip_prefix(':')?.trim_start();
                Some(value.strip_prefix('"')?.split_once('"')?.0)
            }),
        };
        if let Some(name) = name.map(str::trim).filter(|n| crate::calls::is_name(n)) {
            self.name = Some(name.to_owned());
        }
    }

    /// Keep the repairs the repairer logged for the call objects of an array body that
    /// closed in the output just written, for `project` to give each call its own.
    fn take_repair_log(&mut self, rep: &mut Repairer) {
        if rep.logged() {
            self.repair_log.extend(rep.take_log());
        }
    }

    /// Whether a string of the call object still open (its name, a key) holds
    /// `marker`.
    pub(crate) fn open_string_holds(&self, marker: &[u8]) -> bool {
        let holds = |s: &[u8]| memchr::memmem::find(s, marker).is_some();
        !marker.is_empty() && self.in_str && (holds(&self.buf) || holds(&self.key))
    }

    fn classify(&self) -> (Field, Option<Repair>) {
        let key = self.key.as_slice();
        if self.spec.name_is_key {
            return (Field::Args, None);
        }
        if self.spec.name_keys.iter().any(|k| k.as_bytes() == key) {
            return (Field::Name, None);
        }
        if let Some((_, r)) = self
            .spec
            .args_keys
            .iter()
            .find(|(k, _)| k.as_bytes() == key)
        {
            return (Field::Args, *r);
        }
        if self.spec.id_keys.iter().any(|k| k.as_bytes() == key) {
            return (Field::Id, None);
        }
        if key == b"function" && self.function_depth.is_none() {
            return (Field::Function, None);
        }
        (Field::Other, None)
    }

    /// Read repaired (strict) JSON and route the parts of each call to the sink.
    fn project(&mut self, out: &[u8], sink: &mut Sink<'_>) -> Result<(), Abort> {
        let mut run: Option<usize> = None; // start of an argument run in `out`
        let mut i = 0;
        while i < out.len() {
            // Bulk paths: below the call object's level only the nesting and whether a
            // string is open change (`nested_run`); at it, inside a string that is not
            // captured, only `"` and `\` matter. Argument bytes are sent as runs, so
            // skipping is exact.
            let rest = &out[i..];
            let skip = if self.depth > self.base {
                self.nested_run(rest)
            } else if self.in_str && !self.esc && !self.captures_string() {
                crate::scan::find2(b'"', b'\\', rest).unwrap_or(rest.len())
            } else if self.in_str && !self.esc {
                // A key or a string value of the call object: its plain bytes are
                // collected as `project_byte` collects them, a run at a time.
                let plain = crate::scan::find2(b'"', b'\\', rest).unwrap_or(rest.len());
                // (`extend`, not `extend_from_slice`: token-sized runs, no call to copy.)
                let bytes = rest[..plain].iter().copied();
                if self.expect == Expect::Key && !self.in_value {
                    self.key.extend(bytes);
                } else {
                    self.buf.extend(bytes);
                }
                i += plain;
                if plain > 0 {
                    continue;
                }
                0
            } else {
                0
            };
            if skip > 0 {
                if self.streams_args() {
                    run.get_or_insert(i);
                }
                i += skip;
                continue;
            }
            self.project_byte(out, i, out[i], &mut run, sink)?;
            i += 1;
        }
        // Kept after reading, so bytes past an arguments key are never copied.
        self.keep_object_text(out, sink);
        if let Some(start) = run.take() {
            if self.streams_args() {
                if self.value_is_container {
                    sink.args(&out[start..])?;
                } else {
                    self.args_scalar.extend_from_slice(&out[start..]);
                }
            }
        }
        Ok(())
    }

    /// `project` of a repairer's output that stays inside a container below the call
    /// object's level, whole: its bytes are routed as one run, and the nesting and
    /// whether a string is open after it are the repairer's (`nesting`), not read a
    /// byte at a time (replayed structure, the bulk of a large arguments object, is
    /// read once by the repairer rather than twice). `None` when the output may close
    /// that container: `project` reads it.
    fn pass_nested(
        &mut self,
        out: &[u8],
        nesting: Nesting,
        sink: &mut Sink<'_>,
    ) -> Option<Result<(), Abort>> {
        // The envelope's depth where the repairer's was lowest: a closer to the call
        // object's level is `project_byte`'s.
        let lowest = (self.depth as usize + nesting.low).checked_sub(nesting.before)?;
        if lowest <= self.base as usize || out.is_empty() {
            return None;
        }
        let depth = (self.depth as usize + nesting.after - nesting.before) as u32;
        self.keep_object_text(out, sink);
        #[cfg(debug_assertions)]
        {
            let kept = (self.in_str, self.esc, self.depth);
            let read = self.nested_run(out);
            debug_assert_eq!(
                (read, self.in_str, self.esc, self.depth),
                (out.len(), nesting.in_string, false, depth),
                "the repairer's nesting disagrees with its output {:?}",
                String::from_utf8_lossy(out)
            );
            (self.in_str, self.esc, self.depth) = kept;
        }
        (self.in_str, self.esc, self.depth) = (nesting.in_string, false, depth);
        if !self.streams_args() {
            return Some(Ok(()));
        }
        if self.value_is_container {
            return Some(sink.args(out));
        }
        self.args_scalar.extend_from_slice(out);
        Some(Ok(()))
    }

    /// The bytes at the start of `bytes`, inside a container below the call object's
    /// level, read as `project_byte` reads them there: only a string's quotes and
    /// backslashes and the brackets change anything (whether a string is open, the
    /// nesting), and nothing is routed. Stops before a closer back to that level, which
    /// `project_byte` reads; returns the bytes read.
    fn nested_run(&mut self, bytes: &[u8]) -> usize {
        debug_assert!(self.depth > self.base);
        let (mut in_str, mut esc, mut depth) = (self.in_str, self.esc, self.depth);
        let mut i = 0;
        while i < bytes.len() {
            if in_str {
                if esc {
                    esc = false;
                    i += 1;
                    continue;
                }
                let Some(k) = crate::scan::find2(b'"', b'\\', &bytes[i..]) else {
                    i = bytes.len();
                    break;
                };
                i += k;
                match bytes[i] {
                    b'"' => in_str = false,
                    _ => esc = true,
                }
                i += 1;
                continue;
            }
            let Some(k) = bytes[i..].iter().position(|&c| NESTED[c as usize]) else {
                i = bytes.len();
                break;
            };
            i += k;
            match bytes[i] {
                b'"' => (in_str, esc) = (true, false),
                b'{' | b'[' => depth += 1,
                _ if depth > self.base + 1 => depth -= 1,
                _ => break,
            }
            i += 1;
        }
        (self.in_str, self.esc, self.depth) = (in_str, esc, depth);
        i
    }

    /// Whether the input is inside a string of the arguments, after no backslash: its
    /// plain content is written as it stands.
    pub(crate) fn in_args_string(&self) -> bool {
        self.in_str && !self.esc && self.streams_args()
    }

    /// Whether the bytes read now belong to the arguments value as written (not an
    /// arguments value encoded as a string, which is collected and decoded).
    fn streams_args(&self) -> bool {
        self.in_value && self.field == Field::Args && !self.value_is_str
    }

    /// Whether string bytes are being collected (a key or a string value of the call
    /// object itself).
    fn captures_string(&self) -> bool {
        self.depth == self.base
            && ((self.expect == Expect::Key && !self.in_value)
                || (self.in_value && self.value_is_str))
    }

    /// One byte of `project`'s state machine.
    fn project_byte(
        &mut self,
        out: &[u8],
        i: usize,
        b: u8,
        run: &mut Option<usize>,
        sink: &mut Sink<'_>,
    ) -> Result<(), Abort> {
        if self.streams_args() && run.is_none() {
            *run = Some(i);
        }
        if self.in_str {
            if self.esc {
                self.esc = false;
            } else if b == b'\\' {
                self.esc = true;
            } else if b == b'"' {
                self.in_str = false;
            }
            let ended = !self.in_str;
            if self.depth == self.base && self.expect == Expect::Key && !self.in_value {
                if ended {
                    self.expect = Expect::Colon;
                } else {
                    self.key.push(b);
                }
            } else if self.in_value && self.value_is_str && self.depth == self.base {
                self.buf.push(b);
                if ended {
                    self.end_string_value(sink)?;
                }
            }
            return Ok(());
        }
        match b {
            b'"' => {
                self.in_str = true;
                self.esc = false;
                if self.depth == self.base && !self.in_value {
                    if self.expect == Expect::Value {
                        self.start_value(false, sink);
                        self.value_is_str = true;
                        self.buf.clear();
                        self.buf.push(b);
                        if self.field == Field::Args {
                            *run = None;
                        }
                    } else {
                        self.key.clear();
                        self.expect = Expect::Key;
                    }
                }
            }
            b'{' | b'[' => {
                if self.depth == 0 {
                    self.array_body = b == b'[';
                    self.base = if self.array_body { 2 } else { 1 };
                    if !self.array_body {
                        sink.begin(None);
                        self.args_seen = false;
                    }
                } else if self.array_body && self.depth == 1 && b == b'{' {
                    sink.begin(None);
                    self.args_seen = false;
                    self.expect = Expect::Key;
                } else if self.depth == self.base && !self.in_value && self.expect == Expect::Value
                {
                    if self.classify().0 == Field::Function && b == b'{' {
                        self.function_depth = Some(self.base);
                        self.base += 1;
                        self.depth += 1;
                        self.expect = Expect::Key;
                        return Ok(());
                    }
                    self.start_value(true, sink);
                    if self.field == Field::Args && run.is_none() {
                        *run = Some(i);
                    }
                }
                self.depth += 1;
                if self.depth == self.base && !self.in_value {
                    self.expect = Expect::Key;
                }
            }
            b'}' | b']' => {
                if self.depth == self.base && self.in_value && !self.value_is_container {
                    // A scalar value ends at its object's closer.
                    self.flush_run(out, run, i, sink)?;
                    self.in_value = false;
                }
                self.depth = self.depth.saturating_sub(1);
                // Closed by a marker (even the call's closer), not by the model.
                let cut = i >= self.cut_from;
                if self.depth == u32::from(self.array_body) {
                    // The call object ended: finished by the model, or closed by a
                    // marker before the model closed it: arguments it had may have
                    // been lost in what came before, or not come yet, so `{}` never
                    // stands in for them.
                    if cut {
                        sink.cut();
                    }
                    self.end_without_arguments(out, i, cut, sink)?;
                    if std::mem::take(&mut self.args_null) && !cut {
                        sink.repair(Repair::MissingArguments);
                        sink.args(b"{}")?;
                    }
                    self.flush_name(sink);
                    sink.id_settled();
                }
                if self.in_value && self.value_is_container && self.depth == self.base {
                    self.flush_run(out, run, i + 1, sink)?;
                    self.in_value = false;
                    self.expect = Expect::Comma;
                    return Ok(());
                }
                if self.function_depth == Some(self.depth) {
                    self.base -= 1;
                    self.function_depth = None;
                    self.expect = Expect::Comma;
                }
                if self.array_body && self.depth == 1 {
                    // The repairs made in this call object are its own.
                    if let Some(repairs) = self.repair_log.pop_front() {
                        sink.repairs(repairs);
                    }
                    // Closed by a marker (the body's last object, its closers
                    // invented), the call is the body's end's to settle: the marker
                    // may have been a raw string's (`Parser::end_at_closer`).
                    if !self.one_call && !cut {
                        sink.end_in_body();
                    }
                    self.expect = Expect::Key;
                }
            }
            b':' if self.depth == self.base && !self.in_value => self.expect = Expect::Value,
            b',' if self.depth == self.base => {
                if self.in_value && !self.value_is_container {
                    self.flush_run(out, run, i, sink)?;
                    self.in_value = false;
                }
                self.expect = Expect::Key;
            }
            b' ' | b'\t' | b'\n' | b'\r' => {
                if self.in_value
                    && !self.value_is_container
                    && self.depth == self.base
                    && !self.value_is_str
                {
                    self.flush_run(out, run, i, sink)?;
                    self.in_value = false;
                    self.expect = Expect::Comma;
                }
            }
            _ => {
                if self.depth == self.base && !self.in_value && self.expect == Expect::Value {
                    self.start_value(false, sink);
                    if self.field == Field::Args {
                        *run = Some(i);
                    }
                }
            }
        }
        Ok(())
    }

    /// Keep the repaired text of a call object that has shown no arguments key yet
    /// (see `object_text`), within the arguments' size limit.
    fn keep_object_text(&mut self, out: &[u8], sink: &Sink<'_>) {
        if let Some(text) = &mut self.object_text {
            if text.len() + out.len() > sink.config.limits.max_args_bytes {
                self.object_text = None;
            } else {
                text.extend_from_slice(out);
            }
        }
    }

    /// The call object ended at `out[i]` without an arguments key. With no name
    /// either, its members are the arguments (`<tool_call>{"path": "a"}</tool_call>`),
    /// released only if exactly one declared tool fits them (`Repair::ToolNameInferred`,
    /// decided when the call ends). With a name, its other members are (`{"name":
    /// "shell", "command": "ls"}`) when the named tool declares every one of them.
    /// Not when a marker closed it (its members may be cut short).
    fn end_without_arguments(
        &mut self,
        out: &[u8],
        i: usize,
        cut: bool,
        sink: &mut Sink<'_>,
    ) -> Result<(), Abort> {
        let Some(mut text) = self.object_text.take() else {
            return Ok(());
        };
        // Past the size limit, as `keep_object_text` would have found it had the
        // object's output come in pieces.
        if cut || text.len() + i + 1 > sink.config.limits.max_args_bytes {
            return Ok(());
        }
        // `text` holds the outputs before `out`: the object ends at `out[i]`.
        text.extend_from_slice(&out[..=i]);
        let start = text.iter().position(|&b| b == b'{').unwrap_or(0);
        // Members in the model's order (the arguments may be written from them).
        let Some(crate::ordered::Value::Object(mut members)) =
            crate::ordered::Value::parse_slice(&text[start..])
        else {
            return Ok(());
        };
        let Some(name) = self.name.clone() else {
            if sink.has_name() || members.is_empty() {
                return Ok(());
            }
            sink.repair(Repair::BareCallObject);
            return sink.args(&text[start..]);
        };
        let envelope = |k: &str| {
            k == "type" || self.spec.name_keys.contains(&k) || self.spec.id_keys.contains(&k)
        };
        members.retain(|k, _| !envelope(k));
        let declares_all = sink.config.tools.resolve(&name).is_some_and(|(tool, _)| {
            let props = tool
                .parameters()
                .get("properties")
                .and_then(|p| p.as_object());
            props.is_some_and(|props| members.keys().all(|k| props.contains_key(k)))
        });
        if members.is_empty() || !declares_all {
            return Ok(());
        }
        sink.repair(Repair::FlattenedArguments);
        let mut args = Vec::new();
        crate::ordered::Value::Object(members).write(&mut args);
        sink.args(&args)
    }

    /// A call object keyed by its tool's name: the first key is the name and its
    /// value the arguments; a second key is not the call's (dropped, reported).
    fn name_from_key(&mut self, sink: &Sink<'_>) -> (Field, Option<Repair>) {
        if self.name.is_some() || sink.has_name() {
            return (Field::Other, Some(Repair::StrayText));
        }
        let mut quoted = Vec::with_capacity(self.key.len() + 2);
        quoted.push(b'"');
        quoted.extend_from_slice(&self.key);
        quoted.push(b'"');
        self.name = serde_json::from_slice(&quoted).ok();
        (Field::Args, None)
    }

    fn flush_name(&mut self, sink: &mut Sink<'_>) {
        if let Some(name) = self.name.take() {
            sink.name(&name);
        }
    }

    fn start_value(&mut self, container: bool, sink: &mut Sink<'_>) {
        let (mut field, mut repair) = self.classify();
        if self.spec.name_is_key {
            (field, repair) = self.name_from_key(sink);
        }
        let second_args = field == Field::Args && std::mem::replace(&mut self.args_seen, true);
        if second_args {
            // A second arguments value (`{"name": "f", "arguments": {...}, {...}}`):
            // which one the model meant cannot be told. Not a member made up around the
            // arguments: a reading that reads it so is no costlier for it.
            sink.invalid(
                "the call object holds two arguments objects; send each call in its own call object",
            );
            field = Field::Other;
        }
        self.field = field;
        if matches!(field, Field::Args | Field::Function) || self.array_body {
            self.object_text = None;
        }
        if field == Field::Args {
            if self.spec.id_after_arguments {
                sink.await_id();
            }
            self.flush_name(sink);
        }
        if field == Field::Other && self.key.as_slice() != b"type" && !second_args {
            sink.extra_member();
        }
        if let Some(r) = repair {
            sink.repair(r);
        }
        self.in_value = true;
        self.value_is_str = false;
        self.value_is_container = container;
    }

    fn flush_run(
        &mut self,
        out: &[u8],
        run: &mut Option<usize>,
        end: usize,
        sink: &mut Sink<'_>,
    ) -> Result<(), Abort> {
        if let Some(start) = run.take() {
            if self.field == Field::Args {
                let mut scalar = std::mem::take(&mut self.args_scalar);
                let bytes = if scalar.is_empty() {
                    &out[start..end]
                } else {
                    scalar.extend_from_slice(&out[start..end]);
                    &scalar[..]
                };
                if bytes == b"null" {
                    // `"arguments": null`: the tool takes none (decided when the call
                    // object ends).
                    self.args_null = true;
                    return Ok(());
                }
                return sink.args(bytes);
            }
        }
        Ok(())
    }

    fn end_string_value(&mut self, sink: &mut Sink<'_>) -> Result<(), Abort> {
        self.in_value = false;
        self.expect = Expect::Comma;
        let text = string_value(&self.buf);
        match self.field {
            Field::Name if self.name.is_none() && !sink.has_name() => self.name = Some(text),
            Field::Id => sink.id(&text),
            Field::Args => {
                if !text.trim_start().starts_with(['{', '[']) {
                    // A bare string value, not encoded JSON: the schema may wrap it.
                    let raw = self.buf.to_vec();
                    return sink.args(&raw);
                }
                // Arguments written as a JSON-encoded string.
                sink.repair(Repair::ArgumentsString);
                match crate::repair(text.as_bytes()) {
                    Ok(fixed) => {
                        sink.repairs(fixed.repairs);
                        sink.args(fixed.json.as_bytes())?;
                    }
                    Err(_) => sink.args(&self.buf)?,
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// The text of a string value of the repaired (strict) output, quotes included: a
/// string with no escape (and no control byte) is its bytes (no `serde_json` pass, checked against it in
/// debug builds); empty when it is not a string.
fn string_value(quoted: &[u8]) -> String {
    let plain = match quoted {
        [b'"', inner @ .., b'"'] if !inner.iter().any(|&b| b == b'\\' || b < 0x20) => {
            std::str::from_utf8(inner).ok()
        }
        _ => None,
    };
    let Some(text) = plain else {
        return serde_json::from_slice(quoted).unwrap_or_default();
    };
    #[cfg(debug_assertions)]
    assert_eq!(
        serde_json::from_slice::<String>(quoted).ok().as_deref(),
        Some(text),
        "{quoted:?}"
    );
    text.to_owned()
}

/// Where the closers begin that a marker supplied when it ended the body before its JSON
/// ended (`usize::MAX` if none did).
fn cut_from(status: Status, rep: &Repairer, out: &[u8]) -> usize {
    match status {
        Status::Terminated { .. } => out.len() - rep.closed_by_terminator(),
        _ => usize::MAX,
    }
}
