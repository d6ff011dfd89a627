//! Shared machinery of the fuzz targets: a configuration and a chunking drawn from a few
//! header bytes, a runner, and the invariant oracle (the same checks as
//! `tests/support/mod.rs::check`, plus the truncation rules, which need to know which
//! events `finish` produced; the one a call cut off is never released complete is
//! `tests/support/cut_off.rs`, which the tests run too).
#![allow(dead_code)]

#[path = "../../../tests/support/cut_off.rs"]
mod cut_off;

use arbitrary::{Arbitrary, Unstructured};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use toolsift::{
    Config, Dialect, InReasoning, Invalid, Limits, NotReleasedReason, OwnedEvent, Parser,
    StopReason, Tools, UnknownTool,
};

/// Split `data` into a header of `len` bytes, read as `T`, and the raw input after it.
///
/// The raw input is taken as it is rather than through `Vec<u8>: Arbitrary` (which
/// spends a byte per element on "more?"), so seeds are header bytes plus real text.
pub fn header<'a, T: for<'h> Arbitrary<'h>>(data: &'a [u8], len: usize) -> (T, &'a [u8]) {
    let split = len.min(data.len());
    let mut u = Unstructured::new(&data[..split]);
    let head = T::arbitrary(&mut u).expect("fixed-size headers always decode");
    (head, &data[split..])
}

/// Tool definitions used when a header asks for tools: string, integer, boolean and
/// array parameters, so schema typing and coercion paths are reached.
pub const TOOLS: &str = r#"[
 {"type":"function","function":{"name":"write_file","parameters":{"type":"object",
   "properties":{"path":{"type":"string"},"content":{"type":"string"}},"required":["path","content"]}}},
 {"type":"function","function":{"name":"read_file","parameters":{"type":"object",
   "properties":{"path":{"type":"string"},"limit":{"type":"integer"},"recursive":{"type":"boolean"},
   "tags":{"type":"array","items":{"type":"string"}}},"required":["path"]}}}
]"#;

/// How a run is configured, drawn from two header bytes.
#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct Setup {
    /// Selects `auto` or one of `Dialect::ALL`.
    pub dialect: u8,
    /// Bit 0 reasoning_open, 1 calls in reasoning extracted, 2 tight limits, 3 tools,
    /// 4 unknown tools forwarded, 5 invalid calls held back, 6-7 the stop reason.
    pub flags: u8,
}

impl Setup {
    /// Every dialect a run can use: `auto` first, then `Dialect::ALL`.
    pub fn dialects() -> Vec<Dialect> {
        std::iter::once(Dialect::Auto)
            .chain(Dialect::ALL.iter().copied())
            .collect()
    }

    /// The parser configuration.
    pub fn config(&self) -> Config {
        let all = Setup::dialects();
        let mut config = Config::new(all[self.dialect as usize % all.len()]);
        let bit = |n: u8| self.flags & (1 << n) != 0;
        config = config.reasoning_open(bit(0));
        if bit(1) {
            config = config.in_reasoning(InReasoning::Extract);
        }
        if bit(2) {
            config = config.limits(Limits {
                max_args_bytes: 96,
                max_depth: 4,
                max_held_bytes: 24,
                lookahead: 12,
                max_calls: 2,
                max_name_bytes: 12,
            });
        }
        if bit(3) {
            config.tools = Arc::new(Tools::from_json(TOOLS.as_bytes()).expect("tools parse"));
        }
        if bit(4) {
            config = config.unknown_tool(UnknownTool::Forward);
        }
        if bit(5) {
            config = config.invalid(Invalid::HoldBack);
        }
        config
    }

    /// The stop reason given to `finish`.
    pub fn stop(&self) -> StopReason {
        match self.flags >> 6 {
            1 => StopReason::Length,
            2 => StopReason::Disconnected,
            _ => StopReason::Stop,
        }
    }
}

/// Chunk sizes, used in turn: 0 pushes an empty chunk, n pushes n bytes (at most 64).
#[derive(Arbitrary, Clone, Copy, Debug)]
pub struct Chunking(pub [u8; 6]);

