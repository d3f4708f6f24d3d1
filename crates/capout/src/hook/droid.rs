//! Factory Droid. capout does not rewrite its shell calls yet (see
//! [`crate::init::droid`]): `capout hook droid` leaves every call alone.

use std::ffi::OsString;

use super::{Dispatch, pass};

/// `capout hook droid`: leaves the call alone, and says why.
pub fn main(_args: &[OsString]) -> Dispatch {
    Dispatch::Done(pass(&format_args!("droid: left alone: {}", crate::init::droid::WHY)))
}
