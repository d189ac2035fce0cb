//! Reading one log input, in parallel, accounting for every line.
//!
//! Plain files are read in 32 MiB windows (on Linux mapped, see
//! `mapped`; elsewhere read with `pread`, in pieces in parallel, into a
//! reused buffer) split into newline-aligned chunks that worker threads
//! parse in parallel, two windows in flight: the next window's chunks are
//! handed out while the last ones of this one are parsed, and a window is
//! unmapped by the reading thread while the workers parse the next; a file
//! truncated during the run is a fault, not a crash.
//! Compressed files (gzip, zstd and bzip2, recognised by their
//! first bytes; multi-member, multi-frame and multi-stream too) and standard
//! input are read as a stream: one thread reads and decompresses into
//! blocks of whole lines while worker threads parse the blocks as they
//! come, so decompression and parsing overlap. Either way each chunk feeds
//! its own [`Sink`], and the sinks come back in file order, so the result
//! does not depend on how the work was split.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, Read};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, mpsc};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::csv_log::CsvFormat;
use super::{BadReason, Compiled, Format, Input, JsonFields, Request, detect};

/// Receives the requests of one chunk of a log, in line order.
pub trait Sink: Send {
    /// Takes one parsed line.
    fn record(&mut self, request: &Request<'_>);

    /// Sees the line that will be recorded after the one being recorded
    /// next, so that the sink can ask the processor to fetch what it will
    /// look up for it ([`Sink::record`] follows with the same request).
    /// A hint: it must change nothing. The default does nothing.
    fn prefetch(&self, _request: &Request<'_>) {}

    /// Does the sink use [`Sink::prefetch`]? Read once per chunk: a sink
    /// that does not is handed each request as soon as it is parsed.
    fn prefetches(&self) -> bool {
        false
    }

    /// The chunk is done: nothing more will be recorded. Sinks are kept
    /// until every chunk is read, so this is where one frees what only
    /// the chunk needed (caches).
    fn finish(&mut self) {}

    /// The reader accepts the chunk, after `finish`: what it read is part
    /// of the input's result. Chunks are accepted in file order, each
    /// once, one at a time, as soon as the chunks before them are (a
    /// Parquet file's row groups once all are read); a chunk parsed but
    /// not accepted (past a fault) is dropped. A sink may gather here
    /// what must be gathered in order.
    fn accept(&mut self) {}
}

/// `sinks`, in file order, each accepted ([`Sink::accept`]).
pub(crate) fn accepted<S: Sink>(mut sinks: Vec<S>) -> Vec<S> {
    for sink in &mut sinks {
        sink.accept();
    }
    sinks
}

/// Chunks numbered in file order from 0, parsed in any order and each
/// accepted ([`Sink::accept`]) as soon as the chunks before it are: a
/// stream's and a CSV file's workers hand theirs in under one lock.
struct InOrder<S> {
    next: usize,
    waiting: BTreeMap<usize, (S, Counts)>,
    done: Vec<(S, Counts)>,
}

impl<S: Sink> InOrder<S> {
    fn new() -> Self {
        InOrder {
            next: 0,
            waiting: BTreeMap::new(),
            done: Vec::new(),
        }
    }

    /// Chunk `index`, parsed.
    fn push(&mut self, index: usize, sink: S, counts: Counts) {
        self.waiting.insert(index, (sink, counts));
        while let Some((mut sink, counts)) = self.waiting.remove(&self.next) {
            sink.accept();
            self.done.push((sink, counts));
            self.next += 1;
        }
    }

    /// The chunks in file order, all accepted (the numbers run without a
    /// gap: a chunk after a missing one is accepted now, in order).
    fn into_sinks(mut self) -> (Vec<S>, Vec<Counts>) {
        for (_, (mut sink, counts)) in std::mem::take(&mut self.waiting) {
            sink.accept();
            self.done.push((sink, counts));
        }
        self.done.into_iter().unzip()
    }
}

/// How to read inputs.
#[derive(Clone, Debug)]
pub struct ReadOptions {
    /// The line format, or [`Format::Auto`] to detect it per file.
    pub format: Format,
    /// The size of the chunks and stream blocks parsed as one task.
    pub chunk_size: usize,
}

impl Default for ReadOptions {
    fn default() -> Self {
        ReadOptions {
            format: Format::Auto,
            chunk_size: 8 << 20,
        }
    }
}

/// A line that could not be read, kept as a sample.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BadSample {
    /// 1-based line number in the (decompressed) input.
    pub line: u64,
    /// Why it could not be read ([`BadReason::as_str`]).
    pub reason: String,
    /// The first 200 bytes of the line, lossily as UTF-8.
    pub text: String,
}

/// What reading one input found: every line is parsed, empty, a
/// directive, or bad (with a reason); nothing is silently dropped.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileReport {
    /// The input's name (`-` for standard input).
    pub path: String,
    /// The format used (detected, or given).
    pub format: String,
    /// Whether the input was compressed (with any compression).
    pub compressed: bool,
    /// The compression used, when there was one: `gzip`, `zstd` or
    /// `bzip2`. `summary.json` names only `zstd` and `bzip2`: for plain
    /// and gzip inputs the field is left out, and `compressed` tells them
    /// apart, as it did before zstd and bzip2 were read.
    #[serde(default, skip_serializing_if = "plain_or_gzip")]
    pub compression: Option<String>,
    /// Bytes of log text read (after decompression).
    pub bytes: u64,
    /// Lines read.
    pub lines: u64,
    /// Lines parsed into requests.
    pub parsed: u64,
    /// Parsed lines whose request line was not an HTTP request (`-`, a TLS
    /// handshake): counted, never judged.
    pub not_requests: u64,
    /// Empty lines.
    pub empty: u64,
    /// W3C directive lines (`#Fields:` and other `#` lines).
    pub directives: u64,
    /// Lines that could not be read.
    pub bad: u64,
    /// Bad lines by reason.
    pub bad_by_reason: BTreeMap<String, u64>,
    /// Up to 10 bad lines: line number, reason, first 200 bytes.
    pub samples: Vec<BadSample>,
    /// An input fault (unreadable file, corrupt or truncated compressed
    /// stream): the lines read before it were used.
    pub fault: Option<String>,
}

/// Whether `summary.json` leaves [`FileReport::compression`] out.
fn plain_or_gzip(compression: &Option<String>) -> bool {
    compression.as_deref().is_none_or(|c| c == "gzip")
}

const MAX_SAMPLES: usize = 10;
/// The longest log line parsed. A longer line is counted as a bad line
/// (`too-long`) and sampled, and its bytes are skipped without being held:
/// a 100 MB line, or a gzip bomb of a gigabyte without a newline, costs
/// time in proportion to its size and no more memory than this.
pub const MAX_LINE: usize = 1 << 20;
const SAMPLE_BYTES: usize = 200;
const DETECT_BYTES: usize = 64 << 10;

/// Counts of one chunk; merged in order into the file's report.
#[derive(Debug, Default)]
struct Counts {
    lines: u64,
    parsed: u64,
    not_requests: u64,
    empty: u64,
    directives: u64,
    bad: BTreeMap<BadReason, u64>,
    /// (line number within the chunk, reason, text)
    samples: Vec<(u64, BadReason, String)>,
}

impl Counts {
    /// Accounts for one line read into `read` (already counted in
    /// `lines`): a request is recorded into `sink`, and counted as no
    /// request when it is none; a bad line is counted ([`Counts::bad`]).
    fn read<S: Sink>(
        &mut self,
        read: Result<Request<'_>, BadReason>,
        sink: &mut S,
        line: u64,
        text: impl FnOnce() -> String,
    ) {
        // Matched in place: a request moved out of the result is a copy
        // of its 200 bytes per line.
        match &read {
            Ok(request) => {
                self.parsed(request);
                sink.record(request);
            }
            Err(reason) => self.bad(line, *reason, text),
        }
    }

    /// Counts `request`, a line parsed (and whether it is no request).
    fn parsed(&mut self, request: &Request<'_>) {
        self.parsed += 1;
        if !request.is_valid_request() {
            self.not_requests += 1;
        }
    }

