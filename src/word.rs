//! A token-sized chunk (1 to 8 bytes) as one `u64`, checked a word at a time.
//!
//! Most chunks a model streams are a token: a few bytes. Looking at them a byte at a
//! time costs a branch a byte (mispredicted about once a chunk) or eight table loads;
//! as a word, the checks the text path needs are a few dozen ALU operations with no
//! branch on the bytes or the length. Byte `i` of the chunk is byte `i` of the word
//! (little-endian); the bytes past the chunk's end are zero.

/// Each byte of a word set to `b`.
pub(crate) const fn repeat(b: u8) -> u64 {
    u64::from_le_bytes([b; 8])
}

const HIGH: u64 = repeat(0x80);
const LOW7: u64 = repeat(0x7f);

/// The high bit of each byte of `x` that is zero, no other bit. (Exact: `(x & 0x7f) +
/// 0x7f` carries into the high bit for any nonzero low seven bits, and never past it.)
#[inline]
fn zero_bytes(x: u64) -> u64 {
    !(((x & LOW7) + LOW7) | x) & HIGH
}

/// The high bit of each byte of `word` whose bits under `mask` equal `value`'s.
#[inline]
fn bytes_where(word: u64, mask: u8, value: u8) -> u64 {
    zero_bytes((word & repeat(mask)) ^ repeat(value))
}

/// `chunk`, 1 to 8 bytes, as a word, the bytes past its end zero.
///
/// Two 4-byte loads (the first and last four) cover a chunk of 4 to 8 bytes, and three
/// byte loads (first, middle, last) one of 1 to 3. Each load lands at its own bytes'
/// places, and where two cover the same byte they carry the same value, so the word is
/// their OR, whichever length: no branch on it. A chunk of fewer than 4 bytes reads
/// the two words from zeros instead (a select, not a branch).
#[inline]
pub(crate) fn gather(chunk: &[u8]) -> u64 {
    let len = chunk.len();
    debug_assert!((1..=8).contains(&len));
    let (mid, last) = (len / 2, len - 1);
    let short =
        chunk[0] as u64 | (chunk[mid] as u64) << (8 * mid) | (chunk[last] as u64) << (8 * last);
    let (first, back) = first_and_last_four(chunk);
    first | back << (8 * len.saturating_sub(4)) | short
}

/// The first and the last four bytes of `chunk` (1 to 8 bytes), or zeros for a chunk of
/// fewer than 4 (a select, not a branch). The last four begin at `len - 4`.
#[inline]
fn first_and_last_four(chunk: &[u8]) -> (u64, u64) {
    const PAD: [u8; 4] = [0; 4];
    let (four, end) = if chunk.len() >= 4 {
        (chunk, chunk.len())
    } else {
        (&PAD[..], 4)
    };
    let first = u32::from_le_bytes([four[0], four[1], four[2], four[3]]) as u64;
    let back = [four[end - 4], four[end - 3], four[end - 2], four[end - 1]];
    (first, u32::from_le_bytes(back) as u64)
}

/// The bytes of `chunk`, 1 to 8 of them, as a word that keeps which bytes there are
/// but not where: each byte of the word is a byte of the chunk or zero, and each byte
/// of the chunk is in the word. Enough to ask whether a byte is in the chunk
/// ([`ByteSet::found_in`], [`has_wide`]), and cheaper than [`gather`]: no shift depends
/// on the length.
///
/// A chunk of 4 to 8 bytes is its first four and last four (they may overlap: the
/// same bytes twice), one in each half; one of 1 to 3 is its first, middle and last.
#[inline]
pub(crate) fn gather_set(chunk: &[u8]) -> u64 {
    let len = chunk.len();
    debug_assert!((1..=8).contains(&len));
    let short = chunk[0] as u64 | (chunk[len / 2] as u64) << 8 | (chunk[len - 1] as u64) << 16;
    let (first, back) = first_and_last_four(chunk);
    let long = first | back << 32;
    // A choice between two words both computed, which the compiler makes a conditional
    // move, not a branch (`std::hint::select_unpredictable` needs Rust 1.88): the
    // length is as likely one side of 4 as the other.
    if len < 4 {
        short
    } else {
        long
    }
}

