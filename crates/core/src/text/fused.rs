//! UTF-8 validated and its newlines and characters counted in one pass,
//! 64 bytes at a time, on a CPU with AVX-512 (chosen at run time).
//!
//! The portable way is three passes: simdutf8's validation (AVX2 at
//! best), then bytecount's newline and character counts. On multi-byte
//! text the validation alone cost more than reading the input; this pass
//! does all three in the registers that hold each block, about four
//! times as fast. pulp's CPU-feature tokens make the run-time dispatch and
//! the intrinsics safe to call, which `#![forbid(unsafe_code)]` requires.
//!
//! The validation is the lookup-table algorithm of simdutf8 and simdjson
//! (Keiser and Lemire, "Validating UTF-8 in less than one instruction per
//! byte"): three 16-entry tables indexed by the nibbles of each byte and of
//! the byte before it flag every error of a two-byte window, and the bytes
//! two and three back say where a continuation byte must be. The bytes
//! before a block are read by loads one, two and three bytes back, not
//! shifted across lanes.

/// The newlines and the characters of `bytes` when it is valid UTF-8 that
/// ends on a character boundary and the CPU runs the fused pass; `None`
/// otherwise (invalid bytes, a character cut at the end, or no AVX-512),
/// when the caller counts the portable way.
pub fn valid_counts(bytes: &[u8]) -> Option<(u64, u64)> {
    #[cfg(target_arch = "x86_64")]
    {
        avx512::valid_counts(bytes)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = bytes;
        None
    }
}

// Everything the pass calls must be inlined into pulp's function that is
// compiled for AVX-512: out of it, each intrinsic is a call that passes its
// vectors through memory (the pass was 250 times slower).
#[cfg(target_arch = "x86_64")]
#[allow(clippy::inline_always)]
mod avx512 {
    use std::arch::x86_64::__m512i;

    use pulp::bytemuck;
    use pulp::x86::V4;

    /// The bytes tested at once for a run of ASCII.
    const GROUP: usize = 512;

    // The error classes of a byte and the byte before it; a window is
    // invalid when the three lookups agree on one class.
    const TOO_SHORT: u8 = 1 << 0;
    const TOO_LONG: u8 = 1 << 1;
    const OVERLONG_3: u8 = 1 << 2;
    const TOO_LARGE: u8 = 1 << 3;
    const SURROGATE: u8 = 1 << 4;
    const OVERLONG_2: u8 = 1 << 5;
    const TOO_LARGE_1000: u8 = 1 << 6;
    const OVERLONG_4: u8 = 1 << 6;
    const TWO_CONTS: u8 = 1 << 7;
    const CARRY: u8 = TOO_SHORT | TOO_LONG | TWO_CONTS;

    /// By the high nibble of the byte before.
    const BYTE_1_HIGH: [u8; 16] = [
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TOO_LONG,
        TWO_CONTS,
        TWO_CONTS,
        TWO_CONTS,
        TWO_CONTS,
        TOO_SHORT | OVERLONG_2,
        TOO_SHORT,
        TOO_SHORT | OVERLONG_3 | SURROGATE,
        TOO_SHORT | TOO_LARGE | TOO_LARGE_1000 | OVERLONG_4,
    ];

    /// By the low nibble of the byte before.
    const BYTE_1_LOW: [u8; 16] = [
        CARRY | OVERLONG_3 | OVERLONG_2 | OVERLONG_4,
        CARRY | OVERLONG_2,
        CARRY,
        CARRY,
        CARRY | TOO_LARGE,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000 | SURROGATE,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
        CARRY | TOO_LARGE | TOO_LARGE_1000,
    ];

    /// By the high nibble of the byte itself.
    const BYTE_2_HIGH: [u8; 16] = [
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE_1000 | OVERLONG_4,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | OVERLONG_3 | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_LONG | OVERLONG_2 | TWO_CONTS | SURROGATE | TOO_LARGE,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
        TOO_SHORT,
    ];

    /// A table in each of the four 128-bit lanes, as the byte shuffle
    /// looks it up.
    #[inline(always)]
    fn table(t: [u8; 16]) -> __m512i {
        bytemuck::cast([t, t, t, t])
    }

