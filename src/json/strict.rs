//! The strict fast path: a whole JSON value that is already well formed needs no
//! repair, so the repairer can hand it through after one strict pass.
//!
//! Well-formed input passes through byte-identical with no repair (invariant 1): the
//! byte-at-a-time repairer, fed a valid value in a clean state, writes exactly its
//! bytes and ends after it. When a chunk holds a whole such value, the validator
//! (`validator.rs`) checks it in one pass without allocating, which is what a large
//! call pushed whole costs otherwise many times over (look-ahead on every closing
//! quote). The repairer tries this only where a value begins at the top two levels,
//! so a failed attempt reads each byte at most twice more. Debug builds check every
//! answer of the validator against `serde_json` (the plain path below).

use super::validator;
use crate::scan::MarkerSet;

/// The length of the well-formed JSON container at the start of `input`, if there is
/// one that the repairer would pass unchanged: it nests at most `room` levels and holds
/// none of the `terminators` (a call's closer inside a string is a repair question
/// the repairer decides itself), and what follows it is a continuation the look-ahead
/// accepts after a whole value (see [`follows_a_value`]). `None` when `input` ends
/// first or anything is wrong.
pub(crate) fn well_formed_value(
    input: &[u8],
    room: usize,
    terminators: &MarkerSet,
) -> Option<usize> {
    let len = validator::container_len(input, room);
    #[cfg(debug_assertions)]
    assert_eq!(len, plain::container_len(input, room), "{input:?}");
    let len = len?;
    let value = &input[..len];
    if terminators.find(value) != crate::scan::Found::None
        || !follows_a_value(&input[len..], terminators)
    {
        return None;
    }
    Some(len)
}

/// `text` as a string, if it is one well-formed JSON container, JSON blanks around it
/// allowed, that the repairer would pass unchanged (at most `room` levels deep, no
/// lone surrogate escape): `toolsift::repair` hands such a text back as it is, after
/// one strict pass.
pub(crate) fn whole_value(text: &[u8], room: usize) -> Option<&str> {
    let whole = validator::whole_container(text, room);
    #[cfg(debug_assertions)]
    assert_eq!(
        whole.is_some(),
        plain::whole_container(text, room),
        "{text:?}"
    );
    whole
}

/// Whether `rest`, what comes right after a whole value, begins with what the
/// look-ahead of the value's last strings takes as ending it: a blank, a redundant
/// closer or a whole terminator. Anything else (or nothing yet: the next chunk decides)
/// may make the repairer read a closing quote as content (`"main.go"}<o/tol_call>`),
/// so the value is left to it.
fn follows_a_value(rest: &[u8], terminators: &MarkerSet) -> bool {
    match rest.first() {
        Some(b' ' | b'\t' | b'\n' | b'\r' | b'}' | b']') => true,
        Some(_) => matches!(
            terminators.match_at(rest, 0),
            crate::scan::Found::Full { .. }
        ),
        None => false,
    }
}

/// The same answers from `serde_json` (a raw value: the grammar, any four hex digits
/// after `\u`, UTF-8) and a scan for the depth and lone surrogates: what the
/// validator is checked against.
#[cfg(any(test, debug_assertions))]
pub(crate) mod plain {
    use crate::scan::find2;
    use serde_json::value::RawValue;

    /// [`super::validator::container_len`], by `serde_json`.
    pub(crate) fn container_len(input: &[u8], room: usize) -> Option<usize> {
        if !matches!(input.first(), Some(b'{' | b'[')) {
            return None;
        }
        let raw: &RawValue = serde_json::Deserializer::from_slice(input)
            .into_iter()
            .next()?
            .ok()?;
        let len = raw.get().len();
        (depth(&input[..len])? <= room).then_some(len)
    }

    /// [`super::validator::whole_container`], by `serde_json`.
    pub(crate) fn whole_container(text: &[u8], room: usize) -> bool {
        let value = text.trim_ascii_start();
        matches!(value.first(), Some(b'{' | b'['))
            && serde_json::from_slice::<&RawValue>(text).is_ok()
            && depth(value).is_some_and(|d| d <= room)
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
            (b"{\"a\": \"b\"}<o/tool_call>", None),
            (b"{\"a\": \"b\"}}", Some(10)),
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
            well_formed_value(b"{\"c\": \"</tool_call>\"}", 9, &closer),
            None
        );
        assert_eq!(
            well_formed_value(b"{\"c\": 1}</tool_call>", 9, &closer),
            Some(8)
        );
        assert_eq!(well_formed_value(b"{\"c\": 1}</tool_", 9, &closer), None);
    }
}
