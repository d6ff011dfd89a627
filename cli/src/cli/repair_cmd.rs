//! `toolsift repair`.

use super::Outcome;
use super::{input_name, open_input, read_input, stdout, write_json_line, Failure};
use clap::Args;
use serde_json::{json, Value};
use std::io::{BufRead, BufReader, ErrorKind, Write};
use std::path::PathBuf;

/// Options of `toolsift repair`.
#[derive(Args, Debug)]
pub(crate) struct RepairArgs {
    /// One possibly malformed JSON text (default: stdin; `-` is stdin). Prints the strict
    /// JSON; says on stderr what was dropped (text or a second value after it). Exit
    /// status 1, with a message, when it cannot be repaired or is not text at all.
    file: Option<PathBuf>,
    /// Batch: input lines {"input": str}; output lines {"output": str|null, "repairs":
    /// [str], "error": str|null}, in order (a bad line gives {"line": N, "error": str}
    /// and the batch goes on; the exit status is then 1).
    #[arg(long)]
    jsonl: bool,
}

pub(crate) fn run(args: RepairArgs) -> Outcome {
    let mut out = stdout();
    if !args.jsonl {
        let input = read_input(args.file.as_deref())?;
        if let Some(why) = not_text(&input) {
            eprintln!("toolsift: cannot repair: {why}");
            return Ok(1);
        }
        return match toolsift::repair(&input) {
            Ok(fixed) => {
                if fixed.repairs.contains(toolsift::Repair::SurroundingText) {
                    eprintln!("toolsift: {}", dropped(&input));
                }
                out.write_all(fixed.json.trim_end().as_bytes())?;
                out.write_all(b"\n")?;
                out.flush()?;
                Ok(0)
            }
            Err(err) => {
                eprintln!("toolsift: cannot repair: {}", for_a_person(&err));
                Ok(1)
            }
        };
    }
    let name = input_name(args.file.as_deref());
    let mut input = BufReader::with_capacity(64 << 10, open_input(args.file.as_deref())?);
    let mut line = Vec::new();
    let mut bad_lines = 0;
    for n in 1.. {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::Usage(format!("{name}: {e}"))),
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let record = serde_json::from_slice::<Value>(&line).map_err(|e| e.to_string());
        let text = record.and_then(|r| match r.get("input") {
            Some(Value::String(text)) => Ok(text.clone()),
            _ => Err("no \"input\" string".to_owned()),
        });
        let result = match text {
            Err(error) => {
                bad_lines += 1;
                json!({"line": n, "error": error})
            }
            Ok(text) => match toolsift::repair(text.as_bytes()) {
                Ok(fixed) => json!({
                    "output": fixed.json,
                    "repairs": fixed.repairs.names().collect::<Vec<_>>(),
                    "error": null,
                }),
                Err(err) => json!({"output": null, "repairs": [], "error": err.to_string()}),
            },
        };
        write_json_line(&mut out, &result)?;
    }
    out.flush()?;
    Ok(if bad_lines > 0 { 1 } else { 0 })
}

/// Why `input` is not text a model or a person wrote, if it is not: bytes that are not
/// UTF-8, or control characters, make up more than an eighth of it. Repairing such input
/// would invent every value.
fn not_text(input: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(input);
    let odd = text
        .chars()
        .filter(|&c| c == '\u{fffd}' || (c.is_control() && !matches!(c, '\n' | '\r' | '\t')))
        .count();
    let total = text.chars().count();
    (total > 0 && odd * 8 > total).then(|| {
        format!("the input is not text ({odd} of its {total} characters are not UTF-8 text or are control characters)")
    })
}

/// What the repair dropped: the text after a first value that is JSON as written (a
/// second value, prose), or, when the value itself needed repair, that text around it
/// was dropped.
fn dropped(input: &[u8]) -> String {
    let start = input.len() - input.trim_ascii_start().len();
    let mut values =
        serde_json::Deserializer::from_slice(&input[start..]).into_iter::<serde::de::IgnoredAny>();
    if let Some(Ok(_)) = values.next() {
        let end = start + values.byte_offset();
        let rest = String::from_utf8_lossy(input[end..].trim_ascii());
        let kind = match serde_json::Deserializer::from_slice(rest.as_bytes())
            .into_iter::<serde::de::IgnoredAny>()
            .next()
        {
            Some(Ok(_)) => "a second JSON value",
            _ => "text",
        };
        let shown: String = rest.chars().take(80).collect();
        let more = if rest.chars().count() > 80 { "..." } else { "" };
        return format!("dropped {kind} after the first value: {shown}{more}");
    }
    "dropped text around the JSON value (only one value is printed)".to_owned()
}

/// A repair error in words: serde's position details are for a parser, not a person.
fn for_a_person(err: &toolsift::Error) -> String {
    let text = err.to_string();
    if text.contains("still not JSON") || text.contains("no JSON value") {
        "no JSON value in the input (an object, array, string, number, true, false or null)"
            .to_owned()
    } else {
        text
    }
}
