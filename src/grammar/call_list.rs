//! What makes a list found without a marker a list of Python calls: `auto`'s one rule
//! for a bare `[` (`[get_weather(city='LA'), f()]`), decided here and nowhere else.
//!
//! ```text
//! list   := '[' call (',' call)* ','? ']' end          blanks (and line breaks) between tokens
//! call   := name '(' (arg (',' arg)* ','?)? ')'        no blank between the name and '('
//! name   := ident ('.' ident)*                         ident: a letter, '_' or non-ASCII,
//!                                                      then those or digits
//! arg    := value | ident '=' value                    positional ones first
//! value  := string | number | True | False | None | '[' values ']' | '{' items '}'
//!         | '(' ')' | '(' value ',' values ')'          a tuple (a value in parentheses is not)
//! string := '…' | "…"                                  no line break, no prefix, no triple quote;
//!                                                      escapes as Python reads them, less
//!                                                      `\N{…}`, `\/` and lone surrogates
//! number := [+-]? (digits ('.' digits?)? | '.' digits) ([eE] [+-]? digits)?   no leading zero
//! end    := blanks, then a line break, the end of the output, or a marker (`<|`, `</`)
//! ```
//!
//! Everything else is text: `[see the docs](url)` (blank after a name), `[1, 2]` (no
//! name), `[note(s)]` (a name is no literal), a list whose text goes on on its line
//! (`[f()] is the syntax`, `[f()](url)`), `[]`. A value the Python grammar would read
//! otherwise than Python does (a set, `(1)`, `r'…'`) keeps the list text too, so what
//! is claimed is read as meant. The scan is a byte-at-a-time state machine: its verdict
//! does not depend on how the output is split, and its work is linear.

use super::Python;
use crate::dialect::PythonicSpec;
use crate::schema::Tools;
use smallvec::SmallVec;

/// What the bytes so far show.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Still a possible call list.
    Open,
    /// A call list; it ended at the byte [`CallList::end`] gives.
    Calls,
    /// Not a call list: text.
    Text,
}

/// Where the scan is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum State {
    /// Before the list's `[`.
    Start,
    /// Before a call's name: after `[`, or after a `,` between calls (then `]` may end
    /// the list).
    CallStart { comma: bool },
    /// In a call's name; `dot`: right after a `.`.
    Name { dot: bool },
    /// After a call's `)`: `,` or `]`.
    AfterCall,
    /// After a container opened or a `,` in it: a value (in a call, an argument) or
    /// the container's closer.
    Item,
    /// An identifier where a call's argument begins: a keyword (then `=`), or `True`,
    /// `False` or `None` given positionally. `blank`: blanks followed it.
    Keyword { blank: bool },
    /// Before a value (after `=` or a dict key's `:`).
    Value,
    /// Inside a string quoted by `quote`.
    Str { quote: u8 },
    /// After a backslash in a string.
    Escape { quote: u8 },
    /// In `\x`, `\u` or `\U`: `left` hex digits to come, the code point so far.
    Hex {
        quote: u8,
        left: u8,
        x: bool,
        value: u32,
    },
    /// In a number.
    Number(Num),
    /// In `True`, `False` or `None`: the word and how much of it is read.
    Word { word: &'static [u8], at: u8 },
    /// After a value: `,`, a dict key's `:` or the container's closer.
    AfterValue,
    /// After `]` ended the list: blanks, then its end (`lt`: a `<` was read).
    Tail { lt: bool },
}

/// Where a number is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Num {
    /// After the sign.
    Sign,
    /// After a leading `0`: no more digits of the integer part.
    Zero,
    /// In the integer part.
    Int,
    /// After a `.` with no digit before it: a digit must follow.
    DotFirst,
    /// After the `.` (or in the fraction).
    Frac,
    /// After `e`.
    Exp,
    /// After the exponent's sign.
    ExpSign,
    /// In the exponent's digits.
    ExpInt,
}

/// An open container inside a call's arguments.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Frame {
    /// A call's parentheses; `keywords`: a keyword argument was given (no positional
    /// one may follow).
    Call {
        keywords: bool,
    },
    List,
    /// A dict; `key`: the value being read (or next) is a key.
    Dict {
        key: bool,
    },
    /// A tuple; `comma`: a `,` was read (before it, one value is a value in
    /// parentheses, not a tuple).
    Tuple {
        comma: bool,
    },
}