impl Chunking {
    /// The chunk lengths covering `len` bytes (empty chunks included).
    pub fn lengths(&self, len: usize) -> Vec<usize> {
        let mut out = Vec::new();
        if self.0.iter().all(|&l| l % 65 == 0) {
            out.push(len);
            return out;
        }
        let mut at = 0;
        let mut i = 0;
        while at < len {
            let n = (self.0[i % self.0.len()] as usize % 65).min(len - at);
            out.push(n);
            at += n;
            i += 1;
        }
        out
    }
}

/// A run's events and where `finish` began producing them.
pub struct Run {
    /// Every event, in order.
    pub events: Vec<OwnedEvent>,
    /// Index of the first event produced by `finish`.
    pub finish_at: usize,
    /// The dialect in force at the end: the configured one, or the one `auto` locked onto.
    pub dialect: Dialect,
    /// The output ends (blanks aside) with one of the dialect's markers or body closers:
    /// the model wrote the end of what it was writing, so a call closed by it at
    /// `finish` was not cut.
    pub ends_with_marker: bool,
}

/// Push `raw` in the chunks of `chunking`, finish with `stop`, collect the events.
pub fn run(p: &mut Parser, raw: &[u8], chunking: &Chunking, stop: StopReason) -> Run {
    let mut events = Vec::new();
    let mut at = 0;
    // The API: `push` (0, 1), `feed` (2), `feed` with every other `Feed` dropped unread
    // (3; its events come after the next chunk's).
    let api = chunking.0[5] >> 6;
    for (i, n) in chunking.lengths(raw.len()).into_iter().enumerate() {
        let chunk = &raw[at..at + n];
        at += n;
        if api < 2 {
            p.push(chunk);
            while let Some(ev) = p.next_event() {
                events.push(ev.into_owned());
            }
            continue;
        }
        let mut fed = p.feed(chunk);
        if api == 3 && i % 2 == 0 {
            continue;
        }
        while let Some(ev) = fed.next_event() {
            events.push(ev.into_owned());
        }
    }
    // A dropped `Feed`'s events are still queued: they came before `finish`.
    while let Some(ev) = p.next_event() {
        events.push(ev.into_owned());
    }
    let finish_at = events.len();
    p.finish(stop);
    while let Some(ev) = p.next_event() {
        events.push(ev.into_owned());
    }
    let ends_with_marker = cut_off::ends_with_marker(p.dialect(), raw);
    Run {
        events,
        finish_at,
        ends_with_marker,
        dialect: p.dialect(),
    }
}

/// Merge adjacent text, reasoning, and deltas of the same call (chunking-independent form).
pub fn merge(events: &[OwnedEvent]) -> Vec<OwnedEvent> {
    let mut out: Vec<OwnedEvent> = Vec::new();
    for ev in events {
        match (out.last_mut(), ev) {
            (Some(OwnedEvent::Text(a)), OwnedEvent::Text(b)) => a.push_str(b),
            (Some(OwnedEvent::Reasoning(a)), OwnedEvent::Reasoning(b)) => a.push_str(b),
            (
                Some(OwnedEvent::ArgsDelta {
                    index: i,
                    fragment: a,
                }),
                OwnedEvent::ArgsDelta {
                    index: j,
                    fragment: b,
                },
            ) if i == j => a.push_str(b),
            _ => out.push(ev.clone()),
        }
    }
    out.retain(|e| !matches!(e, OwnedEvent::Text(t) | OwnedEvent::Reasoning(t) if t.is_empty()));
    out
}

/// Strict JSON as the engine means it: the grammar, read by serde_json's raw value
/// (`1e400` is valid and kept as written). Returns whether it is an object.
fn strict(text: &str) -> Result<bool, String> {
    serde_json::from_str::<&serde_json::value::RawValue>(text)
        .map(|raw| raw.get().trim_start().starts_with('{'))
        .map_err(|e| format!("{e}: {text:?}"))
}

