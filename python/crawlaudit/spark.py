"""``crawlaudit audit`` on Apache Spark: every log file read once, by one task.

The job is three kinds of task over the Rust core (``crawlaudit._core``):

1. ``ingest``, one task per log file: the file is read with the CLI's reader
   (format detection, W3C ``#Fields``, multi-member gzip, zstd, bzip2, line
   limits, accounting); each crawler request is identified, verified and its
   Disallow judged on the spot; out come narrow rows ``(shard, file, chunk,
   payload)``: per chunk of the file and per shard (the host's FNV-1a hash mod
   N, as ``--shard`` uses), what that shard's ordered judgement needs, and one
   accounting row per file.
2. ``judge``, one task per shard: Spark shuffles the rows by shard and sorts
   them by (shard, file, chunk) (``repartition(N, shard)
   .sortWithinPartitions(...) .mapInArrow(judge)``); the Rust side judges each
   shard's hosts in the order one run reads them (crawl-delay gaps, noindex
   evidence, findings) and returns the shard report ``crawlaudit audit
   --shard K/N`` writes (Parquet tables, summary.json) and the shard's next
   ``--state``.
3. ``assemble``, on the driver: ``crawlaudit merge``'s code adds the shard
   reports up and writes the report atomically: byte for byte what
   ``crawlaudit audit`` writes for the same inputs (summary.json but for its
   run time).

Tasks have no side effects: each returns rows and removes its own temporary
files, so a retried or speculative attempt only returns the same rows again,
and Spark keeps one attempt's. Only the driver writes (the report and the
state). The ``--state`` of the previous night is read by the driver, split by
host into the shards (so N may change from night to night) and crosses the
same shuffle as each shard's first rows.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, Optional, Sequence

import pyarrow as pa

from ._core import Job

#: The rows ``ingest`` emits and ``judge`` reads.
PARTS = "shard int, file int, chunk int, payload binary"
#: The same rows as Spark's Arrow types (``ingest``'s output).
_PARTS_SPARK = pa.schema(
    [
        ("shard", pa.int32()),
        ("file", pa.int32()),
        ("chunk", pa.int32()),
        ("payload", pa.binary()),
    ]
)
#: The same rows as the core reads them (``judge``'s input).
PARTS_ARROW = pa.schema(
    [
        ("shard", pa.int32()),
        ("file", pa.int32()),
        ("chunk", pa.int32()),
        ("payload", pa.large_binary()),
    ]
)
#: The rows ``judge`` emits: each shard report's files.
REPORTS = "shard int, name string, payload binary"
REPORTS_ARROW = pa.schema(
    [("shard", pa.int32()), ("name", pa.string()), ("payload", pa.binary())]
)

# One job per Python worker and command line: the catalogue, ranges and
# snapshot are loaded once per worker, not once per task.
_JOBS: dict = {}


def _task_job(argv: Sequence[str]) -> Job:
    key = tuple(argv)
    job = _JOBS.get(key)
    if job is None:
        _use_task_cpus()
        _JOBS.clear()
        job = _JOBS[key] = Job(list(argv), driver=False)
    return job


def _use_task_cpus() -> None:
    """The core's thread pools (rayon's, polars') as wide as the task's
    share of its executor (``spark.task.cpus``, 1 by default): Spark runs
    one task per core at once, and a task with a pool per core each would
    oversubscribe the executor. Set before the pools start (the first job
    of the worker); a value the user set is kept."""
    try:
        from pyspark import TaskContext

        context = TaskContext.get()
        cpus = context.cpus() if context is not None else None
    except Exception:  # an older PySpark, or not in a task
        cpus = None
    if cpus:
        os.environ.setdefault("RAYON_NUM_THREADS", str(cpus))
        os.environ.setdefault("POLARS_MAX_THREADS", str(cpus))


class _Stream:
    """An Arrow C stream capsule, for ``pa.RecordBatchReader.from_stream``."""

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self._capsule


def _batches(capsule: Any, schema: pa.Schema) -> Iterator[pa.RecordBatch]:
    """The core's rows as Spark's Arrow types, a row per batch (a payload of
    a large shard can be hundreds of megabytes: ``binary``'s 32-bit offsets
    then hold one at a time)."""
    for batch in pa.RecordBatchReader.from_stream(_Stream(capsule)):
        for i in range(batch.num_rows):
            yield batch.slice(i, 1).cast(schema)


def _ingest_fn(
    argv: Sequence[str],
    inputs: Sequence[str],
    shards: int,
    hook: Optional[Callable[[str, int], None]],
):
    def ingest(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        job = _task_job(argv)
        for batch in batches:
            for file in batch.column(0).to_pylist():
                path = inputs[file]
                if _is_uri(path):
                    with _local_copy(path) as copy:
                        out = job.ingest(file, copy, shards, path)
                else:
                    out = job.ingest(file, path, shards)
                yield from _batches(out, _PARTS_SPARK)
                if hook is not None:
                    hook("ingest", file)

    return ingest


def _is_uri(arg: str) -> bool:
    """A URI of a file system ``pyarrow.fs`` opens (``s3://``, ``gs://``,
    ``abfs://``, ``hdfs://``, ``file://``), not a path (as the core says)."""
    scheme, sep, _ = arg.partition("://")
    return bool(sep) and scheme[:1].isalpha() and all(c.isalnum() or c in "+-." for c in scheme)


def _list_remote(uri: str) -> list:
    """The files under a URI: the object itself, or every file below a
    directory (prefix), in path order; each named by a URI."""
    from pyarrow import fs as pafs

    try:
        filesystem, path = pafs.FileSystem.from_uri(uri)
        info = filesystem.get_file_info(path)
        if info.type == pafs.FileType.File:
            return [uri]
        if info.type == pafs.FileType.Directory:
            base = uri.rstrip("/")
            root = path.rstrip("/")
            found = filesystem.get_file_info(pafs.FileSelector(path, recursive=True))
            files = sorted(f.path for f in found if f.type == pafs.FileType.File)
            if not files:
                raise RuntimeError(f"log directory {uri} holds no file")
            return [base + f[len(root) :] for f in files]
    except RuntimeError:
        raise
    except Exception as e:  # pyarrow's own errors: no such bucket, no credentials
        raise RuntimeError(f"log {uri} cannot be listed: {e}") from e
    raise RuntimeError(f"log file {uri} does not exist")


class _local_copy:
    """A URI's object streamed once into a local temporary file (as stored:
    the core tells gzip, zstd and bzip2 by their first bytes), removed
    after."""

    def __init__(self, uri: str) -> None:
        self.uri = uri
        self.path = None

    def __enter__(self) -> str:
        import shutil
        import tempfile

        from pyarrow import fs as pafs

        filesystem, path = pafs.FileSystem.from_uri(self.uri)
        fd, self.path = tempfile.mkstemp(prefix="crawlaudit-log-")
        with os.fdopen(fd, "wb") as out, filesystem.open_input_stream(path, compression=None) as src:
            shutil.copyfileobj(src, out, 8 << 20)
        return self.path

    def __exit__(self, *exc) -> None:
        if self.path is not None:
            os.unlink(self.path)


def _judge_fn(
    argv: Sequence[str],
    shards: int,
    files: Sequence[str],
    hook: Optional[Callable[[str, int], None]],
):
    def judge(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        job = _task_job(argv)
        reader = pa.RecordBatchReader.from_batches(PARTS_ARROW, _as_large(batches))
        out = job.judge(shards, list(files), reader)
        yielded = []
        for batch in _batches(out, REPORTS_ARROW):
            yielded.append(batch.column("shard")[0].as_py())
            yield batch
        if hook is not None:
            for shard in sorted(set(yielded)):
                hook("judge", shard)

    return judge


def _as_large(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Spark's rows with the payload as ``large_binary``, as the core reads."""
    for b in batches:
        yield pa.RecordBatch.from_arrays(
            [
                b.column(0).cast(pa.int32()),
                b.column(1).cast(pa.int32()),
                b.column(2).cast(pa.int32()),
                b.column(3).cast(pa.large_binary()),
            ],
            schema=PARTS_ARROW,
        )


@dataclass
class Audit:
    """What :func:`audit` did: the CLI's exit code (0, 2 after a fault
    unless ``allow_partial``, 3 when ``fail_on`` matched), where the report
    is, and its three tables as Spark DataFrames (read from its Parquet
    files, or CSV when Parquet was not asked for)."""

    exit_code: int
    out: str
    violations: Any
    crawlers: Any
    findings: Any
    #: Seconds of each step on the driver: ``prepare`` (flags, snapshot),
    #: ``ingest`` (every file read; ends when the accounting is collected),
    #: ``judge`` (the shuffle, each shard judged, the reports collected),
    #: ``assemble`` (merged and written).
    seconds: dict = field(default_factory=dict)
    #: Bytes of the rows that crossed the shuffle (parts and states).
    shuffled_bytes: int = 0


def flags(**options: Any) -> list:
    """Keyword options as ``crawlaudit audit`` flags: ``ip_ranges="r"`` is
    ``--ip-ranges r``, ``allow_partial=True`` is ``--allow-partial``, a list
    repeats the flag (``snapshot=[a, b]``), ``None`` and ``False`` are left
    out."""
    argv = []
    for key, value in options.items():
        flag = "--" + key.replace("_", "-")
        if value is None or value is False:
            continue
        if value is True:
            argv.append(flag)
        elif isinstance(value, (list, tuple)):
            for v in value:
                argv += [flag, os.fspath(v) if isinstance(v, os.PathLike) else str(v)]
        else:
            argv += [flag, os.fspath(value) if isinstance(value, os.PathLike) else str(value)]
    return argv


def audit(spark: Any, logs: Any, shards: int = 0, **options: Any) -> Audit:
    """Runs ``crawlaudit audit LOGS --snapshot ... --out ...`` on ``spark``:
    ``logs`` a path or a list (files, directories, glob patterns), the
    options the CLI's flags (``snapshot=``, ``out=``, ``state=``,
    ``ip_ranges=``, ``site=``, ``format=``, ``since=``, ``fail_on=``,
    ``allow_partial=True``, ...), ``shards`` the number of judge tasks
    (default: Spark's default parallelism). Raises ``RuntimeError`` with the
    CLI's message where the CLI would exit 2 before writing a report."""
    if isinstance(logs, (str, os.PathLike)):
        logs = [logs]
    argv = [os.fspath(l) for l in logs] + flags(**options)
    return audit_argv(spark, argv, shards)


def audit_argv(
    spark: Any,
    argv: Sequence[str],
    shards: int = 0,
    _task_hook: Optional[Callable[[str, int], None]] = None,
    measure: bool = False,
) -> Audit:
    """:func:`audit` with the CLI's own flags (``argv`` as after
    ``crawlaudit audit``). ``_task_hook(stage, number)``, for tests, runs in
    each task after its rows are emitted (a hook that raises makes Spark
    retry the task). ``measure``: count the bytes that cross the shuffle
    (one more pass over the ingested rows; ``Audit.shuffled_bytes``)."""
    from pyspark import StorageLevel

    argv = list(argv)
    clock = time.perf_counter()
    seconds = {}

    def lap(name: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        seconds[name] = round(now - clock, 3)
        clock = now

    remote = [f for uri in Job.remote_logs(argv) for f in _list_remote(uri)]
    driver = Job(argv, driver=True, remote=remote)
    lap("prepare")
    if shards <= 0:
        shards = max(1, spark.sparkContext.defaultParallelism)
    inputs = driver.inputs()
    # A task per file: the files' numbers, a partition each (made in the
    # JVM: a Python RDD would cost each task a second trip through Python).
    listing = spark.range(0, len(inputs), 1, max(1, len(inputs)))
    ingested = listing.mapInArrow(_ingest_fn(argv, inputs, shards, _task_hook), PARTS).persist(
        StorageLevel.MEMORY_AND_DISK
    )
    try:
        accounting = ingested.where("shard = -1").select("file", "payload").collect()
        files = [None] * len(inputs)
        for row in accounting:
            files[row.file] = bytes(row.payload).decode("utf-8")
        if any(f is None for f in files):
            raise RuntimeError("an input's accounting is missing: a task lost its rows")
        lap("ingest")
        parts = ingested.where("shard >= 0")
        states = driver.states(shards)
        if states:
            state_rows = spark.createDataFrame(
                [(s, -1, -1, bytearray(b)) for s, b in states], PARTS
            )
            parts = parts.unionByName(state_rows)
        shuffled = sum(len(b) for _, b in states)
        if measure:
            shuffled += (
                parts.where("file >= 0").selectExpr("coalesce(sum(length(payload)), 0) AS n").first().n
            )
            lap("measure")
        judged = (
            parts.repartition(shards, "shard")
            .sortWithinPartitions("shard", "file", "chunk")
            .mapInArrow(_judge_fn(argv, shards, files, _task_hook), REPORTS)
            .collect()
        )
    finally:
        ingested.unpersist()
    rows = [(r.shard, r.name, bytes(r.payload)) for r in judged]
    # Shards without a line or a state: no task saw them; their (empty)
    # reports are judged here.
    missing = sorted(set(range(shards)) - {r[0] for r in rows})
    if missing:
        # The driver's job judges them (its context is put back after).
        nothing = pa.RecordBatchReader.from_batches(PARTS_ARROW, iter(()))
        rows += [
            (b["shard"], b["name"], b["payload"])
            for batch in _batches(driver.judge(shards, files, nothing, missing), REPORTS_ARROW)
            for b in batch.to_pylist()
        ]
    lap("judge")
    code = driver.assemble(files, rows)
    lap("assemble")
    out_dir = _out_of(argv)
    return Audit(code, out_dir, *_tables(spark, out_dir), seconds=seconds, shuffled_bytes=shuffled)


def _out_of(argv: Sequence[str]) -> str:
    out = "reports"
    for i, a in enumerate(argv):
        if a == "--out" and i + 1 < len(argv):
            out = argv[i + 1]
        elif a.startswith("--out="):
            out = a[len("--out=") :]
    return os.path.abspath(out)


def _tables(spark: Any, out: str):
    tables = []
    for name in ("violations", "crawlers", "findings"):
        parquet = os.path.join(out, name + ".parquet")
        csv = os.path.join(out, name + ".csv")
        if os.path.exists(parquet):
            tables.append(spark.read.parquet(parquet))
        elif os.path.exists(csv):
            tables.append(spark.read.option("header", True).csv(csv))
        else:
            tables.append(None)
    return tables
