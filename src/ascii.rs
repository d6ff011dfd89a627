//! Appending ASCII bytes to a `String` without a second UTF-8 pass.
//!
//! The one place the crate uses `unsafe`: on the text path of a small chunk,
//! `str::from_utf8` cost more than the rest of the push (`docs/performance.md` has the
//! counts), while the scan that found the run's end already looked at every byte.
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
