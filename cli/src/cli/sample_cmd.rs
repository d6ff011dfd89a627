//! `toolsift sample`: parse built-in sample output and show what comes out.

use super::message::Message;
use super::parse_cmd::{run_job, Chunks, Job};
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

pub(crate) fn run(args: &[String]) -> Result<i32, String> {
    let chunks = match args {
        [] => Chunks::Random(7),
        [flag, mode] if flag == "--chunks" => Chunks::parse(mode)?,
        _ => return Err("sample: usage: toolsift sample [--chunks MODE]".into()),
    };
    let tools = Tools::from_json(TOOLS.as_bytes()).map_err(|e| e.to_string())?;
    for sample in SAMPLES {
        let mut config = Config::new(sample.dialect);
        config.tools = Arc::new(tools.clone());
        let job = Job {
            config,
            chunks,
            stop: sample.stop,
        };
        let events = run_job(&job, sample.raw.as_bytes(), &mut None);
        let mut msg = Message::default();
        events.iter().for_each(|e| msg.push(e));
        println!("== {}", sample.title);
        println!(
            "-- raw model output (pushed in 1-16 byte chunks):\n{}",
            sample.raw
        );
        println!(
            "-- message:\n{}\n",
            serde_json::to_string_pretty(&msg.to_json()).map_err(|e| e.to_string())?
        );
    }
    Ok(0)
}
