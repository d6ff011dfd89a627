//! The command-line tool (`toolsift parse | repair | replay | proxy`), a thin layer
//! over the library.

mod message;
mod parse_cmd;
mod proxy_cmd;
mod repair_cmd;
mod replay_cmd;
mod replay_upstream_cmd;
mod sample_cmd;

use std::io::Read;

const USAGE: &str = "usage:
  toolsift parse [OPTIONS] [FILE]    raw model output from FILE or stdin; prints one JSON message
    --dialect NAME     default auto
    --tools FILE       OpenAI tool definitions: a JSON array, or an object with a \"tools\" array
    --chunks MODE      whole (default) | bytes | N | random:SEED
    --stop REASON      stop (default) | length
    --reasoning-open   the prompt already opened a reasoning block
    --events           print the events as JSON lines instead of the message
    --jsonl            batch: one {\"raw\", \"tools\"?, \"dialect\"?, \"stop\"?, \"reasoning_open\"?} per line
  toolsift repair [--jsonl] [FILE]   repair one JSON text (or {\"input\"} lines); prints strict JSON
  toolsift replay FILE.jsonl [--dialect NAME]
                                     parse captured {\"raw\", \"tools\"} records; print counters by
                                     outcome, dialect and repair kind
  toolsift proxy --listen ADDR --upstream URL [--dialect NAME|auto|model]
      [--unknown-tool reject|forward] [--invalid release|hold] [--hold-calls]
                                     an OpenAI-compatible proxy that repairs tool calls
                                     (toolsift proxy --help for the options)
  toolsift sample [--chunks MODE]    parse built-in sample output and print each message";

/// Run the tool with `args` (without the program name); returns the exit code.
pub fn main(args: Vec<String>) -> i32 {
    let Some((cmd, rest)) = args.split_first() else {
        eprintln!("{USAGE}");
        return 2;
    };
    let result = match cmd.as_str() {
        "repair" => repair_cmd::run(rest),
        "parse" => parse_cmd::run(rest),
        "sample" => sample_cmd::run(rest),
        "replay" => replay_cmd::run(rest),
        "proxy" => proxy_cmd::run(rest),
        "replay-upstream" => replay_upstream_cmd::run(rest),
        "-h" | "--help" | "help" => {
            println!("{USAGE}");
            Ok(0)
        }
        other => Err(format!("unknown command {other:?}\n{USAGE}")),
    };
    match result {
        Ok(code) => code,
        Err(msg) => {
            eprintln!("toolsift: {msg}");
            2
        }
    }
}

/// Read FILE, or stdin when no file (or `-`) is named.
pub(crate) fn read_input(file: Option<&str>) -> Result<Vec<u8>, String> {
    match file {
        Some(path) if path != "-" => std::fs::read(path).map_err(|e| format!("{path}: {e}")),
        _ => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| format!("stdin: {e}"))?;
            Ok(buf)
        }
    }
}
