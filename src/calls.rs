//! Call assembly: the sink every argument grammar writes into.
//!
//! Grammars report a call's name, id and argument bytes as they decide them; the sink
//! streams `CallStarted` as soon as the name is complete and `ArgsDelta` for every new
//! argument byte after it, tracks where the last complete top-level member ends (for
//! truncation reports), and at the end re-parses the arguments strictly with
//! serde_json before releasing the call.

use crate::call::markup::BodyMarkup;
use crate::config::{Config, Invalid, ParallelCalls, ToolChoice, UnknownTool};
use crate::event::{CallIndex, NotReleasedReason};
use crate::json::duplicates::Duplicates;
use crate::queue::Queue;
use crate::repairs::{Repair, Repairs};
use crate::stats::Stats;
use serde_json::value::RawValue;

/// Tracks the end of the last complete top-level member of an arguments object.
///
/// Read only when a call is not released (its completed members are reported), so
/// the scan is lazy: [`catch_up`](Members::catch_up) reads the bytes written since the
/// last one, each byte once, instead of every write scanning its own bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Members {
    depth: u32,
    in_string: bool,
    escape: bool,
    /// Offset just past the last complete member (or just past the opening `{`).
    pub last_end: usize,
    pub is_object: Option<bool>,
    /// How many bytes of the arguments were scanned.
    scanned: usize,
}

impl Members {
    /// Scan the arguments written since the last call.
    fn catch_up(&mut self, args: &[u8]) {
        let from = std::mem::replace(&mut self.scanned, args.len());
        self.scan(args, from);
    }

    fn scan(&mut self, args: &[u8], from: usize) {
        let mut at = from;
        while at < args.len() {
            let b = args[at];
            if self.in_string {
                if self.escape {
                    self.escape = false;
                } else if b == b'\\' {
                    self.escape = true;
                } else if b == b'"' {
                    self.in_string = false;
                } else {
                    // Plain string content: only a quote or a backslash changes anything.
                    at += crate::scan::find2(b'"', b'\\', &args[at..]).unwrap_or(args.len() - at);
                    continue;
                }
                at += 1;
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => {
                    if self.depth == 0 && self.is_object.is_none() {
                        self.is_object = Some(b == b'{');
                        self.last_end = at + 1;
                    }
                    self.depth += 1;
                }
                b'}' | b']' => {
                    self.depth = self.depth.saturating_sub(1);
                    if self.depth == 0 {
                        self.last_end = at;
                    }
                }
                b',' if self.depth == 1 => self.last_end = at,
                b' ' | b'\t' | b'\n' | b'\r' => {}
                _ if self.depth == 0 && self.is_object.is_none() => self.is_object = Some(false),
                _ => {}
            }
            at += 1;
        }
    }
}

/// One call being assembled.
#[derive(Clone, Debug, Default)]
pub(crate) struct Call {
    pub index: u32,
    pub id: String,
    pub name: Option<String>,
    pub args: Vec<u8>,
    /// Argument bytes already sent as deltas.
    pub sent: usize,
    pub started: bool,
    /// Not streamed: the tool is unknown and will be rejected.
    pub silent: bool,
    pub repairs: Repairs,
    pub members: Members,
    pub id_from_model: bool,
    /// Schema-guided repair of the arguments, when the tool has a schema.
    pub conformer: Option<Box<crate::conform::Conformer>>,
    /// Found without a marker (see [`crate::dialect::CallForm::heuristic`]).
    pub heuristic: bool,
    /// In a fence that says it holds a call (see [`crate::dialect::CallForm::labelled`]).
    pub labelled: bool,
    /// The form it was read in (none for a call a test begins by hand).
    pub form: Option<&'static crate::dialect::CallForm>,
    /// Tools are declared and the name is not one of them.
    pub undeclared: bool,
    /// Its string values are written raw (tags, a delimiter the syntax cannot escape):
    /// any of them may hold the format's own markup.
    pub raw_values: bool,
    /// Its body was cut before its JSON ended: a JSON call object closed by a marker,
    /// or a body ended by a marker other than the call's closer.
    pub cut: bool,
    /// Deltas are held: competing readings of the arguments are open (`json/readings.rs`).
    pub hold: bool,
    /// The start is held: the model's id may still follow the arguments
    /// ([`EnvelopeSpec::id_after_arguments`](crate::dialect::EnvelopeSpec)).
    pub awaiting_id: bool,
    /// The competing readings could not be told apart: not released, with this feedback.
    pub ambiguous: Option<String>,
    /// The name written is not a name (quotes, braces, blanks): never emitted; the
    /// call is not released.
    pub bad_name: bool,
    /// Members of the call object that are neither its name, id nor arguments: a
    /// reading that made them out of text is the less likely one.
    pub extra_members: u32,
    /// The grammar found no name where the body began (a blank body, a GLM call with
    /// no name): with no arguments either, it is no call.
    pub empty: bool,
    /// In `auto`, text followed the body: a markerless call is one only as the whole
    /// output.
    pub text_after: bool,
    /// Its object closed inside a body of several with a string written raw: what
    /// follows ends it ([`Sink::end_in_body`]).
    pub closed_in_body: bool,
    /// The tool name written as text just before the call's opener
    /// (`CallForm::name_told`): it names the call in a report when the body was cut
    /// before its own name, and a body naming another tool is not released.
    pub told_name: Option<String>,
    /// Its name was read bare right before its arguments, with no separator between
    /// (`junk {...}`): it may be a stray word, and arguments that are a whole call
    /// object then the call (see `is_call_object`).
    pub loose_name: bool,
}

/// Why a call is ended early.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Abort {
    Truncated,
    TooLarge,
    TooDeep,
    HeldTooLong,
    /// Competing readings of the arguments could not be told apart, and the rest of
    /// the body is not shown.
    Ambiguous,
    TooManyCalls,
    /// The output ended (not cut) with a value still open whose text holds the call's
    /// closing marker: the model closed the call, not the value (a grammar error, not
    /// a truncation).
    Unclosed,
}

/// At the end of a response that released `released` calls: the feedback when the
/// request required a call (`tool_choice` `"required"` or one function) and none was
/// released.
pub(crate) fn unmet_tool_choice(config: &Config, released: u32) -> Option<String> {
    if released > 0 {
        return None;
    }
    match &config.tool_choice {
        ToolChoice::Required => Some(format!(
            "the request requires a call to one of its tools (tool_choice \"required\"), and none was made: call one of {}",
            config.tools.names().join(", ")
        )),
        ToolChoice::Function(only) => Some(format!(
            "the request requires a call to {only} (tool_choice), and none was made: call {only}"
        )),
        ToolChoice::Auto | ToolChoice::None => None,
    }
}

/// The calls of one response.
#[derive(Default)]
pub(crate) struct Calls {
    /// Boxed: an idle parser carries no call.
    pub current: Option<Box<Call>>,
    pub next_index: u32,
    pub released: u32,
    pub truncated: bool,
    /// The repair implied by a weak opener, applied when its call turns out to begin.
    pub pending_implies: Option<Repair>,
    /// The calls being read are heuristic (markerless): set per call form.
    pub heuristic: bool,
    /// The calls being read are in a labelled fence: set per call form.
    pub labelled: bool,
    /// The form of the calls being read: set per call form.
    pub form: Option<&'static crate::dialect::CallForm>,
    /// A buffer for the next call's arguments (the queue returns ended calls' buffers
    /// here once their events are read).
    pub spare: Vec<u8>,
    /// The call begun last broke `max_calls` and was reported: what the grammar still
    /// writes for it goes to `discard` and is dropped.
    over_limit: bool,
    /// Boxed and made on first use: only a response over the call limit needs it.
    discard: Option<Box<Call>>,
}

