//! Counters: repairs by kind and calls by outcome, per parser (and summed by `replay`).

use crate::event::NotReleasedReason;
use crate::repairs::{Repair, Repairs};

/// Counters of a parser since it was built (not cleared by `reset`).
#[derive(Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Stats {
    /// Bytes pushed.
    pub bytes: u64,
    /// Calls released with no repair.
    pub released_clean: u64,
    /// Calls released after at least one repair.
    pub released_repaired: u64,
    /// Released calls that still broke their schema (reported, released by policy).
    pub released_invalid: u64,
    /// Calls cut off by the end of the stream.
    pub truncated: u64,
    /// Calls whose arguments could not be made strict JSON (or had no name).
    pub rejected: u64,
    /// Calls naming an undeclared tool.
    pub unknown_tool: u64,
    /// Calls that broke a limit.
    pub limit_exceeded: u64,
    /// Calls held back for their schema.
    pub schema_violation: u64,
    /// Calls the request's `tool_choice` did not allow (not released).
    pub tool_choice: u64,
    /// Calls after the first, with one call allowed (not released).
    pub parallel_calls: u64,
    /// Responses that released no call although the request required one
    /// ([`Event::ToolChoiceUnmet`](crate::Event::ToolChoiceUnmet)).
    pub tool_choice_unmet: u64,
    /// Markers stripped from visible text or reasoning: a dialect's stray closers,
    /// end-of-turn tokens and other dialects' special tokens the model wrote there, and
    /// a released call's body written again after its closer, then the closer (an echo
    /// of the call, as LFM2 models write: one marker).
    pub markup_stripped: u64,
    /// Call openers written inside a reasoning block and left there as reasoning
    /// ([`InReasoning::Ignore`](crate::InReasoning::Ignore)): calls the model drafted
    /// while thinking, not executed.
    pub calls_in_reasoning: u64,
    /// How many calls each repair was applied to, indexed like [`Repair::ALL`].
    pub repairs: Vec<u64>,
    /// [`work`](Stats::work) less `bytes` (wrapping). Kept so, not as the work itself:
    /// the text path's fast test examines each byte of a chunk once, so it counts the
    /// chunk with one add to `bytes`. (Each store there is one the next chunk's load
    /// waits on: two cost its loop 17 % in wall time.)
    work_over_bytes: u64,
}

impl Stats {
    /// Bytes examined: each byte the text scanner, a call grammar or the JSON repairer
    /// (its look-ahead replays included) looked at. Every input byte is looked at a
    /// bounded number of times, so `work / bytes` stays bounded whatever the input: the
    /// hostile-input tests check this instead of timing.
    pub fn work(&self) -> u64 {
        self.work_over_bytes.wrapping_add(self.bytes)
    }

    /// Count `n` bytes pushed, each examined once.
    #[inline]
    pub(crate) fn read_once(&mut self, n: u64) {
        self.bytes += n;
    }

    /// Count `n` bytes pushed (their examining counted apart, by [`examined`]).
    ///
    /// [`examined`]: Self::examined
    #[inline]
    pub(crate) fn pushed(&mut self, n: u64) {
        self.bytes += n;
        self.work_over_bytes = self.work_over_bytes.wrapping_sub(n);
    }

    /// Count `n` bytes examined.
    #[inline]
    pub(crate) fn examined(&mut self, n: u64) {
        self.work_over_bytes = self.work_over_bytes.wrapping_add(n);
    }

    fn add_repairs(&mut self, repairs: Repairs) {
        if repairs.is_empty() {
            return;
        }
        if self.repairs.len() < Repair::ALL.len() {
            self.repairs.resize(Repair::ALL.len(), 0);
        }
        for r in repairs.iter() {
            self.repairs[r as usize] += 1;
        }
    }

    pub(crate) fn count_call(&mut self, repairs: Repairs, invalid: bool) {
        if repairs.is_empty() {
            self.released_clean += 1;
        } else {
            self.released_repaired += 1;
        }
        if invalid {
            self.released_invalid += 1;
        }
        self.add_repairs(repairs);
    }

    pub(crate) fn count_not_released(&mut self, reason: NotReleasedReason, repairs: Repairs) {
        match reason {
            NotReleasedReason::Truncated => self.truncated += 1,
            NotReleasedReason::UnknownTool => {}
            NotReleasedReason::LimitExceeded => self.limit_exceeded += 1,
            NotReleasedReason::SchemaViolation => self.schema_violation += 1,
            NotReleasedReason::ToolChoice => self.tool_choice += 1,
            NotReleasedReason::ParallelCalls => self.parallel_calls += 1,
            _ => self.rejected += 1,
        }
        self.add_repairs(repairs);
    }

    /// How many calls `repair` was applied to.
    pub fn repair_count(&self, repair: Repair) -> u64 {
        self.repairs.get(repair as usize).copied().unwrap_or(0)
    }

    /// Add another parser's counters.
    pub fn merge(&mut self, other: &Stats) {
        self.released_clean += other.released_clean;
        self.released_repaired += other.released_repaired;
        self.released_invalid += other.released_invalid;
        self.truncated += other.truncated;
        self.rejected += other.rejected;
        self.unknown_tool += other.unknown_tool;
        self.limit_exceeded += other.limit_exceeded;
        self.schema_violation += other.schema_violation;
        self.tool_choice += other.tool_choice;
        self.parallel_calls += other.parallel_calls;
        self.tool_choice_unmet += other.tool_choice_unmet;
        self.markup_stripped += other.markup_stripped;
        self.calls_in_reasoning += other.calls_in_reasoning;
        self.bytes += other.bytes;
        self.work_over_bytes = self.work_over_bytes.wrapping_add(other.work_over_bytes);
        if self.repairs.len() < other.repairs.len() {
            self.repairs.resize(other.repairs.len(), 0);
        }
        for (a, b) in self.repairs.iter_mut().zip(&other.repairs) {
            *a += b;
        }
    }
}

impl std::fmt::Debug for Stats {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stats")
            .field("bytes", &self.bytes)
            .field("released_clean", &self.released_clean)
            .field("released_repaired", &self.released_repaired)
            .field("released_invalid", &self.released_invalid)
            .field("truncated", &self.truncated)
            .field("rejected", &self.rejected)
            .field("unknown_tool", &self.unknown_tool)
            .field("limit_exceeded", &self.limit_exceeded)
            .field("schema_violation", &self.schema_violation)
            .field("tool_choice", &self.tool_choice)
            .field("parallel_calls", &self.parallel_calls)
            .field("tool_choice_unmet", &self.tool_choice_unmet)
            .field("markup_stripped", &self.markup_stripped)
            .field("calls_in_reasoning", &self.calls_in_reasoning)
            .field("repairs", &self.repairs)
            .field("work", &self.work())
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `work` is kept less `bytes`, whatever order the counts come in (examined before
    /// pushed makes the difference wrap), and adds up across `merge`.
    #[test]
    fn work_counts_what_was_examined_however_it_was_counted() {
        let mut a = Stats::default();
        a.read_once(10);
        a.examined(3);
        a.pushed(5);
        a.examined(5);
        assert_eq!((a.bytes, a.work()), (15, 18));
        let mut b = Stats::default();
        b.pushed(4);
        assert_eq!((b.bytes, b.work()), (4, 0));
        b.examined(9);
        a.merge(&b);
        assert_eq!((a.bytes, a.work()), (19, 27));
        assert!(format!("{a:?}").contains("work: 27"), "{a:?}");
    }
}
