#!/usr/bin/env python3
"""Builds the seed corpora in fuzz/corpus/<target>/ from the fixtures and,
when it is there, the real data in ../shared/data (read in place, never
copied into the repository: fuzz/corpus is ignored by git).

    python3 fuzz/seed.py [--data ../shared/data]
"""
import argparse
import gzip
import hashlib
import json
import pathlib
import os
import re
import subprocess
import tempfile

ROOT = pathlib.Path(__file__).resolve().parent.parent
CORPUS = ROOT / "fuzz" / "corpus"
COMBINED = ('$remote_addr - $remote_user [$time_local] "$request" $status '
            '$body_bytes_sent "$http_referer" "$http_user_agent"')
MAX_SEED = 64 << 10
# The README's second --format regex: example (a date written in parts).
CUSTOM_DATE = (r'^(?P<ip>\S+) \S+ \S+ \[(?P<month>[A-Za-z]+) - (?P<day>\d+), (?P<year>\d{4}):'
               r'(?P<hour>\d\d):(?P<minute>\d\d):(?P<second>\d\d)\] "(?P<request>[^"]*)" '
               r'(?P<status>\S+) (?P<bytes>\S+)$')


def put(target, data, limit=MAX_SEED):
    if isinstance(data, str):
        data = data.encode()
    data = data[:limit]
    if not data:
        return 0
    d = CORPUS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / hashlib.sha1(data).hexdigest()).write_bytes(data)
    return 1


def lines_of(path, n):
    with open(path, "rb") as f:
        return b"".join(f.readline() for _ in range(n))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    args = ap.parse_args()
    data = pathlib.Path(args.data)
    counts = {}

    def add(target, blob):
        counts[target] = counts.get(target, 0) + put(target, blob)

    def add_csv(text, tsv, modes=(0, 2, 6)):
        # log_csv's first byte: bit 0 TSV, bit 1 --csv-fields for the
        # first two columns (bit 2: the second as request=, else uri=).
        for mode in modes:
            add("log_csv", bytes([mode | int(tsv)]) + text)

    fx = ROOT / "fixtures"
    # robots: the fuzz target's first byte splits robots.txt from the URL.
    robots_files = [p for p in fx.rglob("*") if p.is_file() and (
        p.name == "robots.txt" or p.parent.name == "robots")]
    corpus = data / "robots_corpus"
    if corpus.is_dir():
        robots_files += sorted(p for p in corpus.rglob("*") if p.is_file())[:400]
    for p in robots_files:
        add("robots", b"\xf0" + p.read_bytes()[:MAX_SEED - 64] + b"/private/page.html?q=1")
    # indexing: header values and HTML pages.
    for p in fx.rglob("pages.jsonl"):
        for line in p.read_text().splitlines():
            if not line.strip():
                continue
            page = json.loads(line)
            if page.get("html"):
                add("indexing", page["html"])
            tags = page.get("x_robots_tag")
            for v in ([tags] if isinstance(tags, str) else tags or []):
                add("indexing", v)
        add("pages_jsonl", p.read_bytes())
    for v in ["noindex, nofollow", "googlebot: noindex", "unavailable_after: 25 Jun 2010 15:00:00 PST",
              "max-snippet: 20, max-image-preview: large", "none"]:
        add("indexing", v)
    add("indexing", '<html><head><meta name="robots" content="noindex"><meta name="googlebot" content="nosnippet"></head></html>')
    # logs: each fixture to its format's target (fixtures/logs/<format>/).
    for d in sorted((fx / "logs").iterdir()):
        text = (d / "input.log").read_bytes()
        name = d.name
        fmt = (d / "format.txt").read_text().strip()
        if name.startswith("json"):
            add("log_json", text)
        elif name.startswith("w3c"):
            add("log_w3c", text)
        elif name in ("csv", "tsv"):
            add_csv(text, tsv=name == "tsv")
        elif fmt.startswith("regex:"):
            # The pattern as the first line, then the lines.
            add("log_regex", fmt[len("regex:"):].encode() + b"\n" + text)
        elif name.startswith("haproxy"):
            add("log_haproxy", text)
        elif name == "parquet":
            add("log_parquet", text)
        else:
            fmt = fmt.split(":", 1)[1] if fmt.startswith("nginx:") else COMBINED
            add("log_template", fmt.encode() + b"\n" + text)
    logs = data / "logs"
    if logs.is_dir():
        for p in sorted(logs.rglob("*.log")):
            head = lines_of(p, 40)
            if head.lstrip().startswith(b"{"):
                add("log_json", head)
            elif head.startswith(b"#"):
                add("log_w3c", head)
            elif "haproxy" in p.name:
                add("log_haproxy", head)
            elif "regex" in p.name:
                add("log_regex", CUSTOM_DATE.encode() + b"\n" + head)
            else:
                add("log_template", COMBINED.encode() + b"\n" + head)
            # Any log as a CSV log too (a header it lacks is a fault).
            add_csv(head, tsv=False, modes=(2,))
    # WARC: the fixture crawl, whole and record by record.
    for p in (fx / "warc").glob("*.warc.gz"):
        raw = p.read_bytes()
        plain = gzip.decompress(raw)
        add("warc", raw[:MAX_SEED])
        for rec in re.split(rb"(?=WARC/1\.[01]\r\n)", plain):
            add("warc", rec)
    # --bots: the built-in catalogue, whole and one table at a time.
    cat = (ROOT / "src" / "bots" / "catalog.toml").read_text()
    add("bots_toml", cat)
    for block in re.split(r"\n(?=\[\[)", cat):
        add("bots_toml", block)
    # merge and --state: a shard report and a state file of the demo,
    # written by the release binary when it is built.
    target_dir = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    binary = target_dir / "release" / "crawlaudit"
    if binary.is_file():
        sep = b"\n--crawlaudit-part--\n"
        for shard in ["0/1", "0/2", "1/2"]:
            with tempfile.TemporaryDirectory() as tmp:
                out, state = pathlib.Path(tmp) / "r", pathlib.Path(tmp) / "state.parquet"
                subprocess.run([str(binary), "audit", "--quiet", "--out", str(out), "--shard", shard,
                                "--state", str(state)], check=True, stdout=subprocess.DEVNULL)
                parts = [(out / n).read_bytes() for n in
                         ["summary.json", "violations.parquet", "findings.parquet", "crawlers.parquet"]]
                parts.append(state.read_bytes())
                counts["merge_state"] = counts.get("merge_state", 0) + put(
                    "merge_state", sep.join(parts), limit=1 << 20)
    else:
        print(f"merge_state: no seeds ({binary} is not built: cargo build --release)")
    for target, n in sorted(counts.items()):
        print(f"{target}: {n} seeds")


if __name__ == "__main__":
    main()
