//! An echo of a released call: its body written again right after its closer, then the
//! closer again (`<|tool_call_start|>[f(a=1)]<|tool_call_end|>[f(a=1)]<|tool_call_end|>`,
//! as LFM2 models do). The second body is no text the model meant to show, and no
//! second call: it began with no opener. Text right after a released call is held
//! while it is the body's bytes again; the closer after all of them (a few blanks
//! before it allowed) drops it as markup. The first byte that differs makes all of it text, read again as
//! any text, so nothing is lost and nothing waits longer than the body's length.

use super::*;

/// The most blanks held between an echo and its closer.
const BLANKS: usize = 64;

/// A released call's body as written, and the text after the call held while it
/// repeats it. Kept in `CallWork` with its storage, so a call allocates none for it.
#[derive(Default)]
pub(super) struct Echo {
    /// The bytes the body was read from (the call's `RawBody`, swapped in), and how
    /// many of them are the body: none when it was not kept.
    bytes: Vec<u8>,
    len: usize,
    form: Option<&'static CallForm>,
    within: Option<u16>,
    /// The bytes held: the body's bytes, then what may end it.
    held: SmallVec<[u8; 32]>,
    /// How many bytes of the body matched.
    body: usize,
    /// How many bytes of what ends the body, blanks not counted, matched: the closer,
    /// or the form's trailer then its closer (`\n```<｜tool▁call▁end｜>`).
    end: usize,
}

impl Echo {
    /// Keep the body of the call that just ended (`raw`'s first `len` bytes), or none.
    pub(super) fn keep(&mut self, raw: &mut Vec<u8>, len: usize) {
        std::mem::swap(&mut self.bytes, raw);
        self.len = len;
    }

    fn back(&self) -> Mode {
        self.within.map_or(Mode::Text, Mode::Reasoning)
    }

    /// Whether the bytes held past the body, blanks left out, are the closer (or the
    /// trailer then the closer): `Some(true)` all of it, `Some(false)` its beginning.
    fn ends(&self, form: &CallForm) -> Option<bool> {
        let after = self.held.iter().rev().filter(|b| !b.is_ascii_whitespace());
        let mut after: SmallVec<[u8; 32]> = after.take(self.end).copied().collect();
        after.reverse();
        let (closer, trailer) = (form.closer, form.trailer.trim_ascii());
        let tail = |rest: &[u8]| match closer.starts_with(rest) {
            true => Some(rest.len() == closer.len()),
            false => None,
        };
        match after.strip_prefix(trailer) {
            Some(rest) if !trailer.is_empty() => tail(rest),
            _ if trailer.starts_with(&after) => Some(false),
            _ => tail(&after),
        }
    }
}

impl Parser {
    /// The mode after a call of `form` released at its closer: held for an echo of its
    /// body when one was kept (`end_body`), else text or reasoning again.
    pub(super) fn after_release(&mut self, form: &'static CallForm, within: Option<u16>) -> Mode {
        let echo = self.work.as_mut().map(|w| &mut w.echo);
        match echo {
            Some(echo) if echo.len > 0 && !form.closer.is_empty() => {
                echo.form = Some(form);
                echo.within = within;
                echo.held.clear();
                echo.body = 0;
                echo.end = 0;
                Mode::Echo
            }
            _ => within.map_or(Mode::Text, Mode::Reasoning),
        }
    }