/// Every invariant that holds for one run; `Err` names the broken one.
pub fn check(dialect: Dialect, run: &Run) -> Result<(), String> {
    let events = &run.events;
    // The markers of the dialect in force: an explicit one, the one `auto` locked onto,
    // or every dialect's while `auto` has not locked. A dialect reads other dialects'
    // markers as text by design (a Hermes model quoting Gemma's `<|tool_call>` is writing
    // about it), and text before the lock cannot hold any marker: each one acts.
    debug_assert!(dialect == Dialect::Auto || dialect == run.dialect);
    let markers: Vec<&[u8]> = run.dialect.markers();
    let mut deltas: BTreeMap<u32, String> = BTreeMap::new();
    let mut started: BTreeSet<u32> = BTreeSet::new();
    let mut ended: BTreeSet<u32> = BTreeSet::new();
    let mut saw_end = false;
    let mut any_truncated = false;
    for (at, ev) in events.iter().enumerate() {
        if saw_end {
            return Err("event after End".into());
        }
        let by_finish = at >= run.finish_at;
        match ev {
            OwnedEvent::CallStarted { index, .. } => {
                if !started.insert(index.0) {
                    return Err(format!("call {} started twice", index.0));
                }
            }
            OwnedEvent::ArgsDelta { index, fragment } => {
                if !started.contains(&index.0) || ended.contains(&index.0) {
                    return Err(format!(
                        "delta for call {} outside its start and end",
                        index.0
                    ));
                }
                deltas.entry(index.0).or_default().push_str(fragment);
            }
            OwnedEvent::CallFinished {
                index,
                arguments,
                repairs,
                ..
            } => {
                let object = strict(arguments)
                    .map_err(|e| format!("released arguments not strict JSON: {e}"))?;
                if !object {
                    return Err(format!("released arguments not an object: {arguments}"));
                }
                if !started.contains(&index.0) {
                    return Err(format!("call {} finished without starting", index.0));
                }
                let sent = deltas.get(&index.0).cloned().unwrap_or_default();
                if &sent != arguments {
                    return Err(format!("deltas {sent:?} != final arguments {arguments:?}"));
                }
                let again = toolsift::repair(arguments.as_bytes()).map_err(|e| e.to_string())?;
                if &again.json != arguments || !again.repairs.is_empty() {
                    return Err(format!(
                        "repairing released arguments changed them: {arguments:?}"
                    ));
                }
                // A call whose JSON the end of stream cut off is never released complete
                // (closers a call's closing marker supplied are a repair, not a cut).
                if by_finish
                    && cut_off::released_cut_off(
                        index.0,
                        *repairs,
                        &events[at + 1..],
                        run.ends_with_marker,
                    )
                {
                    return Err(format!(
                        "call {} cut off by the end of stream released as complete: {arguments:?}",
                        index.0
                    ));
                }
                if !ended.insert(index.0) {
                    return Err(format!("call {} ended twice", index.0));
                }
            }
            OwnedEvent::CallNotReleased {
                index,
                completed,
                reason,
                ..
            } => {
                strict(completed).map_err(|e| format!("completed members not strict JSON: {e}"))?;
                if let Some(sent) = deltas.get(&index.0) {
                    if !sent.starts_with(completed.trim_end_matches('}')) && completed != "{}" {
                        return Err(format!(
                            "completed members {completed:?} are not what was sent {sent:?}"
                        ));
                    }
                }
                if *reason == NotReleasedReason::Truncated {
                    if !by_finish {
                        return Err(format!(
                            "call {} truncated before the end of stream",
                            index.0
                        ));
                    }
                    any_truncated = true;
                }
                if !ended.insert(index.0) {
                    return Err(format!("call {} ended twice", index.0));
                }
            }
            OwnedEvent::End { truncated, .. } => {
                saw_end = true;
                if *truncated != any_truncated {
                    return Err(format!(
                        "End says truncated={truncated} but truncated calls reported: {any_truncated}"
                    ));
                }
            }
            _ => {}
        }
    }
    if !saw_end {
        return Err("no End event".into());
    }
    if let Some(s) = started.difference(&ended).next() {
        return Err(format!("call {s} started but never ended"));
    }
    for ev in merge(events) {
        if let OwnedEvent::Text(t) = ev {
            for m in &markers {
                let m = String::from_utf8_lossy(m);
                if m.len() > 1 && t.contains(m.as_ref()) {
                    return Err(format!("marker {m:?} in text {t:?}"));
                }
            }
        }
    }
    Ok(())
}
