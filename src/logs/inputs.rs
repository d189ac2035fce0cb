//! What `LOG` arguments name: files, directories (recursively), glob
//! patterns, and `-` for standard input.

use std::path::{Path, PathBuf};

/// One log input.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Input {
    /// A file (plain, gzip, zstd or bzip2, detected from its first bytes).
    File(PathBuf),
    /// Standard input (plain, gzip, zstd or bzip2).
    Stdin,
}

impl Input {
    /// How reports name it: the path, or `-` for standard input.
    pub fn name(&self) -> String {
        match self {
            Input::File(p) => p.display().to_string(),
            Input::Stdin => "-".to_string(),
        }
    }
}

/// What identifies a file or directory however it is reached (links, `.`,
/// `..`): its device and inode on unix, its canonical path elsewhere.
#[cfg(unix)]
type FileId = (u64, u64);
/// What identifies a file or directory however it is reached.
#[cfg(not(unix))]
type FileId = PathBuf;

#[cfg(unix)]
fn file_id(_path: &Path, meta: &std::fs::Metadata) -> FileId {
    use std::os::unix::fs::MetadataExt;
    (meta.dev(), meta.ino())
}

#[cfg(not(unix))]
fn file_id(path: &Path, _meta: &std::fs::Metadata) -> FileId {
    std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())
}

/// What a path is, after following symbolic links.
enum Kind {
    /// A regular file.
    File(FileId),
    /// A directory.
    Dir(FileId),
    /// Anything else that exists: a FIFO, a device, a socket.
    Other(FileId),
}

/// What `path` is, following links. A link that leads nowhere (dangling)
/// or in a circle is an error naming the link; `Ok(None)`: nothing there.
fn classify(path: &Path) -> Result<Option<Kind>, String> {
    match std::fs::metadata(path) {
        Ok(meta) => {
            let id = file_id(path, &meta);
            Ok(Some(if meta.is_dir() {
                Kind::Dir(id)
            } else if meta.is_file() {
                Kind::File(id)
            } else {
                Kind::Other(id)
            }))
        }
        Err(e) => match std::fs::symlink_metadata(path) {
            Ok(link) if link.file_type().is_symlink() => {
                let target = std::fs::read_link(path)
                    .map_or_else(|_| "?".to_string(), |t| t.display().to_string());
                Err(if e.kind() == std::io::ErrorKind::NotFound {
                    format!(
                        "log file {} is a dangling symbolic link (to {target}, which does not exist): remove it or point it at a log",
                        path.display()
                    )
                } else {
                    format!(
                        "log file {} is a symbolic link that cannot be followed ({e}): is it a link loop? point it at a log",
                        path.display()
                    )
                })
            }
            _ if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            _ => Err(format!("cannot read log file {}: {e}", path.display())),
        },
    }
}

/// The inputs found so far, and what was seen: each file and directory is
/// taken once however many names lead to it.
#[derive(Default)]
struct Found {
    inputs: Vec<Input>,
    files: std::collections::HashSet<FileId>,
    dirs: std::collections::HashSet<FileId>,
}

impl Found {
    /// Adds a file under its first name; `false` if it was there already.
    fn file(&mut self, path: PathBuf, id: FileId) -> bool {
        let new = self.files.insert(id);
        if new {
            self.inputs.push(Input::File(path));
        }
        new
    }

    /// Walks `dir` (identified by `id`) unless it was walked already, which
    /// also keeps a link to `.` or to a parent from walking it again.
    /// Returns the files it held, new or not.
    fn walk(&mut self, dir: &Path, id: FileId) -> Result<usize, String> {
        if !self.dirs.insert(id) {
            return Ok(0);
        }
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .and_then(|it| it.map(|e| e.map(|e| e.path())).collect())
            .map_err(|e| format!("cannot read log directory {}: {e}", dir.display()))?;
        entries.sort();
        let mut held = 0;
        for path in entries {
            let hidden = path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with('.'));
            if hidden {
                continue;
            }
            match classify(&path)? {
                Some(Kind::Dir(id)) => held += self.walk(&path, id)?,
                Some(Kind::File(id)) => {
                    self.file(path, id);
                    held += 1;
                }
                // FIFOs and devices below a directory are not logs.
                Some(Kind::Other(_)) | None => {}
            }
        }
        Ok(held)
    }
}

