//! The engine against its model, read splits, patterns and properties.

mod examples;
mod json;
mod library;
mod model;
mod notices;
mod props;
mod search;
mod splits;
mod tokens;
