//! A call's extent: what bounds a call, and what the bytes after a body the model
//! closed itself say about where it ended. One place for every grammar: the call's
//! closer, an end-of-turn or section token, the next call's opener and the end of the
//! stream bound a call the same way.

pub(crate) use super::markup::BodyMarkup;
use crate::dialect::{
    auto_specs, Body, CallForm, Dialect, EnvelopeSpec, HarmonySpec, NameArgsSpec, Spec, XmlSpec,
};
use crate::grammar::Grammar;
use crate::scan::{Found, MarkerSet};

/// What bounds a call of one form: its closer; the markers that end it where its closer
/// is missing (the dialect's end-of-turn and section tokens, the next call's opener);
/// and the end of the stream (or of `toolsift::repair`'s input).
#[derive(Clone, Debug)]
pub(crate) struct Extent {
    /// The call's closing marker (empty when the dialect has none).
    pub closer: &'static [u8],
    /// What the body's end is followed by before the closer (DeepSeek's closing fence).
    pub trailer: &'static [u8],
    /// The markers other than the closer that bound the call.
    pub ends: MarkerSet,
}

/// A bound found in the bytes after a body.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Bound {
    /// Where it begins and ends.
    pub start: usize,
    pub end: usize,
    /// It is the call's closer (consumed with the call); any other bound is read again
    /// after the call (an end-of-turn token is stripped, an opener opens the next call).
    pub closer: bool,
}

impl Extent {
    /// The extent of a call of `form`.
    pub(crate) fn of(form: &'static CallForm) -> Extent {
        let mut ends = MarkerSet::default();
        for &m in call_terminators(form).markers() {
            if m != form.closer {
                ends.push(m);
            }
        }
        if !form.anchored && form.opener.len() > 1 {
            ends.push(form.opener);
        }
        Extent {
            closer: form.closer,
            trailer: form.trailer,
            ends,
        }
    }

    /// This extent for a body closed by `markup` (a body of tags): the body's own
    /// closing tags, which a dialect strips from text, bound nothing after the body:
    /// they are what tells that the body went on ([`body_went_on`]).
    pub(crate) fn past_markup(mut self, markup: &BodyMarkup) -> Extent {
        if !markup.is_some() {
            return self;
        }
        let mut ends = MarkerSet::default();
        for &m in self.ends.markers() {
            if !markup.begins(m) {
                ends.push(m);
            }
        }
        self.ends = ends;
        self
    }

    /// This extent (past the body's `markup`) bounded only where a call begins: at an
    /// opener among its ends, or of any form of the call's dialect (a section's first
    /// call opens with the section's marker, the next with the call's own). Not at an
    /// end-of-turn or section token: a value may hold one (a file about tool calls), and
    /// what follows tells. For text after a body of tags with a closer
    /// ([`raw_closing_tags`]) and after a call not released at its closer.
    pub(crate) fn past_tokens(mut self, form: &'static CallForm, markup: &BodyMarkup) -> Extent {
        let opens_a_call = |m: &[u8]| {
            every_spec()
                .flat_map(|s| s.calls)
                .any(|f| f.opener == m || f.next_call.contains(&m))
        };
        let mut ends = MarkerSet::default();
        for &m in self.ends.markers() {
            if opens_a_call(m) {
                ends.push(m);
            }
        }
        for spec in specs_of(form) {
            let openers = spec
                .calls
                .iter()
                .filter(|f| !f.anchored && f.opener.len() > 1);
            for f in openers {
                if !ends.markers().contains(&f.opener) && !markup.begins(f.opener) {
                    ends.push(f.opener);
                }
            }
        }
        self.ends = ends;
        self
    }

    /// Whether the call's closer is a Markdown fence, which a file written raw into a
    /// string holds as readily (its code blocks).
    pub(crate) fn closer_is_a_fence(&self) -> bool {
        self.closer.starts_with(b"```")
    }

    /// The first bound wholly in `bytes`; `Err(())` while one may begin at their end.
    pub(crate) fn find(&self, bytes: &[u8]) -> Result<Option<Bound>, ()> {
        let closer = match self.closer.is_empty() {
            true => None,
            false => memchr::memmem::find(bytes, self.closer),
        };
        let searched = &bytes[..closer.unwrap_or(bytes.len())];
        match self.ends.find(searched) {
            Found::Full { start, end, .. } => Ok(Some(Bound {
                start,
                end,
                closer: false,
            })),
            Found::Partial { .. } if closer.is_none() => Err(()),
            Found::Partial { .. } | Found::None => match closer {
                Some(start) => Ok(Some(Bound {
                    start,
                    end: start + self.closer.len(),
                    closer: true,
                })),
                None if self.closer.is_empty() => Ok(None),
                None => match (0..self.closer.len().min(bytes.len()))
                    .any(|n| self.closer.starts_with(&bytes[bytes.len() - n..]) && n > 0)
                {
                    true => Err(()),
                    false => Ok(None),
                },
            },
        }
    }

