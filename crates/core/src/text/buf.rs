//! Byte buffers that start on a page boundary.
//!
//! A copy whose destination sits a few bytes off its source within a
//! page, or a `read(2)` into a buffer that starts a few bytes into one,
//! runs several times slower on some CPUs than the same copy between
//! aligned buffers; the allocator places a large `Vec` 16 bytes into a
//! page. These buffers allocate a page more and start at the first page
//! boundary inside, so the read buffer and the buffers the transforms
//! write into share their offset within a page.

/// The alignment: one page.
pub const PAGE: usize = 4096;

/// A growable byte buffer whose first byte sits on a page boundary. It
/// offers the few `Vec` operations the engine uses.
#[derive(Debug, Default)]
pub struct PageBuf {
    /// The allocation, zeroed: `start` bytes up to the boundary, then the
    /// capacity.
    bytes: Vec<u8>,
    /// Where the aligned part starts in `bytes`.
    start: usize,
    /// Bytes in use, from `start`.
    len: usize,
}

impl PageBuf {
    /// An empty buffer with room for `capacity` bytes.
    pub fn with_capacity(capacity: usize) -> Self {
        let mut buf = PageBuf::default();
        buf.reserve(capacity);
        buf
    }

    /// A buffer of `len` zero bytes, for reads to fill.
    pub fn zeroed(len: usize) -> Self {
        let mut buf = PageBuf::with_capacity(len);
        buf.len = len;
        buf
    }

    /// The bytes in use.
    pub fn as_slice(&self) -> &[u8] {
        &self.bytes[self.start..self.start + self.len]
    }

    /// The bytes in use, to write into.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        &mut self.bytes[self.start..self.start + self.len]
    }

    /// Bytes in use.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Bytes it holds without growing.
    pub fn capacity(&self) -> usize {
        self.bytes.len() - self.start
    }

    /// Empties the buffer, keeping its allocation.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// Appends `data`.
    #[inline]
    pub fn extend_from_slice(&mut self, data: &[u8]) {
        self.reserve(data.len());
        let at = self.start + self.len;
        self.bytes[at..at + data.len()].copy_from_slice(data);
        self.len += data.len();
    }

    /// Appends one byte.
    #[inline]
    pub fn push(&mut self, b: u8) {
        self.extend_from_slice(&[b]);
    }

    /// Moves all of `other` to the end, leaving it empty.
    pub fn append(&mut self, other: &mut Vec<u8>) {
        self.extend_from_slice(other);
        other.clear();
    }

    /// Removes the first `n` bytes (all, when there are fewer); what
    /// follows moves to the front.
    pub fn drain_front(&mut self, n: usize) {
        let n = n.min(self.len);
        let from = self.start + n;
        self.bytes.copy_within(from..self.start + self.len, self.start);
        self.len -= n;
    }

    /// Makes room for `more` bytes beyond those in use.
    #[inline]
    fn reserve(&mut self, more: usize) {
        if more > self.capacity() - self.len {
            self.grow(more);
        }
    }

    /// Makes room for `more` bytes beyond those in use, growing to just
    /// that when it must grow: for a buffer whose largest need is known,
    /// so that it never holds twice that.
    #[inline]
    pub fn reserve_exact(&mut self, more: usize) {
        if more > self.capacity() - self.len {
            let need = self.len.checked_add(more).expect("buffer size overflows usize");
            self.grow_to(need);
        }
    }

    /// A new allocation, aligned again, of at least twice the capacity,
    /// with room for `more` bytes beyond those in use.
    #[cold]
    fn grow(&mut self, more: usize) {
        let need = self.len.checked_add(more).expect("buffer size overflows usize");
        self.grow_to(need.max(self.capacity().saturating_mul(2)));
    }

    /// A new allocation, aligned again, of `capacity` bytes.
    #[cold]
    fn grow_to(&mut self, capacity: usize) {
        let bytes = vec![0; capacity + PAGE];
        let start = (PAGE - bytes.as_ptr().addr() % PAGE) % PAGE;
        let mut grown = PageBuf { bytes, start, len: self.len };
        grown.as_mut_slice().copy_from_slice(self.as_slice());
        *self = grown;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn aligned(buf: &PageBuf) -> bool {
        buf.as_slice().as_ptr().addr().is_multiple_of(PAGE)
    }

    #[test]
    fn starts_on_a_page_boundary_at_every_size() {
        for len in [0, 1, 15, 16, 17, 4095, 4096, 4097, 65536, 128 * 1024, 256 * 1024 + 3] {
            let buf = PageBuf::zeroed(len);
            assert_eq!(buf.len(), len);
            assert!(buf.as_slice().iter().all(|&b| b == 0));
            // An empty buffer has nothing to align.
            assert!(len == 0 || aligned(&buf), "{len}");
        }
    }

    #[test]
    fn stays_aligned_and_whole_as_it_grows_and_drains() {
        let mut buf = PageBuf::with_capacity(3);
        let mut want = Vec::new();
        for i in 0..5000u32 {
            let piece: Vec<u8> = (0..i % 11).map(|j| (i + j) as u8).collect();
            buf.extend_from_slice(&piece);
            want.extend_from_slice(&piece);
            if i % 7 == 0 {
                buf.push(i as u8);
                want.push(i as u8);
            }
            if i % 13 == 0 {
                let n = (i % 17) as usize;
                buf.drain_front(n);
                want.drain(..n.min(want.len()));
            }
            assert_eq!(buf.as_slice(), &want[..]);
            assert!(aligned(&buf));
            assert!(buf.capacity() >= buf.len());
        }
        let mut other = b"tail".to_vec();
        buf.append(&mut other);
        want.extend_from_slice(b"tail");
        assert!(other.is_empty());
        assert_eq!(buf.as_slice(), &want[..]);
        buf.drain_front(usize::MAX);
        assert_eq!(buf.len(), 0);
        buf.clear();
        assert_eq!(buf.as_slice(), b"");
    }
}
