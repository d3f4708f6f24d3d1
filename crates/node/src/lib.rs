//! capout for Node.js: a thin face over the engine (`capout-core`) and
//! the MCP server's tools. The Rust types own the state; the JavaScript
//! classes of the `capout` package wrap them.
//!
//! - `capper_new`, `capper_push`, `capper_finish`: the stream behind the
//!   package's `Capper` (`push` chunks, `finish` for the rest, the notice
//!   and the summary: the facts of `capout --json`).
//! - `cap`: a whole text at once.
//! - `Tools`: `read`, `grep` and `bash`, bounded as `capout --mcp`
//!   bounds them, for the AI SDK tools of `capout/ai-sdk`.
//!
//! The options are the camelCase of the CLI's, parsed by the CLI's own
//! parser (the module `options`).

mod options;
mod tools;

use capout::facts::Facts;
use capout_core::{Options, Summary};
use napi::bindgen_prelude::{Buffer, BufferSlice, Either, External};
use napi::{Env, Error, Result};
use napi_derive::napi;
use serde_json::Value;

pub use tools::{JsTools, at_exit, bash_stop, bash_stopper, tool_descriptions};

/// A capper for `options` (the CLI's options in camelCase). One that
/// gives a summary counts every total, as `--json` does, whatever its
/// notice needs; its notice and output are those of a plain run.
fn engine(options: Option<&Value>, summary: bool) -> Result<(capout_core::Capper, Options)> {
    let options = options::parse(options).map_err(Error::from_reason)?;
    let capper = if summary {
        capout_core::Capper::new_counting_all(options.clone())
    } else {
        capout_core::Capper::new(options.clone())
    };
    Ok((capper.map_err(failed)?, options))
}

fn failed(e: capout_core::Error) -> Error {
    Error::from_reason(format!("capout: {e}"))
}

/// The facts of `capout --json` (`capout::facts::Facts`), sorted by name,
/// with camelCase keys, but those of a command's ending; the error of a
/// save is `saveError`.
fn summary(options: &Options, summary: &Summary) -> Value {
    let facts = serde_json::to_value(Facts::of_summary(options, summary)).unwrap_or_default();
    let Value::Object(facts) = facts else { return Value::Null };
    let mut object = serde_json::Map::new();
    for (name, value) in facts {
        match name.as_str() {
            "exit_code" | "signal" | "timed_out" => {}
            "error" => drop(object.insert("saveError".to_owned(), value)),
            _ => drop(object.insert(camel_case(&name), value)),
        }
    }
    Value::Object(object)
}

/// `snake_case` as `camelCase`.
fn camel_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        match c {
            '_' => upper = true,
            c if upper => {
                out.push(c.to_ascii_uppercase());
                upper = false;
            }
            c => out.push(c),
        }
    }
    out
}

/// What `finish` returns: the rest of the output and the summary.
#[napi(object)]
pub struct Finished {
    /// What the cap held back, then the notice.
    pub output: Buffer,
    /// The facts of `capout --json`.
    pub summary: Value,
}

/// A stream being capped, for the package's `Capper`, which holds it as
/// an external value and calls [`capper_push`] and [`capper_finish`].
/// Free functions over an external rather than a class's methods: a
/// method call costs twice as much (napi-rs checks the receiver's class
/// and registers a borrow of it in a global table each time), and `push`
/// is called for every chunk.
pub struct Stream {
    /// The engine and its options; `None` once finished.
    engine: Option<(capout_core::Capper, Options)>,
    /// What a push writes, kept for the next.
    out: Vec<u8>,
}

/// A stream capped as `options` say (the CLI's options in camelCase); a
/// bad option throws the CLI's message.
#[napi(ts_return_type = "ExternalObject<'Stream'>")]
pub fn capper_new(options: Option<Value>) -> Result<External<Stream>> {
    Ok(External::new(Stream { engine: Some(engine(options.as_ref(), true)?), out: Vec::new() }))
}

/// Takes the next chunk and returns what may be written now, or nothing
/// when that is nothing (as a tail cap writes nothing until the end): a
/// Buffer, even an empty one, costs more to make than the push, and the
/// package returns one empty Buffer for all.
// Borrowed in and copied out: a buffer with a finalizer for the output
// costs more than a copy of what a push writes.
#[napi]
pub fn capper_push<'env>(
    env: &'env Env,
    stream: &mut External<Stream>,
    chunk: BufferSlice<'env>,
) -> Result<Option<BufferSlice<'env>>> {
    stream.push(env, &chunk)
}

/// [`capper_push`] for a string: its UTF-8.
#[napi]
pub fn capper_push_text<'env>(
    env: &'env Env,
    stream: &mut External<Stream>,
    chunk: String,
) -> Result<Option<BufferSlice<'env>>> {
    stream.push(env, chunk.as_bytes())
}

impl Stream {
    fn push<'env>(&mut self, env: &'env Env, chunk: &[u8]) -> Result<Option<BufferSlice<'env>>> {
        let (capper, _) = self.engine.as_mut().ok_or_else(finished)?;
        self.out.clear();
        capper.push(chunk, &mut self.out).map_err(failed)?;
        if self.out.is_empty() {
            return Ok(None);
        }
        BufferSlice::copy_from(env, &self.out).map(Some)
    }
}

/// Ends the stream: what the cap held back, the notice, the summary.
#[napi]
pub fn capper_finish(stream: &mut External<Stream>) -> Result<Finished> {
    let (capper, options) = stream.engine.take().ok_or_else(finished)?;
    let mut out = Vec::new();
    let facts = capper.finish(&mut out).map_err(failed)?;
    Ok(Finished { output: out.into(), summary: summary(&options, &facts) })
}

fn finished() -> Error {
    Error::from_reason("capout: the Capper has finished: make a new one")
}

/// Caps a whole text at once: what `capout` with these options prints for
/// it (notices on stdout included).
#[napi]
pub fn cap(text: Either<Buffer, String>, options: Option<Value>) -> Result<String> {
    let (mut capper, _) = engine(options.as_ref(), false)?;
    let mut out = Vec::new();
    let bytes = match &text {
        Either::A(buffer) => &buffer[..],
        Either::B(text) => text.as_bytes(),
    };
    capper.push(bytes, &mut out).map_err(failed)?;
    capper.finish(&mut out).map_err(failed)?;
    Ok(match String::from_utf8(out) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}
