//! The strict fast path: a whole JSON value that is already well formed needs no
//! repair, so the repairer can hand it through after one strict parse.
//!
//! Well-formed input passes through byte-identical with no repair (invariant 1): the
//! byte-at-a-time repairer, fed a valid value in a clean state, writes exactly its
//! bytes and ends after it. When a chunk holds a whole such value, `serde_json` checks
//! it in one pass without allocating, which is what a large call pushed whole costs
//! otherwise many times over (look-ahead on every closing quote). The repairer tries
//! this only where a value begins at the top two levels, so a failed attempt reads each
//! byte at most twice more.

use crate::scan::{find2, Found, MarkerSet};
use serde_json::value::RawValue;

/// The length of the well-formed JSON container at the start of `input`, if there is
/// one that the repairer would pass unchanged: it nests at most `room` levels, holds
/// none of the `terminators` (a call's closer inside a string is a repair question
/// the repairer decides itself) and is followed by a blank or a terminator. `None` when
/// `input` ends first or anything is wrong.
pub(crate) fn well_formed_value(
    input: &[u8],
    room: usize,
    terminators: &MarkerSet,
) -> Option<usize> {
    if !matches!(input.first(), Some(b'{' | b'[')) {
        return None;
    }
    let raw: &RawValue = serde_json::Deserializer::from_slice(input)
        .into_iter()
        .next()?
        .ok()?;
    let len = raw.get().len();
    let value = &input[..len];
    if depth(value)? > room || terminators.find(value) != Found::None {
        return None;
    }
    // The repairer's look-ahead for a quote near the end reads past the value: only a
    // blank or a terminator there lets it end the value (other bytes can make the quote
    // content), and the end of the input leaves it undecided.
    let ends = match input[len..].first() {
        Some(b' ' | b'\t' | b'\n' | b'\r') => true,
        Some(_) => matches!(terminators.match_at(&input[len..], 0), Found::Full { .. }),
        None => false,
    };
    ends.then_some(len)
}

/// The deepest nesting of a well-formed value (strings skipped in bulk), or `None` when
/// a string holds a lone surrogate escape: `serde_json` lets `\ud800` through without
/// decoding it, while the repairer replaces it (`lone_surrogate`).
fn depth(value: &[u8]) -> Option<usize> {
    let (mut at, mut depth, mut deepest) = (0, 0usize, 0);
    while at < value.len() {
        match value[at] {
            b'"' => {
                // To the closing quote: skip escaped bytes.
                at += 1;
                loop {
                    match find2(b'"', b'\\', &value[at..]) {
                        Some(k) if value[at + k] == b'\\' => {
                            at += k;
                            if value.get(at + 1) == Some(&b'u') {
                                at += surrogates(&value[at..])?;
                            } else {
                                at += 2;
                            }
                        }
                        Some(k) => {
                            at += k;
                            break;
                        }
                        None => return Some(deepest),
                    }
                }
            }
            b'{' | b'[' => {
                depth += 1;
                deepest = deepest.max(depth);
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
        at += 1;
    }
    Some(deepest)
}

/// The length of the `\uXXXX` escape at the start of `s` (twelve bytes for a surrogate
/// pair), or `None` for a lone surrogate. `s` is part of a well-formed value: the four
/// hex digits are there.
fn surrogates(s: &[u8]) -> Option<usize> {
    let unit = |at: usize| -> Option<u16> {
        let hex = std::str::from_utf8(s.get(at..at + 4)?).ok()?;
        u16::from_str_radix(hex, 16).ok()
    };
    match unit(2)? {
        0xd800..=0xdbff => {
            let low = if s.get(6..8) == Some(b"\\u") {
                unit(8)?
            } else {
                0
            };
            (0xdc00..=0xdfff).contains(&low).then_some(12)
        }
        0xdc00..=0xdfff => None,
        _ => Some(6),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_only_a_whole_well_formed_container() {
        let none = MarkerSet::default();
        for (input, want) in [
            (&b"{\"a\": [1, {\"b\": \"x\\\"y\"}]} tail"[..], Some(25)),
            (b"[1,2]\n", Some(5)),
            (b"[1,2]", None),
            (b"[1,2]x", None),
            (b"{\"a\": 1", None),
            (b"{\"a\": 'x'}", None),
            (b" {}", None),
            (b"\"s\"", None),
            (b"{\"a\": [1,]}", None),
        ] {
            assert_eq!(well_formed_value(input, 128, &none), want, "{input:?}");
        }
    }

    #[test]
    fn refuses_too_deep_and_terminators() {
        let none = MarkerSet::default();
        assert_eq!(well_formed_value(b"[[[1]]] ", 3, &none), Some(7));
        assert_eq!(well_formed_value(b"[[[1]]] ", 2, &none), None);
        assert_eq!(well_formed_value(b"[\"]]]\"] ", 1, &none), Some(7));
        for lone in [
            &b"[\"a\\ud800b\"] "[..],
            b"[\"\\udc00\"] ",
            b"[\"\\ud800\\u0041\"] ",
        ] {
            assert_eq!(well_formed_value(lone, 9, &none), None, "{lone:?}");
        }
        assert_eq!(
            well_formed_value(b"[\"\\ud83d\\ude00\\\\u\"] ", 9, &none),
            Some(19)
        );
        let closer = MarkerSet::new(&[b"</tool_call>"]);
        assert_eq!(
            well_formed_value(b"{\"c\": \"</tool_call>\"} ", 9, &closer),
            None
        );
        // What follows: a whole terminator ends the value; a part of one does not yet.
        let after = |raw: &[u8]| well_formed_value(raw, 9, &closer);
        assert_eq!(after(b"{\"c\": 1}</tool_call>"), Some(8));
        assert_eq!(after(b"{\"c\": 1}</tool_c"), None);
        assert_eq!(after(b"{\"c\": 1}<|actin="), None);
    }
}
