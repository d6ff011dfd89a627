//! The transition table the look-ahead reads strict JSON structure with, in bulk.
//!
//! Between two decisions a look-ahead mostly reads valid structure: blanks, commas,
//! colons, scalars, openers and closers. [`Lookahead::bulk`](super::lookahead) reads
//! those with one table lookup per byte instead of a `match` on its state: the state is
//! a small number ([`Tok`]), the byte a class ([`Classes`]), and `NEXT[state][class]`
//! is the next state or, past [`FIRST_ACTION`], what to do that a table cannot (push or
//! pop the stack, read a string or a key, stop). A chunk of a few bytes then costs
//! about one indirect jump, not one per byte: the look-ahead reads most of a
//! structure-heavy call in chunks of a token.
//!
//! Each state stands for a look-ahead state with what its next bytes depend on: the
//! container (`_O` in an object, `_A` in an array: a comma then starts a key or a
//! value) and, after a value, whether a blank was seen (a value starting after one is
//! the next item with its comma dropped, which `step` decides on).

use super::lookahead::{is_blank, is_scalar_byte};
use crate::scan::MarkerSet;

/// A byte's class: [`QUOTE`] to [`OTHER`], plus [`TERM`] when a terminator (the call's
/// closer) may begin with it and it is no blank.
pub(crate) type Class = u8;

pub(crate) const QUOTE: Class = 0;
pub(crate) const BACKSLASH: Class = 1;
pub(crate) const BLANK: Class = 2;
pub(crate) const COMMA: Class = 3;
pub(crate) const COLON: Class = 4;
pub(crate) const OPEN: Class = 5;
pub(crate) const CLOSE: Class = 6;
pub(crate) const SCALAR: Class = 7;
pub(crate) const OTHER: Class = 8;
/// Added to the class of a byte a terminator may begin with: structure stops there
/// (`step` matches the marker), content and scalars read it as they would any byte.
pub(crate) const TERM: Class = 9;
const CLASSES: usize = 2 * TERM as usize;

/// The class of each byte, for one set of terminators.
#[derive(Clone, Debug)]
pub(crate) struct Classes(pub(crate) [Class; 256]);

impl Classes {
    /// The classes with `terminators`: a copy of [`BASE`] and a few bytes changed (a
    /// repairer takes new terminators with every call).
    pub(crate) fn new(terminators: &MarkerSet) -> Classes {
        let mut classes = BASE;
        for &b in terminators.first_bytes() {
            // A blank is read as a blank first, as `structural` does.
            if classes[b as usize] != BLANK {
                classes[b as usize] += TERM;
            }
        }
        Classes(classes)
    }
}

/// Each byte's class with no terminator.
const BASE: [Class; 256] = {
    let mut classes = [OTHER; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        classes[i] = match b {
            b'"' => QUOTE,
            b'\\' => BACKSLASH,
            b',' => COMMA,
            b':' => COLON,
            b'{' | b'[' => OPEN,
            b'}' | b']' => CLOSE,
            _ if is_blank(b) => BLANK,
            _ if is_scalar_byte(b) => SCALAR,
            _ => OTHER,
        };
        i += 1;
    }
    classes
};

/// A state of the table: a look-ahead state (see the module) the table reads in.
pub(crate) type Tok = u8;

/// After a value, in an object; in an array.
pub(crate) const AFTER_O: Tok = 0;
pub(crate) const AFTER_A: Tok = 1;
/// After a value and a blank.
pub(crate) const BLANK_O: Tok = 2;
pub(crate) const BLANK_A: Tok = 3;
/// After a nested string's quote (`St::StrQuote`).
pub(crate) const QUOTED_O: Tok = 4;
pub(crate) const QUOTED_A: Tok = 5;
/// Inside a scalar.
pub(crate) const SCALAR_O: Tok = 6;
pub(crate) const SCALAR_A: Tok = 7;
/// After a comma (`St::Item`): a key in an object, a value in an array.
pub(crate) const ITEM_O: Tok = 8;
pub(crate) const ITEM_A: Tok = 9;
/// After an object's `{` (`St::Key`).
pub(crate) const KEY: Tok = 10;
/// After a key (`St::Colon`).
pub(crate) const AWAIT_COLON: Tok = 11;
/// After a colon, or an array's `[` (`St::Value`).
pub(crate) const VALUE_O: Tok = 12;
pub(crate) const VALUE_A: Tok = 13;
const TOKS: usize = 14;

/// Entries from here on are actions, not states.
pub(crate) const FIRST_ACTION: u8 = 0x80;
/// Stop before the byte: the look-ahead's `step` reads it.
pub(crate) const STOP: u8 = FIRST_ACTION;
/// A key's opening quote: read the key.
pub(crate) const READ_KEY: u8 = FIRST_ACTION + 1;
/// A value string's opening quote: read the string.
pub(crate) const READ_STRING: u8 = FIRST_ACTION + 2;
/// An opener where a value goes: push it (within the depth limit).
pub(crate) const PUSH: u8 = FIRST_ACTION + 3;
/// A closer after a value: pop the innermost container if it closes it.
pub(crate) const POP: u8 = FIRST_ACTION + 4;

/// The `_O` or `_A` state of a pair for the container `open` (`{` or `[`).
pub(crate) fn of(pair_o: Tok, open: Option<&u8>) -> Tok {
    pair_o + u8::from(open != Some(&b'{'))
}

/// The next state or action for each state and class.
pub(crate) static NEXT: [[u8; CLASSES]; TOKS] = {
    let mut next = [[STOP; CLASSES]; TOKS];
    let mut tok = 0;
    while tok < TOKS {
        let t = tok as Tok;
        // 1 in an array: the `_A` states are the odd ones (`KEY` and `AWAIT_COLON`,
        // object states, read no container-dependent byte).
        let array = t % 2;
        let mut class = 0;
        while class < CLASSES {
            let c = class as Class;
            let term = c >= TERM;
            let base = if term { c - TERM } else { c };
            next[tok][class] = match t {
                // A scalar goes on over its bytes, a terminator's first byte included;
                // any other byte is read as right after the value.
                SCALAR_O | SCALAR_A if base == SCALAR => t,
                SCALAR_O | SCALAR_A => after(array, base, term),
                AFTER_O | AFTER_A | BLANK_O | BLANK_A => after(array, base, term),
                QUOTED_O | QUOTED_A if base == BLANK => t,
                QUOTED_O | QUOTED_A => after(array, base, term),
                _ if base == BLANK => t,
                _ if term => STOP,
                ITEM_O | KEY if base == QUOTE => READ_KEY,
                AWAIT_COLON if base == COLON => VALUE_O,
                ITEM_A | VALUE_O | VALUE_A => match base {
                    QUOTE => READ_STRING,
                    OPEN => PUSH,
                    SCALAR => SCALAR_O + array,
                    _ => STOP,
                },
                _ => STOP,
            };
            class += 1;
        }
        tok += 1;
    }
    next
};

/// What a byte of class `base` does right after a value (`array`: 1 in an array): a
/// blank is seen, a comma starts the next item, a closer pops.
const fn after(array: u8, base: Class, term: bool) -> u8 {
    match base {
        BLANK => BLANK_O + array,
        _ if term => STOP,
        COMMA => ITEM_O + array,
        CLOSE => POP,
        _ => STOP,
    }
}
