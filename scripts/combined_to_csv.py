#!/usr/bin/env python3
"""Writes a combined log's lines as a CSV log with a header row (the
benchmark of CSV reading in BENCHMARKS.md): time, client_ip, request,
status, bytes, referer, user_agent; lines that are not combined are left
out.

    python3 scripts/combined_to_csv.py combined-256M-1.log bench.csv
"""
import csv
import re
import sys

LINE = re.compile(r'^(\S+) \S+ \S+ \[([^\]]+)\] "([^"]*)" (\d+) (\S+) "([^"]*)" "([^"]*)"')


def main(src, dst):
    with open(src, errors="replace") as f, open(dst, "w", newline="") as out:
        w = csv.writer(out)
        w.writerow(["time", "client_ip", "request", "status", "bytes", "referer", "user_agent"])
        for line in f:
            m = LINE.match(line)
            if m:
                w.writerow([m[2], m[1], m[3], m[4], m[5], m[6], m[7]])


if __name__ == "__main__":
    main(*sys.argv[1:3])
