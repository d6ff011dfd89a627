//! The streaming JSON repairer: a byte-level transducer with a bounded pending buffer.
//!
//! Bytes go in as they arrive; repaired JSON comes out as soon as each byte's meaning is
//! decided. Undecided bytes wait in small buffers: a comma that may turn out trailing, a
//! number or bare word waiting for its delimiter, an escape waiting for its hex digits,
//! a partial UTF-8 sequence, and the bytes after a candidate closing quote while the
//! [`Lookahead`] decides. Output is never edited once written (repairs are applied only
//! to bytes not yet emitted), so every prefix of the output is a prefix of the final
//! text. Valid JSON passes through byte for byte: each repair fires only at a byte that
//! valid JSON cannot contain at that point.

use super::bulk::Classes;
use super::lookahead::{content_at_once, Ctx, KeyCheck, Lookahead, Verdict};
use super::readings::{Parted, Policy, Weak};
use crate::ascii::char_len;
use crate::repairs::{Repair, Repairs};
use crate::scan::{Found, MarkerId, MarkerSet};
use smallvec::SmallVec;

/// The bytes that end a plain run in a `"` string (one table lookup per byte).
const DOUBLE_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = b < 0x20 || b == b'"' as usize || b == b'\\' as usize || b >= 0x80;
        b += 1;
    }
    t
};

/// How a string is delimited.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Delim {
    Double,
    Single,
    /// `“…”` (closer `”`).
    CurlyDouble,
    /// `‘…’` (closer `’`).
    CurlySingle,
    /// A dialect's string token (Gemma's `<|"|>`): raw content, no escapes.
    Alt,
}

impl Delim {
    fn closer(self, alt: &[u8]) -> &[u8] {
        match self {
            Delim::Double => b"\"",
            Delim::Single => b"'",
            Delim::CurlyDouble => "\u{201d}".as_bytes(),
            Delim::CurlySingle => "\u{2019}".as_bytes(),
            Delim::Alt => alt,
        }
    }
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum St {
    /// Expecting a value.
    Value,
    /// In an object, expecting a key or `}`.
    KeyOrEnd,
    /// After a key, expecting `:`.
    Colon,
    /// After a value, expecting `,` or a closer.
    After,
    /// A comma (and blanks) are held: expecting the next item or a closer.
    Comma,
    /// Inside a string.
    Str { delim: Delim, key: bool },
    /// A number token is held.
    Num,
    /// A bare word is held.
    Word { key: bool },
    /// A bare key word, then `"` and blanks, are held: a key missing its opening quote
    /// if a colon follows.
    KeyQuote,
    /// An unquoted string value: the opening `"` is out, trailing blanks are held.
    Bare,
    /// A comment; the state to return to is in `comment_prev`.
    Comment { block: bool, star: bool },
    /// `/` seen, deciding whether a comment starts.
    Slash,
    /// The top-level value is complete.
    Done,
}

/// How the output of one [`Repairer::feed`] nests: the containers open before it, the
/// fewest open at any point of it, and those open after it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Nesting {
    pub before: usize,
    pub low: usize,
    pub after: usize,
    /// It ended inside a string: its opening quote written, its closing one not.
    pub in_string: bool,
}

/// What [`Repairer::feed`] stopped on.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Status {
    /// All input was consumed; more is needed.
    NeedMore,
    /// The top-level value ended after `consumed` bytes of the input; the bytes in
    /// [`Repairer::take_leftover`] come before `input[consumed..]`.
    Complete { consumed: usize },
    /// A terminator marker was matched where structure was expected and consumed; the
    /// open containers were closed. Leftover as for `Complete`.
    Terminated { consumed: usize, marker: MarkerId },
    /// Nesting went deeper than the limit, at byte `consumed` of the input.
    TooDeep { consumed: usize },
    /// More bytes were held undecided than the limit allows, at byte `consumed`.
    HeldOverflow { consumed: usize },
    /// The first weak decision of a reading armed to fork ([`Policy::arm`]) is pending
    /// at byte `consumed`: clone the repairer now for the competing readings; the
    /// next `feed` resolves it as the look-ahead decided.
    Fork { consumed: usize },
    /// An object of the top-level array (a call of a body of several) closed at byte
    /// `consumed`, with [`Policy::one_call`]: the reading stops where its call ends.
    CallEnded { consumed: usize },
}

/// Limits and dialect data for a [`Repairer`].
#[derive(Clone, Debug)]
pub(crate) struct Options {
    pub max_depth: usize,
    pub lookahead: usize,
    pub max_held: usize,
    /// Markers that end the value where structure is expected (a call's closer).
    pub terminators: MarkerSet,
    /// What may follow the whole value before a terminator (DeepSeek's closing fence):
    /// read past like blanks when a look-ahead weighs what follows the value.
    pub trailer: &'static [u8],
    /// A dialect's raw string delimiter (Gemma `<|"|>`); empty for none.
    pub alt_string: &'static [u8],
    /// Declared keys, for the look-ahead.
    pub keys: KeyCheck,
    /// Python call arguments (pythonic calls): the value is the object a `{` fed before
    /// `NAME(` opened; `KEY=` binds a value, `)` closes the call (a tuple inside),
    /// `(` opens a tuple, and a value where a key belongs is a positional argument.
    pub python: bool,
    /// Learn the tool from the call object's `"name"` member (the JSON envelope), so the
    /// look-ahead can count undeclared argument keys once the tool is known.
    pub tool_by_name: Option<ToolByName>,
    /// A JSON envelope's arguments key: an object where a key of the call object
    /// belongs is the arguments, written without it. Empty elsewhere.
    pub keyless_key: &'static [u8],
    /// Log the repairs made in each object of a top-level array as it closes
    /// ([`Repairer::take_log`]), for a body whose calls end inside it (a JSON
    /// envelope's array).
    pub log_repairs: bool,
}

/// The tools to look a call's name up in, and the depth of its arguments object.
#[derive(Clone, Debug)]
pub(crate) struct ToolByName {
    pub tools: std::sync::Arc<crate::schema::Tools>,
    pub args_depth: usize,
}

/// A string being captured: a key of the call object, or its `"name"` value.
#[derive(Clone, Debug, Default)]
struct Capture {
    active: bool,
    is_key: bool,
    /// Where the string's bytes start in the current output buffer.
    from: Option<usize>,
    buf: SmallVec<[u8; 64]>,
    last_key: SmallVec<[u8; 16]>,
}

const MAX_CAPTURE: usize = 256;

impl Default for Options {
    fn default() -> Options {
        Options {
            max_depth: 128,
            lookahead: 256,
            max_held: 4096,
            terminators: MarkerSet::default(),
            trailer: b"",
            alt_string: b"",
            keys: KeyCheck::default(),
            python: false,
            tool_by_name: None,
            keyless_key: b"",
            log_repairs: false,
        }
    }
}

/// Cloned only to fork a reading (`json/readings.rs`).
#[derive(Clone)]
pub(crate) struct Repairer {
    opts: Options,
    /// Terminators, then the curly openers and the alt string opener.
    structural: MarkerSet,
    /// The look-ahead's byte classes, with the terminators (boxed: a repairer with no
    /// look-ahead yet need not be larger).
    la_classes: Box<Classes>,
    st: St,
    comment_prev: St,
    stack: Vec<u8>,
    /// The containers open when the current `feed` began, and the fewest open at any
    /// point of it (`nesting`).
    fed_at: usize,
    low: usize,
    /// Held structural bytes: a comma and its blanks (`hold[..tok]`), then the current
    /// token (`hold[tok..]`); in `Bare`, the trailing blanks.
    hold: Vec<u8>,
    tok: usize,
    /// A held escape sequence, starting with `\`.
    esc: Vec<u8>,
    /// A partial UTF-8 sequence.
    utf8: SmallVec<[u8; 4]>,
    /// Bytes of a possible multi-byte marker being matched.
    marker: Vec<u8>,
    marker_in_string: bool,
    /// The running look-ahead, boxed: it moves between here, `memo` and `la_spare`.
    la: Option<Box<Lookahead>>,
    /// Look-aheads' storage not in use, for the next quotes'. No more are ever made
    /// than are in use at once (the running one and the memo's), and none is dropped
    /// until the repairer is: a quote allocates no look-ahead once two exist. (Boxes in
    /// the vector too: they move to `la` and `memo` as they are.)
    #[allow(clippy::vec_box)]
    la_spare: Vec<Box<Lookahead>>,
    /// The verdict the look-ahead reached in [`lane_lookahead`](Self::lane_lookahead),
    /// resolved first thing by the next `feed` or `drain_at_eof`.
    decided: Option<Verdict>,
    la_closer: usize,
    pending: Vec<u8>,
    replay: Vec<u8>,
    rpos: usize,
    /// Scratch for `requeue`.
    spare: Vec<u8>,
    /// Stream position of the next byte read (requeued bytes are read again).
    pos: u64,
    /// Bytes examined since the last [`take_work`](Self::take_work), replays and
    /// look-ahead included.
    work: u64,
    /// Where the running look-ahead started reading.
    la_start: u64,
    /// The last look-ahead that ran out its window, and where it started: the next
    /// candidate quote inside its window resumes from it instead of reading again.
    /// Only strings not [`suspect`](Self::suspect) keep or resume one: a suspect string's
    /// look-ahead checks keys (`Ctx::suspect`), so it reads differently.
    memo: Option<(Box<Lookahead>, u64)>,
    /// Tests turn the memo off to check it never changes a verdict.
    #[cfg(test)]
    memo_off: bool,
    /// Tests: never take the strict fast path (to compare with it).
    pub(crate) strict_off: bool,
    /// Tests: never read structure in bulk (`strict_run`), to compare with it.
    #[cfg(test)]
    pub(crate) bulk_off: bool,
    /// Input bytes a failed strict attempt may have read that are not fed yet: no new
    /// attempt starts among them, so each byte is read by at most one failed attempt
    /// (kept across calls: a push of many broken calls stays linear).
    strict_skip: usize,
    #[cfg(test)]
    memo_hits: usize,
    /// Tests: how many quotes `closes_at_once` closed.
    #[cfg(test)]
    closed_hits: usize,
    repairs: Repairs,
    /// Repairs made since the last entry of `log` (with `Options::log_repairs`).
    fresh: Repairs,
    /// The repairs made in each object of a top-level array, in the order they closed.
    log: Vec<Repairs>,
    stop: Option<Status>,
    started: bool,
    /// Which terminator ended the value (an id in `opts.terminators`).
    terminated_by: Option<MarkerId>,
    /// How many containers the terminator closed: the last bytes written.
    closed_by_terminator: usize,
    /// Positional arguments seen in a Python call.
    positional: usize,
    /// Inside a dialect string: a held `,KEY:` + opener or `}` + closer that would show
    /// the string's closing delimiter was lost (see [`alt_probe`]).
    alt_hold: Vec<u8>,
    /// Capture of the call object's keys and name (see [`Options::tool_by_name`]).
    capture: Capture,
    /// The string being read already needed a repair (see [`Ctx::suspect`]).
    suspect: bool,
    /// The string being read escaped a newline (`\n`): a `\'` in it is its text's own.
    newline_escaped: bool,
    /// In a dialect with a string token: the bytes after a bare value's possible end
    /// (`,`, `}`, `<`), held while what follows decides (see [`bare_probe`]).
    bare_hold: Vec<u8>,
    /// How weak decisions are taken (see `json/readings.rs`).
    policy: Policy,
    /// The siblings that parted from this reading ([`Policy::track`]).
    parted: Parted,
    /// The call form the options were made for ([`set_call_options`]), 0 when they
    /// were set otherwise.
    ///
    /// [`set_call_options`]: Self::set_call_options
    options_of: usize,
}

/// Bytes held at most while deciding whether a dialect string's closer was lost.
const ALT_PROBE_MAX: usize = 64;

const CURLY_DOUBLE_OPEN: &[u8] = "\u{201c}".as_bytes();
const CURLY_SINGLE_OPEN: &[u8] = "\u{2018}".as_bytes();

/// Unicode whitespace models put between tokens; JSON allows only ASCII blanks there.
const SPECIAL_WHITESPACE: &[&str] = &[
    "\u{a0}", "\u{180e}", "\u{2000}", "\u{2001}", "\u{2002}", "\u{2003}", "\u{2004}", "\u{2005}",
    "\u{2006}", "\u{2007}", "\u{2008}", "\u{2009}", "\u{200a}", "\u{200b}", "\u{202f}", "\u{205f}",
    "\u{3000}", "\u{feff}",
];

impl Repairer {
    pub(crate) fn new(opts: Options) -> Repairer {
        let mut r = Repairer {
            opts,
            structural: MarkerSet::default(),
            la_classes: Box::new(Classes::new(&MarkerSet::default())),
            st: St::Value,
            comment_prev: St::Value,
            stack: Vec::new(),
            fed_at: 0,
            low: 0,
            hold: Vec::new(),
            tok: 0,
            esc: Vec::new(),
            utf8: SmallVec::new(),
            marker: Vec::new(),
            marker_in_string: false,
            la: None,
            la_spare: Vec::new(),
            decided: None,
            la_closer: 0,
            pending: Vec::new(),
            replay: Vec::new(),
            rpos: 0,
            spare: Vec::new(),
            pos: 0,
            work: 0,
            la_start: 0,
            memo: None,
            #[cfg(test)]
            memo_off: false,
            strict_off: false,
            #[cfg(test)]
            bulk_off: false,
            strict_skip: 0,
            #[cfg(test)]
            memo_hits: 0,
            #[cfg(test)]
            closed_hits: 0,
            repairs: Repairs::NONE,
            fresh: Repairs::NONE,
            log: Vec::new(),
            stop: None,
            started: false,
            terminated_by: None,
            closed_by_terminator: 0,
            positional: 0,
            alt_hold: Vec::new(),
            capture: Capture::default(),
            suspect: false,
            newline_escaped: false,
            bare_hold: Vec::new(),
            policy: Policy::default(),
            parted: Parted::default(),
            options_of: 0,
        };
        r.rebuild();
        r
    }

    fn rebuild(&mut self) {
        let mut set = self.opts.terminators.clone();
        set.push(CURLY_DOUBLE_OPEN);
        set.push(CURLY_SINGLE_OPEN);
        for ws in SPECIAL_WHITESPACE {
            set.push(ws.as_bytes());
        }
        if !self.opts.alt_string.is_empty() {
            set.push(self.opts.alt_string);
        }
        self.structural = set;
        *self.la_classes = Classes::new(&self.opts.terminators);
    }

    /// Drop the memo, keeping its look-ahead's storage (`la_spare`).
    fn forget_memo(&mut self) {
        if let Some((la, _)) = self.memo.take() {
            self.la_spare.push(la);
        }
    }