/// The scan of a bare list, fed a byte at a time.
#[derive(Clone, Debug)]
pub(crate) struct CallList {
    state: State,
    stack: SmallVec<[Frame; 8]>,
    /// The identifier at an argument's start so far (its first bytes: enough to tell
    /// `True`, `False` and `None`).
    word: SmallVec<[u8; 8]>,
    /// Bytes fed so far.
    len: usize,
    /// The first call's name (its span in the bytes fed), once its `(` is read.
    first_name: Option<(usize, usize)>,
    name_start: usize,
    calls: usize,
    max_depth: usize,
}

impl CallList {
    /// A scan whose arguments nest at most `max_depth` deep.
    pub(crate) fn new(max_depth: usize) -> CallList {
        CallList {
            state: State::Start,
            stack: SmallVec::new(),
            word: SmallVec::new(),
            len: 0,
            first_name: None,
            name_start: 0,
            calls: 0,
            max_depth,
        }
    }

    /// The span of the first call's name in the bytes fed, once its `(` is read.
    pub(crate) fn first_name(&self) -> Option<(usize, usize)> {
        self.first_name
    }

    /// The output ended after the bytes fed: a list whose `]` was read (and nothing
    /// but blanks after it) is calls.
    pub(crate) fn at_end(&self) -> Verdict {
        match self.state {
            State::Tail { lt: false } => Verdict::Calls,
            _ => Verdict::Text,
        }
    }

    /// Feed the next byte.
    pub(crate) fn push(&mut self, b: u8) -> Verdict {
        let at = self.len;
        self.len += 1;
        self.step(b, at).unwrap_or(Verdict::Text)
    }

    /// One byte; `None` for text.
    fn step(&mut self, b: u8, at: usize) -> Option<Verdict> {
        use State::*;
        let blank = matches!(b, b' ' | b'\t' | b'\n' | b'\r');
        let top = self.stack.last().copied();
        match self.state {
            Start if b == b'[' => self.state = CallStart { comma: false },
            Start => return None,
            CallStart { .. } | AfterCall | Item | Value | AfterValue if blank => {}
            CallStart { comma: true } if b == b']' => return self.close_list(),
            CallStart { .. } if ident_start(b) => {
                self.name_start = at;
                self.state = Name { dot: false };
            }
            CallStart { .. } => return None,
            Name { .. } if ident_byte(b) => self.state = Name { dot: false },
            Name { dot: false } if b == b'.' => self.state = Name { dot: true },
            Name { dot: false } if b == b'(' => {
                if self.calls == 0 {
                    self.first_name = Some((self.name_start, at));
                }
                self.calls += 1;
                self.stack.push(Frame::Call { keywords: false });
                self.state = Item;
            }
            Name { .. } => return None,
            AfterCall if b == b',' => self.state = CallStart { comma: true },
            AfterCall if b == b']' => return self.close_list(),
            AfterCall => return None,
            Item if self.closes(b) => self.pop(),
            Item if matches!(top, Some(Frame::Call { .. })) && ident_start(b) => {
                self.word.clear();
                self.word.push(b);
                self.state = Keyword { blank: false };
            }
            Item => {
                if top == Some(Frame::Call { keywords: true }) {
                    // A positional argument after a keyword one: Python's syntax error.
                    return None;
                }
                if top == Some(Frame::Dict { key: true }) && !matches!(b, b'\'' | b'"') {
                    // A dict's keys are strings (JSON's are).
                    return None;
                }
                return self.value(b);
            }
            Keyword { blank: false } if ident_byte(b) => {
                if self.word.len() < 6 {
                    self.word.push(b);
                } else {
                    // Longer than `False`: a keyword, if anything.
                    self.word[0] = b'_';
                }
            }
            Keyword { .. } if b == b' ' || b == b'\t' => self.state = Keyword { blank: true },
            Keyword { .. } if b == b'=' => {
                self.set_top(Frame::Call { keywords: true });
                self.state = Value;
            }
            Keyword { .. } => {
                // Not a keyword: a positional `True`, `False` or `None`, or text.
                let literal = matches!(&self.word[..], b"True" | b"False" | b"None");
                if !literal || top == Some(Frame::Call { keywords: true }) {
                    return None;
                }
                self.after_value();
                return self.step(b, at);
            }
            Value => return self.value(b),
            Str { quote } => match b {
                b'\\' => self.state = Escape { quote },
                b'\n' | b'\r' => return None,
                _ if b == quote => self.after_value(),
                _ => {}
            },
            Escape { quote } => {
                self.state = Str { quote };
                match b {
                    b'\\' | b'\'' | b'"' | b'a' | b'b' | b'f' | b'n' | b'r' | b't' | b'v'
                    | b'\n' => {}
                    // Octal: the digits after the first are the string's bytes.
                    b'0'..=b'7' => {}
                    b'x' | b'u' | b'U' => {
                        self.state = Hex {
                            quote,
                            left: match b {
                                b'x' => 2,
                                b'u' => 4,
                                _ => 8,
                            },
                            x: b == b'x',
                            value: 0,
                        }
                    }
                    // `\N{…}` needs Unicode's names; `\/` is an escape in JSON only.
                    b'N' | b'/' => return None,
                    // Python keeps the backslash of an escape it does not know (`\d`).
                    _ if b.is_ascii_alphanumeric() => {}
                    _ => return None,
                }
            }
            Hex {
                quote,
                left,
                x,
                value,
            } => {
                let value = value * 16 + (b as char).to_digit(16)?;
                if left > 1 {
                    self.state = Hex {
                        quote,
                        left: left - 1,
                        x,
                        value,
                    };
                } else if !x && char::from_u32(value).is_none() {
                    // A lone surrogate, or past Unicode: no string JSON can hold.
                    return None;
                } else {
                    self.state = Str { quote };
                }
            }
            Number(n) => return self.number(n, b, at),
            Word { word, at: i } => {
                if word.get(i as usize) != Some(&b) {
                    return None;
                }
                match i as usize + 1 == word.len() {
                    true => self.after_value(),
                    false => self.state = Word { word, at: i + 1 },
                }
            }
            AfterValue => match (top, b) {
                (Some(Frame::Dict { key: true }), b':') => {
                    self.set_top(Frame::Dict { key: false });
                    self.state = Value;
                }
                (Some(Frame::Dict { key: true }), _) => return None,
                (Some(Frame::Tuple { comma: false }), b',') => {
                    self.set_top(Frame::Tuple { comma: true });
                    self.state = Item;
                }
                (Some(Frame::Tuple { comma: false }), _) => return None,
                (Some(Frame::Dict { key: false }), b',') => {
                    self.set_top(Frame::Dict { key: true });
                    self.state = Item;
                }
                (_, b',') => self.state = Item,
                _ if self.closes(b) => self.pop(),
                _ => return None,
            },
            Tail { lt } => {
                return match (lt, b) {
                    (false, b' ' | b'\t') => Some(Verdict::Open),
                    (false, b'\n' | b'\r') => Some(Verdict::Calls),
                    (false, b'<') => {
                        self.state = Tail { lt: true };
                        Some(Verdict::Open)
                    }
                    (true, b'|' | b'/') => Some(Verdict::Calls),
                    _ => None,
                };
            }
        }
        Some(Verdict::Open)
    }

