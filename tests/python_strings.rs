//! Python strings written raw (issue 35): a file written into a Python call's string
//! with nothing escaped, or only its line breaks, may hold the string's own quote
//! followed by `)`, `]` or `,`, which looks like the call's end. The rest of the call
//! tells: the call is released exactly as meant, or not released; never cut short, and
//! no byte of it is shown as text.
//!
//! Every form of every dialect whose arguments are Python (enumerated from
//! `Dialect::ALL` by `Form::arguments`), in both raw ways, whole, byte at a time and in
//! random chunks (which must agree).

mod support;

use support::{shown_however_cut, write_file_tools, Outcome, Shown};
use toolsift::render::{Arguments, Call, Form, Strings, Style, Turn};
use toolsift::{Config, Dialect};

/// Every form, of every dialect, whose arguments are Python keyword arguments.
fn python_forms() -> Vec<Form> {
    Dialect::ALL
        .iter()
        .flat_map(|d| d.forms())
        .filter(|f| f.arguments() == Arguments::Python)
        .collect()
}

/// Files holding a string's own quote (either quote: the renderer picks the one the
/// value needs least) right before what ends a call or a list.
const FILES: &[&str] = &[
    "x = run(')\nlog \"current image\"\n",
    "x = run(\")\nlog 'current image'\n",
    "print('a')\nprint('b')\n",
    "items = ['a', 'b']\nmore = f('c')]\n",
    "call(')', ']')\n",
    "end with ')\n",
    "')]\n')]\n",
    "a = \"x\"), b = ('y\n",
    // A quote the look-ahead cannot decide (readings fork, decided at the end of the
    // stream): found in the real-file check, with a second, nameless call reported.
    "search = '\\.\\.\\.HEAD'\nreplace = \"y\"\n",
    // A quote, `)` and a separator, then no call: a table of ranges.
    "const R: &[(char, char)] = &[\n    ('\\u{30}', '\\u{39}'),  // 0-9\n    ('\\u{41}', '\\u{5a}'),  // A-Z\n];\n\nThe static storage used by this data structure.\n",
];

/// A `write_file` call of `file` written in `form`, its strings the `way` given, read
/// however it is cut: its outcome, and the form, way and model output for a message.
fn outcome_of(form: Form, way: Strings, file: &str) -> (Outcome, String) {
    let args = serde_json::json!({"path": "a.py", "content": file}).to_string();
    let turn = Turn::new().call(Call::new("write_file", &args));
    let style = Style::new().form(form.name()).strings(way);
    let rendered = form.dialect().render_with(&turn, &style).unwrap();
    let config = Config::new(form.dialect()).tools(write_file_tools());
    let shown = shown_however_cut(&config, rendered.output.as_bytes());
    let outcome = shown.outcome(&rendered.arguments[0], &rendered.text);
    let what = format!(
        "{} ({}, {}): {:?}",
        form.dialect(),
        form.name(),
        way.name(),
        rendered.output
    );
    (outcome, what)
}

#[test]
fn every_dialect_has_a_python_form_here() {
    // The forms this file covers: a dialect gaining a Python form is covered at once;
    // losing every one would make the checks below pass on nothing.
    let dialects: Vec<&str> = python_forms().iter().map(|f| f.dialect().name()).collect();
    assert!(dialects.contains(&"pythonic"), "{dialects:?}");
    assert!(dialects.len() >= 4, "{dialects:?}");
}

