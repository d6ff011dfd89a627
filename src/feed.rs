//! [`Feed`]: the events of one chunk pushed with [`Parser::feed`], where text that
//! cannot be part of any markup borrows the caller's chunk instead of a copy.

use crate::{Event, Parser};

/// The events of one chunk given to [`Parser::feed`]. Read them with
/// [`next_event`](Feed::next_event) until `None`, as after [`Parser::push`].
///
/// The first event may borrow the chunk itself (after the character the last chunk cut,
/// if this one finished it): in text or reasoning, with nothing
/// held back and nothing left to read, the bytes before the first one that could begin
/// a marker where it stands (or is not a whole UTF-8 character) are text as they stand,
/// so they are handed out as they were given, not copied. Whatever follows them goes
/// through [`Parser::push`].
///
/// Dropping a `Feed` before reading its events loses nothing: borrowed text not yet read
/// is copied into the parser, ahead of the events still queued, and the next
/// [`Parser::next_event`] (or `Feed::next_event`) returns it.
#[must_use = "read the events with next_event until None"]
pub struct Feed<'a> {
    parser: &'a mut Parser,
    /// Text borrowed from the chunk, not read yet (empty when none or read).
    direct: &'a str,
    /// Whether `direct` is reasoning.
    reasoning: bool,
    /// Whether the parser may have queued events (the chunk was not all borrowed text).
    queued: bool,
    /// Whether a character the last chunk cut, which this one finished, is still to be
    /// read: it comes before `direct` (the parser keeps it: `Parser::finished_char`).
    char_first: bool,
}

impl<'a> Feed<'a> {
    #[inline]
    pub(crate) fn new(
        parser: &'a mut Parser,
        direct: &'a str,
        reasoning: bool,
        queued: bool,
    ) -> Feed<'a> {
        Feed {
            parser,
            direct,
            reasoning,
            queued,
            char_first: false,
        }
    }

    /// The events of a chunk that finished the character the last chunk cut (kept by
    /// the parser), then is all `direct` text: nothing queued.
    pub(crate) fn after_char(parser: &'a mut Parser, direct: &'a str, reasoning: bool) -> Feed<'a> {
        Feed {
            parser,
            direct,
            reasoning,
            queued: false,
            char_first: true,
        }
    }

    /// The next event of this chunk, borrowing from the chunk or the parser.
    #[inline]
    pub fn next_event(&mut self) -> Option<Event<'_>> {
        if self.char_first {
            self.char_first = false;
            return Some(Event::text(self.parser.finished_char(), self.reasoning));
        }
        if !self.direct.is_empty() {
            return Some(Event::text(
                std::mem::take(&mut self.direct),
                self.reasoning,
            ));
        }
        match self.queued {
            true => self.parser.queued_event(),
            false => None,
        }
    }
}

impl Drop for Feed<'_> {
    #[inline]
    fn drop(&mut self) {
        if self.char_first || !self.direct.is_empty() {
            self.parser
                .unread_text(self.char_first, self.direct, self.reasoning);
        }
    }
}
