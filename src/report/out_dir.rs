//! The report directory (`--out`): what may be replaced, and the atomic
//! swap that replaces it.
//!
//! A report directory carries a marker file ([`MARKER`]). An `--out` that
//! does not exist, is empty, or is a previous report holding only report
//! files is replaced whole; anything else (a file, a directory of the
//! user's, a report the user added files to) is refused, so that the tool
//! never deletes what it did not write. The new report is written into an
//! unpredictably named directory created exclusively beside `--out`, then
//! swapped in with one atomic exchange where the system has one (Linux),
//! two renames elsewhere.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::{OutputFormats, ReportError};

/// The file that marks a directory as a crawlaudit report.
pub const MARKER: &str = ".crawlaudit-report";

/// What the marker file says to a person who finds it.
pub(super) const MARKER_TEXT: &str = "This directory is a crawlaudit report. Every run of `crawlaudit audit --out` (or `merge --out`)\n\
replaces it whole; a run refuses to when it holds files of yours, so keep your own files elsewhere.\n";

/// How many foreign names an error lists.
const SHOWN: usize = 5;

/// Whether a report owns the file `name`: a report file of any output
/// format, or the marker.
fn owned(name: &str) -> bool {
    name == MARKER || OutputFormats::default().files().iter().any(|f| f == name)
}