    /// Whether a body that ended right before `after` ended there, as far as `after`
    /// (what follows it, up to the end of the stream if `eof`) tells: `None` while it
    /// does not. With a closer: blanks (and the form's trailer), then the closer or a
    /// closing tag standing for it (`</tool_action>`, unless the real closer follows),
    /// or the end of the stream; anything else is text inside the call. With none: up
    /// to the next bound or the end of the stream, anything but text the body went on
    /// into (text ending in `}`, [`body_went_on`]).
    pub(crate) fn ended_before(&self, after: &[u8], eof: bool) -> Option<bool> {
        let after = after.trim_ascii_start();
        if self.closer.is_empty() {
            let text = match self.find(after) {
                Ok(Some(bound)) => &after[..bound.start],
                Ok(None) | Err(()) if eof => after,
                // Only the bound tells whether text was the body's.
                Ok(None) | Err(()) => return None,
            };
            return Some(!body_went_on(text, self.trailer, &BodyMarkup::NONE));
        }
        let after = match after.strip_prefix(self.trailer) {
            Some(rest) if !self.trailer.is_empty() => rest.trim_ascii_start(),
            _ if !self.trailer.is_empty() && self.trailer.starts_with(after) => {
                return eof.then_some(true);
            }
            _ => after,
        };
        if after.starts_with(self.closer) {
            return Some(true);
        } else if self.closer.starts_with(after) {
            // At the end of the stream, the closer's beginning: cut inside it.
            return eof.then_some(true);
        }
        // The closer misspelled (`</tool_action>`) is the closer too, unless the real
        // one follows it (then it was the body's own text).
        let tag = after
            .iter()
            .position(|&b| b == b'>')
            .map_or(after, |end| &after[..=end]);
        match misspelled_closer(self.closer, tag) {
            Some(true) => {
                let rest = &after[tag.len()..];
                Some(memchr::memmem::find(rest, self.closer).is_none())
            }
            Some(false) => eof.then_some(true),
            None => Some(false),
        }
    }

    /// Like [`ended_before`](Self::ended_before), for a call that ended inside a body of
    /// several (an array's object, a Python call): it ended there when the next call
    /// (after a comma, a semicolon or a line break), the body's end or the call's bound
    /// follows, or the end of the stream; anything else is text the call went on into.
    /// A separator alone does not tell (a file's `('a', 'b'),  // a-b` holds one): what
    /// follows it must.
    pub(crate) fn call_ended_before(&self, after: &[u8], eof: bool) -> Option<bool> {
        let rest = after.trim_ascii_start();
        let (rest, separated) = match rest.first() {
            Some(b',' | b';') => (rest[1..].trim_ascii_start(), true),
            _ => (rest, false),
        };
        let Some(&first) = rest.first() else {
            return eof.then_some(true);
        };
        // The next call by name: a name, then its `(` (`b\n')]` is a file's text).
        let named = || match rest.first() {
            Some(b) if b.is_ascii_alphabetic() || *b == b'_' => next_python_call(rest, eof),
            _ => Some(false),
        };
        if matches!(first, b']' | b')') || (separated && first == b'{') {
            return Some(true);
        }
        if separated {
            match named() {
                Some(false) => {}
                told => return told,
            }
        }
        match self.find(rest) {
            Ok(Some(bound)) if bound.start == 0 => return Some(true),
            Err(()) if !eof => return None,
            _ => {}
        }
        // No separator: the next call on a line of its own.
        let line_break = after[..after.len() - rest.len()].contains(&b'\n');
        match !separated && line_break {
            true => named(),
            false => Some(false),
        }
    }
}

impl super::CallState {
    /// The closing markup of the body, when it is one of tags (see [`body_went_on`]).
    pub(crate) fn markup(&self) -> BodyMarkup {
        match &self.grammar {
            Grammar::Xml(x) => x.markup(),
            Grammar::Python(p) => p.markup(),
            // Strings between a delimiter (Gemma's `<|"|>`, `<escape>`): between the
            // body's `}` and its closer only blanks belong, as after a body of tags.
            _ => match self.form.body {
                crate::dialect::Body::NameArgs(spec) if !spec.alt_string.is_empty() => {
                    BodyMarkup::of([spec.alt_string, b"", b""])
                }
                _ => BodyMarkup::NONE,
            },
        }
    }

    /// Whether the body is JSON that may have been misread: a string written raw, or
    /// structure invented around a file's raw text (`create_dir("/a")` read as a key).
    pub(crate) fn json_misread(&self) -> bool {
        matches!(
            self.grammar,
            Grammar::Envelope(_) | Grammar::NameArgs(_) | Grammar::Harmony(_)
        ) && crate::calls::misread(self.args.rep.repairs())
    }

