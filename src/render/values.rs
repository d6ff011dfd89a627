//! Arguments in the syntaxes that are not JSON text: Python keyword arguments, Gemma's
//! delimited strings, XML parameters and MiniMax M3's elements. Each writes the values of
//! a [`Node`] tree read from strict JSON.

use super::json::{Kind, Node};
use super::Strings;

/// Python literals: `'text'`, `True`/`False`/`None` (or JSON's spellings), numbers as
/// written, lists and dicts.
pub(crate) fn python(node: &Node, strings: Strings, json_literals: bool, out: &mut String) {
    match &node.kind {
        Kind::Null => out.push_str(if json_literals { "null" } else { "None" }),
        Kind::Bool(b) => out.push_str(match (b, json_literals) {
            (true, false) => "True",
            (false, false) => "False",
            (true, true) => "true",
            (false, true) => "false",
        }),
        Kind::Number => out.push_str(node.text),
        Kind::String(s) => python_str(s, strings, out),
        Kind::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                python(item, strings, json_literals, out);
            }
            out.push(']');
        }
        Kind::Object(members) => {
            out.push('{');
            for (i, (key, value)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                python_str(key, Strings::Escaped, out);
                out.push_str(": ");
                python(value, strings, json_literals, out);
            }
            out.push('}');
        }
    }
}

/// Keyword arguments: `key=value, key=value`.
pub(crate) fn keywords(node: &Node, strings: Strings, json_literals: bool, out: &mut String) {
    let Kind::Object(members) = &node.kind else {
        unreachable!("arguments are an object")
    };
    for (i, (key, value)) in members.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        out.push_str(key);
        out.push('=');
        python(value, strings, json_literals, out);
    }
}

/// A Python string literal. Escaped, it is what `repr` writes (single quotes unless the
/// text holds one and no double quote; backslashes, the quote and control characters
/// escaped); the other ways leave the same characters raw as in JSON strings.
pub(crate) fn python_str(text: &str, strings: Strings, out: &mut String) {
    let quote = if strings == Strings::Escaped && text.contains('\'') && !text.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in text.chars() {
        match (strings, c) {
            (Strings::Raw, c) => out.push(c),
            (Strings::EscapedNewlines, '\n') => out.push_str("\\n"),
            (Strings::EscapedNewlines, '\r') => out.push_str("\\r"),
            (Strings::EscapedNewlines, c) => out.push(c),
            (Strings::Escaped | Strings::RawNewlines, '\\') => out.push_str("\\\\"),
            (Strings::Escaped | Strings::RawNewlines, c) if c == quote => {
                out.push('\\');
                out.push(c);
            }
            (Strings::RawNewlines, c) => out.push(c),
            (_, '\n') => out.push_str("\\n"),
            (_, '\r') => out.push_str("\\r"),
            (_, '\t') => out.push_str("\\t"),
            (_, c) if (c as u32) < 0x20 || (0x7f..0xa0).contains(&(c as u32)) => {
                out.push_str(&format!("\\x{:02x}", c as u32));
            }
            (_, c) => out.push(c),
        }
    }
    out.push(quote);
}

/// Gemma's arguments: bare keys, strings between the dialect's delimiter, no blanks
/// (`{city:<|"|>Paris<|"|>,days:3}`).
pub(crate) fn delimited(node: &Node, quote: &str, out: &mut String) {
    match &node.kind {
        Kind::String(s) => {
            out.push_str(quote);
            out.push_str(s);
            out.push_str(quote);
        }
        Kind::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                delimited(item, quote, out);
            }
            out.push(']');
        }
        Kind::Object(members) => {
            out.push('{');
            for (i, (key, value)) in members.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(key);
                out.push(':');
                delimited(value, quote, out);
            }
            out.push('}');
        }
        _ => out.push_str(node.text),
    }
}

/// How an XML dialect writes one parameter.
#[derive(Debug)]
pub(crate) struct Params {
    /// One parameter, with `$key`, `$value`, and where the tag carries the type,
    /// `$string` (`true` for a string, else `false`) or `$type` (the JSON type's name).
    pub param: &'static str,
    /// Values that are not strings are written as Python prints them (`True`,
    /// `['a']`), not as JSON.
    pub python_values: bool,
    /// A string holding `<`, `&` or a line break is written in `<![CDATA[` ... `]]>`.
    pub cdata: bool,
    /// Keys in attributes are escaped (`&` as `&amp;`, `"` as `&quot;`).
    pub escape_attributes: bool,
}

