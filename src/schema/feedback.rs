//! Short, model-readable feedback for a failed call.

use super::validate::ValidationError;

/// At most this many errors are spelled out; the rest are counted.
const MAX_LISTED: usize = 8;

/// Feedback for a call to `tool` whose arguments failed validation, e.g.
/// `write_file: missing required parameter "path"; /mode: expected one of "a", "w"`.
pub fn feedback_for_errors(tool: &str, errors: &[ValidationError]) -> String {
    let mut out = format!("{tool}: ");
    if errors.is_empty() {
        out.push_str("arguments are valid");
        return out;
    }
    let listed: Vec<String> = errors
        .iter()
        .take(MAX_LISTED)
        .map(ToString::to_string)
        .collect();
    out.push_str(&listed.join("; "));
    if errors.len() > MAX_LISTED {
        out.push_str(&format!("; and {} more", errors.len() - MAX_LISTED));
    }
    out
}

/// Feedback for a call naming no declared tool.
pub(crate) fn unknown_tool(name: &str, declared: &[&str]) -> String {
    if declared.is_empty() {
        format!("unknown tool \"{name}\"; no tools are declared")
    } else {
        format!(
            "unknown tool \"{name}\"; declared tools: {}",
            declared.join(", ")
        )
    }
}
