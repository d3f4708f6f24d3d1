//! A synchronous harness: run a command with `std::process::Command`, and
//! write its output through a [`CapWriter`], which keeps its first lines.
//!
//! `cargo run --example cap_writer -- seq 100` prints lines 1-10 and the
//! notice, then the summary.

use std::io::{self, Read};
use std::process::{Command, Stdio};

use capout_core::{CapSpec, CapWriter, Options};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (program, args) = args.split_first().ok_or("usage: cap_writer PROGRAM [ARG]...")?;
    let mut child = Command::new(program).args(args).stdout(Stdio::piped()).spawn()?;
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let mut writer =
        CapWriter::new(io::stdout().lock(), Options::new(CapSpec::HeadLines { limit: 10, offset: 0 }))?;
    // Copies in chunks; bytes past the cap are read and counted, never held.
    let mut chunk = [0; 8192];
    loop {
        let n = stdout.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        io::Write::write_all(&mut writer, &chunk[..n])?;
    }
    let status = child.wait()?;
    let (_, summary) = writer.finish()?;
    eprintln!("exit={status} truncated={} lines={:?}", summary.truncated, summary.totals.lines());
    Ok(())
}
