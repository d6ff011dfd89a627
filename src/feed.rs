//! [`Feed`]: the events of one chunk pushed with [`Parser::feed`], where text that
//! cannot be part of any markup borrows the caller's chunk instead of a copy.

use crate::{Event, Parser};

/// The events of one chunk given to [`Parser::feed`]. Read them with
/// [`next_event`](Feed::next_event) until `None`, as after [`Parser::push`].
///
/// The first event may borrow the chunk itself (after the character the last chunk cut,
/// if this one finished it, or the byte it held back, if this one ruled out the marker
/// the byte could begin): in text or reasoning, with nothing
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
    /// Whether the chunk took the parser's out-of-line path, which left how to read
    /// its events in the parser (`Parser::fed_as`); else `direct` is visible text and
    /// the chunk's only event. One flag the caller's loop can branch on: the fast path
    /// reads the text and stops with no other test.
    slow: bool,
}

/// How to read the events of a chunk that took the parser's out-of-line path, besides
/// its borrowed text. Kept by the parser (`Parser::fed_as`) so that path returns only
/// the text, in registers: a `Feed` returned whole goes through memory on every chunk
/// of the caller's loop.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct FedAs {
    /// Whether the borrowed text is reasoning.
    pub(crate) reasoning: bool,
    /// Whether the parser may have queued events (the chunk was not all borrowed text).
    pub(crate) queued: bool,
    /// Whether a character the last chunk cut, which this one finished, or a byte the
    /// last chunk held, which this one ruled out, is still to be read: it comes before
    /// the borrowed text (the parser keeps it: `Parser::finished_char`).
    pub(crate) char_first: bool,
}

impl FedAs {
    /// Borrowed text alone, `reasoning` or not.
    pub(crate) fn text(reasoning: bool) -> FedAs {
        FedAs {
            reasoning,
            ..FedAs::default()
        }
    }

    /// Text the parser keeps (`char_first`), then borrowed text, `reasoning` or not.
    pub(crate) fn kept_first(reasoning: bool) -> FedAs {
        FedAs {
            reasoning,
            char_first: true,
            ..FedAs::default()
        }
    }
}

impl<'a> Feed<'a> {
    /// The events of a chunk that is all visible text, `direct`.
    #[inline]
    pub(crate) fn text(parser: &'a mut Parser, direct: &'a str) -> Feed<'a> {
        Feed {
            parser,
            direct,
            slow: false,
        }
    }

    /// The events of a chunk the parser's out-of-line path took: `direct`, and what
    /// `Parser::fed_as` says.
    #[inline]
    pub(crate) fn slow(parser: &'a mut Parser, direct: &'a str) -> Feed<'a> {
        Feed {
            parser,
            direct,
            slow: true,
        }
    }

    /// The next event of this chunk, borrowing from the chunk or the parser.
    #[inline]
    pub fn next_event(&mut self) -> Option<Event<'_>> {
        if self.slow {
            return self.next_slow();
        }
        match self.direct.is_empty() {
            false => Some(Event::text(std::mem::take(&mut self.direct), false)),
            true => None,
        }
    }

    /// [`next_event`](Self::next_event) after the parser's out-of-line path.
    #[inline]
    fn next_slow(&mut self) -> Option<Event<'_>> {
        let how = &self.parser.fed_as;
        if how.char_first {
            return self.next_char();
        }
        if !self.direct.is_empty() {
            return Some(Event::text(std::mem::take(&mut self.direct), how.reasoning));
        }
        match how.queued {
            true => self.parser.queued_event(),
            false => None,
        }
    }

    /// The character the last chunk cut and this one finished, or the byte it held that
    /// this one ruled out, first of its events. Out of line: the caller's loop keeps
    /// fewer values for it.
    #[inline(never)]
    fn next_char(&mut self) -> Option<Event<'_>> {
        let how = &mut self.parser.fed_as;
        how.char_first = false;
        let reasoning = how.reasoning;
        Some(Event::text(self.parser.finished_char(), reasoning))
    }
}

impl Drop for Feed<'_> {
    #[inline]
    fn drop(&mut self) {
        let how = match self.slow {
            true => self.parser.fed_as,
            false => FedAs::default(),
        };
        if how.char_first || !self.direct.is_empty() {
            self.parser.fed_as.char_first = false;
            self.parser
                .unread_text(how.char_first, self.direct, how.reasoning);
        }
    }
}
