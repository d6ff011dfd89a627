//! The `feed` API's lanes: the text of a chunk that cannot be part of any markup is
//! handed out borrowed from the chunk (`Feed`), and one test of a one-byte flag
//! (`FastLane`) stands for the text path's conditions.

use super::*;

/// Which path [`Parser::feed`] or [`Parser::push`] may take a chunk by with one test.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum FastLane {
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

impl Parser {
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
    pub(super) fn feed_rest<'a>(&mut self, chunk: &'a [u8]) -> &'a str {
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
    pub(super) fn feed_marker_start<'a>(&mut self, chunk: &'a [u8]) -> &'a str {
        if let Some(text) = self.text_then_marker_start(chunk) {
            return text;
        }
        self.feed_other(chunk)
    }

    /// A chunk on the text path that is ASCII text with no byte that may begin a marker,
    /// then, from the first that may, the start of a marker the chunk's end cuts: the
    /// text is returned and the start held (`FastLane::Held` reads on when it is one
    /// byte). `None`, with nothing read, for any other chunk.
    pub(super) fn text_then_marker_start<'a>(&mut self, chunk: &'a [u8]) -> Option<&'a str> {
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
    pub(super) fn feed_kept_first<'a>(&mut self, chunk: &'a [u8]) -> &'a str {
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
    pub(super) fn feed_other<'a>(&mut self, chunk: &'a [u8]) -> &'a str {
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
    pub(super) fn take_declined(&mut self, chunk: &[u8], text: &str, cut: &[u8]) {
        self.stats.pushed(chunk.len() as u64);
        self.took_plain(text.as_bytes());
        if !cut.is_empty() {
            self.take_cut(cut);
        }
    }

    /// Hold `cut`, the first bytes of a character the end of a chunk on the text path
    /// cuts, for the next chunk.
    #[inline(never)]
    pub(super) fn take_cut(&mut self, cut: &[u8]) {
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
    pub(super) fn refresh_fast(&mut self) {
        self.fast = match (self.fast, self.queue.is_drained()) {
            (FastLane::Lookahead, _) => FastLane::Lookahead,
            (_, true) => self.lane(),
            (_, false) => FastLane::Off,
        };
    }

    /// `fast` with every event read.
    pub(super) fn lane(&self) -> FastLane {
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
    pub(super) fn plain_lane(&self, table: &Table, reasoning: bool) -> FastLane {
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
    pub(super) fn feed_slow<'a>(&mut self, chunk: &'a [u8]) -> (&'a str, bool, bool) {
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
    pub(super) fn hold_marker_start(&mut self, table: &Table, tail: &[u8]) -> bool {
        if table.set.match_at(tail, 0) != (Found::Partial { start: 0 }) {
            return false;
        }
        self.hold_tail(tail);
        true
    }

    /// Hold `tail`, the start of a marker that ends a chunk on the text path.
    pub(super) fn hold_tail(&mut self, tail: &[u8]) {
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
    pub(super) fn feed_after_char(&mut self, chunk: &[u8]) {
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
    pub(super) fn char_table(&self) -> Option<&'static Table> {
        let (table, reasoning) = self.text_table()?;
        (reasoning == self.utf8.reasoning && table.stop.has_word_check()).then_some(table)
    }

    /// A chunk with the rest of the character the text path cut (`FastLane::Char`),
    /// then plain text: read as `feed_after_char` reads it, but the character and the
    /// text are handed to a [`Feed`], not queued: the character stays in `utf8.buf`
    /// ([`finished_char`](Self::finished_char)), the text is returned. `None`, with
    /// nothing read, for any other chunk.
    pub(super) fn char_then_plain<'a>(&mut self, chunk: &'a [u8]) -> Option<&'a str> {
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
    pub(super) fn held_table(&self) -> Option<(&'static Table, bool)> {
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
    pub(super) fn held_then_plain<'a>(&mut self, chunk: &'a [u8]) -> Option<&'a str> {
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
    pub(super) fn releases_held(&mut self, chunk: &[u8]) -> Option<bool> {
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
}