    /// Replace the options (terminators, keys, limits) before feeding a new value.
    pub(crate) fn set_options(&mut self, opts: Options) {
        self.opts = opts;
        self.options_of = 0;
        self.forget_memo();
        self.rebuild();
    }

    /// Replace the options for a call of the form at address `form`, with the
    /// `terminators` it makes. A form always makes the same terminators, so when the
    /// last options were made for it (with the same raw string delimiter) they and the
    /// marker tables built from them are kept, and `terminators` is not called (only
    /// checked, in debug builds): many small calls set up no tables.
    pub(crate) fn set_call_options(
        &mut self,
        form: usize,
        mut opts: Options,
        terminators: impl FnOnce() -> MarkerSet,
    ) {
        if form == self.options_of && opts.alt_string == self.opts.alt_string {
            #[cfg(debug_assertions)]
            assert!(terminators().same_markers(&self.opts.terminators));
            opts.terminators = std::mem::take(&mut self.opts.terminators);
            self.opts = opts;
            self.forget_memo();
            return;
        }
        opts.terminators = terminators();
        self.set_options(opts);
        self.options_of = form;
    }

    /// Set the keys the look-ahead checks (the tool became known before its arguments).
    pub(crate) fn set_keys(&mut self, keys: KeyCheck) {
        self.opts.keys = keys;
        self.forget_memo();
    }

    /// Read Python call arguments (see [`Options::python`]).
    pub(crate) fn set_python(&mut self, python: bool) {
        self.opts.python = python;
    }

    /// Start over for a new value, keeping allocations and options.
    pub(crate) fn reset(&mut self) {
        self.bare_hold.clear();
        self.capture = Capture::default();
        self.st = St::Value;
        self.comment_prev = St::Value;
        self.stack.clear();
        self.hold.clear();
        self.tok = 0;
        self.esc.clear();
        self.utf8.clear();
        self.marker.clear();
        self.marker_in_string = false;
        self.la_spare.extend(self.la.take());
        self.decided = None;
        self.pending.clear();
        self.replay.clear();
        self.rpos = 0;
        self.pos = 0;
        self.forget_memo();
        self.repairs = Repairs::NONE;
        self.fresh = Repairs::NONE;
        self.log.clear();
        self.stop = None;
        self.started = false;
        self.positional = 0;
        self.alt_hold.clear();
        self.terminated_by = None;
        self.closed_by_terminator = 0;
        self.policy = Policy::default();
        self.parted = Parted::default();
    }

    /// The look-ahead's verdict waiting to be resolved by the next `feed` (at a
    /// [`Status::Fork`], the primary reading's at the fork).
    pub(crate) fn decided(&self) -> Option<Verdict> {
        self.decided
    }

    /// Add bytes after the leftover: the caller reads them next, after it.
    pub(crate) fn push_leftover(&mut self, bytes: &[u8]) {
        self.replay.extend_from_slice(bytes);
    }

    /// Set how weak decisions are taken (see `json/readings.rs`).
    pub(crate) fn set_policy(&mut self, policy: Policy) {
        self.policy = policy;
    }

    /// Note from now on where the siblings this reading stands for part from it.
    pub(crate) fn track_siblings(&mut self) {
        self.policy.track = true;
    }

    /// How weak decisions are taken (see `json/readings.rs`).
    pub(crate) fn policy(&self) -> Policy {
        self.policy
    }

    /// Read one call of a body of several, as a competing reading does: stop where it
    /// ends ([`Policy::one_call`]).
    pub(crate) fn one_call(&mut self) {
        self.policy.one_call = true;
    }

    /// The siblings that parted from this reading (see `json/readings.rs`).
    pub(crate) fn parted(&self) -> Parted {
        self.parted
    }

