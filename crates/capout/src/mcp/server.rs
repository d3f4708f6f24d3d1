//! The wiring: the SDK's server handler, the registry of the three tools
//! with their arguments, and the blocking threads the calls run on.

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;

use super::lifecycle::{self, Calls, Saved, StopOnDrop, Which, hosted};
use super::notice;
use super::tools::{self, ToolError, Tools};

/// The MCP server: the tools, and the router the SDK's macros build.
#[derive(Clone)]
pub struct Server {
    tools: Arc<Tools>,
    calls: Arc<Calls>,
    saved: Arc<Saved>,
    tool_router: ToolRouter<Server>,
}

impl Server {
    /// The server of `tools`, its `bash` calls counted in `calls`, their
    /// whole outputs kept in `saved`.
    pub fn new(tools: Tools, calls: Arc<Calls>, saved: Saved) -> Server {
        let mut tool_router = Server::tool_router();
        // Each description states the caps of the profiles actually loaded.
        for route in tool_router.map.values_mut() {
            route.attr.description = Some(notice::describe(&route.attr.name, &tools).into());
        }
        Server { tools: Arc::new(tools), calls, saved: Arc::new(saved), tool_router }
    }
}

/// The arguments of `read`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct ReadArgs {
    /// The file to read: relative to the server's root, or a path that a bash notice named.
    path: String,
    /// Lines to skip before the first one shown (default 0). To page on, pass the `next offset` of the notice.
    #[schemars(range(min = 0))]
    offset: Option<u64>,
    /// The most lines to show (default: the read profile's cap, given in the tool's description).
    #[schemars(range(min = 1))]
    limit: Option<u64>,
}

/// What `grep` prints.
#[derive(Debug, Default, Clone, Copy, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
enum OutputMode {
    /// Matching lines as `path:line:text` (`rg -n`).
    #[default]
    Content,
    /// The paths of the files with a match, one a line (`rg -l`).
    FilesWithMatches,
    /// `path:count` for each file with a match (`rg -c`).
    Count,
}

/// The arguments of `grep`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct GrepArgs {
    /// The regular expression to search for (Rust regex syntax, as ripgrep's).
    pattern: String,
    /// The file or folder to search, relative to the server's root (default ".").
    path: Option<String>,
    /// Search only files whose names match this glob, such as "*.rs" or "src/**/*.py" (as `rg -g`).
    glob: Option<String>,
    /// Search only files of this type, such as "rust", "py" or "js" (as `rg -t`).
    #[serde(rename = "type")]
    file_type: Option<String>,
    /// `content` (default): matching lines; `files_with_matches`: paths; `count`: `path:count` per file.
    output_mode: Option<OutputMode>,
    /// Lines of context before each match (as `rg -B`; default `context`); content mode only.
    context_before: Option<u32>,
    /// Lines of context after each match (as `rg -A`; default `context`); content mode only.
    context_after: Option<u32>,
    /// Lines of context before and after each match (as `rg -C`); content mode only.
    context: Option<u32>,
    /// Match without regard to case (default false).
    case_insensitive: Option<bool>,
    /// Let a match span lines, `.` still not matching a newline (as `rg -U`; default false).
    multiline: Option<bool>,
    /// Output lines to skip before the first one shown (default 0). To page on, pass the `next offset` of the notice.
    #[schemars(range(min = 0))]
    offset: Option<u64>,
    /// The most output lines to show (default: the grep profile's cap, given in the tool's description).
    #[schemars(range(min = 1))]
    limit: Option<u64>,
}

/// The arguments of `bash`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct BashArgs {
    /// The command, run as `sh -c COMMAND` where the last command ended (at first the server's root), stdout and stderr joined.
    command: String,
    /// Seconds before the command is stopped (SIGTERM, then SIGKILL 5 s later); default 120.
    #[schemars(range(min = 1))]
    timeout: Option<u64>,
}

/// The default `timeout` of `bash`, in seconds.
pub const BASH_TIMEOUT: u64 = 120;

