//! `capout-mcp`, which `capout --mcp [--root DIR]` runs: the bounded
//! tools `read`, `grep` and `bash` over the Model Context Protocol.

fn main() -> std::process::ExitCode {
    capout::mcp::main()
}
