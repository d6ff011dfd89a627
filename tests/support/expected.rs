//! Committed expectations that only move one way (a ratchet): what a check found the
//! last time its file was written. A check compares what it finds with the file, fails
//! on anything worse, reports anything better, and with `TOOLSIFT_UPDATE_EXPECTED=1`
//! rewrites the file and prints what changed.
//!
//! The file is text: `#` lines are the header (kept as the check writes it), every
//! other line one entry of whitespace-separated fields.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::PathBuf;

/// The environment variable that selects update mode.
pub const UPDATE: &str = "TOOLSIFT_UPDATE_EXPECTED";

/// Whether this run rewrites the expectation files. Never under CI: a run that rewrites
/// what it compares with checks nothing.
pub fn updating() -> bool {
    let update = std::env::var(UPDATE).is_ok_and(|v| v == "1");
    assert!(
        !(update && in_ci()),
        "{UPDATE}=1 under CI=true: update mode rewrites the expectations instead of checking them"
    );
    update
}

/// Whether this is a CI run (`CI=true`).
pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// `tests/expected/NAME`.
pub fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/expected")
        .join(name)
}

/// The entries of `tests/expected/NAME`, by their first `key_fields` fields joined by a
/// space; the value is the rest of the line. A missing file has no entries.
pub fn load(name: &str, key_fields: usize) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(path(name)).unwrap_or_default();
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        let key = fields[..key_fields.min(fields.len())].join(" ");
        let rest = fields[key_fields.min(fields.len())..].join(" ");
        out.insert(key, rest);
    }
    out
}

/// Write `tests/expected/NAME`: the header (each line prefixed `# `), then the entries
/// (`key rest`), and print how many entries changed against `old`.
pub fn save(
    name: &str,
    header: &str,
    entries: &BTreeMap<String, String>,
    old: &BTreeMap<String, String>,
) {
    let mut text = String::new();
    for line in header.lines() {
        text.push_str(if line.is_empty() { "#" } else { "# " });
        text.push_str(line);
        text.push('\n');
    }
    for (key, rest) in entries {
        text.push_str(key);
        if !rest.is_empty() {
            text.push(' ');
            text.push_str(rest);
        }
        text.push('\n');
    }
    std::fs::create_dir_all(path(name).parent().unwrap()).unwrap();
    std::fs::write(path(name), text).unwrap();
    let added = entries.keys().filter(|k| !old.contains_key(*k)).count();
    let removed = old.keys().filter(|k| !entries.contains_key(*k)).count();
    let changed = entries
        .iter()
        .filter(|(k, v)| old.get(*k).is_some_and(|o| o != *v))
        .count();
    println!(
        "{UPDATE}=1: wrote tests/expected/{name}: {added} entries added, {removed} removed, \
         {changed} changed, {} in all",
        entries.len()
    );
    for key in entries.keys().filter(|k| !old.contains_key(*k)) {
        println!("  + {key} {}", entries[key]);
    }
    for key in old.keys().filter(|k| !entries.contains_key(*k)) {
        println!("  - {key} {}", old[key]);
    }
    for (key, value) in entries {
        if let Some(o) = old.get(key).filter(|o| *o != value) {
            println!("  ~ {key}: {o} -> {value}");
        }
    }
}
