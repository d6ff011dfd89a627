//! The arguments as the renderer reads them: strict JSON text, kept as written. Every
//! value keeps its source text (a number is written back as the model's caller spelled
//! it, an object keeps its key order), and string values can be rewritten in place, so
//! JSON-carried arguments come out byte-identical where nothing asks to change them.

use super::Strings;
use crate::error::{Category, Error};

/// One JSON value and the text it was read from.
#[derive(Debug)]
pub(crate) struct Node<'a> {
    /// The value's own text (for a string, with its quotes).
    pub text: &'a str,
    pub kind: Kind<'a>,
}

#[derive(Debug)]
pub(crate) enum Kind<'a> {
    Null,
    Bool(bool),
    Number,
    String(String),
    Array(Vec<Node<'a>>),
    Object(Vec<(String, Node<'a>)>),
}

impl Kind<'_> {
    /// The JSON type's name, as a schema spells it.
    pub(crate) fn type_name(&self) -> &'static str {
        match self {
            Kind::Null => "null",
            Kind::Bool(_) => "boolean",
            Kind::Number => "number",
            Kind::String(_) => "string",
            Kind::Array(_) => "array",
            Kind::Object(_) => "object",
        }
    }
}

/// Read `text` as one strict JSON object (blanks around it allowed).
pub(crate) fn object(text: &str) -> Result<Node<'_>, Error> {
    if let Err(e) = serde_json::from_str::<&serde_json::value::RawValue>(text) {
        return Err(Error::new(
            Category::Syntax,
            format!("arguments are not strict JSON: {e}"),
        ));
    }
    let mut reader = Reader { text, at: 0 };
    reader.blanks();
    let node = reader.value();
    if !matches!(node.kind, Kind::Object(_)) {
        return Err(Error::new(
            Category::Syntax,
            "arguments must be a JSON object",
        ));
    }
    Ok(node)
}

/// A reader over text serde_json already accepted: no error paths.
struct Reader<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> u8 {
        self.text.as_bytes()[self.at]
    }

    fn blanks(&mut self) {
        while self.at < self.text.len() && self.peek().is_ascii_whitespace() {
            self.at += 1;
        }
    }

    fn value(&mut self) -> Node<'a> {
        let start = self.at;
        let kind = match self.peek() {
            b'{' => {
                self.at += 1;
                let mut members = Vec::new();
                loop {
                    self.blanks();
                    match self.peek() {
                        b'}' => break,
                        b',' => self.at += 1,
                        _ => {
                            let key = self.string();
                            self.blanks();
                            self.at += 1; // ':'
                            self.blanks();
                            members.push((key, self.value()));
                        }
                    }
                }
                self.at += 1;
                Kind::Object(members)
            }
            b'[' => {
                self.at += 1;
                let mut items = Vec::new();
                loop {
                    self.blanks();
                    match self.peek() {
                        b']' => break,
                        b',' => self.at += 1,
                        _ => items.push(self.value()),
                    }
                }
                self.at += 1;
                Kind::Array(items)
            }
            b'"' => Kind::String(self.string()),
            b't' => {
                self.at += 4;
                Kind::Bool(true)
            }
            b'f' => {
                self.at += 5;
                Kind::Bool(false)
            }
            b'n' => {
                self.at += 4;
                Kind::Null
            }
            _ => {
                while self.at < self.text.len()
                    && matches!(self.peek(), b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
                {
                    self.at += 1;
                }
                Kind::Number
            }
        };
        Node {
            text: &self.text[start..self.at],
            kind,
        }
    }

    /// A string token, decoded.
    fn string(&mut self) -> String {
        let start = self.at;
        self.at += 1;
        loop {
            match self.peek() {
                b'\\' => self.at += 2,
                b'"' => break,
                _ => self.at += 1,
            }
        }
        self.at += 1;
        serde_json::from_str(&self.text[start..self.at]).expect("a string serde_json accepted")
    }
}

/// Write `node` back as JSON: its own text, except that every string value (not a key)
/// is written `strings`' way, and the top-level member `key` (when given) takes `value`
/// instead. With [`Strings::Escaped`] and no replacement this is the node's text.
pub(crate) fn write(
    node: &Node,
    strings: Strings,
    replace: Option<(&str, &str)>,
    out: &mut String,
) {
    write_at(node, strings, replace, true, out);
}