#[tool_router]
impl Server {
    #[tool(description = "Read a text file.", annotations(read_only_hint = true))]
    async fn read(&self, Parameters(args): Parameters<ReadArgs>) -> Result<CallToolResult, ErrorData> {
        let tools = Arc::clone(&self.tools);
        blocking(move || tools.read(&args.path, args.offset.unwrap_or(0), args.limit)).await
    }

    #[tool(description = "Search file contents.", annotations(read_only_hint = true))]
    async fn grep(&self, Parameters(args): Parameters<GrepArgs>) -> Result<CallToolResult, ErrorData> {
        let tools = Arc::clone(&self.tools);
        let context = args.context.unwrap_or(0) as usize;
        let request = tools::GrepRequest {
            pattern: args.pattern,
            path: args.path.unwrap_or_else(|| ".".into()),
            glob: args.glob,
            file_type: args.file_type,
            mode: match args.output_mode.unwrap_or_default() {
                OutputMode::Content => tools::GrepMode::Content,
                OutputMode::FilesWithMatches => tools::GrepMode::FilesWithMatches,
                OutputMode::Count => tools::GrepMode::Count,
            },
            before: args.context_before.map_or(context, |n| n as usize),
            after: args.context_after.map_or(context, |n| n as usize),
            case_insensitive: args.case_insensitive.unwrap_or(false),
            multiline: args.multiline.unwrap_or(false),
            offset: args.offset.unwrap_or(0),
            limit: args.limit,
        };
        blocking(move || tools.grep(&request)).await
    }

    #[tool(description = "Run a shell command.")]
    async fn bash(
        &self,
        Parameters(args): Parameters<BashArgs>,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let call = match self.calls.enter() {
            Ok(call) => call,
            Err(text) => return Ok(CallToolResult::error(vec![ContentBlock::text(text)])),
        };
        let mut abandoned = StopOnDrop(Some(Arc::clone(&call.stop)));
        let tools = Arc::clone(&self.tools);
        let saved = Arc::clone(&self.saved);
        let work = blocking(move || {
            let env = vec![lifecycle::mark(call.number)];
            let stop = Some(Arc::clone(&call.stop));
            // Ends what the call left, even when the call panics.
            let call = EndLeftovers(Some(call));
            let ran = tools.bash(&args.command, args.timeout.unwrap_or(BASH_TIMEOUT), env, stop);
            saved.evict();
            drop(call);
            ran
        });
        tokio::select! {
            replied = work => {
                abandoned.0 = None;
                replied
            }
            // Cancelled: the command is ended at once (on drop), and no
            // reply is sent.
            () = context.ct.cancelled() => Err(ErrorData::internal_error(notice::CANCELLED, None)),
        }
    }
}

/// Ends what a `bash` call left running once the call is over, beside
/// the reply rather than before it.
struct EndLeftovers(Option<lifecycle::CallGuard>);

impl Drop for EndLeftovers {
    fn drop(&mut self) {
        let Some(call) = self.0.take() else { return };
        let number = call.number;
        let ending = std::thread::Builder::new().name("capout-mcp-leftovers".into()).spawn(move || {
            lifecycle::end(Which::Call(call.number), lifecycle::GRACE);
            drop(call);
        });
        if ending.is_err() {
            lifecycle::kill(Which::Call(number));
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("capout", env!("CARGO_PKG_VERSION")))
            .with_instructions(notice::INSTRUCTIONS)
    }
}

/// Runs a tool on a blocking thread: its text, or its error as a tool
/// error (never a protocol error: the model reads what went wrong). A
/// panic on that thread (a bug) is a tool error too, and the session goes
/// on: the server is built with unwinding (the workspace's profiles).
async fn blocking(
    call: impl FnOnce() -> Result<String, ToolError> + Send + 'static,
) -> Result<CallToolResult, ErrorData> {
    let text = match tokio::task::spawn_blocking(call).await {
        Ok(Ok(text)) => return Ok(CallToolResult::success(vec![ContentBlock::text(text)])),
        Ok(Err(e)) => String::from(e),
        Err(e) if e.is_panic() => hosted::panicked(&*e.into_panic()),
        Err(e) => notice::tool_failed(&e),
    };
    Ok(CallToolResult::error(vec![ContentBlock::text(text)]))
}
