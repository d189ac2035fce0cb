#!/usr/bin/env python3
"""Where an audit's time goes, stage by stage: runs one or more
`crawlaudit ... audit ...` commands N times each, in turn (A B A B ...,
so that a machine's drift touches all alike), each with `--timings
--quiet` added, and prints the median of every stage's wall time per
command (and the fastest and slowest run's, on request).

    scripts/stage_timings.py -n 7 -- BIN --threads 1 audit LOG --snapshot S --out /tmp/a \\
        :: BIN --threads 2 audit LOG --snapshot S --out /tmp/b

The commands are split on a lone `::`. A command that fails, or prints no
timings (a binary older than `--timings`), stops the script with its
stderr.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

HEADER = "crawlaudit: stage timings (wall time)\n"


def stages(stderr: str) -> dict[str, float]:
    """The stage table `--timings` printed: stage name to seconds."""
    table = stderr.split(HEADER, 1)[1]
    found = {}
    for line in table.splitlines():
        words = line.split()
        at = words.index("s")
        found[" ".join(words[: at - 1])] = float(words[at - 1])
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", type=int, default=5, help="runs of each command (default 5)")
    parser.add_argument("--spread", action="store_true", help="also print each stage's min and max")
    parser.add_argument("command", nargs=argparse.REMAINDER, help="-- CMD... [:: CMD...]")
    args = parser.parse_args()
    words = args.command[1:] if args.command[:1] == ["--"] else args.command
    commands, current = [], []
    for word in words:
        if word == "::":
            commands.append(current)
            current = []
        else:
            current.append(word)
    commands.append(current)
    if not all(commands):
        parser.error("give one or more commands, split by ::")
    runs: list[list[dict[str, float]]] = [[] for _ in commands]
    for _ in range(args.n):
        for i, command in enumerate(commands):
            done = subprocess.run(
                [*command, "--timings", "--quiet"],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
            if done.returncode != 0 or HEADER not in done.stderr:
                sys.stderr.write(f"command {i} failed (exit {done.returncode}):\n{done.stderr}")
                return 2
            runs[i].append(stages(done.stderr))
    names = list(runs[0][0])
    width = max(map(len, names))
    print(f"{'stage':<{width}}" + "".join(f"{f'command {i}':>22}" for i in range(len(commands))))
    for name in names:
        cells = []
        for r in runs:
            values = [run[name] for run in r if name in run]
            cell = f"{statistics.median(values):.3f}"
            if args.spread:
                cell += f" ({min(values):.3f}-{max(values):.3f})"
            cells.append(f"{cell:>22}")
        print(f"{name:<{width}}" + "".join(cells))
    print(f"medians of {args.n} runs each, in seconds")
    for i, command in enumerate(commands):
        print(f"command {i}: {' '.join(command)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
