//! The parser: a push-driven state machine over text, reasoning and calls.
//!
//! ```text
//!                  reasoning opener                      reasoning closer
//!        ┌──────────────────────────────► Reasoning ─────────────────────────┐
//!        │                                    │ call opener (policy Extract)  │
//!        │                                    ▼                               │
//!      Text ──────── call opener ──────────► Call ── body ended ──► AfterCall ─┤
//!        ▲  (strip markers dropped)           │  (grammar: envelope,  closer   │
//!        │                                    │   XML, name+args)    or other  │
//!        │                                    └─ limit ──► Skip ── closer ─────┤
//!        └────────────────────────────────────────────────────────────────────┘
//! ```
//!
//! In `Text` and `Reasoning`, the bytes that could still begin a marker are held back
//! (at most the longest marker; around removed markup, the text that could join across
//! it too) and released as text the moment they cannot; everything else is emitted at
//! once. In `Call`, the dialect's grammar decides the call's parts
//! and the [`Sink`] streams them. `docs/design.md` explains each state.

use crate::ascii::TextStops;
use crate::calls::{Abort, Calls, Sink};
use crate::config::{Config, InReasoning};
use crate::dialect::{auto_specs, Body, CallForm, Dialect, Spec};
use crate::event::{Event, StopReason};
use crate::feed::{FedAs, Feed};
use crate::grammar::{Grammar, Step};
use crate::json::lookahead::KeyCheck;
use crate::json::readings::Policy;
use crate::json::repairer::{Options, Repairer, ToolByName};
use crate::queue::Queue;
use crate::repairs::{Repair, Repairs};
use crate::scan::{Found, MarkerSet};
use crate::stats::Stats;
use smallvec::SmallVec;
use std::sync::{Mutex, OnceLock};

#[derive(Copy, Clone, Debug)]
enum Action {
    /// Open reasoning; the index of its table.
    Reason(usize),
    /// Close reasoning.
    EndReason,
    /// Begin a call.
    Call(&'static CallForm),
    /// Drop the marker.
    Strip,
    /// A call's opener inside reasoning, left there as reasoning
    /// ([`InReasoning::Ignore`]): counted, and kept as the reasoning's text.
    InReasoning(&'static [u8]),
}

#[derive(Clone, Debug, Default)]
struct Table {
    set: MarkerSet,
    actions: Vec<Action>,
    /// The bytes plain text stops at: a marker's first byte, or a byte that is not
    /// ASCII (it needs the UTF-8 check). Every other byte is text as it stands.
    stop: TextStops,
}

impl Table {
    fn seal(&mut self) {
        self.stop = TextStops::new(|b| self.set.starts_with_byte(b))
            .follow(|first| (self.set.seconds(first), self.set.thirds(first)));
    }

    /// The plain text at the start of `chunk`: the bytes before the first that may
    /// begin a marker where it stands or does not begin a whole UTF-8 character in the
    /// chunk. A byte that begins markers but none there (the `<` of `a < b`) is text,
    /// unless the text would then end with bytes that could still begin one (`a<` +
    /// `<|im_end|>`), or would after backing off such an end: that end could join a
    /// marker with the text after a removed marker, which `scan` decides.
    #[inline(always)]
    fn plain<'c>(&self, chunk: &'c [u8]) -> &'c str {
        let mut declined = false;
        let text = self.stop.plain_prefix_where(chunk, |at| {
            let begins = self.set.match_at(chunk, at) != Found::None;
            declined |= !begins;
            begins
        });
        if declined && text.len() < chunk.len() {
            // What is left after backing off can end joinable too (`<|message` +
            // `<|tool_response`): a removed marker can take the second end away too,
            // and then the first joins, so back off until no end is joinable.
            let mut end = text.len();
            loop {
                match joinable(&self.set, &text.as_bytes()[..end]) {
                    0 => return &text[..end],
                    n => end -= n,
                }
            }
        }
        text
    }

    fn add(&mut self, marker: &'static [u8], action: Action) {
        let id = self.set.push(marker);
        if id == self.actions.len() {
            self.actions.push(action);
        }
    }
}

/// The marker tables of the dialects in force.
#[derive(Clone, Debug, Default)]
struct Tables {
    text: Table,
    /// Whether a call form opens only at the start of a line (`CallForm::anchored`):
    /// only then is `Parser::last_text` ever read.
    anchored: bool,
    /// Whether a call form's opener follows the tool name (`CallForm::name_before`):
    /// only then is a name held at the start of the output.
    name_before: bool,
    /// The closer of each reasoning table.
    closers: Vec<&'static [u8]>,
    /// One table per reasoning block kind, used inside it.
    reasoning: Vec<Table>,
}

impl Tables {
    /// The tables for a dialect and policy, built once per process and shared: they are
    /// dialect data, so a parser holds no table of its own (and `reset` builds nothing).
    fn shared(dialect: Dialect, policy: InReasoning) -> &'static Tables {
        const SLOTS: usize = 2 * (Dialect::ALL.len() + 1);
        static CACHE: [OnceLock<Tables>; SLOTS] = [const { OnceLock::new() }; SLOTS];
        let d = Dialect::ALL
            .iter()
            .position(|d| *d == dialect)
            .map_or(0, |i| i + 1);
        let slot = d * 2 + (policy == InReasoning::Extract) as usize;
        CACHE[slot].get_or_init(|| {
            let specs: Vec<&'static Spec> = match dialect {
                Dialect::Auto => auto_specs().to_vec(),
                d => vec![d.spec()],
            };
            Tables::build(&specs, &[], policy)
        })
    }

    /// The tables of `auto` after it locked on `opener`: every dialect that shares the
    /// opener (built once per opener and policy, and kept for the process).
    fn locked(dialect: Dialect, opener: &'static [u8], policy: InReasoning) -> &'static Tables {
        type Cache = Vec<(&'static [u8], Dialect, InReasoning, &'static Tables)>;
        static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
        let cache = CACHE.get_or_init(|| Mutex::new(Vec::new()));
        let mut cache = cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&(.., t)) = cache
            .iter()
            .find(|(o, d, p, _)| *o == opener && *d == dialect && *p == policy)
        {
            return t;
        }
        let mut specs: Vec<&'static Spec> = auto_specs()
            .iter()
            .copied()
            .filter(|s| s.calls.iter().any(|f| f.opener == opener))
            .collect();
        if !specs.iter().any(|s| s.dialect == dialect) {
            specs.push(dialect.spec());
        }
        // The other dialects' markup stays markup: what `auto` stripped before it
        // locked, and their special tokens, are stripped after.
        let others: Vec<&'static Spec> = auto_specs()
            .iter()
            .copied()
            .filter(|s| !specs.iter().any(|t| std::ptr::eq(*t, *s)))
            .collect();
        let tables = Tables::build(&specs, &others, policy);
        let tables: &'static Tables = Box::leak(Box::new(tables));
        cache.push((opener, dialect, policy, tables));
        tables
    }

    /// The tables of `specs`, with the markup of `others` (what they strip, their
    /// special tokens) stripped as text.
    fn build(specs: &[&'static Spec], others: &[&'static Spec], policy: InReasoning) -> Tables {
        let mut t = Tables::default();
        let mut closers: Vec<&'static [u8]> = Vec::new();
        for spec in specs {
            for &(open, close) in spec.reasoning {
                let idx = match closers.iter().position(|c| *c == close) {
                    Some(i) => i,
                    None => {
                        closers.push(close);
                        let mut table = Table::default();
                        table.add(close, Action::EndReason);
                        t.reasoning.push(table);
                        closers.len() - 1
                    }
                };
                t.text.add(open, Action::Reason(idx));
                // Another closer listed for the same opener closes the block too
                // (Hunyuan 3 ends a `<think>` with `</think:opensource>`).
                for &(o, c) in specs.iter().flat_map(|s| s.reasoning) {
                    if o == open && c != close {
                        t.reasoning[idx].add(c, Action::EndReason);
                    }
                }
            }
        }
        t.closers = closers;
        for spec in specs {
            for form in spec.calls {
                t.anchored |= form.anchored;
                t.name_before |= form.name_before || form.name_told;
                t.text.add(form.opener, Action::Call(form));
                if policy == InReasoning::Extract {
                    for table in &mut t.reasoning {
                        table.add(form.opener, Action::Call(form));
                    }
                } else if (is_special_token(form.opener) || form.opener.starts_with(b"<"))
                    && !(form.anchored || form.start_only || form.heuristic)
                    && !(form.name_before || form.name_told)
                {
                    // A call the model drafted while thinking: counted, not executed.
                    for table in &mut t.reasoning {
                        table.add(form.opener, Action::InReasoning(form.opener));
                    }
                }
            }
        }
        for spec in specs {
            for &m in spec.strip {
                t.text.add(m, Action::Strip);
            }
        }
        for spec in others {
            for &m in spec.strip {
                t.text.add(m, Action::Strip);
            }
            for form in spec.calls {
                for m in [form.opener, form.closer] {
                    if is_special_token(m) {
                        t.text.add(m, Action::Strip);
                    }
                }
            }
        }
        t.text.seal();
        for table in &mut t.reasoning {
            table.seal();
        }
        t
    }
}

enum Mode {
    Text,
    /// The index of the reasoning table (u16: keeps `Mode` small).
    Reasoning(u16),
    Call {
        form: &'static CallForm,
        /// Boxed: the grammars are large, and an idle parser should not carry one.
        grammar: Box<Grammar>,
        /// The reasoning block the call was written in, to return to.
        within: Option<u16>,
        native: Repairs,
    },
    /// The body ended; the call waits for its closer (or anything else) to be released.
    /// Boxed: only a call needs it, and an idle parser should stay small.
    AfterCall(Box<AfterCall>),
    /// Dropping the rest of a call that broke a limit, up to its closer.
    Skip {
        closer: &'static [u8],
        /// How many bytes of the closer the input ended in.
        matched: usize,
    },
}

/// A partial UTF-8 character of text held to the next push (at most 3 bytes), and
/// whether it is reasoning. Inline, so an idle parser stays small.
#[derive(Default)]
struct Utf8Tail {
    buf: [u8; 4],
    len: u8,
    reasoning: bool,
}

impl Utf8Tail {
    fn is_empty(&self) -> bool {
        self.len == 0
    }
    fn clear(&mut self) {
        self.len = 0;
    }
    /// The character `Parser::char_then_plain` finished in `buf`, checked whole there
    /// and kept until the next chunk is read.
    fn finished(&self) -> &str {
        let whole = crate::ascii::first_char(&self.buf);
        debug_assert!(whole.is_some());
        whole.unwrap_or_default()
    }
    fn push(&mut self, b: u8) {
        if (self.len as usize) < self.buf.len() {
            self.buf[self.len as usize] = b;
            self.len += 1;
        }
    }
    fn as_slice(&self) -> &[u8] {
        &self.buf[..self.len as usize]
    }
}

/// What only calls need, boxed so that a parser that sees only text stays small.
struct CallWork {
    rep: Repairer,
    /// The repairer's output for the grammar, reused across chunks.
    scratch: Vec<u8>,
    /// Raw body bytes of the open call read so far, for the arguments size limit.
    /// (Here rather than in `Mode::Call`: an idle parser stays within 512 bytes.)
    body: usize,
    /// The last call's grammar box, for the next call's: a call allocates none.
    spare_grammar: Option<Box<Grammar>>,
    /// An identifier and the blanks after it, at the start of the output, held as the
    /// name of a call whose opener may follow (see [`Parser::hold_name`]).
    name: Vec<u8>,
    /// Text given back by a call whose name came before its opener is being read
    /// again: no name is held in it ([`Parser::names_after_text`]). (Here: an idle
    /// parser stays within 512 bytes.)
    names_paused: bool,
}

/// Which path [`Parser::feed`] or [`Parser::push`] may take a chunk by with one test.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum FastLane {
    /// None: `feed_rest` and `push` decide.
    Off,
    /// Text's table (`Tables::text`); the chunk's last byte is `last_text`.
    Text,
    /// As `Text`, for a table whose word check has one byte (no set length to read)
    /// and no anchored opener (`last_text` is not kept).
    TextOne,
    /// Reasoning's table (`plain`).
    Reasoning,
    /// A character the text path cut waits in `utf8`, the text path's table has a
    /// word check, and every event was read: `feed` tries the chunk as the rest of the
    /// character and plain text (`Parser::char_then_plain`).
    Char,
    /// One ASCII byte that may begin a marker is held (the `<` a chunk ended with),
    /// nothing else is held, shown or queued, and the text path's table has a word
    /// check: `feed` tries the chunk as ruling the marker out and plain text
    /// (`Parser::held_then_plain`).
    Held,
    /// The running look-ahead of a call's arguments, with nothing else to do
    /// ([`Parser::lookahead_ready`]): `push` hands it the chunk
    /// ([`Parser::lookahead_lane`]).
    Lookahead,
}

/// A call whose body ended, waiting for its closer.
struct AfterCall {
    form: &'static CallForm,
    held: SmallVec<[u8; 32]>,
    within: Option<u16>,
    /// The form's trailer (a closing fence) was read.
    trailer_done: bool,
    /// Blanks after a closer-less body that may precede another body: text if none
    /// follows.
    gap: SmallVec<[u8; 32]>,
    /// Text after the body, held in `held` until what it is shows (see
    /// `Parser::held_text`).
    holding: bool,
    /// The body may have gone on past where it seemed to end (a JSON call object the
    /// model closed itself): text after it is held, not shown at once.
    may_go_on: bool,
}

/// The streaming parser. See the [crate documentation](crate) for an example.
///
/// Call [`push`](Parser::push) with each chunk of model output as it arrives (any size,
/// split anywhere), drain [`next_event`](Parser::next_event) after each push, and call
/// [`finish`](Parser::finish) once when generation ends, then drain again. The parser
/// does no IO and never fails: malformed output becomes events.
pub struct Parser {
    config: Config,
    queue: Queue,
    calls: Calls,
    stats: Stats,
    /// Built at the first call: a parser that only sees text holds no repairer.
    rep: Option<Box<CallWork>>,
    mode: Mode,
    tables: &'static Tables,
    locked: Option<Dialect>,
    /// Text bytes that could still begin a marker (after a stripped marker, also the
    /// text before it that could join with what follows), preceded by the end of the
    /// text already shown that could join too (`shown` bytes, never emitted again): at
    /// most three times the longest marker, which may spill to the heap; plain text
    /// never does. See [`Parser::hold_from`].
    held: SmallVec<[u8; 24]>,
    /// How many bytes at the start of `held` are already shown.
    shown: u8,
    /// The joinable end of the visible text while reasoning or a call runs: the text
    /// after them joins with it (the message's content is one text). Boxed and rare:
    /// only text ending like the start of a marker right before one keeps it.
    text_tail: Option<Box<SmallVec<[u8; 24]>>>,
    /// A partial UTF-8 character of text, and whether it is reasoning.
    utf8: Utf8Tail,
    /// The last byte of the visible text so far, `\n` while there is none: weak openers
    /// count only after a `\n`. (The byte, not whether it is one: `feed`'s fast path
    /// stores it with no compare.) Kept only where read: `FastLane::TextOne`, for tables
    /// with no anchored opener, does not store it.
    last_text: u8,
    /// Whether no visible text but blanks came yet: start-only openers count only here.
    at_start: bool,
    /// How many calls had begun when visible text other than blanks was last shown: a
    /// call begun since means a name may follow it (see [`Parser::holds_names`]).
    calls_at_text: u32,
    finished: bool,
    /// How generation ended (set by `finish`): a call left open is truncated only when
    /// it was cut, not when the model closed it in a way we could not read; at a clean
    /// stop, a call missing only its closing markers is complete.
    stop_reason: StopReason,
    /// The text path's table while it may be taken (see [`Parser::plain_table`]);
    /// updated after every push that leaves it.
    plain: Option<&'static Table>,
    /// Whether the text path's table is reasoning's.
    plain_reasoning: bool,
    /// Whether `feed` may take a chunk by the word check of `plain`'s table alone, and
    /// whether that table is text's or reasoning's (see [`Parser::refresh_fast`]). One
    /// byte: it fits the struct's padding.
    fast: FastLane,
    /// How to read the events of the chunk `feed_rest` took last (see `feed`).
    pub(crate) fed_as: FedAs,
    /// A backslash or a quote that ended the last chunk inside a string of the
    /// arguments, not read yet (see [`Parser::args_string`]).
    byte_held: Option<u8>,
    /// The last string run found the parser inside a string of the arguments with
    /// nothing held, and nothing but string runs read since: the next run need not
    /// check again. Only `process` can leave the string, so it clears this.
    in_string_arg: bool,
    /// Tests: never take the look-ahead path (to compare with it), and how often it took
    /// a chunk.
    #[cfg(test)]
    lookahead_pass: (bool, usize),
}

