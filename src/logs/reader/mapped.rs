//! A window of a plain file read through a memory map, safe against the
//! file shrinking under it.
//!
//! Reading a window with `pread` copies it out of the page cache: on a
//! gigabyte that copy took 0.19 CPU-seconds of the kernel's, where mapping
//! the same windows took 0.03 (faulted in by the threads that parse them,
//! as they touch them: populating the map first, `MAP_POPULATE`, costs the
//! same, but on the one thread that maps it, while the others wait). A map has
//! one danger that a copy does not: once the file is shorter than the map
//! (truncated after it was opened: logrotate's `copytruncate`), touching a
//! page past its end raises `SIGBUS`, which would kill the run.
//!
//! So each live window is registered, and a `SIGBUS` handler, installed
//! once, looks the faulting address up: in a window, it maps zeroed pages
//! over the rest of that window (the access that faulted then reads zeros)
//! and marks the window [`cut short`](Mapped::cut_short); the reader then
//! drops whatever it parsed from the window and reports the file as
//! shrunk, as it does when a `pread` comes up short. A fault anywhere else
//! goes to the handler that was there before (Rust's own, for stack
//! overflows), or, with none, kills the process as before.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// How many windows may be mapped at once (one a file being read).
const SLOTS: usize = 16;

/// Per slot: taken by a live window.
static TAKEN: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];
/// Per slot: the window's first mapped address (0 while not published).
static STARTS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
/// Per slot: one past the window's last mapped address.
static ENDS: [AtomicUsize; SLOTS] = [const { AtomicUsize::new(0) }; SLOTS];
/// Per slot: a page of the window was past the file's end.
static CUT: [AtomicBool; SLOTS] = [const { AtomicBool::new(false) }; SLOTS];

/// The `SIGBUS` action found when ours was installed, and the page size.
struct Installed {
    previous: libc::sigaction,
    page: usize,
}

// SAFETY: `sigaction` is plain data (a handler address, a mask and flags),
// written once before the handler that reads it is installed.
unsafe impl Sync for Installed {}
// SAFETY: as above.
unsafe impl Send for Installed {}

static INSTALLED: OnceLock<Option<Installed>> = OnceLock::new();

/// Installs the handler once; `None` when it could not be installed (then
/// nothing is mapped).
fn installed() -> Option<&'static Installed> {
    INSTALLED
        .get_or_init(|| {
            // SAFETY: sysconf has no preconditions.
            let page = usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
            if !page.is_power_of_two() {
                return None;
            }
            // SAFETY: zeroed is a valid `sigaction` (no handler, empty mask).
            let mut previous: libc::sigaction = unsafe { std::mem::zeroed() };
            // SAFETY: querying the current action into a live local.
            if unsafe { libc::sigaction(libc::SIGBUS, std::ptr::null(), &mut previous) } != 0 {
                return None;
            }
            Some(Installed { previous, page })
        })
        .as_ref()
        .and_then(|installed| {
            static HANDLER: OnceLock<bool> = OnceLock::new();
            // The previous action is stored (above) before ours can run.
            let ok = *HANDLER.get_or_init(|| {
                // SAFETY: zeroed, then every field the kernel reads set.
                let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
                action.sa_sigaction = on_sigbus as *const () as libc::sighandler_t;
                action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
                // SAFETY: an empty mask in a live local; then installing a
                // handler that only touches atomics and makes syscalls.
                unsafe {
                    libc::sigemptyset(&mut action.sa_mask);
                    libc::sigaction(libc::SIGBUS, &action, std::ptr::null_mut()) == 0
                }
            });
            ok.then_some(installed)
        })
}

