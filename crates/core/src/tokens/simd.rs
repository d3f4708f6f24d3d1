//! The lanes with AVX-512 or AVX2, for the CPUs that have either (AVX2:
//! x86-64 since 2013): a block's classes in a few compares, its rare
//! pairs of letters by byte shuffles in place of 64 table lookups, and the
//! rest of the lanes compiled with `popcnt`, `tzcnt` and `lzcnt`, which
//! the bulk lane counts with. With AVX-512 a block is one register and
//! each class a compare into a mask (the plain count of ASCII text a
//! third faster than with AVX2).
//!
//! pulp's CPU-feature tokens make the intrinsics safe to call, and run
//! the lane inside a function compiled for the instruction set:
//! everything the lane calls is inlined into it.

// Out of pulp's function, each intrinsic would be a call that passes its
// vectors through memory.
#![allow(clippy::inline_always)]

use std::arch::x86_64::{__m256i, __m512i};

use pulp::bytemuck;
use pulp::x86::{V3, V4};

use super::estimator::{Estimator, Sink};
use super::fast::{BLOCK, Block, Classify};
use super::tables::COMMON_AFTER;

/// The classes with AVX2.
#[derive(Clone, Copy)]
pub(super) struct Avx2(V3);

/// Byte `h` of each row of [`COMMON_AFTER`]: the letters `8h..8h + 8`
/// that commonly follow each letter, for 32 rows (the six past `z` say
/// every letter is common, and are never read for a letter).
const fn row_bytes(h: usize) -> [u8; 32] {
    let mut t = [0xFF; 32];
    let mut row = 0;
    while row < 27 {
        t[row] = (COMMON_AFTER[row] >> (8 * h)) as u8;
        row += 1;
    }
    t
}

/// The four bytes of the rows of [`COMMON_AFTER`], each a table of 32.
static ROWS: [[u8; 32]; 4] = [row_bytes(0), row_bytes(1), row_bytes(2), row_bytes(3)];

/// A 16-byte table in both lanes of a register, as `vpshufb` reads it.
#[inline(always)]
fn table(half: &[u8]) -> __m256i {
    let mut t = [0u8; 32];
    t[..16].copy_from_slice(half);
    t[16..].copy_from_slice(half);
    bytemuck::cast(t)
}

impl Avx2 {
    /// The bits of a byte mask, a bit a byte.
    #[inline(always)]
    fn bits(self, v: __m256i) -> u64 {
        u64::from(self.0.avx2._mm256_movemask_epi8(v).cast_unsigned())
    }

    /// The bits of the bytes of a block that `test` finds.
    #[inline(always)]
    fn mask(self, v: [__m256i; 2], test: impl Fn(__m256i) -> __m256i) -> u64 {
        self.bits(test(v[0])) | self.bits(test(v[1])) << 32
    }

    /// The bytes of `v` in `lo..=hi` (both below 0x80: bytes that are not
    /// ASCII are below every ASCII byte as signed numbers).
    #[inline(always)]
    fn within(self, v: __m256i, lo: u8, hi: u8) -> __m256i {
        let (avx, avx2) = (self.0.avx, self.0.avx2);
        let above = avx2._mm256_cmpgt_epi8(v, avx._mm256_set1_epi8((lo - 1).cast_signed()));
        let below = avx2._mm256_cmpgt_epi8(avx._mm256_set1_epi8((hi + 1).cast_signed()), v);
        avx2._mm256_and_si256(above, below)
    }

    /// The bytes of `v` that are `byte`.
    #[inline(always)]
    fn is(self, v: __m256i, byte: u8) -> __m256i {
        self.0.avx2._mm256_cmpeq_epi8(v, self.0.avx._mm256_set1_epi8(byte.cast_signed()))
    }

    /// `v` one byte on (byte `j` of the result is byte `j - 1` of `v`),
    /// with the last byte of `before` first.
    #[inline(always)]
    fn shifted(self, v: __m256i, before: __m256i) -> __m256i {
        let avx2 = self.0.avx2;
        let across = avx2._mm256_permute2x128_si256::<0x21>(before, v);
        avx2._mm256_alignr_epi8::<15>(v, across)
    }

