//! Text bytes as `str` without a second `str::from_utf8` pass.
//!
//! The one place the crate uses `unsafe`: on token-sized chunks, `str::from_utf8` cost
//! more than the rest of the push (`docs/performance.md` has the counts); an ASCII check
//! (`<[u8]>::is_ascii`, a word at a time) costs a tenth of it, and a stop table that
//! always stops at bytes over 0x7f costs nothing more. Each item here keeps its own
//! guarantee (a check, or a table only this module builds), so no caller can break it.
//! The guarantees from elsewhere are the word functions of `word`, pure functions of a
//! chunk's bytes: `TextStops::all_plain_by` (behind `all_plain`), `declined` and
//! `feed`'s `fast_plain` and `fast_plain_one` (both `plain_unless`), whatever
//! marker bytes they are given, take a chunk of up to 8 bytes as whole characters where
//! `word::whole_chars` says so of its `gather` word or `word::whole_2byte_set` of its
//! `gather_set` word (their tests compare them with `str::from_utf8` over every chunk
//! of up to two, or four, UTF-8 edge bytes, and at every place of longer ones or random
//! longer ones), and as ASCII where the `gather_set` or
//! `gather` word has no high bit, or `ByteSet::stops` or `stops_first` finds none (tested
//! to hold every byte of the chunk at every place of every length, and against a byte
//! loop).
#![allow(unsafe_code)]

use crate::word::{self, ByteBits, ByteSet};

/// The bytes plain text stops at: those that may begin a marker, and every byte that
/// is not ASCII (it is passed only as part of a whole character, checked): the text
/// before a stop is a `str` with no second UTF-8 pass.
#[derive(Clone, Debug)]
pub(crate) struct TextStops {
    table: [u8; 256],
    /// The ASCII bytes that may begin a marker when there are one to four of them
    /// (every dialect's table but `auto`'s): a chunk of up to 8 bytes is then checked a
    /// word at a time (`word`). Else a set of the high bit alone, never read.
    words: ByteSet,
    /// Whether `words` is that check.
    word_check: bool,
    /// For each byte of `words` (same order), the bytes that may follow it in a marker
    /// (every byte where a marker is that byte alone): a marker byte followed in the
    /// chunk by one that may not is text where it stands (the `<` of `a < b`).
    follow: [ByteBits; 4],
    /// Likewise the bytes a marker may have third (every byte where one has at most
    /// two): the `<` of `</details>`.
    third: [ByteBits; 4],
}

/// A byte may begin a marker.
const MARKER: u8 = 1;
/// A byte is not ASCII.
const WIDE: u8 = 2;

impl Default for TextStops {
    /// Stops at every byte that is not ASCII.
    fn default() -> TextStops {
        TextStops::new(|_| false)
    }
}

impl TextStops {
    /// Stops at the bytes `marker` names and at every byte that is not ASCII.
    pub(crate) fn new(mut marker: impl FnMut(u8) -> bool) -> TextStops {
        let mut table = [0; 256];
        for b in 0..=255u8 {
            table[b as usize] = (marker(b) as u8 * MARKER) | (!b.is_ascii() as u8 * WIDE);
        }
        let markers: Vec<u8> = (0..0x80u8)
            .filter(|&b| table[b as usize] & MARKER != 0)
            .collect();
        // A marker byte that is not ASCII is not in the word check: every chunk with
        // one goes through the table.
        let wide_marker = (0x80..=0xffu8).any(|b| table[b as usize] & MARKER != 0);
        let words = ByteSet::new(&markers).filter(|_| !wide_marker);
        // Only the high bit: a byte that is not ASCII stops every word check anyway.
        let never = || ByteSet::new(&[0x80]).expect("one byte, not NUL");
        TextStops {
            table,
            word_check: words.is_some(),
            words: words.unwrap_or_else(never),
            follow: [ByteBits::ALL; 4],
            third: [ByteBits::ALL; 4],
        }
    }

