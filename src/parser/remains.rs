//! After a call that was not released at its closer (or a body of several, one of whose
//! calls was not released): what follows may be the rest of its body. A value holding the
//! dialect's own markup (a file about tool calls) makes the call end at a closer that was
//! content; the body goes on past it, up to the real closer. So text after such a call is
//! held up to its next bound (another call's opener, the end of the stream, the arguments'
//! limit; not an end-of-turn or section token, which the file may hold too, nor after a
//! body of tags an opener that begins no body, [`begins_a_call`]): what it holds
//! up to the last of the call's closers (or, in a dialect with none, of the body's closing
//! markup) was the call's, never shown; the rest is text.
//!
//! A call that ended at a closer file text may hold waits here too, still open: a
//! Markdown fence closing strings written raw, or the closer of a body of tags (a value
//! is raw text, and a file about tool calls holds `</parameter></tool_call>` as it is).
//! At the bound it is released, unless the text up to it shows the body went on: the
//! closer again right after a body's end (`}`, `]`, `)`), or after a body of tags the
//! closer or the body's closing markup anywhere. Then the first closer was the file's,
//! and the call is not released.

use super::*;

/// Text held after a call that was not released at its closer.
pub(super) struct Remains {
    pub(super) form: &'static CallForm,
    pub(super) within: Option<u16>,
    pub(super) held: Vec<u8>,
    /// The body's closing markup, when it is one of tags.
    pub(super) markup: BodyMarkup,
    /// What bounds the remains: the call's extent less its closer and markup.
    pub(super) ends: MarkerSet,
    /// The call was given up inside its body: up to its closer, all is the call's.
    pub(super) open: bool,
    /// The call ended at a closer that file text often holds (a fence) with a string
    /// written raw: it is still open, released at the bound unless the text up to it
    /// shows the body went on ([`Remains::went_on`]).
    pub(super) deciding: bool,
    /// The call was given up at an opener its body may hold ([`Remains::cannot_tell`]):
    /// the bounds before this offset of `held` were its, and so is every opener up to
    /// its closer. Zero otherwise.
    pub(super) past: usize,
    /// Where the search for the next bound begins in `held`: bounds before it were
    /// searched, or were openers that began no call.
    scan: usize,
}

impl Remains {
    pub(super) fn new(
        form: &'static CallForm,
        within: Option<u16>,
        markup: BodyMarkup,
        open: bool,
    ) -> Self {
        Remains {
            form,
            within,
            held: Vec::new(),
            markup,
            ends: Extent::of(form)
                .past_markup(&markup)
                .past_tokens(form, &markup)
                .ends,
            open,
            deciding: false,
            past: 0,
            scan: 0,
        }
    }

    /// Whether a call whose closer may be file text should wait for its bound: a closer
    /// after strings written raw (the closer may have been a raw string's: a README's
    /// fence, a file about tool calls holding `"}}</tool_call>`), or the closer of a
    /// body of tags (a value's text is raw: a file about tool calls holds the dialect's
    /// whole closing markup, `</parameter></tool_call>`, as it is).
    pub(super) fn closer_may_be_content(
        form: &CallForm,
        repairs: Repairs,
        markup: &BodyMarkup,
    ) -> bool {
        let raw = !form.closer.is_empty() && crate::calls::raw_string(repairs);
        // (With no closer, the body's own closing tags end the call: the same.)
        raw || markup.of_tags()
    }

    /// Whether `text`, between a call's closer and its bound, shows that the body went
    /// on past that closer: the closer again, right after what ends a body (`}` of a
    /// JSON object, `]` of an array of calls, `)` of a Python call); after a body of
    /// tags, the closer again or the body's own closing markup anywhere.
    fn went_on(&self, text: &[u8]) -> bool {
        let closer = self.form.closer;
        if self.markup.of_tags() {
            return closers(self.form).any(|c| memchr::memmem::find(text, c).is_some())
                || body_went_on(text, self.form.trailer, &self.markup);
        }
        memchr::memmem::find_iter(text, closer).any(|at| {
            let before = text[..at].trim_ascii_end();
            let before = match before.strip_suffix(self.form.trailer) {
                Some(rest) if !self.form.trailer.is_empty() => rest.trim_ascii_end(),
                _ => before,
            };
            matches!(before.last(), Some(b'}' | b')' | b']'))
        })
    }

