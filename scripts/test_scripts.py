"""Tests of the benchmark scripts that judge the audit's rework:
`stage_timings.py` (the medians of `--timings` tables) and
`compare_runs.py` (byte-identical output of two builds). Each runs the
script against stand-in binaries written here, so no build is needed:

    python3 -m unittest discover -s scripts -p 'test_*.py'
"""

import json
import pathlib
import subprocess
import sys
import tempfile
import textwrap
import unittest
from contextlib import redirect_stdout
from io import StringIO
from unittest.mock import patch

SCRIPTS = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(SCRIPTS))

import compare_runs  # noqa: E402
import stage_timings  # noqa: E402

# A table as `crawlaudit audit --timings` prints it (src/cli/audit.rs).
TABLE = """\
crawlaudit: stage timings (wall time)
  set-up                  0.063 s
  reading                 {reading:.3f} s   1073.7 MB, 850 MB/s
  judging                 0.094 s
  building the report     0.092 s
  writing the report      0.475 s
  total                   {total:.3f} s
"""


def stand_in(directory: pathlib.Path, name: str, body: str) -> pathlib.Path:
    """An executable Python script named `name` in `directory`."""
    path = directory / name
    path.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body))
    path.chmod(0o755)
    return path


class StageTimings(unittest.TestCase):
    def test_a_table_is_read_stage_by_stage(self):
        found = stage_timings.stages("warning: x\n" + TABLE.format(reading=1.263, total=1.987))
        self.assertEqual(
            found,
            {
                "set-up": 0.063,
                "reading": 1.263,
                "judging": 0.094,
                "building the report": 0.092,
                "writing the report": 0.475,
                "total": 1.987,
            },
        )

    def test_medians_and_spreads_per_command(self):
        with tempfile.TemporaryDirectory() as t:
            tmp = pathlib.Path(t)
            # Each call takes the next reading time from its own list.
            fake = stand_in(
                tmp,
                "fake-crawlaudit",
                f"""
                import pathlib, sys
                queue = pathlib.Path(sys.argv[1])
                values = queue.read_text().split()
                queue.write_text(" ".join(values[1:]))
                reading = float(values[0])
                assert sys.argv[-2:] == ["--timings", "--quiet"], sys.argv
                sys.stderr.write({TABLE!r}.format(reading=reading, total=reading + 1))
                """,
            )
            (tmp / "a").write_text("1.0 3.0 2.0")
            (tmp / "b").write_text("0.5 0.5 0.7")
            done = subprocess.run(
                [sys.executable, str(SCRIPTS / "stage_timings.py"), "-n", "3", "--spread", "--",
                 str(fake), str(tmp / "a"), "::", str(fake), str(tmp / "b")],
                capture_output=True, text=True, check=True,
            )
        lines = {line.split("  ")[0]: line for line in done.stdout.splitlines()}
        self.assertRegex(lines["reading"], r"2\.000 \(1\.000-3\.000\)\s+0\.500 \(0\.500-0\.700\)$")
        self.assertRegex(lines["total"], r"3\.000 \(2\.000-4\.000\)\s+1\.500 \(1\.500-1\.700\)$")
        self.assertIn("medians of 3 runs each", done.stdout)

    def test_a_command_without_timings_stops_the_script(self):
        with tempfile.TemporaryDirectory() as t:
            fake = stand_in(pathlib.Path(t), "old-crawlaudit", "import sys; sys.stderr.write('no table')\n")
            done = subprocess.run(
                [sys.executable, str(SCRIPTS / "stage_timings.py"), "-n", "2", "--", str(fake)],
                capture_output=True, text=True,
            )
        self.assertEqual(done.returncode, 2)
        self.assertIn("command 0 failed (exit 0)", done.stderr)
        self.assertIn("no table", done.stderr)


# A stand-in audit: writes a report directory (and the state file, when
# asked) whose files depend on the environment, so two "builds" can agree
# or not. CRAWLAUDIT_FAKE_EXIT makes it fail.
FAKE_AUDIT = """
import json, os, pathlib, sys, time
args = sys.argv[1:]
out = pathlib.Path(args[args.index("--out") + 1])
code = int(os.environ.get("CRAWLAUDIT_FAKE_EXIT", "0"))
if code:
    sys.exit(code)
out.mkdir(parents=True, exist_ok=True)
(out / "violations.csv").write_text(os.environ.get("CRAWLAUDIT_FAKE_CSV", "time,host\\n"))
summary = {"run": {"seconds": time.perf_counter(), "version": "x"}, "lines": 3}
(out / "summary.json").write_text(json.dumps(summary))
if os.environ.get("CRAWLAUDIT_FAKE_EXTRA"):
    (out / "extra.csv").write_text("")
if "--state" in args:
    state = pathlib.Path(args[args.index("--state") + 1])
    # A second night reads the first night's state: CRAWLAUDIT_FAKE_SECOND
    # changes what it writes then.
    second = state.exists() and os.environ.get("CRAWLAUDIT_FAKE_SECOND")
    state.write_text(second or os.environ.get("CRAWLAUDIT_FAKE_STATE", "state"))
"""


