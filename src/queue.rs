//! The event queue: records over one reusable byte arena, drained as borrowed events.
//!
//! Events borrow from the parser, so their bytes live in `arena` (names, ids, feedback),
//! in `text`, or in the call's own arguments buffer (deltas and finished arguments,
//! which are never copied: a large call costs its arguments once), and the queue holds
//! ranges. Buffers are cleared only when the queue is empty, at the next `push`: in
//! steady state nothing is allocated per chunk.

use crate::event::{CallIndex, Event, NotReleasedReason, StopReason};
use crate::repairs::Repairs;
use std::collections::VecDeque;
use std::ops::Range;

type Span = Range<usize>;

#[derive(Clone, Debug)]
enum Rec {
    Text(Span),
    Reasoning(Span),
    Started {
        index: CallIndex,
        id: Span,
        name: Span,
    },
    /// A range of the call's arguments buffer.
    Delta {
        index: CallIndex,
        fragment: Span,
    },
    Finished {
        index: CallIndex,
        id: Span,
        name: Span,
        arguments: Span,
        repairs: Repairs,
        validation: Span,
    },
    NotReleased {
        index: CallIndex,
        name: Option<Span>,
        reason: NotReleasedReason,
        feedback: Span,
        completed: Span,
        repairs: Repairs,
    },
    ToolChoiceUnmet(Span),
    End {
        stop: StopReason,
        truncated: bool,
    },
}

impl Rec {
    fn text(span: Span, reasoning: bool) -> Rec {
        match reasoning {
            false => Rec::Text(span),
            true => Rec::Reasoning(span),
        }
    }
}

/// Ended calls' arguments buffers, by call.
type EndedArgs = Vec<(CallIndex, Vec<u8>)>;

/// The text room reserved at the first push.
const MIN_TEXT: usize = 256;

pub(crate) struct Queue {
    arena: Vec<u8>,
    /// Text and reasoning, validated once as it is written: reading it back as `&str`
    /// needs no second UTF-8 check (the text path's main cost on small chunks).
    text: String,
    recs: VecDeque<Rec>,
    /// Where the open text run begins in `text`: the run at the end of `text`, after
    /// every record, is appended to without a record (the text path of a chunk touches
    /// no deque) and gets one only when another event follows it.
    open: usize,
    /// Whether the open run is reasoning.
    open_reasoning: bool,
    /// Whether the open delta run is open: like the open text run, the last event,
    /// after every record, with no record of its own yet, so a call's deltas (one a
    /// chunk while a long argument streams) touch no deque. At most one of the two
    /// runs is open. (Three fields rather than an `Option` of a tuple: they pack with
    /// the others, and an idle parser is at most 512 bytes.)
    delta_open: bool,
    /// The call of the open delta run.
    delta_index: CallIndex,
    /// The open delta run's range of its call's arguments buffer.
    delta_span: Span,
    /// The arguments buffers of calls that ended while events of theirs are queued
    /// (boxed and made at the first: most parsers hold none, and it keeps them small).
    ended: Option<Box<EndedArgs>>,
}

impl Default for Queue {
    fn default() -> Queue {
        Queue {
            arena: Vec::new(),
            text: String::new(),
            recs: VecDeque::new(),
            open: 0,
            open_reasoning: false,
            delta_open: false,
            delta_index: CallIndex(0),
            delta_span: 0..0,
            ended: None,
        }
    }
}

/// The arguments buffer of the call that is still open, for reading its deltas.
pub(crate) type OpenArgs<'a> = Option<(CallIndex, &'a [u8])>;

fn text(bytes: &[u8]) -> &str {
    // Every span is written from whole UTF-8 characters.
    crate::ascii::as_str(bytes).unwrap_or("")
}

impl Queue {
    /// Reuse the buffers if every event was drained (an ended call's arguments buffer
    /// goes to `spare`, for the next call).
    #[inline(always)]
    pub(crate) fn begin(&mut self, spare: &mut Vec<u8>) {
        if self.is_drained() {
            self.arena.clear();
            self.text.clear();
            self.open = 0;
            self.delta_open = false;
            if self.ended.as_ref().is_some_and(|e| !e.is_empty()) {
                self.recycle(spare);
            }
        }
        // Room for what one small push can release (a held run of text is at most twice
        // the longest marker), reserved once at the first push rather than at
        // construction, so an idle parser holds no heap and the text path never grows.
        if self.text.capacity() == 0 {
            self.text.reserve(MIN_TEXT);
            self.recs.reserve(8);
        }
    }

    pub(crate) fn clear(&mut self, spare: &mut Vec<u8>) {
        self.arena.clear();
        self.text.clear();
        self.recs.clear();
        self.open = 0;
        self.delta_open = false;
        self.recycle(spare);
    }

