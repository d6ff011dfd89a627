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
//! once. In `Call`, the call's state ([`CallState`]) reads the body: the dialect's
//! grammar lays it out, its value reader repairs the values, the [`Sink`] streams them.
//! `docs/design.md` explains each state.
//!
//! By concern: this file holds the parser and its entry points (`push`, `finish`,
//! `next_event`); `text` the text path (markers, held bytes, visible text), `names`
//! the names held before an opener, `feed` the `feed` API's lanes, `call` a call's
//! life from its opener to its end, `after_call` what follows a body until the call's
//! extent tells (`call::extent`), `remains` the text after a call not released, up to
//! its bound, `echo` a released call's body written again after its closer, `finish`
//! the end of the stream, `tables` the marker tables.

mod after_call;
mod call;
mod echo;
mod feed;
mod finish;
mod names;
mod remains;
mod tables;
#[cfg(test)]
mod tests;
mod text;

use crate::ascii::TextStops;
use crate::call::args::ArgsReader;
use crate::call::extent::{
    begins_a_call, body_went_on, call_terminators, closer_after_trailer, closers, holds_prose,
    in_a_section, is_trailer, look_ahead, misspelled_closer_at, opens_without_opener,
    raw_closing_tags, BodyMarkup, Bound, Extent, CLOSER_THEN_TEXT_AND_A_CALL,
};
use crate::call::CallState;
use crate::calls::{Abort, Calls, Sink};
use crate::config::{Config, InReasoning};
use crate::dialect::{auto_specs, Body, CallForm, Dialect, Spec};
use crate::event::{Event, StopReason};
use crate::feed::{FedAs, Feed};
use crate::grammar::{Grammar, StepKind};
use crate::json::lookahead::KeyCheck;
use crate::json::repairer::{Options, ToolByName};
use crate::queue::Queue;
use crate::repairs::{Repair, Repairs};
use crate::scan::{Found, MarkerSet};
use crate::stats::Stats;
use after_call::AfterCall;
use echo::Echo;
use feed::FastLane;
use remains::Remains;
use smallvec::SmallVec;
use std::sync::{Mutex, OnceLock};
use tables::{Action, Table, Tables};
use text::joinable;

enum Mode {
    Text,
    /// The index of the reasoning table (u16: keeps `Mode` small).
    Reasoning(u16),
    /// A call's body is read. Boxed: a call's state is large, and an idle parser
    /// should not carry one.
    Call(Box<CallState>),
    /// The body ended; the call waits for its closer (or anything else) to be released.
    /// Boxed: only a call needs it, and an idle parser should stay small.
    AfterCall(Box<AfterCall>),
    /// Text after a call not released at its closer, held while it may be the rest
    /// of the call's body (`remains`).
    Remains(Box<Remains>),
    /// Text after a call released at its closer, held while it repeats the call's
    /// body (`echo`; its state is in `CallWork`, which only a call needs).
    Echo,
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
    /// The last call's state, for the next call's: a call allocates none, and its
    /// value reader keeps its tables (`Repairer::set_call_options`).
    spare: Option<Box<CallState>>,
    /// An identifier and the blanks after it, at the start of the output, held as the
    /// name of a call whose opener may follow (see [`Parser::hold_name`]).
    name: Vec<u8>,
    /// Text given back by a call whose name came before its opener is being read
    /// again: no name is held in it ([`Parser::names_after_text`]). (Here: an idle
    /// parser stays within 512 bytes.)
    names_paused: bool,
    /// The blanks between a closer-less body and the next body of its form, which may
    /// be none: shown if it is given back (`Parser::give_back`).
    repeat_gap: SmallVec<[u8; 32]>,
    /// The body of the call that ended last, as written, and the text after it held
    /// while it repeats it (`echo`).
    echo: Echo,
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
    /// Built at the first call (or name held): a parser that only sees text holds none.
    work: Option<Box<CallWork>>,
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
    /// A call began before any visible text: the output opened with calls, so a
    /// start-only opener that allows it (`CallForm::after_calls`) counts after text too.
    opened_with_call: bool,
    /// How many calls had begun when visible text other than blanks was last shown: a
    /// call begun since means a name may follow it (see [`Parser::holds_names`]).
    calls_at_text: u32,
    /// How generation ended, once `finish` was called: a call left open is truncated
    /// only when it was cut, not when the model closed it in a way we could not read;
    /// at a clean stop, a call missing only its closing markers is complete.
    stop: Option<StopReason>,
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
    /// Tests: never take the look-ahead path (to compare with it), and how often it took
    /// a chunk.
    #[cfg(test)]
    lookahead_pass: (bool, usize),
}