    /// Whether the body, which just ended, may have gone on past where it seemed to end:
    /// a JSON value the model closed itself (not one a marker ended) may have closed at
    /// a raw `"}}` inside a string, so the text after it is held up to the call's bound
    /// (`Parser::held_text`). In a dialect with no closer, only a value whose strings
    /// were written raw: there the bound may be the end of the stream.
    pub(crate) fn may_go_on(&self, enveloped: bool) -> bool {
        if let Grammar::Python(p) = &self.grammar {
            // A list's last call, ended at a `)` that a raw string may have held.
            return !enveloped && p.pending();
        }
        if !enveloped && matches!(self.grammar, Grammar::Xml(_)) {
            // A value may hold the dialect's own markup (a file about tool calls), so
            // the body may have ended at a value's closing tags that were content: the
            // call's closer tells. (With none, the next call, its opener misspelled,
            // would look the same.)
            return !self.form.closer.is_empty();
        }
        let json = enveloped
            || match self.grammar {
                Grammar::Envelope(_) | Grammar::NameArgs(_) | Grammar::Harmony(_) => true,
                // Their bodies end at their own markup (a list's `]`), not at a value's
                // last quote.
                Grammar::Xml(_)
                | Grammar::XmlGate { .. }
                | Grammar::Python(_)
                | Grammar::ListGate(_)
                | Grammar::Sniff { .. }
                | Grammar::Gate { .. } => false,
            };
        json && self.args.rep.terminated_by().is_none()
            && (!self.form.closer.is_empty() || crate::calls::raw_string(self.args.rep.repairs()))
    }
}

/// Whether a call of `form` closes a body of tags (`markup`) with a closer of its own:
/// its values are raw text, so a file about tool calls may hold all of that markup, the
/// closer included, and what follows the closer up to the call's bound tells where the
/// body ended.
pub(crate) fn raw_closing_tags(form: &CallForm, markup: &BodyMarkup) -> bool {
    !form.closer.is_empty() && markup.of_tags()
}

/// Why a call whose closing tags came inside a value, then text, then another call, is
/// not released: the tags may be the value's (a file about tool calls) or the call's
/// (some of its closing markup dropped), and the text the value's or text between two
/// calls. Which cannot be told.
pub(crate) const CLOSER_THEN_TEXT_AND_A_CALL: &str =
    "closing tags came inside a value, followed by text and another call, so where the \
     value ends cannot be told; close each parameter, the function and the call before \
     any text";

/// Whether `text`, between a call's closing markup and the next call's opener, holds
/// prose: a byte other than a blank outside `<...>` (a section token between two calls,
/// `<｜tool_calls_begin｜>`, is markup, not text the model wrote).
pub(crate) fn holds_prose(text: &[u8]) -> bool {
    let mut angle = false;
    text.iter().any(|&b| {
        match b {
            b'<' => angle = true,
            b'>' => angle = false,
            _ => return !angle && !b.is_ascii_whitespace(),
        }
        false
    })
}

/// Whether `marker`, an opener among the bounds of a call of `form`, begins a call of
/// the same dialect whose own opener was dropped (`<function=` of Qwen3-Coder, a
/// form that implies `missing_opener`): a body's own markup, which a value holds as
/// readily as it holds the closer.
pub(crate) fn opens_without_opener(form: &'static CallForm, marker: &[u8]) -> bool {
    specs_of(form)
        .flat_map(|s| s.calls)
        .any(|f| f.opener == marker && f.implies == Some(crate::repairs::Repair::MissingOpener))
}

