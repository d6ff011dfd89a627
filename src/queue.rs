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

/// The text room reserved at the first push.
const MIN_TEXT: usize = 256;

#[derive(Default)]
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
    /// The arguments buffers of calls that ended while events of theirs are queued.
    ended: Vec<(CallIndex, Vec<u8>)>,
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
    #[inline]
    pub(crate) fn begin(&mut self, spare: &mut Vec<u8>) {
        if self.is_drained() {
            self.arena.clear();
            self.text.clear();
            self.open = 0;
            if !self.ended.is_empty() {
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
        self.recycle(spare);
    }

    /// Keep the largest ended buffer for the next call; drop the others.
    fn recycle(&mut self, spare: &mut Vec<u8>) {
        for (_, mut args) in self.ended.drain(..) {
            if args.capacity() > spare.capacity() {
                args.clear();
                *spare = args;
            }
        }
    }

    /// Take an ended call's arguments buffer: its queued deltas and arguments read from
    /// it until they are drained.
    pub(crate) fn keep_args(&mut self, index: CallIndex, args: Vec<u8>) {
        self.ended.push((index, args));
    }

    /// Give the open text run a record: another event follows it.
    fn close_text(&mut self) {
        let span = self.open..self.text.len();
        if !span.is_empty() {
            self.open = span.end;
            self.recs.push_back(Rec::text(span, self.open_reasoning));
        }
    }

    /// The open text run of the kind, to append whole characters to.
    #[inline]
    pub(crate) fn text_run(&mut self, reasoning: bool) -> &mut String {
        if self.open_reasoning != reasoning {
            self.close_text();
            self.open_reasoning = reasoning;
        }
        &mut self.text
    }

    fn push_rec(&mut self, rec: Rec) {
        self.close_text();
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
        self.recs.is_empty() && self.open == self.text.len()
    }

    /// Put text back ahead of every queued event (text a [`crate::Feed`] borrowed from
    /// its chunk and was dropped before handing out).
    pub(crate) fn unread(&mut self, s: &str, reasoning: bool) {
        self.close_text();
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

    /// Send `fragment` of the call's arguments buffer (it ends at a character boundary).
    pub(crate) fn delta(&mut self, index: CallIndex, fragment: Span) {
        if fragment.is_empty() {
            return;
        }
        if let Some(Rec::Delta {
            index: i,
            fragment: span,
        }) = self.recs.back_mut()
        {
            // Not past text written after it (the open run has no record yet).
            if *i == index && span.end == fragment.start && self.open == self.text.len() {
                span.end = fragment.end;
                return;
            }
        }
        self.push_rec(Rec::Delta { index, fragment });
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

    pub(crate) fn end(&mut self, stop: StopReason, truncated: bool) {
        self.push_rec(Rec::End { stop, truncated });
    }

    #[inline]
    pub(crate) fn next<'a>(&'a mut self, open: impl FnOnce() -> OpenArgs<'a>) -> Option<Event<'a>> {
        let Some(rec) = self.recs.pop_front() else {
            // Only the open run is left.
            let span = self.open..self.text.len();
            if span.is_empty() {
                return None;
            }
            self.open = span.end;
            let s = &self.text[span];
            return Some(if self.open_reasoning {
                Event::Reasoning(s)
            } else {
                Event::Text(s)
            });
        };
        self.next_rec(rec, open())
    }

    fn next_rec<'a>(&'a self, rec: Rec, open: OpenArgs<'a>) -> Option<Event<'a>> {
        let a = &self.arena;
        let args = |index: CallIndex| -> &'a [u8] {
            match self.ended.iter().find(|(i, _)| *i == index) {
                Some((_, args)) => args,
                None => match open {
                    Some((i, args)) if i == index => args,
                    _ => &[],
                },
            }
        };
        Some(match rec {
            Rec::Text(s) => Event::Text(&self.text[s]),
            Rec::Reasoning(s) => Event::Reasoning(&self.text[s]),
            Rec::Started { index, id, name } => Event::CallStarted {
                index,
                id: text(&a[id]),
                name: text(&a[name]),
            },
            Rec::Delta { index, fragment } => Event::ArgsDelta {
                index,
                fragment: text(args(index).get(fragment).unwrap_or_default()),
            },
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
                validation: text(&a[validation]),
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
            Rec::End { stop, truncated } => Event::End { stop, truncated },
        })
    }
}