    /// The bytes of `v` whose pair with the byte before (`prev`) is two
    /// letters, as small letters a rare pair.
    #[inline(always)]
    fn rare(self, v: __m256i, prev: __m256i) -> __m256i {
        let (avx, avx2) = (self.0.avx, self.0.avx2);
        let small = avx._mm256_set1_epi8(0x20);
        let a = avx._mm256_set1_epi8(b'a'.cast_signed());
        let this = avx2._mm256_sub_epi8(avx2._mm256_or_si256(v, small), a);
        let before = avx2._mm256_sub_epi8(avx2._mm256_or_si256(prev, small), a);
        // Letters: 0..=25 after the subtraction, as unsigned bytes.
        let z = avx._mm256_set1_epi8(25);
        let letter = |x| avx2._mm256_cmpeq_epi8(avx2._mm256_min_epu8(x, z), x);
        let both = avx2._mm256_and_si256(letter(this), letter(before));
        // Byte `this / 8` of row `before`: the two halves of each table by
        // bit 4 of `prv`, then the four bytes by bits 3 and 4 of `this`
        // (each moved to the high bit that `vpblendvb` reads).
        let low4 = avx._mm256_set1_epi8(0x0F);
        let row_index = avx2._mm256_and_si256(before, low4);
        let row_high = avx2._mm256_slli_epi16::<3>(before);
        let row = |h: usize| {
            let lo = avx2._mm256_shuffle_epi8(table(&ROWS[h][..16]), row_index);
            let hi = avx2._mm256_shuffle_epi8(table(&ROWS[h][16..]), row_index);
            avx2._mm256_blendv_epi8(lo, hi, row_high)
        };
        let bit3 = avx2._mm256_slli_epi16::<4>(this);
        let bit4 = avx2._mm256_slli_epi16::<3>(this);
        let low = avx2._mm256_blendv_epi8(row(0), row(1), bit3);
        let high = avx2._mm256_blendv_epi8(row(2), row(3), bit3);
        let byte = avx2._mm256_blendv_epi8(low, high, bit4);
        // Bit `this % 8` of it.
        let bit = avx2._mm256_shuffle_epi8(
            table(&[1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128]),
            avx2._mm256_and_si256(this, low4),
        );
        let common = avx2._mm256_cmpeq_epi8(avx2._mm256_and_si256(byte, bit), bit);
        avx2._mm256_andnot_si256(common, both)
    }
}

impl Classify for Avx2 {
    #[inline(always)]
    fn block(self, bytes: &[u8; BLOCK]) -> Block {
        let avx = self.0.avx;
        let halves: [[u8; 32]; 2] = bytemuck::cast(*bytes);
        let v: [__m256i; 2] = [bytemuck::cast(halves[0]), bytemuck::cast(halves[1])];
        let lower = self.mask(v, |x| self.within(x, b'a', b'z'));
        let upper = self.mask(v, |x| self.within(x, b'A', b'Z'));
        let digit = self.mask(v, |x| self.within(x, b'0', b'9'));
        // `\t` to `\f` less `\n`, and U+0020.
        let lf = self.mask(v, |x| self.is(x, b'\n'));
        let plain = self.mask(v, |x| self.is(x, b' '));
        let space = self.mask(v, |x| self.within(x, b'\t', 0x0C)) & !lf | plain;
        let cr = self.mask(v, |x| self.is(x, b'\r'));
        let esc = self.mask(v, |x| self.is(x, 0x1B));
        let newline = lf | cr;
        let high = self.bits(v[0]) | self.bits(v[1]) << 32;
        let punct = !(lower | upper | digit | space | newline | high);
        let zero = avx._mm256_setzero_si256();
        let rare_lo = self.bits(self.rare(v[0], self.shifted(v[0], zero)));
        let rare_hi = self.bits(self.rare(v[1], self.shifted(v[1], v[0])));
        // Never bit 0: the byte before the block is not known here.
        let rare = (rare_lo | rare_hi << 32) & !1;
        Block { lower, upper, digit, space, newline, plain, punct, high, esc, cr, rare }
    }
}

/// The classes with AVX-512: a block is one register, and each class a
/// compare into a mask.
#[derive(Clone, Copy)]
pub(super) struct Avx512(V4);

