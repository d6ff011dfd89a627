//! The body's bytes on their way to the grammar: a tokenizer artifact dropped
//! wherever it appears, the replay queue of bytes read again, and a tag prefix dropped
//! after `<` or `</` where the grammar reads structure (kept in values, whose tags read
//! with or without it: [`unprefix`]).

use super::{Phase, Xml};
use crate::calls::{Abort, Sink};
use smallvec::SmallVec;

impl Xml {
    /// Pass one input byte on, dropping the spec's artifact wherever it appears; what
    /// is left goes to the tag prefix filter (`filter`), or to the replay queue.
    pub(super) fn pass(&mut self, b: u8) {
        let artifact = self.spec.artifact;
        if artifact.is_empty() {
            return self.unprefixed(b);
        }
        self.af.push(b);
        if artifact.starts_with(&self.af) {
            if self.af.len() == artifact.len() {
                self.af.clear();
                self.af_dropped = true;
            }
            return;
        }
        // Not the artifact: its first byte passes on, the rest is read again.
        let held = std::mem::take(&mut self.af);
        self.unprefixed(held[0]);
        for &c in &held[1..] {
            self.pass(c);
        }
    }

    pub(super) fn unprefixed(&mut self, b: u8) {
        self.replay.push(b);
    }

    /// Whether the grammar reads bytes as they were written: in a value (and at its
    /// first byte, in its CDATA, in a closing tag it holds), a tag may turn out to be
    /// content, which keeps its tag prefix; the value's tags are read with or without
    /// it ([`unprefix`]).
    fn reads_raw(&self) -> bool {
        matches!(
            self.phase,
            Phase::ValueStart | Phase::Value | Phase::Confirm(_) | Phase::CData(_)
        )
    }

    /// Step one byte, dropping the spec's tag prefix right after `<` or `</` where the
    /// grammar reads structure (`<｜DSML｜invoke` reads as `<invoke`); in a value the
    /// bytes are stepped as written ([`reads_raw`](Self::reads_raw)).
    pub(super) fn step_unprefixed(&mut self, b: u8, sink: &mut Sink<'_>) -> Result<(), Abort> {
        let prefix = self.spec.tag_prefix;
        if prefix.is_empty() || (self.pf.is_empty() && (b != b'<' || self.reads_raw())) {
            return self.step(b, sink);
        }
        self.pf.push(b);
        let body = if self.pf.starts_with(b"</") {
            &self.pf[2..]
        } else {
            &self.pf[1..]
        };
        if prefix.starts_with(body) {
            if body.len() == prefix.len() {
                let keep = self.pf.len() - prefix.len();
                let held: SmallVec<[u8; 2]> = SmallVec::from_slice(&self.pf[..keep]);
                self.pf.clear();
                for c in held {
                    self.step(c, sink)?;
                }
            }
            return Ok(());
        }
        // No prefix: the bytes held are stepped as they are, the last read again (it
        // may begin the next tag).
        let held = std::mem::take(&mut self.pf);
        let (&last, rest) = held.split_last().expect("a byte was pushed");
        for &c in rest {
            self.step(c, sink)?;
        }
        self.step_unprefixed(last, sink)
    }

    pub(super) fn requeue(&mut self, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        let mut next = Vec::with_capacity(bytes.len() + self.replay.len() - self.rpos);
        next.extend_from_slice(bytes);
        next.extend_from_slice(&self.replay[self.rpos..]);
        self.replay = next;
        self.rpos = 0;
    }
}

/// `tag` (`<...` or `</...`, as far as read) without the tag `prefix` right after its
/// `<` or `</`: `None` while the bytes after them are a proper part of the prefix (what
/// the tag is cannot be told yet); the tag as it is when no prefix follows them.
pub(super) fn unprefix(prefix: &[u8], tag: &[u8]) -> Option<SmallVec<[u8; 64]>> {
    let at = match tag {
        [b'<', b'/', ..] => 2,
        [b'<', ..] => 1,
        _ => return Some(SmallVec::from_slice(tag)),
    };
    let body = &tag[at..];
    if prefix.is_empty() {
        return Some(SmallVec::from_slice(tag));
    }
    if body.len() < prefix.len() && !body.is_empty() && prefix.starts_with(body) {
        return None;
    }
    match body.strip_prefix(prefix) {
        Some(rest) => {
            let mut out = SmallVec::from_slice(&tag[..at]);
            out.extend_from_slice(rest);
            Some(out)
        }
        None => Some(SmallVec::from_slice(tag)),
    }
}

#[cfg(test)]
mod tests {
    use super::unprefix;

    #[test]
    fn tags_read_without_their_prefix() {
        let p = "｜DSML｜".as_bytes();
        let un =
            |t: &str| unprefix(p, t.as_bytes()).map(|v| String::from_utf8_lossy(&v).into_owned());
        assert_eq!(un("</｜DSML｜parameter>").as_deref(), Some("</parameter>"));
        assert_eq!(
            un("<｜DSML｜invoke name=").as_deref(),
            Some("<invoke name=")
        );
        assert_eq!(un("</parameter").as_deref(), Some("</parameter"));
        assert_eq!(un("</｜DS"), None);
        assert_eq!(un("<").as_deref(), Some("<"));
        assert_eq!(un("</").as_deref(), Some("</"));
        assert_eq!(un("<｜x").as_deref(), Some("<｜x"));
        assert_eq!(unprefix(b"", b"</a").as_deref(), Some(&b"</a"[..]));
    }
}