impl Params {
    /// Whether the tag says what type a value is (so a string that reads as JSON is
    /// still a string without a schema).
    pub(crate) fn typed(&self) -> bool {
        self.param.contains("$string") || self.param.contains("$type")
    }

    /// Every top-level member of `node` as one parameter.
    pub(crate) fn write(&self, node: &Node, out: &mut String) {
        let Kind::Object(members) = &node.kind else {
            unreachable!("arguments are an object")
        };
        for (key, value) in members {
            let mut text = String::new();
            match &value.kind {
                Kind::String(s) if self.cdata && s.contains(['<', '&', '\n']) => {
                    // `]]>` cannot be inside a section: it ends one and begins the next.
                    text.push_str("<![CDATA[");
                    text.push_str(&s.replace("]]>", "]]]]><![CDATA[>"));
                    text.push_str("]]>");
                }
                Kind::String(s) => text.push_str(s),
                _ if self.python_values => python(value, Strings::Escaped, false, &mut text),
                _ => text.push_str(value.text),
            }
            let key = if self.escape_attributes {
                key.replace('&', "&amp;").replace('"', "&quot;")
            } else {
                key.clone()
            };
            let is_string = if matches!(value.kind, Kind::String(_)) {
                "true"
            } else {
                "false"
            };
            super::layout::fill(
                self.param,
                &[
                    ("key", &key),
                    ("value", &text),
                    ("string", is_string),
                    ("type", value.kind.type_name()),
                ],
                out,
            );
        }
    }
}

/// MiniMax M3's elements: each member is an element named by its key (`NS<city>Paris
/// NS</city>`), objects nest their members, arrays repeat `<item>`; one element a line.
pub(crate) fn elements(ns: &str, node: &Node, out: &mut String) {
    let Kind::Object(members) = &node.kind else {
        unreachable!("arguments are an object")
    };
    for (key, value) in members {
        element(ns, key, value, out);
    }
}

fn element(ns: &str, key: &str, node: &Node, out: &mut String) {
    out.push_str(ns);
    out.push('<');
    out.push_str(key);
    out.push('>');
    match &node.kind {
        Kind::Object(members) => {
            out.push('\n');
            for (k, v) in members {
                element(ns, k, v, out);
            }
        }
        Kind::Array(items) => {
            out.push('\n');
            for item in items {
                element(ns, "item", item, out);
            }
        }
        Kind::String(s) => out.push_str(s),
        _ => out.push_str(node.text),
    }
    out.push_str(ns);
    out.push_str("</");
    out.push_str(key);
    out.push_str(">\n");
}

#[cfg(test)]
mod tests {
    use super::super::json::object;
    use super::*;

    #[test]
    fn python_reprs() {
        let mut out = String::new();
        let node = object(r#"{"a": "it's", "b": [true, null, 1.50], "c": {"k": "x\ty\\"}}"#);
        keywords(&node.unwrap(), Strings::Escaped, false, &mut out);
        assert_eq!(out, r#"a="it's", b=[True, None, 1.50], c={'k': 'x\ty\\'}"#);
        let mut out = String::new();
        python_str("a'b\"c\n\u{1}", Strings::Escaped, &mut out);
        assert_eq!(out, r#"'a\'b"c\n\x01'"#);
        let mut out = String::new();
        python_str("a'b\n", Strings::Raw, &mut out);
        assert_eq!(out, "'a'b\n'");
    }

    #[test]
    fn gemma_and_elements() {
        let node = object(r#"{"a": "x", "n": [1, {"b": false}]}"#).unwrap();
        let mut out = String::new();
        delimited(&node, "<|\"|>", &mut out);
        assert_eq!(out, r#"{a:<|"|>x<|"|>,n:[1,{b:false}]}"#);
        let mut out = String::new();
        elements("NS", &node, &mut out);
        assert_eq!(
            out,
            "NS<a>xNS</a>\nNS<n>\nNS<item>1NS</item>\nNS<item>\nNS<b>falseNS</b>\nNS</item>\nNS</n>\n"
        );
    }

    #[test]
    fn parameters() {
        let params = Params {
            param: "<p name=\"$key\" t=\"$type\">$value</p>",
            python_values: true,
            cdata: true,
            escape_attributes: true,
        };
        let node = object(r#"{"a\"": "x < y ]]> z", "b": [true]}"#).unwrap();
        let mut out = String::new();
        params.write(&node, &mut out);
        assert_eq!(
            out,
            "<p name=\"a&quot;\" t=\"string\"><![CDATA[x < y ]]]]><![CDATA[> z]]></p>\
             <p name=\"b\" t=\"array\">[True]</p>"
        );
        assert!(params.typed());
    }
}
