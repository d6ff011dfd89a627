//! Every fixture in `tests/fixtures/parse.jsonl` under every chunking: whole, one byte
//! at a time, at every split point (small fixtures) and in random chunks. Each run must
//! keep every invariant (see `support::check`), all runs must agree, `auto` must agree
//! with the explicit dialect, the message must equal the blessed one, and the work
//! must stay within the bound of `docs/performance.md` (`support::check_all_chunkings`).
//!
//! `TOOLSIFT_BLESS=write` rewrites the expected messages from the code's output (after
//! reviewing a change) and prints how many changed and which; any other value of the
//! variable fails, and so does any value under `CI=true` (`.ci/run` refuses it too).

mod support;

use serde_json::value::RawValue;
use serde_json::Value;
use std::collections::HashMap;
use std::sync::Arc;
use toolsift::{Config, Dialect, Limits, StopReason, Tools};

/// The fixture on `line`, as a value and its `tools` as written (read from their text,
/// the tools keep their parameters' declared order in any build).
fn config_of(fx: &Value, line: &str) -> Config {
    let mut config = Config::new(Dialect::from_name(fx["dialect"].as_str().unwrap()).unwrap());
    let members: HashMap<&str, &RawValue> = serde_json::from_str(line).unwrap();
    if let Some(tools) = members.get("tools") {
        config.tools = Arc::new(Tools::from_json(tools.get().as_bytes()).unwrap());
    }
    config.reasoning_open = fx
        .get("reasoning_open")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if fx.get("invalid").and_then(Value::as_str) == Some("hold") {
        config.invalid = toolsift::Invalid::HoldBack;
    }
    if fx.get("unknown_tool").and_then(Value::as_str) == Some("forward") {
        config.unknown_tool = toolsift::UnknownTool::Forward;
    }
    if let Some(l) = fx.get("limits") {
        let mut limits = Limits::default();
        if let Some(n) = l.get("max_args_bytes").and_then(Value::as_u64) {
            limits.max_args_bytes = n as usize;
        }
        if let Some(n) = l.get("max_depth").and_then(Value::as_u64) {
            limits.max_depth = n as usize;
        }
        config.limits = limits;
    }
    config
}

/// The fewest fixtures the test accepts: a check that read fewer checked too little.
const MIN_FIXTURES: usize = 600;

/// Whether to rewrite the expected messages: only with `TOOLSIFT_BLESS=write`, never
/// under CI.
fn bless() -> bool {
    match std::env::var("TOOLSIFT_BLESS") {
        Err(std::env::VarError::NotPresent) => false,
        Ok(v) if v == "write" => {
            assert!(
                std::env::var("CI").as_deref() != Ok("true"),
                "TOOLSIFT_BLESS=write under CI=true: CI compares, it never writes"
            );
            true
        }
        other => {
            panic!("TOOLSIFT_BLESS={other:?}: only `write` rewrites the fixtures' expectations")
        }
    }
}

#[test]
fn fixtures_keep_every_invariant_under_every_chunking() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/parse.jsonl");
    let text = std::fs::read_to_string(path).unwrap();
    let bless = bless();
    let mut fixtures: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        fixtures.len() >= MIN_FIXTURES,
        "{} fixtures in {path}, fewer than the floor of {MIN_FIXTURES}",
        fixtures.len()
    );
    let mut failures = Vec::new();
    let mut changed = Vec::new();
    let mut by_name = HashMap::new();
    for (fx, line) in fixtures.iter_mut().zip(text.lines()) {
        let name = fx["name"].as_str().unwrap().to_owned();
        let raw = fx["raw"].as_str().unwrap().as_bytes().to_vec();
        let stop = StopReason::from_name(fx.get("stop").and_then(Value::as_str).unwrap_or("stop"))
            .unwrap();
        let config = config_of(fx, line);
        let events = match support::check_all_chunkings(&config, &raw, stop) {
            Ok(ev) => ev,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let msg = support::message(&events);
        by_name.insert(name.clone(), msg.clone());
        if bless {
            if fx.get("expect") != Some(&msg) {
                changed.push(name.clone());
            }
            fx["expect"] = msg;
        } else if fx.get("expect") != Some(&msg) {
            failures.push(format!(
                "{name}: message differs\n  want {}\n  got  {}",
                fx.get("expect").unwrap_or(&Value::Null),
                msg
            ));
        }
    }
    // `auto` gives the same result as the explicit dialect.
    for (name, msg) in &by_name {
        if let Some(explicit) = name.strip_prefix("auto_") {
            if by_name.get(explicit) != Some(msg) {
                failures.push(format!("{name}: auto differs from {explicit}"));
            }
        }
    }
    if bless {
        let out: String = fixtures
            .iter()
            .map(|f| serde_json::to_string(f).unwrap() + "\n")
            .collect();
        std::fs::write(path, out).unwrap();
        eprintln!(
            "TOOLSIFT_BLESS=write: {} of {} expectations changed{}{}",
            changed.len(),
            fixtures.len(),
            if changed.is_empty() { "" } else { ": " },
            changed.join(", ")
        );
    }
    assert!(
        failures.is_empty(),
        "{} fixture failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