    /// The list's `]`: its end is to come (a list of no call is none).
    fn close_list(&mut self) -> Option<Verdict> {
        if self.calls == 0 {
            return None;
        }
        self.state = State::Tail { lt: false };
        Some(Verdict::Open)
    }

    /// A value's first byte.
    fn value(&mut self, b: u8) -> Option<Verdict> {
        use State::*;
        if matches!(b, b'[' | b'{' | b'(') && self.stack.len() >= self.max_depth {
            return None;
        }
        self.state = match b {
            b'\'' | b'"' => Str { quote: b },
            b'-' | b'+' => Number(Num::Sign),
            b'0' => Number(Num::Zero),
            b'1'..=b'9' => Number(Num::Int),
            b'.' => Number(Num::DotFirst),
            b'T' => Word {
                word: b"True",
                at: 1,
            },
            b'F' => Word {
                word: b"False",
                at: 1,
            },
            b'N' => Word {
                word: b"None",
                at: 1,
            },
            b'[' => {
                self.stack.push(Frame::List);
                Item
            }
            b'{' => {
                self.stack.push(Frame::Dict { key: true });
                Item
            }
            b'(' => {
                self.stack.push(Frame::Tuple { comma: false });
                Item
            }
            _ => return None,
        };
        Some(Verdict::Open)
    }

    /// A value ended: its container's turn.
    fn after_value(&mut self) {
        self.state = State::AfterValue;
    }

