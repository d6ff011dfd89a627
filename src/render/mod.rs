//! Writing calls the way a dialect's model writes them: the inverse of the parser.
//!
//! [`Dialect::render`] writes a [`Turn`] (reasoning, visible text, calls with their
//! JSON arguments and optional ids, text after them, the end-of-turn token) byte for
//! byte as the dialect's model writes it, and says which of the bytes are visible text
//! and which reasoning ([`Rendered`]). It is what re-renders a conversation's earlier
//! calls in a model's own format, writes fixtures, and documents each dialect
//! (`docs/dialects.md` is generated from it); the crate's tests generate their inputs
//! from it, so every rule is checked in every dialect.
//!
//! ```
//! use toolsift::render::{Call, Strings, Style, Turn};
//! use toolsift::Dialect;
//!
//! let turn = Turn::new()
//!     .text("Checking.")
//!     .call(Call::new("get_weather", r#"{"city": "Paris"}"#));
//! let out = Dialect::Mistral.render(&turn).unwrap();
//! assert_eq!(out.output, r#"Checking.[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}"#);
//! assert_eq!(out.text, "Checking.");
//!
//! let out = Dialect::Qwen3Coder.render(&turn).unwrap();
//! assert_eq!(
//!     out.output,
//!     "Checking.\n<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n\
//!      </parameter>\n</function>\n</tool_call>"
//! );
//! assert_eq!(out.text, "Checking.\n");
//!
//! // How a small model breaks it: a file's text written into a JSON string unescaped.
//! let turn = Turn::new().call(Call::new("write", r#"{"text": "say \"hi\"\n"}"#));
//! let style = Style::new().strings(Strings::Raw);
//! let out = Dialect::Hermes.render_with(&turn, &style).unwrap();
//! assert_eq!(
//!     out.output,
//!     "<tool_call>\n{\"name\": \"write\", \"arguments\": {\"text\": \"say \"hi\"\n\"}}\n</tool_call>"
//! );
//! ```
//!
//! Each dialect has one or more forms (Mistral's `v11` and `pre_v11`, DeepSeek's `v3`
//! and `v3.1`); [`Dialect::forms`] lists them with what each carries ([`Form`]), the
//! first the default. What a form cannot carry is an error, never silently dropped
//! (reasoning where the dialect has none, a second call where the model writes one per
//! turn, text before a call that must begin the output), except ids: a form that
//! carries none writes a call without one.
//!
//! [`Dialect::render`]: crate::Dialect::render
//! [`Dialect::forms`]: crate::Dialect::forms

mod json;
pub(crate) mod layout;
pub(crate) mod values;

pub(crate) use layout::{Args, Ids, Layout, Piece, THINK, THINK_TIGHT};
pub(crate) use values::Params;

/// One call to write: the tool's name, its arguments and, optionally, its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Call<'a> {
    pub(crate) name: &'a str,
    pub(crate) arguments: &'a str,
    pub(crate) id: Option<&'a str>,
    pub(crate) as_written: bool,
}

impl<'a> Call<'a> {
    /// A call of `name` with `arguments`, a strict JSON object (rendering fails
    /// otherwise). A JSON-carrying form writes the text as given; the others write its
    /// values in their own syntax.
    pub fn new(name: &'a str, arguments: &'a str) -> Call<'a> {
        Call {
            name,
            arguments,
            id: None,
            as_written: false,
        }
    }

    /// A call whose arguments are written exactly as `text`, not checked: what a model
    /// writes that is not JSON (`{cmd: 'ls'}`). Only forms that carry JSON text
    /// ([`Arguments::Json`]) take it.
    pub fn as_written(name: &'a str, text: &'a str) -> Call<'a> {
        Call {
            as_written: true,
            ..Call::new(name, text)
        }
    }

    /// The call's id, written where the form carries one ([`Form::ids`]).
    pub fn id(self, id: &'a str) -> Call<'a> {
        Call {
            id: Some(id),
            ..self
        }
    }
}

/// What a model writes in one turn: reasoning, visible text, calls, text after them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Turn<'a> {
    pub(crate) reasoning: Option<&'a str>,
    pub(crate) text: &'a str,
    pub(crate) calls: Vec<Call<'a>>,
    pub(crate) text_after: &'a str,
    pub(crate) end_of_turn: bool,
}

