//! UTF-8 validated and its newlines and characters counted in one pass,
//! 64 bytes at a time, with AVX-512 or AVX2 (chosen at run time).
//!
//! The portable way is three passes: simdutf8's validation (AVX2 at
//! best), then bytecount's newline and character counts. On multi-byte
//! text the validation alone cost more than reading the input; this pass
//! does all three in the registers that hold each block: with AVX-512
//! four times as fast, with AVX2 1.2 (CJK) to 4 times (source code). pulp's
//! CPU-feature tokens make the run-time dispatch and the intrinsics safe
//! to call, which `#![forbid(unsafe_code)]` requires.
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
/// otherwise (invalid bytes, a character cut at the end, or neither
/// AVX-512 nor AVX2),
/// when the caller counts the portable way.
pub fn valid_counts(bytes: &[u8]) -> Option<(u64, u64)> {
    #[cfg(target_arch = "x86_64")]
    {
        x86::valid_counts(bytes)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = bytes;
        None
    }
}

// Everything the pass calls must be inlined into pulp's function that is
// compiled for the instruction set: out of it, each intrinsic is a call that passes its
// vectors through memory (the pass was 250 times slower).
#[cfg(target_arch = "x86_64")]
#[allow(clippy::inline_always)]
mod x86 {
    use std::arch::x86_64::{__m256i, __m512i};

    use pulp::bytemuck;
    use pulp::x86::{V3, V4};

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

    /// The table in each of the four 128-bit lanes, as the byte shuffle
    /// looks it up.
    #[inline(always)]
    fn table512(t: [u8; 16]) -> __m512i {
        bytemuck::cast([t, t, t, t])
    }

    /// The table in each of the two 128-bit lanes.
    #[inline(always)]
    fn table256(t: [u8; 16]) -> __m256i {
        bytemuck::cast([t, t])
    }

    /// The operations of the pass on blocks of 64 bytes, in the registers
    /// of one instruction set.
    trait Lanes: Copy {
        /// A block.
        type V: Copy;
        /// The block of `bytes` at `at`.
        fn load(self, bytes: &[u8], at: usize) -> Self::V;
        fn or(self, a: Self::V, b: Self::V) -> Self::V;
        /// Nothing in any byte.
        fn zero(self) -> Self::V;
        fn is_zero(self, v: Self::V) -> bool;
        /// A bit for each byte that is not ASCII.
        fn high_bits(self, v: Self::V) -> u64;
        /// A bit for each `\n`.
        fn newlines(self, v: Self::V) -> u64;
        /// A bit for each byte that is not a continuation byte.
        fn leads(self, v: Self::V) -> u64;
        /// Nonzero in a byte that breaks UTF-8, given the bytes one, two
        /// and three before each byte.
        fn errors(self, input: Self::V, prev1: Self::V, prev2: Self::V, prev3: Self::V) -> Self::V;
    }

    /// AVX-512: a block is one register.
    #[derive(Clone, Copy)]
    struct Avx512(V4);

    impl Lanes for Avx512 {
        type V = __m512i;

        #[inline(always)]
        fn load(self, bytes: &[u8], at: usize) -> __m512i {
            let block: [u8; 64] = bytes[at..at + 64].try_into().unwrap_or([0; 64]);
            bytemuck::cast(block)
        }

        #[inline(always)]
        fn or(self, a: __m512i, b: __m512i) -> __m512i {
            self.0.avx512f._mm512_or_si512(a, b)
        }

        #[inline(always)]
        fn zero(self) -> __m512i {
            self.0.avx512f._mm512_setzero_si512()
        }

        #[inline(always)]
        fn is_zero(self, v: __m512i) -> bool {
            self.0.avx512bw._mm512_test_epi8_mask(v, v) == 0
        }

        #[inline(always)]
        fn high_bits(self, v: __m512i) -> u64 {
            self.0.avx512bw._mm512_movepi8_mask(v)
        }

        #[inline(always)]
        fn newlines(self, v: __m512i) -> u64 {
            let (f, bw) = (self.0.avx512f, self.0.avx512bw);
            bw._mm512_cmpeq_epi8_mask(v, f._mm512_set1_epi8(b'\n'.cast_signed()))
        }

        #[inline(always)]
        fn leads(self, v: __m512i) -> u64 {
            let (f, bw) = (self.0.avx512f, self.0.avx512bw);
            // Continuation bytes are 0x80..=0xBF, -128..=-65 as i8.
            bw._mm512_cmpgt_epi8_mask(v, f._mm512_set1_epi8(-65))
        }