/// The high bit of each byte of `word` that is `b`, no other bit (exact, unlike
/// [`ByteSet::found_in`]'s test).
#[inline]
pub(crate) fn positions(word: u64, b: u8) -> u64 {
    zero_bytes(word ^ repeat(b))
}

/// The place of the last byte of the first `len` (1 to 8) of `word` that is not a
/// UTF-8 continuation byte, if there is one.
#[inline]
pub(crate) fn last_lead(word: u64, len: usize) -> Option<usize> {
    debug_assert!((1..=8).contains(&len));
    let within = u64::MAX >> (8 * (8 - len));
    let leads = !bytes_where(word, 0xc0, 0x80) & HIGH & within;
    (leads != 0).then(|| (63 - leads.leading_zeros() as usize) / 8)
}

/// `(x - 0x01..01) | x` for `x = word ^ repeated`: a high bit set where `word` may have
/// the repeated byte or a byte over 0x7f ([`ByteSet::stops`]).
#[inline]
fn stop_bits(word: u64, repeated: u64) -> u64 {
    let x = word ^ repeated;
    x.wrapping_sub(repeat(1)) | x
}

/// Any set of bytes, a bit each (256 bits).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ByteBits([u64; 4]);

impl ByteBits {
    /// Every byte.
    pub(crate) const ALL: ByteBits = ByteBits([u64::MAX; 4]);

    pub(crate) fn insert(&mut self, b: u8) {
        self.0[(b >> 6) as usize] |= 1 << (b & 63);
    }

    #[inline]
    pub(crate) fn contains(&self, b: u8) -> bool {
        self.0[(b >> 6) as usize] >> (b & 63) & 1 != 0
    }
}

/// One to four bytes, none NUL, to find in a word.
#[derive(Clone, Debug)]
pub(crate) struct ByteSet {
    /// Each byte repeated (`repeat`); only the first `len` are used.
    repeated: [u64; 4],
    len: usize,
}

impl ByteSet {
    /// The set of `bytes`, if they are one to four and none is NUL (the zeros past a
    /// chunk's end must match none of them).
    pub(crate) fn new(bytes: &[u8]) -> Option<ByteSet> {
        if !(1..=4).contains(&bytes.len()) || bytes.contains(&0) {
            return None;
        }
        let mut repeated = [0; 4];
        for (place, &b) in repeated.iter_mut().zip(bytes) {
            *place = repeat(b);
        }
        Some(ByteSet {
            repeated,
            len: bytes.len(),
        })
    }

    /// Whether the set has one byte alone ([`stops_first`](Self::stops_first) is then
    /// the whole test).
    pub(crate) fn is_single(&self) -> bool {
        self.len == 1
    }

    /// [`found_in`](Self::found_in) for the set's first byte alone (all of a set of
    /// one): no length to read.
    #[inline]
    pub(crate) fn found_first(&self, word: u64) -> bool {
        let x = word ^ self.repeated[0];
        x.wrapping_sub(repeat(1)) & !x & HIGH != 0
    }

    /// [`stops`](Self::stops) for the set's first byte alone (all of a set of one):
    /// no length to read.
    #[inline]
    pub(crate) fn stops_first(&self, word: u64) -> bool {
        stop_bits(word, self.repeated[0]) & HIGH != 0
    }

