//! toolsift
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod calls;
mod config;
mod grammar;
mod json;
mod parser;
mod queue;
mod scan;
mod stats;
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;
pub mod dialect;
mod error;
mod event;
#[cfg(feature = "cli")]
pub mod proxy;
mod repairs;
pub mod schema;
#[cfg(feature = "codec")]
pub mod sse;

pub use config::{Config, InReasoning, Invalid, Limits, UnknownTool};
pub use dialect::Dialect;
pub use error::{Category, Error};
pub use event::{CallIndex, Event, NotReleasedReason, OwnedEvent, StopReason};
pub use repairs::{Repair, Repairs};
pub use json::api::{repair, Repaired};
pub use parser::Parser;
pub use stats::Stats;
pub use schema::Tools;