    /// Let [`declined`](Self::declined) take a marker byte as text when the next byte of
    /// the chunk is not in the first set `bytes(marker byte)` gives, or the byte after
    /// that not in the second (as
    /// [`MarkerSet::match_at`](crate::scan::MarkerSet::match_at) would rule it out).
    pub(crate) fn follow(mut self, bytes: impl Fn(u8) -> (ByteBits, ByteBits)) -> TextStops {
        if self.word_check {
            let places = self.follow.iter_mut().zip(self.third.iter_mut());
            for ((follow, third), first) in places.zip(self.words.bytes()) {
                (*follow, *third) = bytes(first);
            }
        }
        self
    }

    /// Whether `next`, the bytes after `first`, a byte of the word check, rule out every
    /// marker that begins at `first` (by `follow`: its first byte may not be second in
    /// one, or its second third). `false` when they do not tell.
    pub(crate) fn rules_out(&self, first: u8, next: &[u8]) -> bool {
        let Some(i) = self.words.bytes().position(|b| b == first) else {
            return false;
        };
        next.first().is_some_and(|&b| !self.follow[i].contains(b))
            || next.get(1).is_some_and(|&b| !self.third[i].contains(b))
    }

    /// The text at the start of `chunk`: the bytes before the first that may begin a
    /// marker where `stops_at(position)` holds, and before the first byte that does not
    /// begin a whole UTF-8 character within `chunk` (a character split at the chunk's
    /// end waits for the rest). A marker's first byte it declines is text.
    #[inline]
    pub(crate) fn plain_prefix_where<'a>(
        &self,
        chunk: &'a [u8],
        stops_at: impl FnMut(usize) -> bool,
    ) -> &'a str {
        let mut n = self.first_stop(chunk);
        if n < chunk.len() {
            n = self.resume(chunk, n, stops_at);
        }
        let plain = &chunk[..n];
        debug_assert!(std::str::from_utf8(plain).is_ok());
        // SAFETY: every byte not ASCII is a stop (`new`), and `resume` passes a stop only
        // as the whole character `char_width` checked: `plain` is whole characters.
        unsafe { std::str::from_utf8_unchecked(plain) }
    }

    /// `chunk` as text if none of its bytes may begin a marker and it is whole UTF-8
    /// characters.
    #[inline]
    pub(crate) fn all_plain<'a>(&self, chunk: &'a [u8]) -> Option<&'a str> {
        if let (true, 1..=8) = (self.word_check, chunk.len()) {
            return Self::all_plain_by(&self.words, chunk);
        }
        self.all_plain_by_table(chunk)
    }

    /// Whether chunks of up to 8 bytes are checked a word at a time
    /// ([`fast_plain`](Self::fast_plain)).
    pub(crate) fn has_word_check(&self) -> bool {
        self.word_check
    }

    /// [`all_plain`](Self::all_plain) of an ASCII chunk of up to 8 bytes, by the word
    /// check of a table that has one ([`has_word_check`](Self::has_word_check)), with no
    /// test for it: `feed`'s inline test, whose flag says so. `None` for any other chunk
    /// (empty, longer, with a marker byte or a byte that is not ASCII): one test, and no
    /// call that would keep values alive around it in the caller's loop.
    ///
    /// No second test for whole 2-byte characters, unlike
    /// [`fast_plain_one`](Self::fast_plain_one): these tables (two to four marker bytes,
    /// `auto`'s among them) stop far more often at a marker byte, where it costs more
    /// than it saves (`auto`'s prose: 63.4 M instructions against 61.1 M).
    #[inline]
    pub(crate) fn fast_plain<'a>(&self, chunk: &'a [u8]) -> Option<&'a str> {
        debug_assert!(self.word_check);
        Self::plain_unless(chunk, |bytes| self.words.stops(bytes), |_| true)
    }

    /// `chunk` as text if it has 1 to 8 bytes and, in the word of its bytes
    /// (`gather_set`), `stops` finds no stop (`ByteSet::stops` or `stops_first`, which
    /// stop at every byte over 0x7f), or `found` no marker byte and the word is whole
    /// characters of ASCII and 2 bytes (`word::whole_2byte_set`). The one test of
    /// `feed`'s fast path for most chunks, and a second, with no call, for those with
    /// accented letters (`found` always true: none).
    #[inline(always)]
    fn plain_unless(
        chunk: &[u8],
        stops: impl FnOnce(u64) -> bool,
        found: impl FnOnce(u64) -> bool,
    ) -> Option<&str> {
        let len = chunk.len();
        if !(1..=8).contains(&len) {
            return None;
        }
        let bytes = word::gather_set(chunk);
        if !stops(bytes) {
            debug_assert!(chunk.is_ascii());
            // SAFETY: the word has every byte of the chunk (`gather_set`, tested at
            // every place of every length) and none is over 0x7f (`ByteSet::stops` and
            // `stops_first`, tested against a byte loop): all ASCII.
            return Some(unsafe { std::str::from_utf8_unchecked(chunk) });
        }
        if found(bytes) || !word::whole_2byte_set(bytes, len) {
            return None;
        }
        debug_assert!(std::str::from_utf8(chunk).is_ok());
        // SAFETY: the word has every byte of the chunk, and they are whole characters
        // (`whole_2byte_set`, never wrong against `str::from_utf8` over every chunk of
        // up to four UTF-8 edge bytes and random longer ones).
        Some(unsafe { std::str::from_utf8_unchecked(chunk) })
    }

    /// Whether the word check has one marker byte alone (for
    /// [`fast_plain_one`](Self::fast_plain_one)).
    pub(crate) fn has_one_marker(&self) -> bool {
        self.word_check && self.words.is_single()
    }

    /// [`fast_plain`](Self::fast_plain) of a table whose word check has one marker byte
    /// ([`has_one_marker`](Self::has_one_marker)): no set length to read. A chunk the
    /// test stops that has no marker byte is taken too if it is whole characters of
    /// ASCII and 2 bytes, by a second test of the same word: most chunks with an
    /// accented letter, which would each cost a call and a mispredicted branch (prose:
    /// 16.9 K chunks stopped of 233 K, 7.6 K with the second test).
    #[inline]
    pub(crate) fn fast_plain_one<'a>(&self, chunk: &'a [u8]) -> Option<&'a str> {
        debug_assert!(self.has_one_marker());
        Self::plain_unless(
            chunk,
            |bytes| self.words.stops_first(bytes),
            |bytes| self.words.found_first(bytes),
        )
    }

    /// [`all_plain`](Self::all_plain) by the word check `markers`.
    #[inline]
    fn all_plain_by<'a>(markers: &ByteSet, chunk: &'a [u8]) -> Option<&'a str> {
        if !(1..=8).contains(&chunk.len()) {
            return None;
        }
        // Which bytes there are decides most chunks; where they are, only a chunk with
        // a byte that is not ASCII (`all_plain_stopped`).
        let bytes = word::gather_set(chunk);
        // One test for both kinds of stop: a marker byte, a byte that is not ASCII.
        if !markers.stops(bytes) {
            debug_assert!(chunk.is_ascii());
            // SAFETY: as in `plain_unless` (no stop: all ASCII).
            return Some(unsafe { std::str::from_utf8_unchecked(chunk) });
        }
        Self::all_plain_stopped(markers, chunk, bytes)
    }

    /// [`all_plain_by`](Self::all_plain_by) of a chunk its one test stopped: `None` if
    /// a byte may begin a marker, else (a byte is not ASCII) the chunk if it is whole
    /// characters. Out of line: `feed`'s loop stays small.
    #[inline(never)]
    fn all_plain_stopped<'a>(markers: &ByteSet, chunk: &'a [u8], bytes: u64) -> Option<&'a str> {
        if markers.found_in(bytes) {
            return None;
        }
        // `None` most often for a character the chunk's end cuts.
        whole_text(chunk, word::gather(chunk))
    }

    /// A chunk of 1 to 8 bytes that [`all_plain`](Self::all_plain) declines, read from
    /// one word: the text it is, and the first bytes of a character its end cuts (empty
    /// when none). Text is whole characters with no marker byte, or ASCII whose every
    /// marker byte the next byte of the chunk rules out (`follow`: the `<` of `a < b`;
    /// a marker byte that ends the chunk may go on in the next one, so it is never text
    /// here). `None` for any other chunk.
    #[inline(always)]
    pub(crate) fn declined<'a>(&self, chunk: &'a [u8]) -> Option<(&'a str, &'a [u8])> {
        let (true, len @ 1..=8) = (self.word_check, chunk.len()) else {
            return None;
        };
        let word = word::gather(chunk);
        // Most: whole characters with no marker byte (inlined, the rest is not).
        if !self.words.found_in(word) && word::whole_chars(word) == Some(true) {
            return Some((whole_chars_text(chunk), &chunk[len..]));
        }
        self.declined_rest(chunk, word)
    }

    /// [`declined`](Self::declined) of a chunk with a marker byte, or that is not whole
    /// characters made of 2-byte ones and ASCII, `word` its bytes (`gather`).
    #[inline(never)]
    fn declined_rest<'a>(&self, chunk: &'a [u8], word: u64) -> Option<(&'a str, &'a [u8])> {
        let len = chunk.len();
        let whole = |text| Some((text, &chunk[len..]));
        if self.words.found_in(word) {
            return self.past_markers(chunk, word).and_then(whole);
        }
        if let Some(text) = whole_text(chunk, word) {
            return whole(text);
        }
        // The cut character begins at the last byte that is not a continuation byte,
        // found a word at a time: loops over bytes mispredict on lengths this short.
        let start = word::last_lead(word, len)?;
        let (head, cut) = chunk.split_at(start);
        if cut.len() > 3 || char_len(cut[0])? <= cut.len() {
            return None;
        }
        // Whether the text before it is ASCII. (`start` is at most 7.)
        let head_wide = word::has_wide(word & ((1 << (8 * start)) - 1));
        // After these leads the next byte has a narrower range than any continuation.
        if matches!(cut[0], 0xe0 | 0xed | 0xf0 | 0xf4)
            && !std::str::from_utf8(cut).is_err_and(|e| e.error_len().is_none())
        {
            return None;
        }
        let text = match !head_wide {
            // SAFETY: every byte is ASCII (checked).
            true => unsafe { std::str::from_utf8_unchecked(head) },
            false => std::str::from_utf8(head).ok()?,
        };
        Some((text, cut))
    }

    /// [`declined`](Self::declined) of a chunk with a marker byte, `word` its bytes
    /// (`gather`): the chunk as text if it is ASCII and the next byte rules out a
    /// marker at each marker byte.
    fn past_markers<'a>(&self, chunk: &'a [u8], word: u64) -> Option<&'a str> {
        if word::has_wide(word) {
            return None;
        }
        let sets = self.follow.iter().zip(&self.third);
        for ((follow, third), first) in sets.zip(self.words.bytes()) {
            let mut at = word::positions(word, first);
            while at != 0 {
                let place = at.trailing_zeros() as usize / 8;
                let next = *chunk.get(place + 1)?;
                let ruled_out = !follow.contains(next)
                    || chunk.get(place + 2).is_some_and(|&b| !third.contains(b));
                if !ruled_out {
                    return None;
                }
                at &= at - 1;
            }
        }
        debug_assert!(chunk.is_ascii());
        // SAFETY: the word is the chunk's bytes (`gather`) and none is over 0x7f.
        Some(unsafe { std::str::from_utf8_unchecked(chunk) })
    }

    /// [`all_plain`](Self::all_plain) a byte at a time, through the table.
    #[inline]
    fn all_plain_by_table<'a>(&self, chunk: &'a [u8]) -> Option<&'a str> {
        // Most chunks have no stop, and no branch depends on a byte or on the length
        // up to 8 (a token's size): a branch on either is mispredicted about once a
        // chunk, which costs more than looking at all eight places. Places past the end
        // read the last byte again.
        let mut stop = 0;
        match chunk.len() {
            0 => return Some(""),
            len @ 1..=8 => {
                for i in 0..8 {
                    stop |= self.table[chunk[i.min(len - 1)] as usize];
                }
            }
            _ => {
                for &b in chunk {
                    stop |= self.table[b as usize];
                }
            }
        }
        match stop {
            0 => {
                debug_assert!(chunk.is_ascii());
                // SAFETY: every byte not ASCII is a stop (`new`): these are all ASCII.
                Some(unsafe { std::str::from_utf8_unchecked(chunk) })
            }
            WIDE => std::str::from_utf8(chunk).ok(),
            _ => None,
        }
    }

    /// The bytes of `chunk` before its first stop, as text: ASCII, none of which may
    /// begin a marker.
    pub(crate) fn before_stop<'a>(&self, chunk: &'a [u8]) -> &'a str {
        let plain = &chunk[..self.first_stop(chunk)];
        debug_assert!(plain.is_ascii());
        // SAFETY: every byte that is not ASCII is a stop (`new`).
        unsafe { std::str::from_utf8_unchecked(plain) }
    }

    /// The position of the first stop in `chunk`, or its length.
    #[inline]
    fn first_stop(&self, chunk: &[u8]) -> usize {
        chunk
            .iter()
            .position(|&b| self.table[b as usize] != 0)
            .unwrap_or(chunk.len())
    }

    /// Read on from the stop at `n` (kept out of line: most chunks of prose have none).
    #[inline(never)]
    fn resume(&self, chunk: &[u8], mut n: usize, mut stops_at: impl FnMut(usize) -> bool) -> usize {
        while n < chunk.len() {
            let Some(width) = char_width(&chunk[n..]) else {
                break;
            };
            if self.table[chunk[n] as usize] & MARKER != 0 && stops_at(n) {
                break;
            }
            n += width;
            n += self.first_stop(&chunk[n..]);
        }
        n
    }
}