/// The markers the dialects holding `form` strip (end-of-turn and section tokens).
pub(crate) fn tokens_of(form: &'static CallForm) -> impl Iterator<Item = &'static [u8]> {
    specs_of(form).flat_map(|s| s.strip.iter().copied().filter(|m| !m.is_empty()))
}

/// Whether a call of `form` sits in a section its dialect closes with markup of its own
/// (`<minimax:tool_call>` ... `</minimax:tool_call>`): text right after the call's
/// function tag, before that closer, was written inside the section.
pub(crate) fn in_a_section(form: &'static CallForm) -> bool {
    specs_of(form).any(|s| s.dialect.forms().iter().any(|f| f.closes_a_section()))
}

/// The markup that closes the section a call of `form` sits in, in every form of the
/// dialects holding it (`</minimax:tool_call>`): the dialect's token it begins with
/// (`</atem:function_calls>` of `</atem:function_calls><|eom|>`), or all of it.
pub(crate) fn section_closers(form: &'static CallForm) -> Vec<&'static [u8]> {
    section_markup(form, crate::render::Form::section_closer, |_, _| true)
}

/// The markup that opens the section a call of `form` sits in, in every form of the
/// dialects holding it (`<｜tool_calls_begin｜>`): the dialect's token it begins with, or
/// all of it; not one that begins with a call's opener (Muse-Glimmer's `<|start|>...`,
/// read as that opener).
pub(crate) fn section_openers(form: &'static CallForm) -> Vec<&'static [u8]> {
    let no_call = |s: &Spec, m: &[u8]| {
        !s.calls
            .iter()
            .any(|c| !c.opener.is_empty() && m.starts_with(c.opener))
    };
    section_markup(form, crate::render::Form::section_opener, no_call)
}

/// [`section_openers`] of `form`, built once for every form: read at each byte held
/// after a body of tags, so it allocates nothing there.
fn section_openers_of(form: &'static CallForm) -> &'static [&'static [u8]] {
    type Table = Vec<(&'static CallForm, Vec<&'static [u8]>)>;
    static TABLE: std::sync::OnceLock<Table> = std::sync::OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let forms = every_spec().flat_map(|s| s.calls);
        forms.map(|f| (f, section_openers(f))).collect()
    });
    table
        .iter()
        .find(|(f, _)| std::ptr::eq(*f, form))
        .map_or(&[], |(_, openers)| openers)
}

/// The section markup `of` each form of the dialects holding `form` writes: the
/// dialect's longest token it begins with, or all of it, where its spec would `keep`
/// it; sorted, each once.
fn section_markup(
    form: &'static CallForm,
    of: fn(crate::render::Form) -> Option<&'static str>,
    keep: impl Fn(&Spec, &[u8]) -> bool,
) -> Vec<&'static [u8]> {
    let mut markup: Vec<&'static [u8]> = specs_of(form)
        .flat_map(|s| s.dialect.forms().into_iter().map(move |f| (s, f)))
        .filter_map(|(s, f)| {
            let markup = of(f)?.as_bytes();
            let token = s
                .strip
                .iter()
                .filter(|t| !t.is_empty() && markup.starts_with(t));
            let markup = token.max_by_key(|t| t.len()).copied().unwrap_or(markup);
            keep(s, markup).then_some(markup)
        })
        .filter(|m| !m.is_empty())
        .collect();
    markup.sort_unstable();
    markup.dedup();
    markup
}

/// Whether the bytes `after` an opener among the bounds of a call of `form` begin a
/// call: `Some(false)` when they fit none of the bodies that opener begins (a file's
/// `<tool_call>` followed by prose, `<function=` followed by a sentence), `None` until
/// enough has come to tell. What cannot be judged from its first [`LOOK_AHEAD`] bytes
/// begins a call, so a caller that waits reads a bounded look-ahead again.
pub(crate) fn begins_a_call(form: &'static CallForm, opener: &[u8], after: &[u8]) -> Option<bool> {
    // A form whose opener holds the body's first byte (```` ```\n{ ````) is read with it.
    let mut bodies = specs_of(form)
        .flat_map(|s| s.calls)
        .filter(|f| f.opener == opener)
        .map(|f| (&f.body, f.body_prefix, f.closer))
        .peekable();
    // A longer marker the opener begins (a section token, `<｜DSML｜function_calls>`
    // after the mangled-tag opener `<｜DSML｜`) is that marker: it begins no call, a
    // call's own opener after it does.
    for spec in specs_of(form) {
        for rest in spec.strip.iter().filter_map(|m| m.strip_prefix(opener)) {
            if rest.is_empty() {
                continue;
            } else if after.starts_with(rest) {
                return Some(false);
            } else if rest.starts_with(after) {
                return None;
            }
        }
    }
    if bodies.peek().is_none() {
        return Some(true);
    }
    let window = look_ahead(form, opener);
    let seen = &after[..after.len().min(window)];
    match fits_any(form, bodies, seen) {
        None if after.len() >= window => Some(true),
        fits => fits,
    }
}

/// How much of what follows `opener`, among the bounds of a call of `form`,
/// [`begins_a_call`] reads: [`LOOK_AHEAD`], and after a message header that only frames
/// its content's own call markup (Muse-Glimmer's `<|start|>assistant to=functions
/// <|message|><atem:function_calls>`) about that much again past the header.
pub(crate) fn look_ahead(form: &'static CallForm, opener: &[u8]) -> usize {
    let framing = specs_of(form)
        .flat_map(|s| s.calls)
        .filter(|f| f.opener == opener)
        .any(|f| matches!(f.body, Body::Harmony(spec) if !spec.json_args));
    match framing {
        true => 3 * LOOK_AHEAD,
        false => LOOK_AHEAD,
    }
}

/// What bytes read after a body of tags, where its call's closer belongs, are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OpenerAfter {
    /// No opener of the call's dialect.
    None,
    /// Not told yet: a part of an opener, or one whose body has not shown (a bounded
    /// look-ahead).
    Waiting,
    /// An opener that begins a call: the closer was dropped.
    Call,
    /// An opener followed by no call (`<tool_call><<main>`, a file's markup written raw
    /// in a value): the value went on past the tags that seemed to end the body.
    NoCall,
}

