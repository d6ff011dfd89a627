//! Calls closed by a Markdown fence (issue 35): a file written raw into such a call
//! (a README, a Markdown page) holds fences of its own, and one right after a string's
//! end (`"}` + fence, `')` + fence) looks like the call's end. The text after it, up to
//! the call's bound, tells: the call is released exactly as meant, or not released;
//! never cut short, and no byte of it is shown as text.
//!
//! Every form, of every dialect, whose closing markup holds a fence (as the renderer
//! says: `Form::closing_markup`), in every way of writing strings, whole, byte at a time
//! and in random chunks (which must agree).

mod support;

use support::{shown_however_cut, write_file_tools, Outcome};
use toolsift::render::{Call, Form, Strings, Style, Turn};
use toolsift::{Config, Dialect};

/// Every form whose closing markup holds a Markdown fence.
fn fenced_forms() -> Vec<Form> {
    Dialect::ALL
        .iter()
        .flat_map(|d| d.forms())
        .filter(|f| f.closing_markup().iter().any(|m| m.contains("```")))
        .collect()
}

/// Markdown files with fences of their own, some right after a quote.
const FILES: &[&str] = &[
    "# Usage\n\n```toml\n[dependencies]\nbytes = \"1\"\n```\n\nNext, add this to your crate:\n\n```rust\nuse bytes::Bytes;\n```\n",
    "Run it:\n\n```console\n$ demo --name 'bob'\n```\n\nDone.\n",
    "Set `name: \"bob\"`\n\n```\nname: \"bob\"\n```\n",
    "```json\n{\"a\": 1}\n```\nand ```python\nf('x')\n```\nend\n",
    "no fence here, only a quote: \"x\" and 'y'\n",
    // A quoted word ending a line (`'--help')`) looks like a Python call's end.
    "```console\n$ demo -h\n  -h, --help     Print help (see more with '--help')\n$ demo fast\nHare\n```\n",
];

/// A `write_file` call of `file` written in `form`, its strings the `way` given, read
/// however it is cut: its outcome, and the form, way and model output for a message
/// (`None` when the form cannot write it).
fn outcome_of(form: Form, way: Strings, file: &str) -> Option<(Outcome, String)> {
    let args = serde_json::json!({"path": "README.md", "content": file}).to_string();
    let mut turn = Turn::new().call(Call::new("write_file", &args));
    if form.text_before() {
        turn = turn.text("I'll write the file.");
    }
    let style = Style::new().form(form.name()).strings(way);
    let rendered = form.dialect().render_with(&turn, &style).ok()?;
    let config = Config::new(form.dialect()).tools(write_file_tools());
    let shown = shown_however_cut(&config, rendered.output.as_bytes());
    let outcome = shown.outcome(&rendered.arguments[0], &rendered.text);
    let what = format!(
        "{}/{} ({}): {:?}",
        form.dialect(),
        form.name(),
        way.name(),
        rendered.output
    );
    Some((outcome, what))
}

#[test]
fn the_forms_closed_by_a_fence_are_here() {
    let names: Vec<String> = fenced_forms()
        .iter()
        .map(|f| format!("{}/{}", f.dialect(), f.name()))
        .collect();
    assert!(names.len() >= 3, "{names:?}");
}

#[test]
fn a_file_with_fences_written_raw_is_never_released_cut() {
    let mut wrong = Vec::new();
    let (mut exact, mut runs) = (0, 0);
    for form in fenced_forms() {
        for way in Strings::ALL {
            for file in FILES {
                let Some((outcome, what)) = outcome_of(form, way, file) else {
                    continue;
                };
                runs += 1;
                let ok = match outcome {
                    Outcome::Exact => {
                        exact += 1;
                        true
                    }
                    // Escaped, a file is no guess: released exact.
                    Outcome::Held => way != Strings::Escaped,
                    Outcome::Wrong(_) => false,
                };
                if !ok {
                    wrong.push(format!("{what} gave {outcome:?}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(exact * 2 >= runs, "{exact} of {runs} exact");
}

/// Files whose own fences and quotes end lines the way a call's end does, from the
/// real-file check: a help text in a console block (`'--help')` then a line).
const FENCES_AFTER_QUOTES: &[&str] = &[
    "```console\n$ demo --help\nOptions:\n  -h, --help     Print help (see more with '--help')\n  -V, --version  Print version\n\n$ demo medium\n? failed\nerror: invalid value 'medium' for '<MODE>'\n\nFor more information, try '--help'.\n\n```\n",
];

/// In a form whose closer is a fence, a reading that reads past a fence of the file
/// is still the call's: such files written raw (nothing escaped, or only line breaks)
/// come back exact, not held because the reading that read the whole file was
/// dropped at the file's first fence.
#[test]
fn a_reading_past_a_files_own_fence_is_still_the_calls() {
    let mut wrong = Vec::new();
    let closed_by_a_fence = fenced_forms().into_iter().filter(|f| {
        f.closing_markup()
            .iter()
            .any(|m| m.trim().starts_with("```"))
    });
    for form in closed_by_a_fence {
        for way in [Strings::Raw, Strings::EscapedNewlines] {
            for file in FENCES_AFTER_QUOTES {
                let Some((outcome, what)) = outcome_of(form, way, file) else {
                    continue;
                };
                if outcome != Outcome::Exact {
                    wrong.push(format!("{what} gave {outcome:?}"));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
