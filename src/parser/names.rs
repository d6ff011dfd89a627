//! Names held before an opener that follows them (`NAME[ARGS]{...}`): an identifier at
//! the start of the output (or, under a named dialect, one that ends the visible text)
//! is held until what follows shows whether it names a call.

use super::*;

impl Parser {
    /// Whether a call's name may also follow visible text (`Sure: get_weather[ARGS]{..}`,
    /// the `[TOOL_CALLS]` swallowed): in a named dialect with an opener that follows its
    /// tool name. Then every text byte takes the slow path, which holds the identifier
    /// that ends the text until what follows shows whether it is a name.
    pub(super) fn names_after_text(&self) -> bool {
        self.tables.name_before
            && self.config.dialect != Dialect::Auto
            && !self.finished()
            && !self.work.as_ref().is_some_and(|w| w.names_paused)
    }

    /// Where the identifier (and the blanks after it) that ends `text` begins, when it
    /// may be a call's name after visible text ([`names_after_text`]): it begins with a
    /// letter or `_` after a byte that is not a name's. `text.len()` when none is.
    ///
    /// [`names_after_text`]: Self::names_after_text
    pub(super) fn name_after_text(&self, text: &[u8]) -> usize {
        if !self.names_after_text() {
            return text.len();
        }
        let end = text.trim_ascii_end().len();
        let ident = text[..end]
            .iter()
            .rev()
            .take_while(|&&b| crate::calls::is_name_byte(b))
            .count();
        let from = end - ident;
        let before = if from > 0 {
            text[from - 1]
        } else {
            self.last_text
        };
        let starts = |b: u8| b.is_ascii_alphabetic() || b == b'_';
        if ident == 0 || crate::calls::is_name_byte(before) || !starts(text[from]) {
            return text.len();
        }
        from
    }

    /// Whether an identifier of visible text may be held as the name of a call whose
    /// opener follows it (see [`Parser::name_spot`]), before the end of the stream.
    pub(super) fn holds_names(&self) -> bool {
        self.name_spot() && !self.finished()
    }

    /// Hold what of `bytes` may still be a call's name (an identifier, then blanks) and
    /// return the rest, from the first byte that shows it is none: the held name is
    /// then text, shown before the rest. Blanks before the name are shown at once. The
    /// decision is per byte, so it does not depend on how the text was cut. Under
    /// `auto` the identifier must begin a declared tool's name; it is bounded by
    /// `max_name_bytes`.
    pub(super) fn hold_name<'b>(&mut self, mut bytes: &'b [u8], after_text: bool) -> &'b [u8] {
        let continued = self.name_held() && self.names_after_text();
        if !self.holds_names() && !after_text && !continued {
            return bytes;
        }
        if !self.name_held() {
            let blanks = bytes.iter().take_while(|b| b.is_ascii_whitespace()).count();
            if blanks > 0 {
                self.emit_shown(&bytes[..blanks], false);
                bytes = &bytes[blanks..];
            }
            if !bytes
                .first()
                .is_some_and(|&b| crate::calls::is_name_byte(b))
            {
                return bytes;
            }
        }
        let max = self.config.limits.max_name_bytes;
        let auto = self.config.dialect == Dialect::Auto;
        let tools = &self.config.tools;
        let name = &mut Parser::work(&mut self.work).name;
        for (i, &b) in bytes.iter().enumerate() {
            let ident = name.iter().take_while(|c| !c.is_ascii_whitespace()).count();
            let takes = if b.is_ascii_whitespace() {
                ident > 0
            } else {
                ident == name.len() && crate::calls::is_name_byte(b) && {
                    // Under `auto`, only what begins a declared tool's name.
                    let begins = |t: &crate::schema::Tool| {
                        let n = t.name().as_bytes();
                        n.len() > ident && n[..ident] == name[..] && n[ident] == b
                    };
                    !auto || tools.iter().any(begins)
                }
            };
            if !takes || name.len() >= max {
                return &bytes[i..];
            }
            name.push(b);
        }
        &[]
    }

    /// Whether text here may begin with the name of a call whose opener follows it: in a
    /// dialect with such an opener (under `auto` only with tools declared), at the
    /// start of the output or with no text but blanks since a call began.
    pub(super) fn name_spot(&self) -> bool {
        self.tables.name_before
            && (self.at_start || self.calls.next_index > self.calls_at_text)
            && (self.config.dialect != Dialect::Auto || !self.config.tools.is_empty())
    }

    /// Whether a name is held (see [`Parser::hold_name`]).
    pub(super) fn name_held(&self) -> bool {
        self.work.as_ref().is_some_and(|work| !work.name.is_empty())
    }

    /// Show the held name as text: what followed it was not a call's opener.
    pub(super) fn show_name(&mut self) {
        if !self.name_held() {
            return;
        }
        let work = Parser::work(&mut self.work);
        let name = std::mem::take(&mut work.name);
        self.emit_shown(&name, false);
        // Keep the storage for the next output.
        let work = Parser::work(&mut self.work);
        work.name = name;
        work.name.clear();
    }

    /// Take the held name for a call whose opener follows it (`CallForm::name_before`):
    /// under `auto` a declared tool's, under a named dialect any identifier; `None`
    /// (the name, if any, shown as text) otherwise.
    pub(super) fn take_name(&mut self) -> Option<Vec<u8>> {
        if !self.name_held() {
            return None;
        }
        let held = &Parser::work(&mut self.work).name;
        let ident = std::str::from_utf8(held.trim_ascii_end()).unwrap_or("");
        let named = match self.config.dialect {
            Dialect::Auto => self.config.tools.get(ident).is_some(),
            _ => crate::calls::is_name(ident),
        };
        if !named {
            self.show_name();
            return None;
        }
        Some(std::mem::take(&mut Parser::work(&mut self.work).name))
    }
}