    /// Counts a bad line of `reason`, sampling it at `line` with the text
    /// `text` makes while fewer than [`MAX_SAMPLES`] are kept.
    fn bad(&mut self, line: u64, reason: BadReason, text: impl FnOnce() -> String) {
        *self.bad.entry(reason).or_insert(0) += 1;
        if self.samples.len() < MAX_SAMPLES {
            self.samples.push((line, reason, text()));
        }
    }
}

/// The sample text of a line: its first [`SAMPLE_BYTES`], lossily.
fn sample_text(line: &[u8]) -> String {
    String::from_utf8_lossy(&line[..line.len().min(SAMPLE_BYTES)]).into_owned()
}

fn parse_chunk<S: Sink>(data: &[u8], parser: &mut Compiled, sink: &mut S) -> Counts {
    if sink.prefetches() {
        parse_lines::<S, true>(data, parser, sink)
    } else {
        parse_lines::<S, false>(data, parser, sink)
    }
}

/// Parses the lines of `data` into `sink`; `AHEAD`: each request is shown
/// to the sink ([`Sink::prefetch`]) a line before it is recorded.
fn parse_lines<'d, S: Sink, const AHEAD: bool>(
    data: &'d [u8],
    parser: &mut Compiled,
    sink: &mut S,
) -> Counts {
    let mut counts = Counts::default();
    // The request parsed last (in `slots[1 - next]`): it is recorded once
    // the next one is parsed (into `slots[next]`) and shown to the sink.
    // Two places taken in turn, so that a request is moved once, into its
    // place, not again out of it to be recorded (200 bytes a line).
    let mut slots: [Option<Request<'d>>; 2] = [None, None];
    let mut next = 0;
    let mut handle = |line: &'d [u8], counts: &mut Counts| {
        counts.lines += 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.len() > MAX_LINE {
            too_long(counts, line);
            return;
        }
        if line.trim_ascii().is_empty() {
            counts.empty += 1;
            return;
        }
        if line[0] == b'#' && parser.is_w3c() {
            counts.directives += 1;
            parser.directive(line);
            return;
        }
        let at = counts.lines;
        if !AHEAD {
            counts.read(parser.parse(line), sink, at, || sample_text(line));
            return;
        }
        match parser.parse(line) {
            Ok(request) => {
                counts.parsed(&request);
                let request = slots[next].insert(request);
                sink.prefetch(request);
                next = 1 - next;
                if let Some(before) = &slots[next] {
                    sink.record(before);
                }
            }
            Err(reason) => counts.bad(at, reason, || sample_text(line)),
        }
    };
    let mut start = 0;
    for nl in memchr::memchr_iter(b'\n', data) {
        handle(&data[start..nl], &mut counts);
        start = nl + 1;
    }
    if start < data.len() {
        handle(&data[start..], &mut counts);
    }
    if let Some(last) = &slots[1 - next] {
        sink.record(last);
    }
    counts
}

/// Counts one line longer than [`MAX_LINE`] (already counted in `lines`),
/// sampling its start.
fn too_long(counts: &mut Counts, head: &[u8]) {
    let at = counts.lines;
    counts.bad(at, BadReason::TooLong, || sample_text(head));
}

/// The counts of one skipped over-long line that starts with `head`.
fn one_too_long(head: &[u8]) -> Counts {
    let mut counts = Counts {
        lines: 1,
        ..Counts::default()
    };
    too_long(&mut counts, head);
    counts
}

/// Splits `data` into chunks of about `size` bytes that end at line ends.
fn chunk_bounds(data: &[u8], size: usize) -> Vec<(usize, usize)> {
    let mut bounds = Vec::new();
    let mut start = 0;
    while start < data.len() {
        let nominal = (start + size.max(1)).min(data.len());
        let end = if nominal == data.len() {
            nominal
        } else {
            memchr::memchr(b'\n', &data[nominal..]).map_or(data.len(), |p| nominal + p + 1)
        };
        bounds.push((start, end));
        start = end;
    }
    bounds
}

/// The state a W3C parser must have at the start of each chunk: the last
/// `#Fields:` directive before it.
fn w3c_states(data: &[u8], bounds: &[(usize, usize)], base: &Compiled) -> Vec<Compiled> {
    let mut state = base.clone();
    let mut out = Vec::with_capacity(bounds.len());
    for &(start, end) in bounds {
        out.push(state.clone());
        if base.is_w3c() {
            apply_directives(&data[start..end], &mut state);
        }
    }
    out
}

fn apply_directives(block: &[u8], state: &mut Compiled) {
    let finder = memchr::memmem::Finder::new(b"#Fields:");
    for pos in finder.find_iter(block) {
        if pos == 0 || block[pos - 1] == b'\n' {
            let end = memchr::memchr(b'\n', &block[pos..]).map_or(block.len(), |p| pos + p);
            let line = &block[pos..end];
            state.directive(line.strip_suffix(b"\r").unwrap_or(line));
        }
    }
}

/// Merges chunk counts, in order, into the report (line numbers of
/// samples become file line numbers).
fn merge(report: &mut FileReport, counts: impl IntoIterator<Item = Counts>) {
    merge_at(report, counts, true);
}

/// [`merge`], with the samples' lines relative to the lines merged before
/// (`relative`) or already the file's own (a CSV row's line, which its
/// row count does not give: rows may span lines, and a file of `\r` line
/// ends has one line).
fn merge_at(report: &mut FileReport, counts: impl IntoIterator<Item = Counts>, relative: bool) {
    for c in counts {
        let offset = if relative { report.lines } else { 0 };
        report.lines += c.lines;
        report.parsed += c.parsed;
        report.not_requests += c.not_requests;
        report.empty += c.empty;
        report.directives += c.directives;
        for (reason, n) in c.bad {
            report.bad += n;
            *report
                .bad_by_reason
                .entry(reason.as_str().to_string())
                .or_insert(0) += n;
        }
        for (line, reason, text) in c.samples {
            if report.samples.len() < MAX_SAMPLES {
                report.samples.push(BadSample {
                    line: offset + line,
                    reason: reason.as_str().to_string(),
                    text,
                });
            }
        }
    }
}

/// Resolves `Auto` from the first bytes; `None` when nothing fits.
fn resolve_format(format: &Format, sample: &[u8]) -> Option<Format> {
    match format {
        Format::Auto => detect(sample),
        f => Some(f.clone()),
    }
}

/// A compression this reader does not handle, from the magic bytes.
fn unsupported_compression(head: &[u8]) -> Option<&'static str> {
    if head.starts_with(&[0xFD, b'7', b'z', b'X', b'Z', 0]) {
        Some("xz (decompress it first, e.g. `xzcat FILE | crawlaudit audit -`)")
    } else {
        None
    }
}

/// A compression the reader decompresses as it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Compression {
    Gzip,
    Zstd,
    Bzip2,
}

impl Compression {
    /// The compression the first bytes (at least 4 when there are) announce.
    fn detect(head: &[u8]) -> Option<Compression> {
        match head {
            [0x1F, 0x8B, ..] => Some(Compression::Gzip),
            // A zstd frame, or a skippable frame (magic 0x184D2A5?), which
            // pzstd writes before each frame.
            [0x28, 0xB5, 0x2F, 0xFD, ..] => Some(Compression::Zstd),
            [m, 0x2A, 0x4D, 0x18, ..] if m & 0xF0 == 0x50 => Some(Compression::Zstd),
            // "BZh" and the block size, 1 to 9 (hundreds of kB).
            [b'B', b'Z', b'h', b'1'..=b'9', ..] => Some(Compression::Bzip2),
            _ => None,
        }
    }

    /// Its name in messages and reports.
    fn name(self) -> &'static str {
        match self {
            Compression::Gzip => "gzip",
            Compression::Zstd => "zstd",
            Compression::Bzip2 => "bzip2",
        }
    }
}

/// The largest zstd window accepted (2^27 = 128 MiB, libzstd's and
/// `zstd -d`'s default limit, which `zstd --long` and `--ultra -22` stay
/// within): the most memory the decoder holds, whatever the input. A
/// larger window is a fault that says how to decompress the file first.
const ZSTD_WINDOW_LOG_MAX: u32 = 27;