    /// The bytes of the set.
    pub(crate) fn bytes(&self) -> impl Iterator<Item = u8> + '_ {
        self.repeated[..self.len].iter().map(|&r| r as u8)
    }

    /// Whether a byte of `word` is in the set.
    #[inline]
    pub(crate) fn found_in(&self, word: u64) -> bool {
        self.found(word) != 0
    }

    /// Whether `word` has a byte in the set or a byte that is not ASCII: the text
    /// path's one question about most chunks, in one test. (The set's bytes are ASCII,
    /// so `x = word ^ repeated` keeps the word's high bits; `(x - 0x01..01) | x` has a
    /// high bit set exactly when some byte of `x` is zero or has its high bit set: below
    /// the lowest such byte nothing borrows. It needs no `!x`, and no second word for
    /// the bytes that are not ASCII, unlike [`found`](Self::found).)
    #[inline]
    pub(crate) fn stops(&self, word: u64) -> bool {
        let mut stops = stop_bits(word, self.repeated[0]);
        for &r in self.repeated[1..].iter().take(self.len - 1) {
            stops |= stop_bits(word, r);
        }
        stops & HIGH != 0
    }

    /// A word whose high bits are all clear if no byte of `word` is in the set, and
    /// not all clear if one is (which bytes it marks is not exact). Its other bits are
    /// set only where the high bit of the same byte is: it can be combined with other
    /// such words before one test of the high bits.
    #[inline]
    pub(crate) fn found(&self, word: u64) -> u64 {
        // Has a zero byte: exact as a yes or no (the borrow that can mark a byte above
        // a zero one needs the zero one first). The first byte is always there.
        let has_zero = |r: u64| {
            let x = word ^ r;
            x.wrapping_sub(repeat(1)) & !x
        };
        let mut found = has_zero(self.repeated[0]);
        for &r in self.repeated[1..].iter().take(self.len - 1) {
            found |= has_zero(r);
        }
        found & HIGH
    }
}

/// Whether `word` has a byte that is not ASCII.
#[inline]
pub(crate) fn has_wide(word: u64) -> bool {
    word & HIGH != 0
}

/// Whether the bytes of `word` are whole, valid UTF-8 characters of 1 to 3 bytes (a
/// zero byte is NUL, ASCII), or `None` for a word with a lead byte whose next byte has
/// a narrower range (`0xe0`, `0xed`), a 4-byte character or a byte no character has
/// (`0xc0`, `0xc1`, `0xf5`..): `str::from_utf8` decides those; they are rare in text.
///
/// Every byte after a 2-byte lead, and the two after a 3-byte lead, must be a
/// continuation byte, and every continuation byte must be one of those. A character
/// cut by the chunk's end wants a continuation where a zero byte is, or past the
/// word's last byte.
#[inline]
pub(crate) fn whole_chars(word: u64) -> Option<bool> {
    // Most text that is not ASCII has 2-byte characters alone (Latin, Greek,
    // Cyrillic...): their leads are 0xc2..=0xdf, told apart by three bits each.
    let pairs = TwoBytePairs::of(word);
    if pairs.longer == 0 {
        if pairs.overlong != 0 {
            return None;
        }
        return Some(pairs.unpaired | pairs.lead >> 56 == 0);
    }
    let narrow = bytes_where(word, 0xfe, 0xc0) // 0xc0, 0xc1: overlong
        | bytes_where(word, 0xff, 0xe0)
        | bytes_where(word, 0xff, 0xed)
        | bytes_where(word, 0xf0, 0xf0); // 4-byte leads and 0xf5..
    let cont = bytes_where(word, 0xc0, 0x80);
    let lead2 = bytes_where(word, 0xe0, 0xc0);
    let lead3 = bytes_where(word, 0xf0, 0xe0);
    let leads = lead2 | lead3;
    let wants = leads << 8 | lead3 << 16;
    let cut = leads >> 56 | lead3 >> 48;
    (narrow == 0).then_some((wants ^ cont) | cut == 0)
}

/// Whether a chunk of `len` (1 to 8) bytes whose set word is `word` ([`gather_set`])
/// is whole characters of ASCII and 2-byte ones (leads `0xc2..=0xdf`). `false` for
/// any other chunk, and for some of those (a conservative answer).
///
/// The set word is the chunk's bytes in place for up to 3 bytes (zeros after), and its
/// first and last four, each in place, for 4 to 8: every two adjacent bytes of the
/// chunk are adjacent in the word (in one of the four-byte windows when they overlap),
/// its first byte is first, its last is last or followed by a zero. So the test of
/// [`whole_chars`] holds of the chunk if it holds of the word, but for the pairs of the
/// word that are not pairs of the chunk: the last byte of the first window and the
/// first of the second for 4 to 7 bytes (the chunk's pair there, if a character spans
/// it, lies in one window), and the repeated last byte of a 2-byte chunk. Those two
/// places are not tested then.
#[inline(always)]
pub(crate) fn whole_2byte_set(word: u64, len: usize) -> bool {
    let pairs = TwoBytePairs::of(word);
    let skipped = ((len == 2) as u64) << 23 | ((len != 8) as u64) << 39;
    pairs.unpaired & !skipped | pairs.lead >> 56 | pairs.longer | pairs.overlong == 0
}

