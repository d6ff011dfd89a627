//! Shared test machinery: run a parser under any chunking, merge events, and check
//! every invariant of DEVELOPERS.md on the result.
#![allow(dead_code)]

pub mod cut_off;
pub mod expected;

use serde_json::{json, Value};
use toolsift::{Config, Dialect, OwnedEvent, Parser, StopReason, Tools};

/// Push `raw` split at `cuts` (sorted offsets), finish with `stop`, collect events.
pub fn run_cuts(config: &Config, raw: &[u8], cuts: &[usize], stop: StopReason) -> Vec<OwnedEvent> {
    let mut p = Parser::with_config(config.clone());
    run_with(&mut p, raw, cuts, stop)
}

/// Same, reusing a parser (after `reset`).
pub fn run_with(p: &mut Parser, raw: &[u8], cuts: &[usize], stop: StopReason) -> Vec<OwnedEvent> {
    run_api(p, raw, cuts, stop, Api::Push)
}

/// How a run hands chunks to the parser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Api {
    /// `push`, then `next_event` until `None`.
    Push,
    /// `feed`, then the `Feed`'s events until `None`.
    Feed,
    /// `feed`, but every other `Feed` dropped unread (its events read after the next).
    FeedDropped,
}

/// Like [`run_with`], through `api`.
pub fn run_api(
    p: &mut Parser,
    raw: &[u8],
    cuts: &[usize],
    stop: StopReason,
    api: Api,
) -> Vec<OwnedEvent> {
    run_marked(p, raw, cuts, stop, api).0
}