fn write_at(
    node: &Node,
    strings: Strings,
    replace: Option<(&str, &str)>,
    top: bool,
    out: &mut String,
) {
    match &node.kind {
        Kind::String(s) => match strings {
            Strings::Escaped => out.push_str(node.text),
            way => {
                out.push('"');
                way.write_json(s, out);
                out.push('"');
            }
        },
        Kind::Array(items) => {
            // The text between the items (brackets, commas, blanks) as written.
            let mut at = 0;
            for item in items {
                let start = offset(node.text, item.text);
                out.push_str(&node.text[at..start]);
                write_at(item, strings, None, false, out);
                at = start + item.text.len();
            }
            out.push_str(&node.text[at..]);
        }
        Kind::Object(members) => {
            let mut at = 0;
            for (key, value) in members {
                let start = offset(node.text, value.text);
                out.push_str(&node.text[at..start]);
                match replace {
                    Some((k, new)) if top && k == key => {
                        out.push('"');
                        strings.write_json(new, out);
                        out.push('"');
                    }
                    _ => write_at(value, strings, None, false, out),
                }
                at = start + value.text.len();
            }
            out.push_str(&node.text[at..]);
        }
        _ => out.push_str(node.text),
    }
}

/// Where `inner` (a slice of `outer`) begins in it.
fn offset(outer: &str, inner: &str) -> usize {
    inner.as_ptr() as usize - outer.as_ptr() as usize
}

impl Strings {
    /// Append `text` written this way inside a JSON string (quotes not included).
    pub(crate) fn write_json(self, text: &str, out: &mut String) {
        match self {
            Strings::Escaped => {
                let quoted = serde_json::to_string(text).expect("a string serializes");
                out.push_str(&quoted[1..quoted.len() - 1]);
            }
            Strings::RawNewlines => {
                for c in text.chars() {
                    match c {
                        '"' => out.push_str("\\\""),
                        '\\' => out.push_str("\\\\"),
                        c => out.push(c),
                    }
                }
            }
            Strings::Raw => out.push_str(text),
            Strings::EscapedNewlines => {
                for c in text.chars() {
                    match c {
                        '\n' => out.push_str("\\n"),
                        '\r' => out.push_str("\\r"),
                        c => out.push(c),
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(text: &str, strings: Strings, replace: Option<(&str, &str)>) -> String {
        let node = object(text).unwrap();
        let mut out = String::new();
        write(&node, strings, replace, &mut out);
        out
    }

    #[test]
    fn escaped_is_the_text_as_written() {
        let text = r#" {"a" : [1, 2.50, -0e+3, "x\u00e9\n"], "b":{"c":null,"d":true}} "#;
        assert_eq!(rewrite(text.trim(), Strings::Escaped, None), text.trim());
        let node = object(text).unwrap();
        let Kind::Object(members) = &node.kind else {
            panic!()
        };
        assert_eq!(members[0].0, "a");
        assert_eq!(members[1].1.text, r#"{"c":null,"d":true}"#);
    }

    #[test]
    fn string_values_take_the_way_and_keys_do_not() {
        let text = r#"{"k\"ey": "say \"hi\"\n\\d", "n": ["\t"]}"#;
        assert_eq!(
            rewrite(text, Strings::Raw, None),
            "{\"k\\\"ey\": \"say \"hi\"\n\\d\", \"n\": [\"\t\"]}"
        );
        assert_eq!(
            rewrite(text, Strings::EscapedNewlines, None),
            "{\"k\\\"ey\": \"say \"hi\"\\n\\d\", \"n\": [\"\t\"]}"
        );
        assert_eq!(
            rewrite(text, Strings::RawNewlines, None),
            "{\"k\\\"ey\": \"say \\\"hi\\\"\n\\\\d\", \"n\": [\"\t\"]}"
        );
    }

    #[test]
    fn a_top_level_member_is_replaced() {
        let text = r#"{"path": "a", "content": "b", "x": {"content": "c"}}"#;
        assert_eq!(
            rewrite(text, Strings::Escaped, Some(("content", "b\"</p>"))),
            r#"{"path": "a", "content": "b\"</p>", "x": {"content": "c"}}"#
        );
    }

    #[test]
    fn only_objects_are_arguments() {
        assert!(object("[1]").is_err());
        assert!(object("{'a': 1}").is_err());
        assert!(object(" {} ").is_ok());
    }
}