    /// The terminator that ended the value, if one did.
    pub(crate) fn terminated_by(&self) -> Option<&'static [u8]> {
        self.terminated_by.map(|id| self.opts.terminators.get(id))
    }

    /// How many closers the terminator supplied (the last bytes written).
    pub(crate) fn closed_by_terminator(&self) -> usize {
        self.closed_by_terminator
    }

    pub(crate) fn repairs(&self) -> Repairs {
        self.repairs
    }

    /// Bytes examined since the last call (for [`Stats::work`](crate::Stats::work)).
    pub(crate) fn take_work(&mut self) -> u64 {
        std::mem::take(&mut self.work)
    }

    /// Whether any non-blank byte of the value has been seen.
    pub(crate) fn started(&self) -> bool {
        self.started
    }

    /// The bytes [`take_leftover`](Self::take_leftover) would return, left in place.
    pub(crate) fn leftover(&self) -> &[u8] {
        self.replay.get(self.rpos..).unwrap_or_default()
    }

    /// Bytes read but not used after stopping; they come before the rest of the input.
    pub(crate) fn take_leftover(&mut self) -> Vec<u8> {
        self.forget_memo();
        let rest = self.replay.split_off(self.rpos);
        self.replay.clear();
        self.rpos = 0;
        rest
    }

    /// How many bytes are held undecided.
    pub(crate) fn held(&self) -> usize {
        self.hold.len()
            + self.pending.len()
            + self.esc.len()
            + self.marker.len()
            + self.alt_hold.len()
            + self.bare_hold.len()
    }

    fn flag(&mut self, r: Repair) {
        self.repairs.insert(r);
        // Only an array body's calls end inside it.
        if self.opts.log_repairs && self.stack.first() == Some(&b'[') {
            self.fresh.insert(r);
        }
    }

    /// The repairs made in each object of a top-level array that closed since the last
    /// call (with `Options::log_repairs`), in order: one entry per object closed. A
    /// repair made after an object closed (a dropped closer after its `}`) is the
    /// next one's, however the input was cut.
    pub(crate) fn take_log(&mut self) -> std::vec::Drain<'_, Repairs> {
        self.log.drain(..)
    }

    /// Whether [`take_log`](Self::take_log) has entries.
    #[inline]
    pub(crate) fn logged(&self) -> bool {
        !self.log.is_empty()
    }

    fn take_stop(&mut self, consumed: usize) -> Option<Status> {
        self.stop.take().map(|stop| match stop {
            Status::Complete { .. } => Status::Complete { consumed },
            Status::Terminated { marker, .. } => Status::Terminated { consumed, marker },
            Status::TooDeep { .. } => Status::TooDeep { consumed },
            Status::HeldOverflow { .. } => Status::HeldOverflow { consumed },
            Status::Fork { .. } => Status::Fork { consumed },
            Status::CallEnded { .. } => Status::CallEnded { consumed },
            other => other,
        })
    }

    /// The string fast path: inside a string with nothing held, replayed, captured or
    /// looked ahead, read the run of content `feed` would read first (`string_run`),
    /// with the same effects, and return its length (0 when the state does not allow
    /// it). A caller that knows what the run means downstream skips `feed`'s machinery.
    pub(crate) fn pass_string(&mut self, input: &[u8], out: &mut Vec<u8>) -> usize {
        if !self.in_idle_string() {
            return 0;
        }
        self.pass_idle_string(input, out)
    }

    /// [`pass_string`](Self::pass_string) where the caller has checked
    /// [`in_idle_string`](Self::in_idle_string).
    #[inline]
    pub(crate) fn pass_idle_string(&mut self, input: &[u8], out: &mut Vec<u8>) -> usize {
        debug_assert!(self.in_idle_string());
        let St::Str { delim, key } = self.st else {
            return 0;
        };
        // A long string's usual chunk, all plain: copied here, with no `string_run`
        // frame (it cost such a chunk about a tenth of its instructions).
        let n = match delim == Delim::Double && !input.iter().any(|&b| DOUBLE_STOP[b as usize]) {
            true => {
                out.extend_from_slice(input);
                self.work += input.len() as u64;
                input.len()
            }
            false => self.string_run(delim, key, input, out),
        };
        self.pos += n as u64;
        self.work += n as u64;
        n
    }

    /// Whether a string is being read with nothing held: [`pass_string`](Self::pass_string)
    /// applies.
    pub(crate) fn in_idle_string(&self) -> bool {
        matches!(self.st, St::Str { .. }) && self.idle()
    }

    /// Nothing held, replayed, captured, looked ahead or stopped on: the bytes that
    /// come next may be read in bulk, with no per-byte decision pending.
    fn idle(&self) -> bool {
        self.held() == 0
            && self.la.is_none()
            && self.utf8.is_empty()
            && self.stop.is_none()
            && self.rpos >= self.replay.len()
            && !self.capture.active
    }

    /// Whether nothing was read yet but blanks: the first value may go through
    /// [`pass_value`](Self::pass_value).
    pub(crate) fn at_first_value(&self) -> bool {
        self.st == St::Value && self.stack.is_empty() && !self.started && self.held() == 0
    }

    /// The strict fast path (`strict.rs`): when the first value is a well-formed
    /// container at the start of `input`, take it as read, with the state it leaves
    /// (complete), and return its length; the caller uses `input[..n]` as the output,
    /// which is what `feed` would have written byte for byte. 0 when it does not apply.
    pub(crate) fn pass_value(&mut self, input: &[u8]) -> usize {
        if !self.at_first_value()
            || !self.idle()
            || self.opts.python
            || self.strict_off
            || self.strict_skip > 0
        {
            return 0;
        }
        let found =
            super::strict::well_formed_value(input, self.opts.max_depth, &self.opts.terminators);
        let Some(n) = found else {
            // A failed attempt may have read all of it.
            self.work += input.len() as u64;
            self.strict_skip = input.len();
            return 0;
        };
        self.started = true;
        self.pos += n as u64;
        self.work += n as u64;
        self.after_value();
        n
    }

    /// How the output of the last [`feed`](Self::feed) nests, for a reader that tracks
    /// it (the envelope's projection): `None` where the state does not say (in a
    /// comment; pythonic arguments). A container's bracket is written when it opens
    /// and when it closes, and an escape is written whole, so the output never ends
    /// after a lone backslash.
    pub(crate) fn nesting(&self) -> Option<Nesting> {
        let in_string = match self.st {
            St::Str { .. } | St::Bare => true,
            St::Value
            | St::KeyOrEnd
            | St::Colon
            | St::After
            | St::Comma
            | St::Num
            | St::Word { .. }
            | St::KeyQuote
            | St::Done => false,
            St::Comment { .. } | St::Slash => return None,
        };
        (!self.opts.python).then_some(Nesting {
            before: self.fed_at,
            low: self.low,
            after: self.stack.len(),
            in_string,
        })
    }

    /// Feed input; decided output is appended to `out`.
    pub(crate) fn feed(&mut self, input: &[u8], out: &mut Vec<u8>) -> Status {
        self.fed_at = self.stack.len();
        self.low = self.fed_at;
        if self.capture.active {
            self.capture.from = Some(out.len());
        }
        let status = self.feed_bytes(input, out);
        let consumed = match status {
            Status::NeedMore => input.len(),
            Status::Complete { consumed }
            | Status::Terminated { consumed, .. }
            | Status::TooDeep { consumed }
            | Status::HeldOverflow { consumed }
            | Status::Fork { consumed }
            | Status::CallEnded { consumed } => consumed,
        };
        self.strict_skip = self.strict_skip.saturating_sub(consumed);
        if let Some(from) = self.capture.from.take() {
            if self.capture.active {
                let room = MAX_CAPTURE.saturating_sub(self.capture.buf.len());
                let bytes = &out[from.min(out.len())..];
                self.capture
                    .buf
                    .extend_from_slice(&bytes[..bytes.len().min(room)]);
            }
        }
        status
    }

    /// A key or value string of the call object opens: capture it if it may name the
    /// tool. Inlined: only a call whose name may come from the arguments captures.
    #[inline]
    fn capture_open(&mut self, key: bool, out: &[u8]) {
        if self.opts.tool_by_name.is_some() {
            self.capture_opened(key, out);
        }
    }

    fn capture_opened(&mut self, key: bool, out: &[u8]) {
        let Some(lookup) = &self.opts.tool_by_name else {
            return;
        };
        if self.stack.len() != lookup.args_depth - 1 || self.opts.keys.keys.is_some() {
            return;
        }
        if key || self.capture.last_key.as_slice() == b"name" {
            self.capture.active = true;
            self.capture.is_key = key;
            self.capture.from = Some(out.len());
            self.capture.buf.clear();
        }
    }

    /// The captured string closed (before its closing quote is written). Inlined: most
    /// strings are not captured, and every key's close asks.
    #[inline]
    fn capture_close(&mut self, out: &[u8]) {
        if self.capture.active {
            self.capture_closed(out);
        }
    }

    fn capture_closed(&mut self, out: &[u8]) {
        self.capture.active = false;
        if let Some(from) = self.capture.from.take() {
            let room = MAX_CAPTURE.saturating_sub(self.capture.buf.len());
            let bytes = &out[from.min(out.len())..];
            self.capture
                .buf
                .extend_from_slice(&bytes[..bytes.len().min(room)]);
        }
        let text = std::mem::take(&mut self.capture.buf);
        if self.capture.is_key {
            self.capture.last_key = SmallVec::from_slice(&text[..text.len().min(16)]);
            return;
        }
        let Some(lookup) = &self.opts.tool_by_name else {
            return;
        };
        let quoted = [b"\"".as_slice(), &text, b"\""].concat();
        let Ok(name) = serde_json::from_slice::<String>(&quoted) else {
            return;
        };
        if let Some((tool, _)) = lookup.tools.resolve(name.trim()) {
            let check = KeyCheck::of(Some(tool), lookup.args_depth);
            if check.keys.is_some() {
                self.opts.keys = check;
            }
        }
    }

    fn feed_bytes(&mut self, input: &[u8], out: &mut Vec<u8>) -> Status {
        if let Some(v) = self.decided.take() {
            self.resolve(v, out);
        }
        if self.st == St::Done && self.stop.is_none() {
            return Status::Complete { consumed: 0 };
        }
        let mut i = 0;
        loop {
            if let Some(stop) = self.take_stop(i) {
                return stop;
            }
            if self.rpos < self.replay.len() {
                // Replayed bytes take the same bulk paths as fresh input.
                let replay = std::mem::take(&mut self.replay);
                let (n, verdict) = self.run(&replay[self.rpos..], usize::MAX, out);
                self.replay = replay;
                if n > 0 {
                    self.rpos += n;
                    self.pos += n as u64;
                    self.work += n as u64;
                    if let Some(v) = verdict {
                        self.resolve(v, out);
                    }
                } else {
                    let b = self.replay[self.rpos];
                    self.rpos += 1;
                    self.pos += 1;
                    self.work += 1;
                    self.step(b, out);
                }
                if self.rpos >= self.replay.len() && self.rpos > 0 {
                    self.replay.clear();
                    self.rpos = 0;
                }
                continue;
            }
            if i >= input.len() {
                return Status::NeedMore;
            }
            let room = self.opts.max_held.saturating_sub(self.held());
            let (n, verdict) = self.run(&input[i..], room, out);
            if n > 0 {
                i += n;
                self.pos += n as u64;
                self.work += n as u64;
                if let Some(v) = verdict {
                    self.resolve(v, out);
                }
                continue;
            }
            let b = input[i];
            i += 1;
            self.pos += 1;
            self.work += 1;
            self.step(b, out);
            if self.held() > self.opts.max_held && self.stop.is_none() {
                return Status::HeldOverflow { consumed: i };
            }
        }
    }

    /// Consume a run of bytes in bulk when the state allows it (plain string content,
    /// the rest of a number or word, or bytes read by a look-ahead, at most `room` of
    /// them so the held limit is checked byte by byte near it); returns the bytes
    /// consumed, 0 for none, and the look-ahead's verdict if it decided (the caller
    /// resolves it). Always inlined into `feed`'s loop, which calls it for every run.
    #[inline(always)]
    fn run(&mut self, input: &[u8], room: usize, out: &mut Vec<u8>) -> (usize, Option<Verdict>) {
        if !self.marker.is_empty()
            || !self.alt_hold.is_empty()
            || !self.bare_hold.is_empty()
            || input.is_empty()
        {
            return (0, None);
        }
        if self.la.is_some() {
            let n = input.len().min(room);
            return self.la_run(&input[..n]);
        }
        match self.st {
            // A value's quote that waits for its look-ahead, where `strict_run`
            // stopped: `string_run` would read nothing.
            St::Str {
                delim: Delim::Double,
                key: false,
            } if input[0] == b'"' && self.quotes_wait() => (0, None),
            St::Str { delim, key } if self.esc.is_empty() && self.utf8.is_empty() => {
                (self.string_run(delim, key, input, out), None)
            }
            // The rest of a number or a word: bytes `num_byte` and `word_byte` would only
            // hold (ASCII words only: a wide byte may begin a structural marker).
            St::Num => (self.hold_run(input, room, is_number_byte), None),
            St::Word { .. } => (self.hold_run(input, room, is_ascii_word_byte), None),
            // Structure between strings: strict JSON in bulk.
            St::After | St::KeyOrEnd | St::Colon | St::Value | St::Comma
                if self.esc.is_empty() && self.utf8.is_empty() && !self.opts.python =>
            {
                (self.strict_run(input, room, out), None)
            }
            _ => (0, None),
        }
    }

    /// Structure that is strict JSON, read in bulk: blanks, commas, colons, brackets,
    /// whole keys, the openings of value strings and their content, whole numbers and
    /// literals, each with exactly the effects `step` has on its bytes (the same
    /// output, state, held bytes and flags; no repair applies to them). Stops before
    /// anything else: a byte that may begin a marker, a token the input ends inside, a
    /// value string's closing quote (the look-ahead's), a repair, the value's end, a
    /// limit. Returns the bytes read; `step` reads the next one. Out of line: `run`
    /// stays small enough to inline.
    #[inline(never)]
    fn strict_run(&mut self, input: &[u8], room: usize, out: &mut Vec<u8>) -> usize {
        #[cfg(test)]
        if self.bulk_off {
            return 0;
        }
        let mut i = 0;
        while let Some(&b) = input.get(i) {
            let n = match self.st {
                St::Str {
                    delim: Delim::Double,
                    key,
                } => {
                    // A short plain string (most keys and values here) up to its quote,
                    // as `string_run` reads it but with no call: a value's quote is
                    // then `step`'s, unless `content_quote` could take it.
                    let rest = &input[i..];
                    let plain = rest.iter().position(|&c| DOUBLE_STOP[c as usize]);
                    let n = match plain {
                        Some(n) if rest[n] == b'"' && (key || self.quotes_wait()) => {
                            out.extend_from_slice(&rest[..n]);
                            self.work += n as u64;
                            n
                        }
                        _ => self.string_run(Delim::Double, key, rest, out),
                    };
                    if !key || input.get(i + n) != Some(&b'"') {
                        // A value string goes on, or `step` decides its quote.
                        i += n;
                        if n == 0 || i == input.len() {
                            break;
                        }
                        continue;
                    }
                    // A key's closing quote, as `candidate_close` takes it.
                    self.capture_close(out);
                    out.push(b'"');
                    self.st = St::Colon;
                    n + 1
                }
                St::After | St::KeyOrEnd | St::Colon | St::Value if is_blank(b) => {
                    out.push(b);
                    1
                }
                _ if self.structural.starts_with_byte(b) => break,
                St::After => match b {
                    b',' => self.strict_comma(&input[i..], room, out),
                    b'}' | b']' => self.strict_close(b, out),
                    _ => 0,
                },
                St::KeyOrEnd => match b {
                    b'"' => {
                        self.strict_string(true, out);
                        1
                    }
                    b'}' => self.strict_close(b, out),
                    _ => 0,
                },
                St::Colon if b == b':' => {
                    self.started = true;
                    out.push(b':');
                    self.st = St::Value;
                    1
                }
                St::Value => match b {
                    b'"' => {
                        self.strict_string(false, out);
                        1
                    }
                    b'{' | b'[' => self.strict_open(b, out),
                    b']' => self.strict_close(b, out),
                    _ => match strict_scalar(&input[i..]).filter(|&n| n <= room) {
                        Some(n) if !self.stack.is_empty() => {
                            // As `token_start` and `end_number` / `end_word` leave it.
                            self.started = true;
                            self.hold.clear();
                            self.tok = 0;
                            out.extend_from_slice(&input[i..i + n]);
                            self.st = St::After;
                            n
                        }
                        _ => 0,
                    },
                },
                // After a comma `step` held: a string begins the next item.
                St::Comma if b == b'"' => {
                    self.open_string(Delim::Double, out);
                    1
                }
                _ => 0,
            };
            if n == 0 {
                break;
            }
            i += n;
            if matches!(b, b'}' | b']') && self.stop.is_some() {
                // A call object of the array closed, read as one call's readings:
                // `feed` stops right after it.
                break;
            }
        }
        i
    }

    /// A comma after a value, its blanks and the first token of the next item (a key,
    /// or in an array a string, container, number or literal), read as `step` reads
    /// them: the comma and blanks held, then written when the token begins. 0 when the
    /// input ends first, the token is another or needs a repair, or the held limit is
    /// near (`room`).
    fn strict_comma(&mut self, input: &[u8], room: usize, out: &mut Vec<u8>) -> usize {
        debug_assert_eq!((self.st, input[0]), (St::After, b','));
        let Some(blanks) = input[1..].iter().position(|&c| !is_blank(c)) else {
            return 0;
        };
        let head = 1 + blanks;
        let t = input[head];
        let in_object = self.stack.last() == Some(&b'{');
        if head > room || self.structural.starts_with_byte(t) {
            return 0;
        }
        let (n, tok) = match t {
            b'"' => (head, 1),
            b'{' | b'[' if !in_object && self.stack.len() < self.opts.max_depth => (head, 1),
            _ if !in_object => match strict_scalar(&input[head..]) {
                // `token_start` after a comma keeps the comma and blanks before the
                // token (`tok`); `end_word` starts over.
                Some(len) if head + len <= room => {
                    let tok = if matches!(t, b't' | b'f' | b'n') {
                        0
                    } else {
                        head
                    };
                    (head + len, tok)
                }
                _ => return 0,
            },
            _ => return 0,
        };
        self.started = true;
        out.extend_from_slice(&input[..n]);
        self.hold.clear();
        self.tok = tok;
        // What `open_string` and `strict_open` do where `begin_item` has nothing left to
        // write, inline: a key after a comma is the commonest token of structure-heavy
        // arguments, and calling them cost about 1 % of `args_19k`.
        match t {
            b'"' => {
                self.strict_string(in_object, out);
                n + 1
            }
            b'{' | b'[' => {
                self.stack.push(t);
                out.push(t);
                self.st = if t == b'{' { St::KeyOrEnd } else { St::Value };
                n + 1
            }
            _ => {
                self.st = St::After;
                n
            }
        }
    }

    /// A `"` string opening, as `open_string` opens it where `begin_item` has nothing
    /// to write (a key where one belongs, a value, a comma's next item written with
    /// it): inlined, as most strings of structure-heavy arguments open here.
    #[inline(always)]
    fn strict_string(&mut self, key: bool, out: &mut Vec<u8>) {
        self.started = true;
        out.push(b'"');
        self.suspect = false;
        self.newline_escaped = false;
        self.capture_open(key, out);
        self.st = St::Str {
            delim: Delim::Double,
            key,
        };
    }

    /// A container opening where a value belongs, as `structural_token` opens it; 0 at
    /// the depth limit.
    fn strict_open(&mut self, b: u8, out: &mut Vec<u8>) -> usize {
        debug_assert_eq!(self.st, St::Value);
        if self.stack.len() >= self.opts.max_depth {
            return 0;
        }
        self.started = true;
        self.stack.push(b);
        out.push(b);
        self.st = if b == b'{' { St::KeyOrEnd } else { St::Value };
        1
    }

    /// A closer of the innermost container where nothing is missing before it (after a
    /// value, `{}`, `[]`), as `structural_token` and `close` take it; 0 for any other
    /// closer, and for the value's last (`step` ends the value).
    fn strict_close(&mut self, b: u8, out: &mut Vec<u8>) -> usize {
        let open = if b == b'}' { b'{' } else { b'[' };
        if self.stack.len() < 2 || self.stack.last() != Some(&open) {
            return 0;
        }
        self.started = true;
        self.pop();
        out.push(b);
        self.st = St::After;
        1
    }

    /// Hold the bytes at the start of `input` (at most `room`) that `keep` accepts;
    /// returns how many. Out of line: `run` stays small enough to inline.
    #[inline(never)]
    fn hold_run(&mut self, input: &[u8], room: usize, keep: fn(u8) -> bool) -> usize {
        let input = &input[..input.len().min(room)];
        let n = input.iter().position(|&b| !keep(b)).unwrap_or(input.len());
        self.hold.extend_from_slice(&input[..n]);
        n
    }

    /// Whether a look-ahead is reading (`lane_lookahead` may apply).
    #[inline]
    pub(crate) fn looking_ahead(&self) -> bool {
        self.la.is_some()
    }

    /// Whether a look-ahead reads with nothing replayed, held apart from it, decided or
    /// stopped on: what [`lane_lookahead`](Self::lane_lookahead) needs but the held
    /// limit. Reading bytes with it keeps it so; only `feed` can change it.
    pub(crate) fn lookahead_clean(&self) -> bool {
        self.la.is_some()
            && self.decided.is_none()
            && self.stop.is_none()
            && self.rpos >= self.replay.len()
            && self.marker.is_empty()
            && self.alt_hold.is_empty()
            && self.bare_hold.is_empty()
    }

    /// The look-ahead fast path, where [`lookahead_clean`](Self::lookahead_clean) holds:
    /// `feed` would only hand the bytes to the look-ahead and write nothing. Read `input`
    /// that way (all of it, or none when the held limit could be reached: `feed` reports
    /// that at its byte) and return how many bytes were read and whether the look-ahead
    /// decided. If it did, the verdict is kept (`decided`) and the caller must run
    /// `feed` next, before anything else: `feed` resolves it first, as it would have at
    /// once.
    #[inline]
    pub(crate) fn lane_lookahead(&mut self, input: &[u8]) -> (usize, bool) {
        debug_assert!(self.lookahead_clean());
        // `held()` with the three that `lookahead_clean` has empty left out.
        if self.hold.len() + self.pending.len() + self.esc.len() + input.len() > self.opts.max_held
        {
            return (0, false);
        }
        debug_assert_eq!(
            self.held(),
            self.hold.len() + self.pending.len() + self.esc.len()
        );
        let (n, verdict) = self.la_run(input);
        self.pos += n as u64;
        self.work += n as u64;
        self.strict_skip = self.strict_skip.saturating_sub(n);
        self.decided = verdict;
        (n, verdict.is_some())
    }

    /// Feed bytes to the running look-ahead until it decides or the bytes run out.
    #[inline(never)]
    fn la_run(&mut self, input: &[u8]) -> (usize, Option<Verdict>) {
        let Some(la) = self.la.as_mut() else {
            return (0, None);
        };
        let ctx = la_ctx(&self.opts, &self.la_classes, self.suspect);
        let (n, verdict) = la.read_run(input, &ctx);
        self.pending.extend_from_slice(&input[..n]);
        (n, verdict)
    }

    /// Copy a run of string content; returns the bytes consumed. Plain bytes are copied
    /// as they are, and in a quoted string so are whole simple escapes (`\n`, `\"`)
    /// and raw control bytes (escaped, as `content_byte` does): the usual content of a
    /// long string needs no `step` per byte. Anything else stops the run.
    fn string_run(&mut self, delim: Delim, key: bool, input: &[u8], out: &mut Vec<u8>) -> usize {
        let quoted = matches!(delim, Delim::Double | Delim::Single);
        let mut i = 0;
        // The run is copied as it stands but for control bytes and inner quotes: one copy
        // from `copied` up to each of them and one at the end, not one a piece.
        let mut copied = 0;
        loop {
            let rest = &input[i..];
            let n = if delim == Delim::Double {
                rest.iter().position(|&b| DOUBLE_STOP[b as usize])
            } else {
                let alt0 = self.opts.alt_string.first().copied().unwrap_or(b'"');
                rest.iter().position(|&b| {
                    b < 0x20
                        || b == b'"'
                        || b == b'\\'
                        || b >= 0x80
                        || (delim == Delim::Single && b == b'\'')
                        || (delim == Delim::Alt && matches!(b, b'`' | b',' | b'}'))
                        || (delim == Delim::Alt && b == alt0)
                })
            }
            .unwrap_or(rest.len());
            i += n;
            let Some(&b) = input.get(i) else {
                break;
            };
            match b {
                b'\\' if quoted && input.get(i + 1).is_some_and(|&c| simple_escape(c)) => {
                    self.newline_escaped |= input[i + 1] == b'n';
                    i += 2;
                }
                // `\d`: a backslash before a plain byte that begins no escape is kept as
                // text, as `escape_byte` does; the byte is read on as content.
                b'\\'
                    if delim == Delim::Double
                        && input.get(i + 1).is_some_and(|&c| {
                            let python = self.opts.python && !self.suspect;
                            !(escape_start(c, python) || DOUBLE_STOP[c as usize])
                        }) =>
                {
                    self.flag(Repair::InvalidEscape);
                    out.extend_from_slice(&input[copied..i]);
                    out.extend_from_slice(b"\\\\");
                    i += 1;
                    copied = i;
                }
                0..=0x1f if quoted => {
                    self.flag(Repair::ControlCharacter);
                    self.suspect = true;
                    out.extend_from_slice(&input[copied..i]);
                    escape_byte(b, out);
                    i += 1;
                    copied = i;
                }
                b'"' if delim == Delim::Double && !key => {
                    if !self.content_quote(input.get(i + 1).copied()) {
                        break;
                    }
                    out.extend_from_slice(&input[copied..i]);
                    out.extend_from_slice(b"\\\"");
                    i += 1;
                    copied = i;
                }
                0x80.. if !matches!(delim, Delim::CurlyDouble | Delim::CurlySingle) => {
                    // Validate a non-ASCII run in bulk; partial or invalid sequences go
                    // to `step`.
                    let rest = &input[i..];
                    let m = rest.iter().position(|&b| b < 0x80).unwrap_or(rest.len());
                    let valid = match std::str::from_utf8(&rest[..m]) {
                        Ok(_) => m,
                        Err(e) => e.valid_up_to(),
                    };
                    i += valid;
                    if valid < m {
                        break;
                    }
                }
                _ => break,
            }
        }
        out.extend_from_slice(&input[copied..i]);
        self.work += i as u64;
        i
    }

    /// Whether every value string's quote waits for a look-ahead: while a memo is kept,
    /// [`content_quote`](Self::content_quote) takes none.
    fn quotes_wait(&self) -> bool {
        self.memo.is_some()
    }

    /// Whether a quote in a value string is content as the byte after it, `next`,
    /// shows: one no string end can be followed by, which a look-ahead would answer
    /// [`Verdict::Content`] at (`content_at_once`). If so, the quote's effects are those
    /// `resolve` has (the caller writes it escaped). Not while an earlier look-ahead is
    /// kept to resume: it reads this quote differently. (Out of line: most runs meet no
    /// such quote.)
    #[inline(never)]
    fn content_quote(&mut self, next: Option<u8>) -> bool {
        let content = !self.quotes_wait()
            && next.is_some_and(|next| {
                content_at_once(
                    next,
                    self.opts.lookahead,
                    &self.opts.terminators,
                    self.opts.python,
                )
            });
        if content {
            self.flag(Repair::UnescapedQuote);
            self.suspect = true;
        }
        content
    }

    /// Put bytes back in front of the unread input (no allocation once the buffers
    /// have grown: into the consumed part of `replay`, or through `spare`).
    fn requeue(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        self.pos -= bytes.len() as u64;
        if self.rpos >= bytes.len() {
            let start = self.rpos - bytes.len();
            self.replay[start..self.rpos].copy_from_slice(bytes);
            self.rpos = start;
            return;
        }
        self.spare.clear();
        self.spare.extend_from_slice(bytes);
        self.spare.extend_from_slice(&self.replay[self.rpos..]);
        std::mem::swap(&mut self.replay, &mut self.spare);
        self.rpos = 0;
    }

    fn step(&mut self, b: u8, out: &mut Vec<u8>) {
        self.work += 1;
        if self.la.is_some() {
            self.la_step(b, out);
            return;
        }
        if !self.marker.is_empty() {
            self.marker.push(b);
            self.check_marker(out);
            return;
        }
        if !self.alt_hold.is_empty() {
            self.alt_hold.push(b);
            self.check_alt_hold(out);
            return;
        }
        match self.st {
            St::Str { delim, key } => self.string_byte(b, delim, key, out),
            St::Num => self.num_byte(b, out),
            St::Word { key } => self.word_byte(b, key, out),
            St::KeyQuote => self.key_quote_byte(b, out),
            St::Bare => self.bare_byte(b, out),
            St::Comment { .. } | St::Slash => self.comment_byte(b, out),
            // The value ended on this byte's arrival: it belongs to whatever follows.
            St::Done => self.requeue(&[b]),
            _ => self.structural(b, out),
        }
    }

    /// A byte read by the running look-ahead (held in `pending` until it decides), when
    /// `run` did not take it. Out of line, like `comment_byte`: `step` runs for every
    /// byte of structure, and the registers what it inlines needs are saved and
    /// restored on every call.
    #[inline(never)]
    fn la_step(&mut self, b: u8, out: &mut Vec<u8>) {
        if let (_, Some(v)) = self.la_run(&[b]) {
            self.resolve(v, out);
        }
    }

    /// A byte in a comment, or after a `/` that may begin one (`step` calls it in no
    /// other state).
    #[inline(never)]
    fn comment_byte(&mut self, b: u8, out: &mut Vec<u8>) {
        debug_assert!(matches!(self.st, St::Comment { .. } | St::Slash));
        match self.st {
            St::Comment { block, star } => {
                if block {
                    if star && b == b'/' {
                        self.st = self.comment_prev;
                    } else {
                        self.st = St::Comment {
                            block,
                            star: b == b'*',
                        };
                    }
                } else if b == b'\n' {
                    self.st = self.comment_prev;
                    self.structural(b, out);
                }
            }
            St::Slash => match b {
                b'/' | b'*' => {
                    self.flag(Repair::Comment);
                    self.st = St::Comment {
                        block: b == b'*',
                        star: false,
                    };
                }
                _ => {
                    // Not a comment: a bare word starting with `/` (a path, say).
                    self.st = self.comment_prev;
                    self.token_start(b'/', out);
                    self.step(b, out);
                }
            },
            _ => {}
        }
    }

    // ---- structure ----

    fn structural(&mut self, b: u8, out: &mut Vec<u8>) {
        if is_blank(b) {
            if self.st == St::Comma {
                self.hold.push(b);
            } else {
                out.push(b);
            }
            return;
        }
        if self.structural.starts_with_byte(b) {
            self.marker.clear();
            self.marker.push(b);
            self.marker_in_string = false;
            self.check_marker(out);
            return;
        }
        self.structural_token(b, out);
    }

    fn check_marker(&mut self, out: &mut Vec<u8>) {
        if self.marker_in_string {
            let alt = self.opts.alt_string;
            if self.marker.as_slice() == alt {
                self.marker.clear();
                match self.st {
                    // A value's delimiter may be its content, as a `"` may: what
                    // follows decides, read in the dialect's syntax.
                    St::Str { delim, key: false } => {
                        self.candidate_close(delim, false, alt.len(), alt, out);
                    }
                    _ => {
                        out.push(b'"');
                        self.after_value();
                    }
                }
            } else if !alt.starts_with(&self.marker) {
                let bytes = take_held(&mut self.marker);
                self.content_byte(bytes[0], true, out);
                self.requeue(&bytes[1..]);
            }
            return;
        }
        match self.structural.match_at(&self.marker, 0) {
            Found::Partial { .. } => {}
            Found::Full { id, .. } => {
                let m = self.structural.get(id);
                self.marker.clear();
                if SPECIAL_WHITESPACE.iter().any(|ws| ws.as_bytes() == m) {
                    // Between tokens it is a blank; dropped, since JSON has no such blank.
                    self.flag(Repair::SpecialWhitespace);
                    return;
                }
                if m == CURLY_DOUBLE_OPEN || m == CURLY_SINGLE_OPEN || m == self.opts.alt_string {
                    let delim = if m == CURLY_DOUBLE_OPEN {
                        self.flag(Repair::CurlyQuotedString);
                        Delim::CurlyDouble
                    } else if m == CURLY_SINGLE_OPEN {
                        self.flag(Repair::CurlyQuotedString);
                        Delim::CurlySingle
                    } else {
                        Delim::Alt
                    };
                    self.open_string(delim, out);
                } else {
                    self.closed_by_terminator = self.stack.len();
                    self.close_all(out);
                    if self.started {
                        self.flag(Repair::MissingClosers);
                    }
                    self.st = St::Done;
                    self.terminated_by = Some(id);
                    self.stop = Some(Status::Terminated {
                        consumed: 0,
                        marker: id,
                    });
                }
            }
            Found::None => {
                let bytes = take_held(&mut self.marker);
                self.structural_token(bytes[0], out);
                self.requeue(&bytes[1..]);
            }
        }
    }

    /// Whether the innermost container is a JSON envelope's call object (the body's
    /// object, or an object in the body's array), where a keyless object is the
    /// arguments ([`Options::keyless_key`]).
    fn at_call_object(&self) -> bool {
        !self.opts.keyless_key.is_empty() && matches!(self.stack.as_slice(), [b'{'] | [b'[', b'{'])
    }

    /// Emit what must precede an item here; returns whether the item is a key.
    fn begin_item(&mut self, out: &mut Vec<u8>) -> bool {
        let in_object = self.stack.last() == Some(&b'{');
        match self.st {
            St::KeyOrEnd => true,
            St::Colon => {
                self.flag(Repair::MissingColon);
                out.push(b':');
                false
            }
            St::After => {
                self.flag(Repair::MissingComma);
                out.push(b',');
                in_object
            }
            St::Comma => {
                out.extend_from_slice(&self.hold);
                self.hold.clear();
                in_object
            }
            _ => false,
        }
    }

    fn open_string(&mut self, delim: Delim, out: &mut Vec<u8>) {
        self.started = true;
        let key = self.begin_item(out);
        out.push(b'"');
        self.suspect = false;
        self.newline_escaped = false;
        self.capture_open(key, out);
        self.st = St::Str { delim, key };
    }

    fn structural_token(&mut self, b: u8, out: &mut Vec<u8>) {
        self.started = true;
        if self.opts.python {
            match b {
                // A tuple is an array; `)` closes it, or the call's arguments object.
                b'(' => return self.structural_token(b'[', out),
                b')' => {
                    let call = self.stack.len() == 1 && self.stack[0] == b'{';
                    return self.structural_token(if call { b'}' } else { b']' }, out);
                }
                b'"' | b'\'' | b'[' | b'{' | b'-' | b'.' | b'0'..=b'9' if self.at_argument() => {
                    self.positional_key(out);
                }
                _ => {}
            }
        }
        match b {
            b'"' => self.open_string(Delim::Double, out),
            b'\'' => {
                self.flag(Repair::SingleQuotedString);
                self.open_string(Delim::Single, out);
            }
            b'{' | b'[' => {
                let n = self.stack.len();
                let key_position = matches!(self.st, St::KeyOrEnd | St::After | St::Comma)
                    && self.stack.last() == Some(&b'{');
                if b == b'{' && key_position && n >= 2 && self.stack[n - 2] == b'[' {
                    // `[{"i":1{"i":2}]`: an element's `}` was dropped before the next one.
                    self.flag(Repair::MissingClosers);
                    self.hold.clear();
                    self.pop();
                    out.extend_from_slice(b"},");
                    self.st = St::Value;
                    self.structural_token(b, out);
                    return;
                }
                let at_key = match self.st {
                    St::KeyOrEnd => true,
                    St::After | St::Comma => self.stack.last() == Some(&b'{'),
                    _ => false,
                };
                if at_key && b == b'{' && self.at_call_object() {
                    // `{"name": "f", {...}}`: the call's arguments without their key.
                    self.flag(Repair::KeylessArguments);
                    self.begin_item(out);
                    out.push(b'"');
                    out.extend_from_slice(self.opts.keyless_key);
                    out.extend_from_slice(b"\":");
                    self.st = St::Value;
                    return self.structural_token(b, out);
                }
                if at_key {
                    // A container where a key belongs: nothing sensible to keep. Drop
                    // it before writing a comma, so the member state stays as it was.
                    self.flag(Repair::StrayText);
                    return;
                }
                self.begin_item(out);
                if self.stack.len() >= self.opts.max_depth {
                    self.stop = Some(Status::TooDeep { consumed: 0 });
                    return;
                }
                self.stack.push(b);
                out.push(b);
                self.st = if b == b'{' { St::KeyOrEnd } else { St::Value };
            }
            b'}' | b']' => {
                let open = if b == b'}' { b'{' } else { b'[' };
                if !self.stack.contains(&open) {
                    // Closes nothing that is open: drop it and stay where we are.
                    self.flag(Repair::RedundantCloser);
                    return;
                }
                match self.st {
                    St::Comma => {
                        self.flag(Repair::TrailingComma);
                        out.extend_from_slice(self.hold.get(1..).unwrap_or_default());
                        self.hold.clear();
                        // The member is whole again, whatever this closer turns out to be.
                        self.st = St::After;
                    }
                    St::Colon => {
                        self.flag(Repair::MissingValue);
                        out.extend_from_slice(b":null");
                        self.st = St::After;
                    }
                    St::Value if self.stack.last() == Some(&b'{') => {
                        self.flag(Repair::MissingValue);
                        out.extend_from_slice(b"null");
                        self.st = St::After;
                    }
                    _ => {}
                }
                self.close(b, out);
            }
            b',' => match self.st {
                St::After => {
                    self.hold.clear();
                    self.hold.push(b',');
                    self.tok = 1;
                    self.st = St::Comma;
                }
                St::Colon | St::Value if self.stack.last() == Some(&b'{') => {
                    self.flag(Repair::MissingValue);
                    if self.st == St::Colon {
                        out.push(b':');
                    }
                    out.extend_from_slice(b"null");
                    self.st = St::After;
                    self.structural_token(b, out);
                }
                _ => self.flag(Repair::TrailingComma),
            },
            b':' => match self.st {
                St::Colon => {
                    out.push(b':');
                    self.st = St::Value;
                }
                _ => self.flag(Repair::StrayText),
            },
            b'=' if self.st == St::Colon => {
                if !self.opts.python {
                    self.flag(Repair::MissingColon);
                }
                out.push(b':');
                self.st = St::Value;
            }
            b'/' if self.st != St::Done => {
                self.comment_prev = self.st;
                self.st = St::Slash;
            }
            b'#' if !matches!(self.st, St::Value) => {
                self.flag(Repair::Comment);
                self.comment_prev = self.st;
                self.st = St::Comment {
                    block: false,
                    star: false,
                };
            }
            _ => self.token_start(b, out),
        }
    }

    /// Start a number or a bare word; a held comma stays held until it resolves.
    fn token_start(&mut self, b: u8, out: &mut Vec<u8>) {
        self.started = true;
        let key = if self.st == St::Comma {
            self.tok = self.hold.len();
            self.stack.last() == Some(&b'{')
        } else {
            let key = self.begin_item(out);
            self.hold.clear();
            self.tok = 0;
            key
        };
        self.hold.push(b);
        self.st = if !key && (b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.')) {
            St::Num
        } else {
            St::Word { key }
        };
    }

    /// Whether a Python call's next argument starts here (a key or a positional value).
    fn at_argument(&self) -> bool {
        self.stack.len() == 1
            && self.stack[0] == b'{'
            && matches!(self.st, St::KeyOrEnd | St::Comma)
    }

    /// A positional argument: its key is the tool's parameter in declaration order
    /// (`arg0`, `arg1`, ... when the tool is unknown).
    fn positional_key(&mut self, out: &mut Vec<u8>) {
        self.flag(Repair::PositionalArgument);
        if self.st == St::Comma {
            out.extend_from_slice(&self.hold);
            self.hold.clear();
            self.tok = 0;
        }
        let n = self.positional;
        self.positional += 1;
        let check = &self.opts.keys;
        let declared = (check.in_order)
            .then(|| check.keys.as_ref()?.get(n).cloned())
            .flatten();
        let key = declared.unwrap_or_else(|| format!("arg{n}"));
        out.extend_from_slice(serde_json::Value::String(key).to_string().as_bytes());
        out.push(b':');
        self.st = St::Value;
    }

    fn close(&mut self, b: u8, out: &mut Vec<u8>) {
        let open = if b == b'}' { b'{' } else { b'[' };
        if self.stack.last() == Some(&open) {
            self.pop();
            out.push(b);
            self.after_value();
        } else if self.stack.contains(&open) {
            // Closes an outer container: close the inner ones first.
            self.flag(Repair::RedundantCloser);
            while let Some(top) = self.pop() {
                out.push(if top == b'{' { b'}' } else { b']' });
                if top == open {
                    break;
                }
            }
            self.after_value();
        } else {
            self.flag(Repair::RedundantCloser);
            if self.st != St::Value || self.stack.last() != Some(&b'[') {
                // Keep the position we were in (After, KeyOrEnd, ...).
            }
        }
    }

    /// Close the innermost container (its closer is written with it, always).
    fn pop(&mut self) -> Option<u8> {
        let top = self.stack.pop();
        if self.opts.log_repairs && top == Some(b'{') && self.stack.as_slice() == b"[" {
            let fresh = std::mem::take(&mut self.fresh);
            self.log.push(fresh);
            if self.policy.one_call {
                // A reading of one call of the body: it ends here.
                self.stop = Some(Status::CallEnded { consumed: 0 });
            }
        }
        self.low = self.low.min(self.stack.len());
        top
    }

    fn after_value(&mut self) {
        if self.stack.is_empty() {
            self.st = St::Done;
            self.stop = Some(Status::Complete { consumed: 0 });
        } else {
            self.st = St::After;
        }
    }

    /// Emit the closers of every open container.
    fn close_all(&mut self, out: &mut Vec<u8>) {
        while let Some(top) = self.pop() {
            out.push(if top == b'{' { b'}' } else { b']' });
        }
    }

    // ---- strings ----

    fn string_byte(&mut self, b: u8, delim: Delim, key: bool, out: &mut Vec<u8>) {
        if !self.esc.is_empty() {
            self.escape_byte(b, delim, key, out);
            return;
        }
        if !self.utf8.is_empty() || b >= 0x80 {
            if let Some(seq) = self.utf8_byte(b, out) {
                if matches!(delim, Delim::CurlyDouble | Delim::CurlySingle)
                    && seq.as_slice() == delim.closer(b"")
                {
                    self.candidate_close(delim, key, seq.len(), &seq, out);
                } else {
                    out.extend_from_slice(&seq);
                }
            }
            return;
        }
        match b {
            b'\\' if delim != Delim::Alt => self.esc.push(b),
            b'"' if delim == Delim::Double => self.candidate_close(delim, key, 1, b"\"", out),
            b'\'' if delim == Delim::Single => self.candidate_close(delim, key, 1, b"'", out),
            b'`' | b',' | b'}' if delim == Delim::Alt && !key => {
                self.alt_hold.push(b);
            }
            _ if delim == Delim::Alt && self.opts.alt_string.first() == Some(&b) => {
                self.marker.clear();
                self.marker.push(b);
                self.marker_in_string = true;
                self.check_marker(out);
            }
            _ => self.content_byte(b, delim == Delim::Alt, out),
        }
    }

    /// Decide a held probe inside a dialect string: a lost closer ends the string before
    /// the probe, anything else makes its first byte content.
    fn check_alt_hold(&mut self, out: &mut Vec<u8>) {
        match alt_probe(&self.alt_hold, self.opts.alt_string, &self.opts.terminators) {
            Probe::Maybe if self.alt_hold.len() <= ALT_PROBE_MAX => {}
            Probe::Lost { from } => {
                let held = take_held(&mut self.alt_hold);
                self.flag(Repair::UnclosedString);
                out.push(b'"');
                self.after_value();
                self.requeue(&held[from..]);
            }
            _ => {
                let held = take_held(&mut self.alt_hold);
                self.content_byte(held[0], true, out);
                self.requeue(&held[1..]);
            }
        }
    }

    /// Plain content inside a string or bare word: escaped as JSON needs.
    fn content_byte(&mut self, b: u8, raw_backslash: bool, out: &mut Vec<u8>) {
        match b {
            0..=0x1f => {
                // Raw text in a dialect's own string token may hold newlines; elsewhere
                // a raw control byte is a repair.
                if !raw_backslash {
                    self.flag(Repair::ControlCharacter);
                    self.suspect = true;
                }
                escape_byte(b, out);
            }
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' if raw_backslash => out.extend_from_slice(b"\\\\"),
            0x80.. => {
                if let Some(seq) = self.utf8_byte(b, out) {
                    out.extend_from_slice(&seq);
                }
            }
            _ => out.push(b),
        }
    }

    /// Collect a UTF-8 sequence; returns it once complete and valid.
    fn utf8_byte(&mut self, b: u8, out: &mut Vec<u8>) -> Option<SmallVec<[u8; 4]>> {
        if !self.utf8.is_empty() {
            if (0x80..=0xbf).contains(&b) {
                self.utf8.push(b);
                if Some(self.utf8.len()) == char_len(self.utf8[0]) {
                    let seq = std::mem::take(&mut self.utf8);
                    if std::str::from_utf8(&seq).is_ok() {
                        return Some(seq);
                    }
                    self.flag(Repair::InvalidUtf8);
                    out.extend_from_slice(REPLACEMENT);
                }
                return None;
            }
            // The sequence broke off: replace it, then read `b` afresh.
            self.utf8.clear();
            self.flag(Repair::InvalidUtf8);
            out.extend_from_slice(REPLACEMENT);
            self.requeue(&[b]);
            return None;
        }
        if char_len(b).is_none() {
            self.flag(Repair::InvalidUtf8);
            out.extend_from_slice(REPLACEMENT);
            return None;
        }
        self.utf8.push(b);
        None
    }

    fn candidate_close(
        &mut self,
        delim: Delim,
        key: bool,
        len: usize,
        closer: &[u8],
        out: &mut Vec<u8>,
    ) {
        if key {
            self.capture_close(out);
            out.push(b'"');
            self.st = St::Colon;
            return;
        }
        self.la_closer = len;
        self.pending.clear();
        self.pending.extend_from_slice(closer);
        self.la_start = self.pos;
        if self.resume(delim) || self.closes_at_once(delim, out) {
            return;
        }
        self.la = Some(self.fresh_lookahead());
    }

    /// A look-ahead started after the quote just read: a spare one restarted in place,
    /// or a new one.
    fn fresh_lookahead(&mut self) -> Box<Lookahead> {
        let mut la = match self.la_spare.pop() {
            Some(mut la) => {
                la.restart(&self.stack, self.opts.lookahead);
                la
            }
            None => Box::new(Lookahead::new(&self.stack, self.opts.lookahead)),
        };
        la.keyless = !self.opts.keyless_key.is_empty();
        la.python = self.opts.python;
        la.alt = self.opts.alt_string;
        if self.suspect {
            la.read_to_end();
        }
        la
    }

    /// Where the quote just read stands in the memo's reading (its `seen` count), and
    /// how many replayed bytes are left after it, if the memo may answer for it: a `"`
    /// string's quote after the memo's start, the string not suspect.
    fn memo_at(&self, delim: Delim) -> Option<(usize, usize)> {
        let (_, start) = self.memo.as_ref()?;
        if delim != Delim::Double || self.suspect || self.pos <= *start {
            return None;
        }
        let at = usize::try_from(self.pos - *start).ok()?;
        Some((at, self.replay.len().saturating_sub(self.rpos)))
    }

    /// The look-ahead for the quote just read taken over from the last exhausted one, if
    /// that one read past this quote as the end of a nested string at this depth: the
    /// bytes it read after the quote move from the replay buffer to `pending` unread.
    /// Returns whether it was.
    fn resume(&mut self, delim: Delim) -> bool {
        let (Some((at, available)), Some((prev, _))) = (self.memo_at(delim), self.memo.as_mut())
        else {
            return false;
        };
        // A miss keeps the memo: a later quote at this depth may still be in it.
        let Some(read) = prev.resume_at(at, &self.stack, available) else {
            return false;
        };
        debug_assert_eq!(prev.read(), read);
        self.la = self.memo.take().map(|(la, _)| la);
        self.pending
            .extend_from_slice(&self.replay[self.rpos..self.rpos + read]);
        #[cfg(test)]
        {
            self.memo_hits += 1;
        }
        self.rpos += read;
        self.pos += read as u64;
        self.work += read as u64;
        true
    }

    /// Whether the quote just read ends a nested string as the memo shows: it read on
    /// past the quote to the close of the string's container, and a look-ahead started
    /// there (`Lookahead::closed_at`) decides `Close` within the replayed bytes after
    /// the closer. If so, the quote is closed as `resolve` closes it, with nothing moved
    /// or read again: a quote in a nested object or array costs no look-ahead of its own.
    fn closes_at_once(&mut self, delim: Delim, out: &mut Vec<u8>) -> bool {
        let (Some((at, available)), Some((prev, _))) = (self.memo_at(delim), self.memo.as_ref())
        else {
            return false;
        };
        let Some(read) = prev.closed_after(at, &self.stack, available) else {
            return false;
        };
        let mut la = self.fresh_lookahead();
        la.closed_at(read);
        let ctx = la_ctx(&self.opts, &self.la_classes, self.suspect);
        // A token or two after the closer decide: `step`, not `read_run`, which is
        // inlined in the lane's path only.
        let after = &self.replay[self.rpos + read..];
        let (n, verdict) = after
            .iter()
            .enumerate()
            .find_map(|(i, &b)| la.step(b, &ctx).map(|v| (i + 1, Some(v))))
            .unwrap_or((after.len(), None));
        // Exhausted, it would have become the memo: left to the usual path.
        let close = verdict == Some(Verdict::Close) && !la.exhausted();
        self.la_spare.push(la);
        self.work += n as u64;
        if !close {
            return false;
        }
        #[cfg(test)]
        {
            self.closed_hits += 1;
        }
        self.pending.clear();
        self.capture_close(out);
        out.push(b'"');
        self.after_value();
        true
    }

    /// Whether the look-ahead's `verdict` is weak: a `Close` of a string that already
    /// showed it is malformed, reached at no token only its real end allows
    /// ([`Lookahead::strong`]), or a `Content` decided past the first byte (a quote
    /// followed by what could be structure, `"x", "b": fast`). Only these may be
    /// decided by the whole call instead (`json/readings.rs`).
    fn weak(&self, verdict: Verdict) -> bool {
        let Some(la) = self.la.as_ref() else {
            return false;
        };
        match verdict {
            Verdict::Close => (self.suspect && !la.strong()) || la.lenient(),
            Verdict::Content => la.read() > 1,
        }
    }

    fn resolve(&mut self, mut verdict: Verdict, out: &mut Vec<u8>) {
        if let Some(forced) = self.policy.force.take() {
            verdict = forced;
        } else if (self.policy.arm || self.policy.track || self.policy.weak != Weak::LookAhead)
            && self.weak(verdict)
        {
            if self.policy.arm {
                // Stop here: the caller clones this state for the competing readings.
                self.policy.arm = false;
                self.decided = Some(verdict);
                self.stop = Some(Status::Fork { consumed: 0 });
                return;
            }
            let taken = self.policy.weak.verdict(verdict, self.suspect);
            if self.policy.track {
                self.parted.note(verdict, taken, self.suspect);
            }
            verdict = taken;
        }
        // A quote that is content shows the string is malformed.
        self.suspect |= verdict == Verdict::Content;
        #[cfg(test)]
        let memo_off = self.memo_off;
        #[cfg(not(test))]
        let memo_off = false;
        if let Some(la) = self.la.take() {
            let keep = verdict == Verdict::Close && la.exhausted() && !self.suspect;
            let spare = match keep && !memo_off {
                true => self.memo.replace((la, self.la_start)).map(|(old, _)| old),
                false => Some(la),
            };
            self.la_spare.extend(spare);
        }
        let pending = std::mem::take(&mut self.pending);
        let St::Str { delim, .. } = self.st else {
            unreachable!("a look-ahead runs only inside a string")
        };
        match verdict {
            Verdict::Close => {
                self.capture_close(out);
                out.push(b'"');
                self.after_value();
            }
            Verdict::Content => {
                // A string's own delimiter read as its content, whatever the delimiter.
                self.flag(Repair::UnescapedQuote);
                match delim {
                    Delim::Double => out.extend_from_slice(b"\\\""),
                    // `<|"|>` holds a quote to escape.
                    Delim::Alt => {
                        for &b in &pending[..self.la_closer] {
                            self.content_byte(b, true, out);
                        }
                    }
                    _ => out.extend_from_slice(&pending[..self.la_closer]),
                }
            }
        }
        self.requeue(&pending[self.la_closer..]);
        self.pending = pending;
        self.pending.clear();
    }

    fn escape_byte(&mut self, b: u8, delim: Delim, key: bool, out: &mut Vec<u8>) {
        if self.opts.python && self.esc.get(1).is_some_and(|&c| python_escape(c)) {
            self.python_escape_byte(b, out);
            return;
        }
        self.esc.push(b);
        let n = self.esc.len();
        if n == 2 {
            match b {
                _ if simple_escape(b) => {
                    self.newline_escaped |= b == b'n';
                    out.extend_from_slice(&self.esc);
                    self.esc.clear();
                }
                // `\'` is not JSON; the quote needs no escape. In a `"` string already
                // shown raw (raw quotes or control bytes), or one that escapes its
                // newlines (a file written with them escaped and its backslashes raw),
                // it is the text's own backslash (a shell, regex or JS quote): kept, as
                // any other. Elsewhere it is the slip it usually is: dropped.
                b'\'' if delim == Delim::Single || !(self.suspect || self.newline_escaped) => {
                    if delim != Delim::Single && !self.opts.python {
                        self.flag(Repair::InvalidEscape);
                    }
                    out.push(b'\'');
                    self.esc.clear();
                }
                b'u' => {}
                // In a string already shown raw, the text's own backslash, as above.
                _ if self.opts.python && !self.suspect && python_escape(b) => {
                    self.python_escape_start(b, out)
                }
                _ => {
                    self.flag(Repair::InvalidEscape);
                    out.extend_from_slice(b"\\\\");
                    self.esc.clear();
                    self.string_byte(b, delim, key, out);
                }
            }
            return;
        }
        // Inside `\uXXXX` (and a possible `\uXXXX` low surrogate after it).
        let hex_pos = matches!(n, 3..=6 | 9..=12);
        let ok = if hex_pos {
            b.is_ascii_hexdigit()
        } else {
            (n == 7 && b == b'\\') || (n == 8 && b == b'u')
        };
        if !ok {
            let seq = take_held(&mut self.esc);
            if n <= 6 {
                // `\u12G`: not an escape; keep the backslash as text.
                self.flag(Repair::InvalidEscape);
                out.extend_from_slice(b"\\\\");
                self.requeue(&seq[1..]);
            } else if self.suspect {
                // In a string already shown raw, the text's own backslash.
                self.flag(Repair::InvalidEscape);
                out.extend_from_slice(b"\\\\");
                self.requeue(&seq[1..]);
            } else {
                // A high surrogate without its low half: no character, so not an escape;
                // the text as written (a file's own `\ud800` comes back exact).
                self.flag(Repair::LoneSurrogate);
                out.extend_from_slice(b"\\\\");
                self.requeue(&seq[1..]);
            }
            return;
        }
        if n == 6 {
            let unit = hex4(&self.esc[2..6]);
            match unit {
                0xd800..=0xdbff => {}
                0xdc00..=0xdfff if self.suspect => {
                    let seq = take_held(&mut self.esc);
                    self.flag(Repair::InvalidEscape);
                    out.extend_from_slice(b"\\\\");
                    self.requeue(&seq[1..]);
                }
                0xdc00..=0xdfff => {
                    let seq = take_held(&mut self.esc);
                    self.flag(Repair::LoneSurrogate);
                    out.extend_from_slice(b"\\\\");
                    self.requeue(&seq[1..]);
                }
                _ => {
                    out.extend_from_slice(&self.esc);
                    self.esc.clear();
                }
            }
        } else if n == 12 {
            let low = hex4(&self.esc[8..12]);
            if (0xdc00..=0xdfff).contains(&low) {
                out.extend_from_slice(&self.esc);
                self.esc.clear();
            } else if self.suspect {
                let seq = take_held(&mut self.esc);
                self.flag(Repair::InvalidEscape);
                out.extend_from_slice(b"\\\\");
                self.requeue(&seq[1..]);
            } else {
                let seq = take_held(&mut self.esc);
                self.flag(Repair::LoneSurrogate);
                out.extend_from_slice(b"\\\\");
                self.requeue(&seq[1..]);
            }
        }
    }

    /// The byte after a backslash in a Python string that begins one of Python's own
    /// escapes (see [`python_escape`]): a one-byte one is written at once (a line
    /// continuation writes nothing); `\xhh`, `\Uhhhhhhhh` and octal are held on.
    fn python_escape_start(&mut self, b: u8, out: &mut Vec<u8>) {
        match b {
            b'a' => write_code_point(0x07, out),
            b'v' => write_code_point(0x0b, out),
            b'\n' => {}
            _ => return,
        }
        self.esc.clear();
    }

    /// A byte of a held Python escape (`\xhh`, `\Uhhhhhhhh`, `\ooo`): the code point
    /// is written as `\uXXXX` (a pair of them past the BMP) once the escape is whole.
    /// `\x` or `\U` without all their digits, or a code point past Unicode or a
    /// surrogate, is no escape: the backslash is kept as text (`invalid_escape`) and the
    /// bytes after it read on, as for `\u12G`.
    fn python_escape_byte(&mut self, b: u8, out: &mut Vec<u8>) {
        // Octal has one to three digits, the first right after the backslash.
        let (want, radix, first) = match self.esc[1] {
            b'x' => (2, 16, 2),
            b'U' => (8, 16, 2),
            _ => (3, 8, 1),
        };
        let octal = radix == 8;
        let digit = (b as char).is_digit(radix);
        if !digit && octal {
            let value = octal_value(&self.esc[1..]);
            self.esc.clear();
            write_code_point(value, out);
            self.requeue(&[b]);
            return;
        }
        self.esc.push(b);
        if !digit {
            let seq = take_held(&mut self.esc);
            self.flag(Repair::InvalidEscape);
            out.extend_from_slice(b"\\\\");
            self.requeue(&seq[1..]);
            return;
        }
        if self.esc.len() - first < want {
            return;
        }
        let value = if octal {
            octal_value(&self.esc[1..])
        } else {
            self.esc[2..].iter().fold(0, |acc, &c| {
                acc * 16 + (c as char).to_digit(16).unwrap_or(0)
            })
        };
        if char::from_u32(value).is_none() {
            let seq = take_held(&mut self.esc);
            self.flag(Repair::InvalidEscape);
            out.extend_from_slice(b"\\\\");
            self.requeue(&seq[1..]);
            return;
        }
        self.esc.clear();
        write_code_point(value, out);
    }

    // ---- numbers, words, bare strings ----

    fn num_byte(&mut self, b: u8, out: &mut Vec<u8>) {
        if is_number_byte(b) {
            self.hold.push(b);
            return;
        }
        if b.is_ascii_alphabetic() || b == b'_' {
            self.st = St::Word { key: false };
            self.hold.push(b);
            return;
        }
        self.end_number(out);
        self.step(b, out);
    }

    fn end_number(&mut self, out: &mut Vec<u8>) {
        let tok = &self.hold[self.tok..];
        if tok.len() >= 2 && tok.iter().all(|&c| c == b'.') {
            self.flag(Repair::Ellipsis);
            self.hold.truncate(self.tok);
            self.st = if self.tok > 0 { St::Comma } else { St::Value };
            if self.tok == 0 {
                self.hold.clear();
            }
            return;
        }
        let mut norm: SmallVec<[u8; 32]> = SmallVec::new();
        let verdict = normalize_number(tok, &mut norm);
        out.extend_from_slice(&self.hold[..self.tok]);
        match verdict {
            NumberKind::Valid => out.extend_from_slice(&self.hold[self.tok..]),
            NumberKind::Normalized => {
                self.flag(Repair::NumberNormalized);
                out.extend_from_slice(&norm);
            }
            NumberKind::NotANumber => {
                let tok = self.hold[self.tok..].to_vec();
                self.emit_word_string(&tok, out);
            }
        }
        self.hold.clear();
        self.after_value();
    }

    fn word_byte(&mut self, b: u8, key: bool, out: &mut Vec<u8>) {
        if is_word_byte(b)
            && !(self.hold.len() > self.tok && self.structural.starts_with_byte(b) && b >= 0x80)
        {
            self.hold.push(b);
            return;
        }
        self.end_word(key, Some(b), out);
    }

    fn end_word(&mut self, key: bool, next: Option<u8>, out: &mut Vec<u8>) {
        if key
            && self.hold.len() >= self.tok + 2
            && self.hold[self.tok..].iter().all(|&c| c == b'.')
        {
            // `{...}`: a placeholder member, removed as in an array.
            self.flag(Repair::Ellipsis);
            self.hold.truncate(self.tok);
            self.st = if self.tok > 0 {
                St::Comma
            } else {
                St::KeyOrEnd
            };
            if self.tok == 0 {
                self.hold.clear();
            }
            self.tok = 0;
            if let Some(b) = next {
                self.step(b, out);
            }
            return;
        }
        if key && next == Some(b'"') && !self.opts.python {
            // `arguments": {`: a key that lost its opening quote, if a colon follows
            // the quote (`key_quote_byte`); held until then.
            self.hold.push(b'"');
            self.st = St::KeyQuote;
            return;
        }
        // Words are short (a literal, a bare key): kept inline, no allocation a word.
        let word: SmallVec<[u8; 32]> = SmallVec::from_slice(&self.hold[self.tok..]);
        out.extend_from_slice(&self.hold[..self.tok]);
        self.hold.clear();
        self.tok = 0;
        let key = if key && self.opts.python && matches!(next, Some(b',' | b')')) {
            // `f(True, x)`: a word followed by the next argument is a positional value.
            self.positional_key(out);
            false
        } else {
            key
        };
        if key {
            self.flag(Repair::UnquotedKey);
            out.push(b'"');
            self.escape_all(&word, out);
            out.push(b'"');
            self.st = St::Colon;
        } else if let Some((lit, repair)) = literal(&word) {
            if let Some(r) = repair {
                self.flag(r);
            }
            out.extend_from_slice(lit);
            self.after_value();
        } else if next.is_none() && is_literal_prefix(&word) {
            // Cut inside a literal: never guess which one.
            out.extend_from_slice(b"null");
            self.after_value();
        } else {
            self.flag(Repair::UnquotedString);
            out.push(b'"');
            self.escape_all(&word, out);
            if next.is_some() {
                self.st = St::Bare;
            } else {
                out.push(b'"');
                self.after_value();
            }
        }
        if let Some(b) = next {
            self.step(b, out);
        }
    }

    /// After a bare key word and a `"` (held with the blanks after it): a colon makes
    /// the quote the key's closing one (its opening quote was lost); anything else
    /// leaves the word an unquoted key, and the quote and blanks are read again.
    fn key_quote_byte(&mut self, b: u8, out: &mut Vec<u8>) {
        if is_blank(b) {
            self.hold.push(b);
            return;
        }
        let quote = self.key_quote_at();
        if b == b':' {
            self.flag(Repair::MissingQuote);
            out.extend_from_slice(&self.hold[..self.tok]);
            out.push(b'"');
            let word: SmallVec<[u8; 32]> = SmallVec::from_slice(&self.hold[self.tok..quote]);
            self.escape_all(&word, out);
            out.push(b'"');
            out.extend_from_slice(&self.hold[quote + 1..]);
            self.hold.clear();
            self.tok = 0;
            self.st = St::Colon;
            return self.step(b, out);
        }
        let rest: SmallVec<[u8; 16]> = SmallVec::from_slice(&self.hold[quote..]);
        self.hold.truncate(quote);
        self.st = St::Word { key: true };
        self.end_word(true, None, out);
        for &c in rest.iter().chain(std::iter::once(&b)) {
            self.step(c, out);
        }
    }

    /// Where the `"` after the key word is in `hold` (`St::KeyQuote`).
    fn key_quote_at(&self) -> usize {
        self.tok
            + self.hold[self.tok..]
                .iter()
                .position(|&c| c == b'"')
                .expect("held after the word")
    }

    fn emit_word_string(&mut self, word: &[u8], out: &mut Vec<u8>) {
        self.flag(Repair::UnquotedString);
        out.push(b'"');
        self.escape_all(word, out);
        out.push(b'"');
    }

    fn escape_all(&mut self, bytes: &[u8], out: &mut Vec<u8>) {
        for &c in bytes {
            self.content_byte(c, true, out);
        }
        if !self.utf8.is_empty() {
            self.utf8.clear();
            self.flag(Repair::InvalidUtf8);
            out.extend_from_slice(REPLACEMENT);
        }
    }

    fn bare_byte(&mut self, b: u8, out: &mut Vec<u8>) {
        if !self.opts.alt_string.is_empty() && !self.opts.python {
            self.bare_alt_byte(b, out);
            return;
        }
        let ends = matches!(b, b',' | b'}' | b']' | b'\n' | b'\r')
            || (self.opts.python && b == b')')
            || (self.structural.starts_with_byte(b) && b < 0x80);
        if ends {
            if !self.utf8.is_empty() {
                self.utf8.clear();
                self.flag(Repair::InvalidUtf8);
                out.extend_from_slice(REPLACEMENT);
            }
            out.push(b'"');
            out.extend_from_slice(&self.hold);
            self.hold.clear();
            self.after_value();
            if self.stop.is_some() {
                self.requeue(&[b]);
            } else {
                self.structural(b, out);
            }
        } else if b == b' ' || b == b'\t' {
            self.hold.push(b);
        } else {
            // Blanks inside the word are content: a tab among them is escaped.
            let blanks = std::mem::take(&mut self.hold);
            for &c in &blanks {
                self.content_byte(c, true, out);
            }
            self.hold = blanks;
            self.hold.clear();
            self.content_byte(b, true, out);
        }
    }

    /// A bare value in a dialect whose strings are delimited by a token (Gemma's
    /// `<|"|>`): the model may have dropped the opening token of a large string, so the
    /// value runs on through newlines, commas and braces until its closing token, or until
    /// what follows a `,` or `}` shows the value really ended there (`,KEY:`, or `}` then
    /// the call's closer). The deciding bytes are held, a bounded amount.
    fn bare_alt_byte(&mut self, b: u8, out: &mut Vec<u8>) {
        if self.bare_hold.is_empty() && !matches!(b, b',' | b'}' | b'<') {
            // Blanks, newlines and everything else are content here.
            let blanks = std::mem::take(&mut self.hold);
            for &c in &blanks {
                self.content_byte(c, true, out);
            }
            self.hold = blanks;
            self.hold.clear();
            if b == b' ' || b == b'\t' {
                self.hold.push(b);
            } else {
                self.content_byte(b, true, out);
            }
            return;
        }
        self.bare_hold.push(b);
        match bare_probe(&self.bare_hold, self.opts.alt_string, &self.structural) {
            BareProbe::Maybe if self.bare_hold.len() <= 64 => {}
            BareProbe::Ends => self.end_bare(out),
            BareProbe::ClosedByToken => {
                // The value's closing token: it was a string whose opening was dropped.
                self.bare_hold.clear();
                out.push(b'"');
                self.hold.clear();
                self.after_value();
            }
            BareProbe::Maybe | BareProbe::Content => {
                let held = take_held(&mut self.bare_hold);
                let blanks = std::mem::take(&mut self.hold);
                for &c in &blanks {
                    self.content_byte(c, true, out);
                }
                self.content_byte(held[0], true, out);
                self.requeue(&held[1..]);
            }
        }
    }

    /// End a bare value before the held bytes, which are read again as structure.
    fn end_bare(&mut self, out: &mut Vec<u8>) {
        let held = take_held(&mut self.bare_hold);
        out.push(b'"');
        out.extend_from_slice(&self.hold);
        self.hold.clear();
        self.after_value();
        self.requeue(&held);
    }

    // ---- end of input ----

    /// At the end of the stream, resolve every held decision (a pending look-ahead
    /// closes, a partial marker is text) without closing anything. Returns `Complete`
    /// or `Terminated` when the value ended with what was held.
    pub(crate) fn drain_at_eof(&mut self, out: &mut Vec<u8>) -> Status {
        // No reading forks at the end: what is held is decided as it stands.
        self.policy.arm = false;
        if let Some(v) = self.decided.take() {
            self.resolve(v, out);
        }
        if !self.bare_hold.is_empty() {
            // The stream ended while deciding: the bare value ended before the held bytes.
            self.end_bare(out);
        }
        loop {
            if let Some(la) = self.la.as_mut() {
                la.end_of_stream();
                self.resolve(Verdict::Close, out);
            }
            if !self.alt_hold.is_empty() {
                // The stream ended inside the probe: its first byte is content.
                let held = take_held(&mut self.alt_hold);
                self.content_byte(held[0], true, out);
                self.requeue(&held[1..]);
                continue;
            }
            if !self.marker.is_empty() && self.rpos >= self.replay.len() {
                if self.marker_in_string {
                    let bytes = take_held(&mut self.marker);
                    for &c in &bytes {
                        self.content_byte(c, true, out);
                    }
                } else {
                    self.check_marker_final(out);
                }
            }
            let status = self.feed(&[], out);
            if status != Status::NeedMore {
                return status;
            }
            if self.la.is_none() && self.marker.is_empty() && self.rpos >= self.replay.len() {
                return Status::NeedMore;
            }
        }
    }

    /// End the value at the end of the stream: resolve what is held, finish the token
    /// being written (a cut literal becomes `null`, a cut number loses a dangling `.`
    /// or exponent) and close every open container. Returns `Complete` when the value
    /// had ended on its own.
    pub(crate) fn finish(&mut self, out: &mut Vec<u8>) -> Status {
        let status = self.drain_at_eof(out);
        if status != Status::NeedMore {
            return status;
        }
        if self.close_at_eof(out) {
            Status::NeedMore
        } else {
            // A top-level scalar may end where the input ends.
            Status::Complete { consumed: 0 }
        }
    }

    /// Close what is open after [`drain_at_eof`](Self::drain_at_eof). Returns whether
    /// the value was cut (anything had to be closed or completed).
    pub(crate) fn close_at_eof(&mut self, out: &mut Vec<u8>) -> bool {
        let token = self.hold.get(self.tok..).unwrap_or_default();
        let cut = !self.stack.is_empty()
            || matches!(self.st, St::Str { .. } | St::Colon | St::Comma)
            || (self.st == St::Value && self.started)
            // A literal or number cut mid-token (`nul`, `1e`) is truncated too.
            || (matches!(self.st, St::Word { .. }) && literal(token).is_none() && is_literal_prefix(token))
            || (self.st == St::Num && matches!(token.last(), Some(b'.' | b'e' | b'E' | b'+' | b'-')));
        match self.st {
            St::Num => self.end_number_at_eof(out),
            St::Word { key } => {
                self.end_word(key, None, out);
                if key {
                    out.extend_from_slice(b":null");
                }
            }
            St::KeyQuote => {
                // Cut after the quote: the word is the key, its value missing.
                self.hold.truncate(self.key_quote_at());
                self.end_word(true, None, out);
                out.extend_from_slice(b":null");
            }
            St::Bare => {
                out.push(b'"');
                self.hold.clear();
            }
            St::Str { key, .. } => {
                self.esc.clear();
                self.utf8.clear();
                out.push(b'"');
                if key {
                    out.extend_from_slice(b":null");
                }
            }
            St::Colon => out.extend_from_slice(b":null"),
            St::Value if self.stack.last() == Some(&b'{') => out.extend_from_slice(b"null"),
            St::Comma => self.hold.clear(),
            _ => {}
        }
        self.stop = None;
        self.close_all(out);
        self.st = St::Done;
        cut
    }

    fn check_marker_final(&mut self, out: &mut Vec<u8>) {
        // At the end of the stream a full marker that a longer one could have extended
        // counts as full.
        if let Found::Full { id, .. } = self.structural.find_final(&self.marker) {
            let m = self.structural.get(id);
            if m.len() == self.marker.len() {
                self.marker.clear();
                if m == CURLY_DOUBLE_OPEN || m == CURLY_SINGLE_OPEN || m == self.opts.alt_string {
                    let delim = if m == CURLY_DOUBLE_OPEN {
                        Delim::CurlyDouble
                    } else if m == CURLY_SINGLE_OPEN {
                        Delim::CurlySingle
                    } else {
                        Delim::Alt
                    };
                    self.open_string(delim, out);
                } else {
                    self.closed_by_terminator = self.stack.len();
                    self.close_all(out);
                    self.st = St::Done;
                    self.terminated_by = Some(id);
                    self.stop = Some(Status::Terminated {
                        consumed: 0,
                        marker: id,
                    });
                }
                return;
            }
        }
        let bytes = take_held(&mut self.marker);
        self.structural_token(bytes[0], out);
        self.requeue(&bytes[1..]);
    }

    fn end_number_at_eof(&mut self, out: &mut Vec<u8>) {
        // A number cut at the end: drop a dangling `.`, `e`, sign; never invent digits.
        while let Some(&c) = self.hold.last() {
            if self.hold.len() > self.tok && matches!(c, b'.' | b'e' | b'E' | b'+' | b'-') {
                self.hold.pop();
            } else {
                break;
            }
        }
        if self.hold.len() == self.tok {
            self.hold.clear();
            if self.stack.last() == Some(&b'{') {
                out.extend_from_slice(b"null");
            }
            return;
        }
        self.end_number(out);
    }
}

