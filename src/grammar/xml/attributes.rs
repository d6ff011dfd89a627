//! Tag attributes: `"city" type="string"` after a key or a name.

/// The value of attribute `name` in a tag's attributes (` type="number"`).
pub(super) fn attribute<'a>(attrs: &'a str, name: &str) -> Option<&'a str> {
    if name.is_empty() {
        return None;
    }
    let mut rest = attrs;
    while let Some(at) = rest.find(name) {
        let before_ok = at == 0 || rest.as_bytes()[at - 1].is_ascii_whitespace();
        let after = rest[at + name.len()..].trim_start();
        if before_ok {
            if let Some(v) = after.strip_prefix('=') {
                let v = v.trim_start().strip_prefix('"')?;
                return v.find('"').map(|q| &v[..q]);
            }
        }
        rest = &rest[at + name.len()..];
    }
    None
}

/// An attribute value as written by a template that escapes `&` and `"` only.
pub(super) fn unescape_attribute(value: &str) -> String {
    if !value.contains('&') {
        return value.to_owned();
    }
    value.replace("&quot;", "\"").replace("&amp;", "&")
}

/// Split a tag's key from its attributes: `"city" string="true"` -> (`city`,
/// ` string="true"`); a bare key has none.
pub(super) fn split_attributes(raw: &str) -> (&str, &str) {
    if let Some(rest) = raw.strip_prefix('"') {
        if let Some(q) = rest.find('"') {
            return (&rest[..q], &rest[q + 1..]);
        }
    }
    (raw.trim_matches('"'), "")
}

#[cfg(test)]
mod tests {
    use super::{attribute, split_attributes, unescape_attribute};

    #[test]
    fn attributes_are_read_by_name() {
        let (key, attrs) = split_attributes(r#""city" type="string" index="2""#);
        assert_eq!(key, "city");
        assert_eq!(attribute(attrs, "type"), Some("string"));
        assert_eq!(attribute(attrs, "index"), Some("2"));
        assert_eq!(attribute(attrs, "dex"), None);
        assert_eq!(attribute(attrs, ""), None);
        assert_eq!(
            attribute(r#" subtype="x" type = "number""#, "type"),
            Some("number")
        );
    }

    #[test]
    fn attribute_escapes_are_undone_once() {
        assert_eq!(unescape_attribute("q&amp;a"), "q&a");
        assert_eq!(unescape_attribute("say &quot;hi&quot;"), "say \"hi\"");
        assert_eq!(unescape_attribute("&amp;quot;"), "&quot;");
        assert_eq!(unescape_attribute("plain"), "plain");
    }
}