/// `chunk`, 1 to 8 bytes whose word is `word` (`gather`: each byte in its place), as
/// text if it is whole UTF-8 characters.
#[inline]
fn whole_text(chunk: &[u8], word: u64) -> Option<&str> {
    match word::whole_chars(word) {
        Some(true) => Some(whole_chars_text(chunk)),
        Some(false) => None,
        None => std::str::from_utf8(chunk).ok(),
    }
}

/// `chunk` as text, where `word::whole_chars` said `Some(true)` of its word (`gather`).
#[inline(always)]
fn whole_chars_text(chunk: &[u8]) -> &str {
    debug_assert!(std::str::from_utf8(chunk).is_ok());
    // SAFETY: the word is the chunk's bytes (`gather`), whole characters (`whole_chars`,
    // tested over every chunk of up to 2 bytes and every edge byte at every place of
    // longer ones). Only `whole_text` and `declined` call this, each after that answer.
    unsafe { std::str::from_utf8_unchecked(chunk) }
}

/// The UTF-8 character at the start of `buf`, if its bytes there are one whole (the
/// rest of `buf` is not read): a 2-byte character (Latin, Greek, Cyrillic...) by two
/// byte tests, any other by `str::from_utf8`. For a character the text path cut,
/// finished by the next chunk: checked when finished and each time it is read, with
/// no call for the common kind.
#[inline]
pub(crate) fn first_char(buf: &[u8; 4]) -> Option<&str> {
    if buf[0].is_ascii() {
        // SAFETY: one ASCII byte is one whole character.
        return Some(unsafe { std::str::from_utf8_unchecked(&buf[..1]) });
    }
    if matches!(buf[0], 0xc2..=0xdf) && buf[1] & 0xc0 == 0x80 {
        // SAFETY: a lead byte of a 2-byte character (0xc2..=0xdf, none overlong)
        // and a continuation byte are one whole character.
        return Some(unsafe { std::str::from_utf8_unchecked(&buf[..2]) });
    }
    std::str::from_utf8(&buf[..char_len(buf[0])?]).ok()
}