    /// Text after a released call, while it may be an echo of its body.
    pub(super) fn echo(&mut self, input: &[u8]) -> usize {
        let Some(state) = self.work.as_mut().map(|w| &mut w.echo) else {
            unreachable!("an echo is held after a call")
        };
        let Some(form) = state.form else {
            unreachable!("an echo is of a call's form")
        };
        let body = &state.bytes[..state.len];
        // Blanks after the body are bounded too.
        let most = body.len() + BLANKS + form.trailer.len() + form.closer.len();
        if state.held.is_empty() && input.first() != body.first() {
            // No echo (the text after most calls): text at once, nothing held.
            self.mode = state.back();
            return 0;
        }
        for (i, &b) in input.iter().enumerate() {
            state.held.push(b);
            let fits = if state.held.len() > most {
                false
            } else if state.body < body.len() {
                state.body += 1;
                b == body[state.body - 1]
            } else if b.is_ascii_whitespace() {
                true
            } else {
                state.end += 1;
                match state.ends(form) {
                    Some(true) => {
                        // The body again and its closer: an echo, dropped as markup.
                        self.mode = state.back();
                        self.stats.markup_stripped += 1;
                        return i + 1;
                    }
                    Some(false) => true,
                    None => false,
                }
            };
            if !fits {
                // Not an echo: what was held is text, read again as any.
                let held = std::mem::take(&mut state.held);
                self.mode = state.back();
                return self.read_again(&held, i + 1);
            }
        }
        input.len()
    }

