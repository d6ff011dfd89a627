//! How one form of a dialect lays out a turn, as data, and the one writer that follows
//! it. Each dialect's file holds its forms (`FORMS`); nothing here knows a dialect.
//!
//! ```text
//! reasoning pieces   (when the turn has reasoning)
//! text pieces        (when the turn has text before its calls, or always)
//! calls_open  call (between call)*  calls_close      (when it has calls)
//! after pieces       (when it has text after its calls)
//! tail, end of turn
//! ```
//!
//! Every byte is written as markup, visible text or reasoning, so the renderer knows
//! what a parser must show: the turn's own text, plus the layout's blanks outside markup
//! (the newline between two Hermes blocks is visible text).

use super::json::{self, Kind, Node};
use super::values::{self, Params};
use super::{Call, InAuto, Rendered, Strings, Style, Turn};
use crate::error::{Category, Error};

/// One piece of a layout.
#[derive(Debug)]
pub(crate) enum Piece {
    /// Markup: part of a marker or a call, never shown.
    Markup(&'static str),
    /// Layout written outside markup: visible text (the newline before `<tool_call>`).
    Text(&'static str),
    /// Layout inside reasoning (the newline after `<think>`).
    Reasoning(&'static str),
    /// The turn's own reasoning or text, whichever this list of pieces writes.
    Slot,
}

/// `<think>\n...\n</think>\n\n`, as Qwen 3 and DeepSeek R1 write it.
pub(crate) const THINK: &[Piece] = &[
    Piece::Markup("<think>"),
    Piece::Reasoning("\n"),
    Piece::Slot,
    Piece::Reasoning("\n"),
    Piece::Markup("</think>"),
    Piece::Text("\n\n"),
];

/// `<think>...</think>`, nothing around it.
pub(crate) const THINK_TIGHT: &[Piece] = &[
    Piece::Markup("<think>"),
    Piece::Slot,
    Piece::Markup("</think>"),
];

/// How a form writes a call's arguments.
#[derive(Debug)]
pub(crate) enum Args {
    /// The JSON text as given (string values in the style's way).
    Json,
    /// Gemma: bare keys, strings between `quote` (`{city:<|"|>Paris<|"|>}`).
    Delimited { quote: &'static str },
    /// One XML parameter per top-level member.
    Params(&'static Params),
    /// MiniMax M3: members as elements named by their keys, each tag after `ns`.
    Elements { ns: &'static str },
    /// Python keyword arguments (`city='Paris', days=3`), with JSON's `true`/`null`
    /// when `json_literals` (Olmo 3's template) rather than Python's `True`/`None`.
    Python { json_literals: bool },
}

/// How a form writes call ids.
#[derive(Debug)]
pub(crate) enum Ids {
    /// Not carried: a given id is not written.
    None,
    /// Written only when given, with this call template in place of `call`.
    Given(&'static str),
    /// Always written (`$id` in `call`): the given id, else this pattern (`$index`).
    Default(&'static str),
    /// The form's own ids (`$id` in `call`, `functions.$name:$index`): a given id is
    /// written only when `fits` says it has their shape.
    Own {
        default: &'static str,
        fits: fn(id: &str, name: &str) -> bool,
    },
}

/// One way a dialect's model writes a turn. `Layout::BASE` holds the defaults.
#[derive(Debug)]
pub(crate) struct Layout {
    /// The form's name (`v11`, `pre_v11`), unique within its dialect.
    pub name: &'static str,
    /// Which models write this form, for the docs.
    pub note: &'static str,
    /// Reasoning, around [`Piece::Slot`]; empty when the dialect has none.
    pub reasoning: &'static [Piece],
    /// The prompt opens the reasoning block: the output begins inside it, and a parser
    /// needs `Config::reasoning_open`.
    pub prompt_opens_reasoning: bool,
    /// Visible text before the calls, around [`Piece::Slot`]; empty when the form has no
    /// place for it.
    pub text: &'static [Piece],
    /// The text pieces are written even when the turn has no text (they close a channel
    /// the prompt opened).
    pub text_always: bool,
    /// Before the first call (a section's opener, an array's `[`).
    pub calls_open: &'static [Piece],
    /// One call: markup with `$name`, `$args`, and (with [`Ids::Always`]) `$id`;
    /// `$index` is the call's position from 0, `$number` from 1.
    pub call: &'static str,
    pub args: Args,
    pub ids: Ids,
    /// Between two calls.
    pub between: &'static [Piece],
    /// After the last call.
    pub calls_close: &'static [Piece],
    /// More than one call per turn.
    pub parallel: bool,
    /// Visible text after the calls, around [`Piece::Slot`]; empty when the form has no
    /// place for it.
    pub after: &'static [Piece],
    /// Written at the end of every turn.
    pub tail: &'static [Piece],
    /// The end-of-turn token the model writes (one of the dialect's markers), written
    /// when asked; empty for none.
    pub end_of_turn: &'static str,
    /// The dialect's own closing markup, as a value holding it would: the closers of a
    /// value, a call and a section.
    pub closing_markup: &'static [&'static str],
    /// How `auto` reads the form (when the dialect takes part in `auto`).
    pub auto: InAuto,
}

impl Layout {
    pub(crate) const BASE: Layout = Layout {
        name: "",
        note: "",
        reasoning: &[],
        prompt_opens_reasoning: false,
        text: &[Piece::Slot],
        text_always: false,
        calls_open: &[],
        call: "",
        args: Args::Json,
        ids: Ids::None,
        between: &[],
        calls_close: &[],
        parallel: true,
        after: &[Piece::Slot],
        tail: &[],
        end_of_turn: "",
        closing_markup: &[],
        auto: InAuto::Yes,
    };
}

/// What is written, sorted into the output, the visible text and the reasoning.
#[derive(Default)]
struct Out {
    rendered: Rendered,
}

impl Out {
    fn markup(&mut self, s: &str) {
        self.rendered.output.push_str(s);
    }

    fn text(&mut self, s: &str) {
        self.rendered.output.push_str(s);
        self.rendered.text.push_str(s);
    }

    fn reasoning(&mut self, s: &str) {
        self.rendered.output.push_str(s);
        self.rendered.reasoning.push_str(s);
    }

    /// Write `pieces`, the slot as `slot` sorted by `sort`.
    fn pieces(&mut self, pieces: &[Piece], slot: &str, sort: fn(&mut Out, &str)) {
        for piece in pieces {
            match piece {
                Piece::Markup(s) => self.markup(s),
                Piece::Text(s) => self.text(s),
                Piece::Reasoning(s) => self.reasoning(s),
                Piece::Slot => sort(self, slot),
            }
        }
    }
}

fn error(message: String) -> Error {
    Error::new(Category::Syntax, message)
}

/// Write `turn` in `layout` (a form of the dialect named `dialect`).
pub(crate) fn write(
    dialect: &str,
    layout: &Layout,
    turn: &Turn,
    style: &Style,
) -> Result<Rendered, Error> {
    let form = || {
        if layout.name.is_empty() {
            dialect.to_owned()
        } else {
            format!("{dialect} ({})", layout.name)
        }
    };
    if turn.calls.len() > 1 && !layout.parallel {
        return Err(error(format!("{} writes one call per turn", form())));
    }
    if turn.reasoning.is_some() && layout.reasoning.is_empty() {
        return Err(error(format!("{} has no reasoning", form())));
    }
    if !turn.text.is_empty() && layout.text.is_empty() {
        return Err(error(format!("{} has no text before its calls", form())));
    }
    if !turn.text_after.is_empty() && layout.after.is_empty() {
        return Err(error(format!("{} has no text after its calls", form())));
    }
    let mut out = Out::default();
    if let Some(reasoning) = turn.reasoning {
        out.pieces(layout.reasoning, reasoning, Out::reasoning);
    }
    if !turn.text.is_empty() || layout.text_always {
        out.pieces(layout.text, turn.text, Out::text);
    }
    if !turn.calls.is_empty() {
        out.pieces(layout.calls_open, "", Out::markup);
        for (index, call) in turn.calls.iter().enumerate() {
            if index > 0 {
                out.pieces(layout.between, "", Out::markup);
            }
            let arguments = write_call(layout, index, call, style, &mut out.rendered.output)
                .map_err(|e| error(format!("{}: call {index}: {}", form(), e.message())))?;
            out.rendered.arguments.push(arguments);
        }
        out.pieces(layout.calls_close, "", Out::markup);
    }
    if !turn.text_after.is_empty() {
        out.pieces(layout.after, turn.text_after, Out::text);
    }
    out.pieces(layout.tail, "", Out::markup);
    if turn.end_of_turn {
        out.markup(layout.end_of_turn);
    }
    Ok(out.rendered)
}

/// Write one call; return the arguments it means (strict JSON, or the text as given).
fn write_call(
    layout: &Layout,
    index: usize,
    call: &Call,
    style: &Style,
    out: &mut String,
) -> Result<String, Error> {
    check_name(call.name, matches!(layout.args, Args::Python { .. }))?;
    if let Some(id) = call.id {
        let plain = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':');
        if id.is_empty() || !id.bytes().all(plain) {
            return Err(error(format!(
                "call id {id:?} cannot be written: letters, digits, `_`, `-`, `.`, `:`"
            )));
        }
    }
    let (args, meant) = if call.as_written {
        if !matches!(layout.args, Args::Json) {
            return Err(error(
                "arguments as written need a dialect that carries JSON text".into(),
            ));
        }
        (call.arguments.to_owned(), call.arguments.to_owned())
    } else {
        let node = json::object(call.arguments)?;
        check_keys(&layout.args, &node)?;
        // The closing markup inserted into one member makes the arguments meant.
        let replaced = match style.markup {
            Some((key, at)) => Some((key, with_markup(layout, &node, key, at)?)),
            None => None,
        };
        let replace = replaced.as_ref().map(|(k, v)| (*k, v.as_str()));
        let mut meant = String::new();
        json::write(&node, Strings::Escaped, replace, &mut meant);
        let mut args = String::new();
        match &layout.args {
            Args::Json => json::write(&node, style.strings, replace, &mut args),
            other => {
                let node = json::object(&meant).expect("written from strict JSON");
                match other {
                    Args::Delimited { quote } => values::delimited(&node, quote, &mut args),
                    Args::Params(params) => params.write(&node, &mut args),
                    Args::Elements { ns } => values::elements(ns, &node, &mut args),
                    Args::Python { json_literals } => {
                        values::keywords(&node, style.strings, *json_literals, &mut args)
                    }
                    Args::Json => unreachable!(),
                }
            }
        }
        (args, meant)
    };
    let index_text = index.to_string();
    let number = (index + 1).to_string();
    let vars = |id: &str| {
        [
            ("name", call.name.to_owned()),
            ("args", args.clone()),
            ("id", id.to_owned()),
            ("index", index_text.clone()),
            ("number", number.clone()),
        ]
    };
    let default_id = |pattern: &str| {
        let mut id = String::new();
        fill(pattern, &pairs(&vars("")), &mut id);
        id
    };
    let (template, id) = match (&layout.ids, call.id) {
        (Ids::Given(template), Some(id)) => (*template, id.to_owned()),
        (Ids::Default(_), Some(id)) => (layout.call, id.to_owned()),
        (Ids::Own { fits, .. }, Some(id)) if fits(id, call.name) => (layout.call, id.to_owned()),
        (
            Ids::Default(pattern)
            | Ids::Own {
                default: pattern, ..
            },
            _,
        ) => (layout.call, default_id(pattern)),
        _ => (layout.call, String::new()),
    };
    let vars = vars(&id);
    fill(template, &pairs(&vars), out);
    Ok(meant)
}

fn pairs<'v>(vars: &'v [(&'static str, String)]) -> Vec<(&'static str, &'v str)> {
    vars.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

/// `member`'s string value with the layout's closing markup inserted at `at` (byte
/// offsets into it, moved back to a character boundary), cycling through the markup.
fn with_markup(layout: &Layout, node: &Node, member: &str, at: &[usize]) -> Result<String, Error> {
    if layout.closing_markup.is_empty() {
        return Err(error("the form has no closing markup".into()));
    }
    let Kind::Object(members) = &node.kind else {
        unreachable!("arguments are an object")
    };
    let Some(Kind::String(text)) = members
        .iter()
        .find(|(k, _)| k == member)
        .map(|(_, v)| &v.kind)
    else {
        return Err(error(format!("no string member {member:?} to hold markup")));
    };
    let mut at: Vec<usize> = at.to_vec();
    at.sort_unstable();
    let mut out = String::with_capacity(text.len() + 16 * at.len());
    let mut from = 0;
    for (i, &place) in at.iter().enumerate() {
        let mut place = place.min(text.len());
        while !text.is_char_boundary(place) {
            place -= 1;
        }
        let place = place.max(from);
        out.push_str(&text[from..place]);
        out.push_str(layout.closing_markup[i % layout.closing_markup.len()]);
        from = place;
    }
    out.push_str(&text[from..]);
    Ok(out)
}

/// Replace `$var` in `template` by its value.
pub(crate) fn fill(template: &str, vars: &[(&str, &str)], out: &mut String) {
    let mut rest = template;
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        let len = after.bytes().take_while(|b| b.is_ascii_lowercase()).count();
        match vars.iter().find(|(k, _)| *k == &after[..len]) {
            _ if len == 0 => out.push('$'),
            Some((_, v)) => out.push_str(v),
            None => panic!("template {template:?}: no value for ${}", &after[..len]),
        }
        rest = &after[len..];
    }
    out.push_str(rest);
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Tool names are letters, digits, `_`, `-` and `.` (a Python call's, an identifier).
fn check_name(name: &str, python: bool) -> Result<(), Error> {
    let fits = if python {
        is_identifier(name)
    } else {
        !name.is_empty()
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    };
    if fits {
        Ok(())
    } else {
        Err(error(format!("tool name {name:?} cannot be written here")))
    }
}

/// Keys a syntax cannot write: a Python keyword or a Gemma or MiniMax M3 key is an
/// identifier; an XML parameter's key holds no markup or line break; MiniMax M3 reads
/// an element given twice as an array, so it cannot carry a key given twice.
fn check_keys(args: &Args, node: &Node) -> Result<(), Error> {
    let elements = matches!(args, Args::Elements { .. });
    fn walk(
        node: &Node,
        top: bool,
        fits: &dyn Fn(&str, bool) -> bool,
        once: bool,
    ) -> Result<(), Error> {
        match &node.kind {
            Kind::Object(members) => {
                for (i, (key, value)) in members.iter().enumerate() {
                    if once && members[..i].iter().any(|(k, _)| k == key) {
                        return Err(error(format!(
                            "key {key:?} given twice cannot be written here"
                        )));
                    }
                    if !fits(key, top) {
                        return Err(error(format!("key {key:?} cannot be written here")));
                    }
                    walk(value, false, fits, once)?;
                }
            }
            Kind::Array(items) => {
                for item in items {
                    walk(item, false, fits, once)?;
                }
            }
            _ => {}
        }
        Ok(())
    }
    let fits: &dyn Fn(&str, bool) -> bool = match args {
        Args::Json => &|_, _| true,
        Args::Delimited { .. } | Args::Elements { .. } => &|k, _| is_identifier(k),
        Args::Python { .. } => &|k, top| !top || is_identifier(k),
        Args::Params(_) => {
            &|k, top| !top || !(k.is_empty() || k.contains(['<', '>', '"', '\n', '\r', '&']))
        }
    };
    walk(node, true, fits, elements)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_fill() {
        let mut out = String::new();
        fill(
            "a$name[$index]$args$",
            &[("name", "N"), ("index", "0"), ("args", "{}")],
            &mut out,
        );
        assert_eq!(out, "aN[0]{}$");
    }
}
