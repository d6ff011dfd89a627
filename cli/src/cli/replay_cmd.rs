//! `toolsift replay FILE.jsonl`: run captured `{"raw", "tools"}` records through the
//! parser and print counters by outcome, dialect and repair kind.

use super::dialects_cmd::dialect_arg;
use super::{read_input, stdout, Outcome};
use clap::Args;
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::Arc;
use toolsift::{Config, Dialect, OwnedEvent, Parser, Repair, Stats, StopReason, Tools};

/// Outcome counters of one dialect.
#[derive(Default)]
struct Row {
    records: u64,
    released: u64,
    repaired: u64,
    not_released: BTreeMap<&'static str, u64>,
}

/// Options of `toolsift replay`.
#[derive(Args, Debug)]
pub(crate) struct ReplayArgs {
    /// Captured records, one JSON object per line: {"raw": str, "tools"?: [..], "stop"?: str}.
    /// A record that cannot be read is named on stderr with its line and why, and the exit
    /// status is then 1.
    file: PathBuf,
    /// The dialect.
    #[arg(long, default_value = "auto", value_parser = dialect_arg, value_name = "NAME")]
    dialect: Dialect,
}

pub(crate) fn run(args: ReplayArgs) -> Outcome {
    let dialect = args.dialect;
    let file = args.file.display().to_string();
    let input = read_input(Some(args.file.as_path()))?;
    // (line number, line), blank lines skipped.
    let lines: Vec<(usize, &[u8])> = input
        .split(|&b| b == b'\n')
        .enumerate()
        .map(|(n, l)| (n + 1, l))
        .filter(|(_, l)| !l.iter().all(u8::is_ascii_whitespace))
        .collect();
    let progress = Progress::new(lines.len(), input.len());
    let mut stats = Stats::default();
    let mut rows: BTreeMap<&'static str, Row> = BTreeMap::new();
    let mut bad_records = 0u64;
    // An unreadable record is named, with its line and why, as `parse --jsonl` does.
    let mut unreadable = |line: usize, why: String| {
        bad_records += 1;
        eprintln!("toolsift: {file}: line {line}: {why}");
    };
    for (n, &(line_no, line)) in lines.iter().enumerate() {
        progress.tick(n);
        let record = match serde_json::from_slice::<Value>(line) {
            Ok(record) => record,
            Err(err) => {
                unreadable(line_no, format!("not JSON: {err}"));
                continue;
            }
        };
        let Some(raw) = record.get("raw").and_then(Value::as_str) else {
            unreadable(line_no, "no \"raw\" string".to_owned());
            continue;
        };
        let mut config = Config::new(dialect);
        if let Some(tools) = record.get("tools").filter(|t| !t.is_null()) {
            match Tools::from_value(tools) {
                Ok(tools) => config.tools = Arc::new(tools),
                Err(err) => {
                    unreadable(line_no, format!("bad \"tools\": {err}"));
                    continue;
                }
            }
        }
        let stop = record
            .get("stop")
            .and_then(Value::as_str)
            .and_then(StopReason::from_name)
            .unwrap_or(StopReason::Stop);
        let mut parser = Parser::with_config(config);
        parser.push(raw.as_bytes());
        let mut events = Vec::new();
        while let Some(ev) = parser.next_event() {
            events.push(ev.into_owned());
        }
        parser.finish(stop);
        while let Some(ev) = parser.next_event() {
            events.push(ev.into_owned());
        }
        let row = rows.entry(parser.dialect().name()).or_default();
        row.records += 1;
        for ev in &events {
            match ev {
                OwnedEvent::CallFinished { repairs, .. } => {
                    row.released += 1;
                    if !repairs.is_empty() {
                        row.repaired += 1;
                    }
                }
                OwnedEvent::CallNotReleased { reason, .. } => {
                    *row.not_released.entry(reason.as_str()).or_default() += 1;
                }
                _ => {}
            }
        }
        stats.merge(parser.stats());
    }
    progress.done();
    print_summary(&file, lines.len(), bad_records, &rows, &stats)?;
    Ok(if bad_records > 0 { 1 } else { 0 })
}

fn print_summary(
    file: &str,
    records: usize,
    bad: u64,
    rows: &BTreeMap<&'static str, Row>,
    stats: &Stats,
) -> std::io::Result<()> {
    let mut out = stdout();
    writeln!(
        out,
        "{file}: {records} records ({bad} unreadable), {} bytes",
        stats.bytes
    )?;
    writeln!(out)?;
    writeln!(
        out,
        "{:<14} {:>8} {:>9} {:>9} {:>10} {:>9} {:>13} {:>8} {:>7}",
        "dialect",
        "records",
        "released",
        "repaired",
        "truncated",
        "invalid",
        "unknown_tool",
        "limit",
        "schema"
    )?;
    let get = |r: &Row, k: &str| r.not_released.get(k).copied().unwrap_or(0);
    for (name, r) in rows {
        writeln!(
            out,
            "{:<14} {:>8} {:>9} {:>9} {:>10} {:>9} {:>13} {:>8} {:>7}",
            name,
            r.records,
            r.released,
            r.repaired,
            get(r, "truncated"),
            get(r, "invalid") + get(r, "not_a_call"),
            get(r, "unknown_tool"),
            get(r, "limit_exceeded"),
            get(r, "schema_violation"),
        )?;
    }
    writeln!(out)?;
    writeln!(out, "{:<24} {:>6}", "repair", "calls")?;
    let mut counts: Vec<(Repair, u64)> = Repair::ALL
        .iter()
        .map(|&r| (r, stats.repair_count(r)))
        .filter(|(_, n)| *n > 0)
        .collect();
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (r, n) in counts {
        writeln!(out, "{:<24} {:>6}", r.name(), n)?;
    }
    out.flush()
}

/// A progress bar on stderr for large files, when stderr is a terminal.
struct Progress {
    total: usize,
    show: bool,
}

impl Progress {
    fn new(total: usize, bytes: usize) -> Progress {
        Progress {
            total,
            show: (total >= 2000 || bytes >= 8 << 20) && std::io::stderr().is_terminal(),
        }
    }

    fn tick(&self, n: usize) {
        if !self.show || n % (self.total / 100).max(1) != 0 {
            return;
        }
        let filled = n * 40 / self.total.max(1);
        eprint!(
            "\r[{}{}] {:>3}% {n}/{}",
            "=".repeat(filled),
            " ".repeat(40 - filled),
            n * 100 / self.total.max(1),
            self.total
        );
    }

    fn done(&self) {
        if self.show {
            eprintln!("\r[{}] 100% {}/{}", "=".repeat(40), self.total, self.total);
        }
    }
}