fn refuse(path: &Path, message: impl Into<String>) -> ReportError {
    ReportError::Out {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> ReportError + '_ {
    move |source| ReportError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Checks that a report may be written to `out` and returns where it goes:
/// `out` itself, or, when `out` is a symbolic link, the directory it
/// points to (an existing `out` as an absolute path).
///
/// # Errors
/// [`ReportError::Out`] when `out` is a file, the root, a link to nothing,
/// a non-empty directory without the marker, or a report holding files
/// the report did not write; [`ReportError::Io`] when it cannot be read.
pub fn check_out(out: &Path) -> Result<PathBuf, ReportError> {
    let path = match fs::symlink_metadata(out) {
        Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::NotADirectory) => {
            // A new directory: below a file, it cannot be made.
            let parent = out.parent().unwrap_or(Path::new(""));
            if let Some(file) = parent.ancestors().find(|a| a.is_file()) {
                return Err(ReportError::Io {
                    path: file.to_path_buf(),
                    source: std::io::Error::new(
                        ErrorKind::NotADirectory,
                        "a file, not a directory: choose another --out",
                    ),
                });
            }
            return Ok(out.to_path_buf());
        }
        Err(e) => return Err(io_error(out)(e)),
        Ok(meta) if meta.file_type().is_symlink() => fs::canonicalize(out).map_err(|e| {
            refuse(
                out,
                format!("a symbolic link that cannot be followed ({e}): choose another --out"),
            )
        })?,
        Ok(_) => fs::canonicalize(out).map_err(io_error(out))?,
    };
    if path.parent().is_none() {
        return Err(refuse(
            out,
            "the root directory cannot be a report directory: choose another --out",
        ));
    }
    let meta = fs::metadata(&path).map_err(io_error(&path))?;
    if !meta.is_dir() {
        return Err(refuse(
            out,
            "a file, not a report directory: crawlaudit writes a directory and never replaces \
             a file; choose another --out",
        ));
    }
    let mut names = Vec::new();
    for entry in fs::read_dir(&path).map_err(io_error(&path))? {
        let entry = entry.map_err(io_error(&path))?;
        names.push(entry.file_name().to_string_lossy().into_owned());
    }
    if names.is_empty() {
        return Ok(path);
    }
    let marked = fs::symlink_metadata(path.join(MARKER)).is_ok_and(|m| m.is_file());
    if !marked {
        return Err(refuse(
            out,
            format!(
                "not empty and not a crawlaudit report (no {MARKER} file): the report replaces \
                 --out whole, so it goes only to a new or empty directory or a previous report; \
                 choose another --out"
            ),
        ));
    }
    let mut foreign: Vec<&String> = names.iter().filter(|n| !owned(n)).collect();
    if !foreign.is_empty() {
        foreign.sort();
        let mut shown: Vec<String> = foreign
            .iter()
            .take(SHOWN)
            .map(|n| format!("{n:?}"))
            .collect();
        if foreign.len() > SHOWN {
            shown.push(format!("and {} more", foreign.len() - SHOWN));
        }
        return Err(refuse(
            out,
            format!(
                "a previous report that now holds files crawlaudit did not write ({}): the report \
                 replaces --out whole; move them elsewhere, or choose another --out",
                shown.join(", ")
            ),
        ));
    }
    Ok(path)
}

/// A directory created exclusively beside `target`, named unpredictably
/// (`.NAME.tmp-PID-RANDOM`), removed when dropped unless kept.
pub(super) fn temp_dir_beside(parent: &Path, name: &str, what: &str) -> std::io::Result<ReportDir> {
    tempfile::Builder::new()
        .prefix(&format!(".{name}.{what}-{}-", std::process::id()))
        .tempdir_in(parent)
        .map(|dir| ReportDir(Some(dir)))
}

/// A report directory of a temporary name (being written, or the old
/// report moved aside), removed on drop unless kept: every file but the
/// marker first, then the marker, then the directory, so that a run killed
/// while removing it leaves a directory with the marker, or an empty one,
/// which the next run's [`remove_stale`] removes.
pub(super) struct ReportDir(Option<tempfile::TempDir>);

impl ReportDir {
    /// Where it is.
    pub(super) fn path(&self) -> &Path {
        self.0
            .as_ref()
            .expect("a ReportDir is kept only by keep")
            .path()
    }

    /// Leaves it in place (it was renamed to the report's name).
    fn keep(mut self) {
        if let Some(dir) = self.0.take() {
            let _ = dir.keep();
        }
    }
}

impl Drop for ReportDir {
    fn drop(&mut self) {
        let Some(dir) = self.0.take() else {
            return;
        };
        if let Ok(entries) = fs::read_dir(dir.path()) {
            // In parallel: removing a file drops its pages from the page
            // cache, which for a report of hundreds of megabytes is most
            // of the removal's time, and is the kernel's work per file.
            use rayon::prelude::*;
            let entries: Vec<fs::DirEntry> = entries
                .flatten()
                .filter(|e| e.file_name() != MARKER)
                .collect();
            entries.par_iter().for_each(|entry| {
                let path = entry.path();
                let _ = if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    fs::remove_dir_all(&path)
                } else {
                    fs::remove_file(&path)
                };
            });
        }
        let _ = fs::remove_file(dir.path().join(MARKER));
        // The directory, now empty (or whatever is left: TempDir's removal).
        drop(dir);
    }
}

/// Replaces `out` (checked by [`check_out`]) with the finished report in
/// `tmp`, atomically where the system can (the old report and the new one
/// exchange names, so that a run killed at any moment leaves one complete
/// report or the other); the old report is removed.
pub(super) fn swap_in(
    tmp: ReportDir,
    out: &Path,
    parent: &Path,
    name: &str,
) -> Result<(), ReportError> {
    let exists = fs::symlink_metadata(out).is_ok();
    if exists {
        match exchange(tmp.path(), out) {
            // `tmp` now holds the old report: dropping it removes it.
            Ok(true) => return Ok(()),
            Ok(false) => {}
            Err(source) => {
                return Err(ReportError::Io {
                    path: out.to_path_buf(),
                    source,
                });
            }
        }
        // Elsewhere: the old report moves aside (onto an empty directory
        // of an unpredictable name), the new one takes its name; killed
        // between the two, the old report is in `.NAME.old-PID-RANDOM`.
        let old = temp_dir_beside(parent, name, "old").map_err(io_error(parent))?;
        fs::rename(out, old.path()).map_err(io_error(out))?;
        if let Err(source) = fs::rename(tmp.path(), out) {
            let _ = fs::rename(old.path(), out);
            old.keep();
            return Err(ReportError::Io {
                path: out.to_path_buf(),
                source,
            });
        }
        tmp.keep();
        drop(old);
        return Ok(());
    }
    fs::rename(tmp.path(), out).map_err(io_error(out))?;
    tmp.keep();
    Ok(())
}

