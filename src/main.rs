//! The `capout` binary: parse, run, map the outcome to an exit status.

use std::io::{self, BufWriter, Write};
use std::process::ExitCode;

use capout::Error;
use capout::cli::{self, Action};

fn main() -> ExitCode {
    let config = match cli::parse() {
        Action::Run(config) => config,
        Action::Completions(shell) => {
            clap_complete::generate(shell, &mut cli::command(), "capout", &mut io::stdout());
            return ExitCode::SUCCESS;
        }
    };
    let mut out = BufWriter::with_capacity(capout::engine::READ_SIZE, io::stdout().lock());
    let mut err = io::stderr().lock();
    match capout::run(&config, io::stdin().lock(), &mut out, &mut err) {
        Ok(report) => match report.save_error {
            Some(e) => fail(&mut err, &e),
            None => ExitCode::from(u8::try_from(report.ending.exit_code).unwrap_or(1)),
        },
        // A reader that stopped listening is not an error.
        Err(Error::Write(e)) if e.kind() == io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => fail(&mut err, &e),
    }
}

/// One line on stderr, status 1.
fn fail(err: &mut dyn Write, e: &dyn std::fmt::Display) -> ExitCode {
    let _ = writeln!(err, "capout: {e}");
    ExitCode::FAILURE
}
