//! The bundled demo (`fixtures/demo/`, made by `scripts/gen_demo.py`),
//! embedded in the binary so that `crawlaudit audit` with no logs and no
//! snapshot works from any directory.

use std::path::PathBuf;

use anyhow::Context;

/// The demo's files: (path under `fixtures/demo/`, bytes).
const FILES: &[(&str, &[u8])] = &[
    (
        "access.log",
        include_bytes!("../../fixtures/demo/access.log"),
    ),
    (
        "ip-ranges/googlebot.json",
        include_bytes!("../../fixtures/demo/ip-ranges/googlebot.json"),
    ),
    (
        "snapshot/blog.example/pages.jsonl",
        include_bytes!("../../fixtures/demo/snapshot/blog.example/pages.jsonl"),
    ),
    (
        "snapshot/blog.example/robots.txt",
        include_bytes!("../../fixtures/demo/snapshot/blog.example/robots.txt"),
    ),
    (
        "snapshot/shop.example/pages.jsonl",
        include_bytes!("../../fixtures/demo/snapshot/shop.example/pages.jsonl"),
    ),
    (
        "snapshot/shop.example/robots/2026-10-01T00-00-00Z.txt",
        include_bytes!("../../fixtures/demo/snapshot/shop.example/robots/2026-10-01T00-00-00Z.txt"),
    ),
    (
        "snapshot/shop.example/robots/2026-11-03T00-00-00Z.txt",
        include_bytes!("../../fixtures/demo/snapshot/shop.example/robots/2026-11-03T00-00-00Z.txt"),
    ),
    (
        "snapshot/shop.example/robots/2026-11-05T10-00-00Z.503",
        include_bytes!("../../fixtures/demo/snapshot/shop.example/robots/2026-11-05T10-00-00Z.503"),
    ),
    (
        "snapshot/shop.example/robots/2026-11-06T14-00-00Z.txt",
        include_bytes!("../../fixtures/demo/snapshot/shop.example/robots/2026-11-06T14-00-00Z.txt"),
    ),
];

/// The demo written out to a temporary directory, removed when dropped
/// (or when the owner of [`Demo::take_files`] drops them).
pub struct Demo {
    /// Where the files are.
    root: PathBuf,
    /// Created exclusively, with an unpredictable name (no one can plant
    /// links in it), and removed when dropped; `None` once taken.
    dir: Option<tempfile::TempDir>,
}

impl Demo {
    /// Writes the demo files to a fresh temporary directory.
    pub fn unpack() -> anyhow::Result<Demo> {
        let dir = tempfile::Builder::new()
            .prefix("crawlaudit-demo-")
            .tempdir()
            .context("cannot create a temporary directory for the demo")?;
        for (path, bytes) in FILES {
            let target = dir.path().join(path);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)
                    .with_context(|| format!("cannot create {}", parent.display()))?;
            }
            std::fs::write(&target, bytes)
                .with_context(|| format!("cannot write {}", target.display()))?;
        }
        Ok(Demo {
            root: dir.path().to_path_buf(),
            dir: Some(dir),
        })
    }

    /// The temporary directory itself, removed when the returned value is
    /// dropped, whatever becomes of the `Demo` (one that is never dropped,
    /// as the audit's prepared run is not, still has its files removed).
    pub fn take_files(&mut self) -> Option<tempfile::TempDir> {
        self.dir.take()
    }

    /// The demo's access log.
    pub fn log(&self) -> PathBuf {
        self.root.join("access.log")
    }

    /// The demo's snapshot directory.
    pub fn snapshot(&self) -> PathBuf {
        self.root.join("snapshot")
    }

    /// The demo's IP range files.
    pub fn ip_ranges(&self) -> PathBuf {
        self.root.join("ip-ranges")
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    /// The embedded list is the directory: a demo file added by the
    /// generator and not listed here fails this test.
    #[test]
    fn every_demo_file_is_embedded() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/demo");
        let mut on_disk = Vec::new();
        let mut stack = vec![root.clone()];
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    stack.push(path);
                } else {
                    on_disk.push(
                        path.strip_prefix(&root)
                            .unwrap()
                            .to_string_lossy()
                            .into_owned(),
                    );
                }
            }
        }
        on_disk.sort();
        let embedded: Vec<String> = FILES.iter().map(|(p, _)| p.to_string()).collect();
        assert_eq!(embedded, on_disk);
        for (path, bytes) in FILES {
            assert_eq!(std::fs::read(root.join(path)).unwrap(), *bytes, "{path}");
        }
    }
}