/// The sink the grammars write into: the calls plus what emission needs.
pub(crate) struct Sink<'a> {
    pub calls: &'a mut Calls,
    pub queue: &'a mut Queue,
    pub config: &'a Config,
    pub stats: &'a mut Stats,
}

impl Calls {
    /// The calls of a competing reading: the open call and where numbering stands.
    pub(crate) fn for_reading(&self) -> Calls {
        Calls {
            current: self.current.clone(),
            next_index: self.next_index,
            heuristic: self.heuristic,
            labelled: self.labelled,
            form: self.form,
            pending_implies: self.pending_implies,
            ..Calls::default()
        }
    }

    pub(crate) fn reset(&mut self) {
        if let Some(call) = self.current.take() {
            self.spare = call.args;
            self.spare.clear();
        }
        self.next_index = 0;
        self.released = 0;
        self.truncated = false;
        self.pending_implies = None;
        self.heuristic = false;
        self.labelled = false;
        self.form = None;
        self.over_limit = false;
    }

    /// Whether the open call's arguments so far hold `marker`.
    pub(crate) fn open_args_hold(&self, marker: &[u8]) -> bool {
        !marker.is_empty()
            && self
                .current
                .as_ref()
                .is_some_and(|c| memchr::memmem::find(&c.args, marker).is_some())
    }

    pub(crate) fn is_open(&self) -> bool {
        self.current.is_some()
    }

    /// Whether a call is open with something read: a name, or arguments beyond their
    /// braces (an empty body is no call, and nothing of it can be a value's).
    pub(crate) fn has_content(&self) -> bool {
        self.current.as_ref().is_some_and(|c| {
            c.name.is_some()
                || c.args
                    .iter()
                    .any(|b| !matches!(b, b'{' | b'}') && !b.is_ascii_whitespace())
        })
    }
}

