//! A bare JSON object as the whole body (DeepSeek DSML invokes), and closing the
//! arguments object.

use super::{Phase, Xml};
use crate::calls::{Abort, Sink};
use crate::repairs::Repair;

impl Xml {
    /// One byte of a bare JSON body; at the closer, the repaired object continues the
    /// `{` already written.
    pub(super) fn json_body(&mut self, b: u8, sink: &mut Sink<'_>) -> Result<(), Abort> {
        self.raw.push(b);
        let inner = self.spec.json_close;
        if !inner.is_empty() && self.raw.ends_with(inner) {
            // The JSON element closed: its object is the arguments; the function's
            // closer follows.
            let body = self.raw[..self.raw.len() - inner.len()]
                .trim_ascii()
                .to_vec();
            self.json_arguments(&body, sink);
            self.raw.clear();
            self.json_done = true;
            self.keys.push(String::new());
            self.phase = Phase::Between;
            return Ok(());
        }
        let closers =
            std::iter::once(self.form.closer).chain(self.spec.closer_alts.iter().copied());
        let ends = std::iter::once((self.spec.func_close, false))
            .chain(closers.map(|m| (m, true)))
            .find(|(m, _)| !m.is_empty() && self.raw.ends_with(m));
        let Some((m, closer_seen)) = ends else {
            return Ok(());
        };
        let body = self.raw[..self.raw.len() - m.len()].trim_ascii().to_vec();
        self.json_arguments(&body, sink);
        self.raw.clear();
        self.phase = Phase::Done;
        self.ended = Some(closer_seen);
        Ok(())
    }

    /// Close the arguments object, unless a JSON element closed it already.
    pub(super) fn close_object(&mut self) {
        if !self.json_done {
            self.out.push(b'}');
        }
    }

    /// A JSON object as the arguments of a body of tags (DSML's bare body, Kimi K3's
    /// JSON element, an element named for the tool): the repaired object continues the
    /// `{` already written. The tag that ended it is its only bound. An object whose
    /// repair only closed containers left open there is closed (`missing_closers`): its
    /// strings closed, the tag is the model's. Any other object cut there is not
    /// released (a string left open may have held the tag and gone on past it, as a JSON
    /// envelope whose closer went into an open string), nor a body that is no object.
    pub(super) fn json_arguments(&mut self, body: &[u8], sink: &mut Sink<'_>) {
        match crate::repair(body) {
            Ok(fixed) if fixed.json.starts_with('{') => {
                let cut = fixed.repairs.contains(Repair::MissingClosers);
                let only_closed = fixed.repairs.iter().all(|r| r == Repair::MissingClosers)
                    && only_closers_added(body, fixed.json.as_bytes());
                if cut && !only_closed {
                    sink.invalid(
                        "the arguments object is cut by the call's closing tag, so where it \
                         ends cannot be told; close every string and the object before the tag",
                    );
                }
                sink.repairs(fixed.repairs);
                self.out.extend_from_slice(&fixed.json.as_bytes()[1..]);
            }
            _ => {
                sink.invalid(
                    "the arguments are neither elements nor a JSON object; write them as one \
                     JSON object",
                );
                self.out.push(b'}');
            }
        }
    }
}

/// Whether `repaired` is `body` with only closers (and blanks) after it: the repair
/// closed containers left open and changed nothing the model wrote.
fn only_closers_added(body: &[u8], repaired: &[u8]) -> bool {
    repaired.strip_prefix(body).is_some_and(|added| {
        added
            .iter()
            .all(|&b| matches!(b, b'}' | b']') || b.is_ascii_whitespace())
    })
}
