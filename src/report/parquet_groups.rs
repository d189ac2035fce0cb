//! Parquet files written a row group at a time, each byte for byte what
//! polars' `ParquetWriter::finish` writes of a frame of the same rows: the
//! row groups it makes of a frame, the options it writes with, and each
//! column as the Arrow array it encodes (a text column already
//! dictionary-encoded where it would encode it so, [`text_array`],
//! [`block_text_array`]). The
//! violations table and the `--state` file are written so: from their
//! rows, without a frame of them, their columns built, encoded and
//! compressed in parallel.

use std::io::Write;
use std::ops::Range;

use polars::io::parquet::write::get_encodings;
use polars::prelude::*;
use polars_arrow::array::{
    ArrayRef, DictionaryArray, MutableBinaryViewArray, PrimitiveArray, Utf8ViewArray,
};
use polars_arrow::bitmap::MutableBitmap;
use polars_arrow::datatypes::{ArrowDataType, IntegerType};
use polars_compute::hyperloglogplus::HyperLogLog;
use polars_parquet::arrow::write::{
    CompressedPage, Encoding, ParquetType, Version, WriteOptions, array_to_columns, compress,
};
use rayon::prelude::*;

/// The rows per Parquet row group polars' writer aims at (its default).
pub(super) const ROW_GROUP_ROWS: usize = 512 * 512;

/// The row groups polars' Parquet writer makes of a one-chunk frame of
/// `height` rows aiming at `size` rows a group (`chunk_df_for_writing`):
/// one group under `2 * size` rows, else `height / size` groups of
/// `height / (height / size)` rows, the last taking the remainder.
fn row_groups(height: usize, size: usize) -> Vec<(usize, usize)> {
    let n = (height / size).max(1);
    let each = height / n;
    (0..n)
        .map(|i| (i * each, if i + 1 == n { height } else { (i + 1) * each }))
        .collect()
}

/// The options polars' `ParquetWriter::new` writes with (its defaults:
/// zstd at its default level, default statistics, format version 1, its
/// default page size).
fn write_options() -> WriteOptions {
    WriteOptions {
        statistics: StatisticsOptions::default(),
        compression: ParquetCompression::default().into(),
        version: Version::V1,
        data_page_size: None,
    }
}

/// Writes `height` rows of a frame of `schema` as Parquet in row groups
/// of about `group_rows` (the groups polars' writer makes of the whole
/// frame), `arrays` giving the columns of a group's rows in the schema's
/// order, as polars' writer would hand them to the encoder. One group's
/// arrays are in memory at a time; its columns are encoded and compressed
/// in parallel.
pub(super) fn write(
    w: &mut impl Write,
    schema: &Schema,
    height: usize,
    group_rows: usize,
    arrays: impl Fn(Range<usize>) -> PolarsResult<Vec<ArrayRef>>,
) -> PolarsResult<()> {
    let encodings = get_encodings(&schema.to_arrow(CompatLevel::newest()));
    let mut writer = ParquetWriter::new(w).batched(schema)?;
    let fields = writer.parquet_schema().fields().to_vec();
    for (start, end) in row_groups(height, group_rows) {
        if end > start {
            let arrays = arrays(start..end)?;
            let pages = encode_row_group(&arrays, &fields, &encodings)?;
            drop(arrays);
            writer.write_row_group((end - start) as u64, &pages)?;
        }
    }
    writer.finish()?;
    Ok(())
}

