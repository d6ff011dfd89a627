//! A call's life from the parser's side: starting it at its opener, feeding its body to
//! its [`CallState`], ending it, and the bypasses that take a chunk of a call's
//! arguments straight to its value reader (a string's run, a look-ahead's reading).

use super::*;

impl Parser {
    /// The look-ahead lane: the chunk goes straight to the running look-ahead, which
    /// writes nothing until it decides, so the grammar and the sink have nothing to do;
    /// only the body and held limits are checked (`FastLane::Lookahead` or
    /// `lookahead_ready` stands for the rest). `None` when it read the whole chunk
    /// undecided; else how many bytes it read (0: the limits were near, and the chunk
    /// takes the usual path) and whether it decided, with the lane closed. A decided
    /// look-ahead must be resolved next (`resolve_at_end`), before anything else.
    #[inline]
    pub(super) fn lookahead_lane(&mut self, chunk: &[u8]) -> Option<(usize, bool)> {
        debug_assert!(self.lookahead_ready());
        let Mode::Call(call) = &mut self.mode else {
            unreachable!("the look-ahead lane opens only in a call")
        };
        // The body limit counts raw bytes, as `feed_call` does.
        let fits = chunk.len() <= self.config.limits.max_args_bytes.saturating_sub(call.body);
        let (n, decided) = match fits {
            true => call.args.rep.lane_lookahead(chunk),
            false => (0, false),
        };
        call.body += n;
        call.raw.keep(&chunk[..n]);
        self.stats.examined(n as u64 + call.args.rep.take_work());
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
    pub(super) fn lookahead_ready(&self) -> bool {
        #[cfg(test)]
        if !self.lookahead_pass.0 {
            return false;
        }
        match &self.mode {
            Mode::Call(call) => {
                call.args.rep.looking_ahead()
                    && !self.finished()
                    && self.plain.is_none()
                    && self.utf8.is_empty()
                    && call.byte_held.is_none()
                    && matches!(call.grammar, Grammar::Envelope(_))
                    && !call.forked()
                    && call.args.rep.lookahead_clean()
            }
            Mode::Text
            | Mode::Reasoning(_)
            | Mode::AfterCall(_)
            | Mode::Remains(_)
            | Mode::Echo
            | Mode::Skip { .. } => false,
        }
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
    pub(super) fn args_string(&mut self, chunk: &[u8]) -> usize {
        let mut at;
        let Mode::Call(call) = &mut self.mode else {
            return 0;
        };
        if let Some(held) = call.byte_held {
            if chunk.is_empty() {
                return 0;
            }
            call.byte_held = None;
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
        if at + 1 == chunk.len() && matches!(chunk[at], b'\\' | b'"') {
            if let Mode::Call(call) = &mut self.mode {
                if call.in_string_arg {
                    call.byte_held = Some(chunk[at]);
                    at += 1;
                }
            }
        }
        at
    }

    /// The call path while a look-ahead weighs a quote in the arguments, for a chunk
    /// the lane did not take (it was closed): the same reading where the lane's
    /// conditions hold (`lookahead_ready`). Returns the bytes taken.
    pub(super) fn args_lookahead(&mut self, chunk: &[u8]) -> usize {
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
    pub(super) fn resolve_at_end(&mut self, chunk: &[u8], n: usize, decided: bool) {
        if decided && n == chunk.len() {
            let used = self.feed_call(&[]);
            debug_assert_eq!(used, 0);
            self.update_plain();
        }
    }

    /// Whether the parser is inside a string of the arguments with nothing held: where
    /// [`string_run`](Self::string_run) reads.
    pub(super) fn in_idle_string_arg(&self) -> bool {
        match &self.mode {
            Mode::Call(call) => {
                matches!(&call.grammar, Grammar::Envelope(e) if e.in_args_string())
                    && !call.forked()
                    && call.args.rep.in_idle_string()
            }
            Mode::Text
            | Mode::Reasoning(_)
            | Mode::AfterCall(_)
            | Mode::Remains(_)
            | Mode::Echo
            | Mode::Skip { .. } => false,
        }
    }

    /// The repairer's string run over `input`, written to the call; `None` when the
    /// input is not inside a string of the arguments with nothing held. Inlined into
    /// `push_rest`: a long string's every chunk comes here, and the call's frame cost
    /// the 19 KB call's chunks about 2 % (the repairer's `string_run`, inlined too,
    /// cost more than it saved).
    #[inline(always)]
    pub(super) fn string_run(&mut self, input: &[u8]) -> Option<usize> {
        let in_string = matches!(&self.mode, Mode::Call(call) if call.in_string_arg);
        if !in_string && !self.in_idle_string_arg() {
            return None;
        }
        debug_assert!(self.in_idle_string_arg());
        let Mode::Call(call) = &mut self.mode else {
            return None;
        };
        call.in_string_arg = true;
        // The body limit counts raw bytes, as `feed_call` does.
        let budget = self.config.limits.max_args_bytes.saturating_sub(call.body);
        let input = &input[..input.len().min(budget)];
        let mut sink = Sink {
            calls: &mut self.calls,
            queue: &mut self.queue,
            config: &self.config,
            stats: &mut self.stats,
        };
        let CallState {
            args, body, raw, ..
        } = &mut **call;
        let ArgsReader { rep, out: scratch } = args;
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
        raw.keep(&input[..n]);
        self.stats.examined(rep.take_work());
        match written {
            Ok(()) => Some(n),
            // Not reached (`args_fit`), but handled as `feed_call` would.
            Err(why) => Some(self.abort_to_skip(why, n)),
        }
    }

    pub(super) fn start_call(&mut self, form: &'static CallForm, within: Option<u16>) {
        // Past the start, a start-only opener that counts there begins its other body.
        let body = match form.past_start {
            Some(body) if !self.at_start => body,
            _ => &form.body,
        };
        if let Some(work) = &mut self.work {
            work.repeat_gap.clear();
        }
        self.calls.heuristic = form.heuristic;
        self.calls.labelled = form.labelled;
        self.calls.form = Some(form);
        let tentative = self.tentative(form);
        let (mut sink, ..) = self.sink();
        if form.anchored || tentative || matches!(body, Body::Harmony(_)) {
            // A weak opener or a header: the call begins only if what follows is one.
            sink.calls.pending_implies = form.implies;
        } else if !sink.begin(form.implies) {
            self.mode = Mode::Skip {
                closer: form.closer,
                matched: 0,
            };
            return;
        }
        let (alt, native) = match body {
            Body::NameArgs(spec) => (spec.alt_string, spec.native_repairs()),
            Body::Pythonic(_) => (&b""[..], crate::grammar::python_native()),
            _ => (&b""[..], Repairs::NONE),
        };
        let limits = &self.config.limits;
        // A JSON call object names its tool before its arguments: the repairer learns
        // the tool there and checks argument keys against its schema.
        let tool_by_name = (!self.config.tools.is_empty()
            && matches!(body, Body::Envelope(_) | Body::Sniff(_)))
        .then(|| ToolByName {
            tools: self.config.tools.clone(),
            args_depth: 2,
        });
        // A JSON envelope's call object: an object where a key belongs is its arguments.
        let envelope = match body {
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
            trailer: form.trailer,
            alt_string: alt,
            keys: KeyCheck::default(),
            python: false,
            tool_by_name,
            keyless_key,
            log_repairs: envelope.is_some(),
        };
        // Lock `auto` only on a body that is certainly a call: a sniffed body locks when
        // chosen, and a weak opener or a harmony header may turn out not to be one.
        let weak = tentative || ((form.anchored || form.heuristic) && !form.labelled);
        if !weak && !matches!(body, Body::Sniff(_) | Body::Harmony(_)) {
            self.lock(body, form);
        }
        let grammar = Grammar::new(body, form, weak);
        let mut call = match Parser::work(&mut self.work).spare.take() {
            Some(mut spare) => {
                spare.restart(form, grammar, within, native);
                spare
            }
            None => Box::new(CallState::new(
                form,
                grammar,
                ArgsReader::default(),
                within,
                native,
            )),
        };
        let rep = &mut call.args.rep;
        rep.reset();
        rep.set_call_options(form as *const CallForm as usize, options, || {
            call_terminators(form)
        });
        // Every grammar's values fork their readings at a weak decision (a grammar whose
        // body holds several calls resets its reader per call, unarmed: its calls end
        // inside the body, so there the look-ahead's verdicts stand).
        call.args.arm();
        self.mode = Mode::Call(call);
    }

    /// Whether `form`'s opener is also a wrapper that a dialect in force strips (Olmo's
    /// `<function_calls>` is DSML's section without its prefix): in `auto` the call
    /// begins only if its body is this form's; otherwise the opener is dropped and what
    /// follows is read as text, with its own markers.
    /// Only a dialect listed before the form's in `auto` counts (a later one that
    /// strips a wrapper of the same spelling, MiniMax M3's `<tool_call>`, reads it as
    /// its own only when named).
    pub(super) fn tentative(&self, form: &'static CallForm) -> bool {
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
    pub(super) fn only_text_like(&self, tail: &[u8]) -> bool {
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

    pub(super) fn feed_call(&mut self, whole: &[u8]) -> usize {
        let mut chosen = None;
        // The arguments size limit counts the call's raw body bytes, so the call ends at
        // the same byte however the input is chunked.
        let Mode::Call(call) = &mut self.mode else {
            unreachable!("a call's input goes to its call")
        };
        let budget = self.config.limits.max_args_bytes.saturating_sub(call.body);
        let input = &whole[..whole.len().min(budget)];
        call.body += input.len();
        // (No input at all only resolves what the look-ahead decided: `resolve_at_end`.)
        if input.is_empty() && !whole.is_empty() {
            if call.grammar.undecided() {
                // It never showed it is a call (a markerless list or JSON): text.
                self.give_back();
                return 0;
            }
            return self.abort_to_skip(Abort::TooLarge, 0);
        }
        let (step, form, terminated_by) = {
            let Parser {
                calls,
                queue,
                config,
                stats,
                mode,
                ..
            } = self;
            let Mode::Call(call) = mode else {
                unreachable!()
            };
            let mut sink = Sink {
                calls,
                queue,
                config,
                stats,
            };
            let step = call.feed(input, &mut sink, &mut chosen);
            sink.stats.examined(call.take_work());
            let read = match step.kind {
                StepKind::NeedMore => input.len(),
                _ => step.consumed.min(input.len()),
            };
            call.raw.keep(&input[..read]);
            (step, call.form, call.args.rep.terminated_by())
        };
        // A sniffed body chosen in this step may also have ended in it (inside the bytes
        // held while sniffing), its grammar then gone: what it was still counts.
        let chose_envelope = matches!(chosen, Some(Body::Envelope(_)));
        if let Some(body) = chosen {
            self.lock(body, form);
        }
        let consumed = step.consumed;
        match step.kind {
            StepKind::NeedMore => input.len(),
            StepKind::Fork | StepKind::CallEnded => {
                unreachable!("the call forks and decides its readings itself")
            }
            StepKind::Ended { closer_seen } => {
                // A marker other than the closer ended the body: read it again after
                // this call (the next call's opener, an end-of-turn token).
                let other = match terminated_by {
                    Some(m) if closer_seen && m != form.closer => m,
                    _ => b"",
                };
                if !other.is_empty() {
                    // The body was cut, not finished: no `{}` for missing arguments.
                    self.sink().0.cut();
                }
                let mut leftover = self.end_body(closer_seen && other.is_empty(), chose_envelope);
                leftover.splice(0..0, other.iter().copied());
                if !leftover.is_empty() {
                    self.process(&leftover);
                }
                consumed
            }
            StepKind::Reject => {
                self.give_back();
                consumed
            }
            StepKind::Abort(why) => self.abort_to_skip(why, consumed),
            StepKind::Switch { reasoning } => {
                self.calls.pending_implies = None;
                let close = match &form.body {
                    Body::Harmony(spec) => spec.reasoning_close,
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
    pub(super) fn give_back(&mut self) {
        let mode = std::mem::replace(&mut self.mode, Mode::Text);
        let Mode::Call(mut call) = mode else {
            return;
        };
        let (form, within) = (call.form, call.within);
        self.calls.pending_implies = None;
        self.sink().0.withdraw();
        let rejected = call.grammar.take_rejected();
        self.retire(call);
        let reasoning = within.is_some();
        self.mode = within.map_or(Mode::Text, Mode::Reasoning);
        // The blanks before a repeated body that is none: text.
        let gap = self
            .work
            .as_mut()
            .map(|w| std::mem::take(&mut w.repeat_gap));
        if let Some(gap) = gap.filter(|g| !g.is_empty()) {
            self.emit_text(&gap, reasoning);
        }
        if !(form.anchored || form.heuristic) {
            self.process(&rejected);
            return;
        }
        if form.name_before {
            // The name and what followed are text; no name is held again here, so the
            // opener reads as markup.
            self.at_start = false;
            self.calls_at_text = self.calls.next_index;
            Parser::work(&mut self.work).names_paused = true;
            self.process(&rejected);
            Parser::work(&mut self.work).names_paused = false;
            return;
        }
        let mut text: SmallVec<[u8; 64]> =
            SmallVec::from_slice(&form.opener[..form.opener.len() - form.body_prefix.len()]);
        text.extend_from_slice(&rejected);
        // A form that also begins past the start (a markerless call list at a later
        // line) may begin again at the next byte; any other is text from here.
        if form.start_only && (self.at_start || form.past_start.is_none()) && !self.finished() {
            // Past the start it cannot begin again: the bytes are read as text whole,
            // so markup in them still joins and acts (`[TOOL_CALLS</parameter>]`).
            self.at_start = false;
            // Nor after calls, from now on: an object that is no call was written among
            // them, and an object nested in it may begin a line.
            self.opened_with_call = false;
            self.process(&text);
            return;
        }
        if let Some((&first, rest)) = text.split_first() {
            self.emit_text(&[first], reasoning);
            self.process(rest);
        }
    }

    /// End the call early and drop the rest of its body, up to its closer.
    pub(super) fn abort_to_skip(&mut self, why: Abort, consumed: usize) -> usize {
        let (leftover, remains) = match &mut self.mode {
            // Given up as ambiguous inside its body: what follows, up to the last of
            // its closers before its bound, is the call's (`remains`).
            Mode::Call(call) if why == Abort::Ambiguous && !call.form.closer.is_empty() => {
                let remains = Remains::new(call.form, call.within, call.markup(), true);
                (call.take_leftover(), Some(remains))
            }
            Mode::Call(call) => (call.take_leftover(), None),
            _ => (Vec::new(), None),
        };
        let (closer, _) = self.abort_call(why);
        self.mode = match remains {
            Some(remains) => Mode::Remains(Box::new(remains)),
            None => Mode::Skip { closer, matched: 0 },
        };
        if !leftover.is_empty() {
            self.process(&leftover);
        }
        consumed
    }

    /// `auto` saw a certain call: report the dialect its body belongs to, and keep only
    /// the dialects that share its opener (several dialects may share one: Jamba,
    /// Hunyuan and MiniMax M1 all open with `<tool_calls>`).
    pub(super) fn lock(&mut self, body: &'static Body, form: &'static CallForm) {
        // A call written inside reasoning returns to it, by its index in the tables in
        // force: lock only on a call outside reasoning, so that index stays valid.
        // (From `start_call` the mode is still the reasoning block's.)
        let within = match &self.mode {
            Mode::Call(call) => call.within,
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
    /// closer. Returns bytes read past the body, to be read again. `enveloped`: the
    /// body was a JSON call object chosen by sniffing in the step that ended it.
    pub(super) fn end_body(&mut self, closer_seen: bool, enveloped: bool) -> Vec<u8> {
        let mode = std::mem::replace(&mut self.mode, Mode::Text);
        let Mode::Call(mut call) = mode else {
            unreachable!()
        };
        let (form, within) = (call.form, call.within);
        let leftover = call.take_leftover();
        let len = call.raw.len(&leftover, form, closer_seen);
        Parser::work(&mut self.work)
            .echo
            .keep(&mut call.raw.bytes, len);
        let repairs = call.repairs();
        let may_go_on = call.may_go_on(enveloped);
        let markup = call.markup();
        let list_broke = call.grammar.list_broke();
        let refused_call = call.refused_call;
        let misread = call.json_misread();
        self.retire(call);
        if list_broke {
            // Up to the list's last `)]` (or the call's last closer) before its bound,
            // what follows was the call's (a raw string that went on past `')`); the
            // rest is text.
            self.mode = Mode::Remains(Box::new(Remains::new(form, within, markup, false)));
            return leftover;
        }
        let (mut sink, ..) = self.sink();
        if sink.calls.is_open() {
            sink.repairs(repairs);
        }
        if closer_seen || (form.closer.is_empty() && !form.repeats && !may_go_on) {
            // A body of tags with no closer ends the call at its own closing tags,
            // which a value may hold as well. (Not a body of elements: MiniMax M3
            // marks its tags, and a value's unmarked tag is text; its body also ends
            // where no element follows, and reading what follows again at every
            // such end would make a run of broken calls quadratic.)
            match closer_seen || (markup.of_tags() && !markup.of_elements()) {
                true => self.end_body_at_closer(form, within, markup, refused_call),
                false => self.end_closerless(form, within, markup, misread),
            }
        } else {
            self.mode = Mode::AfterCall(Box::new(AfterCall {
                form,
                held: SmallVec::new(),
                within,
                trailer_done: form.trailer.is_empty(),
                gap: SmallVec::new(),
                holding: false,
                may_go_on,
                extent: None,
                markup,
                misread,
            }));
        }
        leftover
    }

    /// A call with no closer ended with its body: released, or not. A JSON body
    /// `misread` (structure invented around a file's raw text) and not released: text
    /// after it up to the call's bound, ending in `}`, was the rest of the body
    /// (`remains`), not text to show. (Whether it is released does not wait for that.)
    /// Not in a form whose bodies repeat.
    pub(super) fn end_closerless(
        &mut self,
        form: &'static CallForm,
        within: Option<u16>,
        markup: BodyMarkup,
        misread: bool,
    ) {
        let (mut sink, ..) = self.sink();
        let (open, released) = (sink.calls.is_open(), sink.calls.released);
        sink.end();
        let refused = open && sink.calls.released == released;
        // (Not in a form whose bodies repeat, Llama 3's `{...}; {...}`: what follows may
        // be the next call, read as `after_call` reads it.)
        self.mode = match refused && misread && !form.repeats {
            true => Mode::Remains(Box::new(Remains::new(form, within, markup, false))),
            false => within.map_or(Mode::Text, Mode::Reasoning),
        };
    }

    /// The call ended at its closer. Not released, what follows may be the rest of its
    /// body (`remains`).
    pub(super) fn end_at_closer(
        &mut self,
        form: &'static CallForm,
        within: Option<u16>,
        markup: BodyMarkup,
    ) {
        self.end_body_at_closer(form, within, markup, false);
    }

    /// [`end_at_closer`](Self::end_at_closer) of a body in which an earlier call was not
    /// released (`refused_before`): with no call open at the closer, what follows it may
    /// be the rest of that call, as after a lone call not released.
    fn end_body_at_closer(
        &mut self,
        form: &'static CallForm,
        within: Option<u16>,
        markup: BodyMarkup,
        refused_before: bool,
    ) {
        let (mut sink, ..) = self.sink();
        // A call with neither a name nor arguments was none: no body goes on past it.
        let empty = sink.calls.current.is_some() && !sink.calls.has_content();
        let raw = sink.calls.current.as_ref().map(|c| c.repairs);
        if !empty && raw.is_some_and(|r| Remains::closer_may_be_content(form, r, &markup)) {
            // A fence closed a call whose strings were written raw, or a closer a body
            // of tags: a file's own fence, or its own closing tags written raw in a
            // value, look the same. What follows, up to the call's bound, tells.
            let mut remains = Remains::new(form, within, markup, false);
            remains.deciding = true;
            self.mode = Mode::Remains(Box::new(remains));
            return;
        }
        // Not released (the sink decides at its end): what follows its closer may be
        // the rest of its body.
        let (open, released) = (sink.calls.is_open(), sink.calls.released);
        sink.end();
        let refused = match open {
            true => sink.calls.released == released,
            false => refused_before,
        };
        self.mode = match (refused, empty || form.closer.is_empty()) {
            (true, false) => Mode::Remains(Box::new(Remains::new(form, within, markup, false))),
            (true, true) => within.map_or(Mode::Text, Mode::Reasoning),
            (false, _) => self.after_release(form, within),
        };
    }

    pub(super) fn abort_call(&mut self, why: Abort) -> (&'static [u8], Vec<u8>) {
        let mode = std::mem::replace(&mut self.mode, Mode::Text);
        let Mode::Call(call) = mode else {
            return (b"", Vec::new());
        };
        let form = call.form;
        let repairs = call.repairs();
        self.retire(call);
        let (mut sink, ..) = self.sink();
        if sink.calls.is_open() {
            sink.repairs(repairs);
        }
        sink.abort(why);
        (form.closer, Vec::new())
    }

    pub(super) fn skip(&mut self, input: &[u8]) -> usize {
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
}
