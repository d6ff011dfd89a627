//! One undeclared parameter (`arguments`, `input`, ...) wrapping all of a call's
//! parameters: unwrapped when it holds only declared ones (`wrapped_arguments`).

use super::{json_of_raw, Xml};
use crate::calls::Sink;
use crate::ordered;
use crate::repairs::Repair;

impl Xml {
    /// The wrapper parameter ended: write the parameters it holds when they are an
    /// object of declared keys (`wrapped_arguments`), else the parameter as it is.
    pub(super) fn end_wrapper(&mut self, sink: &mut Sink<'_>) {
        let raw = String::from_utf8_lossy(&self.raw).into_owned();
        let mut value = ordered::Value::parse(raw.trim()).or_else(|| {
            let fixed = crate::repair(raw.trim().as_bytes()).ok()?;
            ordered::Value::parse(&fixed.json)
        });
        if let Some(ordered::Value::String(inner)) = &value {
            value = ordered::Value::parse(inner.trim());
        }
        let declared = sink.key_check(1).keys.unwrap_or_else(|| Vec::new().into());
        let inner = value
            .as_ref()
            .and_then(|v| v.as_object())
            .filter(|o| !o.is_empty() && o.keys().all(|k| declared.contains(k)));
        let key = std::mem::take(&mut self.key);
        if let Some(members) = inner {
            sink.repair(Repair::WrappedArguments);
            for (k, v) in members {
                if !self.first_param {
                    self.out.extend_from_slice(b", ");
                }
                self.first_param = false;
                let quoted = serde_json::Value::String(k.clone()).to_string();
                self.out.extend_from_slice(quoted.as_bytes());
                self.out.extend_from_slice(b": ");
                self.out.extend_from_slice(v.to_string().as_bytes());
                self.keys.push(k.clone());
            }
            self.key = key;
            return;
        }
        self.first_param = false;
        self.out.extend_from_slice(
            serde_json::Value::String(key.clone())
                .to_string()
                .as_bytes(),
        );
        self.out.extend_from_slice(b": ");
        let json = if self.json_value {
            json_of_raw(&raw, sink)
        } else {
            sink.type_value(&key, &raw).0
        };
        self.out.extend_from_slice(json.as_bytes());
        self.key = key;
    }
}

/// Keys a model wraps all of a call's parameters in, as one parameter.
pub(super) const WRAPPER_KEYS: &[&str] =
    &["arguments", "input", "properties", "parameters", "args"];