    fn number(&mut self, n: Num, b: u8, at: usize) -> Option<Verdict> {
        let digit = b.is_ascii_digit();
        let next = match (n, b) {
            (Num::Sign, b'0') => Num::Zero,
            (Num::Sign, b'1'..=b'9') => Num::Int,
            (Num::Sign, b'.') => Num::DotFirst,
            (Num::Int, _) if digit => Num::Int,
            (Num::Zero | Num::Int, b'.') => Num::Frac,
            (Num::Zero | Num::Int | Num::Frac, b'e' | b'E') => Num::Exp,
            (Num::DotFirst | Num::Frac, _) if digit => Num::Frac,
            (Num::Exp, b'+' | b'-') => Num::ExpSign,
            (Num::Exp | Num::ExpSign | Num::ExpInt, _) if digit => Num::ExpInt,
            (Num::Zero | Num::Int | Num::Frac | Num::ExpInt, _) => {
                // The number ended (`1j`, `0x1F`, `1_000`, `007` are not JSON's).
                if ident_byte(b) || b == b'.' {
                    return None;
                }
                self.after_value();
                return self.step(b, at);
            }
            _ => return None,
        };
        self.state = State::Number(next);
        Some(Verdict::Open)
    }

    /// Whether `b` closes the container on top. An empty tuple `()` is one; a value in
    /// parentheses with no `,` is not a tuple (and not read as Python reads it).
    fn closes(&self, b: u8) -> bool {
        match (self.stack.last(), b) {
            (Some(Frame::Call { .. }), b')') => true,
            (Some(Frame::Tuple { comma }), b')') => *comma || self.state == State::Item,
            (Some(Frame::List), b']') => true,
            (Some(Frame::Dict { .. }), b'}') => true,
            _ => false,
        }
    }

    fn pop(&mut self) {
        self.state = match self.stack.pop() {
            Some(Frame::Call { .. }) => State::AfterCall,
            _ => State::AfterValue,
        };
    }

    fn set_top(&mut self, frame: Frame) {
        if let Some(top) = self.stack.last_mut() {
            *top = frame;
        }
    }
}

fn ident_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_' || b >= 0x80
}

fn ident_byte(b: u8) -> bool {
    ident_start(b) || b.is_ascii_digit()
}

/// A bare list under `auto`, held until [`CallList`] tells whether it is a list of
/// calls; with tools declared, its first call must name one of them.
#[derive(Clone, Debug)]
pub(crate) struct ListGate {
    spec: &'static PythonicSpec,
    held: Vec<u8>,
    scan: CallList,
    /// Tools are declared and the first call names one: a list cut off at the end of
    /// the output is read as calls (and reported as cut), not shown.
    declared: bool,
}

impl ListGate {
    pub(crate) fn new(spec: &'static PythonicSpec, max_depth: usize) -> ListGate {
        ListGate {
            spec,
            held: Vec::new(),
            scan: CallList::new(max_depth),
            declared: false,
        }
    }

    /// Hold the next byte: what the bytes so far show.
    pub(crate) fn push(&mut self, b: u8, tools: &Tools) -> Verdict {
        self.held.push(b);
        let verdict = self.scan.push(b);
        if b == b'(' && verdict == Verdict::Open && !tools.is_empty() {
            if let Some((start, end)) = self.scan.first_name() {
                if end + 1 == self.held.len() {
                    let name = std::str::from_utf8(&self.held[start..end]).ok();
                    if name.and_then(|n| tools.resolve(n)).is_none() {
                        return Verdict::Text;
                    }
                    self.declared = true;
                }
            }
        }
        verdict
    }

    /// Whether the output ending here makes the held bytes calls: a whole list, or
    /// (tools declared) a list naming one of them cut off.
    pub(crate) fn calls_at_end(&self) -> bool {
        self.declared || self.scan.at_end() == Verdict::Calls
    }

    /// The held bytes, given back as text or read again.
    pub(crate) fn held(&mut self) -> &mut Vec<u8> {
        &mut self.held
    }

    /// The held bytes.
    pub(crate) fn held_bytes(&self) -> &[u8] {
        &self.held
    }

