//! Reading whole files that the user names, with a bound: a link to
//! `/dev/zero` or a sparse file of gigabytes must not fill the memory.

use std::io::{self, Read};
use std::path::Path;

/// The first `n` bytes of `path` (fewer when it is shorter); the rest is
/// not read. Works on pipes too (`<(curl ...)`).
///
/// # Errors
/// The file cannot be opened or read.
pub fn read_prefix(path: &Path, n: u64) -> io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    std::fs::File::open(path)?.take(n).read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// All of `path`, if it holds at most `limit` bytes.
///
/// # Errors
/// The file cannot be opened or read, or it is larger than `limit`
/// (`InvalidData`, saying so).
pub fn read_at_most(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let bytes = read_prefix(path, limit.saturating_add(1))?;
    if bytes.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "larger than {} MiB, more than such a file holds",
                limit >> 20
            ),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn an_endless_file_costs_its_bound() {
        let zero = Path::new("/dev/zero");
        assert_eq!(read_prefix(zero, 1000).unwrap().len(), 1000);
        let e = read_at_most(zero, 1 << 20).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
        assert_eq!(
            e.to_string(),
            "larger than 1 MiB, more than such a file holds"
        );
        let dir = std::env::temp_dir().join(format!("crawlaudit-bounded-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let small = dir.join("small");
        std::fs::write(&small, b"abc").unwrap();
        assert_eq!(read_at_most(&small, 3).unwrap(), b"abc");
        assert!(read_at_most(&small, 2).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