/// libzstd's message for a frame whose window is over the limit
/// (`ZSTD_error_frameParameter_windowTooLarge`), which the zstd crate
/// passes on as the error's text.
fn zstd_window_too_large() -> &'static str {
    use zstd::zstd_safe::{get_error_name, zstd_sys::ZSTD_ErrorCode};
    // libzstd returns error codes as `(size_t)-code`.
    get_error_name(
        0usize.wrapping_sub(ZSTD_ErrorCode::ZSTD_error_frameParameter_windowTooLarge as usize),
    )
}

/// The most a decoder is asked for in one read. A decoder that meets a
/// corrupt spot fails the whole read, dropping what that read had already
/// decompressed; smaller reads than a block keep all but at most this much
/// of the text before the corruption. Not much smaller: zlib copies the
/// end of each read's output into its 32 KiB window, so 16 KiB reads made
/// gzip 15% slower (256 KiB: within noise of whole-block reads).
const DECODE_READ: usize = 256 << 10;

/// Reads at most [`DECODE_READ`] bytes at a time from a decoder.
struct SmallReads<R>(R);

impl<R: Read> Read for SmallReads<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let len = buf.len().min(DECODE_READ);
        self.0.read(&mut buf[..len])
    }
}

/// The decompressed stream of `compressed`, read through a 1 MiB buffer;
/// `consumed` counts the compressed bytes the decoder used.
fn decoder<'a>(
    compression: Compression,
    compressed: impl Read + Send + 'a,
    consumed: Arc<AtomicU64>,
) -> io::Result<Box<dyn Read + Send + 'a>> {
    let buffered = Counting {
        inner: io::BufReader::with_capacity(1 << 20, compressed),
        count: consumed,
    };
    Ok(match compression {
        Compression::Gzip => Box::new(SmallReads(GzMembers::new(buffered))),
        Compression::Zstd => {
            // Reads frame after frame (skippable ones skipped) to the end.
            let mut d = zstd::stream::read::Decoder::with_buffer(buffered)?;
            d.window_log_max(ZSTD_WINDOW_LOG_MAX)?;
            Box::new(SmallReads(d))
        }
        Compression::Bzip2 => Box::new(SmallReads(bzip2::bufread::MultiBzDecoder::new(buffered))),
    })
}

/// Reads one input into sinks made by `make_sink` (one per chunk, returned
/// in file order) and reports on every line.
///
/// Faults (an unreadable file, a corrupt or truncated compressed stream, an
/// unsupported compression, a format that cannot be detected) are named in
/// [`FileReport::fault`]; the lines read before the fault are kept.
pub fn read_input<S, F>(input: &Input, options: &ReadOptions, make_sink: &F) -> (Vec<S>, FileReport)
where
    S: Sink,
    F: Fn() -> S + Sync,
{
    let mut report = FileReport {
        path: input.name(),
        ..FileReport::default()
    };
    match input {
        Input::Stdin => match stdin_closed() {
            Some(why) => {
                report.fault = Some(format!(
                    "standard input is closed ({why}): pipe the log in (e.g. `zcat access.log.gz | crawlaudit audit - ...`) or name the log files"
                ));
                (Vec::new(), report)
            }
            None => read_stream(io::stdin(), report, options, make_sink),
        },
        Input::File(path) => match File::open(path) {
            Err(e) => {
                report.fault = Some(format!("cannot read {}: {e}", path.display()));
                (Vec::new(), report)
            }
            Ok(file) => read_file(path, file, report, options, make_sink),
        },
    }
}

/// Why standard input cannot be read, when it is closed: the Rust runtime
/// reads a closed descriptor 0 as empty (it opens `/dev/null` read-write in
/// its place at start-up, and reads that fail with `EBADF` return 0 bytes),
/// so a `<&-` would pass for an empty log. `None` when it is open for
/// reading (which includes an empty pipe or `</dev/null`).
#[cfg(target_os = "linux")]
fn stdin_closed() -> Option<&'static str> {
    // SAFETY: fcntl and fstat on descriptor 0 with a valid out-pointer;
    // they touch no memory of ours otherwise.
    let flags = unsafe { libc::fcntl(0, libc::F_GETFL) };
    if flags == -1 {
        return Some("descriptor 0 is not open");
    }
    match flags & libc::O_ACCMODE {
        libc::O_WRONLY => return Some("descriptor 0 is open for writing only"),
        libc::O_RDONLY => return None,
        _ => {}
    }
    // Read-write: is it the runtime's `/dev/null` stand-in for a closed 0?
    let is_dev_null = |fd_stat: &libc::stat| {
        std::fs::metadata("/dev/null").is_ok_and(|null| {
            use std::os::unix::fs::MetadataExt;
            (fd_stat.st_mode & libc::S_IFMT) == libc::S_IFCHR && fd_stat.st_rdev == null.rdev()
        })
    };
    // SAFETY: an all-zero stat is a valid value for fstat to overwrite.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: descriptor 0 and a pointer to a live local.
    let ok = unsafe { libc::fstat(0, &mut st) } == 0;
    (ok && is_dev_null(&st)).then_some("descriptor 0 was not open when crawlaudit started")
}

/// Elsewhere a closed standard input reads as empty.
#[cfg(not(target_os = "linux"))]
fn stdin_closed() -> Option<&'static str> {
    None
}

/// Plain files are read this much at a time, so that the resident set does
/// not grow with the file: each window is mapped (on Linux; elsewhere read
/// in pieces in parallel into a reused buffer), then its chunks are parsed
/// in parallel, two windows at most in flight ([`read_windows`]): as much
/// mapped at once as one window of 64 MiB before the reading was pipelined.
const WINDOW: usize = 32 << 20;

/// A window is read in pieces of this size, one rayon task each, so that
/// copying from the page cache is spread over the cores as parsing is.
const PIECE: usize = 4 << 20;

/// Reads `buf.len()` bytes of `file` from `offset` (`pread`: the file's
/// position is not used on unix).
#[cfg(unix)]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
}

