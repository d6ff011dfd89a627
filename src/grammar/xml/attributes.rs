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

/// An attribute value with every XML entity undone in one pass: the five named ones
/// (`&amp;` `&quot;` `&lt;` `&gt;` `&apos;`) and numeric ones (`&#39;`, `&#x27;`). What
/// is not an entity (`&`, `&nbsp;`, `&#xD800;`) stays as written: the value is read
/// as given rather than guessed at.
pub(super) fn unescape_entities(value: &str) -> String {
    if !value.contains('&') {
        return value.to_owned();
    }
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        match entity(rest) {
            Some((c, len)) => {
                out.push(c);
                rest = &rest[len..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The character an entity at the start of `s` stands for, and the entity's length.
fn entity(s: &str) -> Option<(char, usize)> {
    // The longest entity read: `&#x10FFFF;` or `&#1114111;`.
    let end = s.as_bytes()[..s.len().min(11)]
        .iter()
        .position(|&b| b == b';')?;
    let body = &s[1..end];
    let c = match body {
        "amp" => '&',
        "quot" => '"',
        "lt" => '<',
        "gt" => '>',
        "apos" => '\'',
        _ => {
            let digits = body.strip_prefix('#')?;
            let code = match digits.strip_prefix(['x', 'X']) {
                Some(hex) if !hex.is_empty() && hex.bytes().all(|b| b.is_ascii_hexdigit()) => {
                    u32::from_str_radix(hex, 16).ok()?
                }
                None if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
                    digits.parse().ok()?
                }
                _ => return None,
            };
            // NUL is no character of a name or key.
            char::from_u32(code).filter(|&c| c != '\0')?
        }
    };
    Some((c, end + 1))
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
    use super::{attribute, split_attributes, unescape_attribute, unescape_entities};

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

    #[test]
    fn entities_are_undone_once_and_only_when_whole() {
        let cases: &[(&str, &str)] = &[
            ("plain", "plain"),
            ("a&lt;b&gt;c", "a<b>c"),
            ("say &quot;hi&quot;", "say \"hi\""),
            (
                "it&apos;s it&#39;s it&#x27;s it&#X27;s",
                "it's it's it's it's",
            ),
            ("q&amp;a", "q&a"),
            ("&amp;lt;", "&lt;"),
            ("&amp;#39;", "&#39;"),
            ("&#233;t&#xe9;", "été"),
            ("&#128512;", "😀"),
            // Not entities: kept as written.
            ("a & b", "a & b"),
            ("&", "&"),
            ("&;", "&;"),
            ("&lt", "&lt"),
            ("&nbsp;", "&nbsp;"),
            ("&#;", "&#;"),
            ("&#x;", "&#x;"),
            ("&#xD800;", "&#xD800;"),
            ("&#0;", "&#0;"),
            ("&#99999999;", "&#99999999;"),
            ("&#12a;", "&#12a;"),
            ("x&#", "x&#"),
            ("&é;", "&é;"),
            ("&&lt;", "&<"),
            ("&lt;éééééé", "<éééééé"),
        ];
        for (raw, want) in cases {
            assert_eq!(unescape_entities(raw), *want, "{raw}");
        }
    }
}
