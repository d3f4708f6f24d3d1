//! Character boundaries in UTF-8 that may be invalid.
//!
//! A character is a Unicode scalar value; bytes that are not valid UTF-8
//! count as U+FFFD replacement characters under the "maximal subpart" rule
//! (the rule of `String::from_utf8_lossy`), so every character is 1–4 bytes
//! and a byte that is not a continuation byte always starts a character.

use crate::text::fused;

/// Whether `b` is a UTF-8 continuation byte (`10xxxxxx`).
#[inline]
pub fn is_continuation(b: u8) -> bool {
    b & 0xC0 == 0x80
}

/// The length a sequence led by `lead` would have, or 1 for a byte that
/// cannot lead a multi-byte sequence.
fn sequence_len(lead: u8) -> usize {
    match lead {
        0xC2..=0xDF => 2,
        0xE0..=0xEF => 3,
        0xF0..=0xF4 => 4,
        _ => 1,
    }
}

/// The bytes allowed second after `lead`: narrower than `80..=BF` where a
/// wider range would be overlong, a surrogate or past U+10FFFF.
fn second_byte_range(lead: u8) -> (u8, u8) {
    match lead {
        0xE0 => (0xA0, 0xBF),
        0xED => (0x80, 0x9F),
        0xF0 => (0x90, 0xBF),
        0xF4 => (0x80, 0x8F),
        _ => (0x80, 0xBF),
    }
}

/// The length of the character that starts at `bytes[0]`: a whole valid
/// character, or the maximal subpart that decodes to one U+FFFD. Never 0
/// for a non-empty slice; never more than `bytes.len()`.
pub fn char_len(bytes: &[u8]) -> usize {
    let Some(&lead) = bytes.first() else { return 0 };
    let want = sequence_len(lead);
    let (lo, hi) = second_byte_range(lead);
    let mut len = 1;
    while len < want && len < bytes.len() {
        let b = bytes[len];
        let ok = if len == 1 { (lo..=hi).contains(&b) } else { is_continuation(b) };
        if !ok {
            break;
        }
        len += 1;
    }
    len
}

/// How many bytes at the end of `bytes` are the valid start of a character
/// that the next read may complete (0–3). Holding them back lets every
/// piece of the stream begin and end on a character boundary.
pub fn incomplete_suffix(bytes: &[u8]) -> usize {
    for back in 1..=bytes.len().min(3) {
        let start = bytes.len() - back;
        let lead = bytes[start];
        if !is_continuation(lead) {
            let complete = sequence_len(lead) <= back;
            return if !complete && char_len(&bytes[start..]) == back { back } else { 0 };
        }
    }
    0
}

/// Counts the bytes that are not continuation bytes. On valid UTF-8 that
/// is the number of characters.
#[inline]
pub fn count_leads(bytes: &[u8]) -> u64 {
    bytecount::num_chars(bytes) as u64
}

/// Counts the characters of `bytes`, which begins on a character boundary.
/// Valid UTF-8, the common case, is validated and counted with SIMD; the
/// rest decodes chunk by chunk.
pub fn count_chars(bytes: &[u8]) -> u64 {
    if simdutf8::basic::from_utf8(bytes).is_ok() {
        return count_leads(bytes);
    }
    count_chars_decoding(bytes)
}

/// [`count_chars`] of UTF-8 that is not valid.
fn count_chars_decoding(bytes: &[u8]) -> u64 {
    bytes
        .utf8_chunks()
        .map(|chunk| count_leads(chunk.valid().as_bytes()) + u64::from(!chunk.invalid().is_empty()))
        .sum()
}

/// The length of a start of `bytes` that is all ASCII: all of it when it
/// is, else at least up to the 128-byte block that holds the first byte
/// that is not. Blocks are tested whole, eight bytes to a word, a test
/// the compiler vectorises.
fn ascii_prefix(bytes: &[u8]) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let (blocks, tail) = bytes.as_chunks::<128>();
    for (i, block) in blocks.iter().enumerate() {
        let words = block.as_chunks::<8>().0;
        if words.iter().fold(0, |acc, w| acc | u64::from_ne_bytes(*w)) & HIGH != 0 {
            return i * 128;
        }
    }
    let done = bytes.len() - tail.len();
    done + tail.iter().take_while(|b| b.is_ascii()).count()
}

/// The `\n` bytes of `bytes`, and whether any byte is not ASCII, in one
/// pass that the compiler vectorises: byte lanes count up to 255 blocks,
/// then are summed, and the high bits are gathered by OR.
fn newlines_and_high_bit(bytes: &[u8]) -> (u64, bool) {
    const LANES: usize = 32;
    let (blocks, tail) = bytes.as_chunks::<LANES>();
    let mut newlines = 0u64;
    let mut high = [0u8; LANES];
    for group in blocks.chunks(255) {
        let mut nl = [0u8; LANES];
        for block in group {
            for i in 0..LANES {
                nl[i] += u8::from(block[i] == b'\n');
                high[i] |= block[i];
            }
        }
        newlines += nl.iter().map(|&n| u64::from(n)).sum::<u64>();
    }
    let mut any = high.iter().fold(0, |acc, &b| acc | b);
    for &b in tail {
        newlines += u64::from(b == b'\n');
        any |= b;
    }
    (newlines, !any.is_ascii())
}