/// A 16-byte table in the four lanes of a register.
#[inline(always)]
fn table512(half: &[u8]) -> __m512i {
    let mut t = [0u8; 64];
    for lane in t.chunks_exact_mut(16) {
        lane.copy_from_slice(half);
    }
    bytemuck::cast(t)
}

impl Classify for Avx512 {
    #[inline(always)]
    fn block(self, bytes: &[u8; BLOCK]) -> Block {
        let (f, bw) = (self.0.avx512f, self.0.avx512bw);
        let v: __m512i = bytemuck::cast(*bytes);
        let splat = |b: u8| f._mm512_set1_epi8(b.cast_signed());
        let from = |x: __m512i, lo: u8| bw._mm512_sub_epi8(x, splat(lo));
        let within = |lo: u8, hi: u8| bw._mm512_cmple_epu8_mask(from(v, lo), splat(hi - lo));
        let is = |b: u8| bw._mm512_cmpeq_epi8_mask(v, splat(b));
        let lower = within(b'a', b'z');
        let upper = within(b'A', b'Z');
        let digit = within(b'0', b'9');
        let lf = is(b'\n');
        let plain = is(b' ');
        // `\t` to `\f` less `\n`, and U+0020.
        let space = within(b'\t', 0x0C) & !lf | plain;
        let (cr, esc) = (is(b'\r'), is(0x1B));
        let newline = lf | cr;
        let high = bw._mm512_movepi8_mask(v);
        let punct = !(lower | upper | digit | space | newline | high);
        // The block one byte on: its four lanes one lane on (the first
        // zero), then each lane's bytes one on, with the last byte of the
        // lane before first.
        let lanes: __m512i = bytemuck::cast([0i64, 0, 0, 1, 2, 3, 4, 5]);
        let before = bw._mm512_alignr_epi8::<15>(v, f._mm512_maskz_permutexvar_epi64(0b1111_1100, lanes, v));
        // As in `Avx2::rare`: letters 0..=25, byte `this / 8` of row
        // `before` of the table, and its bit `this % 8`.
        let small = splat(0x20);
        let this = from(f._mm512_or_si512(v, small), b'a');
        let before = from(f._mm512_or_si512(before, small), b'a');
        let letter = |x| bw._mm512_cmple_epu8_mask(x, splat(25));
        let both = letter(this) & letter(before);
        let bit_of = |x, b: u8| bw._mm512_test_epi8_mask(x, splat(b));
        let row_high = bit_of(before, 16);
        let row = |h: usize| {
            let lo = bw._mm512_shuffle_epi8(table512(&ROWS[h][..16]), before);
            let hi = bw._mm512_shuffle_epi8(table512(&ROWS[h][16..]), before);
            bw._mm512_mask_blend_epi8(row_high, lo, hi)
        };
        let (bit3, bit4) = (bit_of(this, 8), bit_of(this, 16));
        let low = bw._mm512_mask_blend_epi8(bit3, row(0), row(1));
        let high_rows = bw._mm512_mask_blend_epi8(bit3, row(2), row(3));
        let byte = bw._mm512_mask_blend_epi8(bit4, low, high_rows);
        let bit = bw
            ._mm512_shuffle_epi8(table512(&[1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128]), this);
        let common = bw._mm512_test_epi8_mask(byte, bit);
        // Never bit 0: the byte before the block is not known here.
        let rare = both & !common & !1;
        Block { lower, upper, digit, space, newline, plain, punct, high, esc, cr, rare }
    }
}

impl Estimator {
    /// The fast lane with AVX-512 or AVX2, where the CPU has either.
    #[inline]
    pub(super) fn pieces_simd<S: Sink>(&mut self, bytes: &[u8], i: usize, sink: &mut S) -> Option<usize> {
        if let Some(simd) = V4::try_new() {
            return Some(simd.vectorize(Lane { estimator: self, bytes, i, sink, classify: Avx512(simd) }));
        }
        let simd = V3::try_new()?;
        Some(simd.vectorize(Lane { estimator: self, bytes, i, sink, classify: Avx2(simd) }))
    }
}