impl Sink<'_> {
    /// Begin a call (a no-op if one is open). Returns false when the call limit is hit.
    pub(crate) fn begin(&mut self, implies: Option<Repair>) -> bool {
        if self
            .calls
            .current
            .as_ref()
            .is_some_and(|c| c.closed_in_body)
        {
            // The next call object of the body: the one before ended where it seemed to.
            self.end();
        }
        if self.calls.current.is_some() {
            return true;
        }
        self.calls.over_limit = false;
        let index = self.calls.next_index;
        self.calls.next_index += 1;
        let mut args = std::mem::take(&mut self.calls.spare);
        args.clear();
        let mut call = Call {
            index,
            id: call_id(self.config.id_prefix_or_default(), index),
            args,
            heuristic: self.calls.heuristic,
            labelled: self.calls.labelled,
            form: self.calls.form,
            ..Call::default()
        };
        if let Some(r) = implies.or(self.calls.pending_implies.take()) {
            call.repairs.insert(r);
        }
        self.calls.current = Some(Box::new(call));
        if index as usize >= self.config.limits.max_calls {
            self.abort(Abort::TooManyCalls);
            self.calls.over_limit = true;
            return false;
        }
        true
    }

    fn call(&mut self) -> &mut Call {
        if self.calls.current.is_none() && !self.calls.over_limit {
            self.begin(None);
        }
        match self.calls.current {
            Some(ref mut call) => call,
            None => {
                // Past the call limit (already reported): drop what is still written.
                let discard = self.calls.discard.get_or_insert_with(Box::default);
                discard.args.clear();
                discard
            }
        }
    }

    pub(crate) fn repair(&mut self, r: Repair) {
        self.call().repairs.insert(r);
    }

    pub(crate) fn repairs(&mut self, r: Repairs) {
        let call = self.call();
        call.repairs = call.repairs.union(r);
    }

    /// The open call's body was cut before its JSON ended (see `end`).
    pub(crate) fn cut(&mut self) {
        if let Some(call) = self.calls.current.as_mut() {
            call.cut = true;
        }
    }

    /// The open call turned out to be none (a marker followed by prose) before anything
    /// of it was sent: forget it and give its index back.
    pub(crate) fn withdraw(&mut self) {
        if let Some(call) = self.calls.current.take_if(|c| !c.started) {
            self.calls.next_index = call.index;
            self.calls.spare = call.args;
            self.calls.spare.clear();
        }
    }

    /// Text follows the open call's body (see [`Call::text_after`]).
    pub(crate) fn text_follows(&mut self) {
        if let Some(call) = self.calls.current.as_mut() {
            call.text_after = true;
        }
    }

    /// The body began with no name (see [`Call::empty`]).
    pub(crate) fn nameless_start(&mut self) {
        if let Some(call) = self.calls.current.as_mut() {
            call.empty = true;
        }
    }

    /// The tool name written just before the opener (see [`Call::told_name`]).
    pub(crate) fn told_name(&mut self, name: &str) {
        if let Some(call) = self.calls.current.as_mut() {
            call.told_name = Some(name.to_owned());
        }
    }

    /// Whether the open call already has its name.
    pub(crate) fn has_name(&self) -> bool {
        self.calls
            .current
            .as_ref()
            .is_some_and(|c| c.name.is_some())
    }

    /// The model's own call id.
    pub(crate) fn id(&mut self, id: &str) {
        let call = self.call();
        if !call.started && !id.is_empty() {
            call.id = id.to_owned();
            call.id_from_model = true;
        }
        self.id_settled();
    }

    /// Hold the open call's start until its id is read: the model writes it after the
    /// arguments (unless it already did before them).
    pub(crate) fn await_id(&mut self) {
        let call = self.call();
        call.awaiting_id = !call.started && !call.id_from_model;
    }

    /// The open call's id came, or cannot come any more (its object ended): start it.
    pub(crate) fn id_settled(&mut self) {
        if let Some(call) = self.calls.current.as_mut() {
            if std::mem::take(&mut call.awaiting_id) {
                self.flush();
            }
        }
    }

    /// The open call's name was read with no separator before its arguments
    /// ([`Call::loose_name`]).
    pub(crate) fn loose_name(&mut self) {
        self.call().loose_name = true;
    }

    /// The tool name is complete.
    pub(crate) fn name(&mut self, raw: &str) {
        let config = self.config;
        let name = raw.trim();
        // A weak opener (`call:`) begins its call only here: give it its index and id.
        if self.calls.current.is_none() && !self.calls.over_limit {
            self.begin(None);
        }
        let Some(call) = self.calls.current.as_mut() else {
            return; // the call limit ended it
        };
        if call.name.is_some() || name.is_empty() {
            return;
        }
        if let Some(told) = call.told_name.as_deref().filter(|told| *told != name) {
            // Two names for one call: which tool was meant cannot be told.
            call.ambiguous = Some(format!(
                "{name}: the tool name written before the call ({told}) is not the one in it; write the name once, in the call"
            ));
        }
        if !is_name(name) {
            // Never shown, not even as the start of a call.
            call.bad_name = true;
            call.silent = true;
            return;
        }
        let tools = &config.tools;
        let mut resolved = name.to_owned();
        if !tools.is_empty() {
            match tools.resolve(name) {
                Some((tool, repairs)) => {
                    resolved = tool.name().to_owned();
                    call.repairs = call.repairs.union(repairs);
                    if call.args.is_empty() && tool.parameters().get("properties").is_some() {
                        call.conformer = Some(Box::new(crate::conform::Conformer::new()));
                    }
                }
                None => {
                    call.undeclared = true;
                    call.silent = config.unknown_tool == UnknownTool::Reject || call.heuristic;
                }
            }
        }
        let undeclared = call.undeclared;
        let refused = self.refusal(&resolved, undeclared).is_some();
        let call = self.calls.current.as_mut().expect("the call being named");
        // A call the request does not allow is never streamed: reported when it ends.
        call.silent |= refused;
        call.name = Some(resolved);
        self.flush();
    }

    /// Why the request does not allow a call to `name` (`undeclared`: a tool it did not
    /// declare), with the feedback; `None` when it does. The one gate of `tool_choice`
    /// and `parallel_tool_calls`, asked when the name is known (so the call is never
    /// streamed) and again when the call ends.
    fn refusal(&self, name: &str, undeclared: bool) -> Option<(NotReleasedReason, String)> {
        let why = match &self.config.tool_choice {
            ToolChoice::Auto => None,
            ToolChoice::None => Some(format!(
                "{name}: the request allows no tool call (tool_choice \"none\"); answer in text"
            )),
            ToolChoice::Required if undeclared => Some(format!(
                "{name}: not a declared tool, and the request requires a call to one of its tools (tool_choice \"required\"): {}",
                self.config.tools.names().join(", ")
            )),
            ToolChoice::Required => None,
            ToolChoice::Function(only) if &**only != name => Some(format!(
                "{name}: the request allows only {only} (tool_choice); call {only}"
            )),
            ToolChoice::Function(_) => None,
        };
        if let Some(why) = why {
            return Some((NotReleasedReason::ToolChoice, why));
        }
        if self.config.parallel_calls == ParallelCalls::FirstOnly && self.calls.released > 0 {
            return Some((
                NotReleasedReason::ParallelCalls,
                format!("{name}: the request allows one call per response (parallel_tool_calls false); send it after the first call's result"),
            ));
        }
        None
    }

    /// Whether the value of parameter `key` is typed by the schema (not streamed as a
    /// string).
    pub(crate) fn param_is_typed(&self, key: &str) -> bool {
        self.tool()
            .is_some_and(|t| t.param_type(key) != crate::schema::ParamType::String)
            && self.param_is_declared(key)
    }

    /// The open call's string values are written raw ([`Call::raw_values`]).
    pub(crate) fn values_written_raw(&mut self) {
        if let Some(call) = self.calls.current.as_mut() {
            call.raw_values = true;
        }
    }

    /// Whether the call's tool schema declares parameter `key` (no tool, or a tool
    /// without properties, declares none).
    pub(crate) fn param_is_declared(&self, key: &str) -> bool {
        self.tool().and_then(|t| t.declares(key)) == Some(true)
    }

    /// Whether the schema declares parameter `key` as a plain (not nullable) string.
    pub(crate) fn param_is_plain_string(&self, key: &str) -> bool {
        self.tool().is_some_and(|t| {
            let prop = t.parameters().get("properties").and_then(|p| p.get(key));
            prop.and_then(|p| p.get("type")).and_then(|t| t.as_str()) == Some("string")
        })
    }

    /// Type a raw parameter value by the schema.
    pub(crate) fn type_value(&self, key: &str, raw: &str) -> (String, Repairs) {
        match self.tool() {
            Some(tool) => tool.type_raw_value(key, raw),
            None => (
                serde_json::Value::String(raw.to_owned()).to_string(),
                Repairs::NONE,
            ),
        }
    }

    /// Type the text leaves of `members` by the call's tool schema (see
    /// `Tool::type_raw_members`), and without one by what they read as.
    pub(crate) fn type_raw_members(&self, members: &mut crate::ordered::Map) -> Repairs {
        match self.tool() {
            Some(tool) => tool.type_raw_members(members),
            None => {
                for (_, value) in members.iter_mut() {
                    crate::schema::type_untyped(value);
                }
                Repairs::NONE
            }
        }
    }

    /// Conform arguments read as text to the call's tool schema (`None` without one).
    pub(crate) fn conform_args(
        &self,
        args: &crate::ordered::Value,
    ) -> Option<crate::schema::ConformedInOrder> {
        self.tool().map(|t| t.conform_in_order(args))
    }

    /// The declared top-level keys of the call's tool, checked at `depth`.
    pub(crate) fn key_check(&self, depth: usize) -> crate::json::lookahead::KeyCheck {
        crate::json::lookahead::KeyCheck::of(self.tool(), depth)
    }

    fn tool(&self) -> Option<&crate::schema::Tool> {
        let name = self.calls.current.as_ref()?.name.as_deref()?;
        self.config.tools.get(name)
    }

    /// The most a call's arguments may grow to. The engine limits a call's raw body to
    /// `max_args_bytes` at an exact byte; this bounds what repairs can add on top
    /// (escapes grow text at most sixfold).
    fn max_args(&self) -> usize {
        self.config.limits.max_args_bytes.saturating_mul(8)
    }

    /// Whether `n` more bytes of arguments stay within the limit `args` checks.
    pub(crate) fn args_fit(&self, n: usize) -> bool {
        let max = self.max_args();
        self.calls
            .current
            .as_ref()
            .is_some_and(|call| call.args.len() + n <= max)
    }

    /// More argument bytes (decided, strict JSON prefix).
    pub(crate) fn args(&mut self, bytes: &[u8]) -> Result<(), Abort> {
        self.write_args(bytes, false)
    }

    /// Like [`args`](Self::args), for bytes of a string's content in which every
    /// backslash begins a whole escape and no quote is unescaped (the repairer's string
    /// run): inside a string they leave the member scan where it is, so it is skipped.
    pub(crate) fn string_args(&mut self, bytes: &[u8]) -> Result<(), Abort> {
        self.write_args(bytes, true)
    }

    /// The open call's arguments buffer, with room for `more` bytes, for the repairer's
    /// string run to write into directly: where [`string_args`](Self::string_args)
    /// would append the run as it stands (no schema to conform to, inside a string with
    /// no escape pending), the copy through a scratch buffer is saved. `None` where it
    /// would not, or past the size limit; then the run goes through `string_args`.
    /// After writing, call [`string_written`](Self::string_written).
    #[inline]
    pub(crate) fn string_buffer(&mut self, more: usize) -> Option<&mut Vec<u8>> {
        let max = self.max_args();
        let call = self.calls.current.as_mut()?;
        // Debug builds keep the member scan current, for this check to be cheap.
        #[cfg(debug_assertions)]
        call.members.catch_up(&call.args);
        debug_assert!(call.conformer.is_some() || in_string(call));
        if call.conformer.is_some() || call.args.len() + more > max {
            return None;
        }
        reserve_args(&mut call.args, more);
        Some(&mut call.args)
    }

    /// The string run wrote into the buffer [`string_buffer`](Self::string_buffer) gave,
    /// from `from`: send it. A run is whole characters, so once the call has started
    /// and everything before the run was sent, it is the delta as it stands.
    #[inline]
    pub(crate) fn string_written(&mut self, from: usize) {
        debug_assert!(self
            .calls
            .current
            .as_ref()
            .is_some_and(|call| scan_skips(call, from)));
        match self.calls.current.as_deref_mut() {
            Some(call) if call.started && !call.silent && !call.hold && call.sent == from => {
                let end = call.args.len();
                debug_assert_eq!(from + whole_chars(&call.args[from..]), end);
                self.queue.delta(CallIndex(call.index), from..end);
                call.sent = end;
            }
            _ => self.flush(),
        }
    }

    fn write_args(&mut self, bytes: &[u8], string_run: bool) -> Result<(), Abort> {
        if bytes.is_empty() {
            return Ok(());
        }
        if self.calls.current.is_none() && self.calls.over_limit {
            // Past the call limit (already reported): what is still written is dropped,
            // with no scan of it (the discarded call knows nothing of its strings).
            return Ok(());
        }
        let max = self.max_args();
        let config = self.config;
        let call = self.call();
        if call.args.len() + bytes.len() > max {
            return Err(Abort::TooLarge);
        }
        let from = call.args.len();
        // Debug builds keep the member scan current, for the checks below to be cheap.
        #[cfg(debug_assertions)]
        call.members.catch_up(&call.args);
        reserve_args(&mut call.args, bytes.len());
        // The tool is looked up only for a call that conforms to a schema.
        match call.conformer.as_mut().and_then(|c| {
            let tool = config.tools.get(call.name.as_deref()?)?;
            Some((c, tool))
        }) {
            Some((conformer, tool)) => conformer.push(tool, bytes, &mut call.args),
            None => {
                debug_assert!(!string_run || in_string(call));
                call.args.extend_from_slice(bytes);
                debug_assert!(!string_run || scan_skips(call, from));
            }
        }
        self.flush();
        Ok(())
    }

    /// Send what can be sent: the start once the name is known, then new bytes.
    fn flush(&mut self) {
        let Some(call) = self.calls.current.as_mut() else {
            return;
        };
        if call.silent || call.name.is_none() || call.awaiting_id {
            return;
        }
        let index = CallIndex(call.index);
        if !call.started {
            call.started = true;
            self.queue
                .started(index, &call.id, call.name.as_deref().unwrap_or(""));
        }
        if call.sent < call.args.len() && !call.hold {
            // Whole UTF-8 characters only: grammars emit them, but a delta must never
            // end inside one (the queue validates the fragment when it is read).
            let end = call.sent + whole_chars(&call.args[call.sent..]);
            self.queue.delta(index, call.sent..end);
            call.sent = end;
        }
    }

    /// The call object has a member that is not the call's (see [`Call::extra_members`]).
    pub(crate) fn extra_member(&mut self) {
        if let Some(call) = self.calls.current.as_mut() {
            call.extra_members += 1;
        }
    }

    /// Hold the open call's deltas: competing readings of its arguments are open.
    pub(crate) fn hold(&mut self) {
        if let Some(call) = self.calls.current.as_mut() {
            call.hold = true;
        }
    }

    /// Send what was held: the competing readings of the open call are gone.
    pub(crate) fn release_hold(&mut self) {
        if let Some(call) = self.calls.current.as_mut() {
            call.hold = false;
        }
        self.flush();
    }

    /// The open call is not released and its name is not a name: report it with the
    /// name `reading` read, if that one is (nothing of the call was shown).
    pub(crate) fn name_for_report(&mut self, reading: &Call) {
        if let Some(call) = self.calls.current.as_mut() {
            let bad = call.bad_name || call.name.is_none();
            if bad && !call.started && !reading.bad_name && reading.name.is_some() {
                call.name = reading.name.clone();
                call.bad_name = false;
            }
        }
    }

    /// The open call's competing readings could not be told apart.
    pub(crate) fn ambiguous(&mut self) {
        self.refuse(ambiguous_feedback);
    }

    /// The open call cannot be read as the model meant it (a parameter that lost its
    /// key, a name that cannot be told from its id): not released, with `why` (after
    /// the name) as feedback.
    pub(crate) fn invalid(&mut self, why: &str) {
        self.refuse(|name| format!("{name}: {why}"));
    }

    /// The open call's body went on past where its arguments ended (text followed them
    /// up to the call's bound; after a body of tags, `markup`, text holding its closing
    /// tags): not released. Judged after the body, when the call
    /// may have been released already (the last of several in one body): then there
    /// is nothing to refuse, and no call is begun.
    pub(crate) fn went_on(&mut self, markup: &BodyMarkup) {
        if !self.calls.is_open() {
            return;
        }
        if markup.of_tags() {
            self.refuse(|name| format!(
                "{name}: a value held the call's own closing tags and went on past them, so where it ends \
                 cannot be told; write a value that holds no closing tag of the call"
            ));
        } else {
            self.refuse(|name| format!(
                "{name}: text followed the arguments up to the end of the call, so where they end cannot be told; \
                 put every value inside the arguments object and escape quotes inside strings (\\\")"
            ));
        }
    }

    /// Mark the call being read not to be released, with feedback written after its
    /// name. The call is begun if it was not yet (its body is being read, though
    /// nothing of it was sent): a judgment made before the first push that sends
    /// something holds as one made after it, however the output is cut.
    fn refuse(&mut self, feedback: impl FnOnce(&str) -> String) {
        let call = self.call();
        let name = call.name.as_deref().unwrap_or("tool call");
        call.ambiguous = Some(feedback(name));
    }

    /// Why `call` is not released when a string of it, written raw, holds the start of
    /// another call ([`holds_a_call`](crate::call::extent::holds_a_call)).
    fn holds_a_call(&self, call: &Call) -> Option<String> {
        let form = call.form?;
        let broken = raw_string(call.repairs);
        if !(call.raw_values || broken) {
            return None;
        }
        let args = crate::ordered::Value::parse_slice(&call.args)?;
        let tools = self.config.tools.names();
        if !crate::call::extent::holds_a_call(form, &args, &tools, !broken) {
            return None;
        }
        let name = call.name.as_deref().unwrap_or("tool call");
        Some(format!(
            "{name}: a string written raw holds the start of another call; whether the call was left open there \
             or the string holds a call as text cannot be told: close each string and call before the next, \
             and escape every quote inside strings"
        ))
    }

    /// Take a competing reading of the open call (`json/readings.rs`) in place of the
    /// one read so far. Its arguments must begin with every byte already sent (the
    /// readings agree up to their fork, where deltas stopped), and its name must be
    /// the one shown, if one was; false, and nothing changed, if not.
    pub(crate) fn replace_reading(&mut self, mut reading: Call) -> bool {
        let Some(call) = self.calls.current.as_mut() else {
            // The primary reading had not begun the call: the reading's is the call,
            // with nothing of it shown yet.
            self.calls.next_index = self.calls.next_index.max(reading.index + 1);
            reading.started = false;
            reading.sent = 0;
            self.calls.current = Some(Box::new(reading));
            return true;
        };
        if reading.args.get(..call.sent) != Some(&call.args[..call.sent])
            || (call.started && reading.name != call.name)
        {
            return false;
        }
        if !call.started {
            call.name = reading.name;
            call.silent = reading.silent;
            call.undeclared = reading.undeclared;
            call.bad_name = reading.bad_name;
        }
        call.loose_name |= reading.loose_name;
        call.args = reading.args;
        call.ambiguous = reading.ambiguous;
        call.conformer = reading.conformer;
        call.repairs = reading.repairs;
        call.members = reading.members;
        call.cut = reading.cut;
        call.extra_members = reading.extra_members;
        call.raw_values |= reading.raw_values;
        true
    }

    /// A call object of a body of several closed: the call ends now, unless a string in
    /// it was written raw. Then its `"}` may have been a file's, and what follows tells:
    /// the body's next call object ends it ([`begin`](Self::begin)), the body's closer
    /// leaves it to the text after that closer, as a lone call's
    /// (`Parser::end_at_closer`). Returns whether it ended.
    pub(crate) fn end_in_body(&mut self) -> bool {
        match self.calls.current.as_mut() {
            Some(call) if raw_string(call.repairs) => {
                call.closed_in_body = true;
                false
            }
            _ => {
                self.end();
                true
            }
        }
    }

    /// The call's body ended: re-parse strictly and release it, or report why not.
    pub(crate) fn end(&mut self) {
        let Some(mut call) = self.calls.current.take() else {
            return;
        };
        call.hold = false;
        call.awaiting_id = false;
        if let Some(feedback) = call.ambiguous.take() {
            only_sent(&mut call);
            if call.bad_name {
                call.name = None;
            }
            self.not_released(call, NotReleasedReason::Invalid, feedback);
            return;
        }
        if call.bad_name {
            call.name = None;
            let feedback = "the tool name is not a name (it holds quotes, braces or blanks); write the call with \"name\": \"TOOL\" and its arguments in \"arguments\"".to_owned();
            self.not_released(call, NotReleasedReason::Invalid, feedback);
            return;
        }
        let index = CallIndex(call.index);
        if let Some(mut conformer) = call.conformer.take() {
            if let Some(tool) = call.name.as_deref().and_then(|n| self.config.tools.get(n)) {
                conformer.finish(tool, &mut call.args);
                call.repairs = call.repairs.union(conformer.repairs);
            }
        }
        if call.empty && call.name.is_none() && !call.started && is_empty_object(&call.args) {
            // An empty body (`<tool_call>   </tool_call>`) is no call: nothing to infer
            // a tool from, nothing to report.
            self.calls.next_index = call.index;
            self.calls.spare = std::mem::take(&mut call.args);
            self.calls.spare.clear();
            return;
        }
        // `{}` stands in only for arguments the model did not write; a call cut before
        // its arguments may have had them coming, or lost them (reported below).
        let cut_before_args = call.cut && call.args.iter().all(u8::is_ascii_whitespace);
        if call.args.iter().all(u8::is_ascii_whitespace) && !call.cut {
            call.args.clear();
            call.args.extend_from_slice(b"{}");
            call.members = Members {
                is_object: Some(true),
                scanned: call.args.len(),
                ..Members::default()
            };
            call.repairs.insert(Repair::MissingArguments);
        }
        if call.heuristic && call.text_after {
            let feedback =
                "a call without a tool-call marker, followed by text, was kept out".to_owned();
            self.not_released(call, NotReleasedReason::NotACall, feedback);
            return;
        }
        if call.labelled && (call.name.is_none() || call.undeclared) {
            // A fence or label that says a call follows, then call syntax that names no
            // declared tool: an example of the format, not a call.
            let feedback = match &call.name {
                Some(name) => format!(
                    "{name}: not a declared tool; the call syntax labelled as a tool call was kept out (to call a tool, use the tool-call format)"
                ),
                None => "call syntax labelled as a tool call that does not parse as one was kept out (to call a tool, use the tool-call format)"
                    .to_owned(),
            };
            self.not_released(call, NotReleasedReason::NotACall, feedback);
            return;
        }
        if call.heuristic && (call.name.is_none() || call.undeclared) {
            // JSON found without a marker is a call only when it names a declared tool.
            let feedback = match &call.name {
                Some(name) => format!(
                    "{name}: not a declared tool; JSON without a tool-call marker was kept out"
                ),
                None => "JSON without a tool-call marker and without a tool name was kept out"
                    .to_owned(),
            };
            self.not_released(call, NotReleasedReason::NotACall, feedback);
            return;
        }
        // A tool is inferred from arguments the model wrote, never from the `{}` that
        // stands in for none (empty arguments fit any tool).
        if call.name.is_none() && !call.repairs.contains(Repair::MissingArguments) {
            let value = serde_json::from_slice::<serde_json::Value>(&call.args)
                .ok()
                .filter(|v| v.as_object().is_none_or(|o| !o.is_empty()));
            if let Some(value) = value {
                let tool = match call.repairs.contains(Repair::BareCallObject) {
                    true => self.config.tools.infer_declared(&value),
                    false => self.config.tools.infer(&value),
                };
                if let Some(tool) = tool {
                    call.repairs.insert(Repair::ToolNameInferred);
                    call.name = Some(tool.name().to_owned());
                }
            }
        }
        let Some(name) = call.name.clone() else {
            let feedback =
                "tool call without a tool name; write the call with a \"name\"".to_owned();
            self.not_released(call, NotReleasedReason::Invalid, feedback);
            return;
        };
        if let Some((reason, feedback)) = self.refusal(&name, call.undeclared) {
            self.not_released(call, reason, feedback);
            return;
        }
        if call.silent {
            let feedback = self.config.tools.unknown_tool_feedback(&name);
            self.stats.unknown_tool += 1;
            self.not_released(call, NotReleasedReason::UnknownTool, feedback);
            return;
        }
        if cut_before_args {
            let feedback = format!(
                "{name}: the call ended before its arguments; send it again with its arguments"
            );
            self.not_released(call, NotReleasedReason::Invalid, feedback);
            return;
        }
        // Strict re-parse: the only arbiter of release.
        let strict = serde_json::from_slice::<&RawValue>(&call.args).map(|_| ());
        let is_object = call.args.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
        if let Err(err) = strict {
            let feedback = format!("{name}: arguments are not valid JSON ({err}); send the call again with a JSON object");
            self.not_released(call, NotReleasedReason::Invalid, feedback);
            return;
        }
        if !is_object {
            let feedback = format!("{name}: arguments must be a JSON object");
            self.not_released(call, NotReleasedReason::Invalid, feedback);
            return;
        }
        if call.loose_name && self.config.tools.get(&name).is_none() && is_call_object(&call.args) {
            // `junk {"name": "f", "arguments": {...}}`: a word written before the
            // arguments with nothing between is a tool name only if its tool takes a name
            // and arguments; else it is stray, and the call is the object's. Which cannot
            // be told without the tool (with a separator, `f[ARGS]{...}`, the name is one).
            let feedback = format!(
                "{name}: the arguments are a whole tool call (\"name\" and \"arguments\"), so which tool is meant cannot be told; write the call once, in the tool-call format"
            );
            self.not_released(call, NotReleasedReason::Invalid, feedback);
            return;
        }
        if let Some(feedback) = self.holds_a_call(&call) {
            only_sent(&mut call);
            self.not_released(call, NotReleasedReason::Invalid, feedback);
            return;
        }
        // A key given twice: one value to every reader, or a call that means two things.
        match crate::json::duplicates::find(&call.args) {
            Duplicates::None => {}
            Duplicates::Same => call.repairs.insert(Repair::DuplicateKey),
            Duplicates::Differ(key) => {
                // Reported as far as sent: what was held is one reading's.
                only_sent(&mut call);
                let feedback = format!(
                    "{name}: the argument \"{key}\" is given twice with different values, so which one is meant cannot be told; send the call again with each argument once"
                );
                self.not_released(call, NotReleasedReason::Invalid, feedback);
                return;
            }
        }
        if call.repairs.contains(Repair::Ellipsis)
            && serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(&call.args)
                .is_ok_and(|m| m.is_empty())
        {
            // `{...}`: the model wrote where the arguments go, not the arguments.
            let feedback = format!(
                "{name}: the arguments are a placeholder ({{...}}); send the call with its real arguments"
            );
            self.not_released(call, NotReleasedReason::Invalid, feedback);
            return;
        }
        if let Some(key) = angle_placeholder(&call) {
            // `city=<city>`: the model showed the format, not the value.
            let feedback = format!(
                "{name}: \"{key}\" is a placeholder (<...>); send the call with its real arguments"
            );
            self.not_released(call, NotReleasedReason::Invalid, feedback);
            return;
        }
        if words_in_braces(call.repairs) && self.config.tools.get(&name).is_none() {
            // `{invalid json}`: two bare words, read as a key and its value only by
            // inventing the colon and both quotes; with no schema to confirm it, a guess.
            let feedback = format!(
                "{name}: the arguments are bare words, not members (a key and its value only with a colon and quotes invented); \
                 write them as one JSON object, every string quoted"
            );
            // Its members are that guess's: reported only as far as they were sent.
            only_sent(&mut call);
            self.not_released(call, NotReleasedReason::Invalid, feedback);
            return;
        }
        if misread(call.repairs)
            && (call.extra_members > 0 || call.repairs.contains(Repair::KeylessArguments))
        {
            // A value that may have been misread, and members of the call object that
            // are not the call's (or an object read as its arguments without their
            // key): text read as structure around the arguments. Its members are
            // reported only as far as they were sent: the rest is that reading's.
            let feedback = misread_feedback(&name, call.repairs);
            only_sent(&mut call);
            self.not_released(call, NotReleasedReason::Invalid, feedback);
            return;
        }
        let mut validation = String::new();
        if let Some(tool) = self.config.tools.get(&name) {
            if let Some(value) = crate::ordered::Value::parse_slice(&call.args) {
                if let Some(key) = undeclared_after_string(tool, &value).filter(|_| call.raw_values)
                {
                    // Read as markup, the text made a key that is no name; read as the
                    // string's content, the call fits: which was meant cannot be told.
                    let feedback = format!(
                        "{name}: a parameter the tool does not declare, {key:?}, whose key is no name, follows a string value \
                         that may hold the format's own markup, so where that value ends cannot be told; \
                         write only the tool's parameters, and keep markup-like text inside a value \
                         from looking like the call's own"
                    );
                    only_sent(&mut call);
                    self.not_released(call, NotReleasedReason::Invalid, feedback);
                    return;
                }
                // Errors are listed in the order the model wrote the members.
                let errors = tool.validate_in_order(&value);
                if misread(call.repairs) && (!errors.is_empty() || undeclared(tool, &value) > 0) {
                    // A raw string that may have ended early, and arguments that do not
                    // fit the tool: the one reading there was is not what the model
                    // meant, whatever `Invalid` says.
                    let feedback = misread_feedback(&name, call.repairs);
                    only_sent(&mut call);
                    self.not_released(call, NotReleasedReason::Invalid, feedback);
                    return;
                }
                if !errors.is_empty() {
                    validation = crate::schema::feedback_for_errors(&name, &errors);
                    if call.heuristic {
                        // Markerless JSON is a call only when its arguments fit.
                        self.not_released(call, NotReleasedReason::NotACall, validation);
                        return;
                    }
                    if self.config.invalid == Invalid::HoldBack {
                        self.not_released(call, NotReleasedReason::SchemaViolation, validation);
                        return;
                    }
                }
            }
        }
        // Send the start and any bytes not yet sent (a call named only at its end).
        self.calls.current = Some(call);
        self.flush();
        let call = self.calls.current.take().expect("still open");
        self.stats.count_call(call.repairs, !validation.is_empty());
        self.queue.finished(
            index,
            &call.id,
            &name,
            0..call.args.len(),
            call.repairs,
            &validation,
        );
        self.calls.released += 1;
        self.recycle(*call);
    }

    /// End the call early.
    pub(crate) fn abort(&mut self, why: Abort) {
        let Some(mut call) = self.calls.current.take() else {
            return;
        };
        // Cut short by a limit, or no reading could be told: what the deltas held back
        // was undecided when the call stopped (a quote that may or may not end its
        // string). Cut by the end of the stream after deltas went out, or ended there
        // with a value open: the end decided what they held, after the call had
        // stopped. Either way the members are
        // reported only as far as they were sent (a call that sent nothing, its deltas
        // withheld whole, reports what the end decided).
        let cut_short = matches!(
            why,
            Abort::Ambiguous | Abort::TooLarge | Abort::TooDeep | Abort::HeldTooLong
        );
        if cut_short || (matches!(why, Abort::Truncated | Abort::Unclosed) && call.sent > 0) {
            only_sent(&mut call);
        }
        if call.name.is_none() && !call.bad_name {
            // Cut before the body named the tool: the name written before it does.
            call.name = call.told_name.clone();
        }
        let name = call.name.clone().unwrap_or_else(|| "tool call".to_owned());
        let limits = &self.config.limits;
        let (reason, feedback) = match why {
            Abort::Truncated => {
                self.calls.truncated = true;
                let at = where_cut(&call.args);
                (
                    NotReleasedReason::Truncated,
                    format!("{name}: arguments were cut off{at}; send the call again, in smaller parts if it is large"),
                )
            }
            Abort::TooLarge => (
                NotReleasedReason::LimitExceeded,
                format!(
                    "{name}: arguments exceed {} bytes; send smaller parts",
                    limits.max_args_bytes
                ),
            ),
            Abort::TooDeep => (
                NotReleasedReason::LimitExceeded,
                format!(
                    "{name}: arguments nest deeper than {} levels",
                    limits.max_depth
                ),
            ),
            Abort::Ambiguous => (NotReleasedReason::Invalid, ambiguous_feedback(&name)),
            Abort::Unclosed => (
                NotReleasedReason::Invalid,
                format!(
                    "{name}: a string or object in the arguments was not closed before the end of the call; close every string, object and array, and escape quotes inside strings (\\\")"
                ),
            ),
            Abort::HeldTooLong => (
                NotReleasedReason::LimitExceeded,
                format!(
                    "{name}: more than {} bytes could not be decided",
                    limits.max_held_bytes
                ),
            ),
            Abort::TooManyCalls => (
                NotReleasedReason::LimitExceeded,
                format!("more than {} calls in one response", limits.max_calls),
            ),
        };
        self.not_released(call, reason, feedback);
    }

    fn not_released(&mut self, mut call: Box<Call>, reason: NotReleasedReason, feedback: String) {
        call.members.catch_up(&call.args);
        let completed = completed_members(&call);
        self.stats.count_not_released(reason, call.repairs);
        self.queue.not_released(
            CallIndex(call.index),
            call.name.as_deref(),
            reason,
            &feedback,
            completed.as_bytes(),
            call.repairs,
        );
        self.recycle(*call);
    }

    /// The queue keeps the ended call's arguments: its queued events read from them.
    fn recycle(&mut self, call: Call) {
        self.queue.keep_args(CallIndex(call.index), call.args);
    }
}