/// The bytes of a word read as ASCII and 2-byte characters, each a high bit where it
/// holds: what [`whole_chars`] and [`whole_2byte_set`] test.
struct TwoBytePairs {
    /// Lead bytes (0xc0 and over).
    lead: u64,
    /// Leads of 3 or 4 bytes, or none (bit 5 set).
    longer: u64,
    /// 0xc0 and 0xc1, which begin no character (none of bits 1 to 4 set).
    overlong: u64,
    /// Bytes where a lead and a continuation do not pair: the byte after a lead that is
    /// not a continuation, a continuation not after a lead.
    unpaired: u64,
}

impl TwoBytePairs {
    #[inline(always)]
    fn of(word: u64) -> TwoBytePairs {
        let high = word & HIGH;
        let lead = high & word << 1;
        let some_of_bits_1_to_4 = (word & repeat(0x1e)) + LOW7;
        TwoBytePairs {
            lead,
            longer: lead & word << 2,
            overlong: lead & !some_of_bits_1_to_4,
            unpaired: (lead << 8 ^ (high ^ lead)) & HIGH,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Bytes at every edge of the UTF-8 ranges, a marker byte, NUL.
    const EDGES: &[u8] = &[
        0x00, b'a', b'<', 0x7f, 0x80, 0x8f, 0x90, 0x9f, 0xa0, 0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xdf,
        0xe0, 0xe1, 0xe2, 0xec, 0xed, 0xee, 0xef, 0xf0, 0xf4, 0xf5, 0xff,
    ];

    /// `whole_2byte_set` never says a chunk is whole characters that is not: every
    /// chunk of up to 4 edge bytes, and random ones of 5 to 8 from the bytes of 2-byte
    /// characters; and it says so of most whole ones.
    #[test]
    fn whole_2byte_set_is_never_wrong() {
        let mut chunks: Vec<Vec<u8>> = vec![vec![]];
        let mut said = 0;
        for _ in 0..4 {
            chunks = chunks
                .iter()
                .flat_map(|c| EDGES.iter().map(move |&b| [&c[..], &[b]].concat()))
                .collect();
            for c in &chunks {
                let yes = whole_2byte_set(gather_set(c), c.len());
                assert!(!yes || std::str::from_utf8(c).is_ok(), "{c:x?}");
                said += yes as usize;
            }
        }
        assert!(said > 1000, "{said}");
        let bytes = [
            b'a', b'<', 0xc3, 0xa9, 0x80, 0xbf, 0xc2, 0xdf, 0xc0, 0xe0, 0xf0,
        ];
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let (mut whole, mut taken) = (0, 0);
        for _ in 0..2_000_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let len = 5 + (x % 4) as usize;
            let c: Vec<u8> = (0..len)
                .map(|i| bytes[(x >> (8 + 5 * i)) as usize % bytes.len()])
                .collect();
            let yes = whole_2byte_set(gather_set(&c), len);
            let ok = std::str::from_utf8(&c).is_ok();
            assert!(!yes || ok, "{c:x?}");
            whole += ok as usize;
            taken += yes as usize;
        }
        assert!(taken * 2 > whole, "{taken} of {whole}");
    }

    fn check(chunk: &[u8]) {
        let word = gather(chunk);
        let mut want = [0; 8];
        want[..chunk.len()].copy_from_slice(chunk);
        assert_eq!(word, u64::from_le_bytes(want), "{chunk:x?}");
        assert_eq!(has_wide(word), !chunk.is_ascii(), "{chunk:x?}");
        let valid = std::str::from_utf8(chunk).is_ok();
        let common = chunk
            .iter()
            .all(|&b| b < 0xf0 && !matches!(b, 0xc0 | 0xc1 | 0xe0 | 0xed));
        let want = common.then_some(valid);
        assert_eq!(whole_chars(word), want, "{chunk:x?}");
    }

    /// `gather_set` holds the chunk's bytes, and zeros: the same set either way.
    fn check_set(chunk: &[u8]) {
        let word = gather_set(chunk).to_le_bytes();
        for b in 1..=255u8 {
            assert_eq!(word.contains(&b), chunk.contains(&b), "{chunk:x?}: {b:x}");
        }
        assert_eq!(has_wide(gather_set(chunk)), !chunk.is_ascii(), "{chunk:x?}");
    }

    #[test]
    fn last_lead_is_the_last_byte_that_is_not_a_continuation() {
        for len in 1..=8 {
            for mask in 0..1u32 << len {
                // Each place a continuation byte or not.
                let chunk: Vec<u8> = (0..len)
                    .map(|i| {
                        if mask >> i & 1 == 1 {
                            0x80
                        } else {
                            b'a' + i as u8
                        }
                    })
                    .collect();
                let want = chunk.iter().rposition(|&b| b & 0xc0 != 0x80);
                assert_eq!(last_lead(gather(&chunk), len), want, "{chunk:x?}");
            }
        }
    }

    #[test]
    fn gather_set_has_each_byte_of_every_length() {
        for len in 1..=8 {
            for at in 0..len {
                for b in [b'<', 0x80, 0xff, 0x01] {
                    let mut chunk = b"abcdefgh"[..len].to_vec();
                    chunk[at] = b;
                    check_set(&chunk);
                }
            }
        }
        for a in 0..=255u8 {
            check_set(&[a]);
            check_set(&[a, b'x']);
            check_set(&[b'x', a, b'y']);
        }
    }

    #[test]
    fn every_chunk_of_up_to_two_bytes() {
        for a in 0..=255u8 {
            check(&[a]);
            for b in 0..=255u8 {
                check(&[a, b]);
            }
        }
    }

    #[test]
    fn edge_bytes_at_every_place_of_longer_chunks() {
        for &a in EDGES {
            for &b in EDGES {
                for &c in EDGES {
                    check(&[a, b, c]);
                    for &d in EDGES {
                        check(&[a, b, c, d]);
                    }
                }
            }
        }
        // Characters of every width at every offset of chunks of 5 to 8 bytes, whole
        // and cut.
        for text in ["aé€b", "€€€", "ééé", "x€é", "a𝄞b", "\u{7ff}\u{800}\u{ffff}"]
        {
            let bytes = text.as_bytes();
            for from in 0..bytes.len() {
                for to in from + 1..=bytes.len().min(from + 8) {
                    check(&bytes[from..to]);
                }
            }
        }
    }

    #[test]
    fn stops_finds_a_set_byte_or_a_wide_byte_anywhere() {
        for set in [&b"<"[..], b"<[", b"<[`", b"<[`{"] {
            let set_bytes = ByteSet::new(set).unwrap();
            let stops = |chunk: &[u8]| chunk.iter().any(|b| set.contains(b) || *b > 0x7f);
            for &a in EDGES.iter().chain(set) {
                for &b in EDGES.iter().chain(set) {
                    for chunk in [
                        &[a][..],
                        &[a, b],
                        &[b'x', a, b'y', b],
                        &[b'x', 1, 2, a, 3, 4, b, 5],
                    ] {
                        let want = stops(chunk);
                        assert_eq!(set_bytes.stops(gather(chunk)), want, "{set:?} {chunk:x?}");
                        assert_eq!(
                            set_bytes.stops(gather_set(chunk)),
                            want,
                            "{set:?} {chunk:x?}"
                        );
                        if set_bytes.is_single() {
                            let first = set_bytes.stops_first(gather_set(chunk));
                            assert_eq!(first, want, "{set:?} {chunk:x?}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_byte_set_finds_each_byte_at_each_place() {
        assert!(ByteSet::new(b"").is_none());
        assert!(ByteSet::new(b"<\0").is_none());
        assert!(ByteSet::new(b"<[{`f").is_none());
        let set = ByteSet::new(b"<[").unwrap();
        for len in 1..=8 {
            let plain = &b"abcdefgh"[..len];
            assert!(!set.found_in(gather(plain)));
            for at in 0..len {
                for b in [b'<', b'['] {
                    let mut chunk = plain.to_vec();
                    chunk[at] = b;
                    assert!(set.found_in(gather(&chunk)), "{chunk:?}");
                }
            }
        }
    }
}