/// [`OpenerAfter`] of `held`, read after a body of tags of `form` in place of its closer.
/// A section's opener there (`<｜tool_calls_begin｜>`) is read past: only a call may
/// follow it, and if none does, the value went on.
pub(crate) fn opener_after_body(form: &'static CallForm, held: &[u8]) -> OpenerAfter {
    let mut held = held;
    let mut section = false;
    for &opener in section_openers_of(form) {
        if let Some(rest) = held.strip_prefix(opener) {
            // (Blanks after it are read within the look-ahead: bounded work a byte.)
            let blanks = rest
                .iter()
                .take(LOOK_AHEAD + 1)
                .take_while(|b| b.is_ascii_whitespace());
            match blanks.count() {
                n if n > LOOK_AHEAD => return OpenerAfter::NoCall,
                n => held = &rest[n..],
            }
            section = true;
            break;
        } else if opener.starts_with(held) {
            return OpenerAfter::Waiting;
        }
    }
    let mut waiting = false;
    for opener in specs_of(form).flat_map(|s| s.calls).map(|f| f.opener) {
        if opener.is_empty() {
            continue;
        }
        if let Some(after) = held.strip_prefix(opener) {
            match begins_a_call(form, opener, after) {
                Some(true) => return OpenerAfter::Call,
                Some(false) => return OpenerAfter::NoCall,
                None => waiting = true,
            }
        } else if opener.starts_with(held) {
            waiting = true;
        }
    }
    match (waiting, section) {
        (true, _) => OpenerAfter::Waiting,
        (false, true) => OpenerAfter::NoCall,
        (false, false) => OpenerAfter::None,
    }
}

