//! The proxy's settings as one flat record, read from a TOML file (`--config FILE`) and
//! overlaid by command-line flags: everything the flags set, plus per-model rules.
//!
//! ```toml
//! listen = "127.0.0.1:8081"
//! upstream = "https://gpu-box:8443/v1"
//! upstream_ca = "/etc/toolsift/upstream-ca.pem"
//! connect_timeout = 10          # seconds
//! idle_timeout = 300            # seconds
//! max_body_bytes = 33554432
//! dialect = "model"             # a dialect name, "auto" or "model"
//! unknown_tool = "reject"       # or "forward"
//! invalid = "release"           # or "hold"
//! hold_calls = false
//! reasoning_open = false
//! log = "json"                  # "text", "json" or "off"
//!
//! [[models]]
//! match = "qwen3-30b-thinking"  # the request's model name contains this
//! dialect = "hermes"
//! reasoning_open = true         # its chat template opens <think> in the prompt
//! ```

use crate::proxy::{DialectChoice, LogFormat, ModelDialects, ParserOptions, ProxyOptions};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use std::time::Duration;
use toolsift::sse::CallMode;
use toolsift::{Dialect, Invalid, UnknownTool};

/// A rule for the models whose name contains `match` (case, `-`, `_` and `.` ignored).
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ModelRule {
    /// The pattern the model name must contain.
    #[serde(rename = "match")]
    pub pattern: String,
    /// The dialect of these models (with `dialect = "model"`, the default when any rule
    /// names one).
    pub dialect: Option<String>,
    /// The chat template of these models opens a reasoning block in the prompt.
    pub reasoning_open: Option<bool>,
}

/// Every setting of `toolsift proxy`; unset ones take their defaults.
#[derive(Clone, Debug, Default, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// Where to serve.
    pub listen: Option<String>,
    /// The upstream base URL.
    pub upstream: Option<String>,
    /// PEM certificates trusted for an `https://` upstream.
    pub upstream_ca: Option<PathBuf>,
    /// Seconds to connect to the upstream.
    pub connect_timeout: Option<f64>,
    /// Seconds the upstream may stay silent.
    pub idle_timeout: Option<f64>,
    /// The bound on request bodies and whole upstream responses, in bytes.
    pub max_body_bytes: Option<usize>,
    /// The bound on one upstream SSE event, in bytes.
    pub max_event_bytes: Option<usize>,
    /// A dialect name, `auto` or `model`.
    pub dialect: Option<String>,
    /// `reject` or `forward`.
    pub unknown_tool: Option<String>,
    /// `release` or `hold`.
    pub invalid: Option<String>,
    /// Send chat completion calls whole once released instead of streaming them.
    pub hold_calls: Option<bool>,
    /// Every model's template opens a reasoning block.
    pub reasoning_open: Option<bool>,
    /// `text`, `json` or `off`.
    pub log: Option<String>,
    /// Per-model rules, tried in order.
    #[serde(default)]
    pub models: Vec<ModelRule>,
}

/// What a [`ConfigFile`] settles into.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Where to serve.
    pub listen: String,
    /// The proxy's options.
    pub proxy: ProxyOptions,
    /// The parser's options.
    pub parser: ParserOptions,
}

fn seconds(name: &str, value: Option<f64>, default: Duration) -> Result<Duration, String> {
    match value {
        None => Ok(default),
        Some(s) if s.is_finite() && s > 0.0 => Ok(Duration::from_secs_f64(s)),
        Some(s) => Err(format!(
            "{name}: expected a positive number of seconds, got {s}"
        )),
    }
}

