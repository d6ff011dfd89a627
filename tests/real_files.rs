//! Issue 26, "released means right", measured on real files: text files from the
//! sources and docs of the crate's locked dependencies in the cargo registry, plus the
//! project's own set in `tests/fixtures/files/`, each written into a Hermes `write_file`
//! call in four ways (escaped; raw newlines; nothing escaped; only newlines escaped),
//! pushed whole and in two seeded random chunkings. Each file and way is counted exact,
//! escape-ambiguous, held or wrong; `docs/real-files.md` has the rules and the counts.
//!
//! Environment:
//! - `TOOLSIFT_REAL_FILES=full`: 300 registry files, and also one byte at a time (a
//!   number: that many files; unset: 40); a full run also fails when the count tables
//!   of `docs/real-files.md` are not its own;
//! - `TOOLSIFT_REAL_FILES_GATE=1`: fail on any wrong release, any chunking-dependent
//!   result, any broken invariant, on exact plus escape-ambiguous below 98% in any way,
//!   and on fewer than 250 registry files checked (`TOOLSIFT_REAL_FILES_ONLY` is refused
//!   with it);
//! - `TOOLSIFT_REAL_FILES_REPORT=PATH`: write the report there as Markdown;
//! - `TOOLSIFT_REAL_FILES_ONLY=TEXT`: run only the selected files whose name contains it;
//! - `TOOLSIFT_REAL_FILES_DUMP=DIR`: write the model output of every file and way that
//!   is not exact to DIR, with `tools.json`, for `toolsift parse --dialect hermes
//!   --tools DIR/tools.json FILE`.
//!
//! Without the gate the test asserts what holds today: no broken invariant, no
//! chunking-dependent result, ways 1 and 2 all exact; and every run fails when it
//! checked fewer files than it selected (with a filter: none at all).

#[path = "real_files/classify.rs"]
mod classify;
#[path = "real_files/embed.rs"]
mod embed;
#[path = "real_files/report.rs"]
mod report;
#[path = "real_files/select.rs"]
mod select;
mod support;

use classify::{classify, Class, Outcome};
use embed::Way;
use report::Report;
use toolsift::{Config, Dialect, OwnedEvent, StopReason, Tools};

/// Registry files in the default run, and in the full one.
const DEFAULT_FILES: usize = 40;
const FULL_FILES: usize = 300;
/// The gate's floor for exact plus escape-ambiguous, in every way.
const GATE_SHARE: f64 = 0.98;
/// The fewest registry files the gate accepts (a full run selects `FULL_FILES`).
const GATE_MIN_REGISTRY_FILES: usize = 250;

/// The request's tools: `write_file` with two required strings and nothing else.
fn tools() -> serde_json::Value {
    serde_json::json!([{
        "type": "function",
        "function": {
            "name": "write_file",
            "description": "Write a text file.",
            "parameters": {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "content": {"type": "string"}
                },
                "required": ["path", "content"],
                "additionalProperties": false
            }
        }
    }])
}

fn config() -> Config {
    let mut config = Config::new(Dialect::Hermes);
    config = config.tools(Tools::from_value(&tools()).unwrap());
    config
}

/// How a file's output is pushed: whole, then two random chunkings of 1 to 16 bytes
/// seeded by the file and way; a full run adds one byte at a time.
fn chunkings(name: &str, way: Way, len: usize, full: bool) -> Vec<(String, Vec<usize>)> {
    let seed = select::hash(name.as_bytes()) ^ (way as u64) << 56;
    let mut out = vec![("whole".to_owned(), Vec::new())];
    for k in 1..=2u64 {
        let seed = seed.wrapping_add(k) % 1_000_000_007;
        out.push((
            format!("random:{seed}"),
            support::random_cuts(len, seed, 16),
        ));
    }
    if full {
        out.push(("bytes".to_owned(), (1..len).collect()));
    }
    out
}

