#!/usr/bin/env python3
"""Mutation fuzzer for tile-opt.

Takes the lit inputs under test/, damages them (deletes, duplicates or swaps
random tokens and lines), and runs tile-opt on each mutant, both parsing only
and with -canonicalize. tile-opt may reject a mutant, but it must never die
from a signal or hang: either is a failure, and the mutant is kept for
reproduction.

    utils/fuzz_tile_opt.py --tile-opt build/bin/tile-opt --mutants 500
"""

import argparse
import concurrent.futures
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

TOKEN = re.compile(r"%[\w.#]+|@[\w.]+|![\w.<>]+|\"[^\"]*\"|\w+|\S")


def split_cases(text):
    """lit inputs hold several cases separated by '// -----'."""
    return [c for c in re.split(r"^// -----\s*$", text, flags=re.M) if c.strip()]


def mutate(text, rng):
    lines = text.splitlines()
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(["del-token", "dup-token", "swap-token", "del-line",
                           "dup-line", "truncate"])
        if not lines:
            break
        if kind in ("del-line", "dup-line"):
            i = rng.randrange(len(lines))
            if kind == "del-line":
                del lines[i]
            else:
                lines.insert(i, lines[i])
        elif kind == "truncate":
            joined = "\n".join(lines)
            lines = joined[: rng.randrange(len(joined) + 1)].splitlines()
        else:
            i = rng.randrange(len(lines))
            tokens = [(m.start(), m.end()) for m in TOKEN.finditer(lines[i])]
            if not tokens:
                continue
            s, e = rng.choice(tokens)
            line = lines[i]
            if kind == "del-token":
                lines[i] = line[:s] + line[e:]
            elif kind == "dup-token":
                lines[i] = line[:e] + " " + line[s:e] + line[e:]
            else:
                # Move the token somewhere else in the file.
                j = rng.randrange(len(lines))
                lines[i] = line[:s] + line[e:]
                target = lines[j]
                k = rng.randrange(len(target) + 1)
                lines[j] = target[:k] + " " + line[s:e] + " " + target[k:]
    return "\n".join(lines) + "\n"


def run_one(tile_opt, path, args, timeout):
    try:
        proc = subprocess.run([tile_opt, str(path), *args], capture_output=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout"
    if proc.returncode < 0:
        return "signal %s" % signal.Signals(-proc.returncode).name
    if proc.returncode not in (0, 1):
        return "exit code %d" % proc.returncode
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = Path(__file__).resolve().parent.parent
    parser.add_argument("--tile-opt", required=True)
    parser.add_argument("--inputs", default=str(root / "test"))
    parser.add_argument("--mutants", type=int, default=500)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=20.0)
    parser.add_argument("--keep", default=None,
                        help="directory for failing mutants (default: a temp dir)")
    opts = parser.parse_args()

    seed = opts.seed if opts.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    corpus = []
    for path in sorted(Path(opts.inputs).rglob("*.mlir")):
        corpus.extend(split_cases(path.read_text(errors="replace")))
    if not corpus:
        print("fuzz: no inputs under %s" % opts.inputs)
        return 2

    keep = Path(opts.keep or tempfile.mkdtemp(prefix="tile-fuzz-"))
    keep.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="tile-fuzz-work-"))
    mutants = []
    for n in range(opts.mutants):
        path = work / ("mutant%05d.mlir" % n)
        path.write_text(mutate(rng.choice(corpus), rng))
        mutants.append(path)

    failures = []
    pipelines = [[], ["-canonicalize", "-cse"]]
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        futures = {pool.submit(run_one, opts.tile_opt, m, args, opts.timeout):
                   (m, args) for m in mutants for args in pipelines}
        for future in concurrent.futures.as_completed(futures):
            problem = future.result()
            if problem:
                mutant, args = futures[future]
                kept = keep / mutant.name
                kept.write_text(mutant.read_text())
                failures.append((kept, args, problem))

    for kept, args, problem in failures:
        print("FAIL: %s: tile-opt %s %s" % (problem, kept, " ".join(args)))
    print("fuzz: seed %d, %d mutants, %d runs, %d crashes" %
          (seed, len(mutants), len(mutants) * len(pipelines), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
