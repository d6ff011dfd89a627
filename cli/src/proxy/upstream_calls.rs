//! Tool calls the upstream parsed itself (`tool_calls` from vLLM, llama.cpp `--jinja`,
//! ollama, ...): their arguments go through the same engine as calls found in text, with
//! the request's schemas, so they come out strict, repaired with named repairs, or not
//! released with a reason; never dropped.
//!
//! Each upstream call is written to its own [`Parser`] as one call of a dialect whose
//! arguments end at a special-token closer (DeepSeek V3.1's
//! `<｜tool▁call▁begin｜>NAME<｜tool▁sep｜>ARGS<｜tool▁call▁end｜>`), so that arguments cut
//! short stay cut short: the engine sees where the upstream said the call ended.

use serde_json::Value;
use toolsift::{CallIndex, Config, Dialect, NotReleasedReason, OwnedEvent, Parser, StopReason};

use crate::proxy::upstream_read::CallPiece;

const OPENER: &str = "<｜tool▁call▁begin｜>";
const SEPARATOR: &str = "<｜tool▁sep｜>";
const CLOSER: &str = "<｜tool▁call▁end｜>";

struct UpstreamCall {
    upstream_index: u32,
    id: Option<String>,
    name: String,
    /// Started once the name is settled (the first arguments fragment, or the end).
    parser: Option<Parser>,
    /// The arguments so far, to tell complete ones from cut ones when the stream is cut.
    arguments: String,
}

/// The upstream's structured calls of one choice. Events carry `CallIndex(k)` for the
/// `k`-th upstream call of the choice (the caller maps them to response positions).
pub(crate) struct UpstreamCalls {
    config: Config,
    calls: Vec<UpstreamCall>,
    /// The upstream index of the last call refused for being one too many.
    dropped: Option<u32>,
}

impl UpstreamCalls {
    /// Calls checked against `config` (its tools, unknown-tool and invalid policies,
    /// limits, id prefix); its dialect and reasoning settings are not used.
    pub(crate) fn new(mut config: Config) -> UpstreamCalls {
        config.dialect = Dialect::DeepSeekV3;
        config.reasoning_open = false;
        UpstreamCalls {
            config,
            calls: Vec::new(),
            dropped: None,
        }
    }

    /// How many upstream calls were seen.
    pub(crate) fn len(&self) -> usize {
        self.calls.len()
    }

    /// Take one piece of a call; append the events it completes to `out`.
    pub(crate) fn push(&mut self, piece: &CallPiece, out: &mut Vec<OwnedEvent>) {
        // Calls come one after another: the last one is almost always the one.
        let k = match self
            .calls
            .iter()
            .rposition(|c| c.upstream_index == piece.index)
        {
            Some(k) => k,
            None if self.calls.len() >= self.config.limits.max_calls => {
                if self.dropped != Some(piece.index) {
                    self.dropped = Some(piece.index);
                    out.push(OwnedEvent::CallNotReleased {
                        index: CallIndex(self.config.limits.max_calls as u32),
                        name: piece.name.clone(),
                        reason: NotReleasedReason::LimitExceeded,
                        feedback: format!(
                            "more than {} tool calls in one response",
                            self.config.limits.max_calls
                        ),
                        completed: "{}".into(),
                        repairs: toolsift::Repairs::NONE,
                    });
                }
                return;
            }
            None => {
                self.calls.push(UpstreamCall {
                    upstream_index: piece.index,
                    id: None,
                    name: String::new(),
                    parser: None,
                    arguments: String::new(),
                });
                self.calls.len() - 1
            }
        };
        let limits = &self.config.limits;
        let call = &mut self.calls[k];
        if call.id.is_none() {
            call.id.clone_from(&piece.id);
        }
        if let Some(name) = &piece.name {
            // Some servers repeat the whole name on every delta; others send it in parts.
            if call.parser.is_none() && *name != call.name {
                keep(&mut call.name, name, limits.max_name_bytes + 1);
            }
        }
        let Some(fragment) = piece.arguments.as_deref().filter(|a| !a.is_empty()) else {
            return;
        };
        if call.name.is_empty() {
            // Arguments before any name: keep them until the name comes (or the end).
            keep(&mut call.arguments, fragment, limits.max_args_bytes + 1);
            return;
        }
        if call.parser.is_none() {
            let pending = std::mem::take(&mut call.arguments);
            start(&self.config, k, call);
            write(call, &pending, limits.max_args_bytes + 1);
        }
        write(call, fragment, limits.max_args_bytes + 1);
        drain(k, call, out);
    }

