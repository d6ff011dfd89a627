//! The command-line tool (`toolsift parse | repair | dialects | sample | replay | proxy |
//! replay-upstream`),
//! a thin layer over the library.

mod dialects_cmd;
mod message;
mod parse_cmd;
mod proxy_args;
mod proxy_cmd;
mod repair_cmd;
mod replay_cmd;
mod replay_upstream;
mod replay_upstream_cmd;
mod sample_cmd;

use clap::{Parser, Subcommand};
use std::io::{self, Read, Write};
use std::path::Path;

/// Streaming, repairing tool-call parser for LLM output.
#[derive(Parser, Debug)]
#[command(name = "toolsift", version, about, propagate_version = true)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Parse raw model output from FILE or stdin; print one JSON message (or events).
    Parse(parse_cmd::ParseArgs),
    /// Repair one possibly malformed JSON text; print it as strict JSON.
    Repair(repair_cmd::RepairArgs),
    /// List every dialect with its aliases and opening markers.
    Dialects(dialects_cmd::DialectsArgs),
    /// Parse built-in sample model output and print each message.
    Sample(sample_cmd::SampleArgs),
    /// Run captured {"raw", "tools"} records; print counters by outcome, dialect and repair.
    Replay(replay_cmd::ReplayArgs),
    /// A repairing proxy for OpenAI and Anthropic clients in front of a model server
    /// (docs/proxy.md).
    Proxy(proxy_args::ProxyArgs),
    /// A fake upstream that replays recorded model output as an OpenAI server would (try
    /// the proxy without a model; docs/proxy.md).
    ReplayUpstream(replay_upstream_cmd::ReplayUpstreamArgs),
}

/// Why a command stopped early.
#[derive(Debug)]
pub(crate) enum Failure {
    /// Bad usage or unreadable input: the message goes to stderr, exit status 2.
    Usage(String),
    /// The reader of stdout went away (`| head`): not an error, exit status 0.
    ClosedOutput,
}

impl From<String> for Failure {
    fn from(msg: String) -> Failure {
        Failure::Usage(msg)
    }
}

impl From<&str> for Failure {
    fn from(msg: &str) -> Failure {
        Failure::Usage(msg.to_owned())
    }
}

impl From<io::Error> for Failure {
    /// For errors writing stdout: a closed pipe ends the command quietly.
    fn from(err: io::Error) -> Failure {
        if err.kind() == io::ErrorKind::BrokenPipe {
            Failure::ClosedOutput
        } else {
            Failure::Usage(format!("stdout: {err}"))
        }
    }
}

/// A command's outcome: its exit status.
pub(crate) type Outcome = Result<i32, Failure>;

/// Run the tool with `args` (with the program name); returns the exit status.
pub fn main(args: Vec<String>) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(err) => {
            // --help and --version are "errors" that print to stdout with status 0.
            let _ = err.print();
            return err.exit_code();
        }
    };
    let result = match cli.command {
        Command::Parse(args) => parse_cmd::run(args),
        Command::Repair(args) => repair_cmd::run(args),
        Command::Dialects(args) => dialects_cmd::run(args),
        Command::Sample(args) => sample_cmd::run(args),
        Command::Replay(args) => replay_cmd::run(args),
        Command::Proxy(args) => proxy_cmd::run(args),
        Command::ReplayUpstream(args) => replay_upstream_cmd::run(args),
    };
    match result {
        Ok(code) => code,
        Err(Failure::ClosedOutput) => 0,
        Err(Failure::Usage(msg)) => {
            eprintln!("toolsift: {msg}");
            2
        }
    }
}

/// Open FILE, or stdin when no file (or `-`) is named.
pub(crate) fn open_input(file: Option<&Path>) -> Result<Box<dyn Read>, Failure> {
    match file {
        Some(path) if path != Path::new("-") => std::fs::File::open(path)
            .map(|f| Box::new(f) as Box<dyn Read>)
            .map_err(|e| Failure::Usage(format!("{}: {e}", path.display()))),
        _ => Ok(Box::new(io::stdin().lock())),
    }
}

/// Read all of FILE, or of stdin when no file (or `-`) is named.
pub(crate) fn read_input(file: Option<&Path>) -> Result<Vec<u8>, Failure> {
    let mut buf = Vec::new();
    open_input(file)?
        .read_to_end(&mut buf)
        .map_err(|e| Failure::Usage(format!("{}: {e}", input_name(file))))?;
    Ok(buf)
}

/// How FILE is named in messages.
pub(crate) fn input_name(file: Option<&Path>) -> String {
    match file {
        Some(path) if path != Path::new("-") => path.display().to_string(),
        _ => "stdin".to_owned(),
    }
}

/// Buffered stdout.
pub(crate) fn stdout() -> io::BufWriter<io::StdoutLock<'static>> {
    io::BufWriter::new(io::stdout().lock())
}

/// Write `value` as one JSON line.
pub(crate) fn write_json_line(
    out: &mut impl Write,
    value: &serde_json::Value,
) -> Result<(), Failure> {
    serde_json::to_writer(&mut *out, value).map_err(io::Error::from)?;
    out.write_all(b"\n")?;
    Ok(())
}