/// Expands `LOG` arguments: a directory gives every file below it (sorted,
/// hidden files skipped), a pattern with `*`, `?` or `[` is a glob, `-` is
/// standard input. Each file is listed once, under the first name that
/// reaches it (two names of one file, by a symbolic or hard link, are one
/// input), and a directory is walked once (a link back to `.` or to a
/// parent is not followed again).
///
/// # Errors
/// An argument that names nothing (a missing file, a glob matching no file),
/// a dangling symbolic link or a link loop (named, also inside a
/// directory), or a directory that cannot be read, with the path in the
/// message.
pub fn expand_inputs(args: &[String]) -> Result<Vec<Input>, String> {
    let mut found = Found::default();
    for arg in args {
        if arg == "-" {
            if !found.inputs.contains(&Input::Stdin) {
                found.inputs.push(Input::Stdin);
            }
            continue;
        }
        let path = Path::new(arg);
        match classify(path)? {
            Some(Kind::Dir(id)) => {
                let walked = found.dirs.contains(&id);
                if found.walk(path, id)? == 0 && !walked {
                    return Err(format!("log directory {arg} holds no file"));
                }
            }
            // A file, or a FIFO or device named on purpose (`<(zcat ...)`).
            Some(Kind::File(id) | Kind::Other(id)) => {
                found.file(path.to_path_buf(), id);
            }
            None if arg.contains(['*', '?', '[']) => {
                let paths =
                    glob::glob(arg).map_err(|e| format!("invalid log pattern {arg}: {e}"))?;
                let mut matched = 0;
                for entry in paths {
                    let p = entry.map_err(|e| {
                        format!("cannot read {}: {}", e.path().display(), e.error())
                    })?;
                    if let Some(Kind::File(id)) = classify(&p)? {
                        found.file(p, id);
                        matched += 1;
                    }
                }
                if matched == 0 {
                    return Err(format!("log pattern {arg} matches no file"));
                }
            }
            None => return Err(format!("log file {arg} does not exist")),
        }
    }
    Ok(found.inputs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_directories_globs_and_stdin() {
        let dir = std::env::temp_dir().join(format!("crawlaudit-inputs-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        for f in ["a.log", "b.log.gz", "sub/c.log", ".hidden"] {
            std::fs::write(dir.join(f), "x").unwrap();
        }
        let d = dir.display().to_string();
        let got = expand_inputs(&[d.clone(), format!("{d}/*.log"), "-".into()]).unwrap();
        let names: Vec<String> = got.iter().map(Input::name).collect();
        assert_eq!(
            names,
            [
                format!("{d}/a.log"),
                format!("{d}/b.log.gz"),
                format!("{d}/sub/c.log"),
                "-".into()
            ]
        );
        assert!(
            expand_inputs(&[format!("{d}/nope.log")])
                .unwrap_err()
                .contains("does not exist")
        );
        assert!(
            expand_inputs(&[format!("{d}/*.txt")])
                .unwrap_err()
                .contains("matches no file")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[cfg(all(test, unix))]
mod link_tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn names(args: &[String]) -> Result<Vec<String>, String> {
        expand_inputs(args).map(|inputs| inputs.iter().map(Input::name).collect())
    }

    #[test]
    fn every_file_once_however_it_is_reached() {
        let dir = std::env::temp_dir().join(format!("crawlaudit-links-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("logs/archive")).unwrap();
        std::fs::write(dir.join("logs/access.log"), "x").unwrap();
        std::fs::write(dir.join("logs/archive/old.log"), "y").unwrap();
        // latest.log -> access.log beside it, `current -> .`, a link to the
        // parent, and a hard link: each file is one input, under its first
        // name.
        symlink("access.log", dir.join("logs/latest.log")).unwrap();
        symlink(".", dir.join("logs/current")).unwrap();
        symlink("..", dir.join("logs/archive/up")).unwrap();
        std::fs::hard_link(dir.join("logs/access.log"), dir.join("logs/z-hard.log")).unwrap();
        let d = dir.join("logs").display().to_string();
        let expected = vec![format!("{d}/access.log"), format!("{d}/archive/old.log")];
        assert_eq!(names(std::slice::from_ref(&d)).unwrap(), expected);
        // Named again, by a link, by a glob: nothing new, first names kept.
        let args = [
            format!("{d}/latest.log"),
            d.clone(),
            format!("{d}/current/"),
            format!("{d}/*.log"),
        ];
        assert_eq!(
            names(&args).unwrap(),
            [format!("{d}/latest.log"), expected[1].clone()]
        );
        // Two links to each other: an error naming the link, at once.
        symlink("b.log", dir.join("logs/a.log")).unwrap();
        symlink("a.log", dir.join("logs/b.log")).unwrap();
        let err = names(std::slice::from_ref(&d)).unwrap_err();
        assert!(
            err.contains(&format!("{d}/a.log")) && err.contains("link loop"),
            "{err}"
        );
        let err = names(&[format!("{d}/b.log")]).unwrap_err();
        assert!(err.contains(&format!("{d}/b.log")), "{err}");
        std::fs::remove_file(dir.join("logs/a.log")).unwrap();
        std::fs::remove_file(dir.join("logs/b.log")).unwrap();
        // A dangling link: an error naming it, inside a directory or named.
        symlink("rotated-away.log", dir.join("logs/gone.log")).unwrap();
        for arg in [d.clone(), format!("{d}/gone.log")] {
            let err = names(&[arg]).unwrap_err();
            assert_eq!(
                err,
                format!(
                    "log file {d}/gone.log is a dangling symbolic link (to rotated-away.log, which does not exist): remove it or point it at a log"
                )
            );
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
