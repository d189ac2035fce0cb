//! A report file being written: its bytes on their way to disk while the
//! rest of the report is still being made, so that the `fsync` that ends
//! the file waits for little.
//!
//! Two ways, one per part of a file. Its first [`DIRECT_FROM`] bytes (all
//! of most report files) go through the page cache, and their writeback is
//! started every [`WRITEBACK_STEP`] bytes. On Linux, on a local disk's
//! file system, the rest of a large file (the violations tables run to
//! hundreds of megabytes) is written around the page cache (`O_DIRECT`),
//! [`DIRECT_STEP`] bytes at a time from an aligned buffer of the writer's
//! own: the bytes are copied once, not into freshly allocated cache pages
//! that the system must clear, write back and reclaim (on a virtual
//! machine whose freed memory goes back to its host, each such page is a
//! fault), and a report does not push the logs it was made from out of
//! the cache. A file system that refuses direct writes (or a write it
//! refuses) turns the file back to the page cache, with nothing lost; the
//! last partial step goes through it too.

use std::fs;
use std::io::Write;

/// How many bytes are written through the page cache before their
/// writeback is started.
const WRITEBACK_STEP: u64 = 8 << 20;

/// From which size on a file is written directly (Linux): the smaller
/// report files never are.
const DIRECT_FROM: u64 = 4 << 20;

/// Bytes staged for one direct write: a multiple of any block size a
/// device asks of direct writes, large enough for the device to stream.
const DIRECT_STEP: usize = 1 << 20;

/// The alignment of a direct write's memory, offset and length.
const DIRECT_ALIGN: usize = 4096;

const _: () = assert!(DIRECT_FROM % DIRECT_ALIGN as u64 == 0 && DIRECT_STEP % DIRECT_ALIGN == 0);

/// A report file being written; see the module's documentation.
pub(super) struct Writeback {
    file: fs::File,
    /// Bytes written to the file (staged bytes not counted).
    written: u64,
    /// Bytes whose writeback (through the page cache) was started.
    started: u64,
    /// Bytes written directly.
    direct_bytes: u64,
    /// How the next bytes go to the file.
    mode: Mode,
    /// The size of a direct write (a field so that tests can make it small).
    step: usize,
    /// The first write error, kept: a writer above (Parquet's) may report
    /// it in words of its own ("transport error") that lose the cause.
    error: Option<String>,
}

/// How a [`Writeback`]'s next bytes go to its file.
enum Mode {
    /// Through the page cache, until the file reaches [`DIRECT_FROM`].
    Cached,
    /// Staged, then written directly.
    Direct(Stage),
    /// Through the page cache to the end (direct writes refused, or not
    /// available here).
    CachedOnly,
}

/// A direct write's bytes, gathered in an aligned window of a buffer.
struct Stage {
    buf: Vec<u8>,
    /// Where the aligned window begins in `buf`.
    start: usize,
    /// Bytes in the window.
    len: usize,
}

impl Stage {
    fn new(step: usize) -> Self {
        let buf = vec![0; step + DIRECT_ALIGN];
        let start = buf.as_ptr().align_offset(DIRECT_ALIGN);
        Stage { buf, start, len: 0 }
    }

    /// How many bytes the window holds: one direct write.
    fn capacity(&self) -> usize {
        self.buf.len() - DIRECT_ALIGN
    }

    /// Copies what fits of `bytes` after the staged ones; how much.
    fn put(&mut self, bytes: &[u8]) -> usize {
        let n = bytes.len().min(self.capacity() - self.len);
        let at = self.start + self.len;
        self.buf[at..at + n].copy_from_slice(&bytes[..n]);
        self.len += n;
        n
    }

    fn staged(&self) -> &[u8] {
        &self.buf[self.start..self.start + self.len]
    }
}

impl Writeback {
    /// Wraps a file created for writing.
    pub(super) fn new(file: fs::File) -> Self {
        Writeback {
            file,
            written: 0,
            started: 0,
            direct_bytes: 0,
            mode: if cfg!(target_os = "linux") {
                Mode::Cached
            } else {
                Mode::CachedOnly
            },
            step: DIRECT_STEP,
            error: None,
        }
    }

    /// The first error a write met, if any.
    pub(super) fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// Writes the staged bytes and flushes the file to disk (`fsync`).
    pub(super) fn sync(mut self) -> std::io::Result<()> {
        if let Mode::Direct(stage) = std::mem::replace(&mut self.mode, Mode::CachedOnly) {
            // The last, partial step: through the page cache.
            if !stage.staged().is_empty() {
                self.uncached(false).map_err(|e| self.keep(e))?;
                self.cached_all(stage.staged())?;
            }
        }
        self.file.sync_all()
    }

    /// Bytes written around the page cache so far.
    #[cfg(test)]
    pub(super) fn direct_bytes(&self) -> u64 {
        self.direct_bytes
    }

    /// Keeps `e` as the first error, if it is; hands it back.
    fn keep(&mut self, e: std::io::Error) -> std::io::Error {
        if self.error.is_none() {
            self.error = Some(e.to_string());
        }
        e
    }