    /// Whether a call that ended at its closer after a body of tags, then text up to
    /// `start` of what is held, then `opener` (another call's), cannot be told from one
    /// value holding all of it: the call's closer came with its function left open
    /// (`incomplete`: `</parameter></tool_call>`), or the next call's own opener was
    /// dropped (`opener` is a body's markup, `<function=`). A file about tool calls holds
    /// such markup as readily; a model that drops a closer or an opener rarely writes
    /// text between two calls too. The grammar rules the same where the closer comes
    /// inside a value ([`CLOSER_THEN_TEXT_AND_A_CALL`]). With no closer of the call's
    /// own, the function's closing tag ended it: in a dialect that writes its calls in a
    /// section, text right after that tag (not after the section's closer,
    /// `</minimax:tool_call>`) was written inside the section, as the rest of a value
    /// is. (MiniCPM 5 writes calls and text between them, one a line, in none.)
    fn cannot_tell(&self, start: usize, opener: &[u8], incomplete: bool) -> bool {
        let text = &self.held[..start];
        let in_section = || {
            self.form.closer.is_empty()
                && !text.trim_ascii_start().starts_with(b"<")
                && in_a_section(self.form)
        };
        self.deciding
            && self.markup.of_tags()
            && holds_prose(text)
            && (incomplete || in_section() || opens_without_opener(self.form, opener))
    }

    /// The call was given up at an opener `start` of what is held: not released, and
    /// its body goes on past that opener up to its closer (the grammar's rule where
    /// the closer comes inside a value: the rest is content).
    pub(super) fn give_up_at(&mut self, start: usize) {
        self.deciding = false;
        self.open = true;
        self.past = start + 1;
    }

    /// `text` less a token of the call's dialect it ends with (`</s>`), if it does.
    fn strip_suffix_token<'t>(&self, text: &'t [u8]) -> Option<&'t [u8]> {
        crate::call::extent::tokens_of(self.form).find_map(|m| text.strip_suffix(m))
    }

    /// How much of `text` (held up to a bound) was the call's: up to the end of its
    /// last closer, or of its last closing markup in a dialect with no closer.
    fn swallowed(&self, text: &[u8]) -> usize {
        if !self.markup.is_some() && self.form.closer.is_empty() {
            // A JSON body: text ending in `}` (end-of-turn tokens aside) was its rest.
            let mut end = text.trim_ascii_end();
            while let Some(rest) = self.strip_suffix_token(end) {
                end = rest.trim_ascii_end();
            }
            return match body_went_on(end, self.form.trailer, &self.markup) {
                true => text.len(),
                false => 0,
            };
        }
        if !self.form.closer.is_empty() {
            let all = if self.open { text.len() } else { 0 };
            return closers(self.form)
                .filter_map(|c| memchr::memmem::rfind(text, c).map(|at| at + c.len()))
                .max()
                .unwrap_or(all);
        }
        self.markup.last_end(text).unwrap_or(0)
    }
}