        #[inline(always)]
        fn errors(self, input: __m512i, prev1: __m512i, prev2: __m512i, prev3: __m512i) -> __m512i {
            let (f, bw) = (self.0.avx512f, self.0.avx512bw);
            let nibble = f._mm512_set1_epi8(0x0F);
            let high_nibble = |v| f._mm512_and_si512(bw._mm512_srli_epi16::<4>(v), nibble);
            let byte_1_high = bw._mm512_shuffle_epi8(table512(BYTE_1_HIGH), high_nibble(prev1));
            let byte_1_low = bw._mm512_shuffle_epi8(table512(BYTE_1_LOW), f._mm512_and_si512(prev1, nibble));
            let byte_2_high = bw._mm512_shuffle_epi8(table512(BYTE_2_HIGH), high_nibble(input));
            let special = f._mm512_and_si512(f._mm512_and_si512(byte_1_high, byte_1_low), byte_2_high);
            // A lead of three or four bytes (0xE0..) two back, of four
            // (0xF0..) three back: the byte must be a continuation byte.
            let must_continue = f._mm512_or_si512(
                bw._mm512_subs_epu8(prev2, f._mm512_set1_epi8((0xE0u8 - 0x80).cast_signed())),
                bw._mm512_subs_epu8(prev3, f._mm512_set1_epi8((0xF0u8 - 0x80).cast_signed())),
            );
            let must_continue = f._mm512_and_si512(must_continue, f._mm512_set1_epi8(i8::MIN));
            f._mm512_xor_si512(must_continue, special)
        }
    }

    /// AVX2: a block is two registers.
    #[derive(Clone, Copy)]
    struct Avx2(V3);

    impl Avx2 {
        /// The mask of a byte comparison, a bit a byte, of the two halves.
        #[inline(always)]
        fn bits(self, lo: __m256i, hi: __m256i) -> u64 {
            let avx2 = self.0.avx2;
            let half = |v| u64::from(avx2._mm256_movemask_epi8(v).cast_unsigned());
            half(lo) | half(hi) << 32
        }

        #[inline(always)]
        fn half_errors(self, input: __m256i, prev1: __m256i, prev2: __m256i, prev3: __m256i) -> __m256i {
            let (avx, avx2) = (self.0.avx, self.0.avx2);
            let nibble = avx._mm256_set1_epi8(0x0F);
            let high_nibble = |v| avx2._mm256_and_si256(avx2._mm256_srli_epi16::<4>(v), nibble);
            let byte_1_high = avx2._mm256_shuffle_epi8(table256(BYTE_1_HIGH), high_nibble(prev1));
            let byte_1_low =
                avx2._mm256_shuffle_epi8(table256(BYTE_1_LOW), avx2._mm256_and_si256(prev1, nibble));
            let byte_2_high = avx2._mm256_shuffle_epi8(table256(BYTE_2_HIGH), high_nibble(input));
            let special = avx2._mm256_and_si256(avx2._mm256_and_si256(byte_1_high, byte_1_low), byte_2_high);
            let must_continue = avx2._mm256_or_si256(
                avx2._mm256_subs_epu8(prev2, avx._mm256_set1_epi8((0xE0u8 - 0x80).cast_signed())),
                avx2._mm256_subs_epu8(prev3, avx._mm256_set1_epi8((0xF0u8 - 0x80).cast_signed())),
            );
            let must_continue = avx2._mm256_and_si256(must_continue, avx._mm256_set1_epi8(i8::MIN));
            avx2._mm256_xor_si256(must_continue, special)
        }
    }

    impl Lanes for Avx2 {
        type V = [__m256i; 2];

        #[inline(always)]
        fn load(self, bytes: &[u8], at: usize) -> [__m256i; 2] {
            let block: [[u8; 32]; 2] =
                bytemuck::cast(<[u8; 64]>::try_from(&bytes[at..at + 64]).unwrap_or([0; 64]));
            [bytemuck::cast(block[0]), bytemuck::cast(block[1])]
        }

        #[inline(always)]
        fn or(self, a: [__m256i; 2], b: [__m256i; 2]) -> [__m256i; 2] {
            let avx2 = self.0.avx2;
            [avx2._mm256_or_si256(a[0], b[0]), avx2._mm256_or_si256(a[1], b[1])]
        }

        #[inline(always)]
        fn zero(self) -> [__m256i; 2] {
            [self.0.avx._mm256_setzero_si256(); 2]
        }

        #[inline(always)]
        fn is_zero(self, v: [__m256i; 2]) -> bool {
            let v = self.or([v[0], v[1]], [v[1], v[0]]);
            self.0.avx._mm256_testz_si256(v[0], v[0]) == 1
        }

        #[inline(always)]
        fn high_bits(self, v: [__m256i; 2]) -> u64 {
            self.bits(v[0], v[1])
        }

        #[inline(always)]
        fn newlines(self, v: [__m256i; 2]) -> u64 {
            let (avx, avx2) = (self.0.avx, self.0.avx2);
            let newline = avx._mm256_set1_epi8(b'\n'.cast_signed());
            self.bits(avx2._mm256_cmpeq_epi8(v[0], newline), avx2._mm256_cmpeq_epi8(v[1], newline))
        }

