//! Finding markers in a byte stream split at arbitrary points.
//!
//! A [`MarkerSet`] is a small set of byte strings. [`MarkerSet::find`] looks for the
//! first marker in a slice with a first-byte prefilter (`memchr` over up to three
//! distinct first bytes, a 256-bit set otherwise) and reports a *partial* match when
//! the slice ends inside what could still become a marker. The caller holds exactly
//! those bytes back (they are at most `max_len - 1` long) and releases them the moment
//! they cannot begin a marker: this is the pending-buffer rule for markers.

use crate::word::ByteBits;

/// The first `a` or `b` in `hay`. The first 16 bytes are searched with a plain loop:
/// on token-sized slices, and on the short strings of structure-heavy JSON found at
/// the start of a long slice, `memchr`'s setup costs more than the search.
#[inline]
pub(crate) fn find2(a: u8, b: u8, hay: &[u8]) -> Option<usize> {
    const HEAD: usize = 16;
    let head = &hay[..hay.len().min(HEAD)];
    if let Some(at) = head.iter().position(|&c| c == a || c == b) {
        return Some(at);
    }
    let rest = hay.get(HEAD..).filter(|rest| !rest.is_empty())?;
    memchr::memchr2(a, b, rest).map(|at| at + HEAD)
}

/// Identifies a marker within its set (its position in the list it was built from).
pub(crate) type MarkerId = usize;

/// The outcome of searching a slice.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Found {
    /// Marker `id` occupies `start..end` of the slice.
    Full {
        id: MarkerId,
        start: usize,
        end: usize,
    },
    /// The slice ends at `start` with bytes that are a proper prefix of a marker (or a
    /// full marker that a longer one could still extend).
    Partial { start: usize },
    /// No marker, and no byte of the slice can begin one.
    None,
}

/// A set of markers matched leftmost, then longest.
#[derive(Clone, Debug)]
pub(crate) struct MarkerSet {
    markers: Vec<&'static [u8]>,
    /// The bytes a marker begins with (a bitset keeps the set small: a parser holds
    /// several).
    first: ByteBits,
    firsts: smallvec::SmallVec<[u8; 4]>,
    /// The markers beginning with each byte of `firsts` (same order): a candidate is
    /// compared only with these, not with every marker.
    groups: Vec<Group>,
    max_len: usize,
}

/// The markers that begin with one byte.
#[derive(Clone, Debug, Default)]
struct Group {
    /// The bytes a marker of the group has second (every byte when one is that byte
    /// alone): most candidates are ruled out by the byte after them.
    seconds: ByteBits,
    /// The bytes a marker of the group has third (every byte when one has at most
    /// two): the `</d` of `</details>` is ruled out before any member is compared.
    thirds: ByteBits,
    /// The length of the group's shortest marker.
    shortest: u16,
    members: smallvec::SmallVec<[Member; 4]>,
}

/// A marker of a group: its first eight bytes as one word ([`crate::word::gather`]),
/// compared with the candidate's in one step rather than a byte at a time.
#[derive(Clone, Copy, Debug)]
struct Member {
    head: u64,
    id: u16,
    len: u16,
}

impl Default for MarkerSet {
    fn default() -> MarkerSet {
        MarkerSet::new(&[])
    }
}

impl MarkerSet {
    pub(crate) fn new(markers: &[&'static [u8]]) -> MarkerSet {
        let mut set = MarkerSet {
            markers: Vec::with_capacity(markers.len()),
            first: ByteBits::default(),
            firsts: smallvec::SmallVec::new(),
            groups: Vec::new(),
            max_len: 0,
        };
        for m in markers {
            set.push(m);
        }
        set
    }

    pub(crate) fn push(&mut self, marker: &'static [u8]) -> MarkerId {
        debug_assert!(!marker.is_empty());
        if let Some(id) = self.markers.iter().position(|m| *m == marker) {
            return id;
        }
        let b = marker[0];
        if !self.starts_with_byte(b) {
            self.first.insert(b);
            self.firsts.push(b);
            self.groups.push(Group::default());
        }
        let group = self
            .firsts
            .iter()
            .position(|&f| f == b)
            .expect("just added");
        let group = &mut self.groups[group];
        match marker.get(1) {
            Some(&second) => group.seconds.insert(second),
            None => group.seconds = ByteBits::ALL,
        }
        match marker.get(2) {
            Some(&third) => group.thirds.insert(third),
            None => group.thirds = ByteBits::ALL,
        }
        let len = marker.len() as u16;
        group.shortest = match group.members.is_empty() {
            true => len,
            false => group.shortest.min(len),
        };
        group.members.push(Member {
            head: crate::word::gather(&marker[..marker.len().min(8)]),
            id: self.markers.len() as u16,
            len: marker.len() as u16,
        });
        self.max_len = self.max_len.max(marker.len());
        self.markers.push(marker);
        self.markers.len() - 1
    }

    /// Whether `other` holds the same markers in the same order (so the same ids).
    #[cfg(debug_assertions)]
    pub(crate) fn same_markers(&self, other: &MarkerSet) -> bool {
        self.markers == other.markers
    }

    pub(crate) fn get(&self, id: MarkerId) -> &'static [u8] {
        self.markers[id]
    }

