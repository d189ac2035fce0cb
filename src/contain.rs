//! Parquet files from elsewhere, read without a crash.
//!
//! The Parquet files `merge` and `--state` read come from elsewhere (a
//! shard pod's store, last night's run) and may be corrupt or tampered
//! with. The Parquet reader trusts the counts a file declares: a page that
//! claims -8 values makes it ask for 2^61 bytes, and an allocation that
//! fails aborts the process, which no `catch_unwind` can stop. So
//! [`read_parquet`] first walks the file's footer and every page header
//! ([`check_pages`]) and refuses counts that disagree with each other or
//! that the file's size cannot hold; then it decodes in [`contain`], which
//! turns a panic of the reader into one error line and keeps the default
//! panic message off stderr while it runs.

use std::io::{BufReader, Cursor, Read, Seek, SeekFrom};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

/// How many [`contain`] calls are running: while any is, the panic hook
/// prints nothing (their panics become errors).
static CONTAINING: AtomicUsize = AtomicUsize::new(0);
static HOOK: Once = Once::new();

/// Runs `f`; a panic inside it (on this thread, or on the thread pool
/// threads it waits for) comes back as `Err` with the panic's message.
pub(crate) fn contain<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if CONTAINING.load(Ordering::SeqCst) == 0 {
                previous(info);
            }
        }));
    });
    CONTAINING.fetch_add(1, Ordering::SeqCst);
    let result = catch_unwind(AssertUnwindSafe(f));
    CONTAINING.fetch_sub(1, Ordering::SeqCst);
    result.map_err(|payload| {
        let message = payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "an unknown fault".to_string());
        // One line: a panic message may span several.
        message.split_whitespace().collect::<Vec<_>>().join(" ")
    })
}

/// Rows a file may claim per byte of its size. Our writers need at least
/// a few bytes a row (a time, a line number, a key); 64 leaves room for
/// any table of real rows and bounds what a forged count can make the
/// reader allocate by the size of the file.
const ROWS_PER_BYTE: usize = 64;

/// The largest page a file may claim once decompressed (our writers'
/// pages are about 1 MiB).
const MAX_PAGE_BYTES: i32 = 256 << 20;

/// The table in the Parquet file `file`: read whole, its structure
/// checked by [`check_pages`], then decoded under [`contain`]. The error
/// says what is wrong, in one line.
pub(crate) fn read_parquet(mut file: std::fs::File) -> Result<polars::prelude::DataFrame, String> {
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read: {e}"))?;
    read_parquet_bytes(bytes)
}

/// [`read_parquet`] of a file's bytes already in memory (a state that
/// crossed a cluster's shuffle).
pub(crate) fn read_parquet_bytes(bytes: Vec<u8>) -> Result<polars::prelude::DataFrame, String> {
    use polars::prelude::{ParquetReader, SerReader};
    contain(|| {
        check_pages(&bytes)?;
        ParquetReader::new(Cursor::new(bytes))
            .finish()
            .map_err(|e| e.to_string())
    })
    .map_err(|panic| format!("the Parquet reader failed ({panic})"))?
}

/// Checks that the counts and sizes a Parquet file declares agree with
/// each other and with its size, before a reader allocates by them: the
/// footer's row count is the sum of its row groups' and at most
/// [`ROWS_PER_BYTE`] per byte; every column is flat and holds one value a
/// row; every page header lies inside its column chunk, has no negative
/// count or size, and decompresses to at most [`MAX_PAGE_BYTES`]; the data
/// pages' values add up to the row group's rows, and a dictionary holds at
/// most as many entries as the row group has rows.
pub(crate) fn check_pages(bytes: &[u8]) -> Result<(), String> {
    check_pages_in(&mut Cursor::new(bytes), bytes.len() as u64, None)
}

