//! capout's own SIGINT, SIGTERM and SIGHUP (and SIGCHLD while a command
//! runs), caught so that capout can still print what it kept: each sets a
//! flag and writes a byte to a pipe that a `poll(2)` can wait on.
//!
//! While no [`Signals`] is catching, the three signals do what they do by
//! default, to capout.

use std::ffi::c_int;
use std::io::{self, Read};
use std::io::{PipeReader, PipeWriter};
use std::os::fd::{AsFd, BorrowedFd};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use rustix::event::{PollFd, PollFlags, poll};
use rustix::process::Signal;
use signal_hook::SigId;
use signal_hook::consts::{SIGCHLD, SIGHUP, SIGINT, SIGTERM};

/// The signals that capout catches, and passes on to a command it runs.
const CAUGHT: [(c_int, Signal); 3] = [(SIGINT, Signal::INT), (SIGTERM, Signal::TERM), (SIGHUP, Signal::HUP)];

/// Caught signals, while this value lives or until [`Signals::release`].
pub struct Signals {
    /// The read end of the wake-up pipe.
    wake: PipeReader,
    /// A flag for each caught signal; a signal that capout was started
    /// with ignored (as under `nohup`) is left alone, so that a command
    /// inherits it ignored.
    caught: Vec<(Arc<AtomicBool>, Signal)>,
    child: Arc<AtomicBool>,
    /// The actions to remove on release.
    ids: Vec<SigId>,
    catching: bool,
}

/// What the process's signal handling is, across all [`Signals`].
struct Catchers {
    /// How many [`Signals`] are catching.
    count: usize,
    /// The signals of [`CAUGHT`] that capout may catch, decided once.
    caught: Option<Vec<(c_int, Signal)>>,
}

static CATCHERS: Mutex<Catchers> = Mutex::new(Catchers { count: 0, caught: None });
/// Whether no [`Signals`] is catching, so that the caught signals do what
/// they do by default. Read by the signal handler, which cannot lock.
static RELEASED: AtomicBool = AtomicBool::new(true);
/// Whether capout is a library inside another program (see [`embedded`]).
static EMBEDDED: AtomicBool = AtomicBool::new(false);

/// Says that capout runs inside another program (the Python module),
/// whose own handlers stay in charge of its signals: a caught signal is
/// still passed on to a running command, but never ends the process by
/// its default action; the program's handler runs after capout's, as
/// signal-hook chains it. Call it before the first [`Signals::catch`].
pub fn embedded() {
    EMBEDDED.store(true, Ordering::SeqCst);
}

/// A pipe whose two ends never block, to wake a `poll(2)`: a pipe, not a
/// socket pair, because a sandbox that forbids the network may forbid
/// sending on any socket (Codex CLI's does), and a wake-up that is never
/// written leaves capout waiting for good.
pub fn wake_pipe() -> io::Result<(PipeReader, PipeWriter)> {
    let (read, write) = io::pipe()?;
    rustix::io::ioctl_fionbio(&read, true)?;
    rustix::io::ioctl_fionbio(&write, true)?;
    Ok((read, write))
}

impl Signals {
    /// Starts catching SIGINT, SIGTERM and SIGHUP, and SIGCHLD when
    /// `children` is set.
    pub fn catch(children: bool) -> io::Result<Signals> {
        let (wake, wake_write) = wake_pipe()?;
        let embedded = EMBEDDED.load(Ordering::SeqCst);
        let caught = {
            let mut catchers = CATCHERS.lock().unwrap_or_else(PoisonError::into_inner);
            if catchers.caught.is_none() {
                let ignored = ignored_at_start();
                let caught: Vec<_> = CAUGHT.into_iter().filter(|(number, _)| !ignored(*number)).collect();
                // Registered before any other action and never removed, so
                // that once released, the default action comes first.
                for (number, _) in caught.iter().filter(|_| !embedded) {
                    signal_hook::flag::register_conditional_default(*number, &RELEASED)?;
                }
                catchers.caught = Some(caught);
            }
            catchers.count += 1;
            RELEASED.store(false, Ordering::SeqCst);
            catchers.caught.clone().unwrap_or_default()
        };
        let mut signals = Signals {
            wake,
            caught: caught.iter().map(|(_, signal)| (Arc::new(AtomicBool::new(false)), *signal)).collect(),
            child: Arc::new(AtomicBool::new(false)),
            ids: Vec::new(),
            catching: true,
        };
        let numbers: Vec<c_int> = caught.iter().map(|(number, _)| *number).collect();
        for (number, (flag, _)) in numbers.iter().zip(&signals.caught) {
            // A signal that comes while the last one of its kind is still
            // not acted on (capout is blocked writing its output) ends
            // capout at once: the way out of a stalled reader.
            if !embedded {
                signals.ids.push(signal_hook::flag::register_conditional_default(*number, Arc::clone(flag))?);
            }
            signals.ids.push(signal_hook::flag::register(*number, Arc::clone(flag))?);
        }
        let numbers = if children {
            signals.ids.push(signal_hook::flag::register(SIGCHLD, Arc::clone(&signals.child))?);
            [numbers, vec![SIGCHLD]].concat()
        } else {
            numbers
        };
        // Each flag is set before the byte is written, so the flags are
        // set by the time poll wakes.
        for number in numbers {
            signals.ids.push(signal_hook::low_level::pipe::register(number, wake_write.try_clone()?)?);
        }
        Ok(signals)
    }