impl Parser {
    /// Text after a call not released at its closer, held up to its bound.
    pub(super) fn remains(&mut self, input: &[u8]) -> usize {
        let Mode::Remains(state) = &mut self.mode else {
            unreachable!()
        };
        let before = state.held.len();
        state.held.extend_from_slice(input);
        let max = self.config.limits.max_args_bytes;
        loop {
            let Mode::Remains(state) = &mut self.mode else {
                unreachable!()
            };
            // Only a bound that ends in the new bytes is new (and none read as the call's).
            let overlap = state.ends.max_len().saturating_sub(1);
            let from = state.scan.max(state.past);
            let bound = match state.ends.find(&state.held[from..]) {
                Found::Full { start, id, .. } if from + start <= max => {
                    Some((from + start, Some(state.ends.get(id))))
                }
                // The limit is met at the byte that passes it, wherever the chunk ends.
                _ if state.held.len() > max => Some((max + 1, None)),
                _ => None,
            };
            let Some((start, opener)) = bound else {
                state.scan = state.held.len().saturating_sub(overlap).max(from);
                return input.len();
            };
            if let Some(opener) = opener {
                // After a call not released, an opener followed by no body (a file's
                // `<tool_call>` then prose, ```` ```json ```` then an API's example) is
                // the body's text, not a bound.
                let after = &state.held[start + opener.len()..];
                // Read again at each push while it waits: a bounded look-ahead.
                self.stats
                    .examined(after.len().min(look_ahead(state.form, opener)) as u64);
                match begins_a_call(state.form, opener, after) {
                    None => {
                        state.scan = start;
                        return input.len();
                    }
                    Some(false) => {
                        state.scan = start + 1;
                        continue;
                    }
                    Some(true) => {}
                }
            }
            let in_body = || {
                state.past > 0
                    && memchr::memmem::find(&state.held[state.past..start], state.form.closer)
                        .is_none()
            };
            if opener.is_some() && in_body() {
                // An opener inside the body of a call given up (its closer not come).
                state.past = start + 1;
                continue;
            }
            if let Some(opener) = opener {
                let incomplete = self
                    .calls
                    .current
                    .as_ref()
                    .is_some_and(|c| c.repairs.contains(Repair::MissingCloser));
                let read = self.calls.has_content();
                let Mode::Remains(state) = &mut self.mode else {
                    unreachable!()
                };
                if read
                    && !state.went_on(&state.held[..start])
                    && state.cannot_tell(start, opener, incomplete)
                {
                    state.give_up_at(start);
                    let (mut sink, ..) = self.sink();
                    sink.invalid(CLOSER_THEN_TEXT_AND_A_CALL);
                    sink.end();
                    continue;
                }
            }
            let rest = self.end_remains(start);
            if start < before {
                // The bound began in held bytes: read them again, then the input.
                self.process(&rest[..before - start]);
                return 0;
            }
            return start - before;
        }
    }

    /// The remains end at `start` of what is held: the call's part is dropped, the rest
    /// is text; what follows `start` is the caller's to read.
    fn end_remains(&mut self, start: usize) -> Vec<u8> {
        let Mode::Remains(state) = std::mem::replace(&mut self.mode, Mode::Text) else {
            unreachable!()
        };
        let back = state.within.map_or(Mode::Text, Mode::Reasoning);
        if state.deciding {
            let went_on = state.went_on(&state.held[..start]);
            let (mut sink, ..) = self.sink();
            if !went_on {
                // The call ended at its closer: released, and the text is text.
                let released = sink.calls.released;
                sink.end();
                self.mode = match self.calls.released > released {
                    true => self.after_release(state.form, state.within),
                    false => back,
                };
                self.process(&state.held[..start]);
                return state.held[start..].to_vec();
            }
            // Its body went on: not released, and up to the last closer it was the
            // call's.
            sink.went_on(&state.markup);
            sink.end();
        }
        let swallowed = state.swallowed(&state.held[..start]);
        self.mode = back;
        self.process(&state.held[swallowed..start]);
        state.held[start..].to_vec()
    }

    /// At the end of the stream: the remains end there.
    pub(super) fn finish_remains(&mut self) {
        let Mode::Remains(state) = &self.mode else {
            return;
        };
        // An opener whose body had not shown yet ends them: it begins a call cut off.
        let from = state.scan.max(state.past);
        let end = match state.ends.find(&state.held[from..]) {
            Found::Full { start, .. } => from + start,
            _ => state.held.len(),
        };
        if state.deciding && self.cut_off() && holds_prose(&state.held[..end]) {
            // The token limit cut the text after a closer a value may hold: the body
            // may have gone on into it, and its end never came. The text is shown.
            let Mode::Remains(state) = std::mem::replace(&mut self.mode, Mode::Text) else {
                unreachable!()
            };
            self.mode = state.within.map_or(Mode::Text, Mode::Reasoning);
            let (mut sink, ..) = self.sink();
            sink.abort(Abort::Truncated);
            self.process(&state.held);
            return;
        }
        let rest = self.end_remains(end);
        self.process(&rest);
    }
}