    /// At the end of the stream: what was held is text.
    pub(super) fn finish_echo(&mut self) {
        let Some(state) = self.work.as_mut().map(|w| &mut w.echo) else {
            return;
        };
        let held = std::mem::take(&mut state.held);
        self.mode = state.back();
        self.process(&held);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::{Call, Style, Turn};
    use crate::OwnedEvent;

    /// What a run shows: its visible text, its other events but argument deltas (the
    /// invariant checks hold their sum to the arguments), how many markers it stripped.
    #[derive(Debug, PartialEq)]
    struct Run {
        text: String,
        events: Vec<OwnedEvent>,
        stripped: u64,
    }

    /// The run of `raw` pushed in `step`-byte chunks.
    fn parse(dialect: Dialect, raw: &[u8], step: usize) -> Run {
        let mut p = Parser::new(dialect);
        let mut run = Run {
            text: String::new(),
            events: Vec::new(),
            stripped: 0,
        };
        let mut take = |p: &mut Parser| {
            while let Some(e) = p.next_event() {
                match e.into_owned() {
                    OwnedEvent::Text(t) => run.text.push_str(&t),
                    OwnedEvent::ArgsDelta { .. } => {}
                    e => run.events.push(e),
                }
            }
        };
        for chunk in raw.chunks(step) {
            p.push(chunk);
            take(&mut p);
        }
        p.finish(StopReason::Stop);
        take(&mut p);
        run.stripped = p.stats().markup_stripped;
        run
    }

    /// Whether `form` writes string values raw (tags, delimiters).
    fn raw_values(form: crate::render::Form) -> bool {
        use crate::render::Arguments;
        !matches!(form.arguments(), Arguments::Json | Arguments::Python)
    }

    /// Where `form`'s call is in `out`: its body's start and its closer's start.
    fn call_in(form: &CallForm, out: &[u8]) -> Option<(usize, usize)> {
        if form.closer.is_empty() || form.opener.is_empty() {
            return None;
        }
        // (An opener that ends in the body's first bytes reads them again as body.)
        let from =
            memchr::memmem::find(out, form.opener)? + form.opener.len() - form.body_prefix.len();
        let to = from + memchr::memmem::find(&out[from..], form.closer)?;
        Some((from, to))
    }

    /// In every dialect's every form whose call has a closer (enumerated from
    /// `Dialect::ALL` and the forms it renders), a released call's body written again
    /// after its closer, then the closer again, is dropped: the result is the call's
    /// alone, whole and a byte at a time. The same body with a byte changed is not an
    /// echo, and what follows is read as it would be.
    #[test]
    fn a_released_calls_body_written_again_with_its_closer_is_dropped() {
        let (mut covered, mut held) = (Vec::new(), Vec::new());
        for &dialect in Dialect::ALL {
            for form in dialect.forms() {
                let turn = Turn::new().call(Call::new("get_weather", r#"{"city": "Paris"}"#));
                let Ok(rendered) = dialect.render_with(&turn, &Style::new().form(form.name()))
                else {
                    continue;
                };
                let out = rendered.output.as_bytes();
                // The form the call is read in: the opener first in the output, the
                // longest there (as markers are found), not a section's that only
                // wraps the call's own.
                let Some((call, (from, to))) = dialect
                    .spec()
                    .calls
                    .iter()
                    .filter(|c| !c.wrapper)
                    .filter_map(|c| call_in(c, out).map(|at| (c, at)))
                    .min_by_key(|(c, (from, _))| {
                        let opener = from + c.body_prefix.len() - c.opener.len();
                        (opener, std::cmp::Reverse(c.opener.len()))
                    })
                else {
                    continue;
                };
                let at = format!("{} ({})", dialect.name(), form.name());
                let end = to + call.closer.len();
                let body = &out[from..to];
                let with = |echo: &[u8]| [&out[..end], echo, call.closer, &out[end..]].concat();
                let alone = parse(dialect, out, out.len());
                assert!(
                    alone
                        .events
                        .iter()
                        .any(|e| matches!(e, OwnedEvent::CallFinished { .. })),
                    "{at}: the call alone is not released: {alone:?}"
                );
                let echoed = parse(dialect, &with(body), usize::MAX);
                let bytewise = parse(dialect, &with(body), 1);
                assert_eq!(bytewise, echoed, "{at}: the result depends on the chunking");
                if raw_values(form) && echoed.events != alone.events {
                    // A value written raw may hold the body's closing tags, then the
                    // body again: not told from an echo, the call is not released, and
                    // nothing is shown.
                    let refused = |e: &OwnedEvent| matches!(e, OwnedEvent::CallNotReleased { .. });
                    assert!(
                        echoed.events.iter().any(refused) && echoed.text == alone.text,
                        "{at}: an echo of a body of raw values: {echoed:?}"
                    );
                    held.push(at);
                    continue;
                }
                assert_eq!(
                    (&echoed.text, &echoed.events),
                    (&alone.text, &alone.events),
                    "{at}: the echo is not dropped"
                );
                assert_eq!(echoed.stripped, alone.stripped + 1, "{at}: not counted");
                let mut changed = body.to_vec();
                let mid = changed.len() / 2;
                changed[mid] = if changed[mid] == b'#' { b'%' } else { b'#' };
                let differs = parse(dialect, &with(&changed), 1);
                assert_ne!(
                    (&differs.text, &differs.events),
                    (&alone.text, &alone.events),
                    "{at}: a changed body is dropped as an echo"
                );
                covered.push(at);
            }
        }
        // Every form whose calls have closers: most of them (41 when this was written).
        assert!(
            covered.len() >= 25 && covered.len() + held.len() >= 40,
            "dropped in {covered:?}, held in {held:?}"
        );
    }

    /// The body is kept up to `RawBody::MAX` bytes (4 KiB): a longer call's echo is
    /// shown as text, as any text after a call.
    #[test]
    fn a_body_is_kept_up_to_its_cap() {
        use crate::call::RawBody;
        assert_eq!(RawBody::MAX, 4096, "docs/design.md gives the cap");
        for (len, dropped) in [(RawBody::MAX - 64, true), (RawBody::MAX + 64, false)] {
            let body = format!(
                "\n{{\"name\": \"f\", \"arguments\": {{\"a\": \"{}\"}}}}\n",
                "x".repeat(len - 40)
            );
            let call = format!("<tool_call>{body}</tool_call>");
            let alone = parse(Dialect::Hermes, call.as_bytes(), 7);
            let echoed = format!("{call}{body}</tool_call>");
            let echoed = parse(Dialect::Hermes, echoed.as_bytes(), 7);
            assert_eq!(echoed.events, alone.events, "{len}");
            assert_eq!(echoed.text.is_empty(), dropped, "{len}");
            assert_eq!(echoed.stripped, 1, "{len}: the echo, or its closer alone");
        }
    }
}
