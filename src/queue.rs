//! The event queue: records over one reusable byte arena, drained as borrowed events.
//!
//! Events borrow from the parser, so their bytes live in `arena` and the queue holds
//! ranges. The arena is cleared only when the queue is empty, at the next `push`: in
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

/// The text room reserved at the first push.
const MIN_TEXT: usize = 256;

#[derive(Default)]
pub(crate) struct Queue {
    arena: Vec<u8>,
    /// Text and reasoning, validated once as it is written: reading it back as `&str`
    /// needs no second UTF-8 check (the text path's main cost on small chunks).
    text: String,
    recs: VecDeque<Rec>,
}

fn text(bytes: &[u8]) -> &str {
    // Every span is written from whole UTF-8 characters.
    std::str::from_utf8(bytes).unwrap_or("")
}

impl Queue {
    /// Reuse the arena if every event was drained.
    pub(crate) fn begin(&mut self) {
        if self.recs.is_empty() {
            self.arena.clear();
            self.text.clear();
        }
        // Room for what one small push can release (a held run of text is at most twice
        // the longest marker), reserved once at the first push rather than at
        // construction, so an idle parser holds no heap and the text path never grows.
        if self.text.capacity() == 0 {
            self.text.reserve(MIN_TEXT);
            self.recs.reserve(8);
        }
    }

    pub(crate) fn clear(&mut self) {
        self.arena.clear();
        self.text.clear();
        self.recs.clear();
    }

    fn put(&mut self, bytes: &[u8]) -> Span {
        let start = self.arena.len();
        self.arena.extend_from_slice(bytes);
        start..self.arena.len()
    }

    /// Append visible or reasoning text, merging with the previous event of the kind.
    pub(crate) fn text(&mut self, s: &str, reasoning: bool) {
        if s.is_empty() {
            return;
        }
        let end = self.text.len();
        match self.recs.back_mut() {
            Some(Rec::Text(span)) if !reasoning && span.end == end => {
                self.text.push_str(s);
                span.end = self.text.len();
            }
            Some(Rec::Reasoning(span)) if reasoning && span.end == end => {
                self.text.push_str(s);
                span.end = self.text.len();
            }
            _ => {
                self.text.push_str(s);
                let span = end..self.text.len();
                self.recs.push_back(if reasoning {
                    Rec::Reasoning(span)
                } else {
                    Rec::Text(span)
                });
            }
        }
    }

    pub(crate) fn started(&mut self, index: CallIndex, id: &str, name: &str) {
        let id = self.put(id.as_bytes());
        let name = self.put(name.as_bytes());
        self.recs.push_back(Rec::Started { index, id, name });
    }

    pub(crate) fn delta(&mut self, index: CallIndex, fragment: &[u8]) {
        if fragment.is_empty() {
            return;
        }
        let end = self.arena.len();
        if let Some(Rec::Delta {
            index: i,
            fragment: span,
        }) = self.recs.back_mut()
        {
            if *i == index && span.end == end {
                self.arena.extend_from_slice(fragment);
                span.end = self.arena.len();
                return;
            }
        }
        let fragment = self.put(fragment);
        self.recs.push_back(Rec::Delta { index, fragment });
    }

    pub(crate) fn finished(
        &mut self,
        index: CallIndex,
        id: &str,
        name: &str,
        arguments: &[u8],
        repairs: Repairs,
        validation: &str,
    ) {
        let id = self.put(id.as_bytes());
        let name = self.put(name.as_bytes());
        let arguments = self.put(arguments);
        let validation = self.put(validation.as_bytes());
        self.recs.push_back(Rec::Finished {
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
        self.recs.push_back(Rec::NotReleased {
            index,
            name,
            reason,
            feedback,
            completed,
            repairs,
        });
    }

    pub(crate) fn end(&mut self, stop: StopReason, truncated: bool) {
        self.recs.push_back(Rec::End { stop, truncated });
    }

    pub(crate) fn next(&mut self) -> Option<Event<'_>> {
        let rec = self.recs.pop_front()?;
        let a = &self.arena;
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
                fragment: text(&a[fragment]),
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
                arguments: text(&a[arguments]),
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