/// The length of the UTF-8 character `lead` begins: 1 for ASCII, 2 to 4 for a lead
/// byte, `None` for a byte that begins none (a continuation byte, `0xc0`, `0xf5`...).
#[inline]
pub(crate) fn char_len(lead: u8) -> Option<usize> {
    match lead {
        0x00..=0x7f => Some(1),
        0xc2..=0xdf => Some(2),
        0xe0..=0xef => Some(3),
        0xf0..=0xf4 => Some(4),
        _ => None,
    }
}

/// The length of the whole, valid UTF-8 character `bytes` begins with, if it is one.
#[inline]
fn char_width(bytes: &[u8]) -> Option<usize> {
    // Most stops are a marker's first byte, ASCII: no UTF-8 check needed.
    if bytes[0].is_ascii() {
        return Some(1);
    }
    let width = char_len(bytes[0])?;
    let char = bytes.get(..width)?;
    std::str::from_utf8(char).ok().map(|_| width)
}

/// `bytes` as `str`: ASCII without a UTF-8 pass, anything else through `from_utf8`.
#[inline]
pub(crate) fn as_str(bytes: &[u8]) -> Result<&str, std::str::Utf8Error> {
    if bytes.is_ascii() {
        // SAFETY: every byte is ASCII (checked above): valid UTF-8.
        Ok(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        std::str::from_utf8(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_str_agrees_with_from_utf8() {
        for bytes in [&b""[..], b"abc", b"caf\xc3\xa9", b"\xff", b"a\xe2\x82"] {
            assert_eq!(as_str(bytes), std::str::from_utf8(bytes));
        }
    }

    #[test]
    fn plain_prefix_stops_where_told_and_before_a_character_not_whole() {
        let stops = TextStops::new(|b| b == b'<' || b == 0xe2);
        let plain_prefix = |chunk| stops.plain_prefix_where(chunk, |_| true);
        assert_eq!(plain_prefix(b"plain"), "plain");
        assert_eq!(plain_prefix(b"a<b"), "a");
        assert_eq!(plain_prefix("café".as_bytes()), "café");
        assert_eq!(plain_prefix(b"ab\xff"), "ab");
        // A marker may begin with a byte that is not ASCII.
        assert_eq!(plain_prefix("a€".as_bytes()), "a");
        // Declined stops are text.
        assert_eq!(stops.plain_prefix_where(b"a<b<c", |at| at == 3), "a<b");
        assert_eq!(stops.plain_prefix_where(b"a<b<c", |_| false), "a<b<c");
        assert_eq!(stops.plain_prefix_where("a<€".as_bytes(), |_| false), "a<€");
        // Whole characters only: one split at the end, or broken, stops.
        assert_eq!(stops.plain_prefix_where(b"a\xc3", |_| false), "a");
        assert_eq!(stops.plain_prefix_where(b"a\xc3(", |_| false), "a");
        assert_eq!(stops.plain_prefix_where(b"a\xed\xa0\x80", |_| false), "a");
        assert_eq!(stops.plain_prefix_where("€€".as_bytes(), |at| at == 3), "€");
        let default = TextStops::default();
        assert_eq!(default.plain_prefix_where("a€".as_bytes(), |_| true), "a€");
    }

    #[test]
    fn the_word_check_agrees_with_the_table() {
        let sets: [&[u8]; 4] = [b"", b"<", b"<[`{", b"<[`{f"];
        // Every chunk of 1 to 3 bytes over a small alphabet and, for longer ones, each
        // alphabet byte at every place of a plain chunk.
        let alphabet = b"a<[`{f\x00\x7f\x80\xc3\xa9";
        let mut chunks: Vec<Vec<u8>> = Vec::new();
        for &a in alphabet {
            chunks.push(vec![a]);
            for &b in alphabet {
                chunks.push(vec![a, b]);
                chunks.extend(alphabet.iter().map(|&c| vec![a, b, c]));
            }
            for len in 4..=8 {
                for at in 0..len {
                    let mut chunk = b"plaintxt"[..len].to_vec();
                    chunk[at] = a;
                    chunks.push(chunk);
                }
            }
        }
        for set in sets {
            let stops = TextStops::new(|b| set.contains(&b));
            assert_eq!(stops.has_word_check(), (1..=4).contains(&set.len()));
            for chunk in &chunks {
                let want = stops.all_plain_by_table(chunk);
                assert_eq!(stops.all_plain(chunk), want, "{set:?} {chunk:?}");
            }
        }
    }

    #[test]
    fn a_marker_byte_the_next_byte_rules_out_is_text() {
        // The markers `</tx`, `<tx`, `fun` and `[`: `<` may begin one only before `/`
        // or `t` and then `t` or `x`, `f` only before `u` and then `n`, and `[` is a
        // marker by itself.
        let may_follow = |first: u8, next: u8| match first {
            b'<' => matches!(next, b'/' | b't'),
            b'f' => next == b'u',
            _ => true,
        };
        let may_third = |first: u8, third: u8| match first {
            b'<' => matches!(third, b't' | b'x'),
            b'f' => third == b'n',
            _ => true,
        };
        let set = |may: &dyn Fn(u8) -> bool| {
            let mut bits = ByteBits::default();
            (0..=255).filter(|&b| may(b)).for_each(|b| bits.insert(b));
            bits
        };
        let stops = TextStops::new(|b| b"<f[".contains(&b)).follow(|first| {
            (
                set(&|b| may_follow(first, b)),
                set(&|b| may_third(first, b)),
            )
        });
        let alphabet = b"a<ftu/n[\x80\xc3\xa9";
        let mut chunks: Vec<Vec<u8>> = Vec::new();
        for &a in alphabet {
            for &b in alphabet {
                chunks.push(vec![a, b]);
                for &c in alphabet {
                    chunks.push(vec![a, b, c]);
                    chunks.push(vec![b'x', a, b, b'y', c]);
                    chunks.push(vec![a, b, b'1', b'2', b'3', b'4', b'5', c]);
                }
            }
        }
        for chunk in &chunks {
            let ruled_out = |i: usize| {
                !b"<f[".contains(&chunk[i])
                    || chunk.get(i + 1).is_some_and(|&next| {
                        !may_follow(chunk[i], next)
                            || chunk.get(i + 2).is_some_and(|&b| !may_third(chunk[i], b))
                    })
            };
            let want = std::str::from_utf8(chunk)
                .ok()
                .filter(|_| (0..chunk.len()).all(ruled_out));
            let got = stops.all_plain(chunk).or(stops
                .declined(chunk)
                .filter(|(_, cut)| cut.is_empty())
                .map(|(text, _)| text));
            let past_ascii = chunk.is_ascii() || chunk.iter().all(|b| !b"<f[".contains(b));
            assert_eq!(got, want.filter(|_| past_ascii), "{chunk:?}");
        }
        let past = |chunk| stops.declined(chunk).map(|(text, _)| text);
        assert_eq!(past(b"a < b"), Some("a < b"));
        assert_eq!(past(b"a <b"), Some("a <b"));
        assert_eq!(past(b"a </b"), Some("a </b"));
        assert_eq!(past(b"a </t"), None);
        assert_eq!(past(b"a </"), None);
        assert_eq!(past(b"of <"), None);
        // A chunk of more than 8 bytes is checked by the table: every marker byte stops.
        assert_eq!(past(b"a long < b"), None);
    }

    #[test]
    fn declined_splits_before_a_character_the_end_cuts() {
        let stops = TextStops::new(|b| b == b'<');
        let edges = [
            b'a', b'<', 0x80, 0x9f, 0xa0, 0xbf, 0xc0, 0xc3, 0xe0, 0xe2, 0xed, 0xf0,
        ];
        let edges = edges.iter().chain(&[0xf4, 0xf5, 0xff]);
        let mut chunks: Vec<Vec<u8>> = Vec::new();
        for &a in edges.clone() {
            for &b in edges.clone() {
                for &c in edges.clone() {
                    chunks.push(vec![a, b, c]);
                    chunks.push(vec![b'x', b'\xc3', b'\xa9', a, b, c]);
                    chunks.push(vec![b'a', b'b', b'c', b'd', b'e', a, b, c]);
                }
                chunks.push(vec![a, b]);
            }
            chunks.push(vec![a]);
        }
        for chunk in &chunks {
            // The reference: the longest valid prefix, and the rest an incomplete
            // character (`from_utf8`'s `error_len` is `None`), no marker byte anywhere.
            let want = match std::str::from_utf8(chunk) {
                Err(e) if e.error_len().is_none() && !chunk.contains(&b'<') => {
                    let (head, cut) = chunk.split_at(e.valid_up_to());
                    Some((std::str::from_utf8(head).unwrap(), cut))
                }
                _ => None,
            };
            let got = stops.declined(chunk).filter(|(_, cut)| !cut.is_empty());
            assert_eq!(got, want, "{chunk:x?}");
            // Declined whole, it is text with no marker byte or with each ruled out.
            if let Some((text, b"")) = stops.declined(chunk) {
                assert_eq!(text.as_bytes(), &chunk[..]);
                assert!(!chunk.contains(&b'<') || chunk.is_ascii(), "{chunk:x?}");
            }
        }
        assert_eq!(stops.declined(b"caf\xc3"), Some(("caf", &b"\xc3"[..])));
        assert_eq!(stops.declined(b"\xe2\x82"), Some(("", &b"\xe2\x82"[..])));
        assert_eq!(stops.declined("café".as_bytes()), Some(("café", &b""[..])));
        assert_eq!(stops.declined(b"<caf\xc3"), None);
    }

    #[test]
    fn first_char_is_the_whole_character_from_utf8_sees() {
        let edges = [
            0x00, b'a', 0x7f, 0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4,
            0xf5, 0xff,
        ];
        let mut bufs = Vec::new();
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                bufs.push([a, b, 0x80, 0x80]);
                bufs.push([a, b, b'x', b'y']);
            }
        }
        for &a in &edges {
            for &b in &edges {
                for &c in &edges {
                    for &d in &edges {
                        bufs.push([a, b, c, d]);
                    }
                }
            }
        }
        for buf in &bufs {
            let want = char_len(buf[0]).and_then(|n| std::str::from_utf8(&buf[..n]).ok());
            assert_eq!(first_char(buf), want, "{buf:x?}");
        }
    }

    #[test]
    fn a_marker_byte_that_is_not_ascii_takes_the_table() {
        let stops = TextStops::new(|b| b == b'<' || b == 0xe2);
        assert!(!stops.has_word_check());
        assert_eq!(stops.all_plain("a€".as_bytes()), None);
        assert_eq!(stops.all_plain("aé".as_bytes()), Some("aé"));
    }

    #[test]
    fn all_plain_takes_whole_characters_and_no_marker_byte() {
        let stops = TextStops::new(|b| b == b'<');
        for (chunk, want) in [
            (&b""[..], Some("")),
            (b"plain", Some("plain")),
            (b"pl<in", None),
            (b"<", None),
            ("café".as_bytes(), Some("café")),
            (b"caf\xc3", None),
            (b"\xa9", None),
            ("€<".as_bytes(), None),
            (b"long plain text", Some("long plain text")),
            (b"long plain<text", None),
            (b"long plain tex<", None),
        ] {
            assert_eq!(stops.all_plain(chunk), want, "{chunk:?}");
        }
    }
}
