//! `toolsift sample`: parse built-in sample output and show what comes out.

use super::parse_cmd::{message_of, Chunks};
use super::{stdout, Outcome};
use clap::Args;
use std::io::Write;
use std::sync::Arc;
use toolsift::{Config, Dialect, StopReason, Tools};

struct Sample {
    title: &'static str,
    dialect: Dialect,
    stop: StopReason,
    raw: &'static str,
}

const TOOLS: &str = r#"[{"type": "function", "function": {"name": "write_file", "parameters": {"type": "object",
  "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}}},
 {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object",
  "properties": {"path": {"type": "string"}, "limit": {"type": "integer"}}, "required": ["path"]}}}]"#;

const SAMPLES: &[Sample] = &[
    Sample {
        title: "Hermes call written the way small models write it (raw newlines, inner quotes, \\d, trailing comma)",
        dialect: Dialect::Auto,
        stop: StopReason::Stop,
        raw: "<think>The user wants a page.</think>\nWriting it now.\n<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"index.html\", \"content\": \"<html>\n  <meta charset=\"UTF-8\">\n  <script>const re = /\\d+/;</script>\n</html>\",}}\n</tool_call>",
    },
    Sample {
        title: "Qwen3-Coder XML, its value holding a literal </parameter>, typed by the schema",
        dialect: Dialect::Auto,
        stop: StopReason::Stop,
        raw: "<tool_call>\n<function=read_file>\n<parameter=path>\nnotes/</parameter>.md\n</parameter>\n<parameter=limit>\n20\n</parameter>\n</function>\n</tool_call>",
    },
    Sample {
        title: "Gemma 4, two calls",
        dialect: Dialect::Auto,
        stop: StopReason::Stop,
        raw: "<|tool_call>call:read_file{path:<|\"|>a.py<|\"|>}<tool_call|><|tool_call>call:read_file{path:<|\"|>b.py<|\"|>,limit:5}<tool_call|>",
    },
    Sample {
        title: "A call cut off by the token limit: reported, never released",
        dialect: Dialect::Auto,
        stop: StopReason::Length,
        raw: "<tool_call>\n{\"name\": \"write_file\", \"arguments\": {\"path\": \"big.txt\", \"content\": \"line 1\\nline 2\\nli",
    },
];

/// Options of `toolsift sample`.
#[derive(Args, Debug)]
pub(crate) struct SampleArgs {
    /// How the samples are pushed: whole, bytes, N or random:SEED.
    #[arg(long, default_value = "random:7", value_parser = Chunks::parse, value_name = "MODE")]
    chunks: Chunks,
}

pub(crate) fn run(args: SampleArgs) -> Outcome {
    let tools = Tools::from_json(TOOLS.as_bytes()).map_err(|e| e.to_string())?;
    let mut out = stdout();
    for sample in SAMPLES {
        let mut config = Config::new(sample.dialect);
        config.tools = Arc::new(tools.clone());
        let msg = message_of(config, args.chunks, sample.stop, sample.raw.as_bytes());
        writeln!(out, "== {}", sample.title)?;
        writeln!(
            out,
            "-- raw model output (pushed as --chunks {}):",
            args.chunks
        )?;
        writeln!(out, "{}", sample.raw)?;
        let pretty = serde_json::to_string_pretty(&msg).map_err(|e| e.to_string())?;
        writeln!(out, "-- message:\n{pretty}\n")?;
    }
    out.flush()?;
    Ok(0)
}