/// A text column as the array polars' Parquet writer encodes: where the
/// writer would dictionary-encode it (at most 128 rows, or an estimated
/// cardinality of at most three quarters of the rows: polars'
/// `encode_as_dictionary_optional`), the dictionary array its cast would
/// make (the values in the order first met, nulls as null keys), built
/// here with one comparison per row where a row repeats the previous
/// row's text and one lookup where it does not; else the text array.
///
/// Where the column's texts are `shared` (one copy of each text, mostly),
/// a text is looked up by its address first, and by its bytes only the
/// first time its address is met.
pub(super) fn text_array<'t, I: Iterator<Item = Option<&'t str>>>(
    len: usize,
    shared: bool,
    cells: impl Fn() -> I,
) -> ArrayRef {
    let mut keyed = Keyed::with_capacity(len);
    if !shared {
        // A column of texts of its own per row (the URLs) has many
        // distinct texts (half its rows' in the 1 GiB benchmark): the map
        // is sized once, not rehashed at every doubling.
        keyed.ids.reserve(len / 2);
    }
    let mut by_address: foldhash::HashMap<(usize, usize), u32> = Default::default();
    let mut last: Option<(&'t str, u32)> = None;
    for cell in cells() {
        let Some(text) = cell else {
            keyed.push_null();
            continue;
        };
        let key = match last {
            // The previous row's text again (the same copy): no lookup.
            Some((l, k)) if std::ptr::eq(l, text) => k,
            // Or its own copy of it, in a column of texts of their own
            // (shared texts are told apart by their addresses: comparing
            // the bytes of each row's text with the previous row's was a
            // `memcmp` call per cell, 17% of `benches/state.rs`'s samples).
            Some((l, k)) if !shared && l == text => k,
            _ if shared => *by_address
                .entry((text.as_ptr() as usize, text.len()))
                .or_insert_with(|| keyed.key_of(text)),
            _ => keyed.key_of(text),
        };
        last = Some((text, key));
        keyed.push(key);
    }
    keyed.into_array()
}

/// [`text_array`] of a column whose rows name their text by number (of
/// `count`), each number one distinct text, as a state's rows name their
/// host: a row costs an index into the numbers' keys, and a text met the
/// first time joins the distinct texts without a lookup. The array is the
/// one [`text_array`] builds of the same cells.
pub(super) fn numbered_text_array<'t>(
    len: usize,
    count: usize,
    cells: impl Iterator<Item = (u32, &'t str)>,
) -> ArrayRef {
    // Per number, its key plus 1; 0 while not met.
    let mut met = vec![0u32; count];
    let mut keyed = Keyed::with_capacity(len);
    for (n, text) in cells {
        let slot = &mut met[n as usize];
        if *slot == 0 {
            keyed.values.push(text);
            *slot = u32::try_from(keyed.values.len()).expect("fewer than 2^32 texts");
        }
        keyed.push(*slot - 1);
    }
    keyed.into_array()
}

/// [`text_array`] of a column whose rows name their texts by number in
/// blocks of texts (`refs`: each row's block and number, `None` for a
/// null row; `texts_per_block`: how many texts each block holds), as the
/// violations table's repeated cells do. `text` gives a text's cell
/// (`None` for a null one), looked up once per block and number: a row
/// costs an index into its block's keys, not a lookup by address or
/// bytes. The array is the one [`text_array`] builds of the same cells.
pub(super) fn block_text_array<'t>(
    len: usize,
    refs: impl Iterator<Item = Option<(u32, u32)>>,
    texts_per_block: &[usize],
    text: impl Fn(u32, u32) -> Option<&'t str>,
) -> ArrayRef {
    // Per block met, each text's key plus 2, 1 for a null cell, 0 while
    // not met (zeroed memory: a block's rows in the group may use few of
    // its texts).
    let mut met: Vec<Vec<u32>> = vec![Vec::new(); texts_per_block.len()];
    let mut keyed = Keyed::with_capacity(len);
    for r in refs {
        let Some((block, n)) = r else {
            keyed.push_null();
            continue;
        };
        let keys = &mut met[block as usize];
        if keys.is_empty() {
            *keys = vec![0; texts_per_block[block as usize]];
        }
        let slot = &mut keys[n as usize];
        if *slot == 0 {
            *slot = match text(block, n) {
                Some(t) => keyed.key_of(t) + 2,
                None => 1,
            };
        }
        match *slot {
            1 => keyed.push_null(),
            k => keyed.push(k - 2),
        }
    }
    keyed.into_array()
}

/// A text column's rows as keys into its distinct texts (in the order
/// first met), and which rows are null: what [`text_array`] and
/// [`block_text_array`] build, and turn into the array polars' writer
/// would encode.
struct Keyed<'t> {
    len: usize,
    keys: Vec<u32>,
    /// Made at the first null row.
    validity: Option<MutableBitmap>,
    values: Vec<&'t str>,
    ids: foldhash::HashMap<&'t str, u32>,
}

impl<'t> Keyed<'t> {
    fn with_capacity(len: usize) -> Self {
        Keyed {
            len,
            keys: Vec::with_capacity(len),
            validity: None,
            values: Vec::new(),
            ids: Default::default(),
        }
    }

