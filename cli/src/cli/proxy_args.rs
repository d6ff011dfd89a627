//! The options of `toolsift proxy`, and how they become the proxy's and the parser's.

use super::dialects_cmd::unknown_dialect;
use clap::{Args, ValueEnum};
use toolsift::sse::CallMode;
use toolsift::{Dialect, Invalid, UnknownTool};
use toolsift_cli::proxy::{DialectChoice, ModelDialects, ParserOptions, ProxyOptions};

/// Options of `toolsift proxy`.
#[derive(Args, Debug)]
pub(crate) struct ProxyArgs {
    /// Where to serve, e.g. 127.0.0.1:8081 (port 0: any free port).
    #[arg(long, value_name = "ADDR")]
    pub listen: String,
    /// The upstream's OpenAI base URL, e.g. http://127.0.0.1:8080/v1.
    #[arg(long, value_name = "URL")]
    pub upstream: String,
    /// The dialect: a fixed one (`toolsift dialects`), auto, or model (chosen by the
    /// request's model name).
    #[arg(long, default_value = "auto", value_name = "NAME|auto|model")]
    pub dialect: String,
    /// With --dialect model: models whose name contains PATTERN use dialect NAME
    /// (repeatable; tried before the built-in rules).
    #[arg(long, value_name = "PATTERN=NAME", value_parser = ModelDialects::parse_rule)]
    pub model_dialect: Vec<(String, Dialect)>,
    /// Calls to undeclared tools.
    #[arg(long, value_enum, default_value_t = UnknownToolArg::Reject)]
    pub unknown_tool: UnknownToolArg,
    /// Calls that break their schema after repair.
    #[arg(long, value_enum, default_value_t = InvalidArg::Release)]
    pub invalid: InvalidArg,
    /// Send each call whole once it is released, instead of streaming its name and
    /// argument deltas as they are parsed.
    #[arg(long)]
    pub hold_calls: bool,
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

impl ProxyArgs {
    /// The listen address, and the proxy's and the parser's options.
    pub(crate) fn options(self) -> Result<(String, ProxyOptions, ParserOptions), String> {
        let mut parser = ParserOptions {
            unknown_tool: match self.unknown_tool {
                UnknownToolArg::Reject => UnknownTool::Reject,
                UnknownToolArg::Forward => UnknownTool::Forward,
            },
            invalid: match self.invalid {
                InvalidArg::Release => Invalid::Release,
                InvalidArg::Hold => Invalid::HoldBack,
            },
            ..ParserOptions::default()
        };
        parser.dialect = if self.dialect == "model" {
            let mut table = ModelDialects::default();
            for (pattern, d) in self.model_dialect.iter().rev() {
                table.prepend(pattern, *d);
            }
            DialectChoice::ByModel(table)
        } else {
            if !self.model_dialect.is_empty() {
                return Err("--model-dialect needs --dialect model".into());
            }
            let dialect = Dialect::from_name(&self.dialect)
                .ok_or_else(|| format!("--dialect: {}", unknown_dialect(&self.dialect)))?;
            DialectChoice::Fixed(dialect)
        };
        let proxy = ProxyOptions {
            upstream: self.upstream,
            call_mode: if self.hold_calls {
                CallMode::Buffered
            } else {
                CallMode::Streamed
            },
            ..ProxyOptions::default()
        };
        Ok((self.listen, proxy, parser))
    }
}
