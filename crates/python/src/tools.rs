//! The MCP server's tools, `read`, `grep` and `bash`, as methods: the
//! very code that `capout --mcp` serves, so that their texts, notices
//! and root rules are the server's to the letter, and the rules of its
//! `bash` calls hold here too: what a call starts is marked and
//! ended with the call, `close` ends the calls still running, and the
//! interpreter's exit ends every call and what it left.

use std::path::PathBuf;
use std::sync::Arc;

use capout::command::Stop;
use capout::mcp::hosted::{self, Hosted, HostedError};
use capout::mcp::tools::GrepRequest;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

/// The default `timeout` of `bash`, in seconds, as the server's.
const BASH_TIMEOUT: u64 = 120;

/// The tools over one root.
#[pyclass(module = "capout", frozen)]
pub struct Tools {
    tools: Hosted,
}

fn hosted_error(e: HostedError) -> PyErr {
    match e {
        HostedError::Folder(why) => PyOSError::new_err(why),
        HostedError::SavedMax(why) | HostedError::Profiles(why) => PyValueError::new_err(why),
    }
}

#[pymethods]
impl Tools {
    /// The tools over `root`, which paths may not leave.
    #[new]
    #[allow(clippy::needless_pass_by_value)] // PyO3 converts the argument to an owned path.
    fn new(root: PathBuf) -> PyResult<Tools> {
        let real =
            root.canonicalize().map_err(|e| PyOSError::new_err(format!("root {}: {e}", root.display())))?;
        if !real.is_dir() {
            return Err(PyValueError::new_err(format!("root {}: not a directory", root.display())));
        }
        Ok(Tools { tools: Hosted::new(&root, real, "capout-py-", "python").map_err(hosted_error)? })
    }

    /// The root, canonical.
    #[getter]
    fn root(&self) -> PathBuf {
        self.tools.root()
    }

    /// The folder the whole outputs of `bash` are saved to.
    #[getter]
    fn saved_dir(&self) -> PathBuf {
        self.tools.saved_dir()
    }

    /// `read`: lines `offset`+1 … `offset`+`limit` of a file, numbered.
    /// A tool error raises `ValueError` with the text the model sees.
    #[pyo3(signature = (path, offset=0, limit=None))]
    fn read(&self, py: Python<'_>, path: &str, offset: u64, limit: Option<u64>) -> PyResult<String> {
        let tools = self.tools.tools().map_err(hosted_error)?;
        py.detach(|| hosted::guard(|| tools.read(path, offset, limit))).map_err(PyValueError::new_err)
    }

    /// `grep`: the lines that match `pattern` under `path`, as
    /// `path:line:text`.
    #[pyo3(signature = (pattern, path=".", glob=None, case_insensitive=false))]
    fn grep(
        &self,
        py: Python<'_>,
        pattern: &str,
        path: &str,
        glob: Option<&str>,
        case_insensitive: bool,
    ) -> PyResult<String> {
        let request = GrepRequest {
            pattern: pattern.to_owned(),
            path: path.to_owned(),
            glob: glob.map(str::to_owned),
            case_insensitive,
            ..GrepRequest::default()
        };
        let tools = self.tools.tools().map_err(hosted_error)?;
        py.detach(|| hosted::guard(|| tools.grep(&request))).map_err(PyValueError::new_err)
    }

    /// `bash`: `sh -c COMMAND` in the root, its output capped, the whole
    /// of it saved when something was cut; what it leaves running is
    /// ended with it.
    #[pyo3(signature = (command, timeout=BASH_TIMEOUT))]
    fn bash(&self, py: Python<'_>, command: &str, timeout: u64) -> PyResult<String> {
        let stop = Stop::new().map_err(|e| PyOSError::new_err(format!("cannot run the command: {e}")))?;
        let call = self.tools.call(Arc::new(stop)).map_err(hosted_error)?;
        py.detach(|| {
            let ran = hosted::guard(|| call.run(command, timeout));
            // Ended by the interpreter's exit, in a daemon thread: taking
            // the interpreter's lock again while it finalizes would end
            // this thread by an unwind Rust cannot pass (an abort). The
            // thread waits for the process to end instead.
            while hosted::exiting() {
                std::thread::park();
            }
            ran
        })
        .map_err(PyValueError::new_err)
    }

    /// Ends the `bash` calls still running (their processes get SIGTERM
    /// and SIGKILL at once; each call returns what its command wrote and
    /// its status) and removes the folder of saved outputs. The tools
    /// still work after: the next call makes a new folder.
    fn close(&self) {
        self.tools.close();
    }

    fn __enter__(slf: Py<Self>) -> Py<Self> {
        slf
    }

    #[pyo3(signature = (*_args))]
    fn __exit__(&self, _args: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.tools.close();
        false
    }
}

/// What the interpreter runs as it exits (registered with `atexit`):
/// every `bash` call still running, in any thread, daemon threads too,
/// is ended with what it left, and the folders of saved outputs go.
#[pyfunction]
pub fn _at_exit() {
    hosted::at_exit();
}
