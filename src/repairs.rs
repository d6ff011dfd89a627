//! Every repair the engine can apply, each with a stable snake_case name.

use std::fmt;

macro_rules! repairs {
    ($( $(#[doc = $doc:literal])* $variant:ident = $name:literal, )*) => {
        /// One kind of repair. The names are stable: they appear in events, the CLI
        /// output and the counters, and tools are built on them.
        #[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        #[repr(u8)]
        pub enum Repair {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl Repair {
            /// Every repair, in declaration order.
            pub const ALL: &'static [Repair] = &[$(Repair::$variant,)*];

            /// The stable snake_case name.
            pub fn name(self) -> &'static str {
                match self { $(Repair::$variant => $name,)* }
            }

            /// Look a repair up by its name.
            pub fn from_name(name: &str) -> Option<Repair> {
                match name { $($name => Some(Repair::$variant),)* _ => None }
            }
        }
    };
}

repairs! {
    /// A raw control byte inside a string became an escape (`\n`, `\t`, `\u0001`).
    ControlCharacter = "control_character",
    /// A `"` inside a string that did not end it was escaped (`say "hi"` -> `say \"hi\"`).
    UnescapedQuote = "unescaped_quote",
    /// An invalid escape kept its backslash as a literal (`\d` -> `\\d`).
    InvalidEscape = "invalid_escape",
    /// A string in single quotes was re-quoted.
    SingleQuotedString = "single_quoted_string",
    /// A string in curly quotes (“ ” ‘ ’) was re-quoted.
    CurlyQuotedString = "curly_quoted_string",
    /// An unquoted object key was quoted.
    UnquotedKey = "unquoted_key",
    /// A bare word in value position became a string.
    UnquotedString = "unquoted_string",
    /// A comma before a closer was dropped.
    TrailingComma = "trailing_comma",
    /// A missing comma between two values or members was inserted.
    MissingComma = "missing_comma",
    /// A missing colon between a key and its value was inserted.
    MissingColon = "missing_colon",
    /// `True`, `False`, `None` became `true`, `false`, `null`.
    PythonLiteral = "python_literal",
    /// `NaN`, `Infinity`, `-Infinity` became `null`.
    NonFiniteNumber = "non_finite_number",
    /// `undefined` became `null`.
    UndefinedLiteral = "undefined_literal",
    /// A `//`, `/* */` or `#` comment was removed.
    Comment = "comment",
    /// A closer with nothing to close (or closing the wrong thing) was dropped or realigned.
    RedundantCloser = "redundant_closer",
    /// Containers left open when the call's closing marker arrived were closed.
    MissingClosers = "missing_closers",
    /// A number spelled outside JSON's grammar was normalized (`.5`, `1.`, `+1`, `05`).
    NumberNormalized = "number_normalized",
    /// Bytes that were not UTF-8 became U+FFFD.
    InvalidUtf8 = "invalid_utf8",
    /// An `...` placeholder element was removed.
    Ellipsis = "ellipsis",
    /// A key with no value (`"a":,`) got `null`.
    MissingValue = "missing_value",
    /// A lone surrogate escape (`\ud800` without its low half: no character) kept its
    /// backslash as text, as an invalid escape does.
    LoneSurrogate = "lone_surrogate",
    /// The call object used `"parameters"` (or `"args"`, `"input"`) for `"arguments"`.
    ParametersKey = "parameters_key",
    /// The arguments were a JSON-encoded string and were decoded.
    ArgumentsString = "arguments_string",
    /// The arguments were written as one `arguments` (`input`, `properties`, ...)
    /// parameter the schema does not declare, holding the declared ones; unwrapped.
    WrappedArguments = "wrapped_arguments",
    /// The call had no arguments; `{}` was used (the tool takes none).
    MissingArguments = "missing_arguments",
    /// A call's opening marker was missing (a bare `<function=`, a plural wrapper alone).
    MissingOpener = "missing_opener",
    /// A call's closing marker was missing or misspelled.
    MissingCloser = "missing_closer",
    /// The separator between a call's name and its arguments was missing (`<tool_sep>`).
    MissingSeparator = "missing_separator",
    /// A parameter or argument tag was misspelled or left open (`</parameter1>`).
    MismatchedTag = "mismatched_tag",
    /// Text between structural tags inside a call was dropped (only blanks are expected).
    StrayText = "stray_text",
    /// A tool name matched a declared tool only ignoring case or separators.
    ToolNameCase = "tool_name_case",
    /// A call without a name got the only declared tool its arguments fit.
    ToolNameInferred = "tool_name_inferred",
    /// A string holding an encoded array was unwrapped where an array is declared.
    StringToArray = "string_to_array",
    /// A string holding an encoded object was unwrapped where an object is declared.
    StringToObject = "string_to_object",
    /// A scalar was wrapped in an array where an array is declared.
    ScalarToArray = "scalar_to_array",
    /// A one-entry object became a one-element array where an array is declared.
    ObjectToArray = "object_to_array",
    /// `null` for a non-nullable scalar was dropped.
    NullDropped = "null_dropped",
    /// A string became a number where a number is declared.
    StringToNumber = "string_to_number",
    /// A string became a boolean where a boolean is declared.
    StringToBoolean = "string_to_boolean",
    /// A number or boolean became a string where a string is declared.
    ScalarToString = "scalar_to_string",
    /// Arguments given as a bare value were wrapped into the tool's one parameter.
    BareArguments = "bare_arguments",
    /// Arguments written as command-line text were mapped to parameters.
    CommandLineArguments = "command_line_arguments",
    /// A required top-level parameter found inside a container item was hoisted.
    HoistedParameter = "hoisted_parameter",
    /// A duplicate key was dropped (the first wins).
    DuplicateKey = "duplicate_key",
    /// A Python-syntax value (pythonic calls, XML values) was converted to JSON.
    PythonValue = "python_value",
    /// A value typed by the schema was converted from its raw text.
    TypedValue = "typed_value",
    /// A markdown code fence around the JSON was removed.
    MarkdownFence = "markdown_fence",
    /// Text before or after the JSON value was removed.
    SurroundingText = "surrounding_text",
    /// Unicode whitespace between tokens (no-break space, U+2000–U+200B, U+3000, a byte
    /// order mark) was removed.
    SpecialWhitespace = "special_whitespace",
    /// A positional argument of a Python-style call was keyed by the tool's parameter in
    /// declaration order (`arg0`, `arg1`, ... when the tool is unknown).
    PositionalArgument = "positional_argument",
    /// A dialect string whose closing delimiter was lost (or replaced by a backtick) was
    /// ended where the next member or the call's closer begins.
    UnclosedString = "unclosed_string",
    /// A key that lost its opening quote (`arguments": {...}`): the word before the
    /// quote is the key.
    MissingQuote = "missing_quote",
    /// The call object's arguments written without their key (`{"name": "f", {...}}`).
    KeylessArguments = "keyless_arguments",
    /// A call object with neither a name nor an arguments key is the arguments
    /// themselves (`<tool_call>{"path": "a"}</tool_call>`); the tool they fit names it.
    BareCallObject = "bare_call_object",
    /// The arguments written as members of the call object beside its name
    /// (`{"name": "shell", "command": "ls"}`), every one declared by the tool.
    FlattenedArguments = "flattened_arguments",
    /// A tokenizer artifact (MiniMax's `]<]minimax[>[`) inside a call's body was
    /// dropped: the call reads as if it were absent.
    TokenizerArtifact = "tokenizer_artifact",
    /// The call object wrapped in a second pair of braces (`{{"name": ...}}`, a
    /// template's escaped braces copied): the outer pair is dropped.
    DoubledBraces = "doubled_braces",
    /// An attribute's value opened with one quote and closed with the other
    /// (`arguments="{...}'`, the JSON inside holding `"`): the value runs between them.
    MismatchedQuote = "mismatched_quote",
}

/// A set of repairs: a bitset over [`Repair`], `Copy` and allocation-free.
#[derive(Copy, Clone, Default, PartialEq, Eq, Hash)]
pub struct Repairs(u64);

impl Repairs {
    /// No repair.
    pub const NONE: Repairs = Repairs(0);

    /// Add one repair.
    pub fn insert(&mut self, repair: Repair) {
        self.0 |= 1 << (repair as u8);
    }

    /// Whether `repair` is in the set.
    pub fn contains(self, repair: Repair) -> bool {
        self.0 & (1 << (repair as u8)) != 0
    }

    /// The set as bits: bit `r as usize` for each repair `r`.
    pub(crate) fn bits(self) -> u64 {
        self.0
    }

    /// Whether no repair was applied.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The union of two sets.
    pub fn union(self, other: Repairs) -> Repairs {
        Repairs(self.0 | other.0)
    }

    /// The repairs in the set, in declaration order.
    pub fn iter(self) -> impl Iterator<Item = Repair> {
        // Set bits in ascending order: bit `i` is `Repair::ALL[i]` (a reading's cost is
        // summed this way at every byte it reads, so no walk over every kind).
        let mut bits = self.0;
        std::iter::from_fn(move || {
            while bits != 0 {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if let Some(&r) = Repair::ALL.get(i) {
                    return Some(r);
                }
            }
            None
        })
    }

    /// The names of the repairs in the set.
    pub fn names(self) -> impl Iterator<Item = &'static str> {
        self.iter().map(Repair::name)
    }
}

impl fmt::Debug for Repairs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.names()).finish()
    }
}

impl FromIterator<Repair> for Repairs {
    fn from_iter<I: IntoIterator<Item = Repair>>(iter: I) -> Repairs {
        let mut set = Repairs::NONE;
        for r in iter {
            set.insert(r);
        }
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_fit_the_bitset() {
        assert!(Repair::ALL.len() <= 64);
        for &r in Repair::ALL {
            assert_eq!(Repair::from_name(r.name()), Some(r));
            let mut set = Repairs::NONE;
            set.insert(r);
            assert_eq!(set.iter().collect::<Vec<_>>(), vec![r]);
            assert_eq!(Repair::ALL[r as usize], r, "bit {} is {r:?}", r as usize);
        }
        // Several, in declaration order.
        let every: Repairs = Repair::ALL.iter().rev().copied().collect();
        assert_eq!(every.iter().collect::<Vec<_>>(), Repair::ALL);
    }
}