impl<'a> Turn<'a> {
    /// An empty turn.
    pub fn new() -> Turn<'a> {
        Turn::default()
    }

    /// Reasoning before the text, in the dialect's reasoning markers.
    pub fn reasoning(mut self, text: &'a str) -> Turn<'a> {
        self.reasoning = Some(text);
        self
    }

    /// Visible text before the calls.
    pub fn text(mut self, text: &'a str) -> Turn<'a> {
        self.text = text;
        self
    }

    /// One more call.
    pub fn call(mut self, call: Call<'a>) -> Turn<'a> {
        self.calls.push(call);
        self
    }

    /// Visible text after the calls.
    pub fn text_after(mut self, text: &'a str) -> Turn<'a> {
        self.text_after = text;
        self
    }

    /// End with the end-of-turn token the dialect's model writes, where it writes one
    /// ([`Form::end_of_turn`]).
    pub fn end_of_turn(mut self, yes: bool) -> Turn<'a> {
        self.end_of_turn = yes;
        self
    }
}

/// How string values are written inside JSON (and Python) string literals: the ways
/// small models write a file's text into an argument.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Strings {
    /// Escaped as JSON (or Python's `repr`) escapes them. In a JSON form, string values
    /// keep the escapes they were given with, so the arguments pass byte-identical.
    #[default]
    Escaped,
    /// Newlines, tabs and other control characters raw; quotes and backslashes escaped.
    RawNewlines,
    /// Nothing escaped: raw newlines, quotes and backslashes.
    Raw,
    /// Only line breaks escaped (`\n`, `\r`); quotes, backslashes, tabs raw.
    EscapedNewlines,
}

impl Strings {
    /// Every way, in the order above.
    pub const ALL: [Strings; 4] = [
        Strings::Escaped,
        Strings::RawNewlines,
        Strings::Raw,
        Strings::EscapedNewlines,
    ];

    /// A stable name: `escaped`, `raw_newlines`, `raw`, `escaped_newlines`.
    pub fn name(self) -> &'static str {
        match self {
            Strings::Escaped => "escaped",
            Strings::RawNewlines => "raw_newlines",
            Strings::Raw => "raw",
            Strings::EscapedNewlines => "escaped_newlines",
        }
    }
}

/// How a turn is written: the form, how strings are escaped, markup inside a value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Style<'a> {
    pub(crate) form: Option<&'a str>,
    pub(crate) strings: Strings,
    pub(crate) markup: Option<(&'a str, &'a [usize])>,
}

impl<'a> Style<'a> {
    /// The default: the dialect's first form, strings escaped, no markup inserted.
    pub fn new() -> Style<'a> {
        Style::default()
    }

    /// Write the form named `name` ([`Form::name`]); rendering fails for a name the
    /// dialect does not have.
    pub fn form(mut self, name: &'a str) -> Style<'a> {
        self.form = Some(name);
        self
    }

    /// How string values are written in forms whose arguments are JSON or Python; XML
    /// and Gemma forms write strings raw whatever this says.
    pub fn strings(mut self, strings: Strings) -> Style<'a> {
        self.strings = strings;
        self
    }

    /// Insert the form's closing markup ([`Form::closing_markup`], taken in turn) into
    /// the string value of the top-level member `key`, at the byte offsets `at` (moved
    /// back to a character boundary): a value that holds the dialect's own markup, as a
    /// coding agent's file about tool calls does. The markup is part of the value meant
    /// ([`Rendered::arguments`]).
    pub fn markup(mut self, key: &'a str, at: &'a [usize]) -> Style<'a> {
        self.markup = Some((key, at));
        self
    }
}

/// A rendered turn.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Rendered {
    /// The model's output.
    pub output: String,
    /// Its visible text: the turn's text and the layout's blanks outside markup (the
    /// newline between two Hermes blocks), all a parser shows.
    pub text: String,
    /// Its reasoning, with the layout's blanks inside the reasoning markers.
    pub reasoning: String,
    /// Each call's arguments as meant: the JSON given (with any markup inserted), or the
    /// text given to [`Call::as_written`].
    pub arguments: Vec<String>,
}

/// How a form writes arguments, and what it cannot carry.
///
/// Every form writes tool names of letters, digits, `_`, `-` and `.` (a Python call's
/// name is an identifier) and ids of those and `:`. Forms that write values raw (all but
/// [`Json`](Arguments::Json) and [`Python`](Arguments::Python)) cannot tell a value
/// holding their own closing markup from the value's end: that is what
/// [`Style::markup`] writes, to see how a parser copes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Arguments {
    /// JSON text, as given: the parser releases it byte-identical. String values take
    /// the [`Strings`] way.
    Json,
    /// Gemma's syntax: bare identifier keys (at every level), strings between a
    /// delimiter (`<|"|>`, `<escape>`) and raw, other values as JSON.
    Delimited,
    /// One XML parameter per top-level member, keys without markup or line breaks;
    /// strings raw (MiniCPM5: in CDATA when they hold `<`, `&` or a line break), other
    /// values as JSON (MiniCPM5: as Python prints them). Qwen3-Coder's framing newlines
    /// are added, so a value's own leading and trailing newlines are kept. Unless `typed`
    /// (the tag says the type: DeepSeek DSML, Kimi K3), a string that reads as JSON
    /// (`42`, `true`, `[1]`) is read back as that JSON without a schema declaring it a
    /// string.
    Params {
        /// The tag carries each value's type.
        typed: bool,
    },
    /// MiniMax M3's elements: identifier keys at every level, objects nested, arrays
    /// as `<item>`s, leaves raw (typed by the schema, or by what they read as); an empty
    /// object or array cannot be told from an empty string.
    Elements,
    /// Python keyword arguments: identifier keys at the top level, Python literals.
    Python,
}

