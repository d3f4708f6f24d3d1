//! The wiring: the SDK's server handler, the registry of the three tools
//! with their arguments, and the blocking threads the calls run on.

use std::sync::Arc;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock, Implementation, ServerCapabilities, ServerConfig};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, schemars, tool, tool_handler, tool_router};
use serde::Deserialize;

use super::lifecycle::{self, Calls, Saved, StopOnDrop, Which};
use super::tools::{self, Tools};

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
            route.attr.description = Some(describe(&route.attr.name, &tools).into());
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
const BASH_TIMEOUT: u64 = 120;

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
            let number = call.number;
            let env = vec![lifecycle::mark(number)];
            let stop = Some(Arc::clone(&call.stop));
            let ran = tools.bash(&args.command, args.timeout.unwrap_or(BASH_TIMEOUT), env, stop);
            saved.evict();
            // What the command left running ends with the call, beside
            // the reply rather than before it.
            let ending = std::thread::Builder::new().name("capout-mcp-leftovers".into()).spawn(move || {
                lifecycle::end(Which::Call(call.number), lifecycle::GRACE);
                drop(call);
            });
            if ending.is_err() {
                lifecycle::kill(Which::Call(number));
            }
            ran
        });
        tokio::select! {
            replied = work => {
                abandoned.0 = None;
                replied
            }
            // Cancelled: the command is ended at once (on drop), and no
            // reply is sent.
            () = context.ct.cancelled() => Err(ErrorData::internal_error("the call was cancelled", None)),
        }
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("capout", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Bounded tools: read pages files with offset/limit, grep searches with ripgrep, bash runs a \
                 shell command. Every output is capped and ends with a notice that says what was cut and \
                 how to get more.",
            )
    }
}

/// The words of a cap as a description tells them: "the first 500 lines".
fn cap_words(config: &capout_core::Config) -> String {
    use capout_core::CapSpec;
    let unit = config.unit.name();
    match config.cap {
        CapSpec::TailChars(n) => format!("the last {n} {unit}"),
        CapSpec::HeadChars(n) => format!("the first {n} {unit}"),
        CapSpec::HeadLines { limit, .. } => format!("the first {limit} lines"),
        CapSpec::TailLines(n) => format!("the last {n} lines"),
        CapSpec::MaxMatches(n) => format!("the first {n} lines"),
        CapSpec::HeadTailLines(h, t) => format!("the first {h} and the last {t} lines"),
        CapSpec::HeadTailChars(h, t) => format!("the first {h} and the last {t} {unit}"),
        CapSpec::TailTokens(n) => format!("the last {n} tokens"),
        CapSpec::HeadTokens(n) => format!("the first {n} tokens"),
        CapSpec::HeadTailTokens(h, t) => format!("the first {h} and the last {t} tokens"),
    }
}

/// What a description says of the line cap and the budget of `config`.
fn line_words(config: &capout_core::Config) -> String {
    let unit = config.unit.name();
    let budget = config.budget.map(|budget| {
        format!(
            " A page holds at most {budget} {unit} in all (whole lines only): it may end before `limit` lines, and its notice says where."
        )
    });
    let width = config.max_line.map(|w| {
        format!(" A line longer than {w} {unit} is cut and ends with ` ... (line truncated to {w} {unit})`.")
    });
    format!("{}{}", budget.unwrap_or_default(), width.unwrap_or_default())
}

/// The description of a tool, from the profiles loaded: a config file
/// that retunes a cap changes what the model is told.
pub fn describe(name: &str, tools: &Tools) -> String {
    let (read, grep, bash) = tools.profiles();
    match name {
        "read" => format!(
            "Read a text file: its lines, each numbered as `cat -n` numbers them (6-wide number, a tab, the line). Shown: {}, starting after `offset` (`limit` sets how many lines).{} When more follow, the last line is a notice `... (truncated, showing lines A-B of T, next offset B)`: call read again with offset B to see the next lines. A page after the first that reaches the end says `... (showing lines A-B of T, end of input)`; `... (offset K is past the end, input has T lines)` means the file has T lines. An empty file reads `(no output)`; a binary file is not shown. A folder, a missing file or a path outside the root is an error.",
            cap_words(read),
            line_words(read)
        ),
        "grep" => format!(
            "Search file contents with a regular expression, in parallel, as ripgrep does (`rg -n --sort path`): folders are walked, files that .gitignore ignores, hidden files and binary files are skipped; `glob` and `type` narrow the files. output_mode \"content\" (default) gives each matching line as `path:line:text` (context lines from `context_before`/`context_after`/`context` as `path-line-text`, groups apart with `--`), \"files_with_matches\" the paths, \"count\" `path:count`; paths relative to the server's root. Each line of output is one entry. Shown: {} (`limit` sets how many), after `offset`; when there are more, the last line says `... (T total, showing first N)`, and a later page `... (T total, showing A-B, next offset B)` or `... (T total, showing A-B, end of input)`: T is the exact number, and offset B shows the next page. No match reads `No matches found.`.{}",
            cap_words(grep),
            line_words(grep)
        ),
        _ => format!(
            "Run a shell command (`sh -c COMMAND`), with stdout and stderr joined in the order written and no stdin. The working directory persists from call to call (a `cd` holds for the next call, the environment does not); the first call starts in the server's root. Shown: {} of the output{}; when more was written, a notice follows: `... (truncated, showing last N chars; full output: PATH)`: the whole output is saved in PATH, which the read tool pages (its notice gives the next offset) and grep searches. Output that is not text is replaced by `(binary output, N bytes: not shown; full output: PATH)`. A command still running after `timeout` seconds (default 120) is stopped, and `... (command timed out after Ns)` says so. When the command's exit status is not 0, the last line is `(exit status N)` (124 after a timeout), or `(exit status N, killed by SIGNAME)` when a signal killed it. No output at all reads `(no output)`. Nothing the command starts outlives the call: when it ends (or is cancelled), background jobs, even those started with `&`, `nohup` or `setsid`, are ended (SIGTERM, then SIGKILL 2 s later); run a long job in the foreground with a larger timeout instead. Saved outputs take at most 1 GiB in all: the oldest are removed first.",
            cap_words(bash),
            match (bash.strip_ansi, bash.collapse_cr) {
                (true, true) =>
                    ", ANSI escape sequences removed and progress frames (`\\r`) collapsed to what a terminal shows",
                (true, false) => ", ANSI escape sequences removed",
                (false, true) => ", progress frames (`\\r`) collapsed to what a terminal shows",
                (false, false) => "",
            }
        ),
    }
}

/// Runs a tool on a blocking thread: its text, or its error as a tool
/// error (never a protocol error: the model reads what went wrong).
async fn blocking(
    call: impl FnOnce() -> Result<String, String> + Send + 'static,
) -> Result<CallToolResult, ErrorData> {
    match tokio::task::spawn_blocking(call).await {
        Ok(Ok(text)) => Ok(CallToolResult::success(vec![ContentBlock::text(text)])),
        Ok(Err(text)) => Ok(CallToolResult::error(vec![ContentBlock::text(text)])),
        Err(e) => Err(ErrorData::internal_error(format!("the tool failed: {e}"), None)),
    }
}
