//! `toolsift repair`.

use super::read_input;
use serde_json::{json, Value};
use std::io::Write;

pub(crate) fn run(args: &[String]) -> Result<i32, String> {
    let mut jsonl = false;
    let mut file = None;
    for arg in args {
        match arg.as_str() {
            "--jsonl" => jsonl = true,
            a if a.starts_with("--") => return Err(format!("repair: unknown option {a}")),
            a => file = Some(a.to_owned()),
        }
    }
    let input = read_input(file.as_deref())?;
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    if !jsonl {
        return match toolsift::repair(&input) {
            Ok(fixed) => {
                out.write_all(fixed.json.as_bytes())
                    .map_err(|e| e.to_string())?;
                out.write_all(b"\n").map_err(|e| e.to_string())?;
                Ok(0)
            }
            Err(err) => {
                eprintln!("toolsift: cannot repair: {err}");
                Ok(1)
            }
        };
    }
    for (n, line) in input.split(|&b| b == b'\n').enumerate() {
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let record: Value =
            serde_json::from_slice(line).map_err(|e| format!("line {}: {e}", n + 1))?;
        let text = record
            .get("input")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("line {}: no \"input\" string", n + 1))?;
        let result = match toolsift::repair(text.as_bytes()) {
            Ok(fixed) => json!({
                "output": fixed.json,
                "repairs": fixed.repairs.names().collect::<Vec<_>>(),
                "error": null,
            }),
            Err(err) => json!({"output": null, "repairs": [], "error": err.to_string()}),
        };
        serde_json::to_writer(&mut out, &result).map_err(|e| e.to_string())?;
        out.write_all(b"\n").map_err(|e| e.to_string())?;
    }
    out.flush().map_err(|e| e.to_string())?;
    Ok(0)
}
