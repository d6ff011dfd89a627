//! Streaming JSON repair: the transducer, its look-ahead, and the standalone API.

pub(crate) mod api;
pub(crate) mod lookahead;
pub(crate) mod repairer;
pub(crate) mod strict;