/// The length of the character `lead` begins, 1 for a byte that begins none.
fn utf8_len(lead: u8) -> usize {
    crate::ascii::char_len(lead).unwrap_or(1)
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
            work: None,
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
            opened_with_call: false,
            calls_at_text: 0,
            stop: None,
            plain: None,
            plain_reasoning: false,
            fast: FastLane::Off,
            fed_as: FedAs::default(),
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
        if let Mode::Call(call) = std::mem::replace(&mut self.mode, Mode::Text) {
            self.retire(call);
        }
        if let Some(spare) = self.work.as_mut().and_then(|w| w.spare.as_mut()) {
            spare.args.rep.reset();
        }
        self.held.clear();
        self.shown = 0;
        self.text_tail = None;
        self.utf8.clear();
        self.stop = None;
        self.last_text = b'\n';
        self.at_start = true;
        self.opened_with_call = false;
        self.calls_at_text = 0;
        if let Some(work) = &mut self.work {
            work.name.clear();
            work.repeat_gap.clear();
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
        if self.finished() {
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
            } else if let Mode::Call(call) = &self.mode {
                // One of the two at most: a string run needs no look-ahead reading.
                plain = match call.args.rep.looking_ahead() {
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
            && matches!(&self.mode, Mode::Call(call) if call.args.rep.looking_ahead())
            && self.lookahead_ready()
        {
            self.fast = FastLane::Lookahead;
        }
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
        if self.finished() {
            return;
        }
        let held = match &mut self.mode {
            Mode::Call(call) => call.byte_held.take(),
            _ => None,
        };
        if let Some(held) = held {
            self.process(&[held]);
        }
        self.stop = Some(stop);
        self.plain = None;
        self.queue.begin(&mut self.calls.spare);
        self.finish_mode();
        self.show_name();
        if !self.utf8.is_empty() {
            self.utf8.clear();
            let reasoning = self.utf8.reasoning;
            self.queue.text("\u{fffd}", reasoning);
        }
        if let Some(feedback) = crate::calls::unmet_tool_choice(&self.config, self.calls.released) {
            self.stats.tool_choice_unmet += 1;
            self.queue.tool_choice_unmet(&feedback);
        }
        let truncated = self.calls.truncated;
        self.queue.end(stop, truncated);
    }

    /// Whether `finish` was called.
    fn finished(&self) -> bool {
        self.stop.is_some()
    }

    /// Whether the stream ended cut (by the token limit, ...) rather than stopped.
    fn cut_off(&self) -> bool {
        self.stop.is_some_and(|s| s.is_cut())
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

    /// What only calls need, built on first use.
    #[inline]
    fn work(work: &mut Option<Box<CallWork>>) -> &mut CallWork {
        work.get_or_insert_with(|| {
            Box::new(CallWork {
                spare: None,
                name: Vec::new(),
                names_paused: false,
                repeat_gap: SmallVec::new(),
                echo: Echo::default(),
            })
        })
    }

    /// Keep an ended call's state for the next call's (emptied: what its grammar holds
    /// is freed now, as when it was dropped).
    fn retire(&mut self, mut call: Box<CallState>) {
        call.retire();
        Parser::work(&mut self.work).spare = Some(call);
    }

    fn table(&self) -> &Table {
        match self.mode {
            Mode::Reasoning(i) => &self.tables.reasoning[i as usize],
            _ => &self.tables.text,
        }
    }

    fn process(&mut self, mut input: &[u8]) {
        if let Mode::Call(call) = &mut self.mode {
            call.in_string_arg = false;
        }
        while !input.is_empty() {
            let used = match self.mode {
                Mode::Text => self.scan(input, false),
                Mode::Reasoning(_) => self.scan(input, true),
                Mode::Call { .. } => self.feed_call(input),
                Mode::AfterCall(_) => self.after_call(input),
                Mode::Remains(_) => self.remains(input),
                Mode::Echo => self.echo(input),
                Mode::Skip { .. } => self.skip(input),
            };
            self.stats.examined(used as u64);
            input = &input[used..];
        }
    }
}