    /// The markers, in the order of their ids.
    pub(crate) fn markers(&self) -> &[&'static [u8]] {
        &self.markers
    }

    /// The longest marker's length: the most bytes a partial match can hold back.
    pub(crate) fn max_len(&self) -> usize {
        self.max_len
    }

    /// The bytes a marker begins with, each once.
    pub(crate) fn first_bytes(&self) -> &[u8] {
        &self.firsts
    }

    /// Whether `b` can begin a marker.
    pub(crate) fn starts_with_byte(&self, b: u8) -> bool {
        self.first.contains(b)
    }

    /// The bytes that may follow `first` in a marker (every byte when one is `first`
    /// alone; none when no marker begins with it): [`match_at`](Self::match_at) finds
    /// none at a `first` followed by any other byte.
    pub(crate) fn seconds(&self, first: u8) -> ByteBits {
        self.group(first).map_or(ByteBits::default(), |g| g.seconds)
    }

    /// The bytes a marker beginning with `first` has third (every byte where one has at
    /// most two; none when no marker begins with `first`): [`match_at`](Self::match_at)
    /// finds none at a `first` whose third byte is any other.
    pub(crate) fn thirds(&self, first: u8) -> ByteBits {
        self.group(first).map_or(ByteBits::default(), |g| g.thirds)
    }

    /// The group of the markers that begin with `first`.
    fn group(&self, first: u8) -> Option<&Group> {
        let at = self.firsts.iter().position(|&f| f == first)?;
        Some(&self.groups[at])
    }

    fn next_candidate(&self, hay: &[u8], from: usize) -> Option<usize> {
        let hay = &hay[from..];
        if hay.len() < 16 {
            // Token-sized chunks: memchr's setup costs more than a plain loop.
            return hay
                .iter()
                .position(|&b| self.starts_with_byte(b))
                .map(|i| i + from);
        }
        let at = match self.firsts.as_slice() {
            [] => None,
            [a] => memchr::memchr(*a, hay),
            [a, b] => memchr::memchr2(*a, *b, hay),
            [a, b, c] => memchr::memchr3(*a, *b, *c, hay),
            _ => hay.iter().position(|&b| self.starts_with_byte(b)),
        };
        at.map(|i| i + from)
    }

    /// Match the markers at exactly `hay[at..]`.
    pub(crate) fn match_at(&self, hay: &[u8], at: usize) -> Found {
        let rest = &hay[at..];
        let mut best: Option<(MarkerId, usize)> = None;
        let mut partial = false;
        let Some(group) = rest.first().and_then(|&b| self.group(b)) else {
            return Found::None;
        };
        if rest.get(1).is_some_and(|&b| !group.seconds.contains(b))
            || rest.get(2).is_some_and(|&b| !group.thirds.contains(b))
        {
            return Found::None;
        }
        // One or two bytes shorter than every member: every member begins with the
        // first, and one has the second (the test above), so one goes on past them.
        if rest.len() <= 2 && rest.len() < group.shortest as usize {
            return Found::Partial { start: at };
        }
        // The first eight bytes of each candidate are compared as one word: only as
        // many as both have count (`agree`), and a marker longer than eight bytes is
        // compared on only where they all agree.
        let seen = rest.len().min(8);
        let word = crate::word::gather(&rest[..seen]);
        for member in &group.members {
            let (id, len) = (member.id as usize, member.len as usize);
            let agree = seen.min(len);
            if (word ^ member.head) & (u64::MAX >> (8 * (8 - agree))) != 0 {
                continue;
            }
            if rest.len() >= len {
                let whole = len <= 8 || rest[8..].starts_with(&self.markers[id][8..]);
                if whole && best.is_none_or(|(_, best)| len > best) {
                    best = Some((id, len));
                }
            } else if rest.len() <= 8 || self.markers[id][8..].starts_with(&rest[8..]) {
                partial = true;
            }
        }
        match best {
            // A longer marker could still match: wait for it.
            Some(_) if partial => Found::Partial { start: at },
            Some((id, len)) => Found::Full {
                id,
                start: at,
                end: at + len,
            },
            None if partial => Found::Partial { start: at },
            None => Found::None,
        }
    }