    /// The key of `text`: its number among the distinct texts, a new one
    /// the first time it is met.
    fn key_of(&mut self, text: &'t str) -> u32 {
        let values = &mut self.values;
        *self.ids.entry(text).or_insert_with(|| {
            values.push(text);
            (values.len() - 1) as u32
        })
    }

    fn push(&mut self, key: u32) {
        if let Some(v) = &mut self.validity {
            v.push(true);
        }
        self.keys.push(key);
    }

    fn push_null(&mut self) {
        let done = self.keys.len();
        let len = self.len;
        self.validity
            .get_or_insert_with(|| {
                let mut v = MutableBitmap::with_capacity(len);
                v.extend_constant(done, true);
                v
            })
            .push(false);
        self.keys.push(0);
    }

    /// The array polars' writer encodes: a dictionary array, or the
    /// texts as they are where its estimate of the distinct texts says
    /// so.
    ///
    /// The estimate is polars' own: its HyperLogLog keeps, per register,
    /// the largest value seen, so adding each distinct value once (and the
    /// empty text for nulls, as polars adds it) gives the estimate that
    /// adding every row gives. The text array goes through polars' own
    /// choice again, so only a dictionary built here where polars would
    /// write plain text could change the file (a test holds both sides of
    /// the threshold).
    fn into_array(self) -> ArrayRef {
        let Keyed {
            len,
            keys,
            validity,
            values,
            ..
        } = self;
        debug_assert_eq!(keys.len(), len);
        let nulls = validity.as_ref().map_or(0, MutableBitmap::unset_bits);
        let estimate = if len == 0 {
            0
        } else if nulls == len {
            1
        } else {
            let mut hll = HyperLogLog::<[u8]>::new();
            for value in &values {
                hll.add(value.as_bytes());
            }
            if nulls > 0 {
                hll.add(b"");
            }
            hll.count()
        };
        if len > 128 && estimate as f64 / len as f64 > 0.75 {
            // Plain: the writer takes the texts as they are.
            let cells = keys.iter().enumerate().map(|(i, &k)| {
                validity
                    .as_ref()
                    .is_none_or(|v| v.get(i))
                    .then(|| values[k as usize])
            });
            return MutableBinaryViewArray::<str>::from_iterator(cells)
                .freeze()
                .boxed();
        }
        let keys =
            PrimitiveArray::new(ArrowDataType::UInt32, keys.into(), validity.map(Into::into));
        let dtype = ArrowDataType::Dictionary(
            IntegerType::UInt32,
            Box::new(ArrowDataType::Utf8View),
            false,
        );
        DictionaryArray::try_new(
            dtype,
            keys,
            Utf8ViewArray::from_slice_values(values).boxed(),
        )
        .expect("keys index the values")
        .boxed()
    }
}

/// A row group's columns as compressed pages, each column encoded and
/// compressed by a worker of its own (polars' batched writer encodes the
/// columns in parallel but compresses them one after the other as it
/// writes them).
fn encode_row_group(
    arrays: &[ArrayRef],
    fields: &[ParquetType],
    encodings: &[Vec<Encoding>],
) -> PolarsResult<Vec<Vec<CompressedPage>>> {
    let options = write_options();
    let columns = arrays
        .par_iter()
        .zip(fields)
        .zip(encodings)
        .map(|((array, type_), encoding)| {
            array_to_columns(array, type_.clone(), options, encoding)?
                .into_iter()
                .map(|pages| {
                    pages
                        .map(|page| Ok(compress(page?, Vec::new(), options.compression)?))
                        .collect::<PolarsResult<Vec<CompressedPage>>>()
                })
                .collect::<PolarsResult<Vec<Vec<CompressedPage>>>>()
        })
        .collect::<PolarsResult<Vec<_>>>()?;
    Ok(columns.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_groups_are_polars_own() {
        assert_eq!(row_groups(0, 10), [(0, 0)]);
        assert_eq!(row_groups(9, 10), [(0, 9)]);
        assert_eq!(row_groups(19, 10), [(0, 19)]);
        assert_eq!(row_groups(20, 10), [(0, 10), (10, 20)]);
        assert_eq!(row_groups(47, 10), [(0, 11), (11, 22), (22, 33), (33, 47)]);
    }
}
