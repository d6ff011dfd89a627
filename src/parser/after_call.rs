//! After a call's body: waiting for its closer, and the text held there until the
//! call's extent tells what it is (`call::extent`).

use super::*;

/// A call whose body ended, waiting for its closer.
pub(super) struct AfterCall {
    pub(super) form: &'static CallForm,
    pub(super) held: SmallVec<[u8; 32]>,
    pub(super) within: Option<u16>,
    /// The form's trailer (a closing fence) was read.
    pub(super) trailer_done: bool,
    /// Blanks after a closer-less body that may precede another body: text if none
    /// follows.
    pub(super) gap: SmallVec<[u8; 32]>,
    /// Text after the body, held in `held` until what it is shows (see
    /// `Parser::held_text`).
    pub(super) holding: bool,
    /// The body may have gone on past where it seemed to end (a JSON call object the
    /// model closed itself): text after it is held, not shown at once.
    pub(super) may_go_on: bool,
    /// What bounds the call, once text is held (`call::extent`).
    pub(super) extent: Option<Box<Extent>>,
    /// The body's closing markup, when it is one of tags: held text holding it was the
    /// body's (`call::extent::body_went_on`).
    pub(super) markup: BodyMarkup,
    /// A JSON body that may have been misread (structure invented around raw text): if
    /// it is not released, text after it up to the call's bound, ending in `}`, was the
    /// rest of its body (`remains`).
    pub(super) misread: bool,
}