/// The `\n` bytes and the characters of `bytes`, which begins on a
/// character boundary, in as few passes as the text allows. Valid UTF-8
/// on a CPU with AVX-512 or AVX2 takes one fused pass
/// ([`fused::valid_counts`]). Elsewhere, or when that pass finds invalid
/// bytes, ASCII blocks
/// of 4 KiB are one character a byte: one pass counts their newlines and
/// finds whether they are ASCII. From the first block that is not, the
/// rest is validated (with SIMD) and, when valid, its newlines and its
/// characters (its bytes that are not continuation bytes) are counted by
/// the vectorised counters.
pub fn count_newlines_and_chars(bytes: &[u8]) -> (u64, u64) {
    const BLOCK: usize = 4096;
    if let Some(counts) = fused::valid_counts(bytes) {
        return counts;
    }
    let mut newlines = 0;
    let mut ascii = 0;
    for block in bytes.chunks(BLOCK) {
        let (nl, high) = newlines_and_high_bit(block);
        if high {
            break;
        }
        newlines += nl;
        ascii += block.len();
    }
    let rest = &bytes[ascii..];
    if rest.is_empty() {
        return (newlines, ascii as u64);
    }
    newlines += bytecount::count(rest, b'\n') as u64;
    if simdutf8::basic::from_utf8(rest).is_ok() {
        return (newlines, ascii as u64 + count_leads(rest));
    }
    (newlines, ascii as u64 + count_chars_decoding(rest))
}

/// The characters of `bytes`, which begins on a character boundary, as
/// [`count_newlines_and_chars`] counts them, without the newlines.
pub fn count_chars_fast(bytes: &[u8]) -> u64 {
    if let Some((_, chars)) = fused::valid_counts(bytes) {
        return chars;
    }
    let ascii = ascii_prefix(bytes);
    let rest = &bytes[ascii..];
    if rest.is_empty() {
        return ascii as u64;
    }
    ascii as u64 + count_chars(rest)
}

/// The byte offset just past the first `n` characters of `bytes` (which
/// begins on a character boundary), and how many characters that is: `n`,
/// or fewer when `bytes` holds fewer.
pub fn advance_chars(bytes: &[u8], n: u64) -> (usize, u64) {
    // A piece with no more bytes than `n` has no more characters.
    if bytes.len() as u64 <= n {
        return (bytes.len(), count_chars(bytes));
    }
    let mut offset = 0;
    let mut counted = 0;
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid().as_bytes();
        let left = n - counted;
        // In valid UTF-8 the (left+1)-th lead byte is where `left` chars end.
        if let Some((pos, _)) = valid
            .iter()
            .enumerate()
            .filter(|&(_, &b)| !is_continuation(b))
            .nth(usize::try_from(left).unwrap_or(usize::MAX))
        {
            return (offset + pos, n);
        }
        counted += count_leads(valid);
        offset += valid.len();
        let invalid = chunk.invalid().len();
        if invalid > 0 {
            if counted == n {
                return (offset, n);
            }
            counted += 1;
            offset += invalid;
        }
    }
    (offset, counted)
}

/// The start of the character that ends at `end`, which must be a
/// character boundary greater than 0. Looks back at most four bytes, so it
/// works on a window whose first bytes may be the tail of a character.
pub fn char_start_before(bytes: &[u8], end: usize) -> usize {
    let floor = end.saturating_sub(4);
    let mut p = end - 1;
    loop {
        if !is_continuation(bytes[p]) {
            // A lead always starts a unit; the bytes after its maximal
            // subpart are lone continuation bytes, one character each.
            return if char_len(&bytes[p..end]) == end - p { p } else { end - 1 };
        }
        if p == floor {
            return end - 1;
        }
        p -= 1;
    }
}

/// The last character boundary at or before `at` in `bytes`, which begins
/// on a boundary and holds the bytes after `at` that the character around
/// it may take (three are enough).
pub fn floor_boundary(bytes: &[u8], at: usize) -> usize {
    if at >= bytes.len() {
        return bytes.len();
    }
    if !is_continuation(bytes[at]) {
        return at;
    }
    // A continuation byte belongs to the character of a lead at most three
    // bytes before it when that lead's maximal subpart reaches it; else it
    // is a character of its own.
    for back in 1..=at.min(3) {
        let p = at - back;
        if !is_continuation(bytes[p]) {
            return if p + char_len(&bytes[p..]) > at { p } else { at };
        }
    }
    at
}

