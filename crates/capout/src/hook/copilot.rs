//! GitHub Copilot CLI. capout does not rewrite its shell calls yet (see
//! [`crate::init::copilot`]): `capout hook copilot` leaves every call alone.

use std::ffi::OsString;

use super::{Dispatch, pass};

/// `capout hook copilot`: leaves the call alone, and says why.
pub fn main(_args: &[OsString]) -> Dispatch {
    Dispatch::Done(pass(&format_args!("copilot: left alone: {}", crate::init::copilot::WHY)))
}