/// Reads `buf.len()` bytes of `file` from `offset`.
#[cfg(windows)]
fn read_exact_at(file: &File, mut buf: &mut [u8], mut offset: u64) -> io::Result<()> {
    while !buf.is_empty() {
        match std::os::windows::fs::FileExt::seek_read(file, buf, offset) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => {
                buf = &mut buf[n..];
                offset += n as u64;
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Reads `buf.len()` bytes of `file` from `offset` (seek and read: callers
/// on these platforms read one piece at a time).
#[cfg(not(any(unix, windows)))]
fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> io::Result<()> {
    use std::io::{Seek, SeekFrom};
    let mut f = file;
    f.seek(SeekFrom::Start(offset))?;
    f.read_exact(buf)
}

/// How a window read failed: the file ended early, or the read failed.
enum WindowError {
    /// Fewer bytes than the length seen at open.
    Shrank,
    /// Any other read error.
    Io(io::Error),
}

/// Reads `len` bytes of `file` from `offset` into `buf` (reused: it keeps
/// its allocation from window to window), in pieces read in parallel.
fn read_window(file: &File, offset: u64, len: usize, buf: &mut Vec<u8>) -> Result<(), WindowError> {
    if buf.capacity() < len {
        // Zeroed by the allocator (fresh pages), not byte by byte.
        *buf = vec![0; len];
    } else {
        buf.resize(len, 0);
    }
    let piece = if cfg!(any(unix, windows)) {
        PIECE
    } else {
        usize::MAX
    };
    let result = buf
        .par_chunks_mut(piece.min(len.max(1)))
        .enumerate()
        .try_for_each(|(i, part)| read_exact_at(file, part, offset + (i * piece) as u64));
    match result {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Err(WindowError::Shrank),
        Err(e) => Err(WindowError::Io(e)),
    }
}

/// Where a window's bytes are: mapped (on Linux), or read into the
/// reader's buffer.
enum Window {
    /// Mapped from the file; parsed where it lies.
    #[cfg(target_os = "linux")]
    Mapped(mapped::Mapped),
    /// Read into a buffer of its own (the one given to [`Window::read`],
    /// taken).
    Read(Vec<u8>),
}

impl Window {
    /// Maps `len` bytes of `file` from `offset`, or, where it cannot be
    /// mapped, reads them into `buf`. A file now shorter than the window's
    /// end is [`WindowError::Shrank`] either way.
    fn read(
        file: &File,
        offset: u64,
        len: usize,
        buf: &mut Vec<u8>,
    ) -> Result<Window, WindowError> {
        #[cfg(target_os = "linux")]
        if let Some(mapped) = mapped::Mapped::map(file, offset, len) {
            // A page past the file's end would read as zeros (and mark the
            // window cut short); a file already shorter is a fault now.
            let now = file.metadata().map_err(WindowError::Io)?.len();
            if now < offset + len as u64 {
                return Err(WindowError::Shrank);
            }
            return Ok(Window::Mapped(mapped));
        }
        read_window(file, offset, len, buf)?;
        Ok(Window::Read(std::mem::take(buf)))
    }

    /// The window's bytes.
    fn bytes(&self) -> &[u8] {
        match self {
            #[cfg(target_os = "linux")]
            Window::Mapped(mapped) => mapped.bytes(),
            Window::Read(data) => data,
        }
    }

    /// The file was cut inside the window while it was mapped (before byte
    /// `end` of the file, where the window's bytes that count end): its
    /// bytes from there on are zeros, not the file's. A read window is the
    /// file's whatever came after.
    fn cut_short(&self, file: &File, end: u64) -> bool {
        match self {
            #[cfg(target_os = "linux")]
            Window::Mapped(mapped) => {
                // A page past the new end faulted (and reads as zeros); a
                // cut inside the window's last page faults nothing, but the
                // page's tail now reads as zeros too.
                mapped.cut_short() || file.metadata().is_ok_and(|m| m.len() < end)
            }
            Window::Read(_) => {
                let _ = (file, end);
                false
            }
        }
    }
}

/// The fault of a window read that failed at `offset` (`want` bytes).
fn window_fault(path: &Path, file: &File, offset: u64, want: usize, error: WindowError) -> String {
    match error {
        WindowError::Shrank => {
            let now = file.metadata().map_or_else(
                |e| format!("cannot be read ({e})"),
                |m| format!("now ends at {}", m.len()),
            );
            format!(
                "{} shrank while it was read ({want} bytes expected at byte {offset}; the file {now}): \
                 was it truncated (logrotate copytruncate)? the lines before byte {offset} were used; \
                 rotate by renaming, or give --allow-partial to accept them",
                path.display()
            )
        }
        WindowError::Io(e) => format!("{}: read failed at byte {offset}: {e}", path.display()),
    }
}

fn read_file<S, F>(
    path: &Path,
    file: File,
    report: FileReport,
    options: &ReadOptions,
    make_sink: &F,
) -> (Vec<S>, FileReport)
where
    S: Sink,
    F: Fn() -> S + Sync,
{
    let len = file.metadata().map(|m| m.len()).unwrap_or(0);
    if len == 0 || matches!(options.format, Format::Csv(_)) {
        // Empty, or not a regular file (a pipe, `<(zcat ...)`): a stream.
        // A CSV log too: it is read in one pass (a quoted field may hold
        // line ends, so it cannot be cut at any of them).
        return read_stream(file, report, options, make_sink);
    }
    read_plain(path, file, len, WINDOW, report, options, make_sink)
}

/// Reads the first `len` bytes of a plain (or compressed, then streamed) file,
/// `len` being its length when it was opened, `window` bytes at a time.
/// A file that turns out shorter (truncated during the run) is a fault
/// that names the byte where reading stopped; the lines before are kept.
fn read_plain<S, F>(
    path: &Path,
    file: File,
    len: u64,
    window: usize,
    mut report: FileReport,
    options: &ReadOptions,
    make_sink: &F,
) -> (Vec<S>, FileReport)
where
    S: Sink,
    F: Fn() -> S + Sync,
{
    let mut buf = Vec::new();
    let head_len = (len as usize).min(DETECT_BYTES);
    if let Err(e) = read_window(&file, 0, head_len, &mut buf) {
        report.fault = Some(window_fault(path, &file, 0, head_len, e));
        return (Vec::new(), report);
    }
    if let Some(kind) = unsupported_compression(&buf) {
        report.fault = Some(format!("{} is compressed with {kind}", path.display()));
        return (Vec::new(), report);
    }
    if Compression::detect(&buf).is_some() {
        use std::io::{Seek, SeekFrom};
        let mut file = file;
        if let Err(e) = file.seek(SeekFrom::Start(0)) {
            report.fault = Some(format!("cannot read {}: {e}", path.display()));
            return (Vec::new(), report);
        }
        return read_stream(file, report, options, make_sink);
    }
    // A Parquet file is read by columns, with the JSON mapping (a JSON
    // mapping given with --json-fields applies to it: no JSON text begins
    // with PAR1).
    if buf.starts_with(parquet::MAGIC) {
        let fields = match &options.format {
            Format::Auto => Some(JsonFields::auto()),
            Format::Json(fields) | Format::Parquet(fields) => Some((**fields).clone()),
            _ => None,
        };
        if let Some(fields) = fields {
            return parquet::read_parquet(path, len, report, &fields, make_sink);
        }
    } else if let Format::Parquet(_) = &options.format {
        report.format = options.format.to_string();
        report.fault = Some(format!(
            "{} is not a Parquet file (it does not begin with PAR1)",
            path.display()
        ));
        return (Vec::new(), report);
    }
    let Some(format) = resolve_format(&options.format, &buf) else {
        report.fault = Some(undetected(&report.path));
        report.format = "undetected".into();
        return (Vec::new(), report);
    };
    if let Format::Csv(_) = &format {
        // Detected as CSV: read in one pass (a quoted field may hold line
        // ends, so the file cannot be cut at any of them).
        use std::io::{Seek, SeekFrom};
        let mut file = file;
        if let Err(e) = file.seek(SeekFrom::Start(0)) {
            report.fault = Some(format!("cannot read {}: {e}", path.display()));
            return (Vec::new(), report);
        }
        let options = ReadOptions {
            format,
            chunk_size: options.chunk_size,
        };
        return read_stream(file, report, &options, make_sink);
    }
    report.format = format.to_string();
    let state = format.compile().expect("formats were validated when given");
    read_windows(path, &file, len, window, report, state, options, make_sink)
}

/// A window being parsed: its bytes, where it lies in the file, where its
/// whole lines end, and its chunks (numbered from `first`).
struct InFlight {
    window: Arc<Window>,
    offset: u64,
    want: usize,
    end: usize,
    first: usize,
    chunks: usize,
}

/// Says, when its worker unwinds (a panic), that the worker's chunk will
/// never come, so that the reader does not wait for it.
struct Unwinding<'a, T>(&'a mpsc::Sender<Option<T>>);

impl<T> Drop for Unwinding<'_, T> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let _ = self.0.send(None);
        }
    }
}

/// One chunk for a worker: its number, its window, its bounds in the
/// window, and the parser state at its start.
type Job = (usize, Arc<Window>, (usize, usize), Compiled);