class CompareRuns(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = pathlib.Path(self._tmp.name)

    def tearDown(self):
        self._tmp.cleanup()

    def build(self, name: str, **env: str) -> str:
        """A stand-in binary whose audit runs with `env` set."""
        lines = "".join(f"os.environ[{k!r}] = {v!r}\n" for k, v in env.items())
        return str(stand_in(self.tmp, name, "import os\n" + lines + FAKE_AUDIT))

    def case(self, old: str, new: str, state=None):
        """`compare_runs.case` of the two builds: its verdict and line."""
        work = self.tmp / "work"
        work.mkdir(exist_ok=True)
        printed = StringIO()
        with redirect_stdout(printed):
            ok = compare_runs.case("c", old, new, [], work, state=state)
        return ok, printed.getvalue().strip()

    def test_summaries_differing_only_in_run_time_are_the_same(self):
        self.assertEqual(self.case(self.build("a"), self.build("b")), (True, "same c"))

    def test_a_differing_file_or_one_build_alone_is_a_difference(self):
        ok, line = self.case(self.build("a"), self.build("b", CRAWLAUDIT_FAKE_CSV="time,host\n1,x\n"))
        self.assertEqual((ok, line), (False, "DIFF c: violations.csv: differs"))
        ok, line = self.case(self.build("c"), self.build("d", CRAWLAUDIT_FAKE_EXTRA="1"))
        self.assertEqual((ok, line), (False, "DIFF c: extra.csv: only in new"))

    def test_state_files_are_compared(self):
        old = self.build("a")
        self.assertEqual(self.case(old, self.build("b"), state="s"), (True, "same c"))
        ok, line = self.case(old, self.build("c", CRAWLAUDIT_FAKE_STATE="other"), state="t")
        self.assertEqual((ok, line), (False, "DIFF c: state differs"))

    def test_failing_runs_say_so(self):
        ok, line = self.case(self.build("a", CRAWLAUDIT_FAKE_EXIT="2"), self.build("b", CRAWLAUDIT_FAKE_EXIT="2"))
        self.assertEqual((ok, line), (True, "same c (both exit 2, no report)"))
        ok, line = self.case(self.build("c"), self.build("d", CRAWLAUDIT_FAKE_EXIT="2"))
        self.assertFalse(ok)
        self.assertTrue(line.startswith("DIFF c: exit 0 vs 2"), line)

    def test_nights_run_the_next_log_from_the_first_nights_state(self):
        logs = self.tmp / "logs"
        logs.mkdir()
        first, following = logs / "day1.log", logs / "day2.log"
        first.write_text("")
        following.write_text("")
        old = self.build("a")

        def nights(new: str):
            printed = StringIO()
            argv = ["compare_runs", old, new, "--data", str(self.tmp / "no-data"),
                    "--nights", str(first), str(following), "-"]
            with redirect_stdout(printed), patch.object(sys, "argv", argv):
                with self.assertRaises(SystemExit) as exit_:
                    compare_runs.main()
            return exit_.exception.code, printed.getvalue().splitlines()

        code, lines = nights(self.build("b"))
        self.assertEqual((code, lines), (0, ["same demo", "same nights0-1-day1.log", "same nights0-2-day2.log"]))
        # A build that differs only when it reads a state file: the second
        # night alone differs, so it ran from the first night's state.
        code, lines = nights(self.build("c", CRAWLAUDIT_FAKE_SECOND="other"))
        self.assertEqual(code, 1)
        self.assertEqual(lines[1:], ["same nights0-1-day1.log", "DIFF nights0-2-day2.log: state differs"])

    def test_a_summary_is_normalized_without_its_run_time(self):
        path = self.tmp / "summary.json"
        path.write_text(json.dumps({"run": {"seconds": 1.5, "version": "v"}, "lines": 2}))
        self.assertEqual(json.loads(compare_runs.normalized(path)), {"run": {"version": "v"}, "lines": 2})
        other = self.tmp / "other.csv"
        other.write_bytes(b"a,b\n")
        self.assertEqual(compare_runs.normalized(other), b"a,b\n")


if __name__ == "__main__":
    unittest.main()
