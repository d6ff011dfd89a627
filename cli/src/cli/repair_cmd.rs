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
    /// One possibly malformed JSON text (default: stdin; `-` is stdin). Exit status 1,
    /// with a message, when it cannot be repaired.
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
        return match toolsift::repair(&input) {
            Ok(fixed) => {
                out.write_all(fixed.json.as_bytes())?;
                out.write_all(b"\n")?;
                out.flush()?;
                Ok(0)
            }
            Err(err) => {
                eprintln!("toolsift: cannot repair: {err}");
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