/// Reads the windows of a plain file (`read_plain`, once the format is
/// known), pipelined: this thread maps a window and hands its chunks to
/// the workers while they parse the one before, so no worker waits at a
/// window's end for the others, or for the window to be unmapped (this
/// thread unmaps it, while they parse the next). Two windows are in
/// flight at most; each is accepted in file order once its chunks are
/// parsed and it was not cut short meanwhile.
#[allow(clippy::too_many_arguments)]
fn read_windows<S, F>(
    path: &Path,
    file: &File,
    len: u64,
    window: usize,
    mut report: FileReport,
    mut state: Compiled,
    options: &ReadOptions,
    make_sink: &F,
) -> (Vec<S>, FileReport)
where
    S: Sink,
    F: Fn() -> S + Sync,
{
    let workers = rayon::current_num_threads().max(1);
    let (jobs, job_rx) = mpsc::channel::<Job>();
    let job_rx = Mutex::new(job_rx);
    // A parsed chunk, or `None`: a worker panicked (its chunk never comes).
    let (done_tx, done) = mpsc::channel::<Option<(usize, S, Counts)>>();
    let mut sinks = Vec::new();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let done_tx = done_tx.clone();
            let job_rx = &job_rx;
            scope.spawn(move || {
                let _unwinding = Unwinding(&done_tx);
                loop {
                    let next = job_rx.lock().map(|r| r.recv());
                    let Ok(Ok((index, window, (start, end), mut parser))) = next else {
                        break;
                    };
                    let mut sink = make_sink();
                    let counts = parse_chunk(&window.bytes()[start..end], &mut parser, &mut sink);
                    // The window is unmapped by the reader, not here.
                    drop(window);
                    sink.finish();
                    if done_tx.send(Some((index, sink, counts))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        // Parsed chunks not yet accepted, by number.
        let mut parsed: BTreeMap<usize, (S, Counts)> = BTreeMap::new();
        let mut in_flight: std::collections::VecDeque<InFlight> = Default::default();
        // The buffer of the windows read, not mapped, and of the skipped
        // parts of an over-long line.
        let mut buf = Vec::new();
        let mut next_chunk = 0usize;
        let mut offset = 0u64;
        // Accepts the oldest windows, until `keep` are left in flight, once
        // their chunks are parsed: their chunks' sinks and counts, in
        // order. A window cut short while it was parsed is a fault instead
        // (what it read is not the file's): false, and no window after it
        // is accepted.
        let mut retire = |report: &mut FileReport,
                          buf: &mut Vec<u8>,
                          in_flight: &mut std::collections::VecDeque<InFlight>,
                          keep: usize| {
            while in_flight.len() > keep {
                let w = in_flight.pop_front().expect("more than `keep` in flight");
                let chunks = w.first..w.first + w.chunks;
                while !chunks.clone().all(|i| parsed.contains_key(&i)) {
                    match done.recv() {
                        Ok(Some((i, sink, counts))) => {
                            parsed.insert(i, (sink, counts));
                        }
                        // Unwinding here drops the jobs: the other workers
                        // stop, and the scope ends.
                        _ => panic!("a worker reading {} panicked", path.display()),
                    }
                }
                let taken: Vec<(S, Counts)> = chunks.filter_map(|i| parsed.remove(&i)).collect();
                // The lines it used must still be in the file: the next
                // window may be parsed (and the file cut) by now, after this
                // one's lines were read whole.
                if w.window.cut_short(file, w.offset + w.end as u64) {
                    report.fault = Some(window_fault(
                        path,
                        file,
                        w.offset,
                        w.want,
                        WindowError::Shrank,
                    ));
                    return false;
                }
                let (window_sinks, counts): (Vec<S>, Vec<Counts>) = taken.into_iter().unzip();
                sinks.extend(accepted(window_sinks));
                merge(report, counts);
                report.bytes += w.end as u64;
                // The last reference: the window is unmapped here, while the
                // workers parse the next one (a read window's buffer is kept).
                if let Ok(Window::Read(data)) = Arc::try_unwrap(w.window) {
                    *buf = data;
                }
            }
            true
        };
        while offset < len {
            // Two windows in flight at most: the older is accepted before
            // another is mapped.
            if !retire(&mut report, &mut buf, &mut in_flight, 1) {
                break;
            }
            let want = (len - offset).min(window as u64) as usize;
            let source = match Window::read(file, offset, want, &mut buf) {
                Ok(source) => source,
                Err(e) => {
                    // The windows before come first: one of them may have
                    // been cut short, the earlier fault.
                    if retire(&mut report, &mut buf, &mut in_flight, 0) {
                        report.fault = Some(window_fault(path, file, offset, want, e));
                    }
                    break;
                }
            };
            let data = source.bytes();
            let at_end = offset + data.len() as u64 == len;
            // Whole lines only, unless the file ends here; a line longer
            // than the window is counted and skipped.
            let end = if at_end {
                data.len()
            } else if let Some(nl) = memchr::memrchr(b'\n', data) {
                nl + 1
            } else {
                // Skipped in order: the windows before are accepted first.
                let head = one_too_long(data);
                let cut = source.cut_short(file, offset + want as u64);
                drop(source);
                if !retire(&mut report, &mut buf, &mut in_flight, 0) {
                    break;
                }
                if cut {
                    report.fault =
                        Some(window_fault(path, file, offset, want, WindowError::Shrank));
                    break;
                }
                // A line longer than the window (so than MAX_LINE): count
                // it and skip to its end, window by window.
                let mut next = offset + want as u64;
                let end = loop {
                    if next >= len {
                        break len;
                    }
                    let want = (len - next).min(window as u64) as usize;
                    match read_window(file, next, want, &mut buf) {
                        Ok(()) => match memchr::memchr(b'\n', &buf) {
                            Some(nl) => break next + nl as u64 + 1,
                            None => next += want as u64,
                        },
                        Err(e) => {
                            report.fault = Some(window_fault(path, file, next, want, e));
                            break next;
                        }
                    }
                };
                merge(&mut report, [head]);
                report.bytes += end - offset;
                offset = end;
                if report.fault.is_some() {
                    break;
                }
                continue;
            };
            let lines = &data[..end];
            let bounds = chunk_bounds(lines, options.chunk_size);
            let states = w3c_states(lines, &bounds, &state);
            if state.is_w3c() {
                apply_directives(lines, &mut state);
            }
            let source = Arc::new(source);
            let first = next_chunk;
            for (&bound, parser) in bounds.iter().zip(states) {
                // The workers outlive this loop: a send cannot fail.
                let _ = jobs.send((next_chunk, source.clone(), bound, parser));
                next_chunk += 1;
            }
            in_flight.push_back(InFlight {
                window: source,
                offset,
                want,
                end,
                first,
                chunks: bounds.len(),
            });
            offset += end as u64;
        }
        if report.fault.is_none() {
            retire(&mut report, &mut buf, &mut in_flight, 0);
        }
        // The workers finish what they were given and stop; what is left
        // in flight after a fault is dropped.
        drop(jobs);
    });
    (sinks, report)
}

fn undetected(name: &str) -> String {
    format!(
        "cannot detect the log format of {name} from its first lines (tried combined, common, vhost_combined, vhost_common, gandi, lighttpd, envoy, json, w3c, alb, elb, s3, haproxy, parquet, csv and tsv with a header row): \
         give --format, e.g. --format nginx:'<log_format from nginx.conf>'"
    )
}

/// Counts the bytes read from a source. Around a buffered compressed
/// source it counts what the decoder consumed: the compressed offset it
/// reached, closer to a corrupt spot than the bytes read into the buffer.
struct Counting<R> {
    inner: R,
    count: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

impl<R: io::BufRead> io::BufRead for Counting<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.count.fetch_add(amount as u64, Ordering::Relaxed);
        self.inner.consume(amount);
    }
}

/// A source that fails with its error, once, then ends.
struct FailOnce(Option<io::Error>);

impl Read for FailOnce {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        self.0.take().map_or(Ok(0), Err)
    }
}

/// Fills `buf` from `reader` until it is full or the input ends.
fn fill(reader: &mut dyn Read, buf: &mut Vec<u8>, want: usize) -> io::Result<()> {
    let mut len = buf.len();
    let result = fill_at(reader, buf, &mut len, want);
    buf.truncate(len);
    result
}