/// `prefix` then `index` in decimal (what `format!("{prefix}{index}")` writes, with no
/// formatting machinery: a call id is made for every call).
fn call_id(prefix: &str, index: u32) -> String {
    let mut digits = [0u8; 10];
    let (mut n, mut at) = (index, digits.len());
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    let mut id = String::with_capacity(prefix.len() + digits.len() - at);
    id.push_str(prefix);
    for &d in &digits[at..] {
        id.push(d as char);
    }
    id
}

impl Call {
    /// Whether `other` has the same [`outcome`](Call::outcome) as this call, given the
    /// same repairs: it wrote the same call.
    pub(crate) fn same_outcome(&self, other: &Call) -> bool {
        self.bad_name == other.bad_name
            && self.name == other.name
            && self.repairs == other.repairs
            && self.extra_members == other.extra_members
            && self.conformer.is_some() == other.conformer.is_some()
            && self.args == other.args
    }

    /// The cost of this call's reading and its arguments as they would be released
    /// (conformed to the schema), with `more` repairs of the repairer's; `None` when
    /// they would not be released (not strict JSON, not an object). With no tool to
    /// weigh them against and `strict` false, they are not parsed (the caller leaves
    /// that to the call's end).
    pub(crate) fn outcome(
        &self,
        more: Repairs,
        config: &Config,
        strict: bool,
    ) -> Option<(u32, Vec<u8>)> {
        if self.bad_name {
            return None;
        }
        let mut args = self.args.clone();
        let mut repairs = self.repairs.union(more);
        let tool = self.name.as_deref().and_then(|n| config.tools.get(n));
        if let (Some(conformer), Some(tool)) = (&self.conformer, tool) {
            let mut conformer = conformer.clone();
            conformer.finish(tool, &mut args);
            repairs = repairs.union(conformer.repairs);
        }
        let cost = crate::json::cost::of(repairs)
            + self.extra_members.min(4) * crate::json::cost::EXTRA_MEMBER;
        let Some(tool) = tool else {
            // No schema to weigh: a strict object is all that counts.
            if strict {
                serde_json::from_slice::<&RawValue>(&args).ok()?;
            }
            let first = args.iter().find(|b| !b.is_ascii_whitespace());
            return (first == Some(&b'{')).then_some((cost, args));
        };
        let value = crate::ordered::Value::parse_slice(&args)?;
        if !value.is_object() {
            return None;
        }
        // Schema errors, and keys the tool does not declare (the reading that made
        // them up from content is the less likely one, even where extra keys pass).
        // A placeholder (`{...}`) is reported as one when the call ends, not weighed
        // against the schema here.
        let placeholder =
            repairs.contains(Repair::Ellipsis) && value.as_object().is_some_and(|o| o.is_empty());
        let errors = match placeholder {
            true => 0,
            false => (tool.validate_in_order(&value).len() + undeclared(tool, &value)) as u32,
        };
        Some((cost + errors * crate::json::cost::SCHEMA_ERROR, args))
    }
}

