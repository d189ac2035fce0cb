//! A frame's rows as text, for the CSV and NDJSON writers: the rows are
//! cut into blocks, each block formatted by a worker into a buffer of its
//! own, and the buffers written in order. A wave of blocks at a time is in
//! memory, never the whole file: the violations table may hold millions of
//! rows.

use std::io::Write;
use std::sync::Mutex;

use polars::prelude::*;
use rayon::prelude::*;

/// Rows per block: a block's text is about a megabyte (a wave of blocks
/// per file is in memory at once).
const BLOCK_ROWS: usize = 4 * 1024;

/// One column's values over a block of rows, typed once.
pub(super) enum Values<'a> {
    /// Text.
    Str(Box<dyn Iterator<Item = Option<&'a str>> + 'a>),
    /// Booleans.
    Bool(Box<dyn Iterator<Item = Option<bool>> + 'a>),
    /// 32-bit integers.
    I32(Box<dyn Iterator<Item = Option<i32>> + 'a>),
    /// 64-bit integers.
    I64(Box<dyn Iterator<Item = Option<i64>> + 'a>),
    /// Unsigned 64-bit integers.
    U64(Box<dyn Iterator<Item = Option<u64>> + 'a>),
    /// Floats.
    F64(Box<dyn Iterator<Item = Option<f64>> + 'a>),
}

/// How a file format writes a cell: a text, a float and a null its own
/// way; booleans and integers as their `Display` form (CSV and NDJSON
/// alike).
pub(super) struct CellFormat {
    /// Appends a text cell.
    pub(super) text: fn(&mut Vec<u8>, &str),
    /// Appends a float cell.
    pub(super) float: fn(&mut Vec<u8>, f64) -> Result<(), String>,
    /// What a null is written as.
    pub(super) null: &'static [u8],
}

impl Values<'_> {
    /// Appends the column's next value to `out`, as `format` writes it.
    pub(super) fn write_next(
        &mut self,
        out: &mut Vec<u8>,
        format: &CellFormat,
    ) -> Result<(), String> {
        fn next<T>(column: &mut dyn Iterator<Item = Option<T>>) -> Result<Option<T>, String> {
            column
                .next()
                .ok_or_else(|| "a column is shorter than the frame".to_string())
        }
        let written = match self {
            Values::Str(c) => next(c)?.map(|v| (format.text)(out, v)),
            Values::Bool(c) => {
                next(c)?.map(|v| out.extend_from_slice(if v { b"true" } else { b"false" }))
            }
            Values::I32(c) => next(c)?.map(|v| write_int(out, v)),
            Values::I64(c) => next(c)?.map(|v| write_int(out, v)),
            Values::U64(c) => next(c)?.map(|v| write_int(out, v)),
            Values::F64(c) => next(c)?.map(|v| (format.float)(out, v)).transpose()?,
        };
        if written.is_none() {
            out.extend_from_slice(format.null);
        }
        Ok(())
    }
}

/// A column's values in order, typed once; `what` names the file kind in
/// an error.
fn column_values<'a>(c: &'a Series, what: &str) -> Result<Values<'a>, String> {
    let err = |e: &dyn std::fmt::Display| e.to_string();
    Ok(match c.dtype() {
        DataType::String => Values::Str(Box::new(c.str().map_err(|e| err(&e))?.iter())),
        DataType::Boolean => Values::Bool(Box::new(c.bool().map_err(|e| err(&e))?.iter())),
        DataType::Int32 => Values::I32(Box::new(c.i32().map_err(|e| err(&e))?.iter())),
        DataType::Int64 => Values::I64(Box::new(c.i64().map_err(|e| err(&e))?.iter())),
        DataType::UInt64 => Values::U64(Box::new(c.u64().map_err(|e| err(&e))?.iter())),
        DataType::Float64 => Values::F64(Box::new(c.f64().map_err(|e| err(&e))?.iter())),
        other => return Err(format!("column {} of type {other} in {what}", c.name())),
    })
}

/// An integer's decimal text (as its `Display` form writes it).
fn write_int(w: &mut Vec<u8>, v: impl itoa::Integer) {
    w.extend_from_slice(itoa::Buffer::new().format(v).as_bytes());
}

/// Rows the CSV and NDJSON writers read: a frame, or the violations
/// table read without a frame of it.
pub(super) trait RowSource: Sync {
    /// The columns' names, in order.
    fn names(&self) -> Vec<String>;
    /// How many rows.
    fn height(&self) -> usize;
    /// The rows as a frame, when they are one (the CSV writer hands a
    /// frame with floats to polars' writer).
    fn frame(&self) -> Option<&DataFrame> {
        None
    }
    /// Calls `f` with each column's values over rows `start..start + len`;
    /// `what` names the file kind in an error.
    fn with_block(
        &self,
        start: usize,
        len: usize,
        what: &str,
        f: &mut dyn FnMut(&mut [Values<'_>]) -> Result<(), String>,
    ) -> Result<(), String>;
}

impl RowSource for DataFrame {
    fn names(&self) -> Vec<String> {
        self.get_column_names()
            .iter()
            .map(|n| n.to_string())
            .collect()
    }

    fn height(&self) -> usize {
        DataFrame::height(self)
    }

    fn frame(&self) -> Option<&DataFrame> {
        Some(self)
    }

    fn with_block(
        &self,
        start: usize,
        len: usize,
        what: &str,
        f: &mut dyn FnMut(&mut [Values<'_>]) -> Result<(), String>,
    ) -> Result<(), String> {
        let block = self.slice(start as i64, len);
        let mut columns = block
            .columns()
            .iter()
            .map(|c| column_values(c.as_materialized_series(), what))
            .collect::<Result<Vec<_>, String>>()?;
        f(&mut columns)
    }
}

/// Writes the rows of `rows` as text: `format` appends a block of `n`
/// rows, given each column's values over the block, to `out`; `what` names
/// the file kind in an error. Blocks are formatted in parallel, a wave at
/// a time, and written in order.
pub(super) fn write_rows<F>(
    w: &mut impl Write,
    rows: &dyn RowSource,
    what: &str,
    format: F,
) -> Result<(), String>
where
    F: Fn(&mut [Values<'_>], usize, &mut Vec<u8>) -> Result<(), String> + Sync,
{
    write_blocks(w, rows.height(), |start, n, out| {
        rows.with_block(start, n, what, &mut |columns| format(columns, n, out))
    })
}

/// Writes `height` rows as text: `fill(start, n, out)` appends rows
/// `start..start + n` to `out`. Blocks of rows are formatted in parallel,
/// a wave at a time, and written in order; the pool formats the next wave
/// while the calling thread writes the last one (two waves in memory).
/// A written block's buffer is emptied and handed to a block of a later
/// wave: the heap's pages are faulted in for the first two waves only,
/// not for every wave of a large file.
pub(super) fn write_blocks<F>(w: &mut impl Write, height: usize, fill: F) -> Result<(), String>
where
    F: Fn(usize, usize, &mut Vec<u8>) -> Result<(), String> + Sync,
{
    let wave = rayon::current_num_threads().max(1) * 2;
    let blocks: Vec<usize> = (0..height).step_by(BLOCK_ROWS).collect();
    let spare: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
    let format = |starts: &[usize]| {
        starts
            .par_iter()
            .map(|&start| {
                let n = BLOCK_ROWS.min(height - start);
                let mut out = spare
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .pop()
                    .unwrap_or_else(|| Vec::with_capacity(n * 256));
                fill(start, n, &mut out)?;
                Ok(out)
            })
            .collect::<Result<Vec<Vec<u8>>, String>>()
    };
    let write = |w: &mut dyn Write, texts: Vec<Vec<u8>>| {
        let written = texts
            .iter()
            .try_for_each(|text| w.write_all(text))
            .map_err(|e| e.to_string());
        let mut spare = spare
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        spare.extend(texts.into_iter().map(|mut text| {
            text.clear();
            text
        }));
        written
    };
    let mut waves = blocks.chunks(wave);
    let Some(first) = waves.next() else {
        return Ok(());
    };
    let mut formatted = format(first)?;
    for starts in waves {
        // The next wave formatted by the pool while this thread writes
        // the one before it (the writes and the formatting overlap).
        let mut next = None;
        let mut written = Ok(());
        let texts = std::mem::take(&mut formatted);
        rayon::in_place_scope(|scope| {
            scope.spawn(|_| next = Some(format(starts)));
            written = write(w, texts);
        });
        written?;
        formatted = next.expect("the scope ran the wave's formatting")?;
    }
    write(w, formatted)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each row's text: its number on a line.
    fn numbers(start: usize, n: usize, out: &mut Vec<u8>) -> Result<(), String> {
        for i in start..start + n {
            out.extend_from_slice(format!("{i}\n").as_bytes());
        }
        Ok(())
    }

    #[test]
    fn blocks_are_written_in_order_across_waves() {
        // Blocks of several waves, the last one short, and the edges.
        let wave_rows = BLOCK_ROWS * rayon::current_num_threads().max(1) * 2;
        for height in [
            0,
            1,
            BLOCK_ROWS,
            wave_rows,
            wave_rows + 1,
            3 * wave_rows + 17,
        ] {
            let mut written = Vec::new();
            write_blocks(&mut written, height, numbers).unwrap();
            let mut want = Vec::new();
            numbers(0, height, &mut want).unwrap();
            assert!(written == want, "{height} rows written out of order");
        }
    }

    #[test]
    fn a_failed_block_or_write_stops_the_file_with_its_error() {
        let wave_rows = BLOCK_ROWS * rayon::current_num_threads().max(1) * 2;
        let height = 4 * wave_rows;
        // A block of the third wave fails: the two waves before it are
        // written, nothing after them.
        let bad = 2 * wave_rows + BLOCK_ROWS;
        let mut written = Vec::new();
        let err = write_blocks(&mut written, height, |start, n, out| {
            if start == bad {
                return Err(format!("block at {start}"));
            }
            numbers(start, n, out)
        })
        .unwrap_err();
        assert_eq!(err, format!("block at {bad}"));
        let mut want = Vec::new();
        numbers(0, 2 * wave_rows, &mut want).unwrap();
        assert!(written == want, "not the two waves before the failed one");

        /// A writer that fails once it holds `room` bytes.
        struct Full {
            room: usize,
            held: usize,
        }
        impl Write for Full {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                if self.held + buf.len() > self.room {
                    return Err(std::io::Error::other("disk full"));
                }
                self.held += buf.len();
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut full = Full {
            room: 100_000,
            held: 0,
        };
        let err = write_blocks(&mut full, height, numbers).unwrap_err();
        assert_eq!(err, "disk full");
    }
}
