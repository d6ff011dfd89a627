//! `toolsift parse`: reads as it goes and prints as it parses, so memory is bounded by
//! the largest call (and, for the message, the text shown), never by the input.

use super::dialects_cmd::dialect_arg;
use super::message::{event_json, Message};
use super::{open_input, stdout, write_json_line, Failure, Outcome};
use clap::Args;
use serde_json::{json, Value};
use std::convert::Infallible;
use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
use std::path::PathBuf;
use std::sync::Arc;
use toolsift::{Config, Dialect, Parser, StopReason, Tools};

/// Options of `toolsift parse`.
#[derive(Args, Debug)]
pub(crate) struct ParseArgs {
    /// Raw model output (default: stdin; `-` is stdin).
    file: Option<PathBuf>,
    /// The dialect (`toolsift dialects` lists them).
    #[arg(long, default_value = "auto", value_parser = dialect_arg, value_name = "NAME")]
    dialect: Dialect,
    /// OpenAI tool definitions: a JSON array, or an object with a "tools" array.
    #[arg(long, value_name = "FILE")]
    tools: Option<PathBuf>,
    /// How the input is pushed: whole (each block as read), bytes, N (bytes per push) or
    /// random:SEED (1-16 bytes per push). The result does not depend on it.
    #[arg(long, default_value = "whole", value_parser = Chunks::parse, value_name = "MODE")]
    chunks: Chunks,
    /// How generation ended: stop (also eos, end_turn), length (also max_tokens) or
    /// disconnected; any case.
    #[arg(long, default_value = "stop", value_parser = stop_arg, value_name = "REASON")]
    stop: StopReason,
    /// The prompt already opened a reasoning block.
    #[arg(long)]
    reasoning_open: bool,
    /// Print the events as JSON lines, as they come, instead of the message.
    #[arg(long)]
    events: bool,
    /// Batch: each input line {"raw": str, "tools"?: [..], "dialect"?: str, "stop"?: str,
    /// "reasoning_open"?: bool}; prints one line per input line, in order (a bad line
    /// gives {"line": N, "error": str} and the batch goes on; the exit status is then 1).
    #[arg(long)]
    jsonl: bool,
}

/// A stop reason by name, in any case (`LENGTH`); the names servers use for the same
/// reasons (`eos`, `end_turn`, `max_tokens`) are accepted and listed in `--help`.
pub(crate) fn stop_arg(text: &str) -> Result<StopReason, String> {
    StopReason::from_name(&text.to_ascii_lowercase()).ok_or_else(|| {
        format!(
            "expected stop (also eos, end_turn), length (also max_tokens) or disconnected, got {text:?}"
        )
    })
}

/// How input is pushed.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Chunks {
    Whole,
    Bytes,
    Fixed(usize),
    Random(u64),
}

impl Chunks {
    pub(crate) fn parse(text: &str) -> Result<Chunks, String> {
        Ok(match text {
            "whole" => Chunks::Whole,
            "bytes" => Chunks::Bytes,
            _ => {
                if let Some(seed) = text.strip_prefix("random:") {
                    Chunks::Random(seed.parse().map_err(|_| format!("bad seed in {text:?}"))?)
                } else {
                    match text.parse::<usize>() {
                        Ok(n) if n > 0 => Chunks::Fixed(n),
                        Ok(_) => {
                            return Err(format!(
                                "N (bytes per push) must be at least 1, got {text:?}"
                            ))
                        }
                        _ => {
                            return Err(format!(
                                "expected whole, bytes, N or random:SEED, got {text:?}"
                            ))
                        }
                    }
                }
            }
        })
    }

    /// The sizes of successive pushes.
    fn splitter(self) -> Splitter {
        let state = match self {
            Chunks::Random(seed) => seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1,
            _ => 0,
        };
        Splitter {
            chunks: self,
            state,
        }
    }
}

impl std::fmt::Display for Chunks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Chunks::Whole => f.write_str("whole"),
            Chunks::Bytes => f.write_str("bytes"),
            Chunks::Fixed(n) => write!(f, "{n}"),
            Chunks::Random(seed) => write!(f, "random:{seed}"),
        }
    }
}