    /// Find the leftmost marker in `hay`, or the start of a partial one at its end.
    pub(crate) fn find(&self, hay: &[u8]) -> Found {
        let mut from = 0;
        while let Some(at) = self.next_candidate(hay, from) {
            match self.match_at(hay, at) {
                Found::None => from = at + 1,
                found => return found,
            }
        }
        Found::None
    }

    /// Like [`find`](Self::find), but at the end of the stream: a partial match is final
    /// (a full marker that a longer one could have extended counts as full).
    pub(crate) fn find_final(&self, hay: &[u8]) -> Found {
        let mut from = 0;
        while let Some(at) = self.next_candidate(hay, from) {
            let rest = &hay[at..];
            let best = self
                .markers
                .iter()
                .enumerate()
                .filter(|(_, m)| rest.starts_with(m))
                .max_by_key(|(_, m)| m.len());
            if let Some((id, m)) = best {
                return Found::Full {
                    id,
                    start: at,
                    end: at + m.len(),
                };
            }
            from = at + 1;
        }
        Found::None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_full_partial_and_none() {
        let set = MarkerSet::new(&[b"<tool_call>", b"</tool_call>", b"<think>"]);
        assert_eq!(
            set.find(b"ab<think>cd"),
            Found::Full {
                id: 2,
                start: 2,
                end: 9
            }
        );
        assert_eq!(set.find(b"ab <tool_"), Found::Partial { start: 3 });
        assert_eq!(set.find(b"a < b <"), Found::Partial { start: 6 });
        assert_eq!(set.find(b"a < b"), Found::None);
        assert_eq!(
            set.find(b"<<think>"),
            Found::Full {
                id: 2,
                start: 1,
                end: 8
            }
        );
    }

    #[test]
    fn longest_match_waits_for_the_longer_marker() {
        let set = MarkerSet::new(&[b"<|tool_call>", b"<|tool_call|>x"]);
        assert_eq!(set.find(b"<|tool_call"), Found::Partial { start: 0 });
        assert_eq!(
            set.find(b"<|tool_call>a"),
            Found::Full {
                id: 0,
                start: 0,
                end: 12
            }
        );
        let set = MarkerSet::new(&[b"ab", b"abcd"]);
        assert_eq!(set.find(b"xab"), Found::Partial { start: 1 });
        assert_eq!(
            set.find(b"xabz"),
            Found::Full {
                id: 0,
                start: 1,
                end: 3
            }
        );
        assert_eq!(
            set.find_final(b"xab"),
            Found::Full {
                id: 0,
                start: 1,
                end: 3
            }
        );
    }

    #[test]
    fn many_first_bytes_use_the_table() {
        let set = MarkerSet::new(&[b"<a>", b"[b]", b"{c}", b">>>d"]);
        assert_eq!(
            set.find(b"..>>>d"),
            Found::Full {
                id: 3,
                start: 2,
                end: 6
            }
        );
        assert_eq!(set.find(b"..>>"), Found::Partial { start: 2 });
    }

    /// `match_at` against a plain reading of the markers: the longest marker that
    /// `hay[at..]` begins with, a partial one where `hay[at..]` is a proper prefix of a
    /// marker (waiting for a longer one too), else none. Over every string of up to four
    /// bytes from an alphabet that makes each marker's second and third bytes matter.
    #[test]
    fn match_at_agrees_with_comparing_every_marker() {
        // `ox>`: a group whose every member is longer than two bytes.
        let markers: [&'static [u8]; 6] =
            [b"<tool_call>", b"</tool_call>", b"</t", b"<x", b"[", b"ox>"];
        let set = MarkerSet::new(&markers);
        let want = |hay: &[u8]| {
            let full = markers
                .iter()
                .enumerate()
                .filter(|(_, m)| hay.starts_with(m))
                .max_by_key(|(_, m)| m.len());
            let partial = markers
                .iter()
                .any(|m| m.len() > hay.len() && m.starts_with(hay));
            match (full, partial) {
                (Some(_), true) | (None, true) => Found::Partial { start: 0 },
                (Some((id, m)), false) => Found::Full {
                    id,
                    start: 0,
                    end: m.len(),
                },
                (None, false) => Found::None,
            }
        };
        let alphabet = b"<>/txo[a";
        let mut hays: Vec<Vec<u8>> = vec![vec![]];
        for _ in 0..4 {
            let longer: Vec<Vec<u8>> = hays
                .iter()
                .flat_map(|h| alphabet.iter().map(move |&b| [&h[..], &[b]].concat()))
                .collect();
            hays.extend(longer);
        }
        hays.sort();
        hays.dedup();
        for hay in hays.iter().filter(|h| !h.is_empty()) {
            assert_eq!(
                set.match_at(hay, 0),
                want(hay),
                "{:?}",
                String::from_utf8_lossy(hay)
            );
        }
    }
}
