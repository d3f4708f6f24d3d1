//! A byte ring that keeps the last bytes pushed into it.

/// Keeps the last `limit` bytes pushed. Its buffer grows with what it
/// holds, never past `limit`, so a huge limit on a small input costs only
/// what the input needs.
#[derive(Debug)]
pub struct Ring {
    buf: Vec<u8>,
    /// Index of the oldest byte in `buf`.
    head: usize,
    len: usize,
    limit: usize,
}

impl Ring {
    /// A ring that keeps at most `limit` bytes (`usize::MAX` for no limit).
    pub fn new(limit: usize) -> Ring {
        Ring { buf: Vec::new(), head: 0, len: 0, limit }
    }

    /// Appends `data`, dropping the oldest bytes beyond the limit.
    pub fn push(&mut self, data: &[u8]) {
        let data = &data[data.len().saturating_sub(self.limit)..];
        let keep = self.len.min(self.limit - data.len());
        self.drop_front(self.len - keep);
        let need = self.len + data.len();
        if need > self.buf.len() {
            self.grow(need);
        }
        let cap = self.buf.len();
        let tail = (self.head + self.len) % cap.max(1);
        let first = data.len().min(cap - tail);
        self.buf[tail..tail + first].copy_from_slice(&data[..first]);
        self.buf[..data.len() - first].copy_from_slice(&data[first..]);
        self.len += data.len();
    }

    /// Drops the `n` oldest bytes (all of them if `n` is larger).
    pub fn drop_front(&mut self, n: usize) {
        let n = n.min(self.len);
        self.len -= n;
        self.head = if self.len == 0 { 0 } else { (self.head + n) % self.buf.len() };
    }

    /// Drops the oldest bytes up to and including the `n`-th `\n` (all of
    /// them when it holds fewer).
    pub fn drop_lines(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        let (a, b) = self.as_slices();
        let mut left = n;
        let mut end = None;
        // Blocks are counted with the vectorised counter; only the one
        // that holds the last `\n` dropped is searched newline by newline.
        'parts: for (base, part) in [(0, a), (a.len(), b)] {
            for (k, block) in part.chunks(4096).enumerate() {
                let count = bytecount::count(block, b'\n');
                if count < left {
                    left -= count;
                    continue;
                }
                let i = memchr::memchr_iter(b'\n', block).nth(left - 1).unwrap_or(0);
                end = Some(base + k * 4096 + i + 1);
                break 'parts;
            }
        }
        self.drop_front(end.unwrap_or(self.len));
    }

    /// Empties the ring, keeping its buffer.
    pub fn clear(&mut self) {
        self.drop_front(self.len);
    }

    /// The bytes held, oldest first, as two slices.
    pub fn as_slices(&self) -> (&[u8], &[u8]) {
        let end = self.head + self.len;
        if end <= self.buf.len() {
            (&self.buf[self.head..end], &[])
        } else {
            (&self.buf[self.head..], &self.buf[..end - self.buf.len()])
        }
    }

    /// The bytes held, oldest first, as one slice.
    pub fn make_contiguous(&mut self) -> &[u8] {
        if self.head + self.len > self.buf.len() {
            self.buf.rotate_left(self.head);
            self.head = 0;
        }
        &self.buf[self.head..self.head + self.len]
    }

    /// Grows the buffer to hold at least `need` bytes: doubling, but never
    /// past the limit. The held bytes are moved to the front.
    fn grow(&mut self, need: usize) {
        let cap = need.max(self.buf.len().saturating_mul(2)).max(4096).min(self.limit);
        // Zeroed by the allocator: a large buffer comes as fresh pages that
        // take memory only once written, so the part that doubling adds
        // beyond what is held costs nothing until it is used.
        let mut buf = vec![0; cap];
        let (a, b) = self.as_slices();
        buf[..a.len()].copy_from_slice(a);
        buf[a.len()..a.len() + b.len()].copy_from_slice(b);
        self.buf = buf;
        self.head = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contents(ring: &Ring) -> Vec<u8> {
        let (a, b) = ring.as_slices();
        [a, b].concat()
    }

    #[test]
    fn keeps_the_last_bytes_across_wraps() {
        for limit in 1..12 {
            let mut ring = Ring::new(limit);
            let mut all = Vec::new();
            for (i, len) in [3, 0, 5, 1, 7, 2, 11, 4].into_iter().enumerate() {
                let piece: Vec<u8> = (0..len).map(|j| (i * 16 + j) as u8).collect();
                ring.push(&piece);
                all.extend_from_slice(&piece);
                let want = &all[all.len().saturating_sub(limit)..];
                assert_eq!(contents(&ring), want, "limit {limit} step {i}");
                assert!(ring.buf.len() <= limit);
            }
            assert_eq!(ring.make_contiguous(), &all[all.len().saturating_sub(limit)..]);
        }
    }

    #[test]
    fn drops_whole_lines_across_the_wrap() {
        for n in 0..6 {
            let mut ring = Ring::new(12);
            ring.push(b"0123456789");
            ring.drop_front(8);
            // Wraps: "89" at the end of the buffer, the rest at its start.
            ring.push(b"\na\nbc\nd\n");
            let mut want = b"89\na\nbc\nd\n".to_vec();
            for _ in 0..n {
                match want.iter().position(|&b| b == b'\n') {
                    Some(i) => drop(want.drain(..=i)),
                    None => want.clear(),
                }
            }
            ring.drop_lines(n);
            assert_eq!(contents(&ring), want, "{n}");
        }
    }

    #[test]
    fn a_huge_limit_allocates_only_what_arrives() {
        let mut ring = Ring::new(usize::MAX);
        ring.push(b"hello");
        assert!(ring.buf.len() <= 4096);
        assert_eq!(contents(&ring), b"hello");
    }
}