    /// The stream ended with `stop`: close every call the upstream finished, and append
    /// the remaining events (not [`OwnedEvent::End`]). A cut stream (`length`,
    /// disconnected) leaves its last call open unless its arguments are already complete
    /// JSON, so the engine reports it truncated rather than completing it; so does any
    /// call whose arguments stop inside a string.
    pub(crate) fn finish(&mut self, stop: StopReason, out: &mut Vec<OwnedEvent>) {
        let last = self.calls.len().saturating_sub(1);
        for k in 0..self.calls.len() {
            let call = &mut self.calls[k];
            if call.name.is_empty() {
                out.push(OwnedEvent::CallNotReleased {
                    index: CallIndex(k as u32),
                    name: None,
                    reason: NotReleasedReason::Invalid,
                    feedback: "the upstream sent a tool call without a name".into(),
                    completed: "{}".into(),
                    repairs: toolsift::Repairs::NONE,
                });
                continue;
            }
            if call.parser.is_none() {
                let pending = std::mem::take(&mut call.arguments);
                start(&self.config, k, call);
                write(call, &pending, self.config.limits.max_args_bytes + 1);
            }
            // Arguments that stop inside a string were cut, whatever the upstream said:
            // the closer is ours, and a string it ended would read as one the model
            // left open (invalid), not as the cut it is.
            let cut = serde_json::from_str::<Value>(&call.arguments).is_err()
                && (stop.is_cut() && k == last || ends_in_string(&call.arguments));
            let parser = call.parser.as_mut().expect("started");
            if !cut {
                parser.push(CLOSER.as_bytes());
            }
            parser.finish(match cut {
                false => StopReason::Stop,
                true if stop.is_cut() => stop,
                true => StopReason::Length,
            });
            drain(k, call, out);
        }
    }
}

/// Whether JSON text `args` ends inside a double-quoted string.
fn ends_in_string(args: &str) -> bool {
    let mut in_string = false;
    let mut escaped = false;
    for b in args.bytes() {
        match (in_string, escaped, b) {
            (true, true, _) => escaped = false,
            (true, false, b'\\') => escaped = true,
            (_, false, b'"') => in_string = !in_string,
            _ => {}
        }
    }
    in_string
}

fn start(config: &Config, k: usize, call: &mut UpstreamCall) {
    let mut config = config.clone();
    config.id_prefix = format!("{}u{k}_", config.id_prefix);
    let mut parser = Parser::with_config(config);
    parser.push(OPENER.as_bytes());
    parser.push(call.name.as_bytes());
    parser.push(SEPARATOR.as_bytes());
    call.parser = Some(parser);
}

/// Append `add` to `text`, keeping at most `cap` bytes (whole characters): past the
/// configured limits the engine has rejected the call already, and memory stays bounded.
fn keep(text: &mut String, add: &str, cap: usize) {
    let room = cap.saturating_sub(text.len());
    let mut end = room.min(add.len());
    while !add.is_char_boundary(end) {
        end -= 1;
    }
    text.push_str(&add[..end]);
}

