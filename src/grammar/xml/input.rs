//! The body's bytes on their way to the grammar: a tokenizer artifact dropped
//! wherever it appears, a tag prefix dropped after `<` or `</`, and the replay queue
//! of bytes read again.

use super::Xml;

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
        if self.spec.tag_prefix.is_empty() {
            self.replay.push(b);
        } else {
            self.filter(b);
        }
    }

    /// Pass one input byte on (to the replay queue), dropping the spec's tag prefix
    /// right after `<` or `</`: `<｜DSML｜invoke` reads as `<invoke`.
    pub(super) fn filter(&mut self, b: u8) {
        let prefix = self.spec.tag_prefix;
        if self.pf.is_empty() {
            if b == b'<' {
                self.pf.push(b);
            } else {
                self.replay.push(b);
            }
            return;
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
                self.replay.extend_from_slice(&self.pf[..keep]);
                self.pf.clear();
            }
            return;
        }
        let last = self.pf.pop().unwrap_or(b);
        self.replay.append(&mut self.pf);
        self.filter(last);
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
