//! Competing readings of an ambiguous string, decided by the whole value.
//!
//! Most quotes inside a string are decided by the look-ahead for certain: a quote
//! followed by a letter is content, a quote followed by the parent's closer and the
//! call's closing marker ends the string. Some are not: in a string that already
//! showed it is malformed (raw quotes, raw newlines), a quote followed by `}, body:` or
//! `#cb0000"` may end it or not, and a quote followed by `, "b": fast` may be content
//! or the end of a string whose next value lost its quotes. Such a decision is *weak*
//! ([`Repairer`](super::repairer::Repairer)'s `weak`).
//!
//! A reading armed to fork stops at its first weak decision
//! ([`Status::Fork`](super::repairer::Status::Fork)); its owner clones it there and
//! goes on with the look-ahead's verdict. Every byte read after the fork is kept. When
//! the value ends, the competing readings ([`ALTERNATIVES`]) are read from the clone
//! over the same bytes, each with its own [`Policy`], and the whole value decides:
//!
//! ```text
//!            first weak quote
//!                   │
//!   strict prefix ──┼── primary: the look-ahead's verdicts ───────────┐
//!   (streamed)      ├── flipped, then the look-ahead's ───────────────┤
//!                   ├── flipped, then every weak quote content ───────┤  cheapest complete
//!                   ├── as decided, then every weak quote content ────┼─ reading that re-parses,
//!                   ├── flipped, then by the string (malformed: ──────┤  by a clear margin
//!                   │   content; clean: the end)                      │
//!                   └── as decided, then by the string ───────────────┘
//! ```
//!
//! Each reading costs the named repairs it needed ([`cost`](super::cost)); a reading
//! whose output is not strict JSON is out. The cheapest is taken only when no reading
//! with a different result comes within [`MARGIN`] and it costs less than
//! [`EXPENSIVE`]; otherwise the value is not taken at all ([`Decision::Ambiguous`]).
//! Work is bounded: each reading reads the bytes after the fork once, and drops out
//! once its repairs alone cost over a fixed cap (costs only grow, so whenever that is
//! seen, whatever the chunking).

use super::lookahead::Verdict;

/// How a reading takes weak decisions.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Policy {
    /// Stop at the first weak decision ([`Status::Fork`](super::repairer::Status::Fork)),
    /// so the owner can fork the readings there.
    pub arm: bool,
    /// The verdict for the decision pending at the fork.
    pub force: Option<Verdict>,
    /// How every later weak decision is taken.
    pub weak: Weak,
    /// Note where the siblings this reading stands for would part from it
    /// ([`Parted`]).
    pub track: bool,
    /// The reading is of one call of a body of several (an array of call objects, a
    /// list of Python calls): it ends where that call ends, not released there
    /// ([`Status::CallEnded`](super::repairer::Status::CallEnded)), and the whole call
    /// decides before the body goes on.
    pub one_call: bool,
}

/// How a reading takes the weak decisions after its fork.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) enum Weak {
    /// As the look-ahead decided.
    #[default]
    LookAhead,
    /// Always this verdict.
    Always(Verdict),
    /// By the string: a quote in a string that already showed it is malformed is
    /// content, one in a clean string ends it (a raw file in one value, the values
    /// around it written properly).
    ByString,
}

impl Weak {
    /// The verdict this policy takes at a weak decision the look-ahead gave `verdict`,
    /// in a string that did (`suspect`) or did not already show it is malformed.
    pub(crate) fn verdict(self, verdict: Verdict, suspect: bool) -> Verdict {
        match self {
            Weak::LookAhead => verdict,
            Weak::Always(weak) => weak,
            Weak::ByString if suspect => Verdict::Content,
            Weak::ByString => Verdict::Close,
        }
    }
}

impl Policy {
    /// The primary reading's: fork at the first weak decision, take the look-ahead's
    /// verdicts.
    pub(crate) const ARMED: Policy = Policy {
        arm: true,
        force: None,
        weak: Weak::LookAhead,
        track: false,
        one_call: false,
    };
}

/// The readings a reading that takes the look-ahead's verdicts stands in for (its
/// *siblings*: forced alike at the fork, taking later weak decisions by another
/// [`Weak`]) until a weak decision they would take otherwise. Until then a sibling is
/// the same reading, so it is not read; once parted, it is read from the fork.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Parted(u8);

/// The policies of the siblings (their bit in [`Parted`] is their index).
const SIBLINGS: [Weak; 2] = [Weak::Always(Verdict::Content), Weak::ByString];

impl Parted {
    /// A weak decision the look-ahead gave `verdict` was taken as `taken`: note the
    /// siblings that would have taken it otherwise.
    pub(crate) fn note(&mut self, verdict: Verdict, taken: Verdict, suspect: bool) {
        for (bit, weak) in SIBLINGS.iter().enumerate() {
            if weak.verdict(verdict, suspect) != taken {
                self.0 |= 1 << bit;
            }
        }
    }

    /// Whether the sibling taking weak decisions by `weak` parted.
    pub(crate) fn has(self, weak: Weak) -> bool {
        SIBLINGS
            .iter()
            .position(|w| *w == weak)
            .is_some_and(|bit| self.0 & (1 << bit) != 0)
    }
}

/// One competing reading, relative to the verdict the primary took at the fork.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Alternative {
    /// Take the other verdict at the fork.
    pub flip: bool,
    /// How later weak decisions are taken.
    pub weak: Weak,
}

