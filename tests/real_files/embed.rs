//! The four ways a model writes a file into a `write_file` call.

/// Visible text before the call: it must come out whole, and alone.
pub const PREAMBLE: &str = "I'll write the file.\n";

/// How the file's text is written inside the call's JSON string.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Way {
    /// 1. Properly escaped (a serde_json string).
    Escaped,
    /// 2. Newlines, tabs and other control bytes raw; quotes and backslashes escaped.
    RawNewlines,
    /// 3. Nothing escaped: raw newlines, raw quotes, raw backslashes.
    Raw,
    /// 4. Line breaks escaped (`\n`, `\r`); quotes, backslashes and other control bytes raw.
    EscapedNewlines,
}

impl Way {
    pub const ALL: [Way; 4] = [
        Way::Escaped,
        Way::RawNewlines,
        Way::Raw,
        Way::EscapedNewlines,
    ];

    /// The way's number in the issue (1 to 4).
    pub fn number(self) -> usize {
        self as usize + 1
    }

    /// A short label for tables.
    pub fn label(self) -> &'static str {
        match self {
            Way::Escaped => "1 escaped",
            Way::RawNewlines => "2 raw newlines",
            Way::Raw => "3 nothing escaped",
            Way::EscapedNewlines => "4 only newlines escaped",
        }
    }

    /// Whether the file's backslashes reach the call raw. Only then is a released
    /// reading that takes one of them as a JSON escape (or one of the model's escapes
    /// as a literal backslash) a reading the written text allows: escape-ambiguous.
    /// In ways 1 and 2 every backslash is escaped, so the text has one reading.
    pub fn raw_backslashes(self) -> bool {
        matches!(self, Way::Raw | Way::EscapedNewlines)
    }

    /// Append `text` written this way.
    pub fn write(self, text: &str, out: &mut String) {
        match self {
            Way::Escaped => {
                let quoted = serde_json::to_string(text).unwrap();
                out.push_str(&quoted[1..quoted.len() - 1]);
            }
            Way::RawNewlines => {
                for c in text.chars() {
                    match c {
                        '"' => out.push_str("\\\""),
                        '\\' => out.push_str("\\\\"),
                        c => out.push(c),
                    }
                }
            }
            Way::Raw => out.push_str(text),
            Way::EscapedNewlines => {
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

/// The model's output: the preamble and one Hermes `write_file` call.
pub fn output(way: Way, path: &str, text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 11 / 10 + 128);
    out.push_str(PREAMBLE);
    out.push_str(r#"<tool_call>{"name": "write_file", "arguments": {"path": ""#);
    way.write(path, &mut out);
    out.push_str(r#"", "content": ""#);
    way.write(text, &mut out);
    out.push_str(r#""}}</tool_call>"#);
    out
}

/// The file's text as written inside the string (what a released reading must follow).
pub fn written(way: Way, text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 11 / 10);
    way.write(text, &mut out);
    out
}
