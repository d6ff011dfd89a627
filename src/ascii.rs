//! ASCII bytes as `str` without `str::from_utf8`.
//!
//! The one place the crate uses `unsafe`: on token-sized chunks, `str::from_utf8` cost
//! more than the rest of the push (`docs/performance.md` has the counts); an ASCII check
//! (`<[u8]>::is_ascii`, a word at a time) costs a tenth of it. Both functions check
//! their input themselves, so no caller can break an invariant.
#![allow(unsafe_code)]

/// Append `bytes`, which must all be ASCII, to `s`.
///
/// # Panics
/// If a byte is not ASCII (checked here, so no caller can break `s`).
#[inline]
pub(crate) fn push_ascii(s: &mut String, bytes: &[u8]) {
    assert!(bytes.is_ascii(), "push_ascii takes ASCII bytes only");
    // SAFETY: every byte is ASCII (checked above), and ASCII bytes are whole UTF-8
    // characters, so `s` stays valid UTF-8.
    unsafe { s.as_mut_vec() }.extend_from_slice(bytes);
}

/// `bytes` as `str`: ASCII without a UTF-8 pass, anything else through `from_utf8`.
#[inline]
pub(crate) fn as_str(bytes: &[u8]) -> Result<&str, std::str::Utf8Error> {
    if bytes.is_ascii() {
        // SAFETY: every byte is ASCII (checked above): valid UTF-8.
        Ok(unsafe { std::str::from_utf8_unchecked(bytes) })
    } else {
        std::str::from_utf8(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_str_agrees_with_from_utf8() {
        for bytes in [&b""[..], b"abc", b"caf\xc3\xa9", b"\xff", b"a\xe2\x82"] {
            assert_eq!(as_str(bytes), std::str::from_utf8(bytes));
        }
        let mut s = String::new();
        push_ascii(&mut s, b"plain");
        assert_eq!(s, "plain");
    }

    #[test]
    #[should_panic(expected = "ASCII bytes only")]
    fn push_ascii_refuses_other_bytes() {
        push_ascii(&mut String::new(), "é".as_bytes());
    }
}