/// A raw string holding its quote and `)`: released exact or not at all, in every
/// Python form, and what is shown is the turn's own text.
#[test]
fn a_raw_string_holding_its_quote_and_paren_is_never_released_cut() {
    let mut wrong = Vec::new();
    let mut exact = 0;
    let mut runs = 0;
    for form in python_forms() {
        for way in [Strings::Raw, Strings::EscapedNewlines] {
            for file in FILES {
                let (outcome, what) = outcome_of(form, way, file);
                runs += 1;
                // Not released, the call's bytes are not shown either.
                let ok = match outcome {
                    Outcome::Exact => {
                        exact += 1;
                        true
                    }
                    Outcome::Held => true,
                    Outcome::Wrong(_) => false,
                };
                if !ok {
                    wrong.push(format!("{what} gave {outcome:?}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // Most are exact; the rest are held (the check cannot pass on held alone).
    assert!(exact * 2 >= runs, "{exact} of {runs} exact");
}

/// Files holding a string's own quote, `)` and a separator, then a word that begins no
/// call (`b\n`, a macro's `!`): found in the real-file check (Rust's `'+');` and
/// `b'x');`), where the reading that ended the string there, and took the word for the
/// next call, made the call ambiguous and held it.
const QUOTE_PAREN_THEN_NO_CALL: &[&str] = &[
    "a('+');\nb\n",
    "push_punct!(push_add '+');\npush_punct!(push_sub '-');\n",
    "assert_eq!(Special.get_u8(), b'x');\nlet y = 1;\n",
    "f('a'), g\n",
];

/// What follows a string's quote and `)` past a separator is the next call only if it
/// is one (a name, then `(`): those files are released exact in every Python form and
/// both raw ways.
#[test]
fn a_quote_and_paren_then_a_word_that_begins_no_call_is_the_strings() {
    let mut wrong = Vec::new();
    for form in python_forms() {
        for way in [Strings::Raw, Strings::EscapedNewlines] {
            for file in QUOTE_PAREN_THEN_NO_CALL {
                let (outcome, what) = outcome_of(form, way, file);
                if outcome != Outcome::Exact {
                    wrong.push(format!("{what} gave {outcome:?}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// Python calls in a list, each well formed: every one released, in order, whatever
/// follows the list (a list's `]`, the end of the stream or text).
#[test]
fn calls_in_a_list_are_released_when_the_next_call_or_the_end_follows() {
    let cases: &[(&[u8], &[&str], &str)] = &[
        (b"[f(a=1), g(b='x')]", &[r#"{"a":1}"#, r#"{"b":"x"}"#], ""),
        (b"[f(a=1) , g(b='x') ]", &[r#"{"a":1}"#, r#"{"b":"x"}"#], ""),
        (
            b"[f(a=1),\n g(b=')')]\nDone.",
            &[r#"{"a":1}"#, r#"{"b":")"}"#],
            "\nDone.",
        ),
        (b"[f(a=1)", &[r#"{"a":1}"#], ""),
        (b"[f(a=1)\n\n", &[r#"{"a":1}"#], ""),
        (b"[f(a=1), ]", &[r#"{"a":1}"#], ""),
    ];
    let config = Config::new(Dialect::Pythonic);
    for (raw, calls, shown) in cases {
        let Shown {
            text,
            released,
            held,
        } = shown_however_cut(&config, raw);
        let released: Vec<serde_json::Value> = released
            .iter()
            .map(|a| serde_json::from_str(a).unwrap())
            .collect();
        let meant: Vec<serde_json::Value> = calls
            .iter()
            .map(|a| serde_json::from_str(a).unwrap())
            .collect();
        assert_eq!(
            (released, held, text.as_str()),
            (meant, 0, *shown),
            "{:?}",
            String::from_utf8_lossy(raw)
        );
    }
}

/// A list that goes on past a call's `)` with no separator: that call is not
/// released, what follows up to the list's last `]` is not shown, text after it is.
#[test]
fn a_list_going_on_past_a_call_holds_that_call() {
    let cases: &[(&[u8], &str)] = &[
        (b"[f(s='a')\nmore text')]", ""),
        (
            b"[f(s='a')\nmore text')]\nAfter the list.",
            "\nAfter the list.",
        ),
        (b"[f(s='a') g(t=1)]", ""),
        (b"[f(s='a'),  // a-b\n more')]", ""),
    ];
    let config = Config::new(Dialect::Pythonic);
    for (raw, shown) in cases {
        let Shown {
            text,
            released,
            held,
        } = shown_however_cut(&config, raw);
        assert_eq!(
            (released.len(), held, text.as_str()),
            (0, 1, *shown),
            "{:?}",
            String::from_utf8_lossy(raw)
        );
    }
}