/// [`check_pages`] over a file of `len` bytes read through `source` (only
/// the footer and the page headers are read), for the top-level columns
/// named in `only` (all when `None`): the columns a reader will not
/// decode are not checked, and may be nested.
pub(crate) fn check_pages_in<R: Read + Seek>(
    source: &mut R,
    len: u64,
    only: Option<&[String]>,
) -> Result<(), String> {
    use polars_parquet::parquet::read::read_metadata;
    use polars_parquet_format::PageHeader;
    use polars_parquet_format::thrift::protocol::TCompactInputProtocol;

    let len = usize::try_from(len).map_err(|_| "a file too large to read".to_string())?;
    source
        .seek(SeekFrom::Start(0))
        .map_err(|e| format!("cannot read: {e}"))?;
    let meta = read_metadata(source).map_err(|e| e.to_string())?;
    let groups_rows = meta
        .row_groups
        .iter()
        .try_fold(0usize, |sum, group| sum.checked_add(group.num_rows()));
    if groups_rows != Some(meta.num_rows) {
        return Err(format!(
            "the footer says {} rows, its row groups do not add up to that",
            meta.num_rows
        ));
    }
    if meta.num_rows > len.saturating_mul(ROWS_PER_BYTE) {
        return Err(format!(
            "{} rows claimed by a file of {len} bytes",
            meta.num_rows
        ));
    }
    let chosen = |path: &[polars::prelude::PlSmallStr]| {
        only.is_none_or(|names| {
            path.first()
                .is_some_and(|top| names.iter().any(|n| n.as_str() == top.as_str()))
        })
    };
    if let Some(nested) = meta
        .schema()
        .columns()
        .iter()
        .filter(|c| chosen(&c.path_in_schema))
        .find(|c| c.descriptor.max_rep_level != 0)
    {
        return Err(format!(
            "column {:?} is nested: only flat columns are read",
            nested.path_in_schema
        ));
    }
    for group in &meta.row_groups {
        let rows = group.num_rows();
        for chunk in group.parquet_columns() {
            let name = &chunk.descriptor().path_in_schema;
            if !chosen(name) {
                continue;
            }
            let bad = |what: String| format!("column {name:?}: {what}");
            if usize::try_from(chunk.num_values()).ok() != Some(rows) {
                return Err(bad(format!(
                    "{} values in a row group of {rows} rows",
                    chunk.num_values()
                )));
            }
            let range = chunk.byte_range();
            let (Ok(start), Ok(end)) = (usize::try_from(range.start), usize::try_from(range.end))
            else {
                return Err(bad("pages outside the file".into()));
            };
            if start > end || end > len {
                return Err(bad("pages outside the file".into()));
            }
            let mut at = start;
            let mut values = 0usize;
            while values < rows {
                if at >= end {
                    return Err(bad(format!(
                        "its pages hold {values} of the row group's {rows} values"
                    )));
                }
                source
                    .seek(SeekFrom::Start(at as u64))
                    .map_err(|e| bad(format!("cannot read: {e}")))?;
                let mut reader = Counted {
                    inner: BufReader::with_capacity(
                        HEADER_WINDOW.min(end - at),
                        (&mut *source).take((end - at) as u64),
                    ),
                    read: 0,
                };
                let header = PageHeader::read_from_in_protocol(&mut TCompactInputProtocol::new(
                    &mut reader,
                    end - at,
                ))
                .map_err(|e| bad(format!("a page header cannot be read: {e}")))?;
                let body = usize::try_from(header.compressed_page_size)
                    .map_err(|_| bad("a page of negative size".into()))?;
                at = at
                    .checked_add(reader.read)
                    .and_then(|a| a.checked_add(body))
                    .filter(|a| *a <= end)
                    .ok_or_else(|| bad("a page past the end of its column".into()))?;
                let declared = page_values(&header, rows).map_err(bad)?;
                values = values
                    .checked_add(declared)
                    .filter(|v| *v <= rows)
                    .ok_or_else(|| {
                        bad(format!(
                            "its pages hold more than the row group's {rows} values"
                        ))
                    })?;
            }
        }
    }
    Ok(())
}

