//! `toolsift dialects`: every dialect with the names it answers to (every vLLM and SGLang
//! tool-parser name among them), its opening markers and the model names that select it
//! (what the proxy's `--dialect model` reads); and the
//! dialect-name lookup every subcommand uses, which names the closest dialects when a
//! name is not known.

use super::{stdout, Outcome};
use clap::Args;
use std::io::Write;
use toolsift::Dialect;

/// Options of `toolsift dialects`.
#[derive(Args, Debug)]
pub(crate) struct DialectsArgs {
    /// Print one JSON object per dialect instead of the table.
    #[arg(long)]
    json: bool,
}

pub(crate) fn run(args: DialectsArgs) -> Outcome {
    let mut out = stdout();
    for &d in [Dialect::Auto].iter().chain(Dialect::ALL) {
        let openers: Vec<String> = d
            .openers()
            .iter()
            .map(|m| String::from_utf8_lossy(m).into_owned())
            .collect();
        if args.json {
            let line = serde_json::json!({
                "name": d.name(),
                "aliases": d.aliases(),
                "openers": openers,
                "in_auto": d.in_auto(),
                "models": d.model_names(),
            });
            super::write_json_line(&mut out, &line)?;
            continue;
        }
        let openers = if d == Dialect::Auto {
            "any opener of a dialect marked *".to_owned()
        } else {
            openers
                .iter()
                .map(|m| format!("{:?}", m))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let star = if d.in_auto() { "*" } else { "" };
        writeln!(out, "{}{star}{}", d.name(), aliases(d))?;
        writeln!(out, "    opens with {openers}")?;
        let models = d.model_names();
        if !models.is_empty() {
            writeln!(out, "    models named {}", models.join(", "))?;
        }
    }
    if !args.json {
        writeln!(
            out,
            "\n* auto reads this dialect's calls. Names ignore case, and - is the same as _; \
             every vLLM and SGLang tool-parser name is one.\n\
             `--dialect model` picks the dialect whose model names the request's model \
             contains."
        )?;
    }
    out.flush()?;
    Ok(0)
}

fn aliases(d: Dialect) -> String {
    if d.aliases().is_empty() {
        String::new()
    } else {
        format!("  (also {})", d.aliases().join(", "))
    }
}

/// A dialect by name or alias, for clap: an unknown name is an error that names the
/// closest ones.
pub(crate) fn dialect_arg(name: &str) -> Result<Dialect, String> {
    Dialect::from_name(name).ok_or_else(|| unknown_dialect(name))
}

/// The message for a dialect name that is not known.
pub(crate) fn unknown_dialect(name: &str) -> String {
    let closest = closest_names(name);
    let hint = if closest.is_empty() {
        String::new()
    } else {
        format!("; closest: {}", closest.join(", "))
    };
    format!("unknown dialect {name:?}{hint} (`toolsift dialects` lists them all)")
}

/// Up to three known names (names and aliases) nearest to `name` by edit distance,
/// each shown with the dialect it stands for when it is an alias.
fn closest_names(name: &str) -> Vec<String> {
    let wanted = name.to_ascii_lowercase().replace('-', "_");
    let mut scored: Vec<(usize, String)> = Vec::new();
    for &d in [Dialect::Auto].iter().chain(Dialect::ALL) {
        for &known in std::iter::once(&d.name()).chain(d.aliases()) {
            let shown = if known == d.name() {
                known.to_owned()
            } else {
                format!("{known} ({})", d.name())
            };
            scored.push((distance(&wanted, known), shown));
        }
    }
    scored.sort();
    let limit = (wanted.chars().count() / 2).max(2);
    scored
        .into_iter()
        .filter(|(d, _)| *d <= limit)
        .take(3)
        .map(|(_, s)| s)
        .collect()
}

/// Levenshtein distance over chars.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = if ca == cb {
                prev
            } else {
                1 + prev.min(cur).min(row[j])
            };
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_misspelled_name_gets_the_closest() {
        assert_eq!(distance("hermez", "hermes"), 1);
        assert_eq!(distance("", "abc"), 3);
        let msg = unknown_dialect("hermez");
        assert!(msg.contains("closest: hermes"), "{msg}");
        assert!(unknown_dialect("qwen3-codr").contains("qwen3_coder"));
        assert!(!unknown_dialect("zzzzzzzzzzzzzzzz").contains("closest"));
    }
}