    /// Writes `buf` (or its beginning) through the page cache.
    fn cached(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.file.write(buf).map_err(|e| self.keep(e))?;
        self.written += n as u64;
        if self.written - self.started >= WRITEBACK_STEP {
            self.start_writeback();
        }
        Ok(n)
    }

    /// Writes all of `buf` through the page cache.
    fn cached_all(&mut self, mut buf: &[u8]) -> std::io::Result<()> {
        while !buf.is_empty() {
            match self.cached(buf) {
                Ok(0) => {
                    return Err(self.keep(std::io::ErrorKind::WriteZero.into()));
                }
                Ok(n) => buf = &buf[n..],
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Writes the full stage directly; a refused direct write, or one cut
    /// short off the alignment, sends the rest (and what follows) through
    /// the page cache.
    fn write_stage(&mut self) -> std::io::Result<()> {
        let Mode::Direct(stage) = std::mem::replace(&mut self.mode, Mode::CachedOnly) else {
            return Ok(());
        };
        let bytes = stage.staged();
        let mut done = 0;
        while done < bytes.len() {
            match self.file.write(&bytes[done..]) {
                Ok(0) => return Err(self.keep(std::io::ErrorKind::WriteZero.into())),
                Ok(n) => {
                    done += n;
                    self.written += n as u64;
                    self.direct_bytes += n as u64;
                    // On disk already: no writeback to start for them.
                    self.started = self.written;
                    if done % DIRECT_ALIGN != 0 {
                        break;
                    }
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                // Refused (`EINVAL`: alignment, or a file system that takes
                // the flag but not the write): nothing was written.
                Err(e) if e.kind() == std::io::ErrorKind::InvalidInput => break,
                Err(e) => return Err(self.keep(e)),
            }
        }
        if done < bytes.len() {
            self.uncached(false).map_err(|e| self.keep(e))?;
            return self.cached_all(&bytes[done..]);
        }
        let mut stage = stage;
        stage.len = 0;
        self.mode = Mode::Direct(stage);
        Ok(())
    }

    /// Turns direct writing of the file on or off (`O_DIRECT`).
    #[cfg(target_os = "linux")]
    fn uncached(&mut self, on: bool) -> std::io::Result<()> {
        use std::os::fd::AsRawFd;
        let fd = self.file.as_raw_fd();
        // SAFETY: `fcntl` on a descriptor of ours, reading no memory.
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        let flags = if on {
            flags | libc::O_DIRECT
        } else {
            flags & !libc::O_DIRECT
        };
        // SAFETY: as above.
        if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(())
    }

    /// Elsewhere every file goes through the page cache.
    #[cfg(not(target_os = "linux"))]
    fn uncached(&mut self, _on: bool) -> std::io::Result<()> {
        Ok(())
    }

    /// Starts the writeback of the bytes written since the last start.
    #[cfg(target_os = "linux")]
    fn start_writeback(&mut self) {
        use std::os::fd::AsRawFd;
        let (from, len) = (self.started, self.written - self.started);
        // SAFETY: a valid descriptor of ours; the call reads no memory.
        // Only a hint: its failure (a file system without it) changes
        // nothing, the final fsync writes what it did not.
        unsafe {
            libc::sync_file_range(
                self.file.as_raw_fd(),
                from as libc::off64_t,
                len as libc::off64_t,
                libc::SYNC_FILE_RANGE_WRITE,
            );
        }
        self.started = self.written;
    }

    /// Elsewhere the final `fsync` writes the whole file.
    #[cfg(not(target_os = "linux"))]
    fn start_writeback(&mut self) {
        self.started = self.written;
    }
}

/// Whether `file` lies on a local disk's file system, where a direct
/// write streams to the device: ext2/3/4, XFS, Btrfs, F2FS. Elsewhere a
/// direct write may cost more than the page cache it saves (a network
/// file system's is synchronous; tmpfs has no device), and the file is
/// written through the page cache.
#[cfg(target_os = "linux")]
fn on_local_disk(file: &fs::File) -> bool {
    use std::os::fd::AsRawFd;
    const LOCAL: [u32; 4] = [0xEF53, 0x5846_5342, 0x9123_683E, 0xF2F5_2010];
    // SAFETY: `fstatfs` fills the zeroed struct it is given, from a
    // descriptor of ours.
    let mut st: libc::statfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::fstatfs(file.as_raw_fd(), &raw mut st) } != 0 {
        return false;
    }
    // The magic numbers are 32-bit; the field's width varies by platform.
    LOCAL.contains(&(st.f_type as u64 as u32))
}

#[cfg(not(target_os = "linux"))]
fn on_local_disk(_file: &fs::File) -> bool {
    false
}

impl Write for Writeback {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match &mut self.mode {
            Mode::CachedOnly => self.cached(buf),
            Mode::Cached => {
                // Up to the size where direct writing begins (an aligned
                // offset), through the page cache.
                if self.written < DIRECT_FROM {
                    let below = usize::try_from(DIRECT_FROM - self.written).unwrap_or(usize::MAX);
                    return self.cached(&buf[..buf.len().min(below)]);
                }
                // On a local disk only, and where the flag is taken.
                let direct = on_local_disk(&self.file) && self.uncached(true).is_ok();
                self.mode = if direct {
                    // The cached part on its way to disk now, not at the
                    // closing `fsync`.
                    self.start_writeback();
                    Mode::Direct(Stage::new(self.step))
                } else {
                    Mode::CachedOnly
                };
                self.write(buf)
            }
            Mode::Direct(stage) => {
                let n = stage.put(buf);
                if stage.len == stage.capacity() {
                    self.write_stage()?;
                }
                Ok(n)
            }
        }
    }

    /// Staged bytes stay staged: [`Writeback::sync`] writes them.
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pieces of every size, in a deterministic order.
    fn pieces(n: u32) -> Vec<Vec<u8>> {
        (0..n)
            .map(|i| (0..(i * 7_919 % 13_331)).map(|j| (i ^ j) as u8).collect())
            .collect()
    }

    fn write_all(w: &mut Writeback, pieces: &[Vec<u8>]) -> Vec<u8> {
        let mut want = Vec::new();
        for piece in pieces {
            w.write_all(piece).unwrap();
            want.extend_from_slice(piece);
        }
        want
    }

    /// What goes through is the file's content, whatever the pieces; the
    /// writeback is started behind the writes, a step at a time; past
    /// `DIRECT_FROM`, the file is written directly where the system can.
    #[test]
    fn writeback_writes_every_byte_and_starts_behind() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big");
        let file = fs::File::create(&path).unwrap();
        let local = on_local_disk(&file);
        let mut w = Writeback::new(file);
        let want = write_all(&mut w, &pieces(3_000));
        assert!(want.len() as u64 > DIRECT_FROM + 2 * DIRECT_STEP as u64);
        // ext4, XFS, Btrfs and F2FS all take aligned direct writes.
        assert_eq!(w.direct_bytes() > 0, local);
        // Staged bytes are not written yet.
        assert!(w.written <= want.len() as u64);
        assert!(w.written - w.started < WRITEBACK_STEP || w.direct_bytes > 0);
        if w.direct_bytes() == 0 {
            assert!(w.started >= WRITEBACK_STEP, "no writeback: {}", w.started);
        } else {
            // Direct writes begin where the cached part ends, aligned, and
            // are whole steps.
            assert_eq!(w.written - w.direct_bytes(), DIRECT_FROM);
            assert_eq!(w.direct_bytes() % DIRECT_STEP as u64, 0);
        }
        w.sync().unwrap();
        assert!(fs::read(&path).unwrap() == want);
    }

    /// A file on tmpfs (no device behind it) is never written directly,
    /// whatever its size.
    #[cfg(target_os = "linux")]
    #[test]
    fn files_off_a_local_disk_go_through_the_page_cache() {
        let shm = std::path::Path::new("/dev/shm");
        if !shm.is_dir() {
            return;
        }
        let dir = tempfile::tempdir_in(shm).unwrap();
        let path = dir.path().join("big");
        let file = fs::File::create(&path).unwrap();
        assert!(!on_local_disk(&file));
        let mut w = Writeback::new(file);
        let want = write_all(&mut w, &pieces(1_300));
        assert!(want.len() as u64 > DIRECT_FROM);
        assert_eq!(w.direct_bytes(), 0);
        w.sync().unwrap();
        assert!(fs::read(&path).unwrap() == want);
    }

    /// A file of less than `DIRECT_FROM` bytes is never written directly.
    #[test]
    fn small_files_go_through_the_page_cache() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("small");
        let mut w = Writeback::new(fs::File::create(&path).unwrap());
        let want = write_all(&mut w, &pieces(200));
        assert!((want.len() as u64) < DIRECT_FROM);
        assert_eq!((w.direct_bytes(), w.written), (0, want.len() as u64));
        w.sync().unwrap();
        assert!(fs::read(&path).unwrap() == want);
    }

    /// Direct writes the device refuses (a step that is no multiple of its
    /// block size) and accepts (a small aligned one), the last step partial:
    /// every byte lands, in order.
    #[test]
    fn refused_and_small_direct_steps_lose_nothing() {
        for step in [1_000, DIRECT_ALIGN, 3 * DIRECT_ALIGN] {
            let dir = tempfile::tempdir().unwrap();
            let path = dir.path().join("f");
            let mut w = Writeback::new(fs::File::create(&path).unwrap());
            w.step = step;
            let want = write_all(&mut w, &pieces(1_300));
            assert!(want.len() as u64 > DIRECT_FROM + 10 * step as u64);
            w.sync().unwrap();
            let got = fs::read(&path).unwrap();
            assert_eq!(got.len(), want.len(), "step {step}");
            assert!(got == want, "step {step}: the bytes differ");
        }
    }
}
