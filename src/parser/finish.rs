//! The end of the stream: what each mode's held bytes and open call come to.

use super::*;

impl Parser {
    /// The end of the stream, in every mode the held bytes lead through: a step at a
    /// time, in a loop (each held call can leave the next one held; recursing once per
    /// call would grow the stack with their number).
    pub(super) fn finish_mode(&mut self) {
        while self.finish_step() {}
    }

    /// One mode's end; whether the bytes it read again left another mode to end.
    fn finish_step(&mut self) -> bool {
        if let Mode::Call(call) = &mut self.mode {
            if !call.grammar.undecided() && call.grammar.claim_list(call.form.closer) {
                // A held markerless list the end of the output makes calls: read it.
                self.feed_call(&[]);
                return true;
            }
        }
        if matches!(&self.mode, Mode::Call(call) if call.grammar.undecided()) {
            // The stream ended before markerless JSON showed it is a call: text.
            self.give_back();
            return true;
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
                            return true;
                        }
                        self.emit_text(&held[shown..start], reasoning);
                        self.act(action);
                        self.process(&held[end..]);
                        return true;
                    }
                    if held.len() - shown == 1 || self.only_text_like(&held[shown..]) {
                        self.emit_text(&held[shown..], reasoning);
                    }
                }
            }
            Mode::Call(mut call) => {
                let clean_stop = !self.cut_off();
                let complete = {
                    let (mut sink, _) = self.sink();
                    let mut complete = call.finish(&mut sink);
                    if !complete && clean_stop {
                        // Every value closed, only the closers missing: complete.
                        complete = call.grammar.close_clean(&mut sink);
                    }
                    sink.stats.examined(call.take_work());
                    complete
                };
                let (form, within) = (call.form, call.within);
                let repairs = call.repairs();
                let markup = call.markup();
                let misread = call.json_misread();
                let mut leftover = call.take_leftover();
                // Ended by a marker other than its closer: cut, not finished (as in
                // `feed_call`); by its closer (read while deciding the held bytes, or
                // left after the body by the reading taken): no closer is missing.
                let terminated_by = call.args.rep.terminated_by();
                let cut = terminated_by.is_some_and(|m| m != form.closer);
                let blanks = leftover.len() - leftover.trim_ascii_start().len();
                // (Blanks or the form's trailer, a closing fence, may come before it.)
                let closer_at = closer_after_trailer(&leftover, form).filter(|_| complete);
                let closer_left = closer_at.is_some();
                if let Some(at) = closer_at {
                    leftover.drain(..at + form.closer.len());
                }
                // Or its closer misspelled (`</tool_action>`), as `after_call` takes it.
                let misspelled = (complete && !closer_left)
                    .then(|| {
                        let rest = &leftover[blanks..];
                        let tag = rest.iter().position(|&b| b == b'>')?;
                        let whole =
                            crate::call::extent::misspelled_closer(form.closer, &rest[..=tag]);
                        (whole == Some(true)).then_some(blanks + tag + 1)
                    })
                    .flatten();
                if let Some(end) = misspelled {
                    leftover.drain(..end);
                }
                // Or text, then the call's bound (or the end of the stream, with no
                // closer): text ending in `}` there was the rest of a JSON body that
                // seemed to end before it (as `held_text` takes it).
                let went_on =
                    complete && !closer_left && misspelled.is_none() && call.may_go_on(false) && {
                        let extent = Extent::of(form).past_markup(&markup);
                        let bound = match extent.find(&leftover) {
                            Ok(Some(bound)) => Some(bound),
                            _ if form.closer.is_empty() => Some(Bound {
                                start: leftover.len(),
                                end: leftover.len(),
                                closer: false,
                            }),
                            _ => None,
                        };
                        bound
                            .filter(|b| {
                                let text = &leftover[..b.start];
                                (b.closer && markup.is_some() && !text.trim_ascii().is_empty())
                                    || body_went_on(text, form.trailer, &markup)
                            })
                            .map(|b| leftover.drain(..if b.closer { b.end } else { b.start }))
                            .is_some()
                    };
                let closed = terminated_by == Some(form.closer)
                    || closer_left
                    || misspelled.is_some()
                    || went_on;
                let string_holds_closer = call.grammar.open_string_holds(form.closer);
                self.retire(call);
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
                    // (A body of several whose last call was released while its
                    // readings were decided here has none open: it misses nothing.)
                    if !form.closer.is_empty() && !closed && sink.calls.is_open() {
                        sink.repair(Repair::MissingCloser);
                    }
                    if went_on {
                        sink.went_on(&markup);
                    }
                    // Not released (the sink decides at its end): what follows its closer may be
                    // the rest of its body.
                    let (open, released) = (sink.calls.is_open(), sink.calls.released);
                    sink.end();
                    let refused = open && sink.calls.released == released;
                    // (With no closer, only a JSON body misread: `end_closerless`.)
                    let remains = !form.closer.is_empty() || (misread && !form.repeats);
                    self.mode = match refused && remains {
                        true => Mode::Remains(Box::new(Remains::new(form, within, markup, false))),
                        // More bodies may follow one with no closer (Llama 3's `; {...}`),
                        // as after a body that ended while streaming (`end_body`).
                        false if form.closer.is_empty() && form.repeats => {
                            Mode::AfterCall(Box::new(AfterCall {
                                form,
                                held: SmallVec::new(),
                                within,
                                trailer_done: form.trailer.is_empty(),
                                gap: SmallVec::new(),
                                holding: false,
                                may_go_on: false,
                                extent: None,
                                markup,
                                misread: false,
                            }))
                        }
                        false => within.map_or(Mode::Text, Mode::Reasoning),
                    };
                    if !leftover.is_empty() {
                        self.process(&leftover);
                    }
                    return true;
                } else if clean_stop
                    && (sink.calls.open_args_hold(form.closer) || string_holds_closer)
                {
                    // The closer went into an open string: ended, not cut.
                    sink.abort(Abort::Unclosed);
                } else {
                    sink.abort(Abort::Truncated);
                }
            }
            Mode::AfterCall(state) if state.holding => {
                let back = state.within.map_or(Mode::Text, Mode::Reasoning);
                if body_went_on(&state.held, state.form.trailer, &state.markup) {
                    // The end of the stream bounds the call: the text was its body.
                    self.mode = back;
                    let (mut sink, ..) = self.sink();
                    sink.went_on(&state.markup);
                    sink.end();
                } else if self.cut_off() {
                    // Cut before the closer told whether the text was the body's: the
                    // call did not finish. The text is shown.
                    self.mode = back;
                    let (mut sink, ..) = self.sink();
                    sink.abort(Abort::Truncated);
                    self.process(&state.held);
                } else {
                    self.release_held_text(
                        back,
                        state.form.closer,
                        state.markup,
                        &state.held,
                        false,
                    );
                }
                return true;
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
            Mode::Remains(state) => {
                self.mode = Mode::Remains(state);
                self.finish_remains();
                return true;
            }
            Mode::Echo => {
                self.finish_echo();
                return true;
            }
            Mode::Skip { .. } => {}
        }
        false
    }
}
