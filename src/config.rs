//! Parser configuration: dialect, tools, limits and policies.

use crate::dialect::Dialect;
use crate::schema::Tools;
use std::sync::{Arc, OnceLock};

/// Limits that keep a parser bounded on hostile output. All are on by default.
///
/// Exceeding a limit ends the affected call with
/// [`NotReleasedReason::LimitExceeded`](crate::NotReleasedReason::LimitExceeded) and a
/// feedback message naming the limit; the stream goes on as text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest arguments text of one call, in bytes (default 16 MiB).
    pub max_args_bytes: usize,
    /// Deepest nesting of arrays and objects in arguments (default 128, serde_json's).
    pub max_depth: usize,
    /// Most bytes held back undecided at any moment: a possible marker, a quote waiting
    /// for its look-ahead, a number waiting for its delimiter (default 4096).
    pub max_held_bytes: usize,
    /// The look-ahead window that decides whether a `"` inside a string ends it
    /// (default 256 bytes).
    pub lookahead: usize,
    /// Most calls in one response (default 4096); later ones are not released.
    pub max_calls: usize,
    /// Longest tool name or parameter key (default 256 bytes).
    pub max_name_bytes: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            max_args_bytes: 16 << 20,
            max_depth: 128,
            max_held_bytes: 4096,
            lookahead: 256,
            max_calls: 4096,
            max_name_bytes: 256,
        }
    }
}

/// What to do with a call written inside a reasoning block.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum InReasoning {
    /// Leave it as reasoning text (default): drafts in `<think>` are not executed.
    #[default]
    Ignore,
    /// Extract it as a call.
    Extract,
}

/// What to do with a call naming a tool the request did not declare.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum UnknownTool {
    /// Do not release it; its feedback lists the declared tools (default).
    #[default]
    Reject,
    /// Release it as it is.
    Forward,
}

/// What to do with a call that still breaks its schema after repair.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Invalid {
    /// Release it with its validation errors reported (default), so the client's own
    /// validation stays honest.
    #[default]
    Release,
    /// Hold it back as not released.
    HoldBack,
}

/// Which calls the request allows: OpenAI's `tool_choice`, Anthropic's `tool_choice`.
/// A call it does not allow is reported
/// ([`NotReleasedReason::ToolChoice`](crate::NotReleasedReason::ToolChoice), with
/// feedback), never released and never shown as text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ToolChoice {
    /// The model decides (default; OpenAI `"auto"`, Anthropic `auto`).
    #[default]
    Auto,
    /// No call may be released (OpenAI `"none"`, Anthropic `none`): call markup the
    /// model writes anyway is reported.
    None,
    /// The model must call a declared tool (OpenAI `"required"`, Anthropic `any`): a call
    /// to a tool the request did not declare is not released, whatever
    /// [`UnknownTool`] says.
    Required,
    /// Only this tool may be called (OpenAI `{"type": "function", "function": {"name":
    /// ...}}`, Anthropic `{"type": "tool", "name": ...}`).
    Function(Box<str>),
}

/// How many calls one response may release: OpenAI's `parallel_tool_calls`, Anthropic's
/// `disable_parallel_tool_use`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum ParallelCalls {
    /// Any number (default).
    #[default]
    Allowed,
    /// One: the first call released is the response's only one; a later call is
    /// reported ([`NotReleasedReason::ParallelCalls`](crate::NotReleasedReason::ParallelCalls)),
    /// as vLLM keeps only the first.
    FirstOnly,
}

