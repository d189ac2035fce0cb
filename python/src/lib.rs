//! `crawlaudit._core`: crawlaudit's Rust core as a Python extension, for the
//! Spark driver in `crawlaudit.spark`. Three pure functions over a
//! [`Job`] (the flags of `crawlaudit audit`, parsed by the CLI's own
//! parser):
//!
//! - `Job.ingest(file, path, shards)`: one log file read once; an Arrow
//!   stream of rows `(shard, file, chunk, payload)`: per chunk and shard
//!   what the shard's judgement needs, and one row of the file's accounting
//!   (`shard` -1, its JSON in `payload`).
//! - `Job.judge(shards, files, stream)`: a partition's rows, sorted by
//!   (shard, file, chunk), each shard's previous state first (`file` -1):
//!   an Arrow stream of rows `(shard, name, payload)`, the files of each
//!   shard's report and its next state.
//! - `Job.assemble(files, rows)`: on the driver, the shard reports merged and
//!   written as `crawlaudit audit` writes its report; the exit code.
//!
//! Arrow crosses the boundary through the Arrow C stream interface (PyCapsule
//! `arrow_array_stream`), read and written with polars' Arrow crate.

use std::ffi::CString;

use polars_arrow::array::{Array, BinaryArray, PrimitiveArray, StructArray, Utf8Array};
use polars_arrow::datatypes::{ArrowDataType, Field};
use polars_arrow::ffi::{ArrowArrayStream, ArrowArrayStreamReader, export_iterator};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyCapsule};

use crawlaudit::cli::spark::{Files, Job as CoreJob};
use crawlaudit::shard::Shard;

/// The capsule name of the Arrow C stream interface.
const STREAM: &str = "arrow_array_stream";

/// An error of the core, as Python's `RuntimeError` with the CLI's words.
fn error(e: anyhow::Error) -> PyErr {
    PyRuntimeError::new_err(format!("{e:#}"))
}

/// An audit's flags and what they load, in the driver or in a task.
#[pyclass(module = "crawlaudit._core")]
struct Job {
    job: CoreJob,
}

