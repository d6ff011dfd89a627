//! [`Feed`]: the events of one chunk pushed with [`Parser::feed`], where text that
//! cannot be part of any markup borrows the caller's chunk instead of a copy.

use crate::{Event, Parser};

/// The events of one chunk given to [`Parser::feed`]. Read them with
/// [`next_event`](Feed::next_event) until `None`, as after [`Parser::push`].
///
/// The first event may borrow the chunk itself: in text or reasoning, with nothing
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
        }
    }

    /// The next event of this chunk, borrowing from the chunk or the parser.
    #[inline]
    pub fn next_event(&mut self) -> Option<Event<'_>> {
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
        if !self.direct.is_empty() {
            self.parser.unread_text(self.direct, self.reasoning);
        }
    }
}