impl Parser {
    pub(super) fn after_call(&mut self, input: &[u8]) -> usize {
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
            markup,
            misread,
            ..
        } = &mut **state;
        let (markup, misread) = (*markup, *misread);
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
                    // Another body of the same form: the next call. The blanks before
                    // it are text again if it is none (`give_back`).
                    let gap = std::mem::take(gap);
                    self.next_body(form, within, gap);
                    return i;
                }
                if matches!(b, b'}' | b']') && !markup.of_tags() {
                    // A redundant closer after a JSON body.
                    let (mut sink, ..) = self.sink();
                    if sink.calls.is_open() {
                        sink.repair(Repair::RedundantCloser);
                    }
                    return i + 1;
                }
                if closer.is_empty() && *may_go_on && self.calls.is_open() {
                    // Text after a body the model closed itself, with no closer to
                    // tell: held up to the call's next bound (`held_text`).
                    held.extend_from_slice(gap);
                    gap.clear();
                    held.push(b);
                    *holding = true;
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
                    self.end_closerless(form, within, markup, misread);
                    self.process(&gap);
                    return i;
                }
            }
            held.push(b);
            // (The blanks the trailer begins with were skipped as any.)
            let trailer = form.trailer.trim_ascii_start();
            if !*trailer_done && !trailer.is_empty() && trailer.starts_with(held) {
                if held.len() == trailer.len() {
                    held.clear();
                    *trailer_done = true;
                }
                continue;
            }
            if closer.starts_with(held) {
                if held.len() == closer.len() {
                    self.end_at_closer(form, within, markup);
                    return i + 1;
                }
                continue;
            }
            if form.repeats && held[0] == b'<' {
                // Another body of tags in the same section: the next call, read from
                // its first byte (held so far).
                match crate::grammar::begins_body_of_tags(form, held) {
                    None => continue,
                    Some(false) => {}
                    Some(true) => {
                        let held = std::mem::take(held);
                        let gap = std::mem::take(gap);
                        self.next_body(form, within, gap);
                        return self.read_again(&held, i + 1);
                    }
                }
            }
            if markup.of_tags() && self.calls.is_open() {
                use crate::call::extent::{opener_after_body, OpenerAfter};
                match opener_after_body(form, held) {
                    OpenerAfter::Waiting => continue,
                    OpenerAfter::None => {}
                    OpenerAfter::Call => {
                        // The closer was dropped and the next call begins.
                        let held = std::mem::take(held);
                        return self.closer_dropped(within, &held, i + 1);
                    }
                    OpenerAfter::NoCall => {
                        // The dialect's opener where the closer belongs, beginning no
                        // call: a value holding the body's closing tags went on past
                        // them. Not released; up to its closer the rest is the call's.
                        let held = std::mem::take(held);
                        let (mut sink, ..) = self.sink();
                        sink.went_on(&markup);
                        sink.end();
                        let remains = Remains::new(form, within, markup, true);
                        self.mode = Mode::Remains(Box::new(remains));
                        return self.read_again(&held, i + 1);
                    }
                }
            }
            match crate::call::extent::misspelled_closer(closer, held) {
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
            return self.closer_dropped(within, &held, i + 1);
        }
        input.len()
    }

    /// The call's closer was dropped: the call ends (missing its closer), and `held`,
    /// the bytes after its body, is read again; its last `read` bytes were this input's.
    /// How much of the input was read.
    fn closer_dropped(&mut self, within: Option<u16>, held: &[u8], read: usize) -> usize {
        let (mut sink, ..) = self.sink();
        // (An array body released its calls already: nothing is open to repair.)
        if sink.calls.is_open() {
            sink.repair(Repair::MissingCloser);
        }
        sink.end();
        self.mode = within.map_or(Mode::Text, Mode::Reasoning);
        self.read_again(held, read)
    }

    /// Read `held` again in the mode now set: the bytes held from earlier input here,
    /// the input's own (its last, at most `read`) by the main loop. How much of the
    /// input was read.
    pub(super) fn read_again(&mut self, held: &[u8], read: usize) -> usize {
        let from_input = held.len().min(read);
        let old = held.len() - from_input;
        if old > 0 {
            self.process(&held[..old]);
        }
        read - from_input
    }

    /// Another body of the repeated `form` begins: this call ends and the next starts.
    /// The blanks before it (`gap`) are text again if it is none (`give_back`).
    fn next_body(&mut self, form: &'static CallForm, within: Option<u16>, gap: SmallVec<[u8; 32]>) {
        let (mut sink, ..) = self.sink();
        sink.end();
        self.start_call(form, within);
        if matches!(self.mode, Mode::Call(_)) {
            Parser::work(&mut self.work).repeat_gap = gap;
        }
    }

    /// Text after a call's body, with no closer yet: held until the call's next bound
    /// (its closer, an end-of-turn or section token, another call's opener), the end of
    /// the stream or the arguments' limit tells what it is (`call::extent`). Text that
    /// ends in `}` right before the bound is the rest of the body (a string written raw
    /// went on past a `"}}` inside it): the call is not released and the text not
    /// shown. Otherwise it is text, and the call is released (its closer missing, in a
    /// dialect that has one).
    pub(super) fn held_text(&mut self, input: &[u8]) -> usize {
        let Mode::AfterCall(state) = &mut self.mode else {
            unreachable!()
        };
        let (form, within, markup) = (state.form, state.within, state.markup);
        let extent = state.extent.get_or_insert_with(|| {
            let extent = Extent::of(form).past_markup(&markup);
            // After a body of tags, an end-of-turn or section token may be a value's
            // too (a file holding `</function>`, then `<|im_end|>`).
            Box::new(match raw_closing_tags(form, &markup) {
                true => extent.past_tokens(form, &markup),
                false => extent,
            })
        });
        let before = state.held.len();
        // Only a bound that ends in the new bytes is new.
        let longest = form.closer.len().max(extent.ends.max_len());
        let from = before.saturating_sub(longest.saturating_sub(1));
        state.held.extend_from_slice(input);
        // The limit is met at the byte that passes it, wherever the chunk ends: a bound
        // counts only if it is complete by then (one byte past the limit).
        let max = self.config.limits.max_args_bytes;
        let found = extent
            .find(&state.held[from..])
            .map(|bound| bound.filter(|b| from + b.end <= max + 1));
        let over = state.held.len() > max;
        let back = within.map_or(Mode::Text, Mode::Reasoning);
        // Where the bound ends (the closer) or begins (any other, read again after the
        // call) in `input`: what follows is the main loop's to read (never read here,
        // so a run of calls does not nest).
        match found {
            Ok(Some(bound)) => {
                let (start, end) = (from + bound.start, from + bound.end);
                let held = std::mem::take(&mut state.held);
                let trailer = extent.trailer;
                let (mut sink, ..) = self.sink();
                // Between a body of tags and its closer only blanks belong: text
                // there was the body's (a value went on past its closing tags).
                let tags_then_text =
                    bound.closer && markup.is_some() && !held[..start].trim_ascii().is_empty();
                if tags_then_text || body_went_on(&held[..start], trailer, &markup) {
                    // The body went on: not released, and the text was its body.
                    sink.went_on(&markup);
                    match bound.closer {
                        // What follows its closer may be more of it (`remains`).
                        true => self.end_at_closer(form, within, markup),
                        false => {
                            sink.end();
                            self.mode = back;
                        }
                    }
                } else if bound.closer && is_trailer(&held[..start], form) {
                    // Only the form's trailer (a closing fence) before the closer: the
                    // call ended as written.
                    self.end_at_closer(form, within, markup);
                } else if bound.closer {
                    // Text the model wrote after the body, before its closer: shown if
                    // the call is released. Not released, the text was the rest of its
                    // body as no reading had it, and what follows the closer may be
                    // more of it (`remains`).
                    let held_text = &held[..start];
                    if !self.release_held_text(back, form.closer, markup, held_text, true) {
                        let remains = Remains::new(form, within, markup, false);
                        self.mode = Mode::Remains(Box::new(remains));
                    }
                } else if raw_closing_tags(form, &markup)
                    && sink.calls.has_content()
                    && holds_prose(&held[..start])
                {
                    // A body of tags ended with its call's closer missing, then text, then
                    // another call: the same as a value holding that markup, that text
                    // and that opener. Not released; the body goes on past the opener
                    // (`remains`, as the grammar rules where the closer comes in a value).
                    sink.invalid(CLOSER_THEN_TEXT_AND_A_CALL);
                    sink.end();
                    let mut remains = Remains::new(form, within, markup, false);
                    remains.held = held[..=start].to_vec();
                    remains.give_up_at(start);
                    self.mode = Mode::Remains(Box::new(remains));
                    if start + 1 < before {
                        self.process(&held[start + 1..before]);
                        return 0;
                    }
                    return start + 1 - before;
                } else {
                    // Text the model wrote after the body: shown.
                    self.release_held_text(back, form.closer, markup, &held[..start], false);
                }
                let read = if bound.closer { end } else { start };
                if read < before {
                    // The bound began in held bytes: read them again, then the input.
                    self.process(&held[read..before]);
                    0
                } else {
                    read - before
                }
            }
            _ if over => {
                let held = std::mem::take(&mut state.held);
                self.release_held_text(back, form.closer, markup, &held, false);
                input.len()
            }
            _ => input.len(),
        }
    }

    /// The text held after a call's body is text: release the call, then show `text`.
    /// A closing tag it begins with stands for the call's closer, misspelled
    /// (`</tool_action>` for `</tool_call>`); otherwise the closer is missing. With
    /// `only_if_released`, a call not released keeps the text (not shown). Whether the
    /// call was released.
    pub(super) fn release_held_text(
        &mut self,
        back: Mode,
        closer: &[u8],
        markup: BodyMarkup,
        mut text: &[u8],
        only_if_released: bool,
    ) -> bool {
        self.mode = back;
        let auto = self.config.dialect == Dialect::Auto;
        // A Python call list's own gate decided it is calls, text around it or not.
        let list = markup == crate::grammar::LIST_MARKUP;
        let (mut sink, ..) = self.sink();
        if closer.is_empty() {
            // A dialect with no closer misses none; text after a markerless call says
            // it was none (`Sink::text_follows`).
            if auto && !list && !text.trim_ascii().is_empty() {
                sink.text_follows();
            }
        } else if sink.calls.is_open() {
            match misspelled_closer_at(closer, text) {
                Some(end) => {
                    sink.repair(Repair::MismatchedTag);
                    text = &text[end..];
                }
                None => sink.repair(Repair::MissingCloser),
            }
        }
        let (open, before) = (sink.calls.is_open(), sink.calls.released);
        sink.end();
        let released = !open || sink.calls.released > before;
        if released || !only_if_released {
            self.process(text);
        }
        released
    }
}