/// A built batch of rows as a one-batch Arrow C stream in a capsule.
fn stream_of(py: Python<'_>, batch: StructArray) -> PyResult<Bound<'_, PyCapsule>> {
    let field = Field::new("".into(), batch.dtype().clone(), false);
    let array: Box<dyn Array> = Box::new(batch);
    let stream = export_iterator(Box::new(std::iter::once(Ok(array))), field);
    PyCapsule::new(py, stream, Some(CString::new(STREAM).expect("no NUL")))
}

/// Takes the stream out of a PyCapsule `arrow_array_stream` (the consumer
/// owns it; the capsule's is marked released).
fn take_stream(capsule: &Bound<'_, PyCapsule>) -> PyResult<Box<ArrowArrayStream>> {
    let name = CString::new(STREAM).expect("no NUL");
    let ptr = capsule.pointer_checked(Some(&name))?;
    // SAFETY: a capsule named `arrow_array_stream` holds an
    // `ArrowArrayStream` (the C stream interface); it is moved out and the
    // capsule's copy left released, as the PyCapsule protocol asks.
    let stream = unsafe {
        std::ptr::replace(
            ptr.as_ptr().cast::<ArrowArrayStream>(),
            ArrowArrayStream::empty(),
        )
    };
    Ok(Box::new(stream))
}

/// A column of a batch, of the type asked.
fn column<'a, T: 'static>(batch: &'a StructArray, i: usize, what: &str) -> PyResult<&'a T> {
    batch
        .values()
        .get(i)
        .and_then(|a| a.as_any().downcast_ref::<T>())
        .ok_or_else(|| PyValueError::new_err(format!("the rows' column {i} is not {what}")))
}

/// One shard's rows: its number, its state's bytes, its parts in file order.
type ShardRows = (u32, Option<Vec<u8>>, Vec<Vec<u8>>);

/// The rows of a `judge` partition: per shard (in order), its state and its
/// parts in file order.
#[derive(Default)]
struct Partition {
    shards: Vec<ShardRows>,
}

impl Partition {
    /// Reads the partition's rows `(shard, file, chunk, payload)`, sorted
    /// by (shard, file, chunk).
    fn read(stream: Box<ArrowArrayStream>, count: u32) -> PyResult<Partition> {
        // SAFETY: the stream was just taken from a live capsule.
        let mut reader = unsafe { ArrowArrayStreamReader::try_new(stream) }
            .map_err(|e| PyValueError::new_err(format!("not an Arrow stream: {e}")))?;
        let mut p = Partition::default();
        let mut last: Option<(i32, i32, i32)> = None;
        // SAFETY: the reader's arrays come from the stream's own producer.
        while let Some(array) = unsafe { reader.next() } {
            let array = array.map_err(|e| PyValueError::new_err(format!("an Arrow batch: {e}")))?;
            let batch = array
                .as_any()
                .downcast_ref::<StructArray>()
                .ok_or_else(|| PyValueError::new_err("the rows are not a batch of columns"))?;
            let shard = column::<PrimitiveArray<i32>>(batch, 0, "int32")?;
            let file = column::<PrimitiveArray<i32>>(batch, 1, "int32")?;
            let chunk = column::<PrimitiveArray<i32>>(batch, 2, "int32")?;
            let payload = column::<BinaryArray<i64>>(batch, 3, "large_binary")?;
            for i in 0..batch.len() {
                let (s, f, c) = (shard.value(i), file.value(i), chunk.value(i));
                if s < 0 || s as u32 >= count {
                    return Err(PyValueError::new_err(format!(
                        "a row of shard {s} of {count}"
                    )));
                }
                if last.is_some_and(|l| l >= (s, f, c)) {
                    return Err(PyValueError::new_err(
                        "the rows are not sorted by (shard, file, chunk), each once",
                    ));
                }
                last = Some((s, f, c));
                if p.shards.last().is_none_or(|(k, _, _)| *k != s as u32) {
                    p.shards.push((s as u32, None, Vec::new()));
                }
                let entry = p.shards.last_mut().expect("just pushed");
                let bytes = payload.value(i).to_vec();
                if f < 0 {
                    entry.1 = Some(bytes);
                } else {
                    entry.2.push(bytes);
                }
            }
        }
        Ok(p)
    }
}

#[pymethods]
impl Job {
    /// Parses `argv` (the flags of `crawlaudit audit`) as the CLI does and
    /// loads the catalogue, ranges and snapshot; `driver`: the run that
    /// writes the report (checks `--out` and `--state`).
    /// `remote`: on the driver, the files it listed under the URI
    /// arguments (`Job.remote_logs`), audited after the local inputs.
    #[new]
    #[pyo3(signature = (argv, driver = false, remote = Vec::new()))]
    fn new(py: Python<'_>, argv: Vec<String>, driver: bool, remote: Vec<String>) -> PyResult<Job> {
        let job = py
            .detach(|| CoreJob::new(&argv, driver, &remote))
            .map_err(error)?;
        Ok(Job { job })
    }

    /// `crawlaudit audit --help`'s text.
    #[staticmethod]
    fn help() -> String {
        CoreJob::help()
    }

    /// The log arguments of `argv` that are URIs (`s3://...`), for the
    /// driver to list through `pyarrow.fs`.
    #[staticmethod]
    fn remote_logs(argv: Vec<String>) -> PyResult<Vec<String>> {
        CoreJob::remote_logs(&argv).map_err(error)
    }

    /// The log files, in the order the CLI audits them.
    fn inputs(&self) -> Vec<String> {
        self.job.inputs()
    }

    /// Whether the job carries a state from night to night (`--state`).
    fn has_state(&self) -> bool {
        self.job.has_state()
    }

    /// The previous night's state split among `shards`: (shard, bytes).
    fn states<'py>(
        &self,
        py: Python<'py>,
        shards: u32,
    ) -> PyResult<Vec<(u32, Bound<'py, PyBytes>)>> {
        let states = py.detach(|| self.job.states(shards)).map_err(error)?;
        Ok(states
            .into_iter()
            .map(|(s, b)| (s, PyBytes::new(py, &b)))
            .collect())
    }

    /// Reads log file `path`, the `file`-th input, split among `shards`:
    /// an Arrow stream of `(shard int32, file int32, chunk int32, payload
    /// large_binary)`, the accounting's row first (`shard` -1). `name`: what
    /// the report calls the file when `path` is a local copy of it.
    #[pyo3(signature = (file, path, shards, name = None))]
    fn ingest<'py>(
        &self,
        py: Python<'py>,
        file: u32,
        path: String,
        shards: u32,
        name: Option<String>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let (accounting, parts) = py
            .detach(|| self.job.ingest(file, &path, shards, name.as_deref()))
            .map_err(error)?;
        let n = parts.len() + 1;
        let mut shard = Vec::with_capacity(n);
        let mut files = Vec::with_capacity(n);
        let mut chunk = Vec::with_capacity(n);
        let mut payload: Vec<&[u8]> = Vec::with_capacity(n);
        let file = i32::try_from(file).map_err(|_| PyValueError::new_err("too many files"))?;
        shard.push(-1);
        files.push(file);
        chunk.push(-1);
        payload.push(accounting.as_bytes());
        for p in &parts {
            shard.push(p.shard as i32);
            files.push(file);
            chunk.push(p.chunk as i32);
            payload.push(&p.bytes);
        }
        let batch = rows(
            &[
                ("shard", int32(shard)),
                ("file", int32(files)),
                ("chunk", int32(chunk)),
                ("payload", Box::new(BinaryArray::<i64>::from_slice(payload))),
            ],
            n,
        );
        stream_of(py, batch)
    }

    /// Judges a partition's shards (of `shards`) from its rows (an object
    /// with `__arrow_c_stream__`: `(shard, file, chunk, payload)` sorted by
    /// shard, file and chunk; a shard's state at `file` -1), with `files`,
    /// the inputs' accounting in order: an Arrow stream of `(shard int32,
    /// name large_utf8, payload large_binary)`, each shard's report files.
    /// The shards of `empty` are judged too, with no rows when the
    /// partition has none of theirs (shards no line belongs to).
    #[pyo3(signature = (shards, files, rows_in, empty = Vec::new()))]
    fn judge<'py>(
        &mut self,
        py: Python<'py>,
        shards: u32,
        files: Vec<String>,
        rows_in: &Bound<'py, PyAny>,
        empty: Vec<u32>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        let capsule = rows_in.call_method0("__arrow_c_stream__")?;
        let capsule = capsule.cast::<PyCapsule>()?;
        let stream = take_stream(capsule)?;
        let job = &mut self.job;
        let out: Vec<(u32, Files)> = py.detach(|| -> PyResult<Vec<(u32, Files)>> {
            let mut partition = Partition::read(stream, shards)?;
            for s in empty {
                if s >= shards {
                    return Err(PyValueError::new_err(format!("no shard {s} of {shards}")));
                }
                if !partition.shards.iter().any(|(k, _, _)| *k == s) {
                    partition.shards.push((s, None, Vec::new()));
                }
            }
            partition.shards.sort_by_key(|(k, _, _)| *k);
            let mut out = Vec::new();
            for (index, state, parts) in partition.shards {
                let report = job
                    .judge(
                        Shard {
                            index,
                            count: shards,
                        },
                        &files,
                        state.as_deref(),
                        parts.iter().map(Vec::as_slice),
                    )
                    .map_err(error)?;
                out.push((index, report));
            }
            Ok(out)
        })?;
        let n: usize = out.iter().map(|(_, f)| f.len()).sum();
        let mut shard = Vec::with_capacity(n);
        let mut name = Vec::with_capacity(n);
        let mut payload: Vec<&[u8]> = Vec::with_capacity(n);
        for (s, report) in &out {
            for (file, bytes) in report {
                shard.push(*s as i32);
                name.push(file.as_str());
                payload.push(bytes);
            }
        }
        let batch = rows(
            &[
                ("shard", int32(shard)),
                ("name", Box::new(Utf8Array::<i64>::from_slice(name))),
                ("payload", Box::new(BinaryArray::<i64>::from_slice(payload))),
            ],
            n,
        );
        stream_of(py, batch)
    }

    /// On the driver: the shard reports (`(shard, name, payload)` rows, every
    /// shard once) merged and written to `--out`, the next state written,
    /// the summary printed; returns the CLI's exit code.
    fn assemble(
        &self,
        py: Python<'_>,
        files: Vec<String>,
        rows: Vec<(u32, String, Vec<u8>)>,
    ) -> PyResult<u8> {
        let mut shards: Vec<(u32, Files)> = Vec::new();
        for (s, name, bytes) in rows {
            match shards.iter_mut().find(|(k, _)| *k == s) {
                Some((_, f)) => f.push((name, bytes)),
                None => shards.push((s, vec![(name, bytes)])),
            }
        }
        py.detach(|| self.job.assemble(&files, shards))
            .map_err(error)
    }
}

/// An int32 column.
fn int32(values: Vec<i32>) -> Box<dyn Array> {
    Box::new(PrimitiveArray::<i32>::from_vec(values))
}

/// Named columns of `n` rows as one batch.
fn rows(columns: &[(&str, Box<dyn Array>)], n: usize) -> StructArray {
    let fields: Vec<Field> = columns
        .iter()
        .map(|(name, a)| Field::new((*name).into(), a.dtype().clone(), false))
        .collect();
    StructArray::new(
        ArrowDataType::Struct(fields),
        n,
        columns.iter().map(|(_, a)| a.clone()).collect(),
        None,
    )
}

/// The module.
#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Job>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