/// The lane, as pulp runs it inside a function compiled for the
/// instruction set of `classify`.
struct Lane<'a, S, C> {
    estimator: &'a mut Estimator,
    bytes: &'a [u8],
    i: usize,
    sink: &'a mut S,
    classify: C,
}

impl<S: Sink, C: Classify> pulp::NullaryFnOnce for Lane<'_, S, C> {
    type Output = usize;

    #[inline(always)]
    fn call(self) -> usize {
        let Lane { estimator, bytes, i, sink, classify } = self;
        estimator.lane(bytes, i, sink, classify)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::super::estimator::{Estimator, NoSink};
    use super::super::fast::{BLOCK, Block, Classify, Portable};
    use super::{Avx2, Avx512, V3, V4};

    fn same(a: &Block, b: &Block, what: &str) {
        let fields = |m: &Block| {
            [m.lower, m.upper, m.digit, m.space, m.newline, m.plain, m.punct, m.high, m.esc, m.cr, m.rare]
        };
        assert_eq!(fields(a), fields(b), "{what}");
    }

    /// Every pair of bytes, where the lanes of the registers meet (16, 32,
    /// 48) and inside them: the same classes and rare pairs as the portable lane.
    #[test]
    fn blocks_as_the_portable_lane_reads_them() {
        let Some(simd) = V3::try_new() else { return };
        let wide = V4::try_new();
        for a in 0..=255u8 {
            for b in 0..=255u8 {
                for at in [1, 16, 17, 32, 48, 63] {
                    let mut block = [b'x'; BLOCK];
                    block[at - 1] = a;
                    block[at] = b;
                    let what = format!("{a:#04x} {b:#04x} at {at}");
                    let portable = Portable.block(&block);
                    same(&Avx2(simd).block(&block), &portable, &what);
                    if let Some(wide) = wide {
                        same(&Avx512(wide).block(&block), &portable, &format!("{what} (AVX-512)"));
                    }
                }
            }
        }
    }

    /// A text of the lane's pieces and of what stops it.
    fn text() -> impl Strategy<Value = Vec<u8>> {
        let atom = prop_oneof![
            6 => "[ \t]?[a-zA-Z]{1,12}".prop_map(String::into_bytes),
            2 => "[0-9]{1,8}".prop_map(String::into_bytes),
            3 => "[ \t]{0,12}\n{0,5}[ \t]{0,12}".prop_map(String::into_bytes),
            3 => r#" ?[-+*/=(){};:,.!?'"_<>\[\]@#$%&|~^`\\]{1,12}\n{0,5}"#.prop_map(String::into_bytes),
            1 => "[a-z]{17,70}".prop_map(String::into_bytes),
            1 => "[\r\x1b\x00é中]".prop_map(String::into_bytes),
        ];
        prop::collection::vec(atom, 0..80).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]

        /// From a piece boundary, the lane with AVX2 reads as far as the
        /// portable one, to the same cost and boundaries; so does the
        /// plain count, which reads whole blocks at once.
        #[test]
        fn the_lane_as_the_portable_one(bytes in text()) {
            fn run<C: Classify>(bytes: &[u8], classify: C) -> (usize, u64, Vec<(u64, u64)>, usize, u64) {
                let (mut e, mut told) = (Estimator::default(), Vec::new());
                let to = e.lane(bytes, 0, &mut |at, cost| told.push((at, cost)), classify);
                let mut plain = Estimator::default();
                let plain_to = plain.lane(bytes, 0, &mut NoSink, classify);
                (to, e.committed, told, plain_to, plain.committed)
            }
            let portable = run(&bytes, Portable);
            if let Some(simd) = V3::try_new() {
                prop_assert_eq!(&run(&bytes, Avx2(simd)), &portable);
            }
            if let Some(simd) = V4::try_new() {
                prop_assert_eq!(&run(&bytes, Avx512(simd)), &portable);
            }
            // Where the plain count stops (which may be before or after
            // where the lane that tells boundaries does: each leaves the
            // rest to the general loop), the pieces before cost the same.
            let (_, _, told, plain_to, plain_cost) = portable;
            if let Some(&(_, cost)) = told.iter().rev().find(|&&(at, _)| at == plain_to as u64) {
                prop_assert_eq!(plain_cost, cost);
            }
        }
    }
}
