//! `import capout`: the engine behind a Python face.
//!
//! The options are the command line's, in snake case, and are parsed by
//! the programs' own parser ([`capout::cli::try_parse`]): the module has
//! the same defaults, profiles and validation as `capout`, and a bad
//! option raises `ValueError` with the message `capout` prints for it.
//! The Rust types own the state; the interpreter's lock is released
//! around every pass of the engine.

use std::borrow::Cow;
use std::ffi::OsString;
use std::io;
use std::sync::{Mutex, PoisonError};

use capout::cli::Run;
use capout::cli::{self, Action};
use capout::command::{self, Place};
use capout::facts::Facts;
use capout_core::{Capper, Limit, Options};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};

mod tools;

/// The options of a filter run, as keyword arguments: the long options
/// of `capout` in snake case. `input`, `json`, `progress` and the modes
/// (`--mcp`, `--completions`, `--show-config`) have no place in a
/// module: the data is an argument, the summary an object.
const FILTER_OPTIONS: &[&str] = &[
    "tail_chars",
    "head_lines",
    "limit",
    "offset",
    "max_matches",
    "head_chars",
    "tail_lines",
    "tail_tokens",
    "head_tokens",
    "tokenizer",
    "pattern",
    "fixed_strings",
    "ignore_case",
    "max_line_chars",
    "budget_chars",
    "json_items",
    "json_string_chars",
    "bytes",
    "line_numbers",
    "strip_ansi",
    "collapse_cr",
    "render",
    "render_width",
    "render_height",
    "keep",
    "keep_max",
    "notice",
    "notice_format",
    "profile",
    "save",
    "save_dir",
];

/// What `run` takes besides: the options of command mode.
const COMMAND_OPTIONS: &[&str] = &["kill_after", "stdout_only"];

/// The command-line words of the keyword options: `name=True` is
/// `--name`, `name=False` `--no-name`, `name=None` nothing, and any
/// other value `--name=VALUE` (so that a value that starts with `-` is
/// still the option's).
fn words(kwargs: Option<&Bound<'_, PyDict>>, command: bool) -> PyResult<Vec<OsString>> {
    let mut words = Vec::new();
    let Some(kwargs) = kwargs else { return Ok(words) };
    for (key, value) in kwargs.iter() {
        let key: String = key.extract()?;
        if !(FILTER_OPTIONS.contains(&key.as_str()) || command && COMMAND_OPTIONS.contains(&key.as_str())) {
            return Err(PyTypeError::new_err(format!("unexpected keyword argument '{key}'")));
        }
        let option = format!("--{}", key.replace('_', "-"));
        words.extend(option_words(&option, &value)?);
    }
    Ok(words)
}

fn option_words(option: &str, value: &Bound<'_, PyAny>) -> PyResult<Vec<OsString>> {
    if value.is_none() {
        return Ok(Vec::new());
    }
    if let Ok(flag) = value.cast::<pyo3::types::PyBool>() {
        let word = if flag.is_true() { option.to_owned() } else { format!("--no-{}", &option[2..]) };
        return Ok(vec![word.into()]);
    }
    let text: String = if value.is_instance_of::<PyString>() || value.is_instance_of::<pyo3::types::PyInt>() {
        value.str()?.extract()?
    } else if value.is_instance_of::<pyo3::types::PyFloat>() {
        value.repr()?.extract()?
    } else if let Ok(path) = value.extract::<std::path::PathBuf>() {
        let mut word = OsString::from(format!("{option}="));
        word.push(path);
        return Ok(vec![word]);
    } else {
        let kind = value.get_type().name()?;
        return Err(PyTypeError::new_err(format!("{option}: expected str, int or bool, not {kind}")));
    };
    Ok(vec![format!("{option}={text}").into()])
}

/// The configs of the options seen last, by their words: a parse of the
/// command line (clap's whole parser built anew) costs about 100 µs,
/// many times the cap of a small text, and a program calls with the
/// same options again and again.
static PARSED: Mutex<Vec<(Vec<OsString>, Run)>> = Mutex::new(Vec::new());

/// How many configs [`PARSED`] keeps: the oldest goes first.
const PARSED_MAX: usize = 32;

