//! Panics of dependencies contained at the file boundary.
//!
//! The Parquet files `merge` and `--state` read come from elsewhere (a
//! shard pod's store, last night's run) and may be corrupt or tampered
//! with; the Parquet reader can panic on such bytes. A panic there must be
//! one error line naming the file, not a crash with a backtrace: reads of
//! such files run in [`contain`], which catches the panic and keeps the
//! default panic message off stderr while it runs.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many [`contain`] calls are running: while any is, the panic hook
/// prints nothing (their panics become errors).
static CONTAINING: AtomicUsize = AtomicUsize::new(0);
static HOOK: Once = Once::new();

/// Runs `f`; a panic inside it (on this thread, or on the thread pool
/// threads it waits for) comes back as `Err` with the panic's message.
pub(crate) fn contain<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if CONTAINING.load(Ordering::SeqCst) == 0 {
                previous(info);
            }
        }));
    });
    CONTAINING.fetch_add(1, Ordering::SeqCst);
    let result = catch_unwind(AssertUnwindSafe(f));
    CONTAINING.fetch_sub(1, Ordering::SeqCst);
    result.map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "an unknown fault".to_string());
        // One line: a panic message may span several.
        message.split_whitespace().collect::<Vec<_>>().join(" ")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_error_and_the_value_passes() {
        assert_eq!(contain(|| 7), Ok(7));
        let err = contain(|| -> u8 { panic!("bad\nbytes {}", 3) }).unwrap_err();
        assert_eq!(err, "bad bytes 3");
        let err = contain(|| -> u8 { std::panic::panic_any(5u32) }).unwrap_err();
        assert_eq!(err, "an unknown fault");
        // On pool threads too.
        let err = contain(|| {
            use rayon::prelude::*;
            (0..64u32)
                .into_par_iter()
                .map(|i| if i == 40 { panic!("in a worker") } else { i })
                .sum::<u32>()
        })
        .unwrap_err();
        assert_eq!(err, "in a worker");
    }
}
