//! Differential tests against GNU `head` and `tail`: with notices off and
//! the line cap off, capout's byte and line caps agree with them byte for
//! byte. GNU coreutils must be installed: without it the test fails, it
//! does not skip.

use std::io::Write;
use std::process::{Command, Stdio};

use capout_testkit::Rng;

/// The names of GNU `head` and `tail`: as such, or with the `g` prefix
/// that GNU coreutils has where the system's own tools are BSD's.
fn gnu_head_and_tail() -> (&'static str, &'static str) {
    let is_gnu = |program: &str| {
        Command::new(program)
            .arg("--version")
            .output()
            .is_ok_and(|out| String::from_utf8_lossy(&out.stdout).contains("GNU coreutils"))
    };
    [("head", "tail"), ("ghead", "gtail")]
        .into_iter()
        .find(|&(head, tail)| is_gnu(head) && is_gnu(tail))
        .expect("GNU head and tail are needed: install GNU coreutils (macOS: brew install coreutils)")
}

fn run(program: &str, args: &[&str], input: &[u8]) -> Vec<u8> {
    let mut child = crate::common::clean_env(&mut Command::new(program))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{program} runs: {e}"));
    let mut stdin = child.stdin.take().expect("piped stdin");
    let input = input.to_vec();
    // Write from a thread so a full pipe cannot deadlock the test.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().expect("the program ends");
    writer.join().expect("the writer ends");
    assert!(out.status.success(), "{program} {args:?} failed");
    out.stdout
}

#[test]
fn byte_and_line_caps_agree_with_gnu_head_and_tail() {
    let (head, tail) = gnu_head_and_tail();
    let capout = env!("CARGO_BIN_EXE_capout");
    let mut rng = Rng::new(0x6e75);
    let mut inputs: Vec<Vec<u8>> = vec![Vec::new(), b"\n".to_vec(), b"no newline".to_vec()];
    inputs.extend((0..12).map(|_| {
        let atoms = rng.below(80) as usize;
        rng.text(atoms)
    }));
    for input in &inputs {
        for n in ["1", "2", "3", "7", "20", "18446744073709551615"] {
            let off = ["--notice", "none", "--max-line-chars", "0"];
            let pairs: [(&[&str], &str, &[&str]); 4] = [
                (&["--bytes", "--tail-chars", n], tail, &["-c", n]),
                (&["--bytes", "--head-chars", n], head, &["-c", n]),
                (&["--head-lines", n], head, &["-n", n]),
                (&["--tail-lines", n], tail, &["-n", n]),
            ];
            for (ours, gnu, theirs) in pairs {
                let args: Vec<&str> = off.iter().chain(ours).copied().collect();
                let got = run(capout, &args, input);
                let want = run(gnu, theirs, input);
                assert!(
                    got == want,
                    "capout {args:?} vs {gnu} {theirs:?} on {input:?}\nwant: {want:?}\ngot:  {got:?}"
                );
            }
        }
    }
}