enum Probe {
    /// Could still become a lost closer.
    Maybe,
    /// Not a lost closer.
    No,
    /// The string's closer was lost: it ends before `held[from..]` (a stray backtick
    /// before `from` is dropped).
    Lost { from: usize },
}

/// Inside a dialect string (Gemma's `<|"|>`): `` ` ``? `,KEY:<|"|>` (the next member
/// begins with its own opener) or `` ` ``? `}` + the call's closer means the string's
/// closing delimiter was lost (models replace it with a backtick on large content).
fn alt_probe(held: &[u8], alt: &[u8], terminators: &MarkerSet) -> Probe {
    let from = usize::from(held.first() == Some(&b'`'));
    let Some(&first) = held.get(from) else {
        return Probe::Maybe;
    };
    let rest = &held[from + 1..];
    match first {
        b',' => {
            let key = rest
                .iter()
                .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_'))
                .unwrap_or(rest.len());
            if key == rest.len() {
                return Probe::Maybe;
            }
            if key == 0 || rest[key] != b':' {
                return Probe::No;
            }
            let open = &rest[key + 1..];
            if open.len() >= alt.len() {
                if open.starts_with(alt) {
                    Probe::Lost { from }
                } else {
                    Probe::No
                }
            } else if alt.starts_with(open) {
                Probe::Maybe
            } else {
                Probe::No
            }
        }
        b'}' => {
            if rest.is_empty() {
                return Probe::Maybe;
            }
            match terminators.match_at(rest, 0) {
                Found::Full { .. } => Probe::Lost { from },
                Found::Partial { .. } => Probe::Maybe,
                Found::None => Probe::No,
            }
        }
        _ => Probe::No,
    }
}