        #[inline(always)]
        fn leads(self, v: [__m256i; 2]) -> u64 {
            let (avx, avx2) = (self.0.avx, self.0.avx2);
            let last_continuation = avx._mm256_set1_epi8(-65);
            self.bits(
                avx2._mm256_cmpgt_epi8(v[0], last_continuation),
                avx2._mm256_cmpgt_epi8(v[1], last_continuation),
            )
        }

        #[inline(always)]
        fn errors(
            self,
            input: [__m256i; 2],
            prev1: [__m256i; 2],
            prev2: [__m256i; 2],
            prev3: [__m256i; 2],
        ) -> [__m256i; 2] {
            [
                self.half_errors(input[0], prev1[0], prev2[0], prev3[0]),
                self.half_errors(input[1], prev1[1], prev2[1], prev3[1]),
            ]
        }
    }

    pub fn valid_counts(bytes: &[u8]) -> Option<(u64, u64)> {
        if let Some(simd) = V4::try_new() {
            return with_avx512(simd, bytes);
        }
        with_avx2(V3::try_new()?, bytes)
    }

    /// The pass with AVX-512.
    pub(super) fn with_avx512(simd: V4, bytes: &[u8]) -> Option<(u64, u64)> {
        simd.vectorize(Pass { lanes: Avx512(simd), bytes })
    }

    /// The pass with AVX2.
    pub(super) fn with_avx2(simd: V3, bytes: &[u8]) -> Option<(u64, u64)> {
        simd.vectorize(Pass { lanes: Avx2(simd), bytes })
    }

    /// The pass, as pulp runs it inside a function compiled for the
    /// instruction set of `lanes`.
    struct Pass<'a, L> {
        lanes: L,
        bytes: &'a [u8],
    }

    impl<L: Lanes> pulp::NullaryFnOnce for Pass<'_, L> {
        type Output = Option<(u64, u64)>;

        #[inline(always)]
        fn call(self) -> Self::Output {
            let Pass { lanes: l, bytes } = self;
            let mut error = l.zero();
            let mut newlines = 0u64;
            let mut chars = 0u64;
            // The block at `$at` of `$b`, whose three bytes before are at
            // `$at - 3`; `$mask` has a bit for each of its bytes that counts.
            macro_rules! block {
                ($b:expr, $at:expr, $mask:expr) => {{
                    let (b, at, mask): (&[u8], usize, u64) = ($b, $at, $mask);
                    let input = l.load(b, at);
                    newlines += u64::from((l.newlines(input) & mask).count_ones());
                    chars += u64::from((l.leads(input) & mask).count_ones());
                    let errors = l.errors(input, l.load(b, at - 1), l.load(b, at - 2), l.load(b, at - 3));
                    error = l.or(error, errors);
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
                    let mut any = l.load(bytes, at - 3);
                    let mut group_newlines = 0;
                    for k in 0..GROUP / 64 {
                        let input = l.load(bytes, at + 64 * k);
                        any = l.or(any, input);
                        group_newlines += u64::from(l.newlines(input).count_ones());
                    }
                    if l.high_bits(any) == 0 {
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
            l.is_zero(error).then_some((newlines, chars))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::Strategy;

    fn lossy(bytes: &[u8]) -> (u64, u64) {
        (bytecount::count(bytes, b'\n') as u64, String::from_utf8_lossy(bytes).chars().count() as u64)
    }

    /// What the pass must say of `bytes`: its counts when valid, nothing
    /// when not; with each instruction set this CPU has, and nothing at
    /// all where there is none.
    fn check(bytes: &[u8]) {
        let want = std::str::from_utf8(bytes).is_ok().then(|| lossy(bytes));
        #[cfg(target_arch = "x86_64")]
        {
            use pulp::x86::{V3, V4};
            if let Some(simd) = V4::try_new() {
                assert_eq!(x86::with_avx512(simd, bytes), want, "AVX-512 {bytes:?}");
            }
            if let Some(simd) = V3::try_new() {
                assert_eq!(x86::with_avx2(simd, bytes), want, "AVX2 {bytes:?}");
            } else {
                assert_eq!(valid_counts(bytes), None);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        assert_eq!(valid_counts(bytes), None);
        let _ = want;
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

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Any mix of characters of every length, stray continuation and
        /// lead bytes, surrogates and overlong forms, long enough to span
        /// blocks and groups.
        #[test]
        fn agrees_with_std_on_mixes_of_characters_and_errors(
            pieces in proptest::collection::vec(proptest::prop_oneof![
                8 => proptest::collection::vec(b' '..=b'~', 1..80),
                2 => proptest::prelude::Just(b"\n".to_vec()),
                2 => proptest::char::any().prop_map(|c| c.to_string().into_bytes()),
                1 => proptest::collection::vec(0x80u8..=0xFF, 1..4),
                1 => proptest::prelude::Just(b"\xed\xa0\x80".to_vec()),
                1 => proptest::prelude::Just(b"\xe0\x80\x80".to_vec()),
            ], 0..60),
        ) {
            check(&pieces.concat());
        }
    }
}
