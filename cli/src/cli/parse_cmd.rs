//! `toolsift parse`.

use super::message::{event_json, Message};
use super::read_input;
use serde_json::Value;
use std::io::Write;
use toolsift::{Config, Dialect, OwnedEvent, Parser, StopReason, Tools};

/// How input is pushed.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Chunks {
    Whole,
    Bytes,
    Fixed(usize),
    Random(u64),
}

impl Chunks {
    pub(crate) fn parse(text: &str) -> Result<Chunks, String> {
        Ok(match text {
            "whole" => Chunks::Whole,
            "bytes" => Chunks::Bytes,
            _ => {
                if let Some(seed) = text.strip_prefix("random:") {
                    Chunks::Random(
                        seed.parse()
                            .map_err(|_| format!("bad seed in --chunks {text}"))?,
                    )
                } else {
                    match text.parse::<usize>() {
                        Ok(n) if n > 0 => Chunks::Fixed(n),
                        _ => {
                            return Err(format!(
                                "--chunks: expected whole, bytes, N or random:SEED, got {text:?}"
                            ))
                        }
                    }
                }
            }
        })
    }

    /// Split `input` into the pushes this mode makes.
    pub(crate) fn split<'a>(&self, input: &'a [u8]) -> Vec<&'a [u8]> {
        let sizes: Box<dyn FnMut() -> usize> = match *self {
            Chunks::Whole => return vec![input],
            Chunks::Bytes => Box::new(|| 1),
            Chunks::Fixed(n) => Box::new(move || n),
            Chunks::Random(seed) => {
                let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
                Box::new(move || {
                    // xorshift64*: deterministic, no dependency.
                    state ^= state >> 12;
                    state ^= state << 25;
                    state ^= state >> 27;
                    (state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 60) as usize + 1
                })
            }
        };
        let mut sizes = sizes;
        let mut out = Vec::new();
        let mut rest = input;
        while !rest.is_empty() {
            let n = sizes().min(rest.len());
            out.push(&rest[..n]);
            rest = &rest[n..];
        }
        out
    }
}

/// One parse job.
pub(crate) struct Job {
    pub config: Config,
    pub chunks: Chunks,
    pub stop: StopReason,
}

/// Run a parser over `raw` and collect owned events.
pub(crate) fn run_job(job: &Job, raw: &[u8], parser: &mut Option<Parser>) -> Vec<OwnedEvent> {
    let p = match parser {
        Some(p) => {
            p.reset();
            p
        }
        None => parser.insert(Parser::with_config(job.config.clone())),
    };
    let mut events = Vec::new();
    for piece in job.chunks.split(raw) {
        p.push(piece);
        while let Some(ev) = p.next_event() {
            events.push(ev.into_owned());
        }
    }
    p.finish(job.stop);
    while let Some(ev) = p.next_event() {
        events.push(ev.into_owned());
    }
    events
}

pub(crate) fn run(args: &[String]) -> Result<i32, String> {
    let mut config = Config::default();
    let mut chunks = Chunks::Whole;
    let mut stop = StopReason::Stop;
    let mut events_out = false;
    let mut jsonl = false;
    let mut file = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        let mut value = |name: &str| {
            it.next()
                .cloned()
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match arg.as_str() {
            "--dialect" => {
                let v = value("--dialect")?;
                config.dialect =
                    Dialect::from_name(&v).ok_or_else(|| format!("unknown dialect {v:?}"))?;
            }
            "--tools" => {
                let path = value("--tools")?;
                let text = std::fs::read(&path).map_err(|e| format!("{path}: {e}"))?;
                config.tools = std::sync::Arc::new(
                    Tools::from_json(&text).map_err(|e| format!("{path}: {e}"))?,
                );
            }
            "--chunks" => chunks = Chunks::parse(&value("--chunks")?)?,
            "--stop" => {
                let v = value("--stop")?;
                stop = StopReason::from_name(&v)
                    .ok_or_else(|| format!("--stop: expected stop or length, got {v:?}"))?;
            }
            "--reasoning-open" => config.reasoning_open = true,
            "--events" => events_out = true,
            "--jsonl" => jsonl = true,
            a if a.starts_with("--") => return Err(format!("parse: unknown option {a}")),
            a => file = Some(a.to_owned()),
        }
    }
    let input = read_input(file.as_deref())?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let write = |out: &mut dyn Write, v: &Value| -> Result<(), String> {
        serde_json::to_writer(&mut *out, v).map_err(|e| e.to_string())?;
        out.write_all(b"\n").map_err(|e| e.to_string())
    };
    if !jsonl {
        let job = Job {
            config,
            chunks,
            stop,
        };
        let events = run_job(&job, &input, &mut None);
        if events_out {
            for ev in &events {
                write(&mut out, &event_json(ev))?;
            }
        } else {
            let mut msg = Message::default();
            events.iter().for_each(|e| msg.push(e));
            write(&mut out, &msg.to_json())?;
        }
        out.flush().map_err(|e| e.to_string())?;
        return Ok(0);
    }
    let mut parser: Option<Parser> = None;
    let mut last_key: Option<(String, String, bool)> = None;
    for (n, line) in input.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let record: Value =
            serde_json::from_slice(line).map_err(|e| format!("line {}: {e}", n + 1))?;
        let raw = record
            .get("raw")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("line {}: no \"raw\" string", n + 1))?;
        let mut cfg = config.clone();
        if let Some(tools) = record.get("tools") {
            if !tools.is_null() {
                cfg.tools = std::sync::Arc::new(
                    Tools::from_value(tools).map_err(|e| format!("line {}: {e}", n + 1))?,
                );
            }
        }
        if let Some(d) = record.get("dialect").and_then(Value::as_str) {
            cfg.dialect = Dialect::from_name(d)
                .ok_or_else(|| format!("line {}: unknown dialect {d:?}", n + 1))?;
        }
        if let Some(r) = record.get("reasoning_open").and_then(Value::as_bool) {
            cfg.reasoning_open = r;
        }
        let line_stop = match record.get("stop").and_then(Value::as_str) {
            Some(s) => StopReason::from_name(s)
                .ok_or_else(|| format!("line {}: unknown stop {s:?}", n + 1))?,
            None => stop,
        };
        // Reuse the parser when the configuration is the same (it usually is).
        let key = (
            record
                .get("tools")
                .map(|t| t.to_string())
                .unwrap_or_default(),
            cfg.dialect.name().to_owned(),
            cfg.reasoning_open,
        );
        if last_key.as_ref() != Some(&key) {
            parser = None;
            last_key = Some(key);
        }
        let job = Job {
            config: cfg,
            chunks,
            stop: line_stop,
        };
        let events = run_job(&job, raw.as_bytes(), &mut parser);
        if events_out {
            let list: Vec<Value> = events.iter().map(event_json).collect();
            write(&mut out, &Value::Array(list))?;
        } else {
            let mut msg = Message::default();
            events.iter().for_each(|e| msg.push(e));
            write(&mut out, &msg.to_json())?;
        }
    }
    out.flush().map_err(|e| e.to_string())?;
    Ok(0)
}
