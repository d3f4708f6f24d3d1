//! Fuzzes the engine: arbitrary bytes, cap, options and read sizes.
//!
//! Asserts, not just "no crash": the output equals the naive model's, does
//! not depend on how the input was split into reads, and the heap held
//! while it runs stays within what the cap allows.
#![no_main]

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::Read;
use std::sync::atomic::{AtomicUsize, Ordering};

use capout_core::{CapSpec, Options};
use capout_testkit::Rng;
use capout_testkit::model::{model, random_config};
use libfuzzer_sys::fuzz_target;

/// Counts the bytes on the heap and their peak.
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let held = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(held, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Reads of the given sizes in turn.
struct Reads<'a> {
    data: &'a [u8],
    sizes: &'a [u8],
    turn: usize,
}

impl Read for Reads<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let size = usize::from(self.sizes[self.turn % self.sizes.len()]).max(1);
        self.turn += 1;
        let n = size.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// Heap the run may hold beyond what it keeps: the read buffers, one line
/// held for matching, a stretch held by --collapse-cr, and the rest slack.
const FIXED: usize = 2 * (64 * 1024) + capout_core::internals::LINE_LIMIT + capout_core::internals::COLLAPSE_LIMIT + (64 << 10);

/// What the cap may keep: small caps, so it is the input only where the
/// kept lines have no line cap.
fn kept_bound(config: &Options, input: usize) -> usize {
    let lines = match config.cap {
        CapSpec::TailLines(n) | CapSpec::HeadTailLines(_, n) => n as usize,
        _ => 0,
    };
    match config.max_line() {
        Some(w) => lines * (4 * w as usize + 64) + 4096,
        None => lines * (input + 64) + 4096,
    }
}

fn run(config: &Options, input: &[u8], sizes: &[u8]) -> (Vec<u8>, usize) {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let before = HELD.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    capout_core::run(config, Reads { data: input, sizes, turn: 0 }, &mut out, &mut err).expect("in-memory run");
    let peak = PEAK.load(Ordering::Relaxed) - before;
    (out, peak)
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 9 {
        return;
    }
    let (head, input) = data.split_at(9);
    let seed = u64::from_le_bytes(head[..8].try_into().expect("eight bytes"));
    let sizes: Vec<u8> = head[8..].iter().map(|&b| b % 7 + 1).chain(seed.to_le_bytes().map(|b| b % 7 + 1)).collect();
    let config = {
let mut options = random_config(&mut Rng::new(seed));
options.read_size = 7;
options
};
    let (split, peak) = run(&config, input, &sizes);
    let whole_config = {
let mut options = config.clone();
options.read_size = 1 << 16;
options
};
    let (whole, _) = run(&whole_config, input, &[255]);
    assert!(split == whole, "output depends on the read sizes: {config:?}");
    assert!(whole == model(input, &config), "output differs from the model: {config:?}");
    let allowed = FIXED + out_bound(&split) + kept_bound(&config, input.len());
    assert!(peak <= allowed, "held {peak} bytes, more than {allowed}: {config:?}");
});

/// The output buffer itself is the test's, not the engine's.
fn out_bound(out: &[u8]) -> usize {
    2 * out.len() + 1024
}
