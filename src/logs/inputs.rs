//! What `LOG` arguments name: files, directories (recursively), glob
//! patterns, and `-` for standard input.

use std::path::{Path, PathBuf};

/// One log input.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Input {
    /// A file (plain or gzip, detected from its first bytes).
    File(PathBuf),
    /// Standard input (plain or gzip).
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

fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> std::io::Result<()> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    entries.sort();
    for path in entries {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().starts_with('.'))
            .unwrap_or(false);
        if name {
            continue;
        }
        if path.is_dir() {
            walk(&path, out)?;
        } else if path.is_file() {
            out.push(path);
        }
    }
    Ok(())
}

/// Expands `LOG` arguments: a directory gives every file below it (sorted,
/// hidden files skipped), a pattern with `*`, `?` or `[` is a glob, `-` is
/// standard input. Each file is listed once.
///
/// # Errors
/// An argument that names nothing (a missing file, a glob matching no file),
/// or a directory that cannot be read, with the argument in the message.
pub fn expand_inputs(args: &[String]) -> Result<Vec<Input>, String> {
    let mut out: Vec<Input> = Vec::new();
    for arg in args {
        if arg == "-" {
            if !out.contains(&Input::Stdin) {
                out.push(Input::Stdin);
            }
            continue;
        }
        let path = Path::new(arg);
        let mut files = Vec::new();
        if path.is_dir() {
            walk(path, &mut files).map_err(|e| format!("cannot read log directory {arg}: {e}"))?;
            if files.is_empty() {
                return Err(format!("log directory {arg} holds no file"));
            }
        } else if path.exists() {
            files.push(path.to_path_buf());
        } else if arg.contains(['*', '?', '[']) {
            let paths = glob::glob(arg).map_err(|e| format!("invalid log pattern {arg}: {e}"))?;
            for entry in paths {
                let p = entry
                    .map_err(|e| format!("cannot read {}: {}", e.path().display(), e.error()))?;
                if p.is_file() {
                    files.push(p);
                }
            }
            if files.is_empty() {
                return Err(format!("log pattern {arg} matches no file"));
            }
        } else {
            return Err(format!("log file {arg} does not exist"));
        }
        for f in files {
            let input = Input::File(f);
            if !out.contains(&input) {
                out.push(input);
            }
        }
    }
    Ok(out)
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