/// The `SIGBUS` handler: zeros over the rest of a live window that faulted;
/// any other fault to the previous handler.
extern "C" fn on_sigbus(
    signal: libc::c_int,
    info: *mut libc::siginfo_t,
    context: *mut libc::c_void,
) {
    // SAFETY: the kernel passes a valid siginfo with SA_SIGINFO.
    let address = unsafe { (*info).si_addr() } as usize;
    let Some(Some(installed)) = INSTALLED.get() else {
        return;
    };
    for slot in 0..SLOTS {
        let start = STARTS[slot].load(Ordering::Acquire);
        let end = ENDS[slot].load(Ordering::Acquire);
        if start != 0 && (start..end).contains(&address) {
            let page = address & !(installed.page - 1);
            // SAFETY: replaces pages of our own live mapping (the window
            // is unmapped only after its slot is cleared) with zeros.
            let zeros = unsafe {
                libc::mmap(
                    page as *mut libc::c_void,
                    end - page,
                    libc::PROT_READ,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED,
                    -1,
                    0,
                )
            };
            if zeros != libc::MAP_FAILED {
                CUT[slot].store(true, Ordering::Release);
                return;
            }
        }
    }
    let previous = &installed.previous;
    match previous.sa_sigaction {
        libc::SIG_DFL | libc::SIG_IGN => {
            // Put the previous action back: the access faults again, and
            // the process ends as it would have without us.
            // SAFETY: restoring an action the kernel gave us.
            unsafe { libc::sigaction(libc::SIGBUS, previous, std::ptr::null_mut()) };
        }
        handler if previous.sa_flags & libc::SA_SIGINFO != 0 => {
            // SAFETY: the previous handler, called as it was installed.
            let handler: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                unsafe { std::mem::transmute(handler) };
            handler(signal, info, context);
        }
        handler => {
            // SAFETY: as above, a handler without siginfo.
            let handler: extern "C" fn(libc::c_int) = unsafe { std::mem::transmute(handler) };
            handler(signal);
        }
    }
}

/// One window of a file, mapped read-only.
pub(super) struct Mapped {
    /// The mapping's first byte (page-aligned).
    base: *mut libc::c_void,
    /// The mapping's length.
    mapped: usize,
    /// Where the window starts in the mapping.
    skip: usize,
    /// The registry slot.
    slot: usize,
}

// SAFETY: a read-only mapping, shared by the threads that parse it.
unsafe impl Send for Mapped {}
// SAFETY: as above.
unsafe impl Sync for Mapped {}

impl Mapped {
    /// Maps `len` bytes of `file` from `offset`. `None`
    /// when the file cannot be mapped (or every slot is taken): the caller
    /// reads the window instead.
    pub(super) fn map(file: &File, offset: u64, len: usize) -> Option<Mapped> {
        let installed = installed()?;
        if len == 0 {
            return None;
        }
        let slot = (0..SLOTS).find(|&s| {
            TAKEN[s]
                .compare_exchange(false, true, Ordering::AcqRel, Ordering::Relaxed)
                .is_ok()
        })?;
        let skip = (offset % installed.page as u64) as usize;
        let mapped = len + skip;
        let Ok(at) = libc::off_t::try_from(offset - skip as u64) else {
            TAKEN[slot].store(false, Ordering::Release);
            return None;
        };
        // SAFETY: a fresh read-only private mapping of an open descriptor.
        let base = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                mapped,
                libc::PROT_READ,
                libc::MAP_PRIVATE,
                file.as_raw_fd(),
                at,
            )
        };
        if base == libc::MAP_FAILED {
            TAKEN[slot].store(false, Ordering::Release);
            return None;
        }
        CUT[slot].store(false, Ordering::Relaxed);
        ENDS[slot].store(base as usize + mapped, Ordering::Release);
        STARTS[slot].store(base as usize, Ordering::Release);
        Some(Mapped {
            base,
            mapped,
            skip,
            slot,
        })
    }

    /// The window's bytes (zeros from where the file ended, if it was cut).
    pub(super) fn bytes(&self) -> &[u8] {
        // SAFETY: `mapped` readable bytes from `base`, live as long as self.
        unsafe {
            std::slice::from_raw_parts(
                self.base.cast::<u8>().add(self.skip),
                self.mapped - self.skip,
            )
        }
    }

    /// A page of the window lay past the file's end when it was read: the
    /// file shrank, and the bytes from there on are zeros, not the file's.
    pub(super) fn cut_short(&self) -> bool {
        CUT[self.slot].load(Ordering::Acquire)
    }
}

impl Drop for Mapped {
    fn drop(&mut self) {
        STARTS[self.slot].store(0, Ordering::Release);
        // SAFETY: our own mapping, no longer registered or borrowed.
        unsafe { libc::munmap(self.base, self.mapped) };
        TAKEN[self.slot].store(false, Ordering::Release);
    }
}