impl Parser {
    /// A parser with the default configuration for `dialect`.
    pub fn new(dialect: Dialect) -> Parser {
        Parser::with_config(Config::new(dialect))
    }

    /// A parser for `config`.
    pub fn with_config(config: Config) -> Parser {
        let tables = Tables::shared(config.dialect, config.in_reasoning);
        let mut p = Parser {
            rep: None,
            config,
            queue: Queue::default(),
            calls: Calls::default(),
            stats: Stats::default(),
            mode: Mode::Text,
            tables,
            locked: None,
            held: SmallVec::new(),
            shown: 0,
            text_tail: None,
            utf8: Utf8Tail::default(),
            last_text: b'\n',
            at_start: true,
            calls_at_text: 0,
            finished: false,
            stop_reason: StopReason::Stop,
            plain: None,
            plain_reasoning: false,
            fast: FastLane::Off,
            fed_as: FedAs::default(),
            byte_held: None,
            in_string_arg: false,
            #[cfg(test)]
            lookahead_pass: (true, 0),
        };
        p.reset();
        p
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The dialect in force: the configured one, or what `auto` locked onto.
    pub fn dialect(&self) -> Dialect {
        self.locked.unwrap_or(self.config.dialect)
    }

    /// Counters since the parser was built.
    pub fn stats(&self) -> &Stats {
        &self.stats
    }

    /// Start over for a new response, keeping allocations (and the counters).
    pub fn reset(&mut self) {
        self.queue.clear(&mut self.calls.spare);
        self.calls.reset();
        if let Some(work) = &mut self.rep {
            work.rep.reset();
        }
        self.held.clear();
        self.shown = 0;
        self.text_tail = None;
        self.utf8.clear();
        self.finished = false;
        self.byte_held = None;
        self.in_string_arg = false;
        self.last_text = b'\n';
        self.at_start = true;
        self.calls_at_text = 0;
        if let Some(work) = &mut self.rep {
            work.name.clear();
        }
        self.locked = None;
        self.build_tables(None);
        self.mode = match (self.config.reasoning_open, self.tables.reasoning.is_empty()) {
            (true, false) => Mode::Reasoning(0),
            _ => Mode::Text,
        };
        self.update_plain();
        self.fast = FastLane::Off;
        self.refresh_fast();
    }

    /// The tables of the configured dialect, or of the one `auto` locked on with the
    /// opener it locked on.
    fn build_tables(&mut self, locked_form: Option<&'static CallForm>) {
        self.tables = match (self.config.dialect, self.locked) {
            (Dialect::Auto, Some(d)) => Tables::locked(
                d,
                locked_form.map_or(&b""[..], |f| f.opener),
                self.config.in_reasoning,
            ),
            (dialect, _) => Tables::shared(dialect, self.config.in_reasoning),
        };
    }

    /// The next event, borrowing from the parser until the next `push`, `finish` or
    /// `reset`. Drain until `None` after every push.
    #[inline]
    pub fn next_event(&mut self) -> Option<Event<'_>> {
        // Most pushes of a call leave nothing to read: that answer is inlined.
        if self.queue.is_drained() {
            return None;
        }
        // The open call's arguments, for reading its deltas (looked up only for them).
        let calls = &self.calls;
        self.queue.next(|| {
            calls
                .current
                .as_ref()
                .map(|c| (crate::event::CallIndex(c.index), &c.args[..]))
        })
    }

    /// Push the next chunk of model output.
    #[inline(always)]
    pub fn push(&mut self, chunk: &[u8]) {
        // The look-ahead lane, inlined: most chunks of structure-heavy arguments take
        // it whole, and `push_rest` is large (its entry alone cost a tenth of them).
        if self.fast == FastLane::Lookahead {
            // Set only where nothing finished the stream.
            match self.lookahead_lane(chunk) {
                // Read, undecided: the lane stays.
                None => {
                    self.stats.pushed(chunk.len() as u64);
                    return;
                }
                // Declined at the limits: the usual path.
                Some((0, false)) => {}
                Some((n, decided)) => return self.push_after_lane(chunk, n, decided),
            }
        }
        self.push_rest(chunk);
    }

    /// [`push`](Parser::push) of a chunk the look-ahead lane did not take.
    #[inline(never)]
    fn push_rest(&mut self, chunk: &[u8]) {
        // It may queue events (`refresh_fast`). Stored only when set: `push` users
        // never set it, and a byte stored on every push slowed the call path.
        if self.fast != FastLane::Off {
            self.fast = FastLane::Off;
        }
        if self.finished {
            return;
        }
        self.queue.begin(&mut self.calls.spare);
        self.stats.pushed(chunk.len() as u64);
        let mut plain = 0;
        // Whether the look-ahead lane is known to stay closed after this push: only a
        // look-ahead reading and `process` can open it.
        let mut settled = true;
        if self.plain.is_none() {
            if !self.utf8.is_empty() {
                plain = self.finish_char(chunk);
            } else if matches!(self.mode, Mode::Call { .. }) {
                // One of the two at most: a string run needs no look-ahead reading.
                plain = match self.rep.as_ref().is_some_and(|w| w.rep.looking_ahead()) {
                    true => {
                        settled = false;
                        self.args_lookahead(chunk)
                    }
                    false => self.args_string(chunk),
                };
            }
        }
        self.push_tail(chunk, plain, settled);
    }

    /// [`push`](Parser::push) of a chunk the look-ahead lane read `n` bytes of (1 or
    /// more), deciding or not.
    #[inline(never)]
    fn push_after_lane(&mut self, chunk: &[u8], n: usize, decided: bool) {
        self.queue.begin(&mut self.calls.spare);
        self.stats.pushed(chunk.len() as u64);
        self.resolve_at_end(chunk, n, decided);
        self.push_tail(chunk, n, false);
    }

    /// The rest of a push once `plain` bytes of `chunk` were read: the text path, a
    /// character it cuts, then `process`; then the look-ahead lane opens if it may
    /// (unless `settled`: nothing read could have opened it).
    #[inline(always)]
    fn push_tail(&mut self, chunk: &[u8], mut plain: usize, mut settled: bool) {
        plain += self.plain_text(&chunk[plain..]);
        if plain < chunk.len() {
            plain += self.start_char(&chunk[plain..]);
        }
        if plain < chunk.len() {
            self.process(&chunk[plain..]);
            self.update_plain();
            settled = false;
        }
        if !settled
            && self.rep.as_ref().is_some_and(|w| w.rep.looking_ahead())
            && self.lookahead_ready()
        {
            self.fast = FastLane::Lookahead;
        }
    }

    /// The look-ahead lane: the chunk goes straight to the running look-ahead, which
    /// writes nothing until it decides, so the grammar and the sink have nothing to do;
    /// only the body and held limits are checked (`FastLane::Lookahead` or
    /// `lookahead_ready` stands for the rest). `None` when it read the whole chunk
    /// undecided; else how many bytes it read (0: the limits were near, and the chunk
    /// takes the usual path) and whether it decided, with the lane closed. A decided
    /// look-ahead must be resolved next (`resolve_at_end`), before anything else.
    #[inline]
    fn lookahead_lane(&mut self, chunk: &[u8]) -> Option<(usize, bool)> {
        debug_assert!(self.lookahead_ready());
        let (Mode::Call { .. }, Some(work)) = (&mut self.mode, &mut self.rep) else {
            unreachable!("the look-ahead lane opens only in a call with a repairer")
        };
        // The body limit counts raw bytes, as `feed_call` does.
        let fits = chunk.len() <= self.config.limits.max_args_bytes.saturating_sub(work.body);
        let (n, decided) = match fits {
            true => work.rep.lane_lookahead(chunk),
            false => (0, false),
        };
        work.body += n;
        self.stats.examined(n as u64 + work.rep.take_work());
        #[cfg(test)]
        {
            self.lookahead_pass.1 += usize::from(n > 0);
        }
        if n == chunk.len() && !decided {
            return None;
        }
        self.fast = FastLane::Off;
        Some((n, decided))
    }

    /// Whether the next chunk may go straight to the look-ahead (the lane): in an
    /// envelope's arguments, with a look-ahead reading and nothing held, replayed or
    /// decided around it (`Repairer::lookahead_clean`), and nothing the text path or
    /// the string run holds: all the lane needs but the limits.
    #[inline(never)]
    fn lookahead_ready(&self) -> bool {
        #[cfg(test)]
        if !self.lookahead_pass.0 {
            return false;
        }
        match (&self.mode, &self.rep) {
            (Mode::Call { grammar, .. }, Some(work)) => {
                work.rep.looking_ahead()
                    && !self.finished
                    && self.plain.is_none()
                    && self.utf8.is_empty()
                    && self.byte_held.is_none()
                    && matches!(&**grammar, Grammar::Envelope(e) if !e.forked())
                    && work.rep.lookahead_clean()
            }
            _ => false,
        }
    }

    /// Push the next chunk and read its events: like [`push`](Parser::push), but the
    /// text of a chunk that cannot be part of any markup is handed out borrowed from
    /// `chunk`, not copied (see [`Feed`]). The events are the same as after `push`,
    /// though text may be split at other places.
    ///
    /// ```
    /// use toolsift::{Dialect, Event, Parser};
    ///
    /// let mut parser = Parser::new(Dialect::Hermes);
    /// let mut shown = String::new();
    /// for chunk in ["Hello", " wor", "ld <tool", "_call>{\"name\":\"f\"}"] {
    ///     let mut events = parser.feed(chunk.as_bytes());
    ///     while let Some(event) = events.next_event() {
    ///         if let Event::Text(text) = event {
    ///             shown.push_str(text);
    ///         }
    ///     }
    /// }
    /// assert_eq!(shown, "Hello world ");
    /// ```
    #[inline]
    pub fn feed<'a>(&'a mut self, chunk: &'a [u8]) -> Feed<'a> {
        // Most chunks of prose: all of it is text, with no byte that could begin a
        // marker. One test of `fast` stands for the text path's conditions (see
        // `refresh_fast`); kept small enough to inline, the rest is `feed_rest`.
        let text = match self.fast {
            FastLane::TextOne => self.tables.text.stop.fast_plain_one(chunk),
            FastLane::Text => self.tables.text.stop.fast_plain(chunk),
            _ => None,
        };
        if let Some(text) = text {
            debug_assert!(self
                .plain
                .is_some_and(|t| std::ptr::eq(t, &self.tables.text)));
            self.stats.read_once(chunk.len() as u64);
            // `TextOne` is only for tables with no anchored opener, which never read
            // `last_text`: one store less a chunk (each one the loop waits on).
            if self.fast == FastLane::Text {
                self.last_text = chunk[chunk.len() - 1];
            }
            return Feed::text(self, text);
        }
        // Out of line, returning the text alone (in registers), the rest in `fed_as`:
        // a `Feed` returned whole would be written to memory on every chunk of the loop.
        let text = self.feed_rest(chunk);
        Feed::slow(self, text)
    }

