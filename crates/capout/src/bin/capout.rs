//! The `capout` binary: the program is the library's (`capout::app`).

fn main() -> std::process::ExitCode {
    capout::app::main()
}
