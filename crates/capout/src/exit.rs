//! How a run of `capout` or `capout-mcp` ends: every exit status in one
//! place, as fd keeps its exit codes.

use std::process::ExitCode;

/// Every way a run ends, with its exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exit {
    /// 0: the filter ran, whether or not it cut; the command exited 0.
    Success,
    /// 1: an error other than a usage error, told in one `capout: ...`
    /// line: the input could not be read, a save failed, the MCP server
    /// could not start.
    Failure,
    /// 2: a usage error, naming the bad option and value.
    Usage,
    /// The command exited with this status, 1 to 255.
    Command(u8),
    /// 124: `--timeout` expired, as GNU `timeout` has it.
    TimedOut,
    /// 126: the command was found but could not be executed.
    NotExecutable,
    /// 127: the command was not found.
    NotFound,
    /// 128 + N: signal N killed the command, or interrupted capout; capout
    /// kills itself with it once it has written what it kept.
    Signal(i32),
}

impl Exit {
    /// The exit status, as a shell sees it.
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
            Exit::Command(code) => code,
            Exit::TimedOut => 124,
            Exit::NotExecutable => 126,
            Exit::NotFound => 127,
            Exit::Signal(signal) => u8::try_from(128 + signal).unwrap_or(u8::MAX),
        }
    }

    /// The way a run ends for a status: the inverse of [`Exit::code`],
    /// where statuses of commands and of capout itself coincide (a
    /// command that exits 2 reads as [`Exit::Usage`]).
    pub fn of_status(code: i32) -> Exit {
        match code {
            0 => Exit::Success,
            1 => Exit::Failure,
            2 => Exit::Usage,
            124 => Exit::TimedOut,
            126 => Exit::NotExecutable,
            127 => Exit::NotFound,
            129..=192 => Exit::Signal(code - 128),
            code => Exit::Command(u8::try_from(code).unwrap_or(u8::MAX)),
        }
    }

    /// How the engine's error ends a run: a pattern that is not valid is a
    /// usage error; reading, writing or saving failed is a failure.
    pub fn of_error(e: &capout_core::Error) -> Exit {
        match e {
            capout_core::Error::Pattern { .. } => Exit::Usage,
            _ => Exit::Failure,
        }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        ExitCode::from(exit.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_reads_back_as_the_way_it_ends() {
        for code in 0..=255 {
            assert_eq!(i32::from(Exit::of_status(code).code()), code, "{code}");
        }
        assert_eq!(Exit::Signal(9).code(), 137);
        assert_eq!(Exit::of_status(143), Exit::Signal(15));
    }
}