    /// `feed` of a chunk its inlined test did not take: the text it borrows, and how to
    /// read the rest in `fed_as`. Small, for the chunks the text path still takes
    /// (its frame is set up on each); the others go on to `feed_other`.
    /// Cold, though it takes one chunk of prose in fourteen: the caller's loop then
    /// keeps the fast test's constants in registers.
    #[inline(never)]
    #[cold]
    fn feed_rest<'a>(&mut self, chunk: &'a [u8]) -> &'a str {
        // A chunk a text lane's test stopped, or any in reasoning's (it has no inlined
        // test): most are whole characters that are not all ASCII, text before a
        // character the chunk's end cuts, or a marker byte the next byte rules out, all
        // told apart from one word. The lane stands for the text path and its table.
        let table = match (self.fast, self.plain) {
            (FastLane::Text | FastLane::TextOne, _) => {
                debug_assert!(self
                    .plain
                    .is_some_and(|t| std::ptr::eq(t, &self.tables.text) && !self.plain_reasoning));
                &self.tables.text
            }
            (FastLane::Reasoning, Some(table)) => table,
            (FastLane::Char | FastLane::Held, _) => return self.feed_kept_first(chunk),
            _ => return self.feed_other(chunk),
        };
        let plain = match self.fast {
            FastLane::Reasoning => table.stop.fast_plain(chunk).map(|t| (t, &[][..])),
            _ => None,
        };
        if let Some((text, cut)) = plain.or_else(|| table.stop.declined(chunk)) {
            self.fed_as = FedAs::text(self.plain_reasoning);
            self.take_declined(chunk, text, cut);
            return text;
        }
        self.feed_marker_start(chunk)
    }

    /// `feed_rest` of a chunk on the text path that `declined` did not take: most
    /// often text, then the start of a marker the chunk's end cuts (`a <`), held as
    /// `feed_slow` would hold it. Out of line, as `feed_kept_first`.
    #[inline(never)]
    fn feed_marker_start<'a>(&mut self, chunk: &'a [u8]) -> &'a str {
        if let Some(text) = self.text_then_marker_start(chunk) {
            return text;
        }
        self.feed_other(chunk)
    }

    /// A chunk on the text path that is ASCII text with no byte that may begin a marker,
    /// then, from the first that may, the start of a marker the chunk's end cuts: the
    /// text is returned and the start held (`FastLane::Held` reads on when it is one
    /// byte). `None`, with nothing read, for any other chunk.
    fn text_then_marker_start<'a>(&mut self, chunk: &'a [u8]) -> Option<&'a str> {
        let table = self.plain?;
        let text = table.stop.before_stop(chunk);
        let tail = &chunk[text.len()..];
        if tail.is_empty() || table.set.match_at(tail, 0) != (Found::Partial { start: 0 }) {
            return None;
        }
        self.fed_as = FedAs::text(self.plain_reasoning);
        self.stats.pushed(text.len() as u64);
        self.took_plain(text.as_bytes());
        self.hold_tail(tail);
        self.fast = self.lane();
        Some(text)
    }

    /// `feed_rest` in the lanes whose chunk begins with text the parser keeps: the
    /// character lane (the rest of a character the text path cut) and the held-byte
    /// lane (a byte the chunk rules out as a marker's first). Out of line: `feed_rest`
    /// keeps fewer registers for the chunks the text path takes.
    #[inline(never)]
    fn feed_kept_first<'a>(&mut self, chunk: &'a [u8]) -> &'a str {
        let text = match self.fast {
            FastLane::Held => self.held_then_plain(chunk),
            _ => self.char_then_plain(chunk),
        };
        match text {
            Some(text) => {
                self.fed_as = FedAs::kept_first(self.plain_reasoning);
                text
            }
            None => self.feed_other(chunk),
        }
    }

    /// `feed_rest` of a chunk off the text path.
    #[inline(never)]
    fn feed_other<'a>(&mut self, chunk: &'a [u8]) -> &'a str {
        let (text, reasoning, queued) = self.feed_slow(chunk);
        self.refresh_fast();
        self.fed_as = FedAs {
            queued,
            ..FedAs::text(reasoning)
        };
        text
    }

    /// Take `chunk` on the text path as `text`, then `cut`, the first bytes of a
    /// character its end cuts (held for the next chunk), as `TextStops::declined` read
    /// it.
    #[inline]
    fn take_declined(&mut self, chunk: &[u8], text: &str, cut: &[u8]) {
        self.stats.pushed(chunk.len() as u64);
        self.took_plain(text.as_bytes());
        if !cut.is_empty() {
            self.take_cut(cut);
        }
    }

    /// Hold `cut`, the first bytes of a character the end of a chunk on the text path
    /// cuts, for the next chunk.
    #[inline(never)]
    fn take_cut(&mut self, cut: &[u8]) {
        self.hold_char(cut);
        // As `refresh_fast` finds: every event was read (the text path's table is
        // taken only then), and the table has a word check (`declined`, the only reader
        // that cuts, reads only such).
        self.fast = FastLane::Char;
        debug_assert!(self.queue.is_drained() && self.fast == self.lane());
    }

    /// The next queued event, for [`Feed::next_event`]. Once every event was read,
    /// `feed` may take the next chunk by its fast test (`fast`, set here). Out of line:
    /// `feed`'s loop stays small for the chunks that queue nothing.
    #[inline(never)]
    pub(crate) fn queued_event(&mut self) -> Option<Event<'_>> {
        if self.queue.is_drained() {
            // The look-ahead lane stands whatever the queue holds: kept as it is.
            if self.fast != FastLane::Lookahead {
                self.fast = self.lane();
            }
            return None;
        }
        self.next_event()
    }

    /// Where `fast` may stand for the text path: its table checks chunks of up to 8
    /// bytes a word at a time (`TextStops::fast_plain`), and every event was
    /// read. Set only here (after every chunk `feed_rest` reads, and at `reset`) and
    /// when a [`Feed`] finds every event read (`queued_event`); cleared by every call
    /// that may queue an event. The look-ahead lane does not depend on the queue: `push`
    /// opens it, and it is kept.
    fn refresh_fast(&mut self) {
        self.fast = match (self.fast, self.queue.is_drained()) {
            (FastLane::Lookahead, _) => FastLane::Lookahead,
            (_, true) => self.lane(),
            (_, false) => FastLane::Off,
        };
    }

    /// `fast` with every event read.
    fn lane(&self) -> FastLane {
        match self.plain {
            Some(table) => self.plain_lane(table, self.plain_reasoning),
            None if !self.utf8.is_empty() => match self.char_table() {
                Some(_) => FastLane::Char,
                None => FastLane::Off,
            },
            None if self.held.len() == 1 => match self.held_table() {
                Some(_) => FastLane::Held,
                None => FastLane::Off,
            },
            None => match self.lookahead_ready() {
                true => FastLane::Lookahead,
                false => FastLane::Off,
            },
        }
    }

    /// [`lane`](Self::lane) on the text path with `table`, reasoning's or not.
    #[inline]
    fn plain_lane(&self, table: &Table, reasoning: bool) -> FastLane {
        match (table.stop.has_word_check(), reasoning) {
            (false, _) => FastLane::Off,
            (true, true) => FastLane::Reasoning,
            (true, false) => match table.stop.has_one_marker() && !self.tables.anchored {
                true => FastLane::TextOne,
                false => FastLane::Text,
            },
        }
    }

    /// [`feed`](Parser::feed) of a chunk the fast test declined: the text and whether
    /// it is reasoning (borrowed from `chunk`), and whether events were queued.
    fn feed_slow<'a>(&mut self, chunk: &'a [u8]) -> (&'a str, bool, bool) {
        // Events left unread from an earlier push come before this chunk's; off the
        // text path (a character the last chunk cut, held bytes, a call) `push` reads
        // the chunk, after the two cases of those that this chunk may settle at once.
        let drained = self.queue.is_drained();
        let Some(table) = self.plain.filter(|_| drained) else {
            if drained && !self.utf8.is_empty() && !chunk.is_empty() {
                self.feed_after_char(chunk);
                return ("", false, true);
            }
            if let Some(reasoning) = drained.then(|| self.releases_held(chunk)).flatten() {
                // Held bytes that `chunk` shows are text: the text path reads on.
                self.queue.begin(&mut self.calls.spare);
                self.release_held(reasoning);
                self.update_plain();
            }
            self.push(chunk);
            return ("", false, true);
        };
        // Unless `feed`'s fast test already declined it (1 to 8 bytes with `fast` set):
        // longer chunks, other tables, the first chunk after events were read.
        // (`feed_rest` read those with `fast` set, of 1 to 8 bytes, as `declined`.)
        let declined = self.fast != FastLane::Off && (1..=8).contains(&chunk.len());
        if !declined {
            let reasoning = self.plain_reasoning;
            if let Some(text) = table.stop.all_plain(chunk) {
                self.take_declined(chunk, text, b"");
                return (text, reasoning, false);
            }
            if let Some((text, cut)) = table.stop.declined(chunk) {
                self.take_declined(chunk, text, cut);
                return (text, reasoning, false);
            }
        }
        let text = table.plain(chunk);
        let reasoning = self.plain_reasoning;
        let n = text.len();
        self.stats.pushed(n as u64);
        self.took_plain(&chunk[..n]);
        let tail = &chunk[n..];
        let mut queued = false;
        if !tail.is_empty() {
            // A character the chunk's end cuts is held here as `push` would hold it.
            let cut = self.start_char(tail);
            self.stats.pushed(cut as u64);
            if cut < tail.len() && !self.hold_marker_start(table, tail) {
                self.push(tail);
                queued = true;
            }
        }
        (text, reasoning, queued)
    }

    /// Hold `tail`, the end of a chunk on the text path, if a marker may still begin at
    /// its first byte (`a <`, `</`): `scan` finds that first (a partial match at its
    /// first candidate) and holds the whole tail, with no text before it to join (the
    /// text path stopped there) and nothing to emit. Returns whether it did.
    fn hold_marker_start(&mut self, table: &Table, tail: &[u8]) -> bool {
        if table.set.match_at(tail, 0) != (Found::Partial { start: 0 }) {
            return false;
        }
        self.hold_tail(tail);
        true
    }

    /// Hold `tail`, the start of a marker that ends a chunk on the text path.
    fn hold_tail(&mut self, tail: &[u8]) {
        self.held = SmallVec::from_slice(tail);
        self.shown = 0;
        self.stats.read_once(tail.len() as u64);
        self.update_plain();
    }

    /// [`feed`](Parser::feed) of a chunk that begins with the rest of a character the
    /// last chunk cut, with nothing queued: most often the character and plain text
    /// after it, queued as one run (the character comes first, so nothing of this chunk
    /// can be borrowed). Anything else goes through `push`.
    #[inline(never)]
    fn feed_after_char(&mut self, chunk: &[u8]) {
        self.queue.begin(&mut self.calls.spare);
        let used = self.finish_char(chunk);
        self.stats.pushed(used as u64);
        let rest = &chunk[used..];
        // `plain` is back only if the character was finished (`finish_char`).
        if let (Some(table), false) = (self.plain, rest.is_empty()) {
            if let Some(text) = table.stop.all_plain(rest) {
                self.stats.pushed(rest.len() as u64);
                self.queue.text_run(self.plain_reasoning).push_str(text);
                self.took_plain(rest);
                return;
            }
        }
        if !rest.is_empty() {
            self.push(rest);
        }
    }

    /// The text path's table where `utf8` holds a character it cut, if the table has a
    /// word check: no marker byte is then a continuation byte, so the rest of the
    /// character is text as it stands.
    fn char_table(&self) -> Option<&'static Table> {
        let (table, reasoning) = self.text_table()?;
        (reasoning == self.utf8.reasoning && table.stop.has_word_check()).then_some(table)
    }

    /// A chunk with the rest of the character the text path cut (`FastLane::Char`),
    /// then plain text: read as `feed_after_char` reads it, but the character and the
    /// text are handed to a [`Feed`], not queued: the character stays in `utf8.buf`
    /// ([`finished_char`](Self::finished_char)), the text is returned. `None`, with
    /// nothing read, for any other chunk.
    fn char_then_plain<'a>(&mut self, chunk: &'a [u8]) -> Option<&'a str> {
        let table = self.char_table()?;
        let held = self.utf8.len as usize;
        let width = utf8_len(self.utf8.buf[0]);
        let (end, rest) = chunk.split_at_checked(width.checked_sub(held)?)?;
        let text = table.stop.all_plain(rest)?;
        let mut whole = self.utf8.buf;
        // At most three bytes, a byte at a time: `copy_from_slice` of a length not known
        // here is a call.
        for (i, &b) in end.iter().enumerate() {
            if let Some(to) = whole.get_mut(held + i) {
                *to = b;
            }
        }
        crate::ascii::first_char(&whole)?;
        self.utf8.buf = whole;
        self.utf8.clear();
        let reasoning = self.utf8.reasoning;
        if !reasoning {
            self.last_text = 0;
        }
        self.stats.pushed(chunk.len() as u64);
        self.stats.examined(end.len() as u64);
        // What `update_plain` and `lane` would find: `char_table` is `text_table` with
        // the character's kind, and nothing is held now.
        self.plain = Some(table);
        self.plain_reasoning = reasoning;
        self.took_plain(rest);
        self.fast = self.plain_lane(table, reasoning);
        debug_assert!(self
            .plain_table()
            .is_some_and(|(t, r)| std::ptr::eq(t, table) && r == reasoning));
        Some(text)
    }

    /// The text path's table where `held` is one ASCII byte (and nothing is shown,
    /// no partial character held), if it has a word check: what `held_then_plain`
    /// needs besides the chunk.
    fn held_table(&self) -> Option<(&'static Table, bool)> {
        let (table, reasoning) = self.text_table_held()?;
        let one_ascii = self.held.len() == 1 && self.held[0].is_ascii();
        (one_ascii && self.shown == 0 && self.utf8.is_empty() && table.stop.has_word_check())
            .then_some((table, reasoning))
    }

    /// A chunk after one held byte (`FastLane::Held`) that rules out every marker the
    /// byte may begin, then plain text: `releases_held` would release the byte and the
    /// text path read the chunk. Read the same, but handed to a [`Feed`], not queued:
    /// the byte waits in `utf8.buf` as the character lane's character does
    /// ([`finished_char`](Self::finished_char)), the text is returned. `None`, with
    /// nothing read, for any other chunk.
    fn held_then_plain<'a>(&mut self, chunk: &'a [u8]) -> Option<&'a str> {
        let (table, reasoning) = self.held_table()?;
        // No byte of the chunk may begin a marker: only one at the held byte could.
        let text = table.stop.all_plain(chunk)?;
        let byte = self.held[0];
        // Most often the chunk's first two bytes rule the marker out by the word
        // check's sets; else `releases_held` asks the markers (and counts what it reads).
        if table.stop.rules_out(byte, chunk) {
            self.stats.examined(1 + chunk.len().min(2) as u64);
        } else if self.releases_held(chunk).is_none() {
            return None;
        }
        self.held.clear();
        self.utf8.buf = [byte, 0, 0, 0];
        self.utf8.reasoning = reasoning;
        self.stats.pushed(chunk.len() as u64);
        self.plain = Some(table);
        self.plain_reasoning = reasoning;
        if !reasoning {
            self.last_text = byte;
        }
        self.took_plain(text.as_bytes());
        self.fast = self.plain_lane(table, reasoning);
        debug_assert!(self
            .plain_table()
            .is_some_and(|(t, r)| std::ptr::eq(t, table) && r == reasoning));
        Some(text)
    }

    /// The character [`char_then_plain`](Self::char_then_plain) finished, or the byte
    /// [`held_then_plain`](Self::held_then_plain) released, for the [`Feed`] of its
    /// chunk: whole in `utf8.buf` until the next chunk is read.
    pub(crate) fn finished_char(&self) -> &str {
        self.utf8.finished()
    }

    /// Whether the held bytes are text once `chunk` follows them, and that is all there
    /// is to decide: held bytes alone (nothing shown, no joinable end of earlier text), a
    /// marker beginning only at their first byte and `chunk` ruling it out, and no byte
    /// of `chunk` that may begin one (so no marker or join spans the two). `scan` would
    /// release them and read `chunk` as text; the text path reads it the same. Returns
    /// whether the held bytes are reasoning when they are text.
    fn releases_held(&mut self, chunk: &[u8]) -> Option<bool> {
        let (table, reasoning) = self.text_table_held()?;
        let set = &table.set;
        if self.held.is_empty()
            || self.shown != 0
            || !self.utf8.is_empty()
            || chunk.is_empty()
            || self.held[1..]
                .iter()
                .chain(chunk)
                .any(|&b| set.starts_with_byte(b))
        {
            return None;
        }
        let take = chunk.len().min(set.max_len());
        let mut joined: SmallVec<[u8; 64]> = SmallVec::from_slice(&self.held);
        joined.extend_from_slice(&chunk[..take]);
        self.stats.examined(joined.len() as u64);
        (set.match_at(&joined, 0) == Found::None).then_some(reasoning)
    }

    /// Count `text`, taken by the text path, as read.
    #[inline]
    fn took_plain(&mut self, text: &[u8]) {
        self.stats.examined(text.len() as u64);
        if let (false, Some(&last)) = (self.plain_reasoning, text.last()) {
            self.last_text = last;
        }
    }

    /// Put the text a [`Feed`] did not hand out back into the queue, ahead of its other
    /// events: the character it finished (`char`, see [`finished_char`]), then the text
    /// it borrowed.
    ///
    /// [`finished_char`]: Self::finished_char
    #[inline(never)]
    pub(crate) fn unread_text(&mut self, char: bool, text: &str, reasoning: bool) {
        self.fast = FastLane::Off;
        // Each goes ahead of the rest: the text first, so the character before it.
        if !text.is_empty() {
            self.queue.unread(text, reasoning);
        }
        if char {
            self.queue.unread(self.utf8.finished(), reasoning);
        }
    }

    /// The table of the text path, and whether it is reasoning: in text or reasoning
    /// with nothing held (held bytes, a partial character or a joinable end of earlier
    /// text may join with what follows, which `scan` decides). Kept in `plain`.
    fn plain_table(&self) -> Option<(&'static Table, bool)> {
        self.text_table().filter(|_| self.utf8.is_empty())
    }

    /// Like [`plain_table`](Self::plain_table), whatever partial character is held.
    fn text_table(&self) -> Option<(&'static Table, bool)> {
        self.text_table_held().filter(|_| self.held.is_empty())
    }

    /// Like [`text_table`](Self::text_table), whatever bytes are held.
    fn text_table_held(&self) -> Option<(&'static Table, bool)> {
        let found = match self.mode {
            // Until visible text begins, start-only openers still count, and where a
            // name may be held every byte of text is looked at: slow path.
            Mode::Text if !self.at_start && !self.name_spot() && !self.names_after_text() => {
                (&self.tables.text, false)
            }
            Mode::Reasoning(i) => (&self.tables.reasoning[i as usize], true),
            _ => return None,
        };
        (!self.finished && self.text_tail.is_none()).then_some(found)
    }

    fn update_plain(&mut self) {
        let plain = self.plain_table();
        self.plain = plain.map(|(table, _)| table);
        self.plain_reasoning = plain.is_some_and(|(_, reasoning)| reasoning);
    }

    /// The text path, taken for most chunks of prose: in text or reasoning with nothing
    /// held, the bytes before the first one that could begin a marker where it stands
    /// or is not a whole UTF-8 character are text as they stand ([`Table::plain`]),
    /// appended to the open text run with no record. Returns how many bytes it took;
    /// `process` reads the rest.
    #[inline(always)]
    fn plain_text(&mut self, chunk: &[u8]) -> usize {
        let Some(table) = self.plain else {
            return 0;
        };
        let reasoning = self.plain_reasoning;
        let text = table.plain(chunk);
        if !text.is_empty() {
            self.queue.text_run(reasoning).push_str(text);
            self.took_plain(text.as_bytes());
        }
        text.len()
    }

    /// The call path for most chunks of a long string argument (a file's content):
    /// inside a string of the arguments with nothing held, the repairer's string run
    /// (plain bytes, whole simple escapes, whole characters) goes straight to the call,
    /// as `process` would send it through the grammar. Returns the bytes taken.
    ///
    /// A backslash or a quote the chunk ends with is held here (`byte_held`) rather
    /// than by the repairer, so that the escape it begins, or the byte after the quote
    /// that shows it is content, whole in the next chunk, stays on this path: small
    /// chunks split them often.
    fn args_string(&mut self, chunk: &[u8]) -> usize {
        let mut at;
        if let Some(held) = self.byte_held {
            if chunk.is_empty() {
                return 0;
            }
            self.byte_held = None;
            // The held byte and a small chunk make one run (a copy of at most 16 bytes);
            // a larger chunk's run follows the held byte's.
            let mut joined = [held; 16];
            let whole = chunk.len() < joined.len();
            let with = if whole { chunk } else { &chunk[..1] };
            joined[1..=with.len()].copy_from_slice(with);
            match self.string_run(&joined[..=with.len()]) {
                // The run took the held byte (a backslash only with its escape).
                Some(n) if n >= 1 => at = n - 1,
                _ => {
                    // Not a simple escape (`\u`, `\d`), or a quote that may end the
                    // string: the byte is read as usual.
                    self.process(&[held]);
                    self.update_plain();
                    return 0;
                }
            }
            if !whole {
                at += self.string_run(&chunk[at..]).unwrap_or(0);
            }
        } else {
            let Some(n) = self.string_run(chunk) else {
                return 0;
            };
            at = n;
        }
        // A run was read (`Some`): `in_string_arg` says the state still allows one.
        if at + 1 == chunk.len() && matches!(chunk[at], b'\\' | b'"') && self.in_string_arg {
            self.byte_held = Some(chunk[at]);
            at += 1;
        }
        at
    }

    /// The call path while a look-ahead weighs a quote in the arguments, for a chunk
    /// the lane did not take (it was closed): the same reading where the lane's
    /// conditions hold (`lookahead_ready`). Returns the bytes taken.
    fn args_lookahead(&mut self, chunk: &[u8]) -> usize {
        if !self.lookahead_ready() {
            return 0;
        }
        match self.lookahead_lane(chunk) {
            None => chunk.len(),
            Some((n, decided)) => {
                self.resolve_at_end(chunk, n, decided);
                n
            }
        }
    }

    /// After the look-ahead read `n` bytes of `chunk`: a verdict reached at its last byte
    /// is resolved at once, as `process` would have at that byte (the grammar runs with
    /// no input); one reached inside it, by the feed that reads the rest (`feed`
    /// resolves a kept verdict first).
    fn resolve_at_end(&mut self, chunk: &[u8], n: usize, decided: bool) {
        if decided && n == chunk.len() {
            let used = self.feed_call(&[]);
            debug_assert_eq!(used, 0);
            self.update_plain();
        }
    }

    /// Whether the parser is inside a string of the arguments with nothing held: where
    /// [`string_run`](Self::string_run) reads.
    fn in_idle_string_arg(&self) -> bool {
        match (&self.mode, &self.rep) {
            (Mode::Call { grammar, .. }, Some(work)) => {
                matches!(&**grammar, Grammar::Envelope(e) if e.in_args_string() && !e.forked())
                    && work.rep.in_idle_string()
            }
            _ => false,
        }
    }

    /// The repairer's string run over `input`, written to the call; `None` when the
    /// input is not inside a string of the arguments with nothing held. Inlined into
    /// `push_rest`: a long string's every chunk comes here, and the call's frame cost
    /// the 19 KB call's chunks about 2 % (the repairer's `string_run`, inlined too,
    /// cost more than it saved).
    #[inline(always)]
    fn string_run(&mut self, input: &[u8]) -> Option<usize> {
        if !self.in_string_arg {
            if !self.in_idle_string_arg() {
                return None;
            }
            self.in_string_arg = true;
        }
        debug_assert!(self.in_idle_string_arg());
        let (Mode::Call { .. }, Some(work)) = (&mut self.mode, &mut self.rep) else {
            return None;
        };
        // The body limit counts raw bytes, as `feed_call` does.
        let budget = self.config.limits.max_args_bytes.saturating_sub(work.body);
        let input = &input[..input.len().min(budget)];
        let mut sink = Sink {
            calls: &mut self.calls,
            queue: &mut self.queue,
            config: &self.config,
            stats: &mut self.stats,
        };
        let CallWork {
            rep, scratch, body, ..
        } = &mut **work;
        // A run writes at most six bytes per byte read (a control byte as `\u00XX`):
        // straight into the call's buffer where it can; else through `scratch` and
        // `string_args`, as `process` would; near the size limit, `process` decides.
        let room = input.len() * 6;
        let direct = sink.string_buffer(room).map(|args| {
            let from = args.len();
            (rep.pass_idle_string(input, args), from)
        });
        let (n, written) = match direct {
            Some((n, from)) => {
                sink.string_written(from);
                (n, Ok(()))
            }
            None if sink.args_fit(room) => {
                scratch.clear();
                let n = rep.pass_idle_string(input, scratch);
                (n, sink.string_args(scratch))
            }
            None => return None,
        };
        if n == 0 {
            return Some(0);
        }
        *body += n;
        self.stats.examined(rep.take_work());
        match written {
            Ok(()) => Some(n),
            // Not reached (`args_fit`), but handled as `feed_call` would.
            Err(why) => Some(self.abort_to_skip(why, n)),
        }
    }

    /// The end of a character split across pushes, at the start of `chunk`, read on
    /// the text path (prose in small chunks splits characters often): when nothing else
    /// is held and its bytes cannot begin a marker, the character is text as `scan`
    /// would find it. Returns the bytes taken: none when `scan` must decide.
    fn finish_char(&mut self, chunk: &[u8]) -> usize {
        let reasoning = self.utf8.reasoning;
        let Some((table, _)) = self.text_table().filter(|&(_, r)| r == reasoning) else {
            return 0;
        };
        let held = self.utf8.len as usize;
        let width = utf8_len(self.utf8.buf[0]);
        let Some(rest) = chunk.get(..width.saturating_sub(held)) else {
            return 0;
        };
        if rest.is_empty() || rest.iter().any(|&b| table.set.starts_with_byte(b)) {
            return 0;
        }
        let mut whole = self.utf8.buf;
        whole[held..width].copy_from_slice(rest);
        let Ok(char) = std::str::from_utf8(&whole[..width]) else {
            return 0;
        };
        self.queue.text_run(reasoning).push_str(char);
        self.utf8.clear();
        if !reasoning {
            self.last_text = 0;
        }
        self.stats.examined(rest.len() as u64);
        self.update_plain();
        rest.len()
    }

    /// A character split at the end of a chunk on the text path: `rest` is its first
    /// bytes and none can begin a marker, so it is held for the next push as `scan`
    /// would hold it. Returns the bytes taken: none when `scan` must decide.
    fn start_char(&mut self, rest: &[u8]) -> usize {
        let Some(table) = self.plain else {
            return 0;
        };
        if rest.len() >= utf8_len(rest[0])
            || rest.iter().any(|&b| table.set.starts_with_byte(b))
            || !std::str::from_utf8(rest).is_err_and(|e| e.error_len().is_none())
        {
            return 0;
        }
        self.hold_char(rest);
        rest.len()
    }

    /// Hold `rest`, the first bytes of a character cut by the chunk's end on the text
    /// path (checked by the caller), for the next push.
    fn hold_char(&mut self, rest: &[u8]) {
        for &b in rest {
            self.utf8.push(b);
        }
        self.utf8.reasoning = self.plain_reasoning;
        if !self.plain_reasoning {
            self.last_text = 0;
        }
        self.stats.examined(rest.len() as u64);
        self.plain = None;
    }

    /// Push one token by id. When the id is one of
    /// [`Config::special_tokens`], its bytes are a whole marker: bytes held back as a
    /// possible marker before it are released at once (unless the marker is stripped:
    /// text on both sides of it is read as one). The result is the same as pushing the
    /// bytes as text.
    pub fn push_token(&mut self, id: u32, bytes: &[u8]) {
        if self.config.special_tokens.contains(&id)
            && !self.held.is_empty()
            && matches!(self.mode, Mode::Text | Mode::Reasoning(_))
        {
            self.queue.begin(&mut self.calls.spare);
            // A special token cannot complete a marker begun in text before it.
            let probe: SmallVec<[u8; 64]> = self.held.iter().chain(bytes).copied().collect();
            let table = self.table();
            let release = match table.set.find(&probe) {
                Found::Full { id, start, .. } => {
                    start >= self.held.len() && !matches!(table.actions[id], Action::Strip)
                }
                Found::Partial { .. } => false,
                Found::None => true,
            };
            if release {
                let reasoning = matches!(self.mode, Mode::Reasoning(_));
                self.release_held(reasoning);
            }
        }
        self.push(bytes);
    }

    /// End the stream. Open calls are reported as truncated; an `End` event follows.
    pub fn finish(&mut self, stop: StopReason) {
        self.fast = FastLane::Off;
        if self.finished {
            return;
        }
        if let Some(held) = self.byte_held.take() {
            self.process(&[held]);
        }
        self.finished = true;
        self.stop_reason = stop;
        self.plain = None;
        self.queue.begin(&mut self.calls.spare);
        self.finish_mode();
        self.show_name();
        if !self.utf8.is_empty() {
            self.utf8.clear();
            let reasoning = self.utf8.reasoning;
            self.queue.text("\u{fffd}", reasoning);
        }
        let truncated = self.calls.truncated;
        self.queue.end(stop, truncated);
    }

    fn sink(&mut self) -> (Sink<'_>, &mut Mode) {
        (
            Sink {
                calls: &mut self.calls,
                queue: &mut self.queue,
                config: &self.config,
                stats: &mut self.stats,
            },
            &mut self.mode,
        )
    }

    /// The repairer and its output buffer, built on first use.
    #[inline]
    fn work(work: &mut Option<Box<CallWork>>) -> &mut CallWork {
        work.get_or_insert_with(|| {
            Box::new(CallWork {
                rep: Repairer::new(Options::default()),
                scratch: Vec::new(),
                body: 0,
                spare_grammar: None,
                name: Vec::new(),
                names_paused: false,
            })
        })
    }

    /// The repairer, built on first use.
    fn rep(work: &mut Option<Box<CallWork>>) -> &mut Repairer {
        &mut Parser::work(work).rep
    }

    fn table(&self) -> &Table {
        match self.mode {
            Mode::Reasoning(i) => &self.tables.reasoning[i as usize],
            _ => &self.tables.text,
        }
    }

    fn process(&mut self, mut input: &[u8]) {
        self.in_string_arg = false;
        while !input.is_empty() {
            let used = match self.mode {
                Mode::Text => self.scan(input, false),
                Mode::Reasoning(_) => self.scan(input, true),
                Mode::Call { .. } => self.feed_call(input),
                Mode::AfterCall(_) => self.after_call(input),
                Mode::Skip { .. } => self.skip(input),
            };
            self.stats.examined(used as u64);
            input = &input[used..];
        }
    }

    // ---- text and reasoning ----

    fn scan(&mut self, input: &[u8], reasoning: bool) -> usize {
        if let Some(tail) = self.text_tail.take_if(|_| !reasoning) {
            // Text again after reasoning or a call: it continues the visible text.
            if self.held.is_empty() {
                self.shown = tail.len() as u8;
                self.held = *tail;
            }
        }
        if !self.held.is_empty() {
            let h = self.held.len();
            let shown = self.shown as usize;
            let max = self.table().set.max_len();
            let take = input.len().min(max);
            let mut tmp: SmallVec<[u8; 64]> = SmallVec::from_slice(&self.held);
            tmp.extend_from_slice(&input[..take]);
            self.stats.examined(tmp.len() as u64);
            let found = self.find_acting(&tmp, shown, reasoning);
            match found {
                Found::Partial { start } if start >= h && self.joinable(&tmp[..start]) > 0 => {
                    self.hold_from(&tmp, shown, start, tmp.len(), reasoning);
                    return take;
                }
                Found::Full { id, start, end }
                    if start >= h
                        && matches!(self.table().actions[id], Action::Strip)
                        && self.joinable(&tmp[..start]) > 0 =>
                {
                    self.hold_from(&tmp, shown, start, start, reasoning);
                    self.act(Action::Strip);
                    return end - h;
                }
                Found::Full { id, start, .. }
                    if start >= h && matches!(self.table().actions[id], Action::Strip) =>
                {
                    self.release_held(reasoning);
                    return 0;
                }
                Found::Partial { start } if start >= h => {
                    self.release_held(reasoning);
                    return 0;
                }
                Found::None => {
                    self.release_held(reasoning);
                    return 0;
                }
                Found::Partial { start } => {
                    self.hold_from(&tmp, shown, start, tmp.len(), reasoning);
                    return take;
                }
                Found::Full { start, end, .. } if start < shown => {
                    return self.break_joined(&tmp, h, end);
                }
                Found::Full { id, start, end } => {
                    let action = self.table().actions[id];
                    if matches!(action, Action::Strip) {
                        self.hold_from(&tmp, shown, start, start, reasoning);
                    } else {
                        self.release_held_to(&tmp, start, reasoning);
                        self.keep_text_tail(&tmp[..start], reasoning);
                    }
                    self.act(action);
                    if end <= h {
                        let rest: SmallVec<[u8; 64]> = SmallVec::from_slice(&tmp[end..h]);
                        self.process(&rest);
                        return 0;
                    }
                    return end - h;
                }
            }
        }
        let found = self.find_acting(input, 0, reasoning);
        match found {
            Found::None => {
                self.emit_text(input, reasoning);
                input.len()
            }
            Found::Partial { start } => {
                self.hold_from(input, 0, start, input.len(), reasoning);
                input.len()
            }
            Found::Full { id, start, end } => {
                let action = self.table().actions[id];
                if matches!(action, Action::Strip) {
                    self.hold_from(input, 0, start, start, reasoning);
                } else {
                    self.emit_text(&input[..start], reasoning);
                    self.keep_text_tail(&input[..start], reasoning);
                }
                self.act(action);
                end
            }
        }
    }

    /// The longest end of `before` that is the beginning of a marker: text that a
    /// marker removed right after it could join with what follows into a new marker.
    fn joinable(&self, before: &[u8]) -> usize {
        joinable(&self.table().set, before)
    }

    /// Emit `bytes[..start]` as text except its joinable end, and hold that end followed
    /// by `bytes[start..until]`: after a stripped marker (or while a marker is still
    /// undecided) the text before it is not final, so `</tool_c` + `</tool_call>` +
    /// `all>` never shows a `</tool_call>` made of the text around the removed one: the
    /// joined text reads as if written contiguously.
    ///
    /// The held end may itself vanish into a removed marker later (`<tool` + `<|im_` +
    /// `</function>` + `end|>` + `_call>`): then the text shown before it joins with what
    /// follows. So the joinable end of the text shown is kept in front of the held bytes
    /// (the first `shown` bytes of `bytes` are shown already, and never emitted again);
    /// a marker that would begin in it is broken (see [`Parser::break_joined`]).
    fn hold_from(
        &mut self,
        bytes: &[u8],
        shown: usize,
        start: usize,
        until: usize,
        reasoning: bool,
    ) {
        let keep = self.joinable(&bytes[..start]);
        let final_to = start - keep;
        // Nothing before a non-joinable end can join with anything (`keep` is 0 for
        // plain text, so this costs nothing there).
        let context = if keep > 0 {
            self.joinable(&bytes[..final_to])
        } else {
            0
        };
        let from = final_to - context;
        let held: SmallVec<[u8; 24]> = SmallVec::from_slice(&bytes[from..until]);
        self.held.clear();
        if final_to > shown {
            self.emit_text(&bytes[shown..final_to], reasoning);
        }
        self.shown = (final_to.max(shown) - from) as u8;
        self.held = held;
    }

    /// A marker would begin in text already shown: it was joined across a removed
    /// marker, deeper than the held bytes reach. It is broken, not shown and not acted
    /// on: its bytes not shown yet are dropped (the shown ones stay text, as any text
    /// that merely begins like a marker). `tmp` is the held bytes (`h` of them) and what
    /// follows; returns the input bytes consumed.
    fn break_joined(&mut self, tmp: &[u8], h: usize, end: usize) -> usize {
        let shown = self.shown as usize;
        // The shown end stays the visible end: what follows still joins with it.
        self.held.truncate(shown);
        if end < h {
            let rest: SmallVec<[u8; 64]> = SmallVec::from_slice(&tmp[end..h]);
            self.process(&rest);
            return 0;
        }
        end - h
    }

    /// The first marker in `hay` (whose first `shown` bytes are shown already) that acts
    /// where it stands, or the start of a partial one. A weak opener inside a line is
    /// text, and the search goes on past its first byte: the text before it is still
    /// undecided, so it can be held like any text before a marker. A marker that would
    /// begin in the shown bytes was joined across a removed one (see `break_joined`).
    fn find_acting(&self, hay: &[u8], shown: usize, reasoning: bool) -> Found {
        let set = &self.table().set;
        let mut from = 0;
        loop {
            match set.find(&hay[from..]) {
                Found::Full { id, start, end } => {
                    let start = from + start;
                    // A marker inside the shown text was text when it was shown.
                    if from + end > shown
                        && self.anchor_ok(self.table().actions[id], hay, shown, start, reasoning)
                    {
                        return Found::Full {
                            id,
                            start,
                            end: from + end,
                        };
                    }
                    from = start + 1;
                }
                Found::Partial { start } => {
                    return Found::Partial {
                        start: from + start,
                    }
                }
                Found::None => return Found::None,
            }
        }
    }

    /// Weak openers count only at the start of a line, start-only ones only before any
    /// visible text: judged at `hay[at]`, as if the text before it were emitted.
    fn anchor_ok(
        &self,
        action: Action,
        hay: &[u8],
        shown: usize,
        at: usize,
        reasoning: bool,
    ) -> bool {
        // Text not shown yet counts as if it were; inside the shown text, the byte
        // before tells (right after it, a removed marker began a line).
        let before = &hay[shown.min(at)..at];
        match action {
            // A name-before opener acts wherever it stands: a call when a name is held
            // before it, markup otherwise (`Parser::act`).
            Action::Call(form) if form.name_before => true,
            // In `auto` with no tools declared, markerless calls count only as the whole
            // output: a fence within prose is prose (but not a fence that says it holds
            // a call).
            Action::Call(form)
                if form.heuristic
                    && !form.labelled
                    && !form.start_only
                    && self.config.dialect == Dialect::Auto
                    && self.config.tools.is_empty() =>
            {
                false
            }
            Action::Call(form) if form.start_only => {
                self.at_start && (reasoning || before.iter().all(u8::is_ascii_whitespace))
            }
            // Past the call limit a weak opener is text: it has no call to begin.
            Action::Call(form) if form.anchored => {
                let line_start = match hay[..at].last() {
                    Some(&b) if !reasoning && (at < shown || !before.is_empty()) => b == b'\n',
                    _ => self.last_text == b'\n',
                };
                line_start && (self.calls.next_index as usize) < self.config.limits.max_calls
            }
            _ => true,
        }
    }

    /// Text is left for reasoning or a call: keep the joinable end of the visible text
    /// (`before` is what precedes the marker) for the text that follows them.
    fn keep_text_tail(&mut self, before: &[u8], reasoning: bool) {
        if reasoning {
            return;
        }
        let n = joinable(&self.tables.text.set, before);
        self.text_tail =
            (n > 0).then(|| Box::new(SmallVec::from_slice(&before[before.len() - n..])));
    }

    /// Emit the held bytes not shown yet, and hold nothing.
    fn release_held(&mut self, reasoning: bool) {
        let held = std::mem::take(&mut self.held);
        let shown = std::mem::take(&mut self.shown) as usize;
        self.emit_text(&held[shown..], reasoning);
    }

    /// Emit `tmp[..to]` (the held bytes and what follows) except what is shown already,
    /// and hold nothing.
    fn release_held_to(&mut self, tmp: &[u8], to: usize, reasoning: bool) {
        let shown = std::mem::take(&mut self.shown) as usize;
        self.held.clear();
        if to > shown {
            self.emit_text(&tmp[shown..to], reasoning);
        }
    }

    fn emit_text(&mut self, bytes: &[u8], reasoning: bool) {
        if reasoning || !(self.tables.name_before || self.name_held()) {
            return self.emit_shown(bytes, reasoning);
        }
        let rest = self.hold_name(bytes, false);
        if rest.is_empty() {
            return;
        }
        self.show_name();
        let from = self.name_after_text(rest);
        self.emit_shown(&rest[..from], false);
        if from < rest.len() {
            let left = self.hold_name(&rest[from..], true);
            if !left.is_empty() {
                self.show_name();
                self.emit_shown(left, false);
            }
        }
    }

    /// Whether a call's name may also follow visible text (`Sure: get_weather[ARGS]{..}`,
    /// the `[TOOL_CALLS]` swallowed): in a named dialect with an opener that follows its
    /// tool name. Then every text byte takes the slow path, which holds the identifier
    /// that ends the text until what follows shows whether it is a name.
    fn names_after_text(&self) -> bool {
        self.tables.name_before
            && self.config.dialect != Dialect::Auto
            && !self.finished
            && !self.rep.as_ref().is_some_and(|w| w.names_paused)
    }

    /// Where the identifier (and the blanks after it) that ends `text` begins, when it
    /// may be a call's name after visible text ([`names_after_text`]): it begins with a
    /// letter or `_` after a byte that is not a name's. `text.len()` when none is.
    ///
    /// [`names_after_text`]: Self::names_after_text
    fn name_after_text(&self, text: &[u8]) -> usize {
        if !self.names_after_text() {
            return text.len();
        }
        let end = text.trim_ascii_end().len();
        let ident = text[..end]
            .iter()
            .rev()
            .take_while(|&&b| crate::calls::is_name_byte(b))
            .count();
        let from = end - ident;
        let before = if from > 0 {
            text[from - 1]
        } else {
            self.last_text
        };
        let starts = |b: u8| b.is_ascii_alphabetic() || b == b'_';
        if ident == 0 || crate::calls::is_name_byte(before) || !starts(text[from]) {
            return text.len();
        }
        from
    }

    /// Whether an identifier of visible text may be held as the name of a call whose
    /// opener follows it (see [`Parser::name_spot`]), before the end of the stream.
    fn holds_names(&self) -> bool {
        self.name_spot() && !self.finished
    }

    /// Hold what of `bytes` may still be a call's name (an identifier, then blanks) and
    /// return the rest, from the first byte that shows it is none: the held name is
    /// then text, shown before the rest. Blanks before the name are shown at once. The
    /// decision is per byte, so it does not depend on how the text was cut. Under
    /// `auto` the identifier must begin a declared tool's name; it is bounded by
    /// `max_name_bytes`.
    fn hold_name<'b>(&mut self, mut bytes: &'b [u8], after_text: bool) -> &'b [u8] {
        let continued = self.name_held() && self.names_after_text();
        if !self.holds_names() && !after_text && !continued {
            return bytes;
        }
        if !self.name_held() {
            let blanks = bytes.iter().take_while(|b| b.is_ascii_whitespace()).count();
            if blanks > 0 {
                self.emit_shown(&bytes[..blanks], false);
                bytes = &bytes[blanks..];
            }
            if !bytes
                .first()
                .is_some_and(|&b| crate::calls::is_name_byte(b))
            {
                return bytes;
            }
        }
        let max = self.config.limits.max_name_bytes;
        let auto = self.config.dialect == Dialect::Auto;
        let tools = &self.config.tools;
        let name = &mut Parser::work(&mut self.rep).name;
        for (i, &b) in bytes.iter().enumerate() {
            let ident = name.iter().take_while(|c| !c.is_ascii_whitespace()).count();
            let takes = if b.is_ascii_whitespace() {
                ident > 0
            } else {
                ident == name.len() && crate::calls::is_name_byte(b) && {
                    // Under `auto`, only what begins a declared tool's name.
                    let begins = |t: &crate::schema::Tool| {
                        let n = t.name().as_bytes();
                        n.len() > ident && n[..ident] == name[..] && n[ident] == b
                    };
                    !auto || tools.iter().any(begins)
                }
            };
            if !takes || name.len() >= max {
                return &bytes[i..];
            }
            name.push(b);
        }
        &[]
    }

    /// Whether text here may begin with the name of a call whose opener follows it: in a
    /// dialect with such an opener (under `auto` only with tools declared), at the
    /// start of the output or with no text but blanks since a call began.
    fn name_spot(&self) -> bool {
        self.tables.name_before
            && (self.at_start || self.calls.next_index > self.calls_at_text)
            && (self.config.dialect != Dialect::Auto || !self.config.tools.is_empty())
    }

    /// Whether a name is held (see [`Parser::hold_name`]).
    fn name_held(&self) -> bool {
        self.rep.as_ref().is_some_and(|work| !work.name.is_empty())
    }

    /// Show the held name as text: what followed it was not a call's opener.
    fn show_name(&mut self) {
        if !self.name_held() {
            return;
        }
        let work = Parser::work(&mut self.rep);
        let name = std::mem::take(&mut work.name);
        self.emit_shown(&name, false);
        // Keep the storage for the next output.
        let work = Parser::work(&mut self.rep);
        work.name = name;
        work.name.clear();
    }

    /// Take the held name for a call whose opener follows it (`CallForm::name_before`):
    /// under `auto` a declared tool's, under a named dialect any identifier; `None`
    /// (the name, if any, shown as text) otherwise.
    fn take_name(&mut self) -> Option<Vec<u8>> {
        if !self.name_held() {
            return None;
        }
        let held = &Parser::work(&mut self.rep).name;
        let ident = std::str::from_utf8(held.trim_ascii_end()).unwrap_or("");
        let named = match self.config.dialect {
            Dialect::Auto => self.config.tools.get(ident).is_some(),
            _ => crate::calls::is_name(ident),
        };
        if !named {
            self.show_name();
            return None;
        }
        Some(std::mem::take(&mut Parser::work(&mut self.rep).name))
    }

    fn emit_shown(&mut self, mut bytes: &[u8], reasoning: bool) {
        if bytes.is_empty() {
            return;
        }
        if !reasoning {
            self.last_text = bytes[bytes.len() - 1];
            if !bytes.iter().all(u8::is_ascii_whitespace) {
                self.at_start = false;
                self.calls_at_text = self.calls.next_index;
            }
            if let Some(tail) = self.text_tail.take() {
                // Text shown while another mode runs (a rejected body, blanks after a
                // call) extends the visible text the next text joins with.
                let mut joined = *tail;
                let most = self.tables.text.set.max_len();
                joined.extend_from_slice(&bytes[bytes.len().saturating_sub(most)..]);
                self.keep_text_tail(&joined, false);
            }
        }
        if !self.utf8.is_empty() {
            if self.utf8.reasoning != reasoning {
                self.utf8.clear();
                self.queue.text("\u{fffd}", self.utf8.reasoning);
            } else {
                // Decide the held character with the same rule as whole text
                // (`from_utf8`), so the replacements do not depend on the split.
                let held = self.utf8.len as usize;
                let mut probe: SmallVec<[u8; 8]> = SmallVec::from_slice(self.utf8.as_slice());
                probe.extend_from_slice(&bytes[..bytes.len().min(4 - held)]);
                let used = match std::str::from_utf8(&probe) {
                    Ok(_) => probe.len(),
                    Err(e) if e.valid_up_to() > 0 => e.valid_up_to(),
                    Err(e) => match e.error_len() {
                        None => {
                            // Still incomplete: every byte given is held.
                            self.utf8.clear();
                            for &c in &probe {
                                self.utf8.push(c);
                            }
                            return;
                        }
                        Some(bad) => {
                            self.utf8.clear();
                            self.queue.text("\u{fffd}", reasoning);
                            bytes = &bytes[bad.saturating_sub(held)..];
                            0
                        }
                    },
                };
                if used > 0 {
                    // `probe[..used]` holds whole characters; the first is the held one.
                    let first = utf8_len(probe[0]).min(used);
                    self.utf8.clear();
                    let text = std::str::from_utf8(&probe[..first]).unwrap_or("\u{fffd}");
                    self.queue.text(text, reasoning);
                    bytes = &bytes[first - held..];
                }
            }
        }
        loop {
            match std::str::from_utf8(bytes) {
                Ok(s) => {
                    self.queue.text(s, reasoning);
                    return;
                }
                Err(e) => {
                    let valid = e.valid_up_to();
                    let prefix = std::str::from_utf8(&bytes[..valid]).unwrap_or_default();
                    self.queue.text(prefix, reasoning);
                    match e.error_len() {
                        None => {
                            for &c in &bytes[valid..] {
                                self.utf8.push(c);
                            }
                            self.utf8.reasoning = reasoning;
                            return;
                        }
                        Some(n) => {
                            self.queue.text("\u{fffd}", reasoning);
                            bytes = &bytes[valid + n..];
                        }
                    }
                }
            }
        }
    }

    fn act(&mut self, action: Action) {
        if let Action::InReasoning(opener) = action {
            self.stats.calls_in_reasoning += 1;
            self.emit_shown(opener, true);
            return;
        }
        if let Action::Strip = action {
            self.stats.markup_stripped += 1;
        }
        // A marker is a boundary: what follows it starts a line.
        self.last_text = b'\n';
        if !matches!(action, Action::Call(form) if form.name_before || form.name_told) {
            // Only the opener it is the name of follows a held name.
            self.show_name();
        }
        match action {
            Action::Reason(i) => self.mode = Mode::Reasoning(i as u16),
            Action::EndReason => self.mode = Mode::Text,
            Action::Strip | Action::InReasoning(_) => {}
            Action::Call(form) if form.name_before => {
                // With no name before it (or in reasoning), the opener is markup.
                let name = match self.mode {
                    Mode::Text => self.take_name(),
                    _ => None,
                };
                if let Some(name) = name {
                    self.start_call(form, None);
                    // The blanks after the name are framing, not the body's.
                    let ident = name.trim_ascii_end();
                    if matches!(self.mode, Mode::Call { .. }) {
                        self.process(ident);
                    }
                    if matches!(self.mode, Mode::Call { .. }) {
                        self.process(form.body_prefix);
                    }
                    let work = Parser::work(&mut self.rep);
                    if work.name.is_empty() {
                        // Keep the storage for the next output.
                        work.name = name;
                        work.name.clear();
                    }
                }
            }
            Action::Call(form) if form.name_told => {
                // A word that ends a line or a sentence (`the weather.\n`) is prose, not
                // the name of the call that follows.
                let prose = self.rep.as_ref().is_some_and(|w| {
                    let ident = w.name.trim_ascii_end();
                    ident.len() < w.name.len() && w.name[ident.len()..].contains(&b'\n')
                        || ident.ends_with(b".")
                });
                if prose {
                    self.show_name();
                }
                let name = match self.mode {
                    Mode::Text => self.take_name(),
                    _ => None,
                };
                let within = match self.mode {
                    Mode::Reasoning(i) => Some(i),
                    _ => None,
                };
                self.start_call(form, within);
                if let Some(name) = name {
                    if matches!(self.mode, Mode::Call { .. }) {
                        let ident = String::from_utf8_lossy(name.trim_ascii_end()).into_owned();
                        self.sink().0.told_name(&ident);
                    }
                    let work = Parser::work(&mut self.rep);
                    if work.name.is_empty() {
                        work.name = name;
                        work.name.clear();
                    }
                }
                if !form.body_prefix.is_empty() && matches!(self.mode, Mode::Call { .. }) {
                    self.process(form.body_prefix);
                }
            }
            Action::Call(form) => {
                let within = match self.mode {
                    Mode::Reasoning(i) => Some(i),
                    _ => None,
                };
                self.start_call(form, within);
                if !form.body_prefix.is_empty() && matches!(self.mode, Mode::Call { .. }) {
                    self.process(form.body_prefix);
                }
            }
        }
    }

    // ---- calls ----

    fn start_call(&mut self, form: &'static CallForm, within: Option<u16>) {
        self.calls.heuristic = form.heuristic;
        self.calls.labelled = form.labelled;
        let tentative = self.tentative(form);
        let (mut sink, ..) = self.sink();
        if form.anchored || tentative || matches!(form.body, Body::Harmony(_)) {
            // A weak opener or a header: the call begins only if what follows is one.
            sink.calls.pending_implies = form.implies;
        } else if !sink.begin(form.implies) {
            self.mode = Mode::Skip {
                closer: form.closer,
                matched: 0,
            };
            return;
        }
        let (alt, native) = match &form.body {
            Body::NameArgs(spec) => (spec.alt_string, spec.native_repairs()),
            Body::Pythonic(_) => (&b""[..], crate::grammar::python_native()),
            _ => (&b""[..], Repairs::NONE),
        };
        let limits = &self.config.limits;
        // A JSON call object names its tool before its arguments: the repairer learns
        // the tool there and checks argument keys against its schema.
        let tool_by_name = (!self.config.tools.is_empty()
            && matches!(form.body, Body::Envelope(_) | Body::Sniff(_)))
        .then(|| ToolByName {
            tools: self.config.tools.clone(),
            args_depth: 2,
        });
        // A JSON envelope's call object: an object where a key belongs is its arguments.
        let envelope = match &form.body {
            Body::Envelope(spec) => Some(*spec),
            Body::Sniff(bodies) => bodies.iter().find_map(|b| match b {
                Body::Envelope(spec) => Some(*spec),
                _ => None,
            }),
            _ => None,
        };
        let keyless_key = envelope
            .filter(|spec| !spec.name_is_key)
            .and_then(|spec| spec.args_keys.first())
            .map_or(&b""[..], |(key, _)| key.as_bytes());
        let options = Options {
            max_depth: limits.max_depth,
            lookahead: limits.lookahead,
            max_held: limits.max_held_bytes,
            terminators: MarkerSet::default(),
            alt_string: alt,
            keys: KeyCheck::default(),
            python: false,
            tool_by_name,
            keyless_key,
            log_repairs: envelope.is_some(),
        };
        let rep = Parser::rep(&mut self.rep);
        rep.reset();
        rep.set_call_options(form as *const CallForm as usize, options, || {
            call_terminators(form)
        });
        if matches!(form.body, Body::Envelope(_)) {
            rep.set_policy(Policy::ARMED);
        }
        // Lock `auto` only on a body that is certainly a call: a sniffed body locks when
        // chosen, and a weak opener or a harmony header may turn out not to be one.
        let weak = tentative || ((form.anchored || form.heuristic) && !form.labelled);
        if !weak && !matches!(form.body, Body::Sniff(_) | Body::Harmony(_)) {
            self.lock(&form.body, form);
        }
        let work = Parser::work(&mut self.rep);
        work.body = 0;
        let grammar = match work.spare_grammar.take() {
            Some(mut spare) => {
                *spare = Grammar::new(&form.body, form.closer, weak);
                spare
            }
            None => Box::new(Grammar::new(&form.body, form.closer, weak)),
        };
        self.mode = Mode::Call {
            form,
            grammar,
            within,
            native,
        };
    }

    /// Whether `form`'s opener is also a wrapper that a dialect in force strips (Olmo's
    /// `<function_calls>` is DSML's section without its prefix): in `auto` the call
    /// begins only if its body is this form's; otherwise the opener is dropped and what
    /// follows is read as text, with its own markers.
    /// Only a dialect listed before the form's in `auto` counts (a later one that
    /// strips a wrapper of the same spelling, MiniMax M3's `<tool_call>`, reads it as
    /// its own only when named).
    fn tentative(&self, form: &'static CallForm) -> bool {
        if self.config.dialect != Dialect::Auto || self.locked.is_some() {
            return false;
        }
        let specs = auto_specs();
        let own = specs
            .iter()
            .position(|spec| spec.calls.iter().any(|f| std::ptr::eq(f, form)))
            .unwrap_or(specs.len());
        specs[..own]
            .iter()
            .any(|spec| spec.strip.contains(&form.opener))
    }

    /// Whether the part of a marker that `tail` ends with could only have begun openers
    /// that are text when they begin no call (a fence: ```` ``` ```` ending the output).
    fn only_text_like(&self, tail: &[u8]) -> bool {
        let table = self.table();
        let ids = 0..table.actions.len();
        (0..tail.len())
            .map(|p| {
                ids.clone()
                    .filter(|&id| table.set.get(id).starts_with(&tail[p..]))
                    .collect::<SmallVec<[usize; 8]>>()
            })
            .find(|begun| !begun.is_empty())
            .is_some_and(|begun| {
                begun.iter().all(
                    |&id| matches!(table.actions[id], Action::Call(f) if f.heuristic || f.anchored),
                )
            })
    }

    fn feed_call(&mut self, whole: &[u8]) -> usize {
        let mut chosen = None;
        // The arguments size limit counts the call's raw body bytes, so the call ends at
        // the same byte however the input is chunked.
        let body = &mut Parser::work(&mut self.rep).body;
        let budget = self.config.limits.max_args_bytes.saturating_sub(*body);
        let input = &whole[..whole.len().min(budget)];
        *body += input.len();
        // (No input at all only resolves what the look-ahead decided: `resolve_at_end`.)
        if input.is_empty() && !whole.is_empty() {
            return self.abort_to_skip(Abort::TooLarge, 0);
        }
        let step = {
            let Parser {
                calls,
                queue,
                config,
                stats,
                rep,
                mode,
                ..
            } = self;
            let Mode::Call { form, grammar, .. } = mode else {
                unreachable!()
            };
            let mut sink = Sink {
                calls,
                queue,
                config,
                stats,
            };
            let CallWork { rep, scratch, .. } = Parser::work(rep);
            let step = grammar.feed(input, &mut sink, rep, scratch, form.closer, &mut chosen);
            sink.stats.examined(grammar.take_work(rep));
            step
        };
        if let Some(body) = chosen {
            let Mode::Call { form, .. } = &self.mode else {
                unreachable!()
            };
            let form = *form;
            self.lock(body, form);
        }
        match step {
            Step::NeedMore => input.len(),
            Step::Ended {
                consumed,
                closer_seen,
            } => {
                let form = match &self.mode {
                    Mode::Call { form, .. } => *form,
                    _ => unreachable!(),
                };
                // A marker other than the closer ended the body: read it again after
                // this call (the next call's opener, an end-of-turn token).
                let other = match self.rep.as_ref().and_then(|w| w.rep.terminated_by()) {
                    Some(m) if closer_seen && m != form.closer => m,
                    _ => b"",
                };
                if !other.is_empty() {
                    // The body was cut, not finished: no `{}` for missing arguments.
                    self.sink().0.cut();
                }
                let mut leftover = self.end_body(closer_seen && other.is_empty());
                leftover.splice(0..0, other.iter().copied());
                if !leftover.is_empty() {
                    self.process(&leftover);
                }
                consumed
            }
            Step::Reject { consumed } => {
                self.give_back();
                consumed
            }
            Step::Abort { why, consumed } => self.abort_to_skip(why, consumed),
            Step::Switch {
                consumed,
                reasoning,
            } => {
                self.calls.pending_implies = None;
                let close = match &self.mode {
                    Mode::Call { form, .. } => match &form.body {
                        Body::Harmony(spec) => spec.reasoning_close,
                        _ => b"",
                    },
                    _ => b"",
                };
                let table = self.tables.closers.iter().position(|c| *c == close);
                self.mode = match table {
                    Some(i) if reasoning => Mode::Reasoning(i as u16),
                    _ => Mode::Text,
                };
                consumed
            }
        }
    }

    /// What followed the opener is not a call: the bytes read are text again (markers in
    /// them included). A weak or heuristic opener is text too (its body prefix was read
    /// again as body), its first byte shown first so it does not begin here again; a
    /// marker (a tentative one too) is markup: it began no call and is dropped.
    fn give_back(&mut self) {
        let mode = std::mem::replace(&mut self.mode, Mode::Text);
        let Mode::Call {
            form,
            mut grammar,
            within,
            ..
        } = mode
        else {
            return;
        };
        self.calls.pending_implies = None;
        self.sink().0.withdraw();
        let rejected = grammar.take_rejected();
        let reasoning = within.is_some();
        self.mode = within.map_or(Mode::Text, Mode::Reasoning);
        if !(form.anchored || form.heuristic) {
            self.process(&rejected);
            return;
        }
        if form.name_before {
            // The name and what followed are text; no name is held again here, so the
            // opener reads as markup.
            self.at_start = false;
            self.calls_at_text = self.calls.next_index;
            Parser::work(&mut self.rep).names_paused = true;
            self.process(&rejected);
            Parser::work(&mut self.rep).names_paused = false;
            return;
        }
        let mut text: SmallVec<[u8; 64]> =
            SmallVec::from_slice(&form.opener[..form.opener.len() - form.body_prefix.len()]);
        text.extend_from_slice(&rejected);
        if form.start_only && !self.finished {
            // Past the start it cannot begin again: the bytes are read as text whole,
            // so markup in them still joins and acts (`[TOOL_CALLS</parameter>]`).
            self.at_start = false;
            self.process(&text);
            return;
        }
        if let Some((&first, rest)) = text.split_first() {
            self.emit_text(&[first], reasoning);
            self.process(rest);
        }
    }

    /// End the call early and drop the rest of its body, up to its closer.
    fn abort_to_skip(&mut self, why: Abort, consumed: usize) -> usize {
        let leftover = match &mut self.mode {
            Mode::Call { grammar, .. } => grammar.take_leftover(Parser::rep(&mut self.rep)),
            _ => Vec::new(),
        };
        let (closer, _) = self.abort_call(why);
        self.mode = Mode::Skip { closer, matched: 0 };
        if !leftover.is_empty() {
            self.process(&leftover);
        }
        consumed
    }

    /// `auto` saw a certain call: report the dialect its body belongs to, and keep only
    /// the dialects that share its opener (several dialects may share one: Jamba,
    /// Hunyuan and MiniMax M1 all open with `<tool_calls>`).
    fn lock(&mut self, body: &'static Body, form: &'static CallForm) {
        // A call written inside reasoning returns to it, by its index in the tables in
        // force: lock only on a call outside reasoning, so that index stays valid.
        // (From `start_call` the mode is still the reasoning block's.)
        let within = match &self.mode {
            Mode::Call { within, .. } => *within,
            Mode::AfterCall(state) => state.within,
            Mode::Reasoning(i) => Some(*i),
            _ => None,
        };
        // Nor on markerless calls: they are not any one dialect's.
        if within.is_some() || form.heuristic {
            return;
        }
        if self.config.dialect == Dialect::Auto && self.locked.is_none() {
            if let Some(d) = Grammar::chosen(body) {
                self.locked = Some(d);
                self.build_tables(Some(form));
            }
        }
    }

    /// The body ended: collect the repairer's repairs, then release or wait for the
    /// closer. Returns bytes read past the body, to be read again.
    fn end_body(&mut self, closer_seen: bool) -> Vec<u8> {
        let mode = std::mem::replace(&mut self.mode, Mode::Text);
        let Mode::Call {
            form,
            mut grammar,
            within,
            native,
            ..
        } = mode
        else {
            unreachable!()
        };
        let leftover = grammar.take_leftover(Parser::rep(&mut self.rep));
        let repairs = self.rep_repairs(&grammar, native);
        // A JSON call object the model closed itself may have gone on past a `"}}` in a
        // raw string; one a marker ended did not.
        let may_go_on = matches!(*grammar, Grammar::Envelope(_))
            && self
                .rep
                .as_ref()
                .is_none_or(|w| w.rep.terminated_by().is_none());
        // Kept empty: what the call's grammar holds is freed now, as when it was dropped.
        *grammar = Grammar::new(&form.body, form.closer, false);
        Parser::work(&mut self.rep).spare_grammar = Some(grammar);
        let (mut sink, ..) = self.sink();
        if sink.calls.is_open() {
            sink.repairs(repairs);
        }
        let back = within.map_or(Mode::Text, Mode::Reasoning);
        if closer_seen || (form.closer.is_empty() && !form.repeats) {
            sink.end();
            self.mode = back;
        } else {
            self.mode = Mode::AfterCall(Box::new(AfterCall {
                form,
                held: SmallVec::new(),
                within,
                trailer_done: form.trailer.is_empty(),
                gap: SmallVec::new(),
                holding: false,
                may_go_on,
            }));
        }
        leftover
    }

    fn rep_repairs(&self, grammar: &Grammar, native: Repairs) -> Repairs {
        match grammar {
            // A sniff with no bodies left carries the bytes after a body that ended in
            // what was held: the repairer's repairs are that body's (none for XML, which
            // does not use it).
            Grammar::Xml(_)
            | Grammar::Sniff {
                bodies: [_, ..], ..
            } => Repairs::NONE,
            _ => {
                let all = self.rep.as_ref().map_or(Repairs::NONE, |w| w.rep.repairs());
                all.iter().filter(|r| !native.contains(*r)).collect()
            }
        }
    }

    fn abort_call(&mut self, why: Abort) -> (&'static [u8], Vec<u8>) {
        let mode = std::mem::replace(&mut self.mode, Mode::Text);
        let Mode::Call {
            form,
            grammar,
            native,
            ..
        } = mode
        else {
            return (b"", Vec::new());
        };
        let repairs = self.rep_repairs(&grammar, native);
        let (mut sink, ..) = self.sink();
        if sink.calls.is_open() {
            sink.repairs(repairs);
        }
        sink.abort(why);
        (form.closer, Vec::new())
    }

    fn after_call(&mut self, input: &[u8]) -> usize {
        let Mode::AfterCall(state) = &mut self.mode else {
            unreachable!()
        };
        if state.holding {
            return self.held_text(input);
        }
        let AfterCall {
            form,
            held,
            within,
            trailer_done,
            gap,
            holding,
            may_go_on,
        } = &mut **state;
        let (form, within) = (*form, *within);
        let closer = form.closer;
        for (i, &b) in input.iter().enumerate() {
            if held.is_empty() {
                if b.is_ascii_whitespace() || (form.repeats && matches!(b, b';' | b',')) {
                    if closer.is_empty() && b.is_ascii_whitespace() {
                        gap.push(b);
                    }
                    continue;
                }
                if form.repeats && matches!(b, b'{' | b'[') {
                    // Another body of the same form: the next call.
                    let (mut sink, ..) = self.sink();
                    sink.end();
                    self.start_call(form, within);
                    return i;
                }
                if matches!(b, b'}' | b']') {
                    // A redundant closer after the body.
                    let (mut sink, ..) = self.sink();
                    if sink.calls.is_open() {
                        sink.repair(Repair::RedundantCloser);
                    }
                    return i + 1;
                }
                if closer.is_empty() {
                    // No more bodies: what follows is text again.
                    let gap = std::mem::take(gap);
                    let auto = self.config.dialect == Dialect::Auto;
                    let (mut sink, ..) = self.sink();
                    if auto {
                        sink.text_follows();
                    }
                    sink.end();
                    self.mode = within.map_or(Mode::Text, Mode::Reasoning);
                    self.process(&gap);
                    return i;
                }
            }
            held.push(b);
            if !*trailer_done && form.trailer.starts_with(held) {
                if held.len() == form.trailer.len() {
                    held.clear();
                    *trailer_done = true;
                }
                continue;
            }
            if closer.starts_with(held) {
                if held.len() == closer.len() {
                    let (mut sink, ..) = self.sink();
                    sink.end();
                    self.mode = within.map_or(Mode::Text, Mode::Reasoning);
                    return i + 1;
                }
                continue;
            }
            match crate::grammar::misspelled_closer(closer, held) {
                Some(true) if *may_go_on && self.calls.is_open() => {
                    // `</tool_action>` for `</tool_call>`, or a closing tag of a raw
                    // file's (`</script>`) the body went on past: the closer tells.
                    *holding = true;
                    return i + 1;
                }
                Some(true) => {
                    // `</tool_action>` for `</tool_call>`: the closer, misspelled.
                    held.clear();
                    let (mut sink, ..) = self.sink();
                    if sink.calls.is_open() {
                        sink.repair(Repair::MismatchedTag);
                    }
                    sink.end();
                    self.mode = within.map_or(Mode::Text, Mode::Reasoning);
                    return i + 1;
                }
                Some(false) => continue,
                None => {}
            }
            // Something else: the closer was dropped, or the body went on past what
            // looked like its end (a raw `"}}` inside a string): the closer tells.
            if !closer.is_empty() && *may_go_on && self.calls.is_open() {
                *holding = true;
                return i + 1;
            }
            let held = std::mem::take(held);
            let (mut sink, ..) = self.sink();
            // (An array body released its calls already: nothing is open to repair.)
            if sink.calls.is_open() {
                sink.repair(Repair::MissingCloser);
            }
            sink.end();
            self.mode = within.map_or(Mode::Text, Mode::Reasoning);
            let from_input = held.len().min(i + 1);
            let old = held.len() - from_input;
            if old > 0 {
                self.process(&held[..old]);
            }
            return i + 1 - from_input;
        }
        input.len()
    }

    /// Text after a call's body, with no closer yet: held until the closer, another
    /// call, the end of the stream or the arguments' limit tells what it is. Text that
    /// ends in `}` right before the closer is the rest of the body (a string written
    /// raw went on past a `"}}` inside it): the call is not released and the text not
    /// shown. Otherwise it is text, and the call is released, its closer missing.
    fn held_text(&mut self, input: &[u8]) -> usize {
        let Mode::AfterCall(state) = &mut self.mode else {
            unreachable!()
        };
        let (form, within) = (state.form, state.within);
        let before = state.held.len();
        let longest = form.closer.len().max(form.opener.len());
        let from = before.saturating_sub(longest.saturating_sub(1));
        state.held.extend_from_slice(input);
        let find = |marker: &[u8]| match marker.is_empty() {
            true => None,
            false => memchr::memmem::find(&state.held[from..], marker).map(|at| from + at),
        };
        let (closer, opener) = (find(form.closer), find(form.opener));
        let over = state.held.len() > self.config.limits.max_args_bytes;
        let back = within.map_or(Mode::Text, Mode::Reasoning);
        // Where each marker ends or begins in `input`: what follows is the main loop's
        // to read (never read here, so a run of calls does not nest).
        match (closer, opener) {
            (Some(c), o) if o.is_none_or(|o| c < o) => {
                let end = c + form.closer.len() - before;
                let held = std::mem::take(&mut state.held);
                let (mut sink, ..) = self.sink();
                if body_went_on(&held[..c]) {
                    // The body went on: not released, and the text was its body.
                    sink.went_on();
                    sink.end();
                    self.mode = back;
                } else {
                    // Text the model wrote inside the call: shown; the closer is markup.
                    self.release_held_text(back, form.closer, &held[..c]);
                }
                end
            }
            (_, Some(o)) => {
                // Another call: what came before it is text.
                let held = std::mem::take(&mut state.held);
                self.release_held_text(back, form.closer, &held[..o]);
                if o < before {
                    // The opener began in held bytes: read them again, then the input.
                    self.process(&held[o..before]);
                    0
                } else {
                    o - before
                }
            }
            _ if over => {
                let held = std::mem::take(&mut state.held);
                self.release_held_text(back, form.closer, &held);
                input.len()
            }
            _ => input.len(),
        }
    }

    /// The text held after a call's body is text: release the call, then show `text`.
    /// A closing tag it begins with stands for the call's closer, misspelled
    /// (`</tool_action>` for `</tool_call>`); otherwise the closer is missing.
    fn release_held_text(&mut self, back: Mode, closer: &[u8], mut text: &[u8]) {
        self.mode = back;
        let (mut sink, ..) = self.sink();
        match misspelled_closer_at(closer, text) {
            Some(end) => {
                sink.repair(Repair::MismatchedTag);
                text = &text[end..];
            }
            None => sink.repair(Repair::MissingCloser),
        }
        sink.end();
        self.process(text);
    }

    fn skip(&mut self, input: &[u8]) -> usize {
        let Mode::Skip { closer, matched } = &mut self.mode else {
            unreachable!()
        };
        if closer.is_empty() {
            return input.len();
        }
        if *matched == 0 {
            // Jump to the next byte that could begin the closer.
            match memchr::memchr(closer[0], input) {
                Some(0) => {}
                Some(at) => return at,
                None => return input.len(),
            }
        }
        for (i, &b) in input.iter().enumerate() {
            if closer[*matched] != b {
                if b != closer[0] {
                    *matched = 0;
                    return i + 1;
                }
                *matched = 0;
            }
            *matched += 1;
            if *matched == closer.len() {
                self.mode = Mode::Text;
                return i + 1;
            }
        }
        input.len()
    }

    fn finish_mode(&mut self) {
        if matches!(&self.mode, Mode::Call { grammar, .. } if grammar.undecided()) {
            // The stream ended before markerless JSON showed it is a call: text.
            self.give_back();
            return self.finish_mode();
        }
        match std::mem::replace(&mut self.mode, Mode::Text) {
            mode @ (Mode::Text | Mode::Reasoning(_)) => {
                // Held reasoning stays reasoning, read with its own markers.
                self.mode = mode;
                let reasoning = matches!(self.mode, Mode::Reasoning(_));
                let held = std::mem::take(&mut self.held);
                let shown = std::mem::take(&mut self.shown) as usize;
                if held.len() > shown {
                    // A marker complete at the very end still counts; a part of one is
                    // dropped (it would leak markup), except a lone `<` or `[`.
                    let mut from = 0;
                    let found = loop {
                        match self.table().set.find_final(&held[from..]) {
                            // A marker inside the shown text was text when it was shown.
                            Found::Full { start, end, .. } if from + end <= shown => {
                                from += start + 1;
                            }
                            Found::Full { id, start, end } => {
                                break Found::Full {
                                    id,
                                    start: from + start,
                                    end: from + end,
                                }
                            }
                            found => break found,
                        }
                    };
                    if let Found::Full { id, start, end } = found {
                        let action = self.table().actions[id];
                        if start < shown {
                            // Joined across a removed marker: broken (`break_joined`).
                            self.held = SmallVec::from_slice(&held[..shown]);
                            self.shown = shown as u8;
                            self.process(&held[end..]);
                            self.finish_mode();
                            return;
                        }
                        self.emit_text(&held[shown..start], reasoning);
                        self.act(action);
                        self.process(&held[end..]);
                        self.finish_mode();
                        return;
                    }
                    if held.len() - shown == 1 || self.only_text_like(&held[shown..]) {
                        self.emit_text(&held[shown..], reasoning);
                    }
                }
            }
            Mode::Call {
                form,
                mut grammar,
                within,
                native,
                ..
            } => {
                let clean_stop = !self.stop_reason.is_cut();
                let complete = {
                    let Parser {
                        calls,
                        queue,
                        config,
                        stats,
                        rep,
                        ..
                    } = self;
                    let mut sink = Sink {
                        calls,
                        queue,
                        config,
                        stats,
                    };
                    let CallWork { rep, scratch, .. } = Parser::work(rep);
                    let mut complete = grammar.finish(&mut sink, rep, scratch);
                    if !complete && clean_stop {
                        // Every value closed, only the closers missing: complete.
                        complete = grammar.close_clean(&mut sink);
                    }
                    sink.stats.examined(grammar.take_work(rep));
                    complete
                };
                let repairs = self.rep_repairs(&grammar, native);
                let mut leftover = grammar.take_leftover(Parser::rep(&mut self.rep));
                // Ended by a marker other than its closer: cut, not finished (as in
                // `feed_call`); by its closer (read while deciding the held bytes, or
                // left after the body by the reading taken): no closer is missing.
                let terminated_by = self.rep.as_ref().and_then(|w| w.rep.terminated_by());
                let cut = terminated_by.is_some_and(|m| m != form.closer);
                let blanks = leftover.len() - leftover.trim_ascii_start().len();
                let closer_left = complete
                    && !form.closer.is_empty()
                    && leftover[blanks..].starts_with(form.closer);
                if closer_left {
                    leftover.drain(..blanks + form.closer.len());
                }
                // Or its closer misspelled (`</tool_action>`), as `after_call` takes it.
                let misspelled = (complete && !closer_left)
                    .then(|| {
                        let rest = &leftover[blanks..];
                        let tag = rest.iter().position(|&b| b == b'>')?;
                        let whole = crate::grammar::misspelled_closer(form.closer, &rest[..=tag]);
                        (whole == Some(true)).then_some(blanks + tag + 1)
                    })
                    .flatten();
                if let Some(end) = misspelled {
                    leftover.drain(..end);
                }
                // Or text, then the closer: text ending in `}` there was the rest of a
                // JSON body that seemed to end before it (as `held_text` takes it).
                let went_on = complete
                    && !closer_left
                    && misspelled.is_none()
                    && !form.closer.is_empty()
                    && matches!(*grammar, Grammar::Envelope(_))
                    && memchr::memmem::find(&leftover, form.closer)
                        .filter(|&at| body_went_on(&leftover[..at]))
                        .map(|at| leftover.drain(..at + form.closer.len()))
                        .is_some();
                let closed = terminated_by == Some(form.closer)
                    || closer_left
                    || misspelled.is_some()
                    || went_on;
                let (mut sink, ..) = self.sink();
                if sink.calls.is_open() {
                    sink.repairs(repairs);
                    if misspelled.is_some() {
                        sink.repair(Repair::MismatchedTag);
                    }
                }
                if cut {
                    sink.cut();
                }
                if complete {
                    if !form.closer.is_empty() && !closed {
                        sink.repair(Repair::MissingCloser);
                    }
                    if went_on {
                        sink.went_on();
                    }
                    sink.end();
                    self.mode = within.map_or(Mode::Text, Mode::Reasoning);
                    if !leftover.is_empty() {
                        self.process(&leftover);
                    }
                    self.finish_mode();
                } else if clean_stop
                    && (sink.calls.open_args_hold(form.closer)
                        || grammar.open_string_holds(form.closer))
                {
                    // The closer went into an open string: ended, not cut.
                    sink.abort(Abort::Unclosed);
                } else {
                    sink.abort(Abort::Truncated);
                }
            }
            Mode::AfterCall(state) if state.holding => {
                let back = state.within.map_or(Mode::Text, Mode::Reasoning);
                if self.stop_reason.is_cut() {
                    // Cut before the closer told whether the text was the body's: the
                    // call did not finish. The text is shown.
                    self.mode = back;
                    let (mut sink, ..) = self.sink();
                    sink.abort(Abort::Truncated);
                    self.process(&state.held);
                } else {
                    self.release_held_text(back, state.form.closer, &state.held);
                }
                self.finish_mode();
            }
            Mode::AfterCall(state) => {
                let AfterCall {
                    form,
                    held,
                    gap,
                    within,
                    ..
                } = *state;
                let (mut sink, ..) = self.sink();
                let closer = form.closer;
                if sink.calls.is_open() && (!closer.starts_with(&held) || held.len() < closer.len())
                {
                    sink.repair(Repair::MissingCloser);
                }
                sink.end();
                if !gap.is_empty() {
                    self.emit_text(&gap, within.is_some());
                }
            }
            Mode::Skip { .. } => {}
        }
    }
}