/// The readings compared with the primary (which is `flip: false, weak: LookAhead`).
pub(crate) const ALTERNATIVES: [Alternative; 5] = [
    Alternative {
        flip: true,
        weak: Weak::LookAhead,
    },
    Alternative {
        flip: true,
        weak: Weak::Always(Verdict::Content),
    },
    Alternative {
        flip: false,
        weak: Weak::Always(Verdict::Content),
    },
    Alternative {
        flip: true,
        weak: Weak::ByString,
    },
    Alternative {
        flip: false,
        weak: Weak::ByString,
    },
];

impl Alternative {
    /// The policy of this reading, the primary having taken `verdict` at the fork.
    pub(crate) fn policy(self, verdict: Verdict) -> Policy {
        let other = match verdict {
            Verdict::Close => Verdict::Content,
            Verdict::Content => Verdict::Close,
        };
        Policy {
            arm: false,
            force: Some(if self.flip { other } else { verdict }),
            weak: self.weak,
            track: self.weak == Weak::LookAhead,
            one_call: false,
        }
    }

    /// The reading this one is a sibling of (see [`Parted`]): 0 is the primary, `n`
    /// is `ALTERNATIVES[n - 1]`; `None` for a reading that takes the look-ahead's
    /// verdicts itself.
    pub(crate) fn head(self) -> Option<usize> {
        if self.weak == Weak::LookAhead {
            return None;
        }
        match self.flip {
            false => Some(0),
            true => ALTERNATIVES
                .iter()
                .position(|a| a.flip && a.weak == Weak::LookAhead)
                .map(|n| n + 1),
        }
    }
}

/// A reading's result must beat every reading with a different result by this much.
pub(crate) const MARGIN: u32 = 8;

/// A reading this costly is not taken even when it is the cheapest: it invented too
/// much structure to be what the model meant.
pub(crate) const EXPENSIVE: u32 = 80;

/// What the whole value decides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Decision {
    /// Take reading `n` (0 is the primary, `n` is `ALTERNATIVES[n - 1]`).
    Take(usize),
    /// Two readings with different results are too close to tell apart.
    Ambiguous,
}

/// Decide among readings: `scored[n]` is reading `n`'s cost and a key of its result
/// (equal keys are the same result), `None` when it is out. The primary wins ties.
pub(crate) fn decide<K: PartialEq>(scored: &[Option<(u32, K)>]) -> Option<Decision> {
    let (best, (cost, key)) = scored
        .iter()
        .enumerate()
        .filter_map(|(n, s)| s.as_ref().map(|s| (n, s)))
        .min_by_key(|(n, (cost, _))| (*cost, *n))?;
    let close = *cost >= EXPENSIVE
        || scored
            .iter()
            .flatten()
            .any(|(c, k)| k != key && *c < cost.saturating_add(MARGIN));
    Some(match close {
        true => Decision::Ambiguous,
        false => Decision::Take(best),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cheapest_wins_by_a_margin_or_nothing_does() {
        let take = |s: &[Option<(u32, u8)>]| decide(s);
        assert_eq!(
            take(&[Some((3, 0)), Some((40, 1))]),
            Some(Decision::Take(0))
        );
        assert_eq!(
            take(&[Some((60, 0)), Some((2, 1))]),
            Some(Decision::Take(1))
        );
        assert_eq!(
            take(&[Some((5, 0)), Some((9, 1))]),
            Some(Decision::Ambiguous)
        );
        // Readings with the same result never compete.
        assert_eq!(take(&[Some((5, 0)), Some((5, 0))]), Some(Decision::Take(0)));
        assert_eq!(take(&[None, Some((7, 1))]), Some(Decision::Take(1)));
        assert_eq!(take(&[None, None]), None);
        // The cheapest, but too costly to be what was meant.
        assert_eq!(take(&[Some((90, 0)), None]), Some(Decision::Ambiguous));
    }

    #[test]
    fn siblings_part_where_their_policy_decides_otherwise() {
        // The primary's siblings are the unflipped readings; the flipped ones follow
        // the flipped reading that takes the look-ahead's verdicts.
        let heads: Vec<_> = ALTERNATIVES.iter().map(|a| a.head()).collect();
        // (The envelope's readings name the flipped head by its place: keep it first.)
        assert_eq!(heads, [None, Some(1), Some(0), Some(1), Some(0)]);
        let mut parted = Parted::default();
        // A weak `Close` taken as the look-ahead said, in a clean string: the reading
        // taking every weak quote as content parts; the one going by the string not.
        parted.note(Verdict::Close, Verdict::Close, false);
        assert!(parted.has(Weak::Always(Verdict::Content)));
        assert!(!parted.has(Weak::ByString));
        // The same in a malformed string: both part.
        parted.note(Verdict::Close, Verdict::Close, true);
        assert!(parted.has(Weak::ByString));
        let mut parted = Parted::default();
        parted.note(Verdict::Content, Verdict::Content, true);
        assert_eq!(parted, Parted::default());
    }

    #[test]
    fn alternatives_force_the_fork_and_set_later_weak_decisions() {
        let p = ALTERNATIVES[0].policy(Verdict::Close);
        assert_eq!(p.force, Some(Verdict::Content));
        assert_eq!(p.weak, Weak::LookAhead);
        let p = ALTERNATIVES[2].policy(Verdict::Close);
        assert_eq!(p.force, Some(Verdict::Close));
        assert_eq!(p.weak, Weak::Always(Verdict::Content));
        assert!(ALTERNATIVES.iter().all(|a| !a.policy(Verdict::Content).arm));
    }
}