/// The config of `words`, as `capout WORDS` would run, without a config
/// file or `CAPOUT_OPTS`: what a program asks for is what it gets.
fn config(words: Vec<OsString>) -> PyResult<Run> {
    if let Some((_, config)) =
        PARSED.lock().unwrap_or_else(PoisonError::into_inner).iter().find(|(w, _)| *w == words)
    {
        return Ok(config.clone());
    }
    let config = parse(&words)?;
    let mut parsed = PARSED.lock().unwrap_or_else(PoisonError::into_inner);
    if parsed.len() == PARSED_MAX {
        parsed.remove(0);
    }
    parsed.push((words, config.clone()));
    Ok(config)
}

/// [`config`], parsed.
fn parse(words: &[OsString]) -> PyResult<Run> {
    let args = std::iter::once(OsString::from("capout")).chain(words.iter().cloned());
    match cli::try_parse(args, None) {
        Ok(Action::Run(run)) => {
            let mut run = *run;
            // A live count belongs to a terminal, not to a module.
            run.options.progress = false;
            Ok(run)
        }
        Ok(_) => Err(PyValueError::new_err("not a cap")),
        Err(e) => Err(PyValueError::new_err(usage_message(&e))),
    }
}

/// The line `capout` prints for a usage error, without its `error: `
/// and the usage that follows.
fn usage_message(e: &clap::Error) -> String {
    let text = e.to_string();
    let text = text.strip_prefix("error: ").unwrap_or(&text);
    let text = text.split("\n\nUsage:").next().unwrap_or_default();
    text.split("\n\nFor more information").next().unwrap_or_default().trim_end().to_owned()
}

/// A capper for `config` that counts every total, so that its summary
/// has the facts of `--json`.
fn new_capper(options: &Options) -> PyResult<Capper> {
    Capper::new_counting_all(options.clone()).map_err(|e| PyValueError::new_err(e.to_string()))
}

/// The data of a call: bytes as they are, a str as its UTF-8.
fn data<'a>(value: &'a Bound<'_, PyAny>) -> PyResult<Cow<'a, [u8]>> {
    if let Ok(bytes) = value.cast::<PyBytes>() {
        return Ok(Cow::Borrowed(bytes.as_bytes()));
    }
    if let Ok(text) = value.cast::<PyString>() {
        return Ok(match text.to_cow()? {
            Cow::Borrowed(text) => Cow::Borrowed(text.as_bytes()),
            Cow::Owned(text) => Cow::Owned(text.into_bytes()),
        });
    }
    let kind = value.get_type().name()?;
    Err(PyTypeError::new_err(format!("expected bytes or str, not {kind}")))
}

fn engine_error(e: &dyn std::fmt::Display) -> PyErr {
    PyRuntimeError::new_err(e.to_string())
}

/// What a run did: the facts that `capout --json` gives beside the
/// output, each under its name there (`capout::facts::Facts`), but the
/// limit, which is `(n, None)` or `(head, tail)`.
#[pyclass(module = "capout", frozen, eq, get_all, skip_from_py_object)]
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    truncated: bool,
    cap: &'static str,
    limit: (u64, Option<u64>),
    budget: Option<u64>,
    unit: &'static str,
    total_bytes: u64,
    total_chars: Option<u64>,
    total_lines: Option<u64>,
    matches: Option<u64>,
    omitted: Option<u64>,
    first: Option<u64>,
    last: Option<u64>,
    next_offset: Option<u64>,
    total_tokens: Option<u64>,
    tokenizer: Option<&'static str>,
    json_items_kept: Option<u64>,
    json_items: Option<u64>,
    json_arrays_cut: Option<u64>,
    json_strings_cut: Option<u64>,
    json_documents_kept: Option<u64>,
    json_documents: Option<u64>,
    json_ended_at: Option<u64>,
    notice: Option<String>,
    saved_to: Option<String>,
    error: Option<String>,
    exit_code: i32,
    signal: Option<i32>,
    timed_out: bool,
}

