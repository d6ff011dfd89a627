//! The error type: small, boxed, with a category (serde_json's shape).

use std::fmt;

/// What kind of failure an [`Error`] is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Category {
    /// The input cannot be read as what it should be (no JSON value in it, bad tool list).
    Syntax,
    /// The input ended inside a value.
    Truncated,
    /// A configured limit was exceeded.
    Limit,
    /// The input does not fit a schema.
    Schema,
    /// Reading or writing failed.
    Io,
}

/// An error from the library's fallible entry points ([`repair`](crate::repair()),
/// [`Tools`](crate::Tools) parsing, the codec).
///
/// Malformed model output given to a [`Parser`](crate::Parser) is never an `Err`: it
/// becomes events.
pub struct Error(Box<ErrorImpl>);

struct ErrorImpl {
    category: Category,
    message: String,
}

impl Error {
    /// An error of `category` with `message` (lower-case, without trailing period), for
    /// code built on the library (a transport around the codec, a proxy) that reports its
    /// failures in the same type.
    pub fn new(category: Category, message: impl Into<String>) -> Error {
        Error(Box::new(ErrorImpl {
            category,
            message: message.into(),
        }))
    }

    /// The category of failure.
    pub fn category(&self) -> Category {
        self.0.category
    }

    /// Whether the input ended too early.
    pub fn is_truncation(&self) -> bool {
        self.0.category == Category::Truncated
    }

    /// The message, lower-case, without trailing period.
    pub fn message(&self) -> &str {
        &self.0.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.message)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("category", &self.0.category)
            .field("message", &self.0.message)
            .finish()
    }
}

impl std::error::Error for Error {}

impl From<std::io::Error> for Error {
    fn from(err: std::io::Error) -> Error {
        Error::new(Category::Io, err.to_string())
    }
}

impl From<serde_json::Error> for Error {
    fn from(err: serde_json::Error) -> Error {
        let category = if err.is_eof() {
            Category::Truncated
        } else {
            Category::Syntax
        };
        Error::new(category, err.to_string())
    }
}