/// What the bytes after a bare value's possible end say (see
/// [`Repairer::bare_alt_byte`]).
enum BareProbe {
    Maybe,
    /// The value ended before the held bytes.
    Ends,
    /// The held bytes are the dialect's string token: it closed the value.
    ClosedByToken,
    Content,
}

fn bare_probe(held: &[u8], alt: &[u8], structural: &MarkerSet) -> BareProbe {
    let rest = &held[1..];
    match held[0] {
        b',' => {
            // Gemma writes `,KEY:VALUE` with no blanks; prose has them (`a, b: c`).
            let n = rest
                .iter()
                .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_'))
                .unwrap_or(rest.len());
            match (rest.get(n), rest.get(n + 1)) {
                (None, _) | (Some(b':'), None) if n > 0 || rest.is_empty() => BareProbe::Maybe,
                (Some(b':'), Some(v)) if n > 0 && !v.is_ascii_whitespace() => BareProbe::Ends,
                _ => BareProbe::Content,
            }
        }
        b'}' => {
            let start = rest.iter().position(|c| !c.is_ascii_whitespace());
            let Some(start) = start else {
                return BareProbe::Maybe;
            };
            match rest[start] {
                b',' | b'}' | b']' => BareProbe::Ends,
                _ => match structural.match_at(rest, start) {
                    Found::Full { id, .. } if structural.get(id) != alt => BareProbe::Ends,
                    Found::Partial { .. } => BareProbe::Maybe,
                    _ => BareProbe::Content,
                },
            }
        }
        _ => match structural.match_at(held, 0) {
            Found::Full { id, .. } if structural.get(id) == alt => BareProbe::ClosedByToken,
            Found::Full { .. } => BareProbe::Ends,
            Found::Partial { .. } => BareProbe::Maybe,
            Found::None => BareProbe::Content,
        },
    }
}