/// The configuration a [`Parser`](crate::Parser) is built from.
///
/// The setters take and return the configuration by value, so one expression builds it:
///
/// ```
/// use toolsift::{Config, Dialect, Invalid, Parser, Tools};
///
/// let tools = Tools::from_json(br#"[{"type": "function", "function": {"name": "get_weather",
///     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}}}}]"#)?;
/// let parser = Parser::with_config(
///     Config::new(Dialect::Mistral).tools(tools).invalid(Invalid::HoldBack),
/// );
/// assert_eq!(parser.dialect(), Dialect::Mistral);
/// # Ok::<(), toolsift::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Config {
    /// The dialect (default [`Dialect::Auto`]).
    pub dialect: Dialect,
    /// The request's tool definitions; empty when none were given.
    pub tools: Arc<Tools>,
    /// Limits.
    pub limits: Limits,
    /// Calls inside reasoning.
    pub in_reasoning: InReasoning,
    /// Unknown tool names (only applies when tools were given).
    pub unknown_tool: UnknownTool,
    /// Calls that break their schema after repair.
    pub invalid: Invalid,
    /// Which calls the request allows (default: any).
    pub tool_choice: ToolChoice,
    /// How many calls one response may release (default: any number).
    pub parallel_calls: ParallelCalls,
    /// The prompt already opened a reasoning block: output starts inside it.
    pub reasoning_open: bool,
    /// Prefix of generated call ids (default `call_`); the call index follows it.
    pub id_prefix: String,
    /// Token ids that are markers, for [`Parser::push_token`](crate::Parser::push_token).
    pub special_tokens: Vec<u32>,
}

impl Default for Config {
    fn default() -> Config {
        // One empty tool list shared by every default configuration, so that building a
        // parser without tools allocates nothing.
        static NO_TOOLS: OnceLock<Arc<Tools>> = OnceLock::new();
        Config {
            dialect: Dialect::default(),
            tools: NO_TOOLS.get_or_init(Arc::default).clone(),
            limits: Limits::default(),
            in_reasoning: InReasoning::default(),
            unknown_tool: UnknownTool::default(),
            invalid: Invalid::default(),
            tool_choice: ToolChoice::default(),
            parallel_calls: ParallelCalls::default(),
            reasoning_open: false,
            id_prefix: String::new(),
            special_tokens: Vec::new(),
        }
    }
}

impl Config {
    /// A default configuration for `dialect`.
    pub fn new(dialect: Dialect) -> Config {
        Config {
            dialect,
            ..Config::default()
        }
    }

    /// Set the dialect.
    #[must_use]
    pub fn dialect(mut self, dialect: Dialect) -> Config {
        self.dialect = dialect;
        self
    }

    /// Set the tool definitions.
    #[must_use]
    pub fn tools(mut self, tools: Tools) -> Config {
        self.tools = Arc::new(tools);
        self
    }

    /// Set the limits.
    #[must_use]
    pub fn limits(mut self, limits: Limits) -> Config {
        self.limits = limits;
        self
    }

    /// Set the policy for calls inside reasoning.
    #[must_use]
    pub fn in_reasoning(mut self, policy: InReasoning) -> Config {
        self.in_reasoning = policy;
        self
    }

    /// Set the policy for unknown tool names.
    #[must_use]
    pub fn unknown_tool(mut self, policy: UnknownTool) -> Config {
        self.unknown_tool = policy;
        self
    }

    /// Set the policy for calls that break their schema.
    #[must_use]
    pub fn invalid(mut self, policy: Invalid) -> Config {
        self.invalid = policy;
        self
    }

    /// Set which calls the request allows (its `tool_choice`).
    #[must_use]
    pub fn tool_choice(mut self, choice: ToolChoice) -> Config {
        self.tool_choice = choice;
        self
    }

    /// Set how many calls one response may release (`parallel_tool_calls: false` is
    /// [`ParallelCalls::FirstOnly`]).
    #[must_use]
    pub fn parallel_calls(mut self, policy: ParallelCalls) -> Config {
        self.parallel_calls = policy;
        self
    }

    /// Say that the prompt already opened a reasoning block.
    #[must_use]
    pub fn reasoning_open(mut self, open: bool) -> Config {
        self.reasoning_open = open;
        self
    }

    pub(crate) fn id_prefix_or_default(&self) -> &str {
        if self.id_prefix.is_empty() {
            "call_"
        } else {
            &self.id_prefix
        }
    }

    /// Set the prefix of generated call ids.
    #[must_use]
    pub fn id_prefix(mut self, prefix: impl Into<String>) -> Config {
        self.id_prefix = prefix.into();
        self
    }
}
