//! `capout-mcp`, which `capout --mcp [--root DIR]` runs: the bounded
//! tools `read`, `grep` and `bash` over the Model Context Protocol; and,
//! as `capout-mcp --wrap -- COMMAND`, which `capout --mcp-wrap -- COMMAND`
//! runs, the proxy that bounds another MCP server's tool results.

use std::io::Write as _;

fn main() -> std::process::ExitCode {
    // `capout --man` runs `capout-mcp --man`: the page lives in this
    // binary, so that the filter maps none of it.
    if capout::completions::manual_requested(std::env::args_os()) {
        let _ = std::io::stdout().lock().write_all(capout::completions::MANUAL.as_bytes());
        return std::process::ExitCode::SUCCESS;
    }
    // `capout --mcp-wrap -- COMMAND` runs `capout-mcp --wrap -- COMMAND`.
    let mut args = std::env::args_os().skip(1);
    if args.next().is_some_and(|word| word == "--wrap") {
        return capout::mcp::wrap::main(args);
    }
    capout::mcp::main()
}