/// What a look-ahead of this repairer reads against.
fn la_ctx<'a>(opts: &'a Options, classes: &'a Classes, suspect: bool) -> Ctx<'a> {
    Ctx {
        terminators: &opts.terminators,
        trailer: opts.trailer,
        check: &opts.keys,
        suspect,
        python: opts.python,
        classes,
    }
}

fn hex4(h: &[u8]) -> u32 {
    h.iter().fold(0, |acc, &c| {
        acc * 16 + (c as char).to_digit(16).unwrap_or(0)
    })
}

/// A bare word that is a literal, and the repair it needs.
fn literal(word: &[u8]) -> Option<(&'static [u8], Option<Repair>)> {
    Some(match word {
        b"true" => (b"true", None),
        b"false" => (b"false", None),
        b"null" => (b"null", None),
        b"True" | b"TRUE" => (b"true", Some(Repair::PythonLiteral)),
        b"False" | b"FALSE" => (b"false", Some(Repair::PythonLiteral)),
        b"None" | b"NULL" | b"Null" | b"nil" => (b"null", Some(Repair::PythonLiteral)),
        b"NaN" | b"Infinity" | b"-Infinity" | b"+Infinity" | b"inf" | b"-inf" => {
            (b"null", Some(Repair::NonFiniteNumber))
        }
        b"undefined" => (b"null", Some(Repair::UndefinedLiteral)),
        _ => return None,
    })
}