impl From<Facts> for Summary {
    fn from(f: Facts) -> Summary {
        Summary {
            truncated: f.truncated,
            cap: f.cap,
            limit: match f.limit {
                Limit::One(n) => (n, None),
                Limit::Pair(h, t) => (h, Some(t)),
            },
            budget: f.budget,
            unit: f.unit,
            total_bytes: f.total_bytes.unwrap_or(0),
            total_chars: f.total_chars,
            total_lines: f.total_lines,
            matches: f.matches,
            omitted: f.omitted,
            first: f.first,
            last: f.last,
            next_offset: f.next_offset,
            total_tokens: f.total_tokens,
            tokenizer: f.tokenizer,
            json_items_kept: f.json_items_kept,
            json_items: f.json_items,
            json_arrays_cut: f.json_arrays_cut,
            json_strings_cut: f.json_strings_cut,
            json_documents_kept: f.json_documents_kept,
            json_documents: f.json_documents,
            json_ended_at: f.json_ended_at,
            notice: f.notice,
            saved_to: f.saved_to,
            error: f.error,
            exit_code: f.exit_code,
            signal: f.signal,
            timed_out: f.timed_out,
        }
    }
}

impl Summary {
    fn of(config: &Options, s: &capout_core::Summary) -> Summary {
        Facts::of_summary(config, s).into()
    }

    /// A command's run: the filter's summary, with the notice lines that
    /// the command's ending adds and how it ended.
    fn of_report(config: &Options, ran: &capout::run::Ran) -> Summary {
        Facts::of(config, ran).into()
    }
}

#[pymethods]
impl Summary {
    fn __repr__(&self) -> String {
        format!(
            "Summary(truncated={}, cap='{}', total_bytes={}, exit_code={})",
            if self.truncated { "True" } else { "False" },
            self.cap,
            self.total_bytes,
            self.exit_code
        )
    }
}

/// The output of a run and its summary.
#[pyclass(module = "capout", frozen, get_all)]
pub struct Result {
    output: Py<PyBytes>,
    summary: Py<Summary>,
}

#[pymethods]
impl Result {
    /// The output as text, invalid UTF-8 as U+FFFD.
    #[getter]
    fn text(&self, py: Python<'_>) -> String {
        String::from_utf8_lossy(self.output.as_bytes(py)).into_owned()
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!(
            "Result(output=<{} bytes>, summary={})",
            self.output.as_bytes(py).len(),
            self.summary.get().__repr__()
        )
    }
}

/// Caps a stream pushed in chunks, as `capout` caps its input.
#[pyclass(module = "capout", name = "Capper", frozen)]
pub struct PyCapper {
    config: Options,
    /// `None` once finished.
    capper: Mutex<Option<Capper>>,
}

#[pymethods]
impl PyCapper {
    #[new]
    #[pyo3(signature = (**options))]
    fn new(options: Option<&Bound<'_, PyDict>>) -> PyResult<PyCapper> {
        let config = config(words(options, false)?)?.options;
        let capper = new_capper(&config)?;
        Ok(PyCapper { config, capper: Mutex::new(Some(capper)) })
    }

    /// Takes the next chunk, split anywhere; returns what the cap lets
    /// through of it now.
    fn push<'py>(&self, py: Python<'py>, data: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyBytes>> {
        let chunk = self::data(data)?;
        let out = py.detach(|| {
            let mut capper = self.capper.lock().unwrap_or_else(PoisonError::into_inner);
            let capper = capper.as_mut().ok_or_else(|| "push after finish".to_owned())?;
            let mut out = Vec::new();
            capper.push(&chunk, &mut out).map_err(|e| e.to_string())?;
            Ok::<_, String>(out)
        });
        out.map(|out| PyBytes::new(py, &out)).map_err(PyRuntimeError::new_err)
    }

    /// Ends the stream: what the cap held back and the notice, and the
    /// summary.
    fn finish<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyBytes>, Summary)> {
        let capper = self.capper.lock().unwrap_or_else(PoisonError::into_inner).take();
        let capper = capper.ok_or_else(|| PyRuntimeError::new_err("finish after finish"))?;
        let (out, summary) = py
            .detach(|| {
                let mut out = Vec::new();
                let summary = capper.finish(&mut out).map_err(|e| e.to_string())?;
                Ok::<_, String>((out, summary))
            })
            .map_err(PyRuntimeError::new_err)?;
        Ok((PyBytes::new(py, &out), Summary::of(&self.config, &summary)))
    }
}

