//! The `capout` binary: parse, run, map the outcome to an exit status.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use capout::Error;

fn main() -> ExitCode {
    let config = capout::cli::parse();
    let mut out = BufWriter::with_capacity(capout::engine::READ_SIZE, io::stdout().lock());
    let mut err = io::stderr().lock();
    match capout::run(&config, io::stdin().lock(), &mut out, &mut err) {
        Ok(_) => ExitCode::SUCCESS,
        // A reader that stopped listening is not an error.
        Err(Error::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            let _ = writeln!(err, "capout: {e}");
            ExitCode::FAILURE
        }
    }
}
