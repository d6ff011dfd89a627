//! The transform: model text in, events out. The parser plugs in here.

use serde_json::Value;
use std::sync::Arc;
use toolsift::Config;
use toolsift::{OwnedEvent, StopReason};

/// Turns the model's text, as it streams, into [`OwnedEvent`]s.
///
/// One transform serves one response. The proxy calls [`push`](Transform::push) with each
/// piece of `content` from the upstream, [`push_reasoning`](Transform::push_reasoning)
/// with each piece of upstream `reasoning_content`, and [`finish`](Transform::finish)
/// once, which must end with [`OwnedEvent::End`].
pub trait Transform: Send {
    /// Feed the next piece of model text; append the events it completes to `out`.
    fn push(&mut self, text: &[u8], out: &mut Vec<OwnedEvent>);

    /// Feed reasoning text the upstream already separated. By default it passes through
    /// as [`OwnedEvent::Reasoning`].
    fn push_reasoning(&mut self, text: &str, out: &mut Vec<OwnedEvent>) {
        if !text.is_empty() {
            out.push(OwnedEvent::Reasoning(text.to_owned()));
        }
    }

    /// The stream ended; append the last events, ending with [`OwnedEvent::End`].
    fn finish(&mut self, stop: StopReason, out: &mut Vec<OwnedEvent>);

    /// The dialect the transform parses, for the request log (`None`: not a parser).
    fn dialect(&self) -> Option<String> {
        None
    }

    /// What the transform saw that a client never does: markup it stripped from the
    /// content, call openers left in reasoning. By default none.
    fn anomalies(&self) -> Anomalies {
        Anomalies::default()
    }

    /// The configuration that checks and repairs the tool calls the upstream sent already
    /// parsed (`tool_calls`): its tools, policies, limits and id prefix are used. By
    /// default: no schemas, the default policies.
    fn call_config(&self) -> Config {
        Config::default()
    }
}

/// Counts of what a transform kept from the client (for `/metrics`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Anomalies {
    /// Markers stripped from content or reasoning (stray closers, end-of-turn tokens,
    /// other dialects' special tokens).
    pub markup_stripped: u64,
    /// Call openers written inside reasoning, left there (drafts, not executed).
    pub calls_in_reasoning: u64,
}

impl std::ops::AddAssign for Anomalies {
    fn add_assign(&mut self, other: Anomalies) {
        self.markup_stripped += other.markup_stripped;
        self.calls_in_reasoning += other.calls_in_reasoning;
    }
}

/// Builds a [`Transform`] for each request, from the request's JSON body (its `tools`,
/// `model`, ...).
pub type MakeTransform = Arc<dyn Fn(&Value) -> Box<dyn Transform> + Send + Sync>;

/// The identity transform: all text becomes [`OwnedEvent::Text`]; no calls.
#[derive(Debug, Default)]
pub struct Passthrough {
    /// Bytes of a UTF-8 character split across pushes.
    partial: Vec<u8>,
}

impl Passthrough {
    /// A new passthrough.
    pub fn new() -> Passthrough {
        Passthrough::default()
    }
}

impl Transform for Passthrough {
    fn push(&mut self, text: &[u8], out: &mut Vec<OwnedEvent>) {
        self.partial.extend_from_slice(text);
        let valid = match std::str::from_utf8(&self.partial) {
            Ok(_) => self.partial.len(),
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => self.partial.len(),
        };
        let rest = self.partial.split_off(valid);
        let text = std::mem::replace(&mut self.partial, rest);
        if !text.is_empty() {
            out.push(OwnedEvent::Text(
                String::from_utf8_lossy(&text).into_owned(),
            ));
        }
    }

    fn finish(&mut self, stop: StopReason, out: &mut Vec<OwnedEvent>) {
        if !self.partial.is_empty() {
            let text = std::mem::take(&mut self.partial);
            out.push(OwnedEvent::Text(
                String::from_utf8_lossy(&text).into_owned(),
            ));
        }
        out.push(OwnedEvent::End {
            stop,
            truncated: false,
        });
    }
}