/// Keep only the arguments every reading agreed on (those sent): a call whose readings
/// could not be told apart reports its completed members from them, not from one
/// reading's guess.
fn only_sent(call: &mut Call) {
    call.args.truncate(call.sent);
    call.members = Members::default();
}

/// How many keys of `args` the tool does not declare (extra keys may pass its schema,
/// but a reading that made them up from a string's content is the less likely one).
fn undeclared(tool: &crate::schema::Tool, args: &crate::ordered::Value) -> usize {
    args.as_object().map_or(0, |args| {
        args.keys()
            .filter(|k| tool.declares(k) == Some(false))
            .count()
    })
}

/// The first key of `args` the tool does not declare, and that is no name (it holds
/// quotes, `=`, brackets or blanks), whose member follows a string value: in a syntax
/// that writes strings raw, text of that string that looked like the format's markup
/// made it (`initial</parameter><parameter=-scale=0">`). A name-like key (`replace_all`)
/// is far more often a parameter the model made up, released with what its schema says.
fn undeclared_after_string(
    tool: &crate::schema::Tool,
    args: &crate::ordered::Value,
) -> Option<String> {
    let members: Vec<_> = args.as_object()?.iter().collect();
    members.windows(2).find_map(|pair| {
        let ((_, before), (key, _)) = (pair[0], pair[1]);
        let name = !key.is_empty()
            && key
                .chars()
                .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | '$'));
        (before.is_string() && !name && tool.declares(key) == Some(false)).then(|| key.clone())
    })
}

