//! A stage's worker threads spread over the cores the process may use.
//!
//! A compressed log is read by a thread that decompresses it and one
//! parser per core, more threads than cores. A scheduler may then leave a
//! core idle while two of them share the other: on the 2-core virtual
//! machines this is measured on (a kernel that packs a guest's threads
//! onto few cores), a trace of the gzip gigabyte found a core idle beside
//! two runnable threads for about 0.2 core-seconds of a 1.8 s run. A
//! parser told its core from the start runs there, and the thread that
//! decompresses takes whichever core is free.

/// The cores the calling thread may run on, in order; `None` where the
/// system cannot say.
pub(crate) fn allowed() -> Option<Vec<usize>> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a zeroed `cpu_set_t` is the empty set; the call writes
        // only the set given, of the size given, for this thread (0).
        unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            let size = std::mem::size_of::<libc::cpu_set_t>();
            if libc::sched_getaffinity(0, size, &mut set) != 0 {
                return None;
            }
            Some(
                (0..libc::CPU_SETSIZE as usize)
                    .filter(|&c| libc::CPU_ISSET(c, &set))
                    .collect(),
            )
        }
    }
    #[cfg(not(target_os = "linux"))]
    None
}

/// Keeps the calling thread, worker `index` of a stage of `workers`, on
/// the `index`-th of the cores the process may use, when the stage has
/// exactly one worker per core (as it has unless `--threads` says
/// otherwise). With fewer workers than cores the scheduler is left free to
/// choose among the idle ones (other programs may use some); with more,
/// they share the cores anyway. Nothing happens where the system cannot
/// say which cores those are.
///
/// The setting stays with the thread and passes to the threads it starts:
/// for a stage's own workers only, which start none and end with it.
pub(crate) fn spread(index: usize, workers: usize) {
    let Some(cores) = allowed() else {
        return;
    };
    if cores.len() < 2 || cores.len() != workers {
        return;
    }
    #[cfg(target_os = "linux")]
    // SAFETY: as in `allowed`; the call reads only the set given.
    unsafe {
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cores[index % cores.len()], &mut one);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_worker_per_core_is_kept_on_its_core_and_fewer_are_left_free() {
        let Some(cores) = allowed() else {
            return;
        };
        let n = cores.len();
        // One worker per core: the second is kept on the second core.
        let on = std::thread::spawn(move || {
            spread(1, n);
            allowed()
        })
        .join()
        .unwrap();
        if n >= 2 {
            assert_eq!(on, Some(vec![cores[1]]));
        } else {
            assert_eq!(on, Some(cores.clone()));
        }
        // Fewer workers than cores, or more: the thread keeps every core.
        for workers in [n.saturating_sub(1), n + 1] {
            let free = std::thread::spawn(move || {
                spread(0, workers);
                allowed()
            })
            .join()
            .unwrap();
            assert_eq!(free, Some(cores.clone()), "{workers} workers on {n} cores");
        }
    }
}
