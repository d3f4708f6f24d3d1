//! capout for Node.js: a thin face over the engine (`capout-core`) and
//! the MCP server's tools. The Rust types own the state; the JavaScript
//! classes of the `capout` package wrap them.
//!
//! - `Capper`: `push` chunks, `finish` for the rest, the notice and the
//!   summary (the facts of `capout --json`).
//! - `cap`: a whole text at once.
//! - `Tools`: `read`, `grep` and `bash`, bounded as `capout --mcp`
//!   bounds them, for the AI SDK tools of `capout/ai-sdk`.
//!
//! The options are the camelCase of the CLI's, parsed by the CLI's own
//! parser (the module `options`).

mod options;
mod tools;

use capout_core::{CapSpec, Limit, Options, Summary};
use napi::bindgen_prelude::{Buffer, BufferSlice, Either};
use napi::{Env, Error, Result};
use napi_derive::napi;
use serde_json::{Value, json};

pub use tools::{JsTools, tool_descriptions};

/// A stream being capped: the engine that writes the output, and, when
/// its notice does not need every total, a second one that counts them
/// for the summary.
struct Engines {
    capper: capout_core::Capper,
    counter: Option<capout_core::Capper>,
    options: Options,
}

impl Engines {
    fn new(options: Option<&Value>, summary: bool) -> Result<Engines> {
        let options = options::parse(options).map_err(Error::from_reason)?;
        let start =
            |o: Options| capout_core::Capper::new(o).map_err(|e| Error::from_reason(format!("capout: {e}")));
        let counter = if summary { options::counting(&options).map(start).transpose()? } else { None };
        Ok(Engines { capper: start(options.clone())?, counter, options })
    }

    fn push(&mut self, chunk: &[u8], out: &mut Vec<u8>) -> Result<()> {
        self.capper.push(chunk, out).map_err(failed)?;
        if let Some(counter) = &mut self.counter {
            counter.push(chunk, &mut std::io::sink()).map_err(failed)?;
        }
        Ok(())
    }

    fn finish(self, out: &mut Vec<u8>) -> Result<Value> {
        let shown = self.capper.finish(out).map_err(failed)?;
        let counted = match self.counter {
            Some(counter) => Some(counter.finish(&mut std::io::sink()).map_err(failed)?),
            None => None,
        };
        Ok(summary(&self.options, &shown, counted.as_ref().unwrap_or(&shown)))
    }
}

fn failed(e: capout_core::Error) -> Error {
    Error::from_reason(format!("capout: {e}"))
}

/// The unit the cap counts in, as `--json` names it.
fn unit(options: &Options) -> &'static str {
    match options.cap {
        CapSpec::TailChars(_) | CapSpec::HeadChars(_) | CapSpec::HeadTailChars(..) => options.unit.name(),
        CapSpec::HeadLines { .. } | CapSpec::TailLines(_) | CapSpec::HeadTailLines(..) => "lines",
        CapSpec::MaxMatches(_) => "matches",
        CapSpec::TailTokens(_) | CapSpec::HeadTokens(_) | CapSpec::HeadTailTokens(..) => "tokens",
    }
}

/// The facts of `capout --json`, in its order, with camelCase keys: the
/// notice and whether something was cut from the engine that wrote the
/// output, the numbers from the one that counted everything.
fn summary(options: &Options, shown: &Summary, counted: &Summary) -> Value {
    let notice = shown.notice.as_ref().map(|n| {
        let lines: Vec<&[u8]> = n.lines().collect();
        String::from_utf8_lossy(&lines.join(&b'\n')).into_owned()
    });
    let limit = match options.cap.limit() {
        Limit::One(n) => json!(n),
        Limit::Pair(h, t) => json!([h, t]),
    };
    // The page of a paging cap, as `--json` gives it: the first and last
    // shown, and the next offset while more follows.
    let page = match (counted.first, counted.last) {
        (Some(first), Some(last)) if counted.paged => Some((first, last, counted.next_offset)),
        _ => None,
    };
    json!({
        "notice": notice,
        "truncated": shown.truncated,
        "cap": options.cap.name(),
        "limit": limit,
        "budget": options.budget,
        "totalBytes": counted.totals.bytes(),
        "totalChars": counted.totals.chars(),
        "totalLines": counted.totals.lines(),
        "matches": counted.matches,
        "unit": unit(options),
        "omitted": if shown.truncated { counted.omitted } else { Some(0) },
        "first": page.map(|p| p.0),
        "last": page.map(|p| p.1),
        "nextOffset": page.and_then(|p| p.2),
        "totalTokens": counted.total_tokens,
        "tokenizer": options.cap.is_token_cap().then(|| options.tokenizer.name()),
        "savedTo": shown.saved_to.as_ref().map(|p| p.display().to_string()),
        "saveError": shown.save_error.as_ref().map(ToString::to_string),
    })
}

/// What `finish` returns: the rest of the output and the summary.
#[napi(object)]
pub struct Finished {
    /// What the cap held back, then the notice.
    pub output: Buffer,
    /// The facts of `capout --json`.
    pub summary: Value,
}

/// Caps a stream pushed in chunks of any size, split anywhere.
#[napi(js_name = "Capper")]
pub struct JsCapper {
    /// `None` once finished.
    engines: Option<Engines>,
    /// What a push writes, kept for the next.
    out: Vec<u8>,
}

#[napi]
impl JsCapper {
    /// A capper as `options` say (the CLI's options in camelCase); a bad
    /// option throws the CLI's message.
    #[napi(constructor)]
    pub fn new(options: Option<Value>) -> Result<Self> {
        Ok(JsCapper { engines: Some(Engines::new(options.as_ref(), true)?), out: Vec::new() })
    }

    /// Takes the next chunk and returns what may be written now.
    // Borrowed in and copied out: a reference to the chunk and a buffer
    // with a finalizer for the output cost more than a copy of what a
    // push writes (nothing, for a tail cap).
    #[napi(ts_return_type = "Buffer")]
    pub fn push<'env>(
        &mut self,
        env: &'env Env,
        chunk: Either<BufferSlice<'env>, String>,
    ) -> Result<BufferSlice<'env>> {
        let engines = self.engines.as_mut().ok_or_else(finished)?;
        self.out.clear();
        match &chunk {
            Either::A(buffer) => engines.push(buffer, &mut self.out)?,
            Either::B(text) => engines.push(text.as_bytes(), &mut self.out)?,
        }
        BufferSlice::copy_from(env, &self.out)
    }

    /// Ends the stream: what the cap held back, the notice, the summary.
    #[napi]
    pub fn finish(&mut self) -> Result<Finished> {
        let engines = self.engines.take().ok_or_else(finished)?;
        let mut out = Vec::new();
        let summary = engines.finish(&mut out)?;
        Ok(Finished { output: out.into(), summary })
    }
}

fn finished() -> Error {
    Error::from_reason("capout: the Capper has finished: make a new one")
}

/// Caps a whole text at once: what `capout` with these options prints for
/// it (notices on stdout included).
#[napi]
pub fn cap(text: Either<Buffer, String>, options: Option<Value>) -> Result<String> {
    let mut engines = Engines::new(options.as_ref(), false)?;
    let mut out = Vec::new();
    match &text {
        Either::A(buffer) => engines.push(buffer, &mut out)?,
        Either::B(text) => engines.push(text.as_bytes(), &mut out)?,
    }
    engines.capper.finish(&mut out).map_err(failed)?;
    Ok(match String::from_utf8(out) {
        Ok(text) => text,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    })
}