#[test]
fn real_files_are_released_exactly_or_held() {
    let started = std::time::Instant::now();
    let mode = std::env::var("TOOLSIFT_REAL_FILES").unwrap_or_default();
    let (want, full) = match mode.as_str() {
        "" => (DEFAULT_FILES, false),
        "full" => (FULL_FILES, true),
        n => (
            n.parse()
                .unwrap_or_else(|_| panic!("TOOLSIFT_REAL_FILES={n}: `full` or a number")),
            true,
        ),
    };
    let gate = match std::env::var("TOOLSIFT_REAL_FILES_GATE") {
        Err(std::env::VarError::NotPresent) => false,
        Ok(v) if v == "1" => true,
        other => panic!("TOOLSIFT_REAL_FILES_GATE={other:?}: `1` turns the gate on"),
    };
    let registry = select::registry(want);
    // Every build machine has the registry; a full run without it measures nothing.
    if registry.files.is_empty() && (full || std::env::var("CI").is_ok_and(|v| v == "true")) {
        panic!(
            "no registry files found (searched {:?}; {} locked packages)",
            registry.roots, registry.locked
        );
    }
    let own = select::own();
    let mut report = Report {
        source: format!(
            "Files: {} from the registry ({} of {} locked packages unpacked, {} eligible files) \
             and {} of the project's own; each pushed whole, in 2 random chunkings{}.",
            registry.files.len(),
            registry.found,
            registry.locked,
            registry.eligible,
            own.len(),
            if full { " and one byte at a time" } else { "" }
        ),
        ..Report::default()
    };
    let config = config();
    let only = std::env::var("TOOLSIFT_REAL_FILES_ONLY").unwrap_or_default();
    // The gate judges the whole selection: a filter would let it pass on what it skipped.
    assert!(
        !gate || only.is_empty(),
        "TOOLSIFT_REAL_FILES_ONLY={only:?} with the gate on: the gate checks every selected file"
    );
    let dump = std::env::var_os("TOOLSIFT_REAL_FILES_DUMP").map(std::path::PathBuf::from);
    if let Some(dir) = &dump {
        std::fs::create_dir_all(dir).unwrap();
        std::fs::write(dir.join("tools.json"), tools().to_string()).unwrap();
    }
    let mut checked = 0;
    for file in registry.files.iter().chain(&own) {
        if !file.name.contains(&only) {
            continue;
        }
        checked += 1;
        for way in Way::ALL {
            let class = run_file(&config, file, way, full, &mut report);
            if let (Some(dir), false) = (&dump, class == Class::Exact) {
                let name = format!("way{}-{}.txt", way.number(), file.name.replace('/', "_"));
                let raw = embed::output(way, &file.path, &file.text);
                std::fs::write(dir.join(name), raw).unwrap();
            }
        }
    }
    let table = report.markdown();
    println!("{table}");
    println!("({:.1} s)", started.elapsed().as_secs_f64());
    if let Ok(path) = std::env::var("TOOLSIFT_REAL_FILES_REPORT") {
        std::fs::write(&path, &table).unwrap_or_else(|e| panic!("{path}: {e}"));
    }
    // The counts docs/real-files.md shows are a full run's: every row of the two tables.
    if mode == "full" && only.is_empty() {
        let docs = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/real-files.md");
        let docs = std::fs::read_to_string(docs).unwrap();
        let stale: Vec<&str> = table
            .lines()
            .filter(|l| l.starts_with("| ") && !docs.lines().any(|d| d == *l))
            .collect();
        assert!(
            stale.is_empty(),
            "docs/real-files.md does not show this full run's counts; copy the tables above \
             into its \"Current counts\" (or write them with TOOLSIFT_REAL_FILES_REPORT=PATH). \
             Rows not in it:\n{}",
            stale.join("\n")
        );
    }
    // A run that checked nothing passed nothing: with a filter at least one file, without
    // one every selected file; the gate at least its floor of registry files.
    let floor = match (only.is_empty(), gate) {
        (false, _) => 1,
        (true, false) => registry.files.len() + own.len(),
        (true, true) => GATE_MIN_REGISTRY_FILES.max(registry.files.len()) + own.len(),
    };
    assert!(
        checked >= floor && !own.is_empty(),
        "{checked} files checked ({} of the project's own), fewer than the floor of {floor}",
        own.len()
    );
    // What holds today, gate or not: every run keeps the invariants support::check
    // reads, no result depends on the chunking, and the two ways with one reading (every
    // backslash and quote escaped) come out exact.
    assert!(
        report.invariants.is_empty() && report.chunking.is_empty(),
        "{} broken invariants, {} chunking-dependent results (the table above)",
        report.invariants.len(),
        report.chunking.len()
    );
    for way in [Way::Escaped, Way::RawNewlines] {
        let counts = report.way(way);
        assert_eq!(
            counts[Class::Exact as usize],
            counts.iter().sum::<usize>(),
            "way {}: {counts:?} (exact, ambiguous, held, wrong)",
            way.number()
        );
    }
    if gate {
        let low: Vec<String> = Way::ALL
            .into_iter()
            .filter(|&w| report.released_right(w) < GATE_SHARE)
            .map(|w| {
                format!(
                    "way {} at {:.1}%",
                    w.number(),
                    100.0 * report.released_right(w)
                )
            })
            .collect();
        assert!(
            report.wrong.is_empty()
                && report.chunking.is_empty()
                && report.invariants.is_empty()
                && low.is_empty(),
            "gate: {} wrong releases, {} chunking-dependent results, {} broken invariants, \
             exact + escape-ambiguous below {}%: {low:?} (the table above)",
            report.wrong.len(),
            report.chunking.len(),
            report.invariants.len(),
            100.0 * GATE_SHARE
        );
    }
}