/// Like [`run_api`], with the index of the first event `finish` produced.
pub fn run_marked(
    p: &mut Parser,
    raw: &[u8],
    cuts: &[usize],
    stop: StopReason,
    api: Api,
) -> (Vec<OwnedEvent>, usize) {
    let mut events = Vec::new();
    let mut at = 0;
    let counted = p.stats().bytes;
    for (i, &cut) in cuts.iter().chain(std::iter::once(&raw.len())).enumerate() {
        let cut = cut.clamp(at, raw.len());
        let chunk = &raw[at..cut];
        at = cut;
        if api == Api::Push {
            p.push(chunk);
            while let Some(ev) = p.next_event() {
                events.push(ev.into_owned());
            }
            continue;
        }
        let mut fed = p.feed(chunk);
        if api == Api::FeedDropped && i % 2 == 0 {
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
    // Every byte given is counted once, whichever path took it.
    assert_eq!(
        p.stats().bytes - counted,
        raw.len() as u64,
        "{api:?}: Stats::bytes"
    );
    let finish_at = events.len();
    p.finish(stop);
    while let Some(ev) = p.next_event() {
        events.push(ev.into_owned());
    }
    (events, finish_at)
}

/// `Err` when a call the end of the stream cut off was released as complete by `finish`
/// (its events from `finish_at` on): [`cut_off::released_cut_off`].
pub fn cut_off_not_released(
    dialect: Dialect,
    raw: &[u8],
    events: &[OwnedEvent],
    finish_at: usize,
) -> Result<(), String> {
    let ends_with_marker = cut_off::ends_with_marker(dialect, raw);
    for (at, ev) in events.iter().enumerate().skip(finish_at) {
        if let OwnedEvent::CallFinished {
            index,
            arguments,
            repairs,
            ..
        } = ev
        {
            if cut_off::released_cut_off(index.0, *repairs, &events[at + 1..], ends_with_marker) {
                return Err(format!(
                    "call {} cut off by the end of stream released as complete: {arguments:?}",
                    index.0
                ));
            }
        }
    }
    Ok(())
}

/// A small deterministic generator (xorshift).
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Cut points of `len` bytes in random chunks of 1..=max bytes.
pub fn random_cuts(len: usize, seed: u64, max: usize) -> Vec<usize> {
    let mut rng = Rng(seed.wrapping_mul(2654435761) | 1);
    let mut cuts = Vec::new();
    let mut at = 0;
    while at < len {
        at += 1 + rng.below(max);
        if at < len {
            cuts.push(at);
        }
    }
    cuts
}

/// Merge adjacent text, reasoning, and deltas of the same call.
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

/// The OpenAI-style message of a response (the CLI's shape).
pub fn message(events: &[OwnedEvent]) -> Value {
    let mut content = String::new();
    let mut reasoning = String::new();
    let mut calls = Vec::new();
    let mut incomplete = Vec::new();
    let mut finish = "stop";
    for ev in events {
        match ev {
            OwnedEvent::Text(t) => content.push_str(t),
            OwnedEvent::Reasoning(t) => reasoning.push_str(t),
            OwnedEvent::CallFinished { id, name, arguments, repairs, validation, .. } => {
                let mut c = json!({"id": id, "name": name, "arguments": arguments,
                                   "repairs": repairs.names().collect::<Vec<_>>()});
                if let Some(validation) = validation {
                    c["validation"] = json!(validation);
                }
                calls.push(c)
            }
            OwnedEvent::CallNotReleased { name, reason, feedback, completed, .. } => incomplete.push(
                json!({"name": name, "reason": reason.as_str(), "arguments": completed, "feedback": feedback}),
            ),
            OwnedEvent::End { stop, .. } => {
                finish = if stop.is_cut() {
                    "length"
                } else if !calls.is_empty() {
                    "tool_calls"
                } else {
                    "stop"
                }
            }
            _ => {}
        }
    }
    json!({"content": content, "reasoning": reasoning, "tool_calls": calls,
           "incomplete_calls": incomplete, "finish_reason": finish})
}

fn strict(text: &str) -> Result<Value, String> {
    serde_json::from_str::<Value>(text).map_err(|e| format!("{e}: {text:?}"))
}

/// Check the invariants that hold for any single run.
pub fn check(dialect: Dialect, events: &[OwnedEvent]) -> Result<(), String> {
    let markers = Dialect::Auto
        .markers()
        .into_iter()
        .chain(dialect.markers())
        .collect::<Vec<_>>();
    let merged = merge(events);
    let mut deltas: std::collections::BTreeMap<u32, String> = Default::default();
    let mut started: std::collections::BTreeSet<u32> = Default::default();
    let mut ended: std::collections::BTreeSet<u32> = Default::default();
    let mut saw_end = false;
    let mut unmet = 0;
    for ev in events {
        if saw_end {
            return Err("event after End".into());
        }
        match ev {
            OwnedEvent::CallStarted { index, .. } if !started.insert(index.0) => {
                return Err(format!("call {} started twice", index.0));
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
                index, arguments, ..
            } => {
                let v = strict(arguments)
                    .map_err(|e| format!("released arguments not strict JSON: {e}"))?;
                if !v.is_object() {
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
                if !ended.insert(index.0) {
                    return Err(format!("call {} ended twice", index.0));
                }
            }
            OwnedEvent::CallNotReleased {
                index, completed, ..
            } => {
                strict(completed).map_err(|e| format!("completed members not strict JSON: {e}"))?;
                if let Some(sent) = deltas.get(&index.0) {
                    if !sent.starts_with(completed.trim_end_matches('}')) && completed != "{}" {
                        return Err(format!(
                            "completed members {completed:?} are not what was sent {sent:?}"
                        ));
                    }
                }
                if !ended.insert(index.0) {
                    return Err(format!("call {} ended twice", index.0));
                }
            }
            OwnedEvent::ToolChoiceUnmet { .. } => {
                if !ended.is_empty()
                    && events
                        .iter()
                        .any(|e| matches!(e, OwnedEvent::CallFinished { .. }))
                {
                    return Err("tool_choice unmet although a call was released".into());
                }
                unmet += 1;
            }
            OwnedEvent::End { .. } => saw_end = true,
            _ => {}
        }
    }
    if unmet > 1 {
        return Err("tool_choice unmet reported twice".into());
    }
    if unmet == 1
        && !matches!(
            events.iter().rev().nth(1),
            Some(OwnedEvent::ToolChoiceUnmet { .. })
        )
    {
        return Err("tool_choice unmet not just before End".into());
    }
    if !saw_end {
        return Err("no End event".into());
    }
    for s in &started {
        if !ended.contains(s) {
            return Err(format!("call {s} started but never ended"));
        }
    }
    for ev in &merged {
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

/// The work bound of `docs/performance.md` for any input: bytes examined
/// ([`toolsift::Stats::work`]) per byte pushed, under any chunking. Small inputs pay fixed
/// costs per call (the strict re-parse, a look-ahead's replay) and raw strings whose
/// every quote the competing readings weigh are read by each reading: 21 per byte is the
/// most any fixture or regression input takes today.
pub const MAX_WORK_PER_BYTE: u64 = 24;

/// The work bound of `docs/performance.md` for long input (a 1 MiB call, every hostile
/// input): bytes examined per byte pushed.
pub const MAX_WORK_PER_BYTE_LONG: u64 = 6;

/// `Err` when `work` bytes examined for `bytes` pushed break [`MAX_WORK_PER_BYTE`].
pub fn within_work_bound(work: u64, bytes: usize) -> Result<(), String> {
    if work > MAX_WORK_PER_BYTE * bytes as u64 {
        return Err(format!(
            "{work} bytes examined for {bytes} pushed: over {MAX_WORK_PER_BYTE} per byte (docs/performance.md)"
        ));
    }
    Ok(())
}

/// Run `raw` whole, one byte at a time, at every split point (small inputs) and in
/// random chunks; check every run (the invariants and the work bound) and that all
/// runs agree once merged.
pub fn check_all_chunkings(
    config: &Config,
    raw: &[u8],
    stop: StopReason,
) -> Result<Vec<OwnedEvent>, String> {
    let mut parser = Parser::with_config(config.clone());
    let (whole, finish_at) = run_marked(&mut parser, raw, &[], stop, Api::Push);
    check(config.dialect, &whole).map_err(|e| format!("whole: {e}"))?;
    cut_off_not_released(parser.dialect(), raw, &whole, finish_at)
        .map_err(|e| format!("whole: {e}"))?;
    within_work_bound(parser.stats().work(), raw.len()).map_err(|e| format!("whole: {e}"))?;
    let want = merge(&whole);
    let mut runs: Vec<(String, Vec<usize>)> = vec![("bytes".into(), (1..raw.len()).collect())];
    if raw.len() <= 600 {
        for cut in 1..raw.len() {
            runs.push((format!("split at {cut}"), vec![cut]));
        }
    }
    for seed in 1..=6 {
        runs.push((format!("random:{seed}"), random_cuts(raw.len(), seed, 16)));
    }
    let mut runs: Vec<(String, Vec<usize>, Api)> = runs
        .into_iter()
        .map(|(name, cuts)| (name, cuts, Api::Push))
        .collect();
    // The borrowed-chunk API: byte at a time and in random chunks, read or dropped.
    for api in [Api::Feed, Api::FeedDropped] {
        runs.push((format!("{api:?} bytes"), (1..raw.len()).collect(), api));
        for seed in 1..=2 {
            runs.push((
                format!("{api:?} random:{seed}"),
                random_cuts(raw.len(), seed, 16),
                api,
            ));
        }
    }
    let mut reused = Parser::with_config(config.clone());
    for (name, cuts, api) in runs {
        let before = reused.stats().work();
        let (got, finish_at) = run_marked(&mut reused, raw, &cuts, stop, api);
        check(config.dialect, &got).map_err(|e| format!("{name}: {e}"))?;
        cut_off_not_released(reused.dialect(), raw, &got, finish_at)
            .map_err(|e| format!("{name}: {e}"))?;
        within_work_bound(reused.stats().work() - before, raw.len())
            .map_err(|e| format!("{name}: {e}"))?;
        let got = merge(&got);
        if got != want {
            return Err(format!(
                "{name}: events differ from the whole run\n whole: {want:?}\n {name}: {got:?}"
            ));
        }
        reused.reset();
    }
    Ok(whole)
}

/// `write_file`'s arguments (JSON text) in each order of its keys: what a value does to
/// a call depends on which parameter comes after it. (`serde_json` orders an object's
/// keys as the build's features say, so arguments written from a `Value` cover one
/// order, by accident.)
pub fn in_each_order(path: &str, content: &str) -> [String; 2] {
    let (path, content) = (json!(path), json!(content));
    [
        format!(r#"{{"path": {path}, "content": {content}}}"#),
        format!(r#"{{"content": {content}, "path": {path}}}"#),
    ]
}

/// `write_file(path, content)`: both strings, both required, nothing else allowed. The
/// tool the checks that write files into calls declare.
pub fn write_file_tools() -> Tools {
    Tools::from_value(&json!([{
        "type": "function",
        "function": {
            "name": "write_file",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
                "required": ["path", "content"],
                "additionalProperties": false
            }
        }
    }]))
    .unwrap()
}

/// What a run showed: its visible text, the arguments of each call released, and how
/// many calls were not released.
#[derive(Debug, Default)]
pub struct Shown {
    pub text: String,
    pub released: Vec<String>,
    pub held: usize,
}

/// The calls `events` report not released: each one's name and reason, in order.
pub fn reports(events: &[OwnedEvent]) -> Vec<(Option<String>, &'static str)> {
    events
        .iter()
        .filter_map(|e| match e {
            OwnedEvent::CallNotReleased { name, reason, .. } => {
                Some((name.clone(), reason.as_str()))
            }
            _ => None,
        })
        .collect()
}

/// What `events` show (see [`Shown`]).
pub fn shown(events: &[OwnedEvent]) -> Shown {
    let mut out = Shown::default();
    for event in events {
        match event {
            OwnedEvent::Text(t) => out.text.push_str(t),
            OwnedEvent::CallFinished { arguments, .. } => out.released.push(arguments.clone()),
            OwnedEvent::CallNotReleased { .. } => out.held += 1,
            _ => {}
        }
    }
    out
}

/// [`shown`] of `raw` run under every chunking [`check_all_chunkings`] tries, which must
/// agree and keep every invariant (a panic names the input if not).
pub fn shown_however_cut(config: &Config, raw: &[u8]) -> Shown {
    let events = check_all_chunkings(config, raw, StopReason::Stop)
        .unwrap_or_else(|e| panic!("{:?}: {e}", String::from_utf8_lossy(raw)));
    shown(&events)
}

/// How a run of one call came out against what was meant.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    /// The call released with exactly the arguments meant, and the text meant shown.
    Exact,
    /// The call not released, with a reason, and the text meant shown.
    Held,
    /// Anything else: other arguments, another text (part of the call shown).
    Wrong(String),
}

impl Shown {
    /// The outcome against the arguments `meant` (JSON text) and the visible `text`.
    pub fn outcome(&self, meant: &str, text: &str) -> Outcome {
        if self.text != text {
            return Outcome::Wrong(format!("text {:?}, meant {text:?}", self.text));
        }
        let meant: Value = serde_json::from_str(meant).unwrap();
        match (self.released.as_slice(), self.held) {
            ([args], 0) if serde_json::from_str::<Value>(args).unwrap() == meant => Outcome::Exact,
            ([], 1) => Outcome::Held,
            (released, held) => Outcome::Wrong(format!("released {released:?}, {held} held")),
        }
    }
}