/// How a form writes call ids ([`Form::ids`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CallIds {
    /// The form carries no id: a given one is not written.
    None,
    /// A given id is written and read back as the call's id (Mistral's `[CALL_ID]`,
    /// Command R's `tool_call_id`); some forms write one of their own when none is given.
    Given,
    /// The form writes ids of its own (Kimi K2's `functions.NAME:INDEX`): a given id is
    /// written only when it has their shape.
    Own,
}

/// How [`Dialect::Auto`](crate::Dialect::Auto) reads a form ([`Form::auto`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum InAuto {
    /// Not at all: the dialect is opt-in (its markers mean other things elsewhere), or
    /// `auto` reads the form as another dialect's.
    No,
    /// Only as a heuristic: the calls must be the whole output (no text before or after
    /// them), naming a declared tool when tools are declared.
    Alone,
    /// As the named dialect reads it.
    Yes,
}

/// One form of a dialect and what it carries ([`Dialect::forms`]).
///
/// [`Dialect::forms`]: crate::Dialect::forms
#[derive(Clone, Copy, Debug)]
pub struct Form {
    pub(crate) dialect: crate::Dialect,
    pub(crate) layout: &'static Layout,
}

impl Form {
    /// The dialect the form belongs to.
    pub fn dialect(self) -> crate::Dialect {
        self.dialect
    }

    /// How `auto` reads this form.
    pub fn auto(self) -> InAuto {
        if self.dialect.in_auto() {
            self.layout.auto
        } else {
            InAuto::No
        }
    }

    /// The form's name, for [`Style::form`].
    pub fn name(self) -> &'static str {
        self.layout.name
    }

    /// Which models write it.
    pub fn note(self) -> &'static str {
        self.layout.note
    }

    /// How it writes arguments.
    pub fn arguments(self) -> Arguments {
        match &self.layout.args {
            Args::Json => Arguments::Json,
            Args::Delimited { .. } => Arguments::Delimited,
            Args::Params(params) => Arguments::Params {
                typed: params.typed(),
            },
            Args::Elements { .. } => Arguments::Elements,
            Args::Python { .. } => Arguments::Python,
        }
    }

    /// How the form writes call ids.
    pub fn ids(self) -> CallIds {
        match self.layout.ids {
            Ids::None => CallIds::None,
            Ids::Given(_) | Ids::Default(_) => CallIds::Given,
            Ids::Own { .. } => CallIds::Own,
        }
    }

    /// Whether a turn may hold more than one call.
    pub fn parallel(self) -> bool {
        self.layout.parallel
    }

    /// Whether the dialect writes reasoning.
    pub fn reasoning(self) -> bool {
        !self.layout.reasoning.is_empty()
    }

    /// Whether the prompt opens the reasoning block, so the output begins inside it
    /// without an opening marker: parse with `Config::reasoning_open(true)`.
    pub fn prompt_opens_reasoning(self) -> bool {
        self.layout.prompt_opens_reasoning
    }

    /// Whether the form has a place for visible text before its calls.
    pub fn text_before(self) -> bool {
        !self.layout.text.is_empty()
    }

    /// Whether the form has a place for visible text after its calls.
    pub fn text_after(self) -> bool {
        !self.layout.after.is_empty()
    }

    /// The end-of-turn token the model writes, if any.
    pub fn end_of_turn(self) -> Option<&'static str> {
        (!self.layout.end_of_turn.is_empty()).then_some(self.layout.end_of_turn)
    }

    /// The dialect's own closing markup ([`Style::markup`]).
    pub fn closing_markup(self) -> &'static [&'static str] {
        self.layout.closing_markup
    }

    /// Whether the form writes its calls inside a section it closes with markup of its
    /// own (`</minimax:tool_call>`).
    pub(crate) fn closes_a_section(self) -> bool {
        self.section_closer().is_some()
    }

    /// The markup that opens the form's section of calls (`<｜tool_calls_begin｜>`,
    /// `<|start|>assistant to=functions<|message|><atem:function_calls>`).
    pub(crate) fn section_opener(self) -> Option<&'static str> {
        self.layout.calls_open.iter().find_map(|p| match p {
            Piece::Markup(m) => Some(m.trim()),
            _ => None,
        })
    }

    /// The markup that closes the form's section of calls (`</minimax:tool_call>`,
    /// `</atem:function_calls><|eom|>`).
    pub(crate) fn section_closer(self) -> Option<&'static str> {
        self.layout.calls_close.iter().find_map(|p| match p {
            Piece::Markup(m) => Some(m.trim()),
            _ => None,
        })
    }
}
