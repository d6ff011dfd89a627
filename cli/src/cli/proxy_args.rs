//! The options of `toolsift proxy`, and how they become the proxy's and the parser's:
//! the flags are laid over the config file (`--config`), then checked together.

use super::dialects_cmd::unknown_dialect;
use clap::{Args, ValueEnum};
use std::path::PathBuf;
use toolsift::Dialect;
use toolsift_cli::proxy::{ConfigFile, ModelDialects, ModelRule, Settings};

/// Options of `toolsift proxy`. Each has a key of the same name in the config file.
#[derive(Args, Debug, Default)]
pub(crate) struct ProxyArgs {
    /// Read settings from a TOML file (docs/proxy.md); flags given here win.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Where to serve, e.g. 127.0.0.1:8081 (port 0: any free port).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
    /// The upstream's OpenAI base URL, e.g. http://127.0.0.1:8080/v1 or
    /// https://gpu-box:8443/v1.
    #[arg(long, value_name = "URL")]
    pub upstream: Option<String>,
    /// PEM certificates to trust for an https upstream, besides the built-in roots.
    #[arg(long, value_name = "FILE")]
    pub upstream_ca: Option<PathBuf>,
    /// The bound on connecting to the upstream, in seconds [default: 10].
    #[arg(long, value_name = "SECS")]
    pub connect_timeout: Option<f64>,
    /// The longest the upstream may stay silent, in seconds [default: 300].
    #[arg(long, value_name = "SECS")]
    pub idle_timeout: Option<f64>,
    /// The bound on a request body and a whole upstream answer [default: 33554432].
    #[arg(long, value_name = "N")]
    pub max_body_bytes: Option<usize>,
    /// The dialect: a fixed one (`toolsift dialects`), auto, or model (chosen by the
    /// request's model name) [default: auto].
    #[arg(long, value_name = "NAME|auto|model")]
    pub dialect: Option<String>,
    /// Models whose name contains PATTERN use dialect NAME (repeatable; tried before the
    /// built-in rules; implies --dialect model).
    #[arg(long, value_name = "PATTERN=NAME", value_parser = ModelDialects::parse_rule)]
    pub model_dialect: Vec<(String, Dialect)>,
    /// The chat template opens a reasoning block (`<think>`) in the prompt: output starts
    /// inside it.
    #[arg(long)]
    pub reasoning_open: bool,
    /// The same, only for models whose name contains PATTERN (repeatable).
    #[arg(long, value_name = "PATTERN")]
    pub model_reasoning_open: Vec<String>,
    /// Calls to undeclared tools [default: reject].
    #[arg(long, value_enum)]
    pub unknown_tool: Option<UnknownToolArg>,
    /// Calls that break their schema after repair [default: release].
    #[arg(long, value_enum)]
    pub invalid: Option<InvalidArg>,
    /// Send each chat completion call whole once it is released, instead of streaming
    /// its name and argument deltas as they are parsed.
    #[arg(long)]
    pub hold_calls: bool,
    /// The per-request log line on stderr [default: text].
    #[arg(long, value_enum)]
    pub log: Option<LogArg>,
}

/// `--unknown-tool`.
#[derive(Copy, Clone, Debug, ValueEnum)]
pub(crate) enum UnknownToolArg {
    /// Not released (`unknown_tool`), with feedback for the model.
    Reject,
    /// Released as written.
    Forward,
}

/// `--invalid`.
#[derive(Copy, Clone, Debug, ValueEnum)]
pub(crate) enum InvalidArg {
    /// Released, with the validation errors.
    Release,
    /// Not released (`schema_violation`).
    Hold,
}

/// `--log`.
#[derive(Copy, Clone, Debug, ValueEnum)]
pub(crate) enum LogArg {
    /// One readable line per request.
    Text,
    /// One JSON object per request.
    Json,
    /// No per-request line.
    Off,
}

impl ProxyArgs {
    /// The flags as settings (unset ones left to the file or the defaults).
    fn settings(self) -> ConfigFile {
        let mut models: Vec<ModelRule> = self
            .model_dialect
            .into_iter()
            .map(|(pattern, dialect)| ModelRule {
                pattern,
                dialect: Some(dialect.name().to_owned()),
                reasoning_open: None,
            })
            .collect();
        models.extend(
            self.model_reasoning_open
                .into_iter()
                .map(|pattern| ModelRule {
                    pattern,
                    dialect: None,
                    reasoning_open: Some(true),
                }),
        );
        ConfigFile {
            listen: self.listen,
            upstream: self.upstream,
            upstream_ca: self.upstream_ca,
            connect_timeout: self.connect_timeout,
            idle_timeout: self.idle_timeout,
            max_body_bytes: self.max_body_bytes,
            max_event_bytes: None,
            dialect: self.dialect,
            unknown_tool: self.unknown_tool.map(|u| {
                match u {
                    UnknownToolArg::Reject => "reject",
                    UnknownToolArg::Forward => "forward",
                }
                .to_owned()
            }),
            invalid: self.invalid.map(|i| {
                match i {
                    InvalidArg::Release => "release",
                    InvalidArg::Hold => "hold",
                }
                .to_owned()
            }),
            hold_calls: self.hold_calls.then_some(true),
            reasoning_open: self.reasoning_open.then_some(true),
            log: self.log.map(|l| {
                match l {
                    LogArg::Text => "text",
                    LogArg::Json => "json",
                    LogArg::Off => "off",
                }
                .to_owned()
            }),
            models,
        }
    }

    /// The listen address, and the proxy's and the parser's options: the config file
    /// (if any) with the flags over it.
    pub(crate) fn options(mut self) -> Result<Settings, String> {
        let mut settings = match self.config.take() {
            Some(path) => ConfigFile::load(&path)?,
            None => ConfigFile::default(),
        };
        settings.overlay(self.settings());
        if let Some(name) = settings
            .dialect
            .as_deref()
            .filter(|d| *d != "model" && Dialect::from_name(d).is_none())
        {
            return Err(format!("--dialect: {}", unknown_dialect(name)));
        }
        settings.settle()
    }
}