/// Reads up to `want` bytes into `data` after its first `*len` (stopping
/// early only at the input's end or an error), moving `*len` past them.
/// The bytes of `data` after `*len` are overwritten, not cleared first: a
/// reused buffer is not zeroed again.
fn fill_at(
    reader: &mut dyn Read,
    data: &mut Vec<u8>,
    len: &mut usize,
    want: usize,
) -> io::Result<()> {
    let end = *len + want;
    if data.len() < end {
        data.resize(end, 0);
    }
    loop {
        if *len == end {
            return Ok(());
        }
        match reader.read(&mut data[*len..end]) {
            Ok(0) => return Ok(()),
            Ok(n) => *len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Reads and drops bytes up to and including the next newline. Returns the
/// bytes dropped, what was read after the newline, and a read error.
fn skip_line(source: &mut dyn Read, block_size: usize) -> (u64, Vec<u8>, Option<io::Error>) {
    let mut skipped = 0u64;
    let mut buf = Vec::with_capacity(block_size);
    loop {
        buf.clear();
        let read = fill(source, &mut buf, block_size);
        if let Some(nl) = memchr::memchr(b'\n', &buf) {
            return (skipped + nl as u64 + 1, buf.split_off(nl + 1), read.err());
        }
        skipped += buf.len() as u64;
        if read.is_err() || buf.len() < block_size {
            return (skipped, Vec::new(), read.err());
        }
    }
}

/// Concatenated gzip members (as `zcat` reads them), and NUL bytes after
/// the last one: files preallocated and not filled to the end (`zcat`
/// accepts them too). Anything else after a member is an error, so a
/// corrupt stream is still a fault.
struct GzMembers<R: io::BufRead> {
    /// The member being read; `None` once the input ended.
    member: Option<flate2::bufread::GzDecoder<R>>,
}

impl<R: io::BufRead> GzMembers<R> {
    fn new(inner: R) -> Self {
        GzMembers {
            member: Some(flate2::bufread::GzDecoder::new(inner)),
        }
    }
}

/// After a gzip member: is another one next (`true`), or did the input end,
/// perhaps after NUL padding (`false`)? Other bytes are an error.
fn next_member(inner: &mut impl io::BufRead) -> io::Result<bool> {
    let head = inner.fill_buf()?;
    if head.is_empty() {
        return Ok(false);
    }
    if head[0] != 0 {
        // A member (the decoder checks its header) or garbage (it fails).
        return Ok(true);
    }
    loop {
        let block = inner.fill_buf()?;
        if block.is_empty() {
            return Ok(false);
        }
        if block.iter().any(|&b| b != 0) {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "bytes other than NUL padding after the last gzip member",
            ));
        }
        let n = block.len();
        inner.consume(n);
    }
}

impl<R: io::BufRead> Read for GzMembers<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let Some(member) = self.member.as_mut() else {
                return Ok(0);
            };
            let n = member.read(buf)?;
            if n > 0 || buf.is_empty() {
                return Ok(n);
            }
            let mut inner = self.member.take().expect("checked above").into_inner();
            if next_member(&mut inner)? {
                self.member = Some(flate2::bufread::GzDecoder::new(inner));
            }
        }
    }
}

/// One block: its index, a buffer whose first bytes (as many as the third
/// field says) are whole lines, and the parser state at its start.
type Block = (usize, Vec<u8>, usize, Compiled);

/// Reads a stream (compressed or plain, from its first bytes): one thread
/// reads and decompresses into blocks of whole lines, worker threads parse
/// them.
fn read_stream<R, S, F>(
    raw: R,
    mut report: FileReport,
    options: &ReadOptions,
    make_sink: &F,
) -> (Vec<S>, FileReport)
where
    R: Read + Send,
    S: Sink,
    F: Fn() -> S + Sync,
{
    let compressed_count = Arc::new(AtomicU64::new(0));
    let mut raw = Counting {
        inner: raw,
        count: compressed_count.clone(),
    };
    let mut head = Vec::new();
    if let Err(e) = fill(&mut raw, &mut head, 6) {
        report.fault = Some(format!("cannot read {}: {e}", report.path));
        return (Vec::new(), report);
    }
    if let Some(kind) = unsupported_compression(&head) {
        report.fault = Some(format!("{} is compressed with {kind}", report.path));
        return (Vec::new(), report);
    }
    let compression = Compression::detect(&head);
    report.compressed = compression.is_some();
    report.compression = compression.map(|c| c.name().to_string());
    let chained = io::Cursor::new(head).chain(raw);
    let consumed = Arc::new(AtomicU64::new(0));
    let mut source: Box<dyn Read + Send> = match compression {
        Some(c) => match decoder(c, chained, consumed.clone()) {
            Ok(d) => d,
            Err(e) => {
                report.fault = Some(format!("cannot read {}: {e}", report.path));
                return (Vec::new(), report);
            }
        },
        None => Box::new(chained),
    };
    // A read error: a broken compressed stream, a zstd window over the
    // limit, or a failed read.
    let read_fault = |path: &str, e: io::Error| {
        let near = consumed.load(Ordering::Relaxed);
        match compression {
            Some(Compression::Zstd) if e.to_string() == zstd_window_too_large() => format!(
                "{path}: a zstd frame near compressed byte {near} needs a window over {} MiB (zstd's own limit; `zstd --long=28` or more writes such frames): decompress it first, e.g. `zstd -d --long=31 -c FILE | crawlaudit audit -`; the lines before it were used; give --allow-partial to accept them",
                1 << (ZSTD_WINDOW_LOG_MAX - 20)
            ),
            Some(c) => format!(
                "{path}: the {} stream is corrupt or truncated near compressed byte {near} ({e}): the lines before it were used; give --allow-partial to accept them",
                c.name()
            ),
            None => format!(
                "{path}: read failed at byte {}: {e}",
                compressed_count.load(Ordering::Relaxed)
            ),
        }
    };
    // The format is detected from the stream's first bytes, as a file's
    // are (a CSV log is then read a row at a time, not in blocks of
    // lines). Undetected, it stays `auto`, and the first block says so.
    let mut format = options.format.clone();
    if let Format::Auto = &options.format {
        // A read that fails here fails again after the bytes it got, so
        // the lines before it are read as they would be without the peek.
        let mut head = Vec::new();
        let failed = fill(source.as_mut(), &mut head, DETECT_BYTES).err();
        if let Some(found) = detect(&head) {
            format = found;
        }
        source = match failed {
            None => Box::new(io::Cursor::new(head).chain(source)),
            Some(e) => Box::new(io::Cursor::new(head).chain(FailOnce(Some(e)))),
        };
    }
    if let Format::Csv(format) = &format {
        return read_csv(
            source,
            format,
            report,
            options.chunk_size,
            make_sink,
            &read_fault,
        );
    }
    let block_size = options.chunk_size.clamp(4 << 10, 16 << 20);
    let workers = rayon::current_num_threads().max(1);
    // One block waiting per thread keeps the workers fed (the reader
    // decompresses faster than a worker collects); every block more is
    // memory: a block each worker holds, as many waiting as threads, and
    // the one the reader fills (or parses, below).
    let (tx, rx) = mpsc::sync_channel::<Block>(workers);
    let rx = Mutex::new(rx);
    let results: Mutex<InOrder<S>> = Mutex::new(InOrder::new());
    // Buffers the workers are done with, for the reader to fill again: a
    // fresh buffer a block would cost the kernel a page fault and a page
    // of zeros for every 4 KiB of the input.
    let spare: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
    let take_spare = || {
        spare
            .lock()
            .ok()
            .and_then(|mut s| s.pop())
            .unwrap_or_default()
    };
    let give_back = |data: Vec<u8>| {
        if let Ok(mut s) = spare.lock() {
            s.push(data);
        }
    };
    let mut fault: Option<String> = None;
    let mut bytes = 0u64;
    let mut format_name = String::new();
    // With more than one thread, the reader parses a block itself when
    // the workers have one waiting each, and there is one worker fewer: as
    // many threads as `--threads` (or cores), so that the scheduler has no
    // third thread to put beside two (on the 2-core machines this is
    // measured on, three threads on two cores left one core idle beside
    // two runnable threads). With one, the reader only decompresses.
    let helps = workers > 1;
    let parsers = if helps { workers - 1 } else { 1 };
    // A block parsed, by a worker or the reader.
    let parse_here = |index: usize, block: Vec<u8>, len: usize, mut parser: Compiled| {
        let mut sink = make_sink();
        let counts = parse_chunk(&block[..len], &mut parser, &mut sink);
        give_back(block);
        sink.finish();
        results
            .lock()
            .expect("no worker panics")
            .push(index, sink, counts);
    };
    std::thread::scope(|scope| {
        for _ in 0..parsers {
            scope.spawn(|| {
                yield_to_reader();
                loop {
                    let next = rx.lock().map(|r| r.recv());
                    let Ok(Ok((index, block, len, parser))) = next else {
                        break;
                    };
                    parse_here(index, block, len, parser);
                }
            });
        }
        // This thread reads (and decompresses) and hands out blocks.
        let mut carry: Vec<u8> = Vec::new();
        let mut parser: Option<Compiled> = None;
        let mut index = 0usize;
        loop {
            // The block begins with the partial line the last one ended in.
            let mut data = take_spare();
            let start = carry.len();
            if data.len() < start {
                data.resize(start, 0);
            }
            data[..start].copy_from_slice(&carry);
            carry.clear();
            let mut len = start;
            let read = fill_at(source.as_mut(), &mut data, &mut len, block_size);
            // A short read means the input ended (or failed).
            let at_end = read.is_err() || len - start < block_size;
            if let Err(e) = read {
                fault = Some(read_fault(&report.path, e));
            }
            // Keep the partial last line for the next block, unless the input ended.
            if !at_end {
                match memchr::memrchr(b'\n', &data[..len]) {
                    Some(nl) => {
                        carry.extend_from_slice(&data[nl + 1..len]);
                        len = nl + 1;
                    }
                    None if len <= MAX_LINE => {
                        // One line longer than a block: keep reading it.
                        carry.extend_from_slice(&data[..len]);
                        give_back(data);
                        continue;
                    }
                    None => {
                        // Longer than MAX_LINE: keep its first MAX_LINE + 1
                        // bytes as a line of its own, which the parser
                        // counts as too long, and drop the rest of it.
                        let (skipped, rest, error) = skip_line(source.as_mut(), block_size);
                        if let Some(e) = error {
                            fault = Some(read_fault(&report.path, e));
                        }
                        bytes += (len - MAX_LINE - 1) as u64 + skipped;
                        len = MAX_LINE + 2;
                        if data.len() < len {
                            data.resize(len, 0);
                        }
                        data[len - 1] = b'\n';
                        bytes -= 1;
                        carry = rest;
                    }
                }
            }
            let lines = &data[..len];
            if parser.is_none() && !lines.is_empty() {
                match resolve_format(&format, &lines[..lines.len().min(DETECT_BYTES)]) {
                    Some(f @ Format::Parquet(_)) => {
                        format_name = f.to_string();
                        fault.get_or_insert_with(|| {
                            format!(
                                "{}: a Parquet log is read from a file, not from standard input or a compressed stream (Parquet compresses inside the file): write it to a file, decompressed, first",
                                report.path
                            )
                        });
                        break;
                    }
                    Some(f) => {
                        format_name = f.to_string();
                        parser = Some(f.compile().expect("formats were validated when given"));
                    }
                    None => {
                        format_name = "undetected".into();
                        fault.get_or_insert_with(|| undetected(&report.path));
                        break;
                    }
                }
            }
            if let Some(p) = parser.as_mut() {
                if !lines.is_empty() {
                    bytes += len as u64;
                    let state = p.clone();
                    if p.is_w3c() {
                        apply_directives(lines, p);
                    }
                    let block = (index, data, len, state);
                    if !helps {
                        if tx.send(block).is_err() {
                            break;
                        }
                    } else {
                        match tx.try_send(block) {
                            Ok(()) => {}
                            Err(mpsc::TrySendError::Full((i, data, len, state))) => {
                                parse_here(i, data, len, state);
                            }
                            Err(mpsc::TrySendError::Disconnected(_)) => break,
                        }
                    }
                    index += 1;
                }
            }
            if at_end {
                break;
            }
        }
        drop(tx);
    });
    let (sinks, counts) = results.into_inner().expect("no worker panics").into_sinks();
    report.bytes = bytes;
    report.format = format_name;
    report.fault = fault;
    merge(&mut report, counts);
    (sinks, report)
}