/// Caps `data` at once, as `capout` caps it on stdin.
#[pyfunction]
#[pyo3(signature = (data, **options))]
fn cap(py: Python<'_>, data: &Bound<'_, PyAny>, options: Option<&Bound<'_, PyDict>>) -> PyResult<Result> {
    let config = config(words(options, false)?)?.options;
    let input = self::data(data)?;
    let mut capper = new_capper(&config)?;
    let ran = py.detach(|| {
        let mut out = Vec::with_capacity(input.len().min(64 * 1024));
        capper.push(&input, &mut out)?;
        capper.finish(&mut out).map(|summary| (out, summary))
    });
    let (out, summary) = ran.map_err(|e| engine_error(&e))?;
    Ok(Result {
        output: PyBytes::new(py, &out).unbind(),
        summary: Py::new(py, Summary::of(&config, &summary))?,
    })
}

/// Runs a command under a cap, as `capout -- COMMAND` runs it: in a
/// process group of its own, stdout and stderr joined, stdin at its end.
#[pyfunction]
#[pyo3(signature = (args, *, timeout=None, **options))]
fn run(
    py: Python<'_>,
    args: Vec<OsString>,
    timeout: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyDict>>,
) -> PyResult<Result> {
    if args.is_empty() {
        return Err(PyValueError::new_err("args: no command to run"));
    }
    let mut words = words(options, true)?;
    if let Some(timeout) = timeout {
        words.extend(option_words("--timeout", timeout)?);
    }
    words.push("--".into());
    words.extend(args);
    let Run { options: mut config, command: Some(spec), .. } = config(words)? else {
        return Err(PyValueError::new_err("args: no command to run"));
    };
    // Every total, as `capout --json -- COMMAND` counts them: the summary
    // has the facts of `--json`, whatever the cap needs for its notice.
    config.count_totals = true;
    // The command's stdin is at its end: the program's own stdin is not
    // the command's to read.
    let place = Place { no_stdin: true, ..Place::default() };
    let ran = py.detach(|| {
        let mut out = Vec::new();
        command::run_in(&config, &spec, &place, &mut out, &mut io::stderr()).map(|finished| (out, finished))
    });
    let (mut out, finished) = ran.map_err(|e| match &e {
        command::Error::Spawn { .. } => {
            let message = e.to_string();
            if e.exit() == capout::exit::Exit::NotFound {
                pyo3::exceptions::PyFileNotFoundError::new_err(message)
            } else {
                pyo3::exceptions::PyPermissionError::new_err(message)
            }
        }
        _ => engine_error(&e),
    })?;
    let summary = finished.summary.ok_or_else(|| PyRuntimeError::new_err("the output was closed"))?;
    let summary = Summary::of_report(&config, &capout::run::Ran::new(summary, finished.ending));
    out.shrink_to_fit();
    Ok(Result { output: PyBytes::new(py, &out).unbind(), summary: Py::new(py, summary)? })
}

#[pymodule]
fn _capout(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // The interpreter's handlers (KeyboardInterrupt) stay in charge of
    // its signals; `run` only passes them on to its command.
    capout::signals::embedded();
    // The version of the crates the extension was built from: the
    // package's version too (pyproject.toml takes Cargo.toml's).
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<PyCapper>()?;
    m.add_class::<Summary>()?;
    m.add_class::<Result>()?;
    m.add_class::<tools::Tools>()?;
    m.add_function(wrap_pyfunction!(cap, m)?)?;
    m.add_function(wrap_pyfunction!(run, m)?)?;
    let at_exit = wrap_pyfunction!(tools::_at_exit, m)?;
    m.add_function(at_exit.clone())?;
    // No process a `bash` call of the tools started outlives the
    // interpreter, whatever thread made the call.
    m.py().import("atexit")?.call_method1("register", (at_exit,))?;
    Ok(())
}
