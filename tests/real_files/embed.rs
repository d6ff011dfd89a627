//! How a file is written into a `write_file` call, in any dialect, through the renderer:
//! the ways a model writes a file's text into a string (JSON and Python arguments), or
//! raw in an XML value, alone or holding the dialect's own closing markup.

use toolsift::render::{Arguments, Call, Form, Strings, Style, Turn};

/// Visible text before the call, where the form has a place for it.
pub const PREAMBLE: &str = "I'll write the file.\n";

/// How the file's text is written inside the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Way {
    /// 1. Properly escaped (a serde_json string; Python's `repr`).
    Escaped,
    /// 2. Newlines, tabs and other control bytes raw; quotes and backslashes escaped.
    RawNewlines,
    /// 3. Nothing escaped: raw newlines, raw quotes, raw backslashes.
    Raw,
    /// 4. Line breaks escaped (`\n`, `\r`); quotes, backslashes and other control bytes raw.
    EscapedNewlines,
    /// The text raw, as XML values and Gemma's delimited strings carry it.
    Verbatim,
    /// The text raw with the dialect's own closing markup inserted at seeded random
    /// places: a file about tool calls.
    WithMarkup,
}

impl Way {
    /// The four ways of a string literal (JSON or Python).
    pub const STRINGS: [Way; 4] = [
        Way::Escaped,
        Way::RawNewlines,
        Way::Raw,
        Way::EscapedNewlines,
    ];
    /// The two ways of a raw value.
    pub const RAW: [Way; 2] = [Way::Verbatim, Way::WithMarkup];
    /// Every way, in table order.
    pub const ALL: [Way; 6] = [
        Way::Escaped,
        Way::RawNewlines,
        Way::Raw,
        Way::EscapedNewlines,
        Way::Verbatim,
        Way::WithMarkup,
    ];

    /// The ways a form's values are written.
    pub fn of(form: Form) -> &'static [Way] {
        match form.arguments() {
            Arguments::Json | Arguments::Python => &Way::STRINGS,
            _ => &Way::RAW,
        }
    }

    /// A short label for tables.
    pub fn label(self) -> &'static str {
        match self {
            Way::Escaped => "1 escaped",
            Way::RawNewlines => "2 raw newlines",
            Way::Raw => "3 nothing escaped",
            Way::EscapedNewlines => "4 only newlines escaped",
            Way::Verbatim => "raw",
            Way::WithMarkup => "raw + markup",
        }
    }

    /// A one-word name for the expectations file.
    pub fn key(self) -> &'static str {
        match self {
            Way::Escaped => "1-escaped",
            Way::RawNewlines => "2-raw-newlines",
            Way::Raw => "3-nothing-escaped",
            Way::EscapedNewlines => "4-only-newlines-escaped",
            Way::Verbatim => "raw",
            Way::WithMarkup => "raw+markup",
        }
    }

    /// The renderer's way for string literals.
    pub fn strings(self) -> Strings {
        match self {
            Way::RawNewlines => Strings::RawNewlines,
            Way::Raw => Strings::Raw,
            Way::EscapedNewlines => Strings::EscapedNewlines,
            _ => Strings::Escaped,
        }
    }

    /// Whether the file's backslashes reach the call raw inside a string literal. Only
    /// then is a released reading that takes one of them as an escape (or one of the
    /// model's escapes as a literal backslash) a reading the written text allows:
    /// escape-ambiguous. In ways 1 and 2 every backslash is escaped, and raw values have
    /// no escapes: the text has one reading.
    pub fn raw_backslashes(self) -> bool {
        matches!(self, Way::Raw | Way::EscapedNewlines)
    }

    /// Append `text` written this way inside a string literal (as the renderer writes it).
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
            Way::Raw | Way::Verbatim | Way::WithMarkup => out.push_str(text),
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

/// A file written into a call, and what a parser should make of it.
pub struct Written {
    /// The model's output.
    pub raw: String,
    /// The visible text a parser must show, all of it and nothing else.
    pub visible: String,
    /// The arguments meant (strict JSON).
    pub arguments: String,
    /// The content meant: the file, with any markup inserted.
    pub content: String,
    /// The content as written inside the call (what a released reading must follow).
    pub written: String,
}

/// Where `WithMarkup` inserts the dialect's markup into a file of `len` bytes: one to
/// four places, seeded.
pub fn markup_places(len: usize, seed: u64) -> Vec<usize> {
    let mut x = seed | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let n = 1 + (next() % 4) as usize;
    (0..n)
        .map(|_| (next() % (len as u64 + 1)) as usize)
        .collect()
}

/// `text`, written into a `write_file` call to `path` in `form` of its dialect, `way`.
pub fn output(form: Form, way: Way, path: &str, text: &str, seed: u64) -> Written {
    let args = format!(
        r#"{{"path": {}, "content": {}}}"#,
        serde_json::to_string(path).unwrap(),
        serde_json::to_string(text).unwrap()
    );
    let mut turn = Turn::new().call(Call::new("write_file", &args));
    if form.text_before() {
        turn = turn.text(PREAMBLE);
    }
    let places = markup_places(text.len(), seed);
    let mut style = Style::new().form(form.name()).strings(way.strings());
    if way == Way::WithMarkup {
        style = style.markup("content", &places);
    }
    let rendered = form
        .dialect()
        .render_with(&turn, &style)
        .unwrap_or_else(|e| panic!("{} renders a file: {e}", form.dialect()));
    let arguments = rendered.arguments[0].clone();
    let meant: serde_json::Value = serde_json::from_str(&arguments).unwrap();
    let content = meant["content"].as_str().unwrap().to_owned();
    let mut written = String::with_capacity(content.len() * 11 / 10);
    way.write(&content, &mut written);
    Written {
        raw: rendered.output,
        visible: rendered.text,
        arguments,
        content,
        written,
    }
}

/// The arguments alone, `{"path": ..., "content": ...}` written `way` with nothing
/// around them: what `toolsift::repair` is given.
pub fn bare_arguments(way: Way, path: &str, text: &str) -> Written {
    let mut raw = String::from(r#"{"path": ""#);
    way.write(path, &mut raw);
    raw.push_str(r#"", "content": ""#);
    way.write(text, &mut raw);
    raw.push_str(r#""}"#);
    let mut written = String::new();
    way.write(text, &mut written);
    Written {
        raw,
        visible: String::new(),
        arguments: serde_json::json!({"path": path, "content": text}).to_string(),
        content: text.to_owned(),
        written,
    }
}