fn write(call: &mut UpstreamCall, fragment: &str, cap: usize) {
    if fragment.is_empty() {
        return;
    }
    let before = call.arguments.len();
    keep(&mut call.arguments, fragment, cap);
    if let Some(parser) = call.parser.as_mut() {
        // The engine sees everything up to just past its own limit.
        if before < cap {
            parser.push(&fragment.as_bytes()[..call.arguments.len() - before]);
        }
    }
}

/// Move the parser's call events to `out`, renumbered and with the upstream's id.
fn drain(k: usize, call: &mut UpstreamCall, out: &mut Vec<OwnedEvent>) {
    let Some(parser) = call.parser.as_mut() else {
        return;
    };
    let index = CallIndex(k as u32);
    while let Some(event) = parser.next_event() {
        let event = match event.into_owned() {
            OwnedEvent::CallStarted { id, name, .. } => OwnedEvent::CallStarted {
                index,
                id: call.id.clone().unwrap_or(id),
                name,
            },
            OwnedEvent::ArgsDelta { fragment, .. } => OwnedEvent::ArgsDelta { index, fragment },
            OwnedEvent::CallFinished {
                id,
                name,
                arguments,
                repairs,
                validation,
                ..
            } => OwnedEvent::CallFinished {
                index,
                id: call.id.clone().unwrap_or(id),
                name,
                arguments,
                repairs,
                validation,
            },
            OwnedEvent::CallNotReleased {
                name,
                reason,
                feedback,
                completed,
                repairs,
                ..
            } => OwnedEvent::CallNotReleased {
                index,
                name,
                reason,
                feedback,
                completed,
                repairs,
            },
            // Only the call is ours: no text, reasoning or end comes out of this parser
            // that the client should see.
            _ => continue,
        };
        out.push(event);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use toolsift::Tools;

    fn config() -> Config {
        let tools = serde_json::json!([{"type": "function", "function": {"name": "get_weather", "parameters": {
            "type": "object", "properties": {"city": {"type": "string"}, "days": {"type": "integer"}}, "required": ["city"]}}}]);
        Config::new(Dialect::Auto)
            .tools(Tools::from_value(&tools).unwrap())
            .id_prefix("call_t_")
    }

    #[test]
    fn arguments_that_stop_inside_a_string_are_told() {
        assert!(ends_in_string(r#"{"city": "Ber"#));
        assert!(ends_in_string(r#"{"q": "a \" b"#));
        assert!(ends_in_string(r#"{"q": "a \\"#));
        assert!(!ends_in_string(r#"{"q": "a \\", "r": 1"#));
        assert!(!ends_in_string(r#"{"city": "Berlin", "days": 3"#));
        assert!(!ends_in_string("{'city': 'Ber"));
    }

    fn piece(index: u32, id: Option<&str>, name: Option<&str>, args: &str) -> CallPiece {
        CallPiece {
            index,
            id: id.map(str::to_owned),
            name: name.map(str::to_owned),
            arguments: Some(args.to_owned()),
        }
    }

    fn run(pieces: &[CallPiece], stop: StopReason) -> Vec<OwnedEvent> {
        let mut calls = UpstreamCalls::new(config());
        let mut out = Vec::new();
        for p in pieces {
            calls.push(p, &mut out);
        }
        calls.finish(stop, &mut out);
        out
    }

    fn finished(events: &[OwnedEvent]) -> Vec<(String, String, String, Vec<&'static str>)> {
        events
            .iter()
            .filter_map(|e| match e {
                OwnedEvent::CallFinished {
                    id,
                    name,
                    arguments,
                    repairs,
                    ..
                } => Some((
                    id.clone(),
                    name.clone(),
                    arguments.clone(),
                    repairs.names().collect(),
                )),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn valid_arguments_pass_byte_identical_with_the_upstream_id() {
        let events = run(
            &[
                piece(0, Some("abc"), Some("get_weather"), ""),
                piece(0, None, None, "{\"city\": "),
                piece(0, None, None, "\"Paris\"}"),
            ],
            StopReason::Stop,
        );
        assert_eq!(
            finished(&events),
            [(
                "abc".into(),
                "get_weather".into(),
                "{\"city\": \"Paris\"}".into(),
                vec![]
            )]
        );
        let deltas: String = events
            .iter()
            .filter_map(|e| match e {
                OwnedEvent::ArgsDelta { fragment, .. } => Some(fragment.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(deltas, "{\"city\": \"Paris\"}");
    }

    #[test]
    fn broken_arguments_are_repaired_and_named() {
        let events = run(
            &[piece(
                0,
                None,
                Some("get_weather"),
                "{'city': 'Paris', 'days': '3',}",
            )],
            StopReason::Stop,
        );
        let calls = finished(&events);
        assert_eq!(calls[0].2, "{\"city\": \"Paris\", \"days\": 3}");
        assert!(calls[0].3.contains(&"single_quoted_string"));
        assert!(calls[0].0.starts_with("call_t_u0_"), "{}", calls[0].0);
    }

    #[test]
    fn a_cut_call_is_not_released_and_a_complete_one_before_it_is() {
        let events = run(
            &[
                piece(0, Some("a"), Some("get_weather"), "{\"city\": \"Oslo\"}"),
                piece(1, Some("b"), Some("get_weather"), "{\"city\": \"Par"),
            ],
            StopReason::Length,
        );
        assert_eq!(finished(&events).len(), 1);
        assert!(events.iter().any(|e| matches!(
            e,
            OwnedEvent::CallNotReleased {
                index: CallIndex(1),
                reason: NotReleasedReason::Truncated,
                ..
            }
        )));
    }

    #[test]
    fn a_name_repeated_on_every_delta_or_sent_in_parts_is_one_name() {
        for pieces in [
            [
                piece(0, None, Some("get_weather"), ""),
                piece(0, None, Some("get_weather"), "{\"city\": \"Oslo\"}"),
            ],
            [
                piece(0, None, Some("get_"), ""),
                piece(0, None, Some("weather"), "{\"city\": \"Oslo\"}"),
            ],
        ] {
            let events = run(&pieces, StopReason::Stop);
            assert_eq!(finished(&events)[0].1, "get_weather");
        }
    }

    #[test]
    fn limits_hold_for_upstream_calls_too() {
        let mut config = config();
        config.limits.max_args_bytes = 16;
        config.limits.max_calls = 1;
        let mut calls = UpstreamCalls::new(config);
        let mut out = Vec::new();
        let long = format!("{{\"city\": \"{}\"}}", "x".repeat(100));
        for p in [
            piece(0, None, Some("get_weather"), &long),
            piece(0, None, None, &long),
            piece(1, None, Some("get_weather"), "{}"),
            piece(1, None, None, "{}"),
        ] {
            calls.push(&p, &mut out);
        }
        calls.finish(StopReason::Stop, &mut out);
        assert!(calls.calls[0].arguments.len() <= 17);
        let reasons: Vec<_> = out
            .iter()
            .filter_map(|e| match e {
                OwnedEvent::CallNotReleased { reason, .. } => Some(*reason),
                _ => None,
            })
            .collect();
        assert_eq!(
            reasons,
            [
                NotReleasedReason::LimitExceeded,
                NotReleasedReason::LimitExceeded
            ]
        );
        assert!(finished(&out).is_empty());
    }

    #[test]
    fn unknown_tools_and_nameless_calls_are_reported() {
        let events = run(
            &[
                piece(0, None, Some("get_wether_typo_x"), "{}"),
                piece(1, None, None, "{}"),
            ],
            StopReason::Stop,
        );
        let reasons: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                OwnedEvent::CallNotReleased { index, reason, .. } => Some((index.0, *reason)),
                _ => None,
            })
            .collect();
        assert_eq!(
            reasons,
            [
                (0, NotReleasedReason::UnknownTool),
                (1, NotReleasedReason::Invalid)
            ]
        );
    }
}