/// The byte offset where the last `n` characters of `bytes` start, and how
/// many characters that is (`n`, or fewer when `bytes` holds fewer). `bytes`
/// must end on a character boundary; its first four bytes need not start
/// one unless the result reaches them.
pub fn last_chars_start(bytes: &[u8], n: u64) -> (usize, u64) {
    let mut start = bytes.len();
    let mut counted = 0;
    while counted < n && start > 0 {
        start = char_start_before(bytes, start);
        counted += 1;
    }
    (start, counted)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lossy_chars(bytes: &[u8]) -> u64 {
        String::from_utf8_lossy(bytes).chars().count() as u64
    }

    const CASES: &[&[u8]] = &[
        b"",
        b"abc",
        "h\u{e9}llo \u{20ac} \u{1f600}".as_bytes(),
        b"\x80",
        b"\xc0\x80",
        b"\xe2\x82",
        b"\xe2\x82A",
        b"\xe2\x82\xac\x80",
        b"\xed\xa0\x80",
        b"\xf0\x80\x80",
        b"\xf4\x90\x80\x80",
        b"\xf0\x9f\x98",
        b"a\xff\xfeb",
        b"\xc3\xa9\x80\x80\xc3",
    ];

    #[test]
    fn counts_agree_with_from_utf8_lossy() {
        for case in CASES {
            assert_eq!(count_chars(case), lossy_chars(case), "{case:?}");
        }
    }

    #[test]
    fn fused_counts_agree_with_from_utf8_lossy_at_every_block_edge() {
        // Pieces of every length around the 32- and 128-byte blocks, the
        // 255-block groups and the 4 KiB blocks, with the first byte that
        // is not ASCII, a newline and an invalid byte at every place.
        let mut pieces: Vec<Vec<u8>> = CASES.iter().map(|c| c.to_vec()).collect();
        for len in [
            0usize,
            1,
            31,
            32,
            33,
            63,
            64,
            65,
            127,
            128,
            129,
            255,
            256,
            257,
            255 * 32 - 1,
            255 * 32,
            255 * 32 + 33,
            4095,
            4096,
            4097,
            8191,
            8192,
            8193,
        ] {
            for at in [0, 1, 31, 32, 63, 64, 127, 128, 129, 4095, 4096, 4097, len / 2, len.saturating_sub(1)]
            {
                for insert in [&b"\n"[..], "\u{e9}".as_bytes(), "\u{65e5}".as_bytes(), b"\xff", b"\xe2\x82"] {
                    let mut piece = vec![b'a'; len];
                    let at = at.min(len);
                    piece.splice(at..at, insert.iter().copied());
                    piece.extend_from_slice(b"\n\xc3\xa9z");
                    pieces.push(piece);
                }
            }
        }
        for piece in &pieces {
            let want = (bytecount::count(piece, b'\n') as u64, lossy_chars(piece));
            assert_eq!(count_newlines_and_chars(piece), want, "{piece:?}");
            assert_eq!(count_chars_fast(piece), want.1, "{piece:?}");
        }
    }

    #[test]
    fn backward_and_forward_steps_agree() {
        for case in CASES {
            let total = count_chars(case);
            for n in 0..=total + 1 {
                let (end, got) = advance_chars(case, n);
                assert_eq!(got, n.min(total), "{case:?} {n}");
                assert_eq!(count_chars(&case[..end]), got, "{case:?} {n}");
                let (start, got) = last_chars_start(case, n);
                assert_eq!(got, n.min(total), "{case:?} {n}");
                assert_eq!(count_chars(&case[start..]), got, "{case:?} {n}");
                assert_eq!(count_chars(&case[..start]) + got, total, "{case:?} {n}");
            }
        }
    }

    #[test]
    fn floor_boundaries_agree_with_from_utf8_lossy() {
        for case in CASES {
            let mut ends = vec![0];
            for chunk in case.utf8_chunks() {
                let base = ends[ends.len() - 1];
                let mut pos = base;
                for c in chunk.valid().chars() {
                    pos += c.len_utf8();
                    ends.push(pos);
                }
                if !chunk.invalid().is_empty() {
                    ends.push(pos + chunk.invalid().len());
                }
            }
            for at in 0..=case.len() {
                let want = ends.iter().copied().filter(|&e| e <= at).max().unwrap_or(0);
                assert_eq!(floor_boundary(case, at), want, "{case:?} {at}");
            }
        }
    }

    #[test]
    fn holds_back_only_valid_incomplete_starts() {
        assert_eq!(incomplete_suffix(b"ab\xe2\x82"), 2);
        assert_eq!(incomplete_suffix(b"ab\xf0\x9f\x98"), 3);
        assert_eq!(incomplete_suffix(b"\xc3"), 1);
        assert_eq!(incomplete_suffix(b"\xc3\xa9"), 0);
        assert_eq!(incomplete_suffix(b"\xe0\x80"), 0);
        assert_eq!(incomplete_suffix(b"\x80\x80\x80"), 0);
        assert_eq!(incomplete_suffix(b"\xff"), 0);
    }
}