/// How much of a column chunk is read ahead to decode a page header (most
/// are a few dozen bytes; a longer one is read on).
const HEADER_WINDOW: usize = 4096;

/// A reader that counts the bytes it hands out: the length of the page
/// header the Thrift decoder read.
struct Counted<R> {
    inner: R,
    read: usize,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n;
        Ok(n)
    }
}

/// The values a data page header declares (0 for other pages), once its
/// counts and sizes are checked against each other and against the `rows`
/// of its row group.
fn page_values(header: &polars_parquet_format::PageHeader, rows: usize) -> Result<usize, String> {
    use polars_parquet_format::PageType;
    if header.compressed_page_size < 0 {
        return Err("a page of negative size".into());
    }
    if !(0..=MAX_PAGE_BYTES).contains(&header.uncompressed_page_size) {
        return Err(format!(
            "a page of {} bytes once decompressed",
            header.uncompressed_page_size
        ));
    }
    let missing = || "a page without the header of its type".to_string();
    let declared = match header.type_ {
        PageType::DICTIONARY_PAGE => {
            let dict = header.dictionary_page_header.as_ref().ok_or_else(missing)?;
            if usize::try_from(dict.num_values).map_or(true, |n| n > rows) {
                return Err(format!(
                    "a dictionary of {} entries for {rows} rows",
                    dict.num_values
                ));
            }
            0
        }
        PageType::DATA_PAGE => {
            header
                .data_page_header
                .as_ref()
                .ok_or_else(missing)?
                .num_values
        }
        PageType::DATA_PAGE_V2 => {
            let data = header.data_page_header_v2.as_ref().ok_or_else(missing)?;
            let levels = i64::from(data.definition_levels_byte_length)
                + i64::from(data.repetition_levels_byte_length);
            if data.num_nulls < 0
                || data.num_nulls > data.num_values
                || data.num_rows < 0
                || data.num_rows > data.num_values
                || data.definition_levels_byte_length < 0
                || data.repetition_levels_byte_length < 0
                || levels > i64::from(header.compressed_page_size)
            {
                return Err("a data page whose counts disagree".into());
            }
            data.num_values
        }
        // An index page: the reader skips it.
        PageType::INDEX_PAGE => 0,
        other => return Err(format!("a page of unknown type {}", other.0)),
    };
    usize::try_from(declared).map_err(|_| format!("a page of {declared} values"))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    use polars::prelude::*;
    use polars_parquet_format::thrift::protocol::{TCompactInputProtocol, TCompactOutputProtocol};
    use polars_parquet_format::{PageHeader, PageType};

    /// A small table as Parquet bytes: a nullable integer column (its
    /// pages carry validity) and a text column.
    fn table() -> Vec<u8> {
        let mut df = df!(
            "time" => (0..200i64).map(|i| (i % 7 != 0).then_some(i)).collect::<Vec<_>>(),
            "host" => (0..200).map(|i| format!("h{i}.example")).collect::<Vec<_>>(),
        )
        .unwrap();
        let mut bytes = Vec::new();
        ParquetWriter::new(&mut bytes).finish(&mut df).unwrap();
        bytes
    }

    /// `bytes` with the header of the first data page of the first column
    /// changed by `change` (the header keeps its length).
    pub(crate) fn with_first_data_page(bytes: &[u8], change: impl Fn(&mut PageHeader)) -> Vec<u8> {
        let meta = polars_parquet::parquet::read::read_metadata(&mut Cursor::new(bytes)).unwrap();
        let mut at = meta.row_groups[0].parquet_columns()[0].byte_range().start as usize;
        loop {
            let mut reader = Cursor::new(&bytes[at..]);
            let mut header = PageHeader::read_from_in_protocol(&mut TCompactInputProtocol::new(
                &mut reader,
                1 << 20,
            ))
            .unwrap();
            let len = reader.position() as usize;
            if header.type_ == PageType::DICTIONARY_PAGE {
                at += len + header.compressed_page_size as usize;
                continue;
            }
            change(&mut header);
            let mut written = Vec::new();
            header
                .write_to_out_protocol(&mut TCompactOutputProtocol::new(&mut written))
                .unwrap();
            assert_eq!(written.len(), len, "the changed header keeps its length");
            let mut out = bytes.to_vec();
            out[at..at + len].copy_from_slice(&written);
            return out;
        }
    }

    fn read(bytes: Vec<u8>) -> Result<DataFrame, String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.parquet");
        std::fs::write(&path, bytes).unwrap();
        read_parquet(std::fs::File::open(&path).unwrap())
    }

    #[test]
    fn a_good_table_is_read() {
        let df = read(table()).unwrap();
        assert_eq!(df.shape(), (200, 2));
        assert_eq!(df.column("time").unwrap().null_count(), 29);
    }

    #[test]
    fn forged_page_counts_are_refused_before_the_reader_allocates_by_them() {
        let good = table();
        // A negative count: the reader reserved 2^61 bytes for its
        // validity and the process aborted (found by flipping bytes of a
        // state file; no catch_unwind can stop an abort).
        let negative = with_first_data_page(&good, |h| {
            h.data_page_header.as_mut().unwrap().num_values = -200;
        });
        let e = read(negative).unwrap_err();
        assert!(e.contains("a page of -200 values"), "{e}");
        // More values than the row group has rows.
        let more = with_first_data_page(&good, |h| {
            let n = &mut h.data_page_header.as_mut().unwrap().num_values;
            *n += 1;
        });
        let e = read(more).unwrap_err();
        assert!(e.contains("more than the row group's 200 values"), "{e}");
    }

    #[test]
    fn page_headers_whose_counts_disagree_are_refused() {
        use polars_parquet_format::{
            DataPageHeader, DataPageHeaderV2, DictionaryPageHeader, Encoding,
        };
        let data = |values: i32| PageHeader {
            type_: PageType::DATA_PAGE,
            uncompressed_page_size: 1000,
            compressed_page_size: 500,
            crc: None,
            data_page_header: Some(DataPageHeader {
                num_values: values,
                encoding: Encoding::PLAIN,
                definition_level_encoding: Encoding::RLE,
                repetition_level_encoding: Encoding::RLE,
                statistics: None,
            }),
            index_page_header: None,
            dictionary_page_header: None,
            data_page_header_v2: None,
        };
        assert_eq!(page_values(&data(200), 200), Ok(200));
        assert_eq!(
            page_values(&data(-1), 200),
            Err("a page of -1 values".into())
        );
        let mut h = data(10);
        h.uncompressed_page_size = MAX_PAGE_BYTES + 1;
        assert!(
            page_values(&h, 200)
                .unwrap_err()
                .contains("bytes once decompressed")
        );
        h.uncompressed_page_size = -5;
        assert!(
            page_values(&h, 200)
                .unwrap_err()
                .contains("-5 bytes once decompressed")
        );
        let mut h = data(10);
        h.compressed_page_size = -1;
        assert_eq!(page_values(&h, 200), Err("a page of negative size".into()));
        let mut h = data(10);
        h.type_ = PageType::DATA_PAGE_V2;
        assert_eq!(
            page_values(&h, 200),
            Err("a page without the header of its type".into())
        );
        h.data_page_header_v2 = Some(DataPageHeaderV2 {
            num_values: 10,
            num_nulls: 11,
            num_rows: 10,
            encoding: Encoding::PLAIN,
            definition_levels_byte_length: 2,
            repetition_levels_byte_length: 0,
            is_compressed: None,
            statistics: None,
        });
        assert_eq!(
            page_values(&h, 200),
            Err("a data page whose counts disagree".into())
        );
        h.data_page_header_v2.as_mut().unwrap().num_nulls = 3;
        assert_eq!(page_values(&h, 200), Ok(10));
        h.data_page_header_v2
            .as_mut()
            .unwrap()
            .definition_levels_byte_length = 501;
        assert_eq!(
            page_values(&h, 200),
            Err("a data page whose counts disagree".into())
        );
        let mut h = data(0);
        h.type_ = PageType::DICTIONARY_PAGE;
        h.dictionary_page_header = Some(DictionaryPageHeader {
            num_values: 201,
            encoding: Encoding::PLAIN,
            is_sorted: None,
        });
        assert_eq!(
            page_values(&h, 200),
            Err("a dictionary of 201 entries for 200 rows".into())
        );
        h.dictionary_page_header.as_mut().unwrap().num_values = 200;
        assert_eq!(page_values(&h, 200), Ok(0));
        h.type_ = PageType(9);
        assert_eq!(page_values(&h, 200), Err("a page of unknown type 9".into()));
    }

    /// `bytes` with its footer changed by `change`.
    fn with_footer(
        bytes: &[u8],
        change: impl Fn(&mut polars_parquet_format::FileMetaData),
    ) -> Vec<u8> {
        let n = bytes.len();
        let footer_len = u32::from_le_bytes(bytes[n - 8..n - 4].try_into().unwrap()) as usize;
        let start = n - 8 - footer_len;
        let mut meta = polars_parquet_format::FileMetaData::read_from_in_protocol(
            &mut TCompactInputProtocol::new(&bytes[start..n - 8], footer_len),
        )
        .unwrap();
        change(&mut meta);
        let mut footer = Vec::new();
        meta.write_to_out_protocol(&mut TCompactOutputProtocol::new(&mut footer))
            .unwrap();
        let mut out = bytes[..start].to_vec();
        out.extend_from_slice(&footer);
        out.extend_from_slice(&(footer.len() as u32).to_le_bytes());
        out.extend_from_slice(b"PAR1");
        out
    }

    #[test]
    fn row_counts_that_disagree_or_that_the_file_cannot_hold_are_refused() {
        let good = table();
        // The footer unchanged, written again: still read.
        assert_eq!(read(with_footer(&good, |_| {})).unwrap().height(), 200);
        let e = read(with_footer(&good, |m| m.num_rows = 300)).unwrap_err();
        assert!(e.contains("the footer says 300 rows"), "{e}");
        // A million rows everywhere, consistently: more than a file of a
        // few KiB can hold at 64 rows a byte.
        let e = read(with_footer(&good, |m| {
            m.num_rows = 1_000_000;
            for group in &mut m.row_groups {
                group.num_rows = 1_000_000;
                for column in &mut group.columns {
                    column.meta_data.as_mut().unwrap().num_values = 1_000_000;
                }
            }
        }))
        .unwrap_err();
        assert!(e.contains("1000000 rows claimed by a file of"), "{e}");
        // A column whose values disagree with its row group.
        let e = read(with_footer(&good, |m| {
            m.row_groups[0].columns[1]
                .meta_data
                .as_mut()
                .unwrap()
                .num_values = 199;
        }))
        .unwrap_err();
        assert!(e.contains("199 values in a row group of 200 rows"), "{e}");
        for cut in [0, 12, good.len() / 2, good.len() - 9] {
            assert!(check_pages(&good[..cut]).is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn a_panic_becomes_an_error_and_the_value_passes() {
        assert_eq!(contain(|| 7), Ok(7));
        let err = contain(|| -> u8 { panic!("bad\nbytes {}", 3) }).unwrap_err();
        assert_eq!(err, "bad bytes 3");
        let err = contain(|| -> u8 { std::panic::panic_any(5u32) }).unwrap_err();
        assert_eq!(err, "an unknown fault");
        // On pool threads too.
        let err = contain(|| {
            use rayon::prelude::*;
            (0..64u32)
                .into_par_iter()
                .map(|i| if i == 40 { panic!("in a worker") } else { i })
                .sum::<u32>()
        })
        .unwrap_err();
        assert_eq!(err, "in a worker");
    }
}
