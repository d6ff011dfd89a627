//! `docs/repairs.md` cannot drift: every row's `before` run through the engine gives the
//! row's `after`, with the row's repair among those reported.

use std::sync::Arc;
use toolsift::{Config, Dialect, Event, Parser, StopReason, Tools};

/// A table cell: strip the backticks, unescape `\|`; in `before`, `\n` and `\t` stand
/// for raw bytes.
fn cell(text: &str, raw_escapes: bool) -> String {
    let t = text.trim();
    let t = t
        .strip_prefix("`` ")
        .and_then(|t| t.strip_suffix(" ``"))
        .or_else(|| t.strip_prefix('`').and_then(|t| t.strip_suffix('`')))
        .unwrap_or(t);
    let t = t.replace("\\|", "|");
    if raw_escapes {
        t.replace("\\n", "\n").replace("\\t", "\t")
    } else {
        t
    }
}

fn split_row(line: &str) -> Vec<String> {
    // Split on `|` not preceded by a backslash.
    let mut cells = Vec::new();
    let mut cur = String::new();
    let mut prev = ' ';
    for c in line.chars() {
        if c == '|' && prev != '\\' {
            cells.push(std::mem::take(&mut cur));
        } else {
            cur.push(c);
        }
        prev = c;
    }
    cells.push(cur);
    cells
}

fn parse(dialect: &str, tools: bool, input: &str) -> (String, Vec<String>) {
    let mut config = Config::new(Dialect::from_name(dialect).unwrap());
    if tools {
        let text = std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/catalogue_tools.json"
        ))
        .unwrap();
        config.tools = Arc::new(Tools::from_json(&text).unwrap());
    }
    let mut p = Parser::with_config(config);
    p.push(input.as_bytes());
    p.finish(StopReason::Stop);
    while let Some(ev) = p.next_event() {
        if let Event::CallFinished {
            arguments, repairs, ..
        } = ev
        {
            return (
                arguments.to_owned(),
                repairs.names().map(str::to_owned).collect(),
            );
        }
    }
    panic!("no call released for {input:?}");
}

#[test]
fn every_catalogue_row_is_what_the_engine_does() {
    let doc =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/repairs.md")).unwrap();
    let mut rows = 0;
    for line in doc.lines().filter(|l| l.starts_with("| `")) {
        let cells = split_row(line);
        let (name, via) = (cell(&cells[1], false), cells[2].trim().to_owned());
        let before = cell(&cells[4], true);
        let after = cell(&cells[5], false);
        if name == "invalid_utf8" {
            let got = toolsift::repair(b"{\"a\": \"caf\xe9\"}").unwrap();
            assert_eq!(got.json, "{\"a\": \"caf\u{fffd}\"}");
            assert!(got.repairs.names().any(|n| n == name));
            rows += 1;
            continue;
        }
        let (got, repairs) = if via == "repair" {
            let r = toolsift::repair(before.as_bytes()).unwrap_or_else(|e| panic!("{name}: {e}"));
            (r.json, r.repairs.names().map(str::to_owned).collect())
        } else {
            let spec = via
                .strip_prefix("parse:")
                .expect("via is repair or parse:DIALECT");
            let (dialect, tools) = match spec.strip_suffix("+tools") {
                Some(d) => (d, true),
                None => (spec, false),
            };
            parse(dialect, tools, &before)
        };
        assert_eq!(got.trim_end(), after, "{name}: before {before:?}");
        assert!(repairs.contains(&name), "{name} not reported: {repairs:?}");
        rows += 1;
    }
    assert!(rows >= 40, "only {rows} rows read");
    // Every repair the engine can report is in the catalogue.
    for r in toolsift::Repair::ALL {
        let listed = doc.contains(&format!("| `{}` |", r.name()));
        let schema_only = matches!(
            r.name(),
            "string_to_object" | "object_to_array" | "typed_value"
        );
        assert!(
            listed || schema_only,
            "{} missing from docs/repairs.md",
            r.name()
        );
    }
}
