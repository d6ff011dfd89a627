//! The real transform: a [`Parser`] per request, configured from the request body.

use crate::proxy::transform::Transform;
use serde_json::Value;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};
use toolsift::Dialect;
use toolsift::Parser;
use toolsift::Tools;
use toolsift::{Config, Invalid, Limits, ParallelCalls, ToolChoice, UnknownTool};
use toolsift::{OwnedEvent, StopReason};

/// How the dialect of a request is chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DialectChoice {
    /// Always this dialect ([`Dialect::Auto`] locks onto the first call marker seen).
    Fixed(Dialect),
    /// From the request's `model` name: the first [`ModelDialects`] rule whose pattern the
    /// name contains; `auto` when none does.
    ByModel(ModelDialects),
}

impl Default for DialectChoice {
    fn default() -> DialectChoice {
        DialectChoice::Fixed(Dialect::Auto)
    }
}

/// User rules from model names to dialects: `(pattern, dialect)`, tried in order before
/// the built-in detection ([`Dialect::from_model_name`]), a rule matching when the
/// lowercased model name contains the pattern (with `-`, `.` and `_` treated alike).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModelDialects {
    rules: Vec<(String, Dialect)>,
}

impl Default for ModelDialects {
    /// No user rules: every model name goes to [`Dialect::from_model_name`].
    fn default() -> ModelDialects {
        ModelDialects { rules: Vec::new() }
    }
}

fn normalize(name: &str) -> String {
    name.to_ascii_lowercase().replace(['.', '_'], "-")
}

impl ModelDialects {
    /// No user rules (the same as the default).
    pub fn empty() -> ModelDialects {
        ModelDialects::default()
    }

    /// Add a rule after the existing ones.
    pub fn push(&mut self, pattern: &str, dialect: Dialect) {
        self.rules.push((normalize(pattern), dialect));
    }

    /// Add a rule before the existing ones (user rules override the built-in ones).
    pub fn prepend(&mut self, pattern: &str, dialect: Dialect) {
        self.rules.insert(0, (normalize(pattern), dialect));
    }

    /// Parse `PATTERN=DIALECT` (the dialect by [`Dialect::from_name`]).
    pub fn parse_rule(rule: &str) -> Result<(String, Dialect), String> {
        let (pattern, name) = rule
            .split_once('=')
            .ok_or_else(|| format!("expected PATTERN=DIALECT, got {rule:?}"))?;
        let dialect =
            Dialect::from_name(name).ok_or_else(|| format!("unknown dialect {name:?}"))?;
        if pattern.is_empty() {
            return Err(format!("empty model pattern in {rule:?}"));
        }
        Ok((pattern.to_owned(), dialect))
    }

    /// The dialect for `model`: the first user rule that matches, else what
    /// [`Dialect::from_model_name`] recognises, else `auto`.
    pub fn lookup(&self, model: &str) -> Dialect {
        let normalized = normalize(model);
        self.rules
            .iter()
            .find(|(pattern, _)| normalized.contains(pattern.as_str()))
            .map(|&(_, dialect)| dialect)
            .or_else(|| Dialect::from_model_name(model).map(|(dialect, _)| dialect))
            .unwrap_or(Dialect::Auto)
    }
}

/// What the proxy's parser transforms are built from.
#[derive(Clone, Debug, Default)]
pub struct ParserOptions {
    /// How each request's dialect is chosen (default `auto`).
    pub dialect: DialectChoice,
    /// Calls naming a tool the request did not declare.
    pub unknown_tool: UnknownTool,
    /// Calls that still break their schema after repair.
    pub invalid: Invalid,
    /// Parser limits.
    pub limits: Limits,
    /// Every model's chat template opens a reasoning block (`<think>`) in the prompt, so
    /// the output starts inside it.
    pub reasoning_open: bool,
    /// Models whose template opens a reasoning block: a model whose name contains one of
    /// these patterns (compared as [`ModelDialects`] compares them) starts inside it.
    pub reasoning_models: Vec<String>,
}

impl ParserOptions {
    /// Whether `model`'s output starts inside a reasoning block.
    pub fn reasoning_open_for(&self, model: &str) -> bool {
        let model = normalize(model);
        self.reasoning_open
            || self
                .reasoning_models
                .iter()
                .any(|pattern| model.contains(normalize(pattern).as_str()))
    }
}

/// Builds one [`ParserTransform`] per request; every transform gets call ids no other
/// request of this process shares.
#[derive(Debug)]
pub struct ParserTransforms {
    options: ParserOptions,
    requests: AtomicU64,
    /// Distinguishes this process's ids from another run's.
    salt: u64,
}

impl ParserTransforms {
    /// A factory for `options`.
    pub fn new(options: ParserOptions) -> ParserTransforms {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        // Mix seconds and nanoseconds so two runs in the same second differ too.
        let salt = (now.as_secs() ^ u64::from(now.subsec_nanos()).rotate_left(32))
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            ^ u64::from(std::process::id());
        ParserTransforms {
            options,
            requests: AtomicU64::new(0),
            salt,
        }
    }