/// Cuts blocks of input into pushes; a random sequence runs on across blocks.
struct Splitter {
    chunks: Chunks,
    state: u64,
}

impl Splitter {
    fn next_size(&mut self) -> usize {
        match self.chunks {
            Chunks::Whole => usize::MAX,
            Chunks::Bytes => 1,
            Chunks::Fixed(n) => n,
            Chunks::Random(_) => {
                // xorshift64*: deterministic, no dependency.
                self.state ^= self.state >> 12;
                self.state ^= self.state << 25;
                self.state ^= self.state >> 27;
                (self.state.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 60) as usize + 1
            }
        }
    }
}

/// One parser over one response, handing each event to a sink as soon as it is out.
pub(crate) struct Run {
    parser: Parser,
    splitter: Splitter,
}

impl Run {
    pub(crate) fn new(parser: Parser, chunks: Chunks) -> Run {
        Run {
            parser,
            splitter: chunks.splitter(),
        }
    }

    /// Push `bytes` in this run's chunks.
    pub(crate) fn push<E>(
        &mut self,
        mut bytes: &[u8],
        sink: &mut impl FnMut(&toolsift::OwnedEvent) -> Result<(), E>,
    ) -> Result<(), E> {
        while !bytes.is_empty() {
            let n = self.splitter.next_size().min(bytes.len());
            self.parser.push(&bytes[..n]);
            bytes = &bytes[n..];
            self.drain(sink)?;
        }
        Ok(())
    }

    /// End the response; hands back the parser for the next one.
    pub(crate) fn finish<E>(
        mut self,
        stop: StopReason,
        sink: &mut impl FnMut(&toolsift::OwnedEvent) -> Result<(), E>,
    ) -> Result<Parser, E> {
        self.parser.finish(stop);
        self.drain(sink)?;
        Ok(self.parser)
    }

    fn drain<E>(
        &mut self,
        sink: &mut impl FnMut(&toolsift::OwnedEvent) -> Result<(), E>,
    ) -> Result<(), E> {
        while let Some(event) = self.parser.next_event() {
            sink(&event.into_owned())?;
        }
        Ok(())
    }
}

/// Parse one whole response held in memory into its message (`toolsift sample`).
pub(crate) fn message_of(config: Config, chunks: Chunks, stop: StopReason, raw: &[u8]) -> Value {
    let mut msg = Message::default();
    let mut sink = |e: &toolsift::OwnedEvent| -> Result<(), Infallible> {
        msg.push(e);
        Ok(())
    };
    let mut run = Run::new(Parser::with_config(config), chunks);
    let Ok(()) = run.push(raw, &mut sink);
    let Ok(_) = run.finish(stop, &mut sink);
    msg.to_json()
}

pub(crate) fn run(args: ParseArgs) -> Outcome {
    let mut config = Config::new(args.dialect);
    config.reasoning_open = args.reasoning_open;
    if let Some(path) = &args.tools {
        let text = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let tools = Tools::from_json(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        config.tools = Arc::new(tools);
    }
    let input = open_input(args.file.as_deref())?;
    let name = super::input_name(args.file.as_deref());
    if args.jsonl {
        batch(&args, config, input, &name)
    } else {
        single(&args, config, input, &name)
    }
}

/// Where a response's events go: out as event lines, or folded into its message.
struct Printer<W: Write> {
    out: W,
    events: bool,
    msg: Message,
}

impl<W: Write> Printer<W> {
    fn event(&mut self, event: &toolsift::OwnedEvent) -> Result<(), Failure> {
        if self.events {
            write_json_line(&mut self.out, &event_json(event))?;
        } else {
            self.msg.push(event);
        }
        Ok(())
    }
}

/// One response, read in blocks as they arrive.
fn single(args: &ParseArgs, config: Config, mut input: Box<dyn Read>, name: &str) -> Outcome {
    let mut printer = Printer {
        out: stdout(),
        events: args.events,
        msg: Message::default(),
    };
    let mut run = Run::new(Parser::with_config(config), args.chunks);
    let mut block = vec![0u8; 64 << 10];
    loop {
        let n = match input.read(&mut block) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(Failure::Usage(format!("{name}: {e}"))),
        };
        run.push(&block[..n], &mut |e| printer.event(e))?;
        if args.events {
            // What this block released is out before the next block is waited for.
            printer.out.flush()?;
        }
    }
    run.finish(args.stop, &mut |e| printer.event(e))?;
    if !args.events {
        write_json_line(&mut printer.out, &printer.msg.to_json())?;
    }
    printer.out.flush()?;
    Ok(0)
}