/// The repairs of a string written raw (inner quotes, control bytes or backslashes
/// unescaped): any of its quotes may have been taken as its end.
const RAW_STRING: [Repair; 3] = [
    Repair::UnescapedQuote,
    Repair::ControlCharacter,
    Repair::InvalidEscape,
];

/// The repairs that invent structure around text (keys, values, commas or colons the
/// model did not write).
const INVENTED: [Repair; 9] = [
    Repair::UnquotedKey,
    Repair::UnquotedString,
    Repair::MissingComma,
    Repair::MissingColon,
    Repair::Comment,
    Repair::RedundantCloser,
    Repair::MissingValue,
    // A tag read as one though it was broken (no `>`, another name): in a value written
    // raw, text that looked like a tag (`<parameter=i.log"},`).
    Repair::MismatchedTag,
    // A delimited string ended where its closer was taken for lost (`,KEY:` after it):
    // in a file written raw, text that looked like the next member (`",10:`).
    Repair::UnclosedString,
];

/// Whether the repairs are those of a string written raw (inner quotes, control bytes or
/// backslashes unescaped): any of its quotes may have been taken as its end.
pub(crate) fn raw_string(repairs: Repairs) -> bool {
    any_of(repairs, &RAW_STRING)
}

fn any_of(repairs: Repairs, kinds: &[Repair]) -> bool {
    kinds.iter().any(|r| repairs.contains(*r))
}

