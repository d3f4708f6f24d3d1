//! The engine against a naive model of the spec.
//!
//! Random inputs, heavy in the cases that break streaming code (multi-byte
//! and invalid UTF-8, `\r\n`, long lines), run through the real engine
//! with reads of 1 to 7 bytes and of 64 KiB. The output must equal what a
//! model that holds the whole input in memory computes, whatever the read
//! sizes, so every chunk boundary is exercised.
//!
//! The model shares no code with the engine: it compiles patterns with
//! `regex` itself and strips escape sequences with a parser of its own,
//! which is checked here against `vte` (Alacritty's parser) where the two
//! must agree.

use capout_core::Options;
use capout_testkit::model::{model, random_config, strip_ansi};
use capout_testkit::{Chunked, Rng};

fn run(input: &[u8], config: &Options, sizes: &[usize]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut err = Vec::new();
    capout_core::run(config, Chunked::new(input, sizes), &mut out, &mut err).expect("in-memory run");
    assert!(err.is_empty());
    out
}

#[test]
fn engine_matches_the_model_at_every_read_size() {
    let mut rng = Rng::new(0x5eed);
    for case in 0..3000 {
        let atoms = rng.below(60) as usize;
        let input = rng.text(atoms);
        let config = random_config(&mut rng);
        let want = model(&input, &config);
        for sizes in [&[1][..], &[2], &[3], &[4], &[5], &[6], &[7], &[1, 7, 2, 5, 3], &[65536]] {
            let config = {
                let mut options = config.clone();
                options.read_size = *sizes.iter().max().unwrap_or(&1);
                options
            };
            let got = run(&input, &config, sizes);
            assert!(
                got == want,
                "case {case}, reads {sizes:?}, {config:?}\ninput: {input:?}\nwant:  {:?}\ngot:   {:?}",
                String::from_utf8_lossy(&want),
                String::from_utf8_lossy(&got),
            );
        }
    }
}

/// What a terminal prints and executes of `input`: its text without the
/// escape sequences, as `vte` parses them.
fn vte_text(input: &[u8]) -> Vec<u8> {
    struct Text(Vec<u8>);
    impl vte::Perform for Text {
        fn print(&mut self, c: char) {
            self.0.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        }
        fn execute(&mut self, byte: u8) {
            self.0.push(byte);
        }
    }
    let mut text = Text(Vec::new());
    vte::Parser::new().advance(&mut text, input);
    text.0
}

#[test]
fn the_models_ansi_stripper_agrees_with_vte_on_well_formed_input() {
    // Text and complete sequences of every kind SPEC §5 names; on these
    // ECMA-48 leaves no choice, so a terminal's parser is an oracle.
    const ATOMS: &[&[u8]] = &[
        b"a",
        b"xyz",
        b" ",
        b"[",
        b"]",
        b"\\",
        b"\n",
        b"\t",
        b"\r",
        "\u{e9}".as_bytes(),
        "\u{20ac}".as_bytes(),
        "\u{1f600}".as_bytes(),
        b"\x1b[m",
        b"\x1b[0m",
        b"\x1b[1;31m",
        b"\x1b[38;5;208m",
        b"\x1b[?25l",
        b"\x1b[2K",
        b"\x1b[10;20H",
        b"\x1b[ q",
        b"\x1b]0;title\x07",
        b"\x1b]8;;https://example.com\x1b\\",
        b"\x1b]2;[x]\x1b\\",
        b"\x1bP1$r0m\x1b\\",
        b"\x1b_app\x1b\\",
        // BEL ends only an OSC for a terminal (xterm's extension), so the
        // other strings here end with ST.
        b"\x1b^pm\x1b\\",
        b"\x1bXsos\x1b\\",
        b"\x1b(B",
        b"\x1b)0",
        b"\x1b#8",
        b"\x1b7",
        b"\x1b8",
        b"\x1b=",
        b"\x1bM",
        b"\x1bc",
    ];
    let mut rng = Rng::new(0xa115);
    for case in 0..5000 {
        let atoms = rng.below(40) as usize;
        let input: Vec<u8> =
            (0..atoms).flat_map(|_| ATOMS[rng.below(ATOMS.len() as u64) as usize].iter().copied()).collect();
        let want = vte_text(&input);
        let got = strip_ansi(&input);
        assert!(
            got == want,
            "case {case}, input {:?}\nvte:   {:?}\nmodel: {:?}",
            String::from_utf8_lossy(&input),
            String::from_utf8_lossy(&want),
            String::from_utf8_lossy(&got),
        );
    }
}

#[test]
fn the_models_ansi_stripper_keeps_the_byte_that_breaks_a_sequence() {
    // Where ECMA-48 is silent: a sequence ends at a byte it cannot hold,
    // and that byte is text; a sequence cut off by the end is dropped.
    for (input, want) in [
        (&b"a\x1b[1\nb"[..], &b"a\nb"[..]),
        (b"\x1b]0;title\nrest", b"\nrest"),
        (b"\x1b(\nx", b"\nx"),
        (b"\x1b\xc3\xa9", b"\xc3\xa9"),
        (b"\x1b[1\x1b[31mx", b"x"),
        (b"\x1b]0;t\x1b(Bx", b"x"),
        (b"\x1b\x1b[mx", b"x"),
        (b"a\x1b]0;never ended", b"a"),
        (b"a\x1b[12", b"a"),
        (b"a\x1b", b"a"),
    ] {
        assert_eq!(strip_ansi(input), want, "{:?}", String::from_utf8_lossy(input));
    }
}
