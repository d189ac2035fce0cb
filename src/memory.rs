//! Memory given back to the system between the audit's stages: the
//! collectors' maps and the replay's working sets are freed in many small
//! allocations, which glibc keeps in its heap (counted in the process's
//! resident memory) unless asked to return them.

/// Hands the memory freed so far back to the system: glibc's
/// `malloc_trim(3)` where the C library is glibc, nothing elsewhere.
pub(crate) fn give_back_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            /// glibc's `malloc_trim(3)`: releases free heap memory (at its
            /// top, and whole free pages within it) to the system.
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        // SAFETY: malloc_trim takes no pointer and only returns free pages
        // of glibc's own heap to the system; it is safe at any time.
        unsafe {
            malloc_trim(0);
        }
    }
}