    /// The 64 bytes of `bytes` from `at`.
    #[inline(always)]
    fn load(bytes: &[u8], at: usize) -> __m512i {
        let block: [u8; 64] = bytes[at..at + 64].try_into().unwrap_or([0; 64]);
        bytemuck::cast(block)
    }

    pub fn valid_counts(bytes: &[u8]) -> Option<(u64, u64)> {
        let simd = V4::try_new()?;
        simd.vectorize(Pass { simd, bytes })
    }

    /// The pass, as pulp runs it inside a function compiled for AVX-512.
    struct Pass<'a> {
        simd: V4,
        bytes: &'a [u8],
    }

    impl pulp::NullaryFnOnce for Pass<'_> {
        type Output = Option<(u64, u64)>;

        #[inline(always)]
        fn call(self) -> Self::Output {
            let Pass { simd, bytes } = self;
            let (f, bw) = (simd.avx512f, simd.avx512bw);
            let (t1h, t1l, t2h) = (table(BYTE_1_HIGH), table(BYTE_1_LOW), table(BYTE_2_HIGH));
            let nibble = f._mm512_set1_epi8(0x0f);
            let newline = f._mm512_set1_epi8(b'\n'.cast_signed());
            // Continuation bytes are 0x80..=0xBF, -128..=-65 as i8.
            let last_continuation = f._mm512_set1_epi8(-65);
            // 0xE0.. (a lead of three or four bytes) two back, 0xF0.. three
            // back: the byte must be a continuation byte.
            let third = f._mm512_set1_epi8((0xE0u8 - 0x80).cast_signed());
            let fourth = f._mm512_set1_epi8((0xF0u8 - 0x80).cast_signed());
            let high = f._mm512_set1_epi8(i8::MIN);
            let mut error = f._mm512_setzero_si512();
            let mut newlines = 0u64;
            let mut chars = 0u64;
            // The block at `$at` of `$b`, whose three bytes before are at
            // `$at - 3`; `$mask` has a bit for each of its bytes that counts.
            macro_rules! block {
                ($b:expr, $at:expr, $mask:expr) => {{
                    let (b, at, mask): (&[u8], usize, u64) = ($b, $at, $mask);
                    let input = load(b, at);
                    let prev1 = load(b, at - 1);
                    let nl = bw._mm512_cmpeq_epi8_mask(input, newline);
                    let leads = bw._mm512_cmpgt_epi8_mask(input, last_continuation);
                    newlines += u64::from((nl & mask).count_ones());
                    chars += u64::from((leads & mask).count_ones());
                    let byte_1_high = bw._mm512_shuffle_epi8(
                        t1h,
                        f._mm512_and_si512(bw._mm512_srli_epi16::<4>(prev1), nibble),
                    );
                    let byte_1_low = bw._mm512_shuffle_epi8(t1l, f._mm512_and_si512(prev1, nibble));
                    let byte_2_high = bw._mm512_shuffle_epi8(
                        t2h,
                        f._mm512_and_si512(bw._mm512_srli_epi16::<4>(input), nibble),
                    );
                    let special =
                        f._mm512_and_si512(f._mm512_and_si512(byte_1_high, byte_1_low), byte_2_high);
                    let must_continue = f._mm512_or_si512(
                        bw._mm512_subs_epu8(load(b, at - 2), third),
                        bw._mm512_subs_epu8(load(b, at - 3), fourth),
                    );
                    let must_continue = f._mm512_and_si512(must_continue, high);
                    error = f._mm512_or_si512(error, f._mm512_xor_si512(must_continue, special));
                }};
            }
            let n = bytes.len();
            let whole = n - n % 64;
            if whole > 0 {
                // Before the first block: nothing, read as ASCII.
                let mut first = [0u8; 67];
                first[3..].copy_from_slice(&bytes[..64]);
                block!(&first, 3, u64::MAX);
                let mut at = 64;
                // A group of blocks that is all ASCII, with the three bytes
                // before it, is valid and a character a byte: only its
                // newlines are counted. Groups of 512 bytes: multi-byte text
                // seldom has one, so the test is predicted (by blocks of 64,
                // mispredictions on the log lines of the benches made the
                // pass 3 times slower).
                while at + GROUP <= whole {
                    let mut any = load(bytes, at - 3);
                    let mut group_newlines = 0;
                    for k in 0..GROUP / 64 {
                        let input = load(bytes, at + 64 * k);
                        any = f._mm512_or_si512(any, input);
                        group_newlines += u64::from(bw._mm512_cmpeq_epi8_mask(input, newline).count_ones());
                    }
                    if bw._mm512_movepi8_mask(any) == 0 {
                        newlines += group_newlines;
                        chars += GROUP as u64;
                    } else {
                        for k in 0..GROUP / 64 {
                            block!(bytes, at + 64 * k, u64::MAX);
                        }
                    }
                    at += GROUP;
                }
                while at < whole {
                    block!(bytes, at, u64::MAX);
                    at += 64;
                }
            }
            // The rest, after the three bytes before it and followed by
            // zeros: a character cut at the end meets a byte that is not a
            // continuation byte, an error.
            let mut last = [0u8; 67];
            let before = whole.min(3);
            last[3 - before..3].copy_from_slice(&bytes[whole - before..whole]);
            last[3..3 + n - whole].copy_from_slice(&bytes[whole..]);
            block!(&last, 3, (1u64 << (n - whole)) - 1);
            (bw._mm512_test_epi8_mask(error, error) == 0).then_some((newlines, chars))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lossy(bytes: &[u8]) -> (u64, u64) {
        (bytecount::count(bytes, b'\n') as u64, String::from_utf8_lossy(bytes).chars().count() as u64)
    }

    /// What the pass must say of `bytes`: its counts when valid, nothing
    /// when not; and nothing at all on a CPU without AVX-512.
    fn check(bytes: &[u8]) {
        let got = valid_counts(bytes);
        if !has_avx512() {
            assert_eq!(got, None);
            return;
        }
        let want = std::str::from_utf8(bytes).is_ok().then(|| lossy(bytes));
        assert_eq!(got, want, "{bytes:?}");
    }

    fn has_avx512() -> bool {
        #[cfg(target_arch = "x86_64")]
        {
            pulp::x86::V4::try_new().is_some()
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            false
        }
    }

    #[test]
    fn agrees_with_std_on_every_two_and_three_byte_input() {
        let mut window = [0u8; 3];
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                check(&[a, b]);
                window[..2].copy_from_slice(&[a, b]);
                for c in [
                    0x00, b'\n', 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC2, 0xE0, 0xED, 0xF0,
                    0xF4, 0xF5, 0xFF,
                ] {
                    window[2] = c;
                    check(&window);
                }
            }
        }
    }

    #[test]
    fn agrees_with_std_at_every_block_edge() {
        // Every class of character and of error, at every offset around
        // the 64-byte blocks, the 512-byte groups of ASCII after the first
        // block and the end of the input.
        let inserts: &[&[u8]] = &[
            b"\n",
            "\u{e9}".as_bytes(),
            "\u{65e5}".as_bytes(),
            "\u{1f680}".as_bytes(),
            "\u{10ffff}".as_bytes(),
            b"\x80",
            b"\xc3",
            b"\xe6\x97",
            b"\xf0\x9f\x9a",
            b"\xc0\x80",
            b"\xe0\x80\x80",
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80",
            b"\xf8\x88\x80\x80\x80",
            b"\xc3\xa9\x80",
            b"\xff",
        ];
        for len in [0usize, 1, 2, 3, 4, 62, 63, 64, 65, 66, 67, 127, 128, 129, 200, 575, 576, 577, 1100, 1151]
        {
            let edges = [0, 64, 576, 1088, len];
            for at in (0..=len).filter(|&at| len <= 200 || edges.iter().any(|&e| at.abs_diff(e) <= 4)) {
                for insert in inserts {
                    let mut bytes = vec![b'a'; len];
                    bytes.splice(at..at, insert.iter().copied());
                    check(&bytes);
                    let mut wide: Vec<u8> = "\u{65e5}".repeat(len).into_bytes();
                    let at = at * 3;
                    wide.splice(at..at, insert.iter().copied());
                    check(&wide);
                }
            }
        }
    }
}