    /// The Python grammar that reads the calls, the held bytes first.
    pub(crate) fn into_python(mut self, closer: &'static [u8]) -> Python {
        let mut python = Python::new(self.spec, closer, false);
        python.push_back(&std::mem::take(&mut self.held));
        python
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The verdict on `text` as the whole output.
    fn verdict(text: &str) -> Verdict {
        verdict_at(text, 128)
    }

    /// The same, with values nesting at most `depth` deep.
    fn verdict_at(text: &str, depth: usize) -> Verdict {
        let mut scan = CallList::new(depth);
        for &b in text.as_bytes() {
            match scan.push(b) {
                Verdict::Open => {}
                v => return v,
            }
        }
        scan.at_end()
    }

    #[test]
    fn call_lists() {
        let calls = [
            "[f()]",
            "[get_weather(city='LA', metric='C')]",
            "[f(), g(a={})]",
            "[f(a=[], b={}, c=())]",
            "[ f() , g() , ]",
            "[f(a=1,)]",
            "[a.b.c(x=1)]",
            "[_f9(x=1)]",
            "[f('pos', 2, k=3)]",
            "[f(True, None, k=False)]",
            "[f(a='it\\'s', b=\"say \\\"hi\\\"\", c=\"it's\")]",
            "[f(a='\\n\\t\\r\\\\\\a\\b\\f\\v\\0\\012')]",
            "[f(a='\\x41\\u00e9\\U0001F600')]",
            "[f(a='\\d+\\w')]",
            "[f(a='line\\\ncontinued')]",
            "[f(a='é 漢字')]",
            "[f(n=0, m=-1, p=+2, q=1.5, r=.5, s=5., t=1e5, u=-2.5E-3)]",
            "[f(a=(1,), b=(1, 2), c=((1, 2), [3]))]",
            "[f(a={'k': {'n': [1, None]}, 'j': True,})]",
            "[f(\n  a=1,\n  b='x'\n)]",
            "[f()]\n",
            "[f()]  \ntext after",
            "[f()]\r\n",
            "[f()]<|eot_id|>",
            "[f()]</s>",
            "[f()] \t",
        ];
        for text in calls {
            assert_eq!(verdict(text), Verdict::Calls, "{text:?}");
        }
    }

    #[test]
    fn text() {
        let text = [
            "",
            "[",
            "[]",
            "[ ]",
            "[1, 2]",
            "['a', 'b']",
            "[see the docs](url)",
            "[see (the docs)]",
            "[note(s)]",
            "[f(x) for x in y]",
            "[f()](https://example.com)",
            "[f()][1]",
            "[f()]: https://example.com",
            "[f()] is the syntax",
            "[f()]<b>",
            "[f()]<",
            "[f(), and more]",
            "[f() g()]",
            "[f(a=1) g()]",
            "[f (a=1)]",
            "[f.(a=1)]",
            "[f..g()]",
            "[.f()]",
            "[f-g()]",
            "[9f()]",
            "[f(a=g())]",
            "[f(a=x)]",
            "[f(a=1, 2)]",
            "[f(a=1, True)]",
            "[f(a==1)]",
            "[f(a)]",
            "[f(**kw)]",
            "[f(*args)]",
            "[f(a=true)]",
            "[f(a=null)]",
            "[f(a=Truth)]",
            "[f(a={1, 2})]",
            "[f(a={1: 'x'})]",
            "[f(a={'k' 1})]",
            "[f(a={'k'})]",
            "[f(a=(1))]",
            "[f(a=(1 2))]",
            "[f(a=r'x')]",
            "[f(a=b'x')]",
            "[f(a=f'{x}')]",
            "[f(a='''x''')]",
            "[f(a='x' 'y')]",
            "[f(a='x\ny')]",
            "[f(a='\\N{DASH}')]",
            "[f(a='\\/')]",
            "[f(a='\\.')]",
            "[f(a='\\ud83d')]",
            "[f(a='\\U00110000')]",
            "[f(a='\\x4')]",
            "[f(a=0x1F)]",
            "[f(a=007)]",
            "[f(a=1_000)]",
            "[f(a=1j)]",
            "[f(a=1.2.3)]",
            "[f(a=1e)]",
            "[f(a=-)]",
            "[f(a=.)]",
            "[f(a=1 # note\n)]",
            "[f(a='unclosed)]",
            "[f(a=1)",
            "[f(a=1), g(",
            "[f(a=[1, 2)]",
            "[f(a=1)]]",
        ];
        for text in text {
            assert_eq!(verdict(text), Verdict::Text, "{text:?}");
        }
    }

    #[test]
    fn depth_is_bounded() {
        let deep = |n: usize| format!("[f(a={}{})]", "[".repeat(n), "]".repeat(n));
        // The call's parentheses count as one level.
        assert_eq!(verdict_at(&deep(3), 4), Verdict::Calls);
        assert_eq!(verdict_at(&deep(4), 4), Verdict::Text);
    }

    #[test]
    fn first_name_is_the_first_calls() {
        let mut scan = CallList::new(128);
        for &b in b"[ns.get_weather(city='LA'), other(" {
            scan.push(b);
        }
        assert_eq!(scan.first_name(), Some((1, 15)));
    }
}