/// Whether the repairs are those of a value that may have been misread: a string
/// written raw, or structure invented around text.
pub(crate) fn misread(repairs: Repairs) -> bool {
    any_of(repairs, &RAW_STRING) || any_of(repairs, &INVENTED)
}

/// Whether the arguments held bare words read as a member only by inventing its colon
/// and the quotes of both its key and its value (`{invalid json}`).
fn words_in_braces(repairs: Repairs) -> bool {
    [
        Repair::MissingColon,
        Repair::UnquotedKey,
        Repair::UnquotedString,
    ]
    .iter()
    .all(|r| repairs.contains(*r))
}

/// What the model is told when the one reading of its call that there was did not
/// fit (see [`misread`]).
fn misread_feedback(name: &str, repairs: Repairs) -> String {
    // Only one thing invented: say which.
    let only = |kind: Repair| {
        repairs.contains(kind) && !INVENTED.iter().any(|r| *r != kind && repairs.contains(*r))
    };
    match any_of(repairs, &RAW_STRING) {
        true => ambiguous_feedback(name),
        false if only(Repair::MismatchedTag) => format!(
            "{name}: a tag in the call was broken (no `>`, or another tag's name), and read so the call did not fit the tool; \
             write every tag whole, and keep tag-like text inside a value from looking like the call's own tags"
        ),
        false if only(Repair::UnclosedString) => format!(
            "{name}: a string in the arguments was read as ending where its closing delimiter seemed lost, and then the call did not fit the tool; \
             close every string with its delimiter, and keep text like `,key:` inside a value from following a delimiter"
        ),
        false => format!(
            "{name}: the arguments could be read only by inventing structure (unquoted keys or values, missing commas or colons), and then did not fit the tool; \
             write them as one JSON object, every string quoted"
        ),
    }
}

/// Whether `args` is exactly a call object: a string `name` and an object of
/// `arguments` (or `parameters`), nothing else.
fn is_call_object(args: &[u8]) -> bool {
    let Ok(map) = serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(args) else {
        return false;
    };
    let arguments = map.get("arguments").or_else(|| map.get("parameters"));
    map.len() == 2
        && map.get("name").is_some_and(|n| n.is_string())
        && arguments.is_some_and(|a| a.is_object())
}