/// Whether a string value of `args`, a call of `form` written raw, holds an opener of
/// its dialect followed by the start of a call (`<tool_call>\n{"name": "Read", ...`):
/// the call may have been left open there (its string, object and closer dropped) and
/// the rest be the next call, or the string may hold a call as text. Which cannot be
/// told. A weak opener (a markerless form's `{`, a fence, Beam's ` to=`) is far more
/// often a file's own: it is weighed only when one of `tools` is named right after it;
/// so is every opener when `all_weak` (a value of tags or delimiters, raw by its syntax
/// and not shown broken, may name its dialect's markup: `Docs say <invoke name="x">`).
pub(crate) fn holds_a_call(
    form: &'static CallForm,
    args: &crate::ordered::Value,
    tools: &[&str],
    all_weak: bool,
) -> bool {
    // Each opener, and whether it is weak.
    let mut openers: Vec<(&'static [u8], bool)> = Vec::new();
    for spec in specs_of(form) {
        for f in spec.calls {
            let weak = all_weak || f.anchored || f.heuristic || f.labelled || f.opener.len() < 2;
            openers.push((f.opener, weak));
            openers.extend(f.next_call.iter().map(|&m| (m, all_weak || m.len() < 2)));
        }
    }
    openers.retain(|(m, weak)| !m.is_empty() && (!weak || !tools.is_empty()));
    openers.sort_unstable();
    openers.dedup();
    let names_a_tool = |after: &[u8]| {
        let seen = &after[..after.len().min(LOOK_AHEAD)];
        tools.iter().any(|t| {
            memchr::memmem::find_iter(seen, t.as_bytes()).any(|at| {
                let whole = |b: Option<&u8>| b.is_none_or(|b| !is_name_byte(*b));
                whole(at.checked_sub(1).and_then(|i| seen.get(i))) && whole(seen.get(at + t.len()))
            })
        })
    };
    let mut values = vec![args];
    while let Some(value) = values.pop() {
        if let Some(text) = value.as_str() {
            let text = text.as_bytes();
            for &(opener, weak) in &openers {
                for at in memchr::memmem::find_iter(text, opener) {
                    let after = &text[at + opener.len()..];
                    // Where the value ends cannot show more: as much as there is decides.
                    let begins = begins_a_call(form, opener, after) != Some(false);
                    if begins && (!weak || names_a_tool(after)) {
                        return true;
                    }
                }
            }
        } else if let Some(items) = value.as_array() {
            values.extend(items);
        } else if let Some(members) = value.as_object() {
            values.extend(members.values());
        }
    }
    false
}

/// A byte of a tool's name (a name found in text is whole only between others).
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// How much of what follows an opener [`begins_a_call`] reads: blanks, a name's markup
/// and a name.
pub(crate) const LOOK_AHEAD: usize = 64;

/// Whether `text` begins one of `bodies`, each after its prefix ([`begins_a_call`]).
fn fits_any<'a>(
    form: &'static CallForm,
    bodies: impl Iterator<Item = (&'a Body, &'a [u8], &'a [u8])>,
    text: &[u8],
) -> Option<bool> {
    let mut waiting = false;
    for (body, prefix, closer) in bodies {
        // (On the stack: `text` is at most the look-ahead.)
        let mut with_prefix = smallvec::SmallVec::<[u8; 4 * LOOK_AHEAD]>::new();
        let fit = match prefix.is_empty() {
            true => fits(form, body, text, closer),
            false => {
                with_prefix.extend_from_slice(prefix);
                with_prefix.extend_from_slice(text);
                fits(form, body, &with_prefix, closer)
            }
        };
        match fit {
            Some(true) => return Some(true),
            Some(false) => {}
            None => waiting = true,
        }
    }
    if waiting {
        None
    } else {
        Some(false)
    }
}

/// Whether `text`, past blanks, begins `body` (of a call of `form` that ends at
/// `closer`).
fn fits(form: &'static CallForm, body: &Body, text: &[u8], closer: &[u8]) -> Option<bool> {
    let text = text.trim_ascii_start();
    text.first()?;
    match body {
        Body::Sniff(bodies) => fits_any(form, bodies.iter().map(|b| (b, &b""[..], closer)), text),
        Body::Envelope(spec) => call_object(spec, text),
        Body::Xml(spec) => names(spec, text, closer),
        Body::NameArgs(spec) => named(spec, text),
        Body::Pythonic(_) => python_call(text),
        Body::Harmony(spec) => message(form, spec, text),
    }
}

/// Whether `text` (past blanks) begins a message of harmony `spec`: a header
/// ([`begins_header`](crate::grammar::harmony::begins_header)). A header that only
/// frames call markup of its content's own (Muse-Glimmer's `to=functions`) is followed
/// by a call of that markup, past the section tokens it opens with; a message to the
/// user or the model itself is a bound as it is.
fn message(form: &'static CallForm, spec: &HarmonySpec, text: &[u8]) -> Option<bool> {
    use crate::grammar::harmony::{begins_header, recipient, MESSAGE};
    let header = begins_header(text);
    if spec.json_args || header != Some(true) {
        return header;
    }
    let at = memchr::memmem::find(text, MESSAGE)?;
    if !recipient(&text[..at]).is_some_and(|to| !matches!(to, b"self" | b"user")) {
        return Some(true);
    }
    let mut content = text[at + MESSAGE.len()..].trim_ascii_start();
    while let Some(rest) = tokens_of(form).find_map(|t| content.strip_prefix(t)) {
        content = rest.trim_ascii_start();
    }
    let mut waiting = content.is_empty();
    let calls = specs_of(form).flat_map(|s| s.calls);
    for call in calls.filter(|f| !matches!(f.body, Body::Harmony(_)) && !f.opener.is_empty()) {
        if let Some(after) = content.strip_prefix(call.opener) {
            match begins_a_call(call, call.opener, after) {
                Some(true) => return Some(true),
                Some(false) => {}
                None => waiting = true,
            }
        }
        waiting |= call.opener.starts_with(content);
    }
    waiting |= tokens_of(form).any(|t| t.starts_with(content));
    match waiting {
        true => None,
        false => Some(false),
    }
}

/// Whether `text` (past blanks) begins a call object of `spec`, or an array of them: an
/// object whose first key is not one of a call object's (`{"error": ...}`, a file's
/// example of some API), or in a call object keyed by its tool's name, whose first
/// value is no object, is no call. A call object that gives its name last is so rare
/// that a key other than the envelope's is read as a file's, not a call's.
fn call_object(spec: &EnvelopeSpec, text: &[u8]) -> Option<bool> {
    let text = past_list_open(text);
    let Some(members) = text.strip_prefix(b"{") else {
        return if text.is_empty() { None } else { Some(false) };
    };
    let members = members.trim_ascii_start();
    let &first = members.first()?;
    let (key, after) = match first {
        b'"' | b'\'' => {
            let len = members[1..].iter().position(|&b| b == first)?;
            (&members[1..1 + len], &members[2 + len..])
        }
        b if b.is_ascii_alphabetic() || b == b'_' => {
            let len = members
                .iter()
                .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_'))?;
            (&members[..len], &members[len..])
        }
        // Another quote (typographic), a brace, an empty object: not judged here.
        _ => return Some(true),
    };
    let Some(value) = after.trim_ascii_start().strip_prefix(b":") else {
        return after.trim_ascii_start().first().map(|_| true);
    };
    if spec.name_is_key {
        // Keyed by the tool's name (Apertus `{"NAME": {...}}`): the arguments follow.
        return value.trim_ascii_start().first().map(|&b| b == b'{');
    }
    let key = std::str::from_utf8(key).unwrap_or("");
    let envelope = spec.name_keys.contains(&key)
        || spec.args_keys.iter().any(|(k, _)| *k == key)
        || spec.id_keys.contains(&key)
        || matches!(key, "type" | "function");
    Some(envelope)
}

/// Whether `text` (past blanks) begins a name then its arguments as `spec` writes them:
/// a name (its prefix first, `function<｜tool▁sep｜>`), then its separator (or `{`
/// where the arguments may follow the name at once). What follows the opener in a
/// file's example of the format (`{"error": ...}`, a sentence) is no call.
fn named(spec: &NameArgsSpec, text: &[u8]) -> Option<bool> {
    let text = match text.strip_prefix(spec.name_prefix) {
        Some(rest) => rest,
        None if spec.name_prefix.starts_with(text) => return None,
        None => return Some(false),
    };
    let is_name = |b: u8| b.is_ascii_alphanumeric() || b"_-.:/".contains(&b) || b >= 0x80;
    let len = text.iter().position(|&b| !is_name(b))?;
    if len == 0 {
        return Some(false);
    }
    let rest = &text[len..];
    let trimmed = rest.trim_ascii_start();
    let brace: &[u8] = match spec.separator.is_empty() || spec.identifier_name {
        true => b"{",
        false => b"",
    };
    let separators = [spec.separator, spec.alt_separator, spec.id_separator, brace];
    let separators = separators.iter().filter(|s| !s.is_empty());
    if separators
        .clone()
        .any(|s| rest.starts_with(s) || trimmed.starts_with(s))
    {
        return Some(true);
    }
    match separators
        .into_iter()
        .any(|s| s.starts_with(rest) || s.starts_with(trimmed))
    {
        true => None,
        false => Some(false),
    }
}

/// Whether `text` (past blanks) begins a Python call, or a list of them: a dotted name,
/// then `(`.
fn python_call(text: &[u8]) -> Option<bool> {
    let text = past_list_open(text);
    let &first = text.first()?;
    if !(first.is_ascii_alphabetic() || first == b'_') {
        return Some(false);
    }
    let len = text
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || b == b'_' || b == b'.'))?;
    text[len..].trim_ascii_start().first().map(|&b| b == b'(')
}