/// Lowers the calling worker thread's priority a little (Linux: threads
/// have nice values of their own), so that the thread that decompresses
/// runs whenever it has a block to fill: it shares the cores with the
/// workers, and a worker that runs while it waits only runs out of blocks
/// sooner.
fn yield_to_reader() {
    #[cfg(target_os = "linux")]
    // SAFETY: `nice` changes only the calling thread's priority.
    unsafe {
        libc::nice(3);
    }
}

/// The input buffer of the CSV reader.
const CSV_BUFFER: usize = 64 << 10;

/// The source of a CSV reader, which keeps the reader's memory bounded: a
/// row (a quoted field may hold line ends, or a stray quote open one that
/// never closes) growing past [`MAX_LINE`] is cut, by an end of input the
/// reader sees; [`RowLimit::resume`] then drops the input up to the next
/// line end, where a new reader starts. It counts the bytes and line ends
/// it passes, for the positions of rows read by successive readers.
struct RowLimit<R> {
    inner: R,
    /// Read after a cut, before the line end that ended it; served first.
    pending: Vec<u8>,
    pending_at: usize,
    /// Bytes passed to readers or dropped.
    offset: u64,
    /// Line ends passed to readers or dropped.
    newlines: u64,
    /// Where the last row read ended.
    row_end: u64,
    /// A row grew too long: the reader is told the input ended.
    cut: bool,
}

impl<R: Read> RowLimit<R> {
    fn new(inner: R) -> Self {
        RowLimit {
            inner,
            pending: Vec::new(),
            pending_at: 0,
            offset: 0,
            newlines: 0,
            row_end: 0,
            cut: false,
        }
    }

    /// Reads from what a cut left, else from the input.
    fn read_raw(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pending_at < self.pending.len() {
            let n = buf.len().min(self.pending.len() - self.pending_at);
            buf[..n].copy_from_slice(&self.pending[self.pending_at..self.pending_at + n]);
            self.pending_at += n;
            return Ok(n);
        }
        self.inner.read(buf)
    }

    /// After a cut: drops the input up to and including the next line end.
    fn resume(&mut self) -> io::Result<()> {
        self.cut = false;
        let mut buf = vec![0; CSV_BUFFER];
        loop {
            let n = match self.read_raw(&mut buf) {
                Ok(n) => n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(e),
            };
            if n == 0 {
                break;
            }
            if let Some(nl) = memchr::memchr(b'\n', &buf[..n]) {
                self.offset += nl as u64 + 1;
                self.newlines += 1;
                let rest = buf[nl + 1..n].to_vec();
                let left = self.pending[self.pending_at..].to_vec();
                self.pending = [rest, left].concat();
                self.pending_at = 0;
                break;
            }
            self.offset += n as u64;
        }
        self.row_end = self.offset;
        Ok(())
    }
}

/// How far past the end of the last row a reader may read: the row it
/// reads is cut there. The cut falls at the same byte whatever the sizes
/// of the reads, so a log reads the same plain or compressed.
const CSV_ROW_LIMIT: u64 = (MAX_LINE + 2 * CSV_BUFFER) as u64;

impl<R: Read> Read for RowLimit<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let room = (self.row_end + CSV_ROW_LIMIT).saturating_sub(self.offset);
        if self.cut {
            return Ok(0);
        }
        if room == 0 {
            self.cut = !buf.is_empty();
            return Ok(0);
        }
        let len = buf.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        let buf = &mut buf[..len];
        let n = self.read_raw(buf)?;
        self.offset += n as u64;
        self.newlines += memchr::memchr_iter(b'\n', &buf[..n]).count() as u64;
        Ok(n)
    }
}

/// The first [`SAMPLE_BYTES`] of a row, its fields joined by the delimiter.
fn row_text<'f>(row: impl IntoIterator<Item = &'f [u8]>, delimiter: u8) -> String {
    let mut text = Vec::new();
    for (i, field) in row.into_iter().enumerate() {
        if i > 0 {
            text.push(delimiter);
        }
        text.extend_from_slice(&field[..field.len().min(SAMPLE_BYTES)]);
        if text.len() >= SAMPLE_BYTES {
            break;
        }
    }
    text.truncate(SAMPLE_BYTES);
    String::from_utf8_lossy(&text).into_owned()
}