/// One response per input line, each answered (and flushed) before the next is read.
fn batch(args: &ParseArgs, config: Config, input: Box<dyn Read>, name: &str) -> Outcome {
    let mut out = stdout();
    let mut input = BufReader::with_capacity(64 << 10, input);
    let mut line = Vec::new();
    let mut parser: Option<Parser> = None;
    let mut last_key: Option<(String, Dialect, bool)> = None;
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
        let record = match Record::read(&line, &config, args.stop) {
            Ok(record) => record,
            Err(error) => {
                bad_lines += 1;
                write_json_line(&mut out, &json!({"line": n, "error": error}))?;
                out.flush()?;
                continue;
            }
        };
        // The parser is reused while the configuration stays the same (it usually does).
        if last_key.as_ref() != Some(&record.key) {
            parser = None;
            last_key = Some(record.key.clone());
        }
        let mut p = match parser.take() {
            Some(mut p) => {
                p.reset();
                p
            }
            None => Parser::with_config(record.config),
        };
        let mut msg = Message::default();
        let mut events = Vec::new();
        let mut sink = |e: &toolsift::OwnedEvent| -> Result<(), Failure> {
            if args.events {
                events.push(event_json(e));
            } else {
                msg.push(e);
            }
            Ok(())
        };
        let mut run = Run::new(p, args.chunks);
        run.push(record.raw.as_bytes(), &mut sink)?;
        p = run.finish(record.stop, &mut sink)?;
        parser = Some(p);
        let answer = if args.events {
            Value::Array(events)
        } else {
            msg.to_json()
        };
        write_json_line(&mut out, &answer)?;
        out.flush()?;
    }
    out.flush()?;
    Ok(if bad_lines > 0 { 1 } else { 0 })
}

/// One `--jsonl` input line.
struct Record {
    raw: String,
    config: Config,
    stop: StopReason,
    /// What the parser is configured by: the tools' text, the dialect, reasoning_open.
    key: (String, Dialect, bool),
}

impl Record {
    fn read(line: &[u8], base: &Config, stop: StopReason) -> Result<Record, String> {
        let record: Value = serde_json::from_slice(line).map_err(|e| e.to_string())?;
        let raw = record
            .get("raw")
            .and_then(Value::as_str)
            .ok_or("no \"raw\" string")?
            .to_owned();
        let mut config = base.clone();
        let tools = record.get("tools").filter(|t| !t.is_null());
        if let Some(tools) = tools {
            config.tools = Arc::new(Tools::from_value(tools).map_err(|e| format!("tools: {e}"))?);
        }
        if let Some(d) = record.get("dialect") {
            let d = d.as_str().ok_or("\"dialect\" is not a string")?;
            config.dialect = dialect_arg(d)?;
        }
        if let Some(r) = record.get("reasoning_open") {
            config.reasoning_open = r.as_bool().ok_or("\"reasoning_open\" is not a boolean")?;
        }
        let stop = match record.get("stop") {
            Some(s) => stop_arg(s.as_str().ok_or("\"stop\" is not a string")?)?,
            None => stop,
        };
        let key = (
            tools.map(Value::to_string).unwrap_or_default(),
            config.dialect,
            config.reasoning_open,
        );
        Ok(Record {
            raw,
            config,
            stop,
            key,
        })
    }
}
