//! The markup a body closes with, as the model writes it: what text after a body that
//! seemed to end is searched for, to tell whether the body went on into it.

use smallvec::SmallVec;

/// The markup a body is closed with. For a body of tags: a value's closer, the
/// function's and the next key's opener, each read with or without the dialect's tag
/// prefix (`</｜GCML｜parameter` as well as `</parameter`), as the grammar reads them.
/// For other bodies: a string delimiter (Gemma's `<|"|>`) or a Python list's `)]`.
/// None for a JSON body, which closes with `}`.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct BodyMarkup {
    tags: [&'static [u8]; 3],
    /// What may follow a tag's `<` or `</` (`｜GCML｜`); empty for none.
    prefix: &'static [u8],
    /// A body of elements: a body of tags whose keys are any element's name.
    elements: bool,
}

impl BodyMarkup {
    /// A JSON body's: none.
    pub(crate) const NONE: BodyMarkup = BodyMarkup::of([b""; 3]);

    /// Markup written as it is.
    pub(crate) const fn of(tags: [&'static [u8]; 3]) -> BodyMarkup {
        BodyMarkup {
            tags,
            prefix: b"",
            elements: false,
        }
    }

    /// A body of elements' markup (MiniMax M3's, the elements small models write in a
    /// `<tool_calls>` section): its values are raw text as a body of tags' are, closed
    /// by tags named for their keys; `func_close` is its function's closer, if fixed.
    pub(crate) const fn elements(func_close: &'static [u8]) -> BodyMarkup {
        BodyMarkup {
            tags: [b"", func_close, b""],
            prefix: b"",
            elements: true,
        }
    }

    /// A body of tags' markup (value closer, function closer, key opener), whose tags
    /// may carry `prefix` after their `<` or `</`.
    pub(crate) const fn tags(
        value_close: &'static [u8],
        func_close: &'static [u8],
        key_open: &'static [u8],
        prefix: &'static [u8],
    ) -> BodyMarkup {
        BodyMarkup {
            tags: [value_close, func_close, key_open],
            prefix,
            elements: false,
        }
    }

    /// Whether the body closes with markup of its own (not a JSON body's `}`).
    pub(crate) fn is_some(&self) -> bool {
        self.tags.iter().any(|m| !m.is_empty())
    }

    /// Whether it is a body of tags' (it has a key opener, or is of elements): a
    /// redundant `}` or `]` after it is no JSON body's.
    pub(crate) fn of_tags(&self) -> bool {
        !self.tags[2].is_empty() || self.elements
    }

    /// Whether it is a body of elements' (MiniMax M3's, the drift elements').
    pub(crate) fn of_elements(&self) -> bool {
        self.elements
    }

    /// Each piece of markup as the model may write it: as it is, and with the tag
    /// prefix after its `<` or `</`.
    fn written(&self) -> impl Iterator<Item = SmallVec<[u8; 64]>> + '_ {
        let prefix = self.prefix;
        self.tags
            .iter()
            .filter(|m| !m.is_empty())
            .flat_map(move |&m| {
                let prefixed = (!prefix.is_empty())
                    .then(|| {
                        let at = match m {
                            [b'<', b'/', ..] => 2,
                            [b'<', ..] => 1,
                            _ => return None,
                        };
                        let mut out = SmallVec::from_slice(&m[..at]);
                        out.extend_from_slice(prefix);
                        out.extend_from_slice(&m[at..]);
                        Some(out)
                    })
                    .flatten();
                std::iter::once(SmallVec::from_slice(m)).chain(prefixed)
            })
    }

    /// Whether `marker` (a marker that bounds a call) begins with this markup: the
    /// body's own, which tells that it went on rather than bounding it.
    pub(crate) fn begins(&self, marker: &[u8]) -> bool {
        self.written().any(|m| marker.starts_with(&m))
    }

    /// Whether `text` holds this markup anywhere.
    pub(crate) fn found_in(&self, text: &[u8]) -> bool {
        self.written()
            .any(|m| memchr::memmem::find(text, &m).is_some())
    }

    /// Where the last of this markup in `text` ends (past the `>` right after a value's
    /// closer, written without it: `</parameter`).
    pub(crate) fn last_end(&self, text: &[u8]) -> Option<usize> {
        self.written()
            .filter_map(|m| {
                let end = memchr::memmem::rfind(text, &m)? + m.len();
                let gt = !m.ends_with(b">") && text.get(end) == Some(&b'>');
                Some(end + usize::from(gt))
            })
            .max()
    }
}

#[cfg(test)]
mod tests {
    use super::BodyMarkup;

    #[test]
    fn a_prefixed_body_s_markup_is_found_with_and_without_its_prefix() {
        let m = BodyMarkup::tags(
            b"</parameter",
            b"</invoke>",
            b"<parameter name=",
            "｜G｜".as_bytes(),
        );
        assert!(m.found_in("x</｜G｜parameter>y".as_bytes()));
        assert!(m.found_in(b"x</parameter>y"));
        assert!(m.found_in("</｜G｜invoke>".as_bytes()));
        assert!(!m.found_in("</｜G｜param".as_bytes()));
        assert_eq!(
            m.last_end("a</｜G｜invoke>b</parameter>c".as_bytes()),
            Some(30)
        );
        assert_eq!(
            m.last_end("a</｜G｜invoke>b</parameter".as_bytes()),
            Some(29)
        );
        assert!(m.begins("<｜G｜parameter name=\"k\">".as_bytes()));
        assert!(!m.begins("<｜G｜invoke name=".as_bytes()));
        assert!(m.of_tags() && m.is_some());
        assert!(!BodyMarkup::NONE.is_some() && !BodyMarkup::of([b")]", b"", b""]).of_tags());
        // A body of elements is one of tags, with or without a fixed function closer.
        assert!(BodyMarkup::elements(b"").of_tags() && !BodyMarkup::elements(b"").is_some());
        assert!(BodyMarkup::elements(b"</invoke>").found_in(b"a</invoke>"));
    }
}