    /// The pipe that becomes readable when a signal comes.
    pub fn wake(&self) -> BorrowedFd<'_> {
        self.wake.as_fd()
    }

    /// The caught signals that came since the last call.
    pub fn take(&self) -> impl Iterator<Item = Signal> + '_ {
        self.caught.iter().filter(|(flag, _)| flag.swap(false, Ordering::SeqCst)).map(|(_, signal)| *signal)
    }

    /// The first caught signal that came, its flag left set: until the
    /// signals are released, another of its kind still ends capout.
    pub fn first(&self) -> Option<Signal> {
        self.caught.iter().find(|(flag, _)| flag.load(Ordering::SeqCst)).map(|(_, signal)| *signal)
    }

    /// Whether a child changed state since the last call.
    pub fn take_child(&self) -> bool {
        self.child.swap(false, Ordering::SeqCst)
    }

    /// Empties the wake-up pipe. Call it before reading the flags, so
    /// that a signal that comes between the two wakes the next poll.
    pub fn drain(&mut self) {
        let mut buf = [0; 64];
        while matches!(self.wake.read(&mut buf), Ok(n) if n > 0) {}
    }

    /// Stops catching: the signals act on capout again.
    pub fn release(&mut self) {
        for id in self.ids.drain(..) {
            signal_hook::low_level::unregister(id);
        }
        if std::mem::take(&mut self.catching) {
            let mut catchers = CATCHERS.lock().unwrap_or_else(PoisonError::into_inner);
            catchers.count -= 1;
            if catchers.count == 0 {
                RELEASED.store(true, Ordering::SeqCst);
            }
        }
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        self.release();
    }
}

/// Which signals capout was started with ignored. Linux tells it in
/// `/proc` (read once); elsewhere none is taken as ignored.
fn ignored_at_start() -> impl Fn(c_int) -> bool {
    let status = if cfg!(any(target_os = "linux", target_os = "android")) {
        std::fs::read_to_string("/proc/self/status").unwrap_or_default()
    } else {
        String::new()
    };
    let mask = status.lines().find_map(|line| line.strip_prefix("SigIgn:")).map(str::trim);
    let mask = mask.and_then(|hex| u64::from_str_radix(hex, 16).ok()).unwrap_or(0);
    move |signal| {
        u32::try_from(signal - 1).ok().and_then(|bit| mask.checked_shr(bit)).is_some_and(|m| m & 1 == 1)
    }
}

/// An input that ends, as at its end, when SIGINT, SIGTERM or SIGHUP
/// comes, so that what was read so far is still capped and shown.
///
/// Once one signal has come, the signals are released: a second one acts
/// on capout at once.
pub struct Interruptible<R> {
    input: R,
    signals: Signals,
    /// Whether a read may block (a pipe or a terminal), so that it must
    /// wait on the input and the signals together.
    may_block: bool,
    signal: Option<Signal>,
}

impl<R: Read + AsFd> Interruptible<R> {
    /// `input`, interrupted by the signals that `signals` catches.
    pub fn new(input: R, signals: Signals) -> Self {
        let may_block = rustix::fs::fstat(&input).map_or(true, |stat| {
            rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::RegularFile
        });
        Interruptible { input, signals, may_block, signal: None }
    }

    /// The signal that ended the input early.
    pub fn signal(&self) -> Option<Signal> {
        self.signal
    }

    /// Whether a signal came; it ends the input.
    fn interrupted(&mut self) -> bool {
        if self.signal.is_none() {
            // Not taken: a second signal that comes before the release
            // still finds its flag set, and ends capout.
            self.signal = self.signals.first();
            if self.signal.is_some() {
                self.signals.release();
            }
        }
        self.signal.is_some()
    }
}

impl<R: Read + AsFd> Read for Interruptible<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            if self.interrupted() {
                return Ok(0);
            }
            if !self.may_block {
                return self.input.read(buf);
            }
            let wake = self.signals.wake();
            let mut fds = [PollFd::new(&self.input, PollFlags::IN), PollFd::new(&wake, PollFlags::IN)];
            match poll(&mut fds, None) {
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(e) => return Err(e.into()),
            }
            let ready = !fds[0].revents().is_empty();
            self.signals.drain();
            if ready && !self.interrupted() {
                return self.input.read(buf);
            }
        }
    }
}

/// Ends capout by `signal`, as GNU `timeout` ends when its command was
/// killed: a shell loop stops on a Ctrl-C, and Python sees `-signal`.
pub fn die_of(signal: i32) {
    // The command's crash is not capout's: no core file for capout.
    let core = rustix::process::Resource::Core;
    let limit = rustix::process::getrlimit(core);
    let _ = rustix::process::setrlimit(core, rustix::process::Rlimit { current: Some(0), ..limit });
    // A signal whose default is to be ignored returns here: the exit
    // status then says 128 + signal.
    let _ = signal_hook::low_level::emulate_default_handler(signal);
}
