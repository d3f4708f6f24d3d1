//! The MCP server's tools, `read`, `grep` and `bash`, as methods: the
//! very code that `capout --mcp` serves, so that their texts, notices
//! and root rules are the server's to the letter.

use std::path::PathBuf;

use capout::mcp::paths::Roots;
use capout::mcp::tools::GrepRequest;
use pyo3::exceptions::{PyOSError, PyValueError};
use pyo3::prelude::*;

/// The default `timeout` of `bash`, in seconds, as the server's.
const BASH_TIMEOUT: u64 = 120;

/// The tools over one root.
#[pyclass(module = "capout", frozen)]
pub struct Tools {
    tools: capout::mcp::tools::Tools,
    /// The whole outputs of `bash`, outside the root; removed with it.
    _saved: tempfile::TempDir,
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
        let saved = tempfile::Builder::new()
            .prefix("capout-py-")
            .tempdir()
            .map_err(|e| PyOSError::new_err(format!("cannot make a folder for saved outputs: {e}")))?;
        let saved_path = saved.path().canonicalize().map_err(|e| PyOSError::new_err(e.to_string()))?;
        let tools = capout::mcp::tools::Tools::new(Roots::new(&root, real, saved_path))
            .map_err(PyValueError::new_err)?;
        Ok(Tools { tools, _saved: saved })
    }

    /// The root, canonical.
    #[getter]
    fn root(&self) -> PathBuf {
        self.tools.roots.root.clone()
    }

    /// `read`: lines `offset`+1 … `offset`+`limit` of a file, numbered.
    /// A tool error raises `ValueError` with the text the model sees.
    #[pyo3(signature = (path, offset=0, limit=None))]
    fn read(&self, py: Python<'_>, path: &str, offset: u64, limit: Option<u64>) -> PyResult<String> {
        py.detach(|| self.tools.read(path, offset, limit)).map_err(PyValueError::new_err)
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
        py.detach(|| self.tools.grep(&request)).map_err(PyValueError::new_err)
    }

    /// `bash`: `sh -c COMMAND` in the root, its output capped, the whole
    /// of it saved when something was cut.
    #[pyo3(signature = (command, timeout=BASH_TIMEOUT))]
    fn bash(&self, py: Python<'_>, command: &str, timeout: u64) -> PyResult<String> {
        py.detach(|| self.tools.bash(command, timeout, Vec::new(), None)).map_err(PyValueError::new_err)
    }
}
