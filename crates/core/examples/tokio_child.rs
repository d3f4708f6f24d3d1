//! An async harness: run a child with `tokio::process`, push its output
//! into a [`Capper`] chunk by chunk as it arrives, and return the capped
//! text with the summary.
//!
//! `cargo run --example tokio_child -- seq 100000` prints the last 5000
//! characters of the output and one line of facts.

use capout_core::{Capper, Options, Summary};
use tokio::io::AsyncReadExt;
use tokio::process::Command;

/// Runs `program` with `args` and caps its stdout as `options` say.
async fn run_capped(
    program: &str,
    args: &[String],
    options: Options,
) -> Result<(String, Summary), Box<dyn std::error::Error>> {
    let mut child = Command::new(program).args(args).stdout(std::process::Stdio::piped()).spawn()?;
    let mut stdout = child.stdout.take().ok_or("no stdout")?;
    let mut capper = Capper::new(options)?;
    let mut out = Vec::new();
    let mut chunk = vec![0; 8192];
    loop {
        let n = stdout.read(&mut chunk).await?;
        if n == 0 {
            break;
        }
        capper.push(&chunk[..n], &mut out)?;
    }
    child.wait().await?;
    let summary = capper.finish(&mut out)?;
    Ok((String::from_utf8_lossy(&out).into_owned(), summary))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (program, args) = args.split_first().ok_or("usage: tokio_child PROGRAM [ARG]...")?;
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let (text, summary) = runtime.block_on(run_capped(program, args, Options::default()))?;
    print!("{text}");
    println!(
        "truncated={} bytes={} lines={:?}",
        summary.truncated,
        summary.totals.bytes(),
        summary.totals.lines()
    );
    Ok(())
}