    /// Keep the largest ended buffer for the next call; drop the others.
    fn recycle(&mut self, spare: &mut Vec<u8>) {
        for (_, mut args) in self.ended.iter_mut().flat_map(|e| e.drain(..)) {
            if args.capacity() > spare.capacity() {
                args.clear();
                *spare = args;
            }
        }
    }

    /// Take an ended call's arguments buffer: its queued deltas and arguments read from
    /// it until they are drained.
    pub(crate) fn keep_args(&mut self, index: CallIndex, args: Vec<u8>) {
        self.ended
            .get_or_insert_with(Box::default)
            .push((index, args));
    }

    /// Give the open run, text or delta, a record: another event follows it.
    #[inline]
    fn close_runs(&mut self) {
        let span = self.open..self.text.len();
        if !span.is_empty() {
            self.open = span.end;
            self.recs.push_back(Rec::text(span, self.open_reasoning));
        }
        if std::mem::take(&mut self.delta_open) {
            let (index, fragment) = (self.delta_index, self.delta_span.clone());
            self.recs.push_back(Rec::Delta { index, fragment });
        }
    }

    /// The open text run of the kind, to append whole characters to.
    #[inline]
    pub(crate) fn text_run(&mut self, reasoning: bool) -> &mut String {
        if self.open_reasoning != reasoning || self.delta_open {
            self.close_runs();
            self.open_reasoning = reasoning;
        }
        &mut self.text
    }

    fn push_rec(&mut self, rec: Rec) {
        self.close_runs();
        self.recs.push_back(rec);
    }

    fn put(&mut self, bytes: &[u8]) -> Span {
        let start = self.arena.len();
        self.arena.extend_from_slice(bytes);
        start..self.arena.len()
    }

    /// Whether every event was read.
    #[inline]
    pub(crate) fn is_drained(&self) -> bool {
        self.recs.is_empty() && self.open == self.text.len() && !self.delta_open
    }

    /// Put text back ahead of every queued event (text a [`crate::Feed`] borrowed from
    /// its chunk and was dropped before handing out).
    pub(crate) fn unread(&mut self, s: &str, reasoning: bool) {
        self.close_runs();
        let start = self.text.len();
        self.text.push_str(s);
        self.open = self.text.len();
        self.recs
            .push_front(Rec::text(start..self.text.len(), reasoning));
    }

    /// Append visible or reasoning text, merging with the previous event of the kind.
    pub(crate) fn text(&mut self, s: &str, reasoning: bool) {
        self.text_run(reasoning).push_str(s);
    }

    pub(crate) fn started(&mut self, index: CallIndex, id: &str, name: &str) {
        let id = self.put(id.as_bytes());
        let name = self.put(name.as_bytes());
        self.push_rec(Rec::Started { index, id, name });
    }

    /// Send `fragment` of the call's arguments buffer (it ends at a character boundary),
    /// merged with the open delta run when it continues it.
    #[inline]
    pub(crate) fn delta(&mut self, index: CallIndex, fragment: Span) {
        if fragment.is_empty() {
            return;
        }
        if self.delta_open && self.delta_index == index && self.delta_span.end == fragment.start {
            self.delta_span.end = fragment.end;
            return;
        }
        self.close_runs();
        (self.delta_open, self.delta_index, self.delta_span) = (true, index, fragment);
    }

    /// The call is released; its arguments are the whole buffer given to `keep_args`.
    pub(crate) fn finished(
        &mut self,
        index: CallIndex,
        id: &str,
        name: &str,
        arguments: Span,
        repairs: Repairs,
        validation: &str,
    ) {
        let id = self.put(id.as_bytes());
        let name = self.put(name.as_bytes());
        let validation = self.put(validation.as_bytes());
        self.push_rec(Rec::Finished {
            index,
            id,
            name,
            arguments,
            repairs,
            validation,
        });
    }

    pub(crate) fn not_released(
        &mut self,
        index: CallIndex,
        name: Option<&str>,
        reason: NotReleasedReason,
        feedback: &str,
        completed: &[u8],
        repairs: Repairs,
    ) {
        let name = name.map(|n| self.put(n.as_bytes()));
        let feedback = self.put(feedback.as_bytes());
        let completed = self.put(completed);
        self.push_rec(Rec::NotReleased {
            index,
            name,
            reason,
            feedback,
            completed,
            repairs,
        });
    }

    pub(crate) fn tool_choice_unmet(&mut self, feedback: &str) {
        let feedback = self.put(feedback.as_bytes());
        self.push_rec(Rec::ToolChoiceUnmet(feedback));
    }

    pub(crate) fn end(&mut self, stop: StopReason, truncated: bool) {
        self.push_rec(Rec::End { stop, truncated });
    }