/// The bare words that are literals (JSON's, Python's, JavaScript's).
pub(crate) const LITERALS: &[&[u8]] = &[
    b"true",
    b"false",
    b"null",
    b"True",
    b"False",
    b"None",
    b"NaN",
    b"Infinity",
    b"undefined",
];

fn is_literal_prefix(word: &[u8]) -> bool {
    !word.is_empty()
        && LITERALS
            .iter()
            .any(|l| l.len() > word.len() && l.starts_with(word))
}

enum NumberKind {
    Valid,
    Normalized,
    NotANumber,
}

/// The length of the strict JSON number or literal (`true`, `false`, `null`) at the start
/// of `input`, when a byte follows it that ends it as `num_byte` / `word_byte` end it
/// with no repair (`None` when the input ends first).
fn strict_scalar(input: &[u8]) -> Option<usize> {
    let first = *input.first()?;
    if first.is_ascii_digit() || first == b'-' {
        // One pass: the number as JSON spells it, then a byte that ends the token (not
        // one more number byte, which would make the token another).
        let n = strict_number_prefix(input)?;
        let next = *input.get(n)?;
        let strict = !(is_number_byte(next) || next.is_ascii_alphabetic() || next == b'_');
        debug_assert!(
            !strict
                || matches!(
                    normalize_number(&input[..n], &mut SmallVec::new()),
                    NumberKind::Valid
                )
        );
        return strict.then_some(n);
    }
    let n = input.iter().position(|&b| !is_ascii_word_byte(b))?;
    let word = &input[..n];
    // A byte over 0x7f would go on with the word (`word_byte`).
    let literal = matches!(word, b"true" | b"false" | b"null") && input[n] < 0x80;
    literal.then_some(n)
}

/// Whether `tok` is a number as JSON's grammar spells it (what `normalize_number`
/// calls valid).
#[cfg(test)]
fn is_strict_number(tok: &[u8]) -> bool {
    strict_number_prefix(tok) == Some(tok.len())
}

/// The bytes held in `held` (an escape, a marker, a probe), moved out so that `self`
/// can change while they are read again. The field keeps its storage (`std::mem::take`
/// would leave it none), and up to 72 bytes the copy stays on the stack, so a repair
/// that comes back chunk after chunk allocates nothing.
fn take_held(held: &mut Vec<u8>) -> SmallVec<[u8; 72]> {
    let bytes = SmallVec::from_slice(held);
    held.clear();
    bytes
}

/// The length of the number JSON's grammar spells at the start of `bytes` (`-`, then
/// an integer part with no leading zero, an optional fraction and an optional
/// exponent), read as far as it goes; `None` if none begins there or it breaks off
/// (`-`, `1.`, `1e+`) or the integer part has a leading zero.
fn strict_number_prefix(bytes: &[u8]) -> Option<usize> {
    let digits = |from: usize| {
        let mut end = from;
        while bytes.get(end).is_some_and(u8::is_ascii_digit) {
            end += 1;
        }
        end - from
    };
    let mut i = usize::from(bytes.first() == Some(&b'-'));
    let int = digits(i);
    if int == 0 || (int > 1 && bytes[i] == b'0') {
        return None;
    }
    i += int;
    if bytes.get(i) == Some(&b'.') {
        let frac = digits(i + 1);
        if frac == 0 {
            return None;
        }
        i += 1 + frac;
    }
    if matches!(bytes.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(bytes.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        let exp = digits(i);
        if exp == 0 {
            return None;
        }
        i += exp;
    }
    Some(i)
}

/// Check a number token against JSON's grammar and normalize the spellings models use.
fn normalize_number(tok: &[u8], norm: &mut SmallVec<[u8; 32]>) -> NumberKind {
    let mut i = 0;
    let mut changed = false;
    if tok.first() == Some(&b'+') {
        changed = true;
        i = 1;
    } else if tok.first() == Some(&b'-') {
        norm.push(b'-');
        i = 1;
    }
    let int_start = i;
    while i < tok.len() && tok[i].is_ascii_digit() {
        i += 1;
    }
    let int = &tok[int_start..i];
    if int.len() > 1 && int[0] == b'0' {
        return NumberKind::NotANumber; // `007`: keep it as text
    }
    if int.is_empty() {
        if tok.get(i) != Some(&b'.') {
            return NumberKind::NotANumber;
        }
        norm.push(b'0');
        changed = true;
    }
    norm.extend_from_slice(int);
    if tok.get(i) == Some(&b'.') {
        i += 1;
        let s = i;
        while i < tok.len() && tok[i].is_ascii_digit() {
            i += 1;
        }
        norm.push(b'.');
        if i == s {
            if int.is_empty() {
                return NumberKind::NotANumber;
            }
            norm.push(b'0');
            changed = true;
        } else {
            norm.extend_from_slice(&tok[s..i]);
        }
    }
    if matches!(tok.get(i), Some(b'e' | b'E')) {
        norm.push(tok[i]);
        i += 1;
        if matches!(tok.get(i), Some(b'+' | b'-')) {
            norm.push(tok[i]);
            i += 1;
        }
        let s = i;
        while i < tok.len() && tok[i].is_ascii_digit() {
            i += 1;
        }
        if i == s {
            return NumberKind::NotANumber;
        }
        norm.extend_from_slice(&tok[s..i]);
    }
    if i != tok.len() {
        return NumberKind::NotANumber;
    }
    if changed {
        NumberKind::Normalized
    } else {
        NumberKind::Valid
    }
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// A byte that continues a number token.
fn is_number_byte(b: u8) -> bool {
    b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-')
}

/// An ASCII byte that continues a bare word (see [`is_word_byte`]), looked up: the
/// literals of structure read in bulk ask it of every byte.
fn is_ascii_word_byte(b: u8) -> bool {
    ASCII_WORD[b as usize]
}

/// [`is_word_byte`] of each ASCII byte; no other byte.
const ASCII_WORD: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x80 {
        table[b] = is_word_byte(b as u8);
        b += 1;
    }
    table
};

const fn is_word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'-' | b'+' | b'.') || b >= 0x80
}

