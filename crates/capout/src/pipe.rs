//! A larger pipe buffer and larger reads of the input: fewer reads and
//! fewer wake-ups on a big output, for stdin in filter mode and for a
//! command's output.

use std::os::fd::AsFd;

/// The buffer size asked for.
pub const SIZE: usize = 1 << 20;

/// The read size the `capout` filter sets for its input, a file or a
/// pipe: fewer, larger reads cost less, and a tail cap skips more of each
/// piece unread. 256 KiB reads were a little faster still, but took the
/// peak RSS of the binary past 4 MiB.
pub const INPUT_READ_SIZE: usize = 128 * 1024;

/// Asks the kernel for a [`SIZE`] buffer on `fd` when it is a pipe. The
/// default size works too, so a refusal (not a pipe, a quota) is no error.
pub fn enlarge(fd: impl AsFd) {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    let _ = rustix::pipe::fcntl_setpipe_size(fd, SIZE);
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    let _ = fd;
}