/// A batch of CSV rows cut by the reading thread for a worker: its index
/// and its rows.
type CsvBatch = (usize, CsvRows);

/// Rows of a CSV log, their fields' bytes in one buffer (a `ByteRecord`
/// each would be an allocation a row, of the largest row's capacity).
#[derive(Default)]
struct CsvRows {
    /// Every field's bytes, one after the other.
    bytes: Vec<u8>,
    /// Where each field ends in `bytes`.
    ends: Vec<usize>,
    /// Each row: the line it starts on, and its fields (a range of
    /// `ends`), or the sample text of a row too long to read.
    rows: Vec<(u64, Result<std::ops::Range<usize>, String>)>,
}

impl CsvRows {
    fn push(&mut self, line: u64, row: &csv::ByteRecord) {
        let first = self.ends.len();
        for field in row {
            self.bytes.extend_from_slice(field);
            self.ends.push(self.bytes.len());
        }
        self.rows.push((line, Ok(first..self.ends.len())));
    }

    /// The fields of a row (its range of `ends`).
    fn fields(&self, row: std::ops::Range<usize>) -> impl Iterator<Item = &[u8]> {
        let first = if row.start == 0 {
            0
        } else {
            self.ends[row.start - 1]
        };
        let starts = std::iter::once(first).chain(self.ends[row.clone()].iter().copied());
        starts
            .zip(self.ends[row].iter().copied())
            .map(|(start, end)| &self.bytes[start..end])
    }

    /// Field `i` of a row (its range of `ends`).
    fn field(&self, row: &std::ops::Range<usize>, i: usize) -> Option<&[u8]> {
        let at = row.start + i;
        if at >= row.end {
            return None;
        }
        let start = if at == 0 { 0 } else { self.ends[at - 1] };
        Some(&self.bytes[start..self.ends[at]])
    }
}

/// Reads a CSV or TSV log (decompressed already, if it was compressed).
/// A quoted field may hold line ends, so the log cannot be cut into chunks
/// at line ends: this thread splits it into rows in one sequential pass
/// (the `csv` crate) and hands them out in batches of about `chunk_size`
/// bytes; worker threads read each row's fields into a request and record
/// it, one sink a batch, and the batches are merged in order. The first
/// row is the header ([`CsvFormat::columns`]: a header without a time or a
/// request column is a fault); a row equal to it later (concatenated
/// exports) is counted as a directive. `lines` counts rows, and a sample
/// names the line its row starts on; blank lines are skipped (the `csv`
/// crate does not return them).
fn read_csv<S, F>(
    source: Box<dyn Read + Send + '_>,
    format: &CsvFormat,
    mut report: FileReport,
    chunk_size: usize,
    make_sink: &F,
    read_fault: &dyn Fn(&str, io::Error) -> String,
) -> (Vec<S>, FileReport)
where
    S: Sink,
    F: Fn() -> S + Sync,
{
    report.format = format.to_string();
    let delimiter = format.delimiter();
    let mut source = RowLimit::new(source);
    let mut builder = csv::ReaderBuilder::new();
    builder
        .delimiter(delimiter)
        .has_headers(false)
        .flexible(true)
        .buffer_capacity(CSV_BUFFER);
    // The header row's count, ahead of every batch's.
    let mut head_counts = Counts::default();
    let mut header: Option<(csv::ByteRecord, super::csv_log::CsvColumns)> = None;
    let workers = rayon::current_num_threads().max(1);
    let (tx, rx) = mpsc::sync_channel::<CsvBatch>(workers * 2);
    let rx = Mutex::new(rx);
    let results: Mutex<InOrder<S>> = Mutex::new(InOrder::new());
    let header_cell: std::sync::OnceLock<(csv::ByteRecord, super::csv_log::CsvColumns)> =
        std::sync::OnceLock::new();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let next = rx.lock().map(|r| r.recv());
                    let Ok(Ok((index, rows))) = next else {
                        break;
                    };
                    let (names, columns) = header_cell.get().expect("a batch follows the header");
                    let mut sink = make_sink();
                    let counts = csv_batch(&rows, names, columns, delimiter, &mut sink);
                    sink.finish();
                    results
                        .lock()
                        .expect("no worker panics")
                        .push(index, sink, counts);
                }
            });
        }
        let mut batch = CsvRows::default();
        let mut batch_start = 0u64;
        let mut index = 0usize;
        let mut row = csv::ByteRecord::new();
        'readers: loop {
            // A reader starts at a line start: the file's, or after a cut.
            let (base_byte, base_line) = (source.offset, source.newlines);
            let mut reader = builder.from_reader(&mut source);
            loop {
                match reader.read_byte_record(&mut row) {
                    Ok(true) => {}
                    Ok(false) => break,
                    Err(e) => {
                        let e = match e.into_kind() {
                            csv::ErrorKind::Io(e) => e,
                            other => io::Error::other(format!("{other:?}")),
                        };
                        report.fault = Some(read_fault(&report.path, e));
                        break 'readers;
                    }
                }
                let start = row.position().map_or(0, csv::Position::byte);
                let line = base_line + row.position().map_or(1, csv::Position::line);
                let end = reader.position().byte();
                reader.get_mut().row_end = base_byte + end;
                if header.is_none() {
                    head_counts.lines += 1;
                    // The header row, counted as a directive even when it
                    // is refused (the fault says why its columns cannot be
                    // read): every line is accounted for.
                    head_counts.directives += 1;
                    match format.columns(&row) {
                        Ok(columns) => header = Some((row.clone(), columns)),
                        Err(message) => {
                            report.fault = Some(format!("{}: {message}", report.path));
                            break 'readers;
                        }
                    }
                    batch_start = base_byte + end;
                    continue;
                }
                if reader.get_ref().cut || end - start > MAX_LINE as u64 {
                    batch.rows.push((line, Err(row_text(&row, delimiter))));
                } else {
                    batch.push(line, &row);
                }
                if base_byte + end - batch_start >= chunk_size as u64 {
                    if header_cell.get().is_none() {
                        let _ = header_cell.set(header.clone().expect("read above"));
                    }
                    let full = std::mem::take(&mut batch);
                    if tx.send((index, full)).is_err() {
                        break 'readers;
                    }
                    index += 1;
                    batch_start = base_byte + end;
                }
            }
            drop(reader);
            if !source.cut {
                break;
            }
            if let Err(e) = source.resume() {
                report.fault = Some(read_fault(&report.path, e));
                break;
            }
        }
        if !batch.rows.is_empty() {
            if header_cell.get().is_none() {
                let _ = header_cell.set(header.clone().expect("rows follow the header"));
            }
            let _ = tx.send((index, std::mem::take(&mut batch)));
        }
        drop(tx);
    });
    let (mut sinks, counts) = results.into_inner().expect("no worker panics").into_sinks();
    if sinks.is_empty() {
        let mut sink = make_sink();
        sink.finish();
        sinks.push(sink);
    }
    report.bytes = source.offset;
    merge_at(
        &mut report,
        std::iter::once(head_counts).chain(counts),
        false,
    );
    (sinks, report)
}

/// Reads one batch of CSV rows into `sink`. A sample names the file's
/// line its row starts on.
fn csv_batch<S: Sink>(
    batch: &CsvRows,
    names: &csv::ByteRecord,
    columns: &super::csv_log::CsvColumns,
    delimiter: u8,
    sink: &mut S,
) -> Counts {
    let mut counts = Counts::default();
    for (line, fields) in &batch.rows {
        counts.lines += 1;
        let fields = match fields {
            Ok(fields) => fields.clone(),
            Err(text) => {
                counts.bad(*line, BadReason::TooLong, || text.clone());
                continue;
            }
        };
        if batch.fields(fields.clone()).eq(names.iter()) {
            counts.directives += 1;
            continue;
        }
        let read = columns.request_of(fields.len(), |i| batch.field(&fields, i));
        counts.read(read, sink, *line, || {
            row_text(batch.fields(fields.clone()), delimiter)
        });
    }
    counts
}

#[cfg(target_os = "linux")]
mod mapped;
mod parquet;

#[cfg(test)]
mod tests;
