//! Between parameters: only blanks are expected; the next key's tag, the function's
//! or the call's closer, and what real models write there instead (stray text,
//! misspelled or orphan closing tags, a key tag that lost its name, blanks written
//! double-escaped).

use super::{is_blank, Phase, Xml};
use crate::calls::{Abort, Sink};
use crate::repairs::Repair;
use crate::scan::Found;

impl Xml {
    /// The body's arguments are one JSON object, read from here. After a bare name
    /// (no tag around it, GLM's) nothing separates the two: the name may be a stray
    /// word (`Sink::loose_name`).
    fn start_json_body(&mut self, sink: &mut Sink<'_>) {
        if self.spec.name_open.is_empty() {
            sink.loose_name();
        }
        self.raw.clear();
        self.phase = Phase::JsonBody;
    }

    pub(super) fn between(&mut self, b: u8, sink: &mut Sink<'_>) -> Result<(), Abort> {
        if self.tag.is_empty() && is_blank(b) || self.escaped_blank(b, sink) {
            return Ok(());
        }
        if self.tag.is_empty() && b == b'{' && self.keys.is_empty() {
            // A bare JSON object as the body (DeepSeek DSML invokes).
            self.start_json_body(sink);
            self.raw.push(b);
            return Ok(());
        }
        self.tag.push(b);
        match self.between_markers.match_at(&self.tag, 0) {
            Found::Partial { .. } => Ok(()),
            Found::Full { id, .. } => {
                let m = self.between_markers.get(id);
                self.tag.clear();
                if m == self.spec.name_sep {
                    // The separator after a name that ended at it: nothing to read.
                } else if m == self.spec.json_open && self.keys.is_empty() {
                    self.start_json_body(sink);
                } else if m == self.spec.key_open {
                    self.unknown_tag = None;
                    self.phase = Phase::Key;
                } else if self.spec.key_open_alts.contains(&m) {
                    sink.repair(Repair::MismatchedTag);
                    self.unknown_tag = None;
                    self.phase = Phase::Key;
                } else if m == self.spec.func_close {
                    self.close_object();
                    self.phase = Phase::Done;
                    self.ended = Some(false);
                } else {
                    // The call's closer (with the function left open, if it has a closer).
                    if !self.spec.func_close.is_empty() {
                        sink.repair(Repair::MissingCloser);
                    }
                    self.close_object();
                    self.phase = Phase::Done;
                    self.ended = Some(true);
                }
                Ok(())
            }
            Found::None => {
                let bytes = std::mem::take(&mut self.tag);
                if self.nameless_key_tag(&bytes) {
                    // `<param>`: a parameter whose name was lost. Dropping it would
                    // release the call without its value: it is not released.
                    sink.invalid(
                        "a parameter has no name, so where its value goes cannot be told; \
                         write every parameter with its name",
                    );
                    sink.repair(Repair::StrayText);
                    return Ok(());
                }
                if bytes.starts_with(self.spec.value_close) || bytes.starts_with(b"</") {
                    // An orphan or misspelled closing tag between parameters.
                    sink.repair(Repair::MismatchedTag);
                    self.skip_tag(bytes);
                    return Ok(());
                }
                if !self.spec.name_open.is_empty()
                    && self
                        .spec
                        .name_open
                        .starts_with(&bytes[..bytes.len().min(self.spec.name_open.len())])
                    && bytes.len() >= self.spec.name_open.len()
                {
                    // A new function while this one is open: end this call here.
                    sink.repair(Repair::MissingCloser);
                    self.close_object();
                    self.phase = Phase::Done;
                    self.ended = Some(false);
                    self.requeue(&bytes);
                    return Ok(());
                }
                if !self.spec.value_open.is_empty() && bytes[0] != b'<' {
                    // A key whose opening tag was dropped (`city</arg_key>`).
                    sink.repair(Repair::MismatchedTag);
                    self.phase = Phase::Key;
                    self.requeue(&bytes);
                    return Ok(());
                }
                if bytes.len() > 1 && bytes[0] == b'<' && bytes[1].is_ascii_alphabetic() {
                    // A tag this format does not have (`<city>`, `<parameters>`).
                    self.unknown_tag = Some(false);
                } else if self.unknown_tag == Some(false) && bytes.contains(&b'>') {
                    self.unknown_tag = Some(true);
                } else if self.unknown_tag == Some(true) {
                    // `<city>Paris</city>`: a parameter in a tag the dialect does not
                    // have. Dropped as stray text, the call would lose its value: it is
                    // not released.
                    sink.invalid(
                        "a parameter is written in a tag this format does not have, so its \
                         value cannot be read; write each parameter in the format's own tags",
                    );
                }
                sink.repair(Repair::StrayText);
                self.requeue(&bytes[1..]);
                Ok(())
            }
        }
    }

    /// Whether `bytes` is the key's opening tag with its name attribute dropped
    /// (`<param>` for `<param name="K">`).
    pub(super) fn nameless_key_tag(&self, bytes: &[u8]) -> bool {
        let key_open = self.spec.key_open;
        let Some((&b'>', head)) = bytes.split_last() else {
            return false;
        };
        head.len() > 1 && key_open.starts_with(head) && key_open.get(head.len()) == Some(&b' ')
    }

    /// Where only blanks are expected (`tag` empty), a blank written double-escaped
    /// (`\n` as a backslash and `n`: the model escaped its output once more) is one,
    /// and dropped (`stray_text`): never the start of a key. True when `b` was used;
    /// a held backslash not followed by `n`, `r` or `t` is read again, then `b`.
    pub(super) fn escaped_blank(&mut self, b: u8, sink: &mut Sink<'_>) -> bool {
        if self.esc {
            self.esc = false;
            if matches!(b, b'n' | b'r' | b't') {
                sink.repair(Repair::StrayText);
                return true;
            }
            self.requeue(&[b'\\', b]);
            self.esc_replayed = true;
            return true;
        }
        if self.tag.is_empty() && b == b'\\' && !self.esc_replayed {
            self.esc = true;
            return true;
        }
        self.esc_replayed = false;
        false
    }

    /// Drop a stray closing tag up to its `>` (bounded).
    pub(super) fn skip_tag(&mut self, bytes: Vec<u8>) {
        match bytes.iter().position(|&c| c == b'>') {
            Some(gt) => self.requeue(&bytes[gt + 1..]),
            None => self.phase = Phase::SkipTag(bytes.len()),
        }
    }

    /// In a key: the start of a closing tag other than the key's own that just ended
    /// at `>` (`city</arg_value>`).
    pub(super) fn misclosed_key(&self, b: u8) -> Option<usize> {
        if b != b'>' || !self.spec.key_close.starts_with(b"</") {
            return None;
        }
        self.buf.windows(2).rposition(|w| w == b"</")
    }
}

/// Where what follows `bytes`' blanks begins, blanks written double-escaped (`\\n`)
/// included; `None` while it cannot be told yet.
pub(super) fn past_blanks(bytes: &[u8]) -> Option<usize> {
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            c if is_blank(c) => i += 1,
            b'\\' => match bytes.get(i + 1) {
                Some(b'n' | b'r' | b't') => i += 2,
                Some(_) => return Some(i),
                None => return None,
            },
            _ => return Some(i),
        }
    }
    None
}