/// Whether `marker` is a special token (`<|python_tag|>`, `<｜tool▁sep｜>`,
/// `[TOOL_CALLS]`), never prose, rather than a tag or a fence a text may hold.
fn is_special_token(marker: &[u8]) -> bool {
    let has = |needle: &[u8]| memchr::memmem::find(marker, needle).is_some();
    let bracketed = marker.len() > 2
        && marker[0] == b'['
        && marker[marker.len() - 1] == b']'
        && marker[1..marker.len() - 1]
            .iter()
            .all(|&b| b.is_ascii_uppercase() || b == b'_' || b == b'/');
    has(b"<|") || has(b"|>") || has("｜".as_bytes()) || bracketed
}

/// Whether `text`, read after a JSON call object the model closed itself and before the
/// call's closer, was the rest of the body: it ends in `}` (a raw `"}}` inside a string
/// looked like the body's end).
fn body_went_on(text: &[u8]) -> bool {
    text.trim_ascii_end().ends_with(b"}")
}

/// Where a closing tag standing for `closer` ends, when `text` begins with one (past
/// blanks): see [`crate::grammar::misspelled_closer`].
fn misspelled_closer_at(closer: &[u8], text: &[u8]) -> Option<usize> {
    let blanks = text.len() - text.trim_ascii_start().len();
    let rest = &text[blanks..];
    let end = memchr::memchr(b'>', &rest[..rest.len().min(40)])?;
    (crate::grammar::misspelled_closer(closer, &rest[..=end]) == Some(true))
        .then_some(blanks + end + 1)
}