impl ConfigFile {
    /// Read a TOML text.
    pub fn from_toml(text: &str) -> Result<ConfigFile, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }

    /// Read a TOML file.
    pub fn load(path: &Path) -> Result<ConfigFile, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        ConfigFile::from_toml(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Lay `over` on top: its set values win, its model rules come first.
    pub fn overlay(&mut self, over: ConfigFile) {
        macro_rules! take {
            ($($field:ident),*) => { $(if over.$field.is_some() { self.$field = over.$field; })* };
        }
        take!(
            listen,
            upstream,
            upstream_ca,
            connect_timeout,
            idle_timeout,
            max_body_bytes,
            max_event_bytes,
            dialect,
            unknown_tool,
            invalid,
            hold_calls,
            reasoning_open,
            log
        );
        let mut models = over.models;
        models.append(&mut self.models);
        self.models = models;
    }

    /// Check every value and build the options. `listen` and `upstream` are required.
    pub fn settle(self) -> Result<Settings, String> {
        let defaults = ProxyOptions::default();
        let listen = self.listen.ok_or("--listen (or `listen`) is required")?;
        let upstream = self
            .upstream
            .ok_or("--upstream (or `upstream`) is required")?;
        let (log, log_format) = match self.log.as_deref() {
            None | Some("text") => (true, LogFormat::Text),
            Some("json") => (true, LogFormat::Json),
            Some("off") => (false, LogFormat::Text),
            Some(other) => return Err(format!("log: expected text, json or off, got {other:?}")),
        };
        let proxy = ProxyOptions {
            upstream,
            upstream_ca: self.upstream_ca,
            connect_timeout: seconds(
                "connect_timeout",
                self.connect_timeout,
                defaults.connect_timeout,
            )?,
            idle_timeout: seconds("idle_timeout", self.idle_timeout, defaults.idle_timeout)?,
            max_body_bytes: self.max_body_bytes.unwrap_or(defaults.max_body_bytes),
            max_event_bytes: self.max_event_bytes.unwrap_or(defaults.max_event_bytes),
            call_mode: if self.hold_calls.unwrap_or(false) {
                CallMode::Buffered
            } else {
                CallMode::Streamed
            },
            log,
            log_format,
            ..defaults
        };
        let mut parser = ParserOptions {
            reasoning_open: self.reasoning_open.unwrap_or(false),
            ..ParserOptions::default()
        };
        parser.unknown_tool = match self.unknown_tool.as_deref() {
            None | Some("reject") => UnknownTool::Reject,
            Some("forward") => UnknownTool::Forward,
            Some(other) => {
                return Err(format!(
                    "unknown_tool: expected reject or forward, got {other:?}"
                ))
            }
        };
        parser.invalid = match self.invalid.as_deref() {
            None | Some("release") => Invalid::Release,
            Some("hold") => Invalid::HoldBack,
            Some(other) => return Err(format!("invalid: expected release or hold, got {other:?}")),
        };
        let mut table = ModelDialects::default();
        let mut dialect_rules = false;
        for rule in &self.models {
            if rule.pattern.is_empty() {
                return Err("models: an empty `match` pattern".into());
            }
            if let Some(name) = &rule.dialect {
                let dialect = Dialect::from_name(name)
                    .ok_or_else(|| format!("models: unknown dialect {name:?}"))?;
                table.push(&rule.pattern, dialect);
                dialect_rules = true;
            }
            if rule.reasoning_open == Some(true) {
                parser.reasoning_models.push(rule.pattern.clone());
            }
        }
        parser.dialect = match self.dialect.as_deref() {
            Some("model") => DialectChoice::ByModel(table),
            None if dialect_rules => DialectChoice::ByModel(table),
            None => DialectChoice::Fixed(Dialect::Auto),
            Some(name) => {
                if dialect_rules {
                    return Err("per-model dialects need dialect \"model\"".into());
                }
                DialectChoice::Fixed(
                    Dialect::from_name(name).ok_or_else(|| format!("unknown dialect {name:?}"))?,
                )
            }
        };
        Ok(Settings {
            listen,
            proxy,
            parser,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const FILE: &str = r#"
listen = "127.0.0.1:0"
upstream = "https://up:8443/v1"
idle_timeout = 2.5
max_body_bytes = 1024
log = "json"

[[models]]
match = "qwen3-thinking"
dialect = "hermes"
reasoning_open = true

[[models]]
match = "coder"
dialect = "qwen3_coder"
"#;

    #[test]
    fn a_file_with_model_rules_settles() {
        let settings = ConfigFile::from_toml(FILE).unwrap().settle().unwrap();
        assert_eq!(settings.proxy.idle_timeout, Duration::from_millis(2500));
        assert_eq!(settings.proxy.max_body_bytes, 1024);
        assert_eq!(settings.proxy.log_format, LogFormat::Json);
        let DialectChoice::ByModel(table) = &settings.parser.dialect else {
            panic!("by model");
        };
        assert_eq!(table.lookup("Qwen3_Thinking-30B"), Dialect::Hermes);
        assert_eq!(table.lookup("my-coder"), Dialect::Qwen3Coder);
        assert!(settings.parser.reasoning_open_for("qwen3.thinking"));
        assert!(!settings.parser.reasoning_open_for("my-coder"));
    }

    #[test]
    fn flags_overlay_the_file_and_bad_values_are_named() {
        let mut file = ConfigFile::from_toml(FILE).unwrap();
        file.overlay(ConfigFile {
            max_body_bytes: Some(7),
            models: vec![ModelRule {
                pattern: "qwen3".into(),
                dialect: Some("qwen3_coder".into()),
                reasoning_open: None,
            }],
            ..ConfigFile::default()
        });
        let settings = file.clone().settle().unwrap();
        assert_eq!(settings.proxy.max_body_bytes, 7);
        let DialectChoice::ByModel(table) = &settings.parser.dialect else {
            panic!("by model");
        };
        assert_eq!(table.lookup("qwen3-thinking"), Dialect::Qwen3Coder);
        assert!(ConfigFile::from_toml("nope = 1").is_err());
        for bad in [
            "idle_timeout = -1",
            "log = \"loud\"",
            "dialect = \"klingon\"",
            "invalid = \"maybe\"",
        ] {
            let text = format!("listen = \"a\"\nupstream = \"b\"\n{bad}");
            assert!(
                ConfigFile::from_toml(&text).unwrap().settle().is_err(),
                "{bad}"
            );
        }
        let text = "listen = \"a\"\nupstream = \"b\"\ndialect = \"hermes\"\n[[models]]\nmatch = \"x\"\ndialect = \"glm\"";
        assert!(ConfigFile::from_toml(text).unwrap().settle().is_err());
    }
}