/// Exchanges the names of `a` and `b` atomically. `Ok(false)` when the
/// system or file system cannot.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> std::io::Result<bool> {
    use std::os::unix::ffi::OsStrExt;
    let c = |p: &Path| {
        std::ffi::CString::new(p.as_os_str().as_bytes())
            .map_err(|e| std::io::Error::new(ErrorKind::InvalidInput, e))
    };
    let (a, b) = (c(a)?, c(b)?);
    // SAFETY: both paths are NUL-terminated strings that outlive the call.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_renameat2,
            libc::AT_FDCWD,
            a.as_ptr(),
            libc::AT_FDCWD,
            b.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if rc == 0 {
        return Ok(true);
    }
    let e = std::io::Error::last_os_error();
    match e.raw_os_error() {
        Some(libc::ENOSYS | libc::EINVAL | libc::ENOTSUP) => Ok(false),
        _ => Err(e),
    }
}

/// Exchanges the names of `a` and `b` atomically. `Ok(false)` when the
/// system or file system cannot.
#[cfg(not(target_os = "linux"))]
fn exchange(_a: &Path, _b: &Path) -> std::io::Result<bool> {
    Ok(false)
}

/// Removes the `.NAME.tmp-PID-…` and `.NAME.old-PID-…` directories that
/// runs which were killed left in `parent`: only real directories (never
/// a link) of a process that no longer runs, holding the marker or
/// nothing.
pub(super) fn remove_stale(parent: &Path, name: &str) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    let prefix = format!(".{name}.");
    for entry in entries.flatten() {
        let file_name = entry.file_name();
        let file_name = file_name.to_string_lossy();
        let Some(rest) = file_name.strip_prefix(&prefix) else {
            continue;
        };
        let Some(rest) = rest
            .strip_prefix("tmp-")
            .or_else(|| rest.strip_prefix("old-"))
        else {
            continue;
        };
        let digits = rest.split('-').next().unwrap_or_default();
        let Ok(pid) = digits.parse::<u32>() else {
            continue;
        };
        if pid == std::process::id() || process_exists(pid) {
            continue;
        }
        let path = entry.path();
        let is_dir = fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        let ours = fs::symlink_metadata(path.join(MARKER)).is_ok_and(|m| m.is_file())
            || fs::read_dir(&path).is_ok_and(|mut d| d.next().is_none());
        if is_dir && ours {
            let _ = fs::remove_dir_all(&path);
        }
    }
}

/// Whether process `pid` runs (on systems without `/proc`: assumed so,
/// which keeps its files).
fn process_exists(pid: u32) -> bool {
    let proc = Path::new("/proc");
    !proc.is_dir() || proc.join(pid.to_string()).exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_report_directory_is_removed_with_its_marker_last_or_kept() {
        let parent = tempfile::tempdir().unwrap();
        let dir = temp_dir_beside(parent.path(), "reports", "old").unwrap();
        let path = dir.path().to_path_buf();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(name.starts_with(&format!(".reports.old-{}-", std::process::id())));
        fs::write(path.join(MARKER), "").unwrap();
        fs::write(path.join("violations.csv"), "x").unwrap();
        fs::create_dir(path.join("sub")).unwrap();
        fs::write(path.join("sub/f"), "y").unwrap();
        drop(dir);
        assert!(!path.exists());

        let dir = temp_dir_beside(parent.path(), "reports", "tmp").unwrap();
        let path = dir.path().to_path_buf();
        fs::write(path.join(MARKER), "").unwrap();
        dir.keep();
        assert!(path.join(MARKER).is_file());
    }
}
