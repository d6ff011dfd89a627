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
        let ends = [(self.spec.func_close, false), (self.form.closer, true)]
            .into_iter()
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

    /// A JSON arguments body: the repaired object continues the `{` already written.
    pub(super) fn json_arguments(&mut self, body: &[u8], sink: &mut Sink<'_>) {
        match crate::repair(body) {
            Ok(fixed) if fixed.json.starts_with('{') => {
                sink.repairs(fixed.repairs);
                self.out.extend_from_slice(&fixed.json.as_bytes()[1..]);
            }
            _ => {
                sink.repair(Repair::StrayText);
                self.out.push(b'}');
            }
        }
    }
}