/// What the model is told when the readings of its call could not be told apart.
fn ambiguous_feedback(name: &str) -> String {
    format!(
        "{name}: a string in the arguments holds unescaped quotes, and where it ends cannot be told; \
         escape every quote and backslash inside strings (\\\" and \\\\), or split the write"
    )
}

/// The key of a top-level argument written as a bare `<word>` (repaired as an
/// unquoted string): a placeholder of the call's format, not a value.
fn angle_placeholder(call: &Call) -> Option<String> {
    if !call.repairs.contains(Repair::UnquotedString) {
        return None;
    }
    let map =
        serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(&call.args).ok()?;
    map.into_iter().find_map(|(key, value)| {
        let text = value.as_str()?;
        let inner = text.strip_prefix('<')?.strip_suffix('>')?;
        let word = !inner.is_empty()
            && inner.len() <= 64
            && inner
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b' '));
        word.then_some(key)
    })
}

/// Bytes an identifier-like tool name is made of.
pub(crate) fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':' | b'/')
}

/// Whether `name` is a tool name: one token of letters, digits and `_ - . : /`
/// (never quotes, braces or blanks: those are what a misread call object puts there).
pub(crate) fn is_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | '.' | ':' | '/'))
}

/// Whether the member scan of `call`'s arguments from `from` would leave it where it
/// is: true of a string run's bytes inside a string, whose scan is skipped (checked in
/// debug builds).
fn scan_skips(call: &Call, from: usize) -> bool {
    let mut before = call.members.clone();
    before.catch_up(&call.args[..from]);
    let mut after = before.clone();
    after.catch_up(&call.args);
    after.scanned = before.scanned;
    after == before
}

/// Whether the arguments written so far end inside a string, after no backslash.
fn in_string(call: &Call) -> bool {
    let mut members = call.members.clone();
    members.catch_up(&call.args);
    members.in_string && !members.escape
}

/// Make room for `more` argument bytes, growing by half the capacity rather than
/// doubling it: a large call's buffer stays within 1.5x its arguments (peak memory is
/// a target: at most twice the largest call).
fn reserve_args(args: &mut Vec<u8>, more: usize) {
    let need = args.len() + more;
    if need > args.capacity() {
        let target = need.max(args.capacity() + args.capacity() / 2);
        args.reserve_exact(target - args.len());
    }
}

/// The length of the longest prefix of `bytes` that does not end inside a UTF-8
/// character: only the last three bytes are looked at.
fn whole_chars(bytes: &[u8]) -> usize {
    let n = bytes.len();
    for back in 1..=n.min(3) {
        let b = bytes[n - back];
        if b & 0xc0 == 0x80 {
            continue; // a continuation byte: its lead is further back
        }
        let len = match b {
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf7 => 4,
            _ => 1,
        };
        return if back < len { n - back } else { n };
    }
    n
}

/// `{` + the complete top-level members + `}`, as strict JSON; `{}` when none is. The
/// member scan must be caught up.
fn completed_members(call: &Call) -> String {
    debug_assert_eq!(call.members.scanned, call.args.len());
    if call.members.is_object != Some(true) || call.members.last_end == 0 {
        return "{}".to_owned();
    }
    let end = call.members.last_end.min(call.args.len());
    let mut text = String::from_utf8_lossy(&call.args[..end])
        .trim_end()
        .to_owned();
    if text.ends_with('}') && serde_json::from_str::<&RawValue>(&text).is_ok() {
        return text;
    }
    text.push('}');
    match serde_json::from_str::<&RawValue>(&text) {
        Ok(_) => text,
        Err(_) => "{}".to_owned(),
    }
}

/// ` inside "KEY"` for the member being written when the call was cut.
fn where_cut(args: &[u8]) -> String {
    // The last key at depth 1 that starts a member.
    let mut depth = 0i32;
    let mut in_string = false;
    let mut escape = false;
    let mut start = 0;
    let mut last_key: Option<(usize, usize)> = None;
    let mut expecting_key = false;
    for (i, &b) in args.iter().enumerate() {
        if in_string {
            if escape {
                escape = false;
            } else if b == b'\\' {
                escape = true;
            } else if b == b'"' {
                in_string = false;
                if expecting_key {
                    last_key = Some((start, i));
                    expecting_key = false;
                }
            }
            continue;
        }
        match b {
            b'"' => {
                in_string = true;
                start = i + 1;
            }
            b'{' | b'[' => {
                depth += 1;
                if depth == 1 && b == b'{' {
                    expecting_key = true;
                }
            }
            b'}' | b']' => depth -= 1,
            b',' if depth == 1 => expecting_key = true,
            b':' if depth == 1 => expecting_key = false,
            _ => {}
        }
    }
    match last_key {
        Some((s, e)) => format!(" inside \"{}\"", String::from_utf8_lossy(&args[s..e])),
        None => String::new(),
    }
}

/// Blank, or an object with nothing in it (`{}`, `{ }`).
fn is_empty_object(args: &[u8]) -> bool {
    let inner: Vec<u8> = args
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    inner.is_empty() || inner == b"{}"
}

#[cfg(test)]
mod tests {
    use super::{call_id, whole_chars};

    #[test]
    fn call_ids_are_the_prefix_and_the_index() {
        for index in [0, 1, 9, 10, 99, 100, 12345, u32::MAX] {
            assert_eq!(call_id("call_", index), format!("call_{index}"));
        }
        assert_eq!(call_id("", 7), "7");
    }
    use crate::{Config, Dialect, Event, Parser, StopReason, Tools};

    /// Released calls of `raw` under `dialect` with one declared tool.
    fn released(dialect: Dialect, raw: &str) -> Vec<(String, String)> {
        let mut config = Config::new(dialect);
        let tools = r#"[{"type": "function", "function": {"name": "ping",
            "parameters": {"type": "object", "properties": {}}}}]"#;
        config.tools = std::sync::Arc::new(Tools::from_json(tools.as_bytes()).unwrap());
        let mut p = Parser::with_config(config);
        let mut out = Vec::new();
        p.push(raw.as_bytes());
        p.finish(StopReason::Stop);
        while let Some(ev) = p.next_event() {
            if let Event::CallFinished {
                name, arguments, ..
            } = ev
            {
                out.push((name.to_string(), arguments.to_string()));
            }
        }
        out
    }

    #[test]
    fn no_tool_is_inferred_from_empty_arguments() {
        // No name and nothing written: not a call to the one declared tool.
        let raw = "<｜tool_call_begin｜>function<｜tool_sep｜></steptml:invoke><｜tool_call_end｜>";
        assert_eq!(released(Dialect::Step3, raw), vec![]);
        assert_eq!(released(Dialect::Glm, "<tool_call>   </tool_call>"), vec![]);
        // A name still makes it a call.
        assert_eq!(
            released(Dialect::Glm, "<tool_call>ping</tool_call>"),
            vec![("ping".to_owned(), "{}".to_owned())]
        );
    }

    #[test]
    fn whole_chars_never_ends_inside_a_character() {
        let text = "aé✓😀";
        let bytes = text.as_bytes();
        for cut in 0..=bytes.len() {
            let n = whole_chars(&bytes[..cut]);
            assert!(text.is_char_boundary(n), "cut {cut}: {n}");
            assert!(cut - n < 4 && n <= cut);
            if text.is_char_boundary(cut) {
                assert_eq!(n, cut);
            }
        }
    }
}
