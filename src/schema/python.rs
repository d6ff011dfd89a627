//! Python literals as JSON values: `['a', 'b']`, `{'k': True, 'n': None}`, tuples.
//!
//! Also accepts JSON's own spelling (`true`, `null`, double-quoted strings), so any
//! JSON scalar or container parses too. The whole text must be one value.

use crate::ordered::{Map, Value};
use serde_json::Number;

/// Parse `text` as one Python literal (surrounding blanks allowed).
pub(crate) fn parse(text: &str) -> Option<Value> {
    let mut parser = Parser {
        bytes: text.as_bytes(),
        text,
        pos: 0,
        depth: 0,
    };
    let value = parser.value()?;
    parser.blanks();
    (parser.pos == parser.bytes.len()).then_some(value)
}

const MAX_DEPTH: usize = 128;

struct Parser<'a> {
    bytes: &'a [u8],
    text: &'a str,
    pos: usize,
    depth: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.pos).copied()
    }

    fn blanks(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.pos += 1;
        }
    }

    fn eat(&mut self, byte: u8) -> bool {
        self.blanks();
        if self.peek() == Some(byte) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Option<Value> {
        self.blanks();
        match self.peek()? {
            b'[' => self.sequence(b']'),
            b'(' => self.sequence(b')'),
            b'{' => self.dict(),
            b'\'' | b'"' => self.string().map(Value::String),
            b'r' | b'R' | b'u' | b'U'
                if matches!(self.bytes.get(self.pos + 1), Some(b'\'' | b'"')) =>
            {
                let raw = matches!(self.peek(), Some(b'r' | b'R'));
                self.pos += 1;
                if raw {
                    self.raw_string().map(Value::String)
                } else {
                    self.string().map(Value::String)
                }
            }
            b'-' | b'+' | b'.' | b'0'..=b'9' => self.number(),
            _ => self.word(),
        }
    }

    fn word(&mut self) -> Option<Value> {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            self.pos += 1;
        }
        match &self.text[start..self.pos] {
            "True" | "true" => Some(Value::Bool(true)),
            "False" | "false" => Some(Value::Bool(false)),
            "None" | "null" => Some(Value::Null),
            _ => None,
        }
    }

    fn number(&mut self) -> Option<Value> {
        let start = self.pos;
        while self
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'+' | b'.' | b'_'))
        {
            self.pos += 1;
        }
        number(&self.text[start..self.pos].replace('_', ""))
    }

    fn sequence(&mut self, close: u8) -> Option<Value> {
        self.enter()?;
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            if self.eat(close) {
                break;
            }
            items.push(self.value()?);
            if !self.eat(b',') {
                if self.eat(close) {
                    break;
                }
                return None;
            }
        }
        self.depth -= 1;
        Some(Value::Array(items))
    }

    fn dict(&mut self) -> Option<Value> {
        self.enter()?;
        self.pos += 1;
        let mut map = Map::new();
        loop {
            if self.eat(b'}') {
                break;
            }
            let key = match self.value()? {
                Value::String(s) => s,
                Value::Number(n) => n.to_string(),
                Value::Bool(b) => if b { "True" } else { "False" }.to_owned(),
                Value::Null => "None".to_owned(),
                _ => return None,
            };
            if !self.eat(b':') {
                return None;
            }
            let value = self.value()?;
            // First wins, as in the JSON layer.
            if !map.contains_key(&key) {
                map.insert(key, value);
            }
            if !self.eat(b',') {
                if self.eat(b'}') {
                    break;
                }
                return None;
            }
        }
        self.depth -= 1;
        Some(Value::Object(map))
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    fn raw_string(&mut self) -> Option<String> {
        let quote = self.peek()?;
        self.pos += 1;
        let start = self.pos;
        while let Some(b) = self.peek() {
            if b == b'\\' {
                self.pos += 2;
                continue;
            }
            if b == quote {
                let s = self.text.get(start..self.pos)?.to_owned();
                self.pos += 1;
                return Some(s);
            }
            self.pos += 1;
        }
        None
    }

    fn string(&mut self) -> Option<String> {
        let quote = self.peek()?;
        let triple = self.bytes[self.pos..].starts_with(&[quote; 3]);
        self.pos += if triple { 3 } else { 1 };
        let mut out = String::new();
        loop {
            let rest = self.text.get(self.pos..)?;
            let c = rest.chars().next()?;
            if c as u32 == u32::from(quote) {
                if !triple {
                    self.pos += 1;
                    return Some(out);
                }
                if rest.as_bytes().starts_with(&[quote; 3]) {
                    self.pos += 3;
                    return Some(out);
                }
            }
            if c == '\\' {
                self.pos += 1;
                let e = self.text.get(self.pos..)?.chars().next()?;
                self.pos += e.len_utf8();
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    '0' => out.push('\0'),
                    'a' => out.push('\u{7}'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'v' => out.push('\u{b}'),
                    '\\' | '\'' | '"' => out.push(e),
                    '\n' => {}
                    'x' => out.push(self.hex(2)?),
                    'u' => out.push(self.hex(4)?),
                    'U' => out.push(self.hex(8)?),
                    other => {
                        out.push('\\');
                        out.push(other);
                    }
                }
                continue;
            }
            if c == '\n' && !triple {
                return None;
            }
            out.push(c);
            self.pos += c.len_utf8();
        }
    }

    fn hex(&mut self, len: usize) -> Option<char> {
        let digits = self.text.get(self.pos..self.pos + len)?;
        let code = u32::from_str_radix(digits, 16).ok()?;
        self.pos += len;
        Some(char::from_u32(code).unwrap_or('\u{fffd}'))
    }
}

/// A number from its text: JSON grammar first, then Rust's float grammar (finite only).
pub(crate) fn number(text: &str) -> Option<Value> {
    if let Ok(n) = serde_json::from_str::<Number>(text) {
        return Some(Value::Number(n));
    }
    let text = text.strip_prefix('+').unwrap_or(text);
    if !text
        .bytes()
        .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'.' | b'e' | b'E' | b'+'))
    {
        return None;
    }
    if let Ok(i) = text.parse::<i64>() {
        return Some(Value::from(i));
    }
    let f = text.parse::<f64>().ok().filter(|f| f.is_finite())?;
    Number::from_f64(f).map(Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn literals() {
        let cases: &[(&str, Option<serde_json::Value>)] = &[
            ("['a', 'b']", Some(json!(["a", "b"]))),
            (
                "{'k': True, 'n': None}",
                Some(json!({"k": true, "n": null})),
            ),
            ("(1, 2,)", Some(json!([1, 2]))),
            ("[1.5, -2, +3, .5]", Some(json!([1.5, -2, 3, 0.5]))),
            ("'it\\'s'", Some(json!("it's"))),
            ("\"\"\"a\nb\"\"\"", Some(json!("a\nb"))),
            ("r'\\d+'", Some(json!("\\d+"))),
            ("{1: 'x'}", Some(json!({"1": "x"}))),
            ("[\"json\", true, null]", Some(json!(["json", true, null]))),
            ("['a', 'b'", None),
            ("[a]", None),
            ("['a'] extra", None),
            ("1_000", Some(json!(1000))),
            ("inf", None),
            ("'\\u00e9\\x41'", Some(json!("éA"))),
        ];
        for (text, expected) in cases {
            assert_eq!(&parse(text).map(|v| v.to_serde()), expected, "{text}");
        }
    }

    #[test]
    fn deep_nesting_is_refused() {
        let text = "[".repeat(1000) + &"]".repeat(1000);
        assert_eq!(parse(&text), None);
    }
}