/// The longest end of `before` that is the beginning of a marker of `set`: text that a
/// marker removed right after it could join with what follows into a new marker.
fn joinable(set: &MarkerSet, before: &[u8]) -> usize {
    let most = before.len().min(set.max_len().saturating_sub(1));
    (1..=most)
        .rev()
        .find(|&n| {
            matches!(
                set.match_at(&before[before.len() - n..], 0),
                Found::Partial { .. }
            )
        })
        .unwrap_or(0)
}

/// The length of the character `lead` begins, 1 for a byte that begins none.
fn utf8_len(lead: u8) -> usize {
    crate::ascii::char_len(lead).unwrap_or(1)
}

/// The markers that end an unfinished body of a call of `form` where structure is
/// expected: its closer (or, without one, the next call's opener and a repeat
/// separator), and the end-of-turn and section markers of its dialect, which also tell
/// the look-ahead that a value may end before them.
fn call_terminators(form: &'static CallForm) -> MarkerSet {
    let mut terminators = MarkerSet::default();
    if !form.closer.is_empty() {
        terminators.push(form.closer);
    } else {
        if !form.anchored && form.opener.len() > 1 {
            terminators.push(form.opener);
        }
        if form.repeats {
            terminators.push(b";");
        }
    }
    let all = auto_specs()
        .iter()
        .copied()
        .chain(Dialect::ALL.iter().map(|d| d.spec()));
    for spec in all {
        if spec.calls.iter().any(|f| std::ptr::eq(f, form)) {
            for &m in spec.strip.iter().filter(|m| m.len() > 1) {
                terminators.push(m);
            }
            if form.closer.is_empty() && form.name_before {
                // With no closer, the dialect's other openers end the call too (a
                // `[TOOL_CALLS]` after a call read from a name held before `[ARGS]`).
                let others = spec
                    .calls
                    .iter()
                    .filter(|f| !f.anchored && f.opener.len() > 1);
                for f in others {
                    terminators.push(f.opener);
                }
            }
        }
    }
    terminators
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::OwnedEvent;

    fn events(
        config: &Config,
        raw: &[u8],
        cuts: &[usize],
        fast: bool,
        hits: &mut usize,
    ) -> Vec<OwnedEvent> {
        let mut p = Parser::with_config(config.clone());
        p.lookahead_pass.0 = fast;
        let mut out = Vec::new();
        let mut at = 0;
        for &cut in cuts.iter().chain([raw.len()].iter()) {
            p.push(&raw[at..cut]);
            at = cut;
            while let Some(e) = p.next_event() {
                out.push(e.into_owned());
            }
        }
        p.finish(StopReason::Stop);
        while let Some(e) = p.next_event() {
            out.push(e.into_owned());
        }
        *hits += p.lookahead_pass.1;
        out
    }

    /// A chunk that ends with what a marker can no longer change (a whole marker, a byte
    /// no character begins with) is decided with that chunk through `feed`, as through
    /// `push`: only the start of a marker waits for the next chunk.
    #[test]
    fn feed_decides_a_chunk_end_that_cannot_wait() {
        for api_feed in [true, false] {
            let mut p = Parser::new(Dialect::Hermes);
            let mut texts = Vec::new();
            for chunk in [&b"Hi "[..], b"a \xff", b"b <think>", b"c <"] {
                texts.clear();
                if api_feed {
                    let mut fed = p.feed(chunk);
                    while let Some(e) = fed.next_event() {
                        texts.push(e.into_owned());
                    }
                } else {
                    p.push(chunk);
                    while let Some(e) = p.next_event() {
                        texts.push(e.into_owned());
                    }
                }
                match chunk {
                    b"a \xff" => assert!(
                        texts
                            .iter()
                            .any(|e| matches!(e, OwnedEvent::Text(t) if t.contains('\u{fffd}'))),
                        "{texts:?}"
                    ),
                    b"b <think>" => assert!(matches!(p.mode, Mode::Reasoning(_)), "{texts:?}"),
                    b"c <" => assert_eq!(&p.held[..], b"<"),
                    _ => {}
                }
            }
        }
    }

    /// A character the text path cut is finished by the next chunk's `Feed` through
    /// the character lane, before that chunk's text, read or dropped unread.
    #[test]
    fn feed_finishes_a_cut_character_before_the_chunk_text() {
        for (reasoning, read) in [(false, true), (false, false), (true, true), (true, false)] {
            let mut p = Parser::new(Dialect::Hermes);
            let mut seen = Vec::new();
            let chunks: &[&[u8]] = match reasoning {
                true => &[b"<think>", b"caf\xc3", b"\xa9 ok", b" more"],
                false => &[b"Hi", b"caf\xc3", b"\xa9 ok", b" more"],
            };
            for &chunk in chunks {
                let mut fed = fed_lane_check(&mut p, chunk);
                if read || chunk != b"\xa9 ok" {
                    while let Some(e) = fed.next_event() {
                        seen.push(e.into_owned());
                    }
                }
            }
            assert!(shown(&seen).ends_with("café ok more"), "{seen:?}");
            if read {
                let at = seen.iter().position(
                    |e| matches!(e, OwnedEvent::Text(t) | OwnedEvent::Reasoning(t) if t == "é"),
                );
                assert!(at.is_some(), "the character comes alone first: {seen:?}");
            }
        }
    }

    /// The text and reasoning of `seen`, in order.
    fn shown(seen: &[OwnedEvent]) -> String {
        seen.iter()
            .map(|e| match e {
                OwnedEvent::Text(t) | OwnedEvent::Reasoning(t) => t.as_str(),
                _ => "",
            })
            .collect()
    }

    /// Whether `seen` has an event of a call.
    fn has_call(seen: &[OwnedEvent]) -> bool {
        seen.iter().any(|e| {
            !matches!(
                e,
                OwnedEvent::Text(_) | OwnedEvent::Reasoning(_) | OwnedEvent::End { .. }
            )
        })
    }

    /// `feed`, checking that the chunk after a cut character meets the character lane.
    fn fed_lane_check<'a>(p: &'a mut Parser, chunk: &'a [u8]) -> Feed<'a> {
        if chunk.first().is_some_and(|&b| b & 0xc0 == 0x80) {
            assert_eq!(p.fast, FastLane::Char);
        }
        p.feed(chunk)
    }

    /// The one-byte lane, which keeps no `last_text`, is only for tables with no
    /// anchored opener: an anchored one (`<parameter=` of qwen3_coder, whose openers
    /// all begin with `<`) still counts right after a line that `feed`'s fast test took,
    /// and not after one that does not end the line.
    #[test]
    fn an_anchored_opener_sees_the_line_the_fast_test_took() {
        let mut hermes = Parser::new(Dialect::Hermes);
        let mut fed = hermes.feed(b"ok");
        while fed.next_event().is_some() {}
        drop(fed);
        assert_eq!(hermes.fast, FastLane::TextOne);
        for (line, call) in [(&b"see\n"[..], true), (b"see ", false)] {
            let mut p = Parser::new(Dialect::Qwen3Coder);
            let mut seen = Vec::new();
            for chunk in [&b"ok\n"[..], line, b"<parameter=path>a</parameter>\n"] {
                if chunk == line {
                    assert_eq!(p.fast, FastLane::Text, "the line takes the fast test");
                }
                let mut fed = p.feed(chunk);
                while let Some(e) = fed.next_event() {
                    seen.push(e.into_owned());
                }
            }
            p.finish(StopReason::Stop);
            while let Some(e) = p.next_event() {
                seen.push(e.into_owned());
            }
            assert_eq!(has_call(&seen), call, "{line:?}: {seen:?}");
        }
    }

    /// A chunk that ends with the start of a marker holds it on `feed`'s text path, and
    /// the next chunk, through the held-byte lane, shows the byte first when it rules
    /// the marker out, read or dropped unread; a chunk that goes on with the marker
    /// opens it (in text; in reasoning a call is text).
    #[test]
    fn feed_holds_a_marker_start_and_shows_it_when_ruled_out() {
        for (reasoning, read) in [(false, true), (false, false), (true, true), (true, false)] {
            for (next, call) in [(&b" b && c"[..], false), (b"tool_call>", true)] {
                let mut p = Parser::new(Dialect::Hermes);
                let mut seen = Vec::new();
                let start: &[u8] = if reasoning { b"<think>" } else { b"Hi" };
                for chunk in [start, b" if a <", next, b" end"] {
                    if chunk == next {
                        assert_eq!(p.fast, FastLane::Held, "{chunk:?}");
                        assert_eq!(&p.held[..], b"<");
                    }
                    let mut fed = p.feed(chunk);
                    if read || chunk != next {
                        while let Some(e) = fed.next_event() {
                            seen.push(e.into_owned());
                        }
                    }
                }
                p.finish(StopReason::Stop);
                while let Some(e) = p.next_event() {
                    seen.push(e.into_owned());
                }
                let text = shown(&seen);
                // In reasoning a call is text (the default `InReasoning`).
                if call && !reasoning {
                    assert!(has_call(&seen) && !text.contains('<'), "{seen:?}");
                } else {
                    let next = std::str::from_utf8(next).unwrap();
                    assert!(text.ends_with(&format!(" if a <{next} end")), "{seen:?}");
                }
            }
        }
    }

    /// After `finish`, a chunk is ignored by `feed` as by `push`, even when the chunks
    /// before it took `feed`'s fast test.
    #[test]
    fn feed_after_finish_shows_nothing() {
        for reasoning in [false, true] {
            let mut p = Parser::new(Dialect::Hermes);
            let mut shown = String::new();
            let start: &[&[u8]] = match reasoning {
                true => &[b"<think>", b"hm"],
                false => &[b"Hi", b" there"],
            };
            for chunk in start.iter().chain([&&b"more"[..], &&b" text"[..]]) {
                let mut fed = p.feed(chunk);
                while let Some(e) = fed.next_event() {
                    if let Event::Text(t) | Event::Reasoning(t) = e {
                        shown.push_str(t);
                    }
                }
            }
            assert_ne!(p.fast, FastLane::Off, "the test must reach the fast test");
            p.finish(StopReason::Stop);
            while p.next_event().is_some() {}
            for chunk in [&b"late"[..], b" words"] {
                let mut fed = p.feed(chunk);
                assert!(fed.next_event().is_none(), "{chunk:?} after finish");
            }
            assert!(!shown.contains("late"), "{shown:?}");
        }
    }

    /// The look-ahead path changes no event, not even where a delta is split: the
    /// look-ahead decides at the same byte, and the grammar runs in the same push.
    #[test]
    fn the_look_ahead_path_gives_the_same_events() {
        let members = [
            r#""n": 12345.678, "list": [1, 22, true, null, "w"], "obj": {"id": 7, "ok": false}"#,
            // Quotes that are content (a look-ahead decides `Content`), and a raw newline.
            r#""text": "He said "hi", then "bye": no", "code": "a
b", "k": "v""#,
            r#""x": "a", "y": "b""#,
        ];
        let mut inputs = Vec::new();
        for m in members {
            let args = format!("{{{m}, {m}, {m}}}");
            let call = format!(r#"<tool_call>{{"name": "f", "arguments": {args}}}</tool_call>"#);
            inputs.push(format!("Hi {call} after"));
            inputs.push(format!("{call}{call}"));
            // Cut in the middle of the arguments (truncated).
            inputs.push(call[..call.len() * 2 / 3].to_string());
        }
        // A closer inside the arguments, where a look-ahead reads.
        inputs.push(
            r#"<tool_call>{"name": "f", "arguments": {"a": "b", "c": 1</tool_call> x"#.to_string(),
        );
        // The limits the path must leave to `feed` at their byte: the held bytes (a
        // small window and hold), the body size, the depth.
        let mut configs = vec![Config::new(Dialect::Hermes)];
        for limits in [
            (64, 24, usize::MAX, 128),
            (256, 4096, 90, 128),
            (256, 4096, usize::MAX, 2),
        ] {
            let mut config = Config::new(Dialect::Hermes);
            config.limits.lookahead = limits.0;
            config.limits.max_held_bytes = limits.1;
            config.limits.max_args_bytes = limits.2;
            config.limits.max_depth = limits.3;
            configs.push(config);
        }
        let mut hits = 0;
        let mut seed = 7u64;
        for raw in &inputs {
            let raw = raw.as_bytes();
            let mut chunkings: Vec<Vec<usize>> = vec![(1..raw.len()).collect()];
            for max in [2, 4, 8, 16] {
                for _ in 0..8 {
                    let mut cuts = Vec::new();
                    let mut at = 0;
                    loop {
                        seed = seed
                            .wrapping_mul(6364136223846793005)
                            .wrapping_add(1442695040888963407);
                        at += 1 + (seed >> 33) as usize % max;
                        if at >= raw.len() {
                            break;
                        }
                        cuts.push(at);
                    }
                    chunkings.push(cuts);
                }
            }
            for (config, cuts) in configs
                .iter()
                .flat_map(|c| chunkings.iter().map(move |k| (c, k)))
            {
                let mut ignored = 0;
                let slow = events(config, raw, cuts, false, &mut ignored);
                let fast = events(config, raw, cuts, true, &mut hits);
                let case = String::from_utf8_lossy(raw);
                assert_eq!(fast, slow, "{case:?} {cuts:?} {:?}", config.limits);
            }
        }
        assert!(hits > 1000, "{hits}");
    }
}
