//! A strict JSON validator in one pass, for the strict fast paths (`strict.rs`): it
//! accepts exactly what `serde_json` reads as a raw value (the grammar of RFC 8259,
//! `\u` followed by any four hex digits, UTF-8), plus the two rules of the repairer's
//! pass-through: at most `room` levels of nesting, and no lone surrogate escape (which
//! the repairer replaces). It builds nothing and allocates nothing below 128 levels.
//!
//! Structure is read a byte at a time. Strings, most of the bytes of a call's
//! arguments, are read 64 bytes at a time as bit masks (quotes, backslashes, control
//! bytes), computed a word at a time with no branch on the bytes: which bytes a
//! backslash escapes follows from the runs of backslashes by one addition (the method
//! of simdjson), so a string ends at the first quote no backslash escapes, it is valid
//! when no control byte comes before, and only escapes of other bytes than `"` and
//! `\` are looked at one by one. Debug builds check every answer against `serde_json`
//! (`strict.rs`).

use smallvec::SmallVec;

/// The length of the strict JSON container (object or array) at the very start of
/// `input`, if it is one: well formed, UTF-8, at most `room` levels deep, with no lone
/// surrogate escape. `None` when it is not, or when `input` ends first. What follows
/// it is not read.
pub(crate) fn container_len(input: &[u8], room: usize) -> Option<usize> {
    let closer = match input.first() {
        Some(b'{') => b'}',
        Some(b'[') => b']',
        _ => return None,
    };
    // A token-sized chunk at the start of a call holds no whole container: it ends
    // with its closer, so there is none without one.
    memchr::memrchr(closer, input)?;
    let end = Strings::new(input).container(0, room)?;
    std::str::from_utf8(&input[..end]).ok()?;
    Some(end)
}

/// `text` as a string, if it is one strict JSON container with only JSON blanks
/// (space, tab, line feed, carriage return) around it, held to the rules of
/// [`container_len`].
pub(crate) fn whole_container(text: &[u8], room: usize) -> Option<&str> {
    let start = text.iter().position(|&b| !is_blank(b))?;
    if !matches!(text[start], b'{' | b'[') {
        return None;
    }
    let end = Strings::new(text).container(start, room)?;
    if !text[end..].iter().all(|&b| is_blank(b)) {
        return None;
    }
    std::str::from_utf8(text).ok()
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// What the structure expects next.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    /// A value (after a colon, or a comma in an array).
    Value,
    /// A value or `]` (after `[`).
    ValueOrEnd,
    /// A key or `}` (after `{`).
    KeyOrEnd,
    /// A key (after a comma in an object).
    Key,
    /// A colon (after a key).
    Colon,
    /// A comma or the closer of the innermost container (after a value).
    Next,
}

/// Which containers are open: a bit per level, set for an object.
#[derive(Default)]
struct Stack {
    bits: SmallVec<[u64; 2]>,
    depth: usize,
}

impl Stack {
    fn push(&mut self, object: bool) {
        let (word, bit) = (self.depth / 64, self.depth % 64);
        if word == self.bits.len() {
            self.bits.push(0);
        }
        if object {
            self.bits[word] |= 1 << bit;
        } else {
            self.bits[word] &= !(1 << bit);
        }
        self.depth += 1;
    }

    /// Whether the innermost container is an object (`depth` > 0).
    fn in_object(&self) -> bool {
        let top = self.depth - 1;
        self.bits[top / 64] >> (top % 64) & 1 == 1
    }
}

/// The masks of one 64-byte block of the input (bit `i`: the byte at `base + i`), kept
/// while strings are read in it.
struct Strings<'a> {
    input: &'a [u8],
    /// The first byte of the block the masks are of (a multiple of 64; `usize::MAX`
    /// before the first).
    base: usize,
    /// Quotes no backslash escapes.
    quotes: u64,
    /// Bytes below 0x20.
    controls: u64,
    /// Bytes a backslash escapes, other than `"` and `\`.
    escaped: u64,
    /// Whether the first byte of the next block is escaped.
    carry: u64,
    /// Where the `u` of the second half of the last surrogate pair is.
    low_half: usize,
}

