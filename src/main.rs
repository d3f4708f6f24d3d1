//! The `capout` binary: parse, run, map the outcome to an exit status.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use capout::Error;

fn main() -> ExitCode {
    let config = capout::cli::parse();
    let mut out = BufWriter::with_capacity(capout::engine::READ_SIZE, io::stdout().lock());
    let mut err = io::stderr().lock();
    let code = if config.command.is_some() {
        // The command's status; a closed stdout is handled inside, as the
        // command must still be waited for.
        match capout::command::run(&config, &mut out, &mut err) {
            Ok(status) => status.exit_code(),
            Err(e) => {
                let _ = writeln!(err, "capout: {e}");
                e.exit_code()
            }
        }
    } else {
        match capout::run(&config, io::stdin().lock(), &mut out, &mut err) {
            Ok(_) => 0,
            // A reader that stopped listening is not an error.
            Err(Error::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => 0,
            Err(e) => {
                let _ = writeln!(err, "capout: {e}");
                1
            }
        }
    };
    ExitCode::from(code)
}
