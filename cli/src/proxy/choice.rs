//! One choice of a response, whatever the surface: the upstream's text through the
//! transform (the parser), its structured calls through [`UpstreamCalls`], merged into one
//! stream of events with one call numbering and one end.

use std::collections::HashMap;
use toolsift::{CallIndex, OwnedEvent, StopReason};

use crate::proxy::transform::Transform;
use crate::proxy::upstream_calls::UpstreamCalls;
use crate::proxy::upstream_read::ChoicePiece;

/// Where a call came from: the text, or the upstream's `tool_calls`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
enum Source {
    Text,
    Upstream,
}

/// One choice's pipeline.
pub(crate) struct Choice {
    transform: Box<dyn Transform>,
    upstream: UpstreamCalls,
    positions: HashMap<(Source, u32), CallIndex>,
    /// The upstream's finish reason, once seen.
    pub(crate) finish_reason: Option<String>,
    ended: bool,
    scratch: Vec<OwnedEvent>,
}

impl Choice {
    /// A choice parsed by `transform`.
    pub(crate) fn new(transform: Box<dyn Transform>) -> Choice {
        let upstream = UpstreamCalls::new(transform.call_config());
        Choice {
            transform,
            upstream,
            positions: HashMap::new(),
            finish_reason: None,
            ended: false,
            scratch: Vec::new(),
        }
    }

    /// The transform's dialect, for logs and metrics.
    pub(crate) fn dialect(&self) -> Option<String> {
        self.transform.dialect()
    }

    /// What the transform kept from the client.
    pub(crate) fn anomalies(&self) -> crate::proxy::transform::Anomalies {
        self.transform.anomalies()
    }

    /// How many structured calls the upstream sent.
    pub(crate) fn upstream_calls(&self) -> usize {
        self.upstream.len()
    }

    /// The upstream's finish reason as a stop reason (`None` before it came).
    pub(crate) fn stop(&self) -> Option<StopReason> {
        self.finish_reason
            .as_deref()
            .map(toolsift::sse::stop_reason)
    }

    /// Take one piece of the upstream's choice; append the events it completes.
    pub(crate) fn push(&mut self, piece: &ChoicePiece, out: &mut Vec<OwnedEvent>) {
        if self.ended {
            return;
        }
        if let Some(reasoning) = &piece.reasoning {
            self.transform.push_reasoning(reasoning, &mut self.scratch);
        }
        if let Some(content) = &piece.content {
            self.transform.push(content.as_bytes(), &mut self.scratch);
        }
        self.flush(Source::Text, out);
        for call in &piece.calls {
            self.upstream.push(call, &mut self.scratch);
        }
        self.flush(Source::Upstream, out);
        if piece.finish_reason.is_some() {
            self.finish_reason.clone_from(&piece.finish_reason);
        }
    }

    /// End the choice with `stop`: the last events, ending with one
    /// [`OwnedEvent::End`].
    pub(crate) fn finish(&mut self, stop: StopReason, out: &mut Vec<OwnedEvent>) {
        if self.ended {
            return;
        }
        self.ended = true;
        self.transform.finish(stop, &mut self.scratch);
        let mut truncated = false;
        if let Some(pos) = self
            .scratch
            .iter()
            .position(|e| matches!(e, OwnedEvent::End { .. }))
        {
            if let OwnedEvent::End { truncated: t, .. } = self.scratch.remove(pos) {
                truncated = t;
            }
        }
        self.flush(Source::Text, out);
        self.upstream.finish(stop, &mut self.scratch);
        truncated |= self.scratch.iter().any(|e| {
            matches!(e, OwnedEvent::CallNotReleased { reason, .. }
                if *reason == toolsift::NotReleasedReason::Truncated)
        });
        self.flush(Source::Upstream, out);
        out.push(OwnedEvent::End { stop, truncated });
    }

    /// Move the scratch events to `out`, numbering calls in order of appearance.
    fn flush(&mut self, source: Source, out: &mut Vec<OwnedEvent>) {
        for mut event in self.scratch.drain(..) {
            let index = match &mut event {
                OwnedEvent::CallStarted { index, .. }
                | OwnedEvent::ArgsDelta { index, .. }
                | OwnedEvent::CallFinished { index, .. }
                | OwnedEvent::CallNotReleased { index, .. } => Some(index),
                _ => None,
            };
            if let Some(index) = index {
                let next = CallIndex(self.positions.len() as u32);
                *index = *self.positions.entry((source, index.0)).or_insert(next);
            }
            out.push(event);
        }
    }
}