/// Append `b` to `out` as JSON string content.
pub(crate) fn escape_byte(b: u8, out: &mut Vec<u8>) {
    match b {
        b'"' => out.extend_from_slice(b"\\\""),
        b'\\' => out.extend_from_slice(b"\\\\"),
        b'\n' => out.extend_from_slice(b"\\n"),
        b'\r' => out.extend_from_slice(b"\\r"),
        b'\t' => out.extend_from_slice(b"\\t"),
        0x08 => out.extend_from_slice(b"\\b"),
        0x0c => out.extend_from_slice(b"\\f"),
        0..=0x1f => {
            const HEX: &[u8; 16] = b"0123456789abcdef";
            out.extend_from_slice(b"\\u00");
            out.push(HEX[(b >> 4) as usize]);
            out.push(HEX[(b & 15) as usize]);
        }
        _ => out.push(b),
    }
}

const REPLACEMENT: &[u8] = "\u{fffd}".as_bytes();

/// Whether a backslash followed by `c` is a whole JSON escape other than `\u`, kept as
/// written (by `escape_byte`, and by the string run, which must agree with it).
/// Whether `c` after a backslash begins an escape of Python's that JSON lacks: `\a`,
/// `\v`, a line continuation, `\xhh`, `\Uhhhhhhhh` and octal `\ooo` (`\N{...}` needs
/// Unicode's names and stays text, as an invalid escape).
fn python_escape(c: u8) -> bool {
    matches!(c, b'a' | b'v' | b'\n' | b'x' | b'U' | b'0'..=b'7')
}

/// Whether `c` after a backslash may begin an escape that `escape_byte` reads (JSON's,
/// `\'`, and with `python`, Python's).
fn escape_start(c: u8, python: bool) -> bool {
    simple_escape(c) || matches!(c, b'\'' | b'u') || (python && python_escape(c))
}

/// The value of up to three octal digits.
fn octal_value(digits: &[u8]) -> u32 {
    digits
        .iter()
        .fold(0, |acc, &c| acc * 8 + u32::from(c - b'0'))
}

/// A code point as JSON writes it escaped: `\uXXXX`, or a surrogate pair past the BMP.
fn write_code_point(value: u32, out: &mut Vec<u8>) {
    let mut units = [0u16; 2];
    let Some(c) = char::from_u32(value) else {
        return;
    };
    for unit in c.encode_utf16(&mut units) {
        out.extend_from_slice(format!("\\u{unit:04x}").as_bytes());
    }
}

fn simple_escape(c: u8) -> bool {
    matches!(c, b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't')
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(
        input: &[u8],
        chunk: usize,
        memo_off: bool,
        keys: Option<&[&str]>,
        window: usize,
    ) -> (Vec<u8>, Repairs, (usize, usize)) {
        let mut r = Repairer::new(Options {
            lookahead: window,
            ..Options::default()
        });
        r.set_keys(KeyCheck {
            depth: 1,
            keys: keys.map(|k| k.iter().map(|k| k.to_string()).collect()),
            in_order: true,
        });
        r.memo_off = memo_off;
        let mut out = Vec::new();
        for piece in input.chunks(chunk.max(1)) {
            if r.feed(piece, &mut out) != Status::NeedMore {
                break;
            }
        }
        r.finish(&mut out);
        (out, r.repairs(), (r.memo_hits, r.closed_hits))
    }

    /// Resuming an exhausted look-ahead at a later quote decides exactly as a fresh
    /// look-ahead would, on structure-heavy input full of inner quotes, with and without
    /// declared keys (an undeclared key counts only after a string showed it is
    /// malformed: the raw newline).
    #[test]
    fn resumed_look_ahead_decides_like_a_fresh_one() {
        const PARTS: &[&str] = &[
            "\", \"k\": \"v",
            "\", \"k\": \"v w",
            "\", \"k\": \"v\nw",
            "\", \"zz\": \"v",
            "\", \"o\": {\"x\": \"y\"}, \"k\": \"v",
            "\", \"l\": [\"a\", \"b\", 1], \"k\": \"v",
            "\", \"n\": 12, \"k\": \"v",
            // A dropped comma after blanks; nested containers followed by a dropped
            // comma, a closer too many.
            "\"   \"k\": \"v",
            "\", \"o\": {\"x\": \"y\"} \"k\": \"v",
            "\", \"o\": [\"y\"]] \"k\": \"v",
            "\", \"d\": {\"p\": {\"q\": \"r\"}, \"s\": [\"t\"]}, \"k\": \"v",
            "\"",
            "\\\"",
            " x",
            "}",
            "'",
        ];
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let (mut hits, mut closed) = (0, 0);
        for case in 0..3000 {
            let mut input = String::from("{\"a\": \"");
            let n = 10 + case % 60;
            for _ in 0..n {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                input.push_str(PARTS[(seed % PARTS.len() as u64) as usize]);
            }
            for (chunk, keys) in [1, 5, input.len()]
                .into_iter()
                .flat_map(|c| [(c, None), (c, Some(&["a", "k", "o", "l", "n"][..]))])
            {
                // Windows of several sizes end the memo's reading at many places.
                let window = 16 + case % 21;
                let (out, repairs, n) = run(input.as_bytes(), chunk, false, keys, window);
                let (want, want_repairs, _) = run(input.as_bytes(), chunk, true, keys, window);
                assert_eq!(
                    (out, repairs),
                    (want, want_repairs),
                    "{input:?} in {chunk}, keys {keys:?}, window {window}"
                );
                hits += n.0;
                closed += n.1;
            }
        }
        // How often the memo fires depends on how early look-aheads decide; what must
        // hold is that it never changes a result (checked above), and that it fires at
        // all: a merge once cleared the look-ahead before `resolve` could keep it, and
        // this test, comparing the memo with itself, still passed.
        assert!(hits > 1000, "the look-ahead memo fired {hits} times");
        assert!(closed > 500, "the memo closed {closed} quotes at once");
    }

    /// What a repairer shows after each feed: the output so far, the status, and the
    /// state `strict_run` must leave exactly as `step` does.
    fn observe(r: &Repairer, out: &[u8], status: Status) -> String {
        format!(
            "{:?} {status:?} st={:?} stack={:?} hold={:?} tok={} held={} started={} suspect={} pos={}",
            String::from_utf8_lossy(out),
            r.st,
            r.stack,
            r.hold,
            r.tok,
            r.held(),
            r.started,
            r.suspect,
            r.pos,
        )
    }

    fn run_bulk(input: &[u8], chunk: usize, opts: &Options, bulk_off: bool) -> Vec<String> {
        let mut r = Repairer::new(opts.clone());
        r.bulk_off = bulk_off;
        let mut out = Vec::new();
        let mut seen = Vec::new();
        for piece in input.chunks(chunk.max(1)) {
            let status = r.feed(piece, &mut out);
            seen.push(observe(&r, &out, status));
            if status != Status::NeedMore {
                break;
            }
        }
        let status = r.finish(&mut out);
        seen.push(observe(&r, &out, status));
        seen.push(format!("{:?}", r.repairs()));
        seen
    }

    struct Gen(u64);

    impl Gen {
        fn next(&mut self) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as usize
        }

        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[self.next() % items.len()]
        }

        fn blank(&mut self, s: &mut String) {
            s.push_str(self.pick(&["", "", " ", "\n  ", "\t", "\n          "]));
        }

        /// A JSON value, mostly well formed.
        fn value(&mut self, s: &mut String, depth: usize) {
            match self.next() % if depth > 4 { 3 } else { 5 } {
                0 => s.push_str(self.pick(&[
                    "\"v\"",
                    "\"a\\nb\"",
                    "\"\\u00e9\"",
                    "\"\\d\"",
                    "\"caf\u{e9}\"",
                    "\"q\\\"q\"",
                    "\"\"",
                    "\"a \"b\" c\"",
                ])),
                1 => s.push_str(self.pick(&[
                    "0", "12", "-3.5", "1e5", "2E-7", "-0", "0.25", "01", "1.", ".5", "+1", "1e",
                ])),
                2 => s.push_str(self.pick(&["true", "false", "null", "True", "nul", "None"])),
                3 => {
                    s.push('[');
                    for i in 0..self.next() % 4 {
                        if i > 0 {
                            s.push(',');
                        }
                        self.blank(s);
                        self.value(s, depth + 1);
                        self.blank(s);
                    }
                    s.push(']');
                }
                _ => {
                    s.push('{');
                    for i in 0..self.next() % 4 {
                        if i > 0 {
                            s.push(',');
                        }
                        self.blank(s);
                        s.push_str(self.pick(&["\"k\"", "\"key two\"", "\"\"", "\"k\\n\""]));
                        self.blank(s);
                        s.push(':');
                        self.blank(s);
                        self.value(s, depth + 1);
                    }
                    self.blank(s);
                    s.push('}');
                }
            }
        }
    }

    /// Reading structure in bulk (`strict_run`) changes nothing `step` would do, after
    /// any chunk: output, status, state and repairs, on valid and broken structure
    /// (generated values with bytes inserted and cut out), near the held and depth
    /// limits and with a terminator.
    #[test]
    fn bulk_structure_reads_like_stepping() {
        const BREAKS: &[&str] = &[
            "{",
            "}",
            "[",
            "]",
            ",",
            ":",
            " ",
            "\"",
            "k",
            "1",
            "</tool_call>",
            "<",
            "/* c */",
            "#",
            "'",
            "\u{a0}",
            "\u{201c}",
            ", }",
            ": }",
            "tru",
            "\\",
            "}END",
            "\u{1}",
        ];
        let plain = Options {
            lookahead: 24,
            ..Options::default()
        };
        let tight = Options {
            lookahead: 24,
            max_held: 6,
            max_depth: 3,
            terminators: MarkerSet::new(&[b"</tool_call>"]),
            ..Options::default()
        };
        // A terminator that begins with a closer: `}` may not be read as one.
        let closer = Options {
            lookahead: 24,
            terminators: MarkerSet::new(&[b"}END", b"</tool_call>"]),
            ..Options::default()
        };
        // Python call arguments: `step` reads their structure its own way (positional
        // values, `=`, tuples), and the bulk read must leave it to it.
        let python = Options {
            lookahead: 24,
            python: true,
            ..Options::default()
        };
        let mut gen = Gen(0x2545_f491_4f6c_dd1d);
        for case in 0..3000 {
            let mut input = String::new();
            gen.value(&mut input, 0);
            if !input.starts_with(['{', '[']) {
                input = format!("[{input}]");
            }
            for _ in 0..case % 4 {
                let mut at = gen.next() % (input.len() + 1);
                while !input.is_char_boundary(at) {
                    at -= 1;
                }
                if gen.next() % 2 == 0 {
                    input.insert_str(at, gen.pick(BREAKS));
                } else if let Some(c) = input[at..].chars().next() {
                    input.replace_range(at..at + c.len_utf8(), "");
                }
            }
            for opts in [&plain, &tight, &closer, &python] {
                for chunk in [1, 3, 7, input.len()] {
                    let got = run_bulk(input.as_bytes(), chunk, opts, false);
                    let want = run_bulk(input.as_bytes(), chunk, opts, true);
                    assert_eq!(got, want, "{input:?} in {chunk}");
                }
            }
        }
    }

    /// `is_strict_number` is `normalize_number`'s valid, over every token of up to five
    /// number bytes; and `strict_scalar` takes a number token exactly when the whole
    /// token (every number byte up to the next byte) is one and that byte ends it as
    /// `num_byte` ends it with no repair.
    #[test]
    fn strict_numbers_are_the_valid_ones() {
        const BYTES: &[u8] = b"0123456789.eE+-";
        let mut tokens: Vec<Vec<u8>> = vec![Vec::new()];
        for _ in 0..5 {
            let longer: Vec<Vec<u8>> = tokens
                .iter()
                .filter(|t| t.len() == tokens.last().map_or(0, |l| l.len()))
                .flat_map(|t| {
                    BYTES.iter().map(move |&b| {
                        let mut t = t.clone();
                        t.push(b);
                        t
                    })
                })
                .collect();
            tokens.extend(longer);
        }
        for tok in &tokens {
            let valid = matches!(
                normalize_number(tok, &mut SmallVec::new()),
                NumberKind::Valid
            );
            assert_eq!(
                is_strict_number(tok),
                valid,
                "{:?}",
                String::from_utf8_lossy(tok)
            );
            if !tok
                .first()
                .is_some_and(|&b| b.is_ascii_digit() || b == b'-')
            {
                continue;
            }
            for &next in b" ,}]\"a_1.eX\xc3" {
                let input = [&tok[..], &[next]].concat();
                let whole = input.iter().position(|&b| !is_number_byte(b));
                let want = whole.filter(|&n| {
                    let b = input[n];
                    !(b.is_ascii_alphabetic() || b == b'_') && is_strict_number(&input[..n])
                });
                assert_eq!(
                    strict_scalar(&input),
                    want,
                    "{:?}",
                    String::from_utf8_lossy(&input)
                );
            }
        }
    }
}