/// Whether `text`, which begins with a name, begins a Python call: a dotted name, then
/// `(` (`None` until told; a name longer than the look-ahead is none).
fn next_python_call(text: &[u8], eof: bool) -> Option<bool> {
    let text = &text[..text.len().min(LOOK_AHEAD)];
    let name = text
        .iter()
        .position(|&b| !(b.is_ascii_alphanumeric() || b"_.".contains(&b)));
    let after = name.map(|len| text[len..].trim_ascii_start());
    match after.and_then(<[u8]>::first) {
        Some(&b) => Some(b == b'('),
        None if eof || text.len() == LOOK_AHEAD => Some(false),
        None => None,
    }
}

/// `text` past a list's `[` and the blanks after it, if it opens one.
fn past_list_open(text: &[u8]) -> &[u8] {
    text.strip_prefix(b"[")
        .map_or(text, <[u8]>::trim_ascii_start)
}

/// Whether `text` begins a body of tags of `spec`: its name's opening markup, then a
/// name. A name inside a tag (`<function=NAME>`, `name="NAME"`) is one word up to the
/// tag's end or its quote; a blank then more words, or another tag, is a sentence.
/// A name that ends at the next tag is followed by one its body can hold there
/// ([`tag_after_name`]).
fn names(spec: &XmlSpec, text: &[u8], closer: &[u8]) -> Option<bool> {
    let Some(rest) = text.strip_prefix(spec.name_open) else {
        return if spec.name_open.starts_with(text) {
            None
        } else {
            Some(false)
        };
    };
    if spec.nameless {
        // The opener was a key's tag.
        return Some(true);
    }
    if spec.name_in_tag {
        return crate::grammar::tag_names_a_tool(spec, rest);
    }
    let &first = rest.first()?;
    let quote = matches!(first, b'"' | b'\'').then_some(first);
    let name = &rest[usize::from(quote.is_some())..];
    if quote.is_none() {
        if !(first.is_ascii_alphanumeric() || first == b'_' || first >= 0x80) {
            return Some(false);
        }
        if spec.name_close != b">" {
            // A name that ends at the next tag or a line break (Hunyuan 3's
            // `NAME<tool_sep>`, GLM's `NAME\n<arg_key>`): one word, then that tag (or
            // arguments); a blank and another word is a sentence.
            let at = rest
                .iter()
                .position(|&b| b == b'<' || b.is_ascii_whitespace())?;
            let after = rest[at..].trim_ascii_start();
            return match after.first() {
                None => None,
                Some(b'<') => tag_after_name(spec, closer, after),
                Some(b'{' | b'[') => Some(true),
                Some(_) => Some(false),
            };
        }
    }
    let end = name.iter().position(|&b| {
        Some(b) == quote || matches!(b, b'>' | b'<' | b'`') || b.is_ascii_whitespace()
    });
    let at = end?;
    if quote.is_some() {
        if at == 0 || Some(name[at]) != quote {
            return Some(false);
        }
        // A quoted name is followed by the tag's end, other attributes or its markup;
        // a JSON member (`"service": 1`, `"a", "b"`) names nothing.
        return match name[at + 1..].trim_ascii_start().first() {
            None => None,
            Some(b':' | b',') => Some(false),
            Some(_) => Some(true),
        };
    }
    match name[at..].trim_ascii_start().first() {
        None => None,
        Some(b'>') => Some(at > 0),
        Some(_) => Some(false),
    }
}

/// Whether `tag`, right after a name that ends at the next tag, is one the body holds
/// there: the name's own closing markup or separator, a key's or a value's opening tag,
/// or the call's `closer` (a call with no arguments). Another tag (`d\n</parameter>`, a
/// file's HTML) makes the word text, not a tool's name.
fn tag_after_name(spec: &XmlSpec, closer: &[u8], tag: &[u8]) -> Option<bool> {
    let mut waiting = false;
    for markup in [
        spec.name_close,
        spec.name_sep,
        spec.key_open,
        spec.value_open,
        closer,
        spec.func_close,
    ] {
        let markup = markup.trim_ascii_start();
        if markup.is_empty() {
            continue;
        }
        if tag.starts_with(markup) {
            return Some(true);
        }
        waiting |= markup.starts_with(tag);
    }
    if waiting {
        None
    } else {
        Some(false)
    }
}

