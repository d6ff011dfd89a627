//! Tencent Hunyuan-A13B: `<think>...</think>` then `<answer>...</answer>` holding text
//! and `<tool_calls>[...]</tool_calls>`; the answer tags are dropped.

use super::{jamba, Dialect, Spec};

pub(crate) static SPEC: Spec = Spec {
    dialect: Dialect::Hunyuan,
    reasoning: &[(b"<think>", b"</think>")],
    calls: &[jamba::TOOL_CALLS],
    strip: &[b"</tool_calls>", b"<answer>", b"</answer>", b"</think>"],
};
