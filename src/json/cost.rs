//! The cost model of competing readings (`readings.rs`): what each named repair says
//! about how likely a reading is the one the model meant.
//!
//! | repairs | cost | why |
//! |---|---:|---|
//! | `control_character`, `invalid_escape`, `lone_surrogate`, `number_normalized`, `special_whitespace` | 1 | what a model writing raw text into a string does all the time |
//! | `string_to_number`, `string_to_boolean`, `scalar_to_string`, `typed_value`, `null_dropped` | 1 | the schema says what the value meant: a reading that needs it is as likely as one that does not |
//! | `unescaped_quote` | 16 | a string's own quote read as its content: common in a raw file, but a reading that needs it where another reads the same text as the structure around it (a key without quotes, single or typographic quotes) is the less likely one: no model writes `{"cmd": "read", file: "main.go"}` meaning one member |
//! | `invalid_utf8` | 2 | |
//! | `trailing_comma`, `python_literal`, `undefined_literal`, `non_finite_number` | 4 | common slips, but not what raw text turns into |
//! | `single_quoted_string`, `curly_quoted_string`, `unquoted_key`, `ellipsis`, `missing_quote`, `keyless_arguments` | 8 | a slip in the envelope, not invented structure (a key without quotes is the most common slip of small models) |
//! | `unquoted_string` | 20 | a string read to its end, then a value that lost its quotes |
//! | `bare_arguments`, `command_line_arguments`, `positional_argument` | 20 | a whole text taken as the value of the tool's one field, parsed as a command line, or a Python value given the key at its place: a guess the schema allows, not a reading of structure |
//! | `missing_comma`, `missing_colon`, `comment`, `redundant_closer`, `missing_value`, `duplicate_key` | 30 | structure invented around text that was never structure |
//! | `surrounding_text`, or text left after the call's end | 30 | the value ended before the model's text did |
//! | `unclosed_string`, `missing_closers` | 40 | the value ran on past where the model ended it |
//! | a schema error (undeclared key, missing required key, wrong type) | 80 each | the reading does not fit the tool: never taken |
//! | a member of the call object other than its name, id, type and arguments | 30 each | text read as structure around the arguments |
//! | any other | 4 | |
//!
//! Costs are per repair kind, not per occurrence: a file with a thousand raw quotes is
//! one kind of slip, and a reading that invents structure pays for it once and then
//! gains nothing by inventing more.

use crate::repairs::{Repair, Repairs};

/// The cost of a member of the call object that is not the call's (a reading that
/// turned text into members around the arguments).
pub(crate) const EXTRA_MEMBER: u32 = 30;

/// The cost of one schema error of a reading's arguments.
pub(crate) const SCHEMA_ERROR: u32 = 80;

/// The cost of one repair kind.
pub(crate) const fn weight(repair: Repair) -> u32 {
    use Repair::*;
    match repair {
        ControlCharacter | InvalidEscape | LoneSurrogate | NumberNormalized | SpecialWhitespace => {
            1
        }
        StringToNumber | StringToBoolean | ScalarToString | TypedValue | NullDropped => 1,
        UnescapedQuote => 16,
        InvalidUtf8 => 2,
        TrailingComma | PythonLiteral | UndefinedLiteral | NonFiniteNumber => 4,
        SingleQuotedString | CurlyQuotedString | UnquotedKey | Ellipsis | MissingQuote
        | KeylessArguments => 8,
        UnquotedString | BareArguments | CommandLineArguments | PositionalArgument => 20,
        MissingComma | MissingColon | Comment | RedundantCloser | MissingValue
        | SurroundingText | DuplicateKey => 30,
        UnclosedString | MissingClosers => 40,
        _ => 4,
    }
}

/// [`weight`] by a repair's bit in [`Repairs`] (a reading's cost is summed at every
/// byte it reads).
const WEIGHTS: [u8; 64] = {
    let mut table = [0; 64];
    let mut i = 0;
    while i < Repair::ALL.len() {
        table[Repair::ALL[i] as usize] = weight(Repair::ALL[i]) as u8;
        i += 1;
    }
    table
};

/// The cost of a set of repairs.
pub(crate) fn of(repairs: Repairs) -> u32 {
    let mut bits = repairs.bits();
    let mut cost = 0;
    while bits != 0 {
        cost += u32::from(WEIGHTS[bits.trailing_zeros() as usize]);
        bits &= bits - 1;
    }
    debug_assert_eq!(cost, repairs.iter().map(weight).sum::<u32>());
    cost
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_text_is_cheaper_than_invented_structure() {
        let raw: Repairs = [
            Repair::UnescapedQuote,
            Repair::ControlCharacter,
            Repair::InvalidEscape,
        ]
        .into_iter()
        .collect();
        let closed: Repairs = [
            Repair::ControlCharacter,
            Repair::UnquotedKey,
            Repair::MissingComma,
        ]
        .into_iter()
        .collect();
        assert!(of(raw) + super::super::readings::MARGIN <= of(closed));
        assert_eq!(of(Repairs::NONE), 0);
    }

    /// `{"cmd": "read", file: "main.go"}`: a key that lost its quotes, not one string
    /// `read", file: "main.go` holding quotes of its own (issue 35).
    #[test]
    fn a_key_without_quotes_is_cheaper_than_a_raw_quote() {
        assert!(
            weight(Repair::UnquotedKey) + super::super::readings::MARGIN
                <= weight(Repair::UnescapedQuote)
        );
        assert!(
            weight(Repair::SingleQuotedString) + super::super::readings::MARGIN
                <= weight(Repair::UnescapedQuote)
        );
    }
}
