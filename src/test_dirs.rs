//! The unit tests' directory: one per test process under the system's
//! temporary directory, removed when the process exits (set
//! `CRAWLAUDIT_KEEP_TEST_DIRS=1` to keep it for a look after a failure).

use std::path::PathBuf;

fn path() -> PathBuf {
    std::env::temp_dir().join(format!("crawlaudit-unit-{}", std::process::id()))
}

extern "C" fn remove() {
    if std::env::var_os("CRAWLAUDIT_KEEP_TEST_DIRS").is_none() {
        let _ = std::fs::remove_dir_all(path());
    }
}

/// This test process's directory (created by the caller's `create_dir_all`).
pub(crate) fn process_dir() -> PathBuf {
    static REGISTER: std::sync::Once = std::sync::Once::new();
    REGISTER.call_once(|| {
        // SAFETY: `remove` is a plain function that does not unwind.
        unsafe {
            libc::atexit(remove);
        }
    });
    path()
}