/// Run one file written one way under every chunking, count it, and return its class.
fn run_file(
    config: &Config,
    file: &select::File,
    way: Way,
    full: bool,
    report: &mut Report,
) -> Class {
    let raw = embed::output(way, &file.path, &file.text);
    let at = format!("way {}, `{}`", way.number(), file.name);
    let mut first: Option<(String, Outcome, Vec<OwnedEvent>)> = None;
    let mut worst: Option<(String, Outcome)> = None;
    for (chunking, cuts) in chunkings(&file.name, way, raw.len(), full) {
        let events = support::run_cuts(config, raw.as_bytes(), &cuts, StopReason::Stop);
        if let Err(e) = support::check(Dialect::Hermes, &events) {
            report
                .invariants
                .push(format!("{at}, {chunking}: {}", cut(&e)));
        }
        if way == Way::Escaped && chunking == "whole" {
            well_formed_passes(&events, &raw, &at, report);
        }
        let outcome = classify(&events, way, &file.path, &file.text);
        if worst.as_ref().is_none_or(|(_, w)| outcome.class > w.class) {
            worst = Some((chunking.clone(), outcome.clone()));
        }
        let merged = support::merge(&events);
        match &first {
            None => first = Some((chunking, outcome, merged)),
            Some((name, want, want_events)) => {
                if outcome.class != want.class {
                    report.chunking.push(format!(
                        "{at}: {name} {:?} ({}) but {chunking} {:?} ({})",
                        want.class, want.detail, outcome.class, outcome.detail
                    ));
                } else if &merged != want_events {
                    report.chunking.push(format!(
                        "{at}: {name} and {chunking} both {:?}, with different events",
                        want.class
                    ));
                }
            }
        }
    }
    let (chunking, outcome) = worst.unwrap();
    report.count(way, file.kind, file.name.starts_with("own/"), outcome.class);
    let at = match chunking.as_str() {
        "whole" => at,
        chunking => format!("{at} ({chunking})"),
    };
    match outcome.class {
        Class::Wrong => report.wrong.push(format!("{at}: {}", outcome.detail)),
        Class::Ambiguous => report.ambiguous.push(format!("{at}: {}", outcome.detail)),
        Class::Held => {
            report.held_calls.push(format!("{at}: {}", outcome.detail));
            for reason in outcome.detail.split(", ") {
                *report.held.entry((way, reason.to_owned())).or_default() += 1;
            }
        }
        _ => {}
    }
    outcome.class
}

/// Invariant 1: a well-formed call's arguments pass byte-identical, with no repair.
fn well_formed_passes(events: &[OwnedEvent], raw: &str, at: &str, report: &mut Report) {
    let start = raw.find(r#""arguments": "#).unwrap() + r#""arguments": "#.len();
    let want = &raw[start..raw.len() - "}</tool_call>".len()];
    for event in events {
        if let OwnedEvent::CallFinished {
            arguments, repairs, ..
        } = event
        {
            if arguments != want || !repairs.is_empty() {
                report.invariants.push(format!(
                    "{at}: well-formed arguments changed ({} bytes to {}), repairs {repairs:?}",
                    want.len(),
                    arguments.len()
                ));
            }
        }
    }
}

/// A long message's first 300 bytes.
fn cut(text: &str) -> String {
    match text.char_indices().nth(300) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_owned(),
    }
}
