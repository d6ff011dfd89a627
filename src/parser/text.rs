//! The text path: visible text and reasoning, the bytes that could still begin a marker
//! held back (around removed markup, the text that could join across it too), markers
//! acted on.

use super::*;

/// The longest end of `before` that is the beginning of a marker of `set`: text that a
/// marker removed right after it could join with what follows into a new marker.
pub(super) fn joinable(set: &MarkerSet, before: &[u8]) -> usize {
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

impl Parser {
    /// Count `text`, taken by the text path, as read.
    #[inline]
    pub(super) fn took_plain(&mut self, text: &[u8]) {
        self.stats.examined(text.len() as u64);
        if let (false, Some(&last)) = (self.plain_reasoning, text.last()) {
            self.last_text = last;
        }
    }

    /// The table of the text path, and whether it is reasoning: in text or reasoning
    /// with nothing held (held bytes, a partial character or a joinable end of earlier
    /// text may join with what follows, which `scan` decides). Kept in `plain`.
    pub(super) fn plain_table(&self) -> Option<(&'static Table, bool)> {
        self.text_table().filter(|_| self.utf8.is_empty())
    }

    /// Like [`plain_table`](Self::plain_table), whatever partial character is held.
    pub(super) fn text_table(&self) -> Option<(&'static Table, bool)> {
        self.text_table_held().filter(|_| self.held.is_empty())
    }

    /// Like [`text_table`](Self::text_table), whatever bytes are held.
    pub(super) fn text_table_held(&self) -> Option<(&'static Table, bool)> {
        let found = match self.mode {
            // Until visible text begins, start-only openers still count, and where a
            // name may be held every byte of text is looked at: slow path.
            Mode::Text if !self.at_start && !self.name_spot() && !self.names_after_text() => {
                (&self.tables.text, false)
            }
            Mode::Reasoning(i) => (&self.tables.reasoning[i as usize], true),
            _ => return None,
        };
        (!self.finished() && self.text_tail.is_none()).then_some(found)
    }

    pub(super) fn update_plain(&mut self) {
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
    pub(super) fn plain_text(&mut self, chunk: &[u8]) -> usize {
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

    /// The end of a character split across pushes, at the start of `chunk`, read on
    /// the text path (prose in small chunks splits characters often): when nothing else
    /// is held and its bytes cannot begin a marker, the character is text as `scan`
    /// would find it. Returns the bytes taken: none when `scan` must decide.
    pub(super) fn finish_char(&mut self, chunk: &[u8]) -> usize {
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
    pub(super) fn start_char(&mut self, rest: &[u8]) -> usize {
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
    pub(super) fn hold_char(&mut self, rest: &[u8]) {
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

    pub(super) fn scan(&mut self, input: &[u8], reasoning: bool) -> usize {
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
    pub(super) fn joinable(&self, before: &[u8]) -> usize {
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
    pub(super) fn hold_from(
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
    pub(super) fn break_joined(&mut self, tmp: &[u8], h: usize, end: usize) -> usize {
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
    pub(super) fn find_acting(&self, hay: &[u8], shown: usize, reasoning: bool) -> Found {
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
    pub(super) fn anchor_ok(
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
                if self.at_start && (reasoning || before.iter().all(u8::is_ascii_whitespace)) {
                    return true;
                }
                let below_limit = (self.calls.next_index as usize) < self.config.limits.max_calls;
                // Past the start, a form that goes on at later lines with tools declared
                // (a markerless call list naming one) counts as a weak opener does.
                if form.past_start.is_some()
                    && self.config.dialect == Dialect::Auto
                    && !self.config.tools.is_empty()
                {
                    return below_limit && self.line_start(hay, shown, at, reasoning);
                }
                // After calls that opened the output, a call object on its own line
                // (JSON within a sentence is the model talking about a call).
                let opened = self.opened_with_call || (self.at_start && self.calls.next_index > 0);
                form.after_calls && opened && !reasoning && self.line_start(hay, shown, at, false)
            }
            // Past the call limit a weak opener is text: it has no call to begin.
            Action::Call(form) if form.anchored => {
                self.line_start(hay, shown, at, reasoning)
                    && (self.calls.next_index as usize) < self.config.limits.max_calls
            }
            _ => true,
        }
    }

    /// Whether `hay[at]` begins a line of the visible text (judged as in
    /// [`anchor_ok`](Self::anchor_ok)).
    fn line_start(&self, hay: &[u8], shown: usize, at: usize, reasoning: bool) -> bool {
        let before = &hay[shown.min(at)..at];
        match hay[..at].last() {
            Some(&b) if !reasoning && (at < shown || !before.is_empty()) => b == b'\n',
            _ => self.last_text == b'\n',
        }
    }

    /// Text is left for reasoning or a call: keep the joinable end of the visible text
    /// (`before` is what precedes the marker) for the text that follows them.
    pub(super) fn keep_text_tail(&mut self, before: &[u8], reasoning: bool) {
        if reasoning {
            return;
        }
        let n = joinable(&self.tables.text.set, before);
        self.text_tail =
            (n > 0).then(|| Box::new(SmallVec::from_slice(&before[before.len() - n..])));
    }

    /// Emit the held bytes not shown yet, and hold nothing.
    pub(super) fn release_held(&mut self, reasoning: bool) {
        let held = std::mem::take(&mut self.held);
        let shown = std::mem::take(&mut self.shown) as usize;
        self.emit_text(&held[shown..], reasoning);
    }

    /// Emit `tmp[..to]` (the held bytes and what follows) except what is shown already,
    /// and hold nothing.
    pub(super) fn release_held_to(&mut self, tmp: &[u8], to: usize, reasoning: bool) {
        let shown = std::mem::take(&mut self.shown) as usize;
        self.held.clear();
        if to > shown {
            self.emit_text(&tmp[shown..to], reasoning);
        }
    }

    pub(super) fn emit_text(&mut self, bytes: &[u8], reasoning: bool) {
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

    pub(super) fn emit_shown(&mut self, mut bytes: &[u8], reasoning: bool) {
        if bytes.is_empty() {
            return;
        }
        if !reasoning {
            self.last_text = bytes[bytes.len() - 1];
            if !bytes.iter().all(u8::is_ascii_whitespace) {
                if self.at_start {
                    self.opened_with_call = self.calls.next_index > 0;
                }
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

    pub(super) fn act(&mut self, action: Action) {
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
                    if matches!(self.mode, Mode::Call(_)) {
                        self.process(ident);
                    }
                    if matches!(self.mode, Mode::Call(_)) {
                        self.process(form.body_prefix);
                    }
                    let work = Parser::work(&mut self.work);
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
                let prose = self.work.as_ref().is_some_and(|w| {
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
                    if matches!(self.mode, Mode::Call(_)) {
                        let ident = String::from_utf8_lossy(name.trim_ascii_end()).into_owned();
                        self.sink().0.told_name(&ident);
                    }
                    let work = Parser::work(&mut self.work);
                    if work.name.is_empty() {
                        work.name = name;
                        work.name.clear();
                    }
                }
                if !form.body_prefix.is_empty() && matches!(self.mode, Mode::Call(_)) {
                    self.process(form.body_prefix);
                }
            }
            Action::Call(form) => {
                let within = match self.mode {
                    Mode::Reasoning(i) => Some(i),
                    _ => None,
                };
                self.start_call(form, within);
                if !form.body_prefix.is_empty() && matches!(self.mode, Mode::Call(_)) {
                    self.process(form.body_prefix);
                }
            }
        }
    }
}
