//! Text primitives the rest of the engine is built on: character
//! boundaries, page-aligned buffers, the byte ring, and the totals of a
//! stream.

pub mod buf;
pub mod count;
pub mod fused;
pub mod ring;
pub mod utf8;