    #[inline]
    pub(crate) fn next<'a>(&'a mut self, open: impl FnOnce() -> OpenArgs<'a>) -> Option<Event<'a>> {
        let Some(rec) = self.recs.pop_front() else {
            // Only an open run is left.
            if std::mem::take(&mut self.delta_open) {
                let fragment = self.delta_span.clone();
                return Some(self.delta_event(self.delta_index, fragment, open()));
            }
            let span = self.open..self.text.len();
            if span.is_empty() {
                return None;
            }
            self.open = span.end;
            return Some(Event::text(&self.text[span], self.open_reasoning));
        };
        self.next_rec(rec, open())
    }

    /// The arguments buffer of call `index`: an ended call's kept buffer, or the open
    /// call's.
    #[inline]
    fn args<'a>(&'a self, index: CallIndex, open: OpenArgs<'a>) -> &'a [u8] {
        if let Some(ended) = &self.ended {
            if let Some((_, args)) = ended.iter().find(|(i, _)| *i == index) {
                return args;
            }
        }
        match open {
            Some((i, args)) if i == index => args,
            _ => &[],
        }
    }

    #[inline]
    fn delta_event<'a>(
        &'a self,
        index: CallIndex,
        fragment: Span,
        open: OpenArgs<'a>,
    ) -> Event<'a> {
        Event::ArgsDelta {
            index,
            fragment: text(self.args(index, open).get(fragment).unwrap_or_default()),
        }
    }

    /// The event of a record (out of line: `next` stays small for the open runs, the
    /// events of most chunks).
    #[inline(never)]
    fn next_rec<'a>(&'a self, rec: Rec, open: OpenArgs<'a>) -> Option<Event<'a>> {
        let a = &self.arena;
        let args = |index: CallIndex| self.args(index, open);
        Some(match rec {
            Rec::Text(s) => Event::Text(&self.text[s]),
            Rec::Reasoning(s) => Event::Reasoning(&self.text[s]),
            Rec::Started { index, id, name } => Event::CallStarted {
                index,
                id: text(&a[id]),
                name: text(&a[name]),
            },
            Rec::Delta { index, fragment } => self.delta_event(index, fragment, open),
            Rec::Finished {
                index,
                id,
                name,
                arguments,
                repairs,
                validation,
            } => Event::CallFinished {
                index,
                id: text(&a[id]),
                name: text(&a[name]),
                arguments: text(args(index).get(arguments).unwrap_or_default()),
                repairs,
                validation: Some(text(&a[validation])).filter(|v| !v.is_empty()),
            },
            Rec::NotReleased {
                index,
                name,
                reason,
                feedback,
                completed,
                repairs,
            } => Event::CallNotReleased {
                index,
                name: name.map(|n| text(&a[n])),
                reason,
                feedback: text(&a[feedback]),
                completed: text(&a[completed]),
                repairs,
            },
            Rec::ToolChoiceUnmet(feedback) => Event::ToolChoiceUnmet {
                feedback: text(&a[feedback]),
            },
            Rec::End { stop, truncated } => Event::End { stop, truncated },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ARGS: &[u8] = br#"{"a": "bcdef"}"#;

    /// Every event, with the open call 0 writing `ARGS`.
    fn drain(q: &mut Queue) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(ev) = q.next(|| Some((CallIndex(0), ARGS))) {
            out.push(match ev {
                Event::Text(t) => format!("text {t}"),
                Event::Reasoning(t) => format!("reasoning {t}"),
                Event::ArgsDelta { index, fragment } => format!("delta {} {fragment}", index.0),
                other => format!("{other:?}"),
            });
        }
        out
    }

    #[test]
    fn runs_keep_the_order_events_were_written_in() {
        let mut q = Queue::default();
        q.begin(&mut Vec::new());
        q.delta(CallIndex(0), 0..3);
        q.delta(CallIndex(0), 3..6);
        q.text("between", false);
        q.delta(CallIndex(0), 6..8);
        q.keep_args(CallIndex(1), b"x".to_vec());
        q.delta(CallIndex(1), 0..1);
        q.text("think", true);
        q.unread("first", false);
        assert_eq!(
            drain(&mut q),
            [
                "text first",
                r#"delta 0 {"a": "#,
                "text between",
                "delta 0 \"b",
                "delta 1 x",
                "reasoning think",
            ]
        );
        assert!(q.is_drained());
    }

    #[test]
    fn an_open_delta_run_is_an_event_not_read() {
        let mut q = Queue::default();
        q.begin(&mut Vec::new());
        q.delta(CallIndex(0), 0..2);
        assert!(!q.is_drained());
        assert_eq!(drain(&mut q), [r#"delta 0 {""#]);
        assert!(q.is_drained());
        // Read, the run starts again where the next delta begins.
        q.delta(CallIndex(0), 2..4);
        q.unread("put back", false);
        assert_eq!(drain(&mut q), ["text put back", r#"delta 0 a""#]);
    }
}