/// Every spec a call's form may come from: `auto`'s and each dialect's.
fn every_spec() -> impl Iterator<Item = &'static Spec> {
    auto_specs()
        .iter()
        .copied()
        .chain(Dialect::ALL.iter().map(|d| d.spec()))
}

/// The specs that hold `form`.
fn specs_of(form: &'static CallForm) -> impl Iterator<Item = &'static Spec> {
    every_spec().filter(move |s| s.calls.iter().any(|f| std::ptr::eq(f, form)))
}

/// Whether `text`, read after a body the model closed itself and before the call's
/// bound, was the rest of the body. A JSON body: the text ends in `}` (a raw `"}}`
/// inside a string looked like the body's end), past the form's `trailer` (a closing
/// fence). A body of tags: the text holds the body's own closing markup (`</parameter>`,
/// `</function>`): a value holding that markup looked like the body's end.
pub(crate) fn body_went_on(text: &[u8], trailer: &[u8], markup: &BodyMarkup) -> bool {
    if markup.is_some() {
        return markup.found_in(text);
    }
    let text = text.trim_ascii_end();
    let text = match text.strip_suffix(trailer) {
        Some(rest) if !trailer.is_empty() => rest.trim_ascii_end(),
        _ => text,
    };
    text.ends_with(b"}")
}

/// Whether `text`, between a body and its call's closer, is only the form's trailer (a
/// closing fence), blanks around it aside: the call ended as written.
pub(crate) fn is_trailer(text: &[u8], form: &CallForm) -> bool {
    let trailer = form.trailer.trim_ascii();
    !trailer.is_empty() && text.trim_ascii() == trailer
}

/// Where the call's closer begins in `text`, what follows a body, when only blanks or
/// the form's trailer come before it.
pub(crate) fn closer_after_trailer(text: &[u8], form: &CallForm) -> Option<usize> {
    if form.closer.is_empty() {
        return None;
    }
    let at = memchr::memmem::find(text, form.closer)?;
    let before = &text[..at];
    (before.trim_ascii().is_empty() || is_trailer(before, form)).then_some(at)
}

/// Where a closing tag standing for `closer` ends, when `text` begins with one (past
/// blanks): see [`misspelled_closer`].
pub(crate) fn misspelled_closer_at(closer: &[u8], text: &[u8]) -> Option<usize> {
    let blanks = text.len() - text.trim_ascii_start().len();
    let rest = &text[blanks..];
    let end = memchr::memchr(b'>', &rest[..rest.len().min(40)])?;
    (misspelled_closer(closer, &rest[..=end]) == Some(true)).then_some(blanks + end + 1)
}

/// The markers that close a call of `form`: its closer and the others its body ends at
/// as it does at the closer (Beam's `<|call|>` stop token besides `<|end|>`). None
/// when the dialect has no closer.
pub(crate) fn closers(form: &'static CallForm) -> impl Iterator<Item = &'static [u8]> {
    let alts: &'static [&'static [u8]] = match form.body {
        Body::Xml(spec) if !form.closer.is_empty() => spec.closer_alts,
        _ => &[],
    };
    std::iter::once(form.closer)
        .filter(|c| !c.is_empty())
        .chain(alts.iter().copied())
}

/// The markers that end an unfinished body of a call of `form` where structure is
/// expected: its closer (or, without one, the next call's opener), and the end-of-turn
/// and section markers of its dialect, which also tell the look-ahead that a value may
/// end before them.
pub(crate) fn call_terminators(form: &'static CallForm) -> MarkerSet {
    let mut terminators = MarkerSet::default();
    if !form.closer.is_empty() {
        terminators.push(form.closer);
    } else if !form.anchored && form.opener.len() > 1 {
        terminators.push(form.opener);
    }
    for &m in form.next_call {
        terminators.push(m);
    }
    // (Not a repeat separator, Llama 3's `;`: where structure is expected inside a
    // value it is far more often a raw string's own `";` than a cut call's end; after
    // the value it is read between calls.)
    for spec in specs_of(form) {
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
    terminators
}

/// Whether `held`, right after a call's body, is a closing tag standing for the call's
/// closer `</...>` (`</tool_action>` for `</tool_call>`): see [`closing_tag`]; `None`
/// when the closer is no closing tag.
pub(crate) fn misspelled_closer(closer: &[u8], held: &[u8]) -> Option<bool> {
    if !closer.starts_with(b"</") || !closer.ends_with(b">") {
        return None;
    }
    closing_tag(held)
}

/// Whether `held` is a closing tag `</NAME>`: `Some(true)` when whole, `Some(false)`
/// while it may still become one, `None` when it cannot. A tag name is at most 32
/// bytes of letters, digits and `_ - . :`.
pub(crate) fn closing_tag(held: &[u8]) -> Option<bool> {
    let name = held.strip_prefix(b"</")?;
    let is_name = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':');
    match name.split_last() {
        None => Some(false),
        Some((b'>', name)) if !name.is_empty() && name.iter().all(is_name) => Some(true),
        Some(_) if name.len() <= 32 && name.iter().all(is_name) => Some(false),
        Some(_) => None,
    }
}