    /// The parser configuration for one request body (its `model` and `tools`).
    pub fn config(&self, request: &Value) -> Config {
        let n = self.requests.fetch_add(1, Ordering::Relaxed);
        let dialect = match &self.options.dialect {
            DialectChoice::Fixed(dialect) => *dialect,
            DialectChoice::ByModel(rules) => rules.lookup(request["model"].as_str().unwrap_or("")),
        };
        let mut config = Config::new(dialect);
        if let Some(tools) = request.get("tools").filter(|t| !t.is_null()) {
            match Tools::from_value(tools) {
                Ok(tools) => config = config.tools(tools),
                // The upstream will judge the request; the parser runs without schemas.
                Err(err) => eprintln!("toolsift proxy: request tools ignored: {err}"),
            }
        }
        config
            .tool_choice(tool_choice(&request["tool_choice"]))
            .parallel_calls(match request["parallel_tool_calls"] {
                Value::Bool(false) => ParallelCalls::FirstOnly,
                _ => ParallelCalls::Allowed,
            })
            .unknown_tool(self.options.unknown_tool)
            .invalid(self.options.invalid)
            .limits(self.options.limits.clone())
            .reasoning_open(
                self.options
                    .reasoning_open_for(request["model"].as_str().unwrap_or("")),
            )
            .id_prefix(format!("call_{n}_{:08x}_", (self.salt >> 16) as u32))
    }

    /// The transform for one request body.
    pub fn make(&self, request: &Value) -> ParserTransform {
        ParserTransform::new(self.config(request))
    }

    /// As a `make_transform` function for [`Proxy::new`](crate::proxy::Proxy::new).
    pub fn into_maker(self) -> impl Fn(&Value) -> Box<dyn Transform> + Send + Sync + 'static {
        let this = Arc::new(self);
        move |request: &Value| Box::new(this.make(request)) as Box<dyn Transform>
    }
}

/// A chat request's `tool_choice` (the Anthropic and Responses surfaces translate theirs
/// into it): `"none"`, `"required"`, a named function, or the model's choice.
pub fn tool_choice(choice: &Value) -> ToolChoice {
    match choice {
        Value::String(s) if s == "none" => ToolChoice::None,
        Value::String(s) if s == "required" => ToolChoice::Required,
        Value::Object(o) => match o.get("function").and_then(|f| f.get("name")) {
            Some(Value::String(name)) => ToolChoice::Function(name.as_str().into()),
            _ => ToolChoice::Auto,
        },
        _ => ToolChoice::Auto,
    }
}

/// A [`Transform`] over the real tool-call [`Parser`].
///
/// With [`Config::reasoning_open`], an upstream that sends `reasoning_content` before
/// any text has separated the reasoning itself: the text then starts outside it.
pub struct ParserTransform {
    parser: Parser,
    /// Whether text was pushed.
    fed: bool,
}

impl ParserTransform {
    /// A transform over a parser built from `config`.
    pub fn new(config: Config) -> ParserTransform {
        ParserTransform {
            parser: Parser::with_config(config),
            fed: false,
        }
    }

    fn drain(&mut self, out: &mut Vec<OwnedEvent>) {
        while let Some(event) = self.parser.next_event() {
            out.push(event.into_owned());
        }
    }
}

impl Transform for ParserTransform {
    fn push(&mut self, text: &[u8], out: &mut Vec<OwnedEvent>) {
        self.fed |= !text.is_empty();
        self.parser.push(text);
        self.drain(out);
    }

    fn push_reasoning(&mut self, text: &str, out: &mut Vec<OwnedEvent>) {
        if !self.fed && !text.is_empty() && self.parser.config().reasoning_open {
            let mut config = self.parser.config().clone();
            config.reasoning_open = false;
            self.parser = Parser::with_config(config);
        }
        if !text.is_empty() {
            out.push(OwnedEvent::Reasoning(text.to_owned()));
        }
    }

    fn finish(&mut self, stop: StopReason, out: &mut Vec<OwnedEvent>) {
        self.parser.finish(stop);
        self.drain(out);
    }

    fn anomalies(&self) -> crate::proxy::transform::Anomalies {
        let stats = self.parser.stats();
        crate::proxy::transform::Anomalies {
            markup_stripped: stats.markup_stripped,
            calls_in_reasoning: stats.calls_in_reasoning,
        }
    }

    fn dialect(&self) -> Option<String> {
        let configured = self.parser.config().dialect;
        let in_force = self.parser.dialect();
        Some(if configured == in_force {
            in_force.name().to_owned()
        } else {
            format!("{configured}:{in_force}")
        })
    }

    fn call_config(&self) -> Config {
        self.parser.config().clone()
    }
}