const ONES: u64 = 0x0101_0101_0101_0101;
const LOW7: u64 = 0x7f7f_7f7f_7f7f_7f7f;
const HIGH: u64 = 0x8080_8080_8080_8080;

/// The high bit of each byte of `w` that equals `c` (exact: no carry crosses bytes).
#[inline(always)]
fn equal(w: u64, c: u8) -> u64 {
    let t = w ^ (ONES * c as u64);
    !(((t & LOW7) + LOW7) | t) & HIGH
}

/// The high bit of each byte of `w` below `c` (`c` at most 0x80).
#[inline(always)]
fn below(w: u64, c: u8) -> u64 {
    !(((w & LOW7) + ONES * (0x80 - c) as u64) | w) & HIGH
}

/// The high bits of the bytes of `w` (from [`equal`] or [`below`]) as eight bits.
#[inline(always)]
fn bits(high: u64) -> u64 {
    (high >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56
}

/// The bytes a backslash escapes, given the backslashes of a block and whether its
/// first byte is escaped (`carry`, updated for the next block): in a run of
/// backslashes every other one escapes the byte after it, starting with the first.
#[inline(always)]
fn escaped_by(backslashes: u64, carry: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let backslashes = backslashes & !*carry;
    let follows = (backslashes << 1) | *carry;
    let odd_starts = backslashes & !EVEN & !follows;
    let (even_starts, overflow) = odd_starts.overflowing_add(backslashes);
    *carry = overflow as u64;
    (EVEN ^ (even_starts << 1)) & follows
}

/// The four hex digits at `at` as a number.
fn hex4(input: &[u8], at: usize) -> Option<u32> {
    let digits = input.get(at..at + 4)?;
    digits
        .iter()
        .try_fold(0, |n, &d| Some(n << 4 | (d as char).to_digit(16)?))
}

impl<'a> Strings<'a> {
    fn new(input: &'a [u8]) -> Self {
        Strings {
            input,
            base: usize::MAX,
            quotes: 0,
            controls: 0,
            escaped: 0,
            carry: 0,
            low_half: usize::MAX,
        }
    }

    /// Compute the masks of the block at `base` (`carry`: whether its first byte is
    /// escaped). Past the end of the input the block reads as zero bytes: controls, so
    /// a string that runs into them is refused.
    fn load(&mut self, base: usize, mut carry: u64) {
        let mut tail = [0u8; 64];
        let block: &[u8; 64] = match self.input.get(base..base + 64) {
            Some(whole) => whole.try_into().expect("64 bytes"),
            None => {
                let rest = &self.input[base..];
                tail[..rest.len()].copy_from_slice(rest);
                &tail
            }
        };
        let (mut quotes, mut backslashes, mut controls) = (0, 0, 0);
        for (k, word) in block.chunks_exact(8).enumerate() {
            let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            quotes |= bits(equal(w, b'"')) << (8 * k);
            backslashes |= bits(equal(w, b'\\')) << (8 * k);
            controls |= bits(below(w, 0x20)) << (8 * k);
        }
        let escaped = escaped_by(backslashes, &mut carry);
        self.base = base;
        self.quotes = quotes & !escaped;
        self.controls = controls;
        self.escaped = escaped & !(quotes | backslashes);
        self.carry = carry;
    }

    /// The position after the closing quote of the string whose opening quote is at
    /// `open`, if it is a valid string.
    #[inline]
    fn string_end(&mut self, open: usize) -> Option<usize> {
        let mut at = open + 1;
        loop {
            let base = at & !63;
            if base != self.base {
                if base >= self.input.len() {
                    return None;
                }
                // A string read on into the next block carries its escape; elsewhere
                // the byte before the block is structure, never a backslash.
                let carry = if base == self.base.wrapping_add(64) {
                    self.carry
                } else {
                    0
                };
                self.load(base, carry);
            }
            let from = !0u64 << (at - base);
            let quotes = self.quotes & from;
            // The bits before the closing quote (all of them when the block has none).
            let before = (quotes & quotes.wrapping_neg()).wrapping_sub(1);
            let inside = from & before;
            if self.controls & inside != 0 {
                return None;
            }
            let mut escapes = self.escaped & inside;
            while escapes != 0 {
                let at = base + escapes.trailing_zeros() as usize;
                escapes &= escapes - 1;
                let valid = match self.input[at] {
                    b'/' | b'b' | b'f' | b'n' | b'r' | b't' => true,
                    b'u' => self.unicode(at),
                    _ => false,
                };
                if !valid {
                    return None;
                }
            }
            if quotes != 0 {
                return Some(base + quotes.trailing_zeros() as usize + 1);
            }
            at = base + 64;
        }
    }

    /// Whether the `\u` escape whose `u` is at `u` is four hex digits and not a lone
    /// surrogate.
    #[cold]
    fn unicode(&mut self, u: usize) -> bool {
        if u == self.low_half {
            return true;
        }
        match hex4(self.input, u + 1) {
            Some(0xd800..=0xdbff) => {
                let low = self.input.get(u + 5..u + 7) == Some(b"\\u")
                    && matches!(hex4(self.input, u + 7), Some(0xdc00..=0xdfff));
                if low {
                    self.low_half = u + 6;
                }
                low
            }
            Some(0xdc00..=0xdfff) | None => false,
            Some(_) => true,
        }
    }

    /// The end of the container that opens at `start`, if it is valid.
    fn container(&mut self, start: usize, room: usize) -> Option<usize> {
        let input = self.input;
        let mut stack = Stack::default();
        let mut want = Want::Value;
        let mut at = start;
        loop {
            let b = loop {
                let b = *input.get(at)?;
                if !is_blank(b) {
                    break b;
                }
                at += 1;
            };
            match want {
                Want::Value | Want::ValueOrEnd => {
                    let or_end = want == Want::ValueOrEnd;
                    want = Want::Next;
                    match b {
                        b'{' | b'[' => {
                            if stack.depth >= room {
                                return None;
                            }
                            stack.push(b == b'{');
                            want = if b == b'{' {
                                Want::KeyOrEnd
                            } else {
                                Want::ValueOrEnd
                            };
                            at += 1;
                        }
                        b']' if or_end => {
                            stack.depth -= 1;
                            at += 1;
                            if stack.depth == 0 {
                                return Some(at);
                            }
                        }
                        b'"' => at = self.string_end(at)?,
                        b't' | b'f' | b'n' => at = literal(input, at)?,
                        b'-' | b'0'..=b'9' => at = number(input, at)?,
                        _ => return None,
                    }
                }
                Want::KeyOrEnd | Want::Key => match b {
                    b'"' => {
                        at = self.string_end(at)?;
                        want = Want::Colon;
                    }
                    b'}' if want == Want::KeyOrEnd => {
                        stack.depth -= 1;
                        at += 1;
                        if stack.depth == 0 {
                            return Some(at);
                        }
                        want = Want::Next;
                    }
                    _ => return None,
                },
                Want::Colon => {
                    if b != b':' {
                        return None;
                    }
                    at += 1;
                    want = Want::Value;
                }
                Want::Next => {
                    let object = stack.in_object();
                    match b {
                        b',' => want = if object { Want::Key } else { Want::Value },
                        b'}' if object => {}
                        b']' if !object => {}
                        _ => return None,
                    }
                    at += 1;
                    if b != b',' {
                        stack.depth -= 1;
                        if stack.depth == 0 {
                            return Some(at);
                        }
                    }
                }
            }
        }
    }
}

/// The end of the literal (`true`, `false`, `null`) at `at`.
fn literal(input: &[u8], at: usize) -> Option<usize> {
    let word: &[u8] = match input[at] {
        b't' => b"true",
        b'f' => b"false",
        _ => b"null",
    };
    (input.get(at..at + word.len()) == Some(word)).then_some(at + word.len())
}

/// The end of the number at `at`: `-`? (`0` | [1-9][0-9]*) (`.` [0-9]+)? ([eE] [+-]? [0-9]+)?
fn number(input: &[u8], mut at: usize) -> Option<usize> {
    let digits = |at: usize| {
        input[at.min(input.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
    };
    if input[at] == b'-' {
        at += 1;
    }
    match input.get(at)? {
        b'0' => at += 1,
        b'1'..=b'9' => at += digits(at),
        _ => return None,
    }
    if input.get(at) == Some(&b'.') {
        let n = digits(at + 1);
        if n == 0 {
            return None;
        }
        at += 1 + n;
    }
    if matches!(input.get(at), Some(b'e' | b'E')) {
        at += 1;
        if matches!(input.get(at), Some(b'+' | b'-')) {
            at += 1;
        }
        let n = digits(at);
        if n == 0 {
            return None;
        }
        at += n;
    }
    // A digit right after a leading zero is not a number (`01`).
    if input.get(at).is_some_and(u8::is_ascii_digit) {
        return None;
    }
    Some(at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::strict::plain;

    /// Checks both entry points against `serde_json` on `text`, at two depths.
    fn agree(text: &[u8]) {
        for room in [2, 128] {
            assert_eq!(
                container_len(text, room),
                plain::container_len(text, room),
                "container_len({room}) of {:?}",
                String::from_utf8_lossy(text)
            );
            assert_eq!(
                whole_container(text, room).is_some(),
                plain::whole_container(text, room),
                "whole_container({room}) of {:?}",
                String::from_utf8_lossy(text)
            );
        }
    }

    #[test]
    fn escapes_follow_runs_of_backslashes() {
        // Against the plain rule, byte by byte, over every run length and carry.
        let mut seed = 7u64;
        for _ in 0..2000 {
            let (mut naive, mut escape) = ([false; 128], false);
            let mut blocks = [0u64; 2];
            for (i, slot) in naive.iter_mut().enumerate() {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let backslash = seed % 3 != 0;
                *slot = escape;
                if backslash {
                    blocks[i / 64] |= 1 << (i % 64);
                }
                escape = backslash && !escape;
            }
            let mut carry = 0;
            for (k, &block) in blocks.iter().enumerate() {
                let got = escaped_by(block, &mut carry);
                for i in 0..64 {
                    assert_eq!(
                        got >> i & 1 == 1,
                        naive[64 * k + i],
                        "{blocks:x?} at {k}:{i}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_grammar_as_serde_json_reads_it() {
        for text in [
            &b"{}"[..],
            b"[]",
            b" \t\r\n{ } \n",
            b"\x0c{}",
            b"{}\x0c",
            b"[1, -0, 0.5, -1.25e+10, 3E-2, 1e400, 123456789012345678901234567890]",
            b"[01]",
            b"[-]",
            b"[1.]",
            b"[.5]",
            b"[1e]",
            b"[1e+]",
            b"[+1]",
            b"[0x1]",
            b"[1 2]",
            b"[1,]",
            b"[,1]",
            b"{\"a\":1,}",
            b"{\"a\" 1}",
            b"{\"a\":}",
            b"{1:2}",
            b"{'a':1}",
            b"[true, false, null]",
            b"[tru]",
            b"[truex]",
            b"[True]",
            b"[nul",
            b"{\"a\": [1, {\"b\": \"x\\\"y\"}]} tail",
            b"[\"\\/\\b\\f\\n\\r\\t\\\"\\\\\"]",
            b"[\"\\a\"]",
            b"[\"\\x41\"]",
            b"[\"\\u00e9\\u00E9\"]",
            b"[\"\\u00g9\"]",
            b"[\"\\u00e\"]",
            b"[\"\\ud83d\\ude00\"]",
            b"[\"\\ud83d\"]",
            b"[\"\\ude00\"]",
            b"[\"\\ud83d\\u0041\"]",
            b"[\"\\ud83d\\\\ude00\"]",
            b"[\"\\ud83d\\ud83d\\ude00\"]",
            b"[\"tab\there\"]",
            b"[\"nl\nhere\"]",
            b"[\"del\x7fok\"]",
            "[\"é ü 中 😀\"]".as_bytes(),
            b"[\"\xff\"]",
            b"[\"\xc3\"]",
            b"[\"\xed\xa0\x80\"]",
            b"[\"\\",
            b"[\"abc",
            b"[\"abc\\\"]",
            b"[[[]]]",
            b"[[[[]]]]",
            b"{\"a\":{\"b\":{}}}",
            b"[}",
            b"{]",
            b"[1]]",
            b"[1] [2]",
            b"[\\]",
            b"[\"a\"\"b\"]",
            b"{\"a\":1 \"b\":2}",
        ] {
            agree(text);
        }
    }

    /// A little xorshift, for the generated cases.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % n as u64) as usize
        }
    }

    /// A JSON-like value, valid most of the time, with the slips that matter here.
    fn value(rng: &mut Rng, out: &mut Vec<u8>, depth: usize) {
        // The first 13 are valid string content.
        const PIECES: [&[u8]; 24] = [
            b"a",
            b"word ",
            b"\\\"",
            b"\\\\",
            b"\\n",
            b"\\t",
            b"\\/",
            b"\\u00e9",
            b"\\ud83d\\ude00",
            "é".as_bytes(),
            "😀".as_bytes(),
            b"<p class=\\\"c\\\">",
            b"                                ",
            b"\\ud83d",
            b"\\udc00",
            b"\\u12",
            b"\\x",
            b"\\",
            b"\\\\\\",
            b"\"",
            b"\n",
            b"\x01",
            b"\xff",
            b"\xe2\x82",
        ];
        const SCALARS: [&[u8]; 12] = [
            b"0", b"-1", b"12.5", b"1e9", b"-0.0E+1", b"01", b"1.", b"true", b"false", b"null",
            b"nul", b"-",
        ];
        const BLANKS: [&[u8]; 5] = [b"", b" ", b"\n  ", b"\t", b"\x0c"];
        out.extend_from_slice(BLANKS[if rng.below(40) == 0 { 4 } else { rng.below(4) }]);
        match rng.below(if depth > 5 { 2 } else { 4 }) {
            0 => {
                out.push(b'"');
                let wild = rng.below(3) == 0;
                for _ in 0..rng.below(60) {
                    let n = if wild && rng.below(10) == 0 {
                        PIECES.len()
                    } else {
                        13
                    };
                    out.extend_from_slice(PIECES[rng.below(n)]);
                }
                out.push(b'"');
            }
            1 => out.extend_from_slice(SCALARS[rng.below(SCALARS.len())]),
            2 => {
                out.push(b'[');
                for i in 0..rng.below(5) {
                    if i > 0 {
                        out.push(b',');
                    }
                    value(rng, out, depth + 1);
                }
                out.push(b']');
            }
            _ => {
                out.push(b'{');
                for i in 0..rng.below(5) {
                    if i > 0 {
                        out.push(b',');
                    }
                    out.extend_from_slice(b" \"k\\\"ey\" ");
                    out.push(b':');
                    value(rng, out, depth + 1);
                }
                out.push(b'}');
            }
        }
        out.extend_from_slice(BLANKS[if rng.below(40) == 0 { 4 } else { rng.below(4) }]);
    }

    #[test]
    fn generated_and_broken_values_as_serde_json_reads_them() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..6000 {
            let mut text = Vec::new();
            out_container(&mut rng, &mut text);
            agree(&text);
            // Cut short, a byte changed, a byte dropped.
            let cut = rng.below(text.len() + 1);
            agree(&text[..cut]);
            let mut changed = text.clone();
            let at = rng.below(text.len());
            changed[at] = b"\"\\{}[],:0 \x00u"[rng.below(12)];
            agree(&changed);
            changed.remove(rng.below(changed.len()));
            agree(&changed);
        }
    }

    fn out_container(rng: &mut Rng, out: &mut Vec<u8>) {
        let open = b"[{"[rng.below(2)];
        out.push(open);
        for i in 0..rng.below(6) {
            if i > 0 {
                out.push(b',');
            }
            if open == b'{' {
                out.extend_from_slice(b"\"key\":");
            }
            value(rng, out, 1);
        }
        out.push(if open == b'[' { b']' } else { b'}' });
    }
}
