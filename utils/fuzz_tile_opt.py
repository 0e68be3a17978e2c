#!/usr/bin/env python3
"""Mutation fuzzer for tile-opt.

Takes the lit inputs under test/, damages them (deletes, duplicates or swaps
random tokens and lines, or sets an integer literal to an extreme value),
and runs tile-opt on each mutant through several pipelines: parsing only,
-canonicalize -cse, the pipelines of the RUN lines of the file the case came
from, and the whole lowering to the LLVM dialect, from Tile IR and from
TileGPU IR. tile-opt may reject a mutant, with an `error:` line and exit
code 1, but it must never die from a signal, print "LLVM ERROR", run past
the time limit or need more than the memory limit: each of those is a
failure, and the mutant is kept for reproduction.

    utils/fuzz_tile_opt.py --tile-opt build/bin/tile-opt --mutants 500
"""

import argparse
import concurrent.futures
import os
import random
import re
import resource
import shlex
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

TOKEN = re.compile(r"%[\w.#]+|@[\w.]+|![\w.<>]+|\"[^\"]*\"|\w+|\S")


# The compiler's own pass order (lib/API/Compiler.cpp), as tile-opt flags.
TILEGPU_TO_LLVM = [
    "--tilegpu-warp-specialize", "--tilegpu-pipeline", "--canonicalize",
    "--tilegpu-lower-tma", "--tilegpu-allocate-shared-memory",
    "--tilegpu-insert-barriers", "--tilegpu-ping-pong",
    "--convert-tilegpu-to-llvm", "--convert-scf-to-cf",
    "--convert-tile-to-llvm", "--reconcile-unrealized-casts", "--canonicalize",
    "--cse"]
TILE_TO_LLVM = [
    "--inline", "--symbol-dce", "--convert-tile-to-tilegpu",
    "--tilegpu-coalesce", "--tilegpu-accelerate-matmul",
    "--tilegpu-remove-layout-conversions", "--canonicalize", "--cse",
] + TILEGPU_TO_LLVM
FIXED_PIPELINES = [[], ["-canonicalize", "-cse"], TILE_TO_LLVM, TILEGPU_TO_LLVM]

# Integer literals the sweep writes: the edges where arithmetic on them
# overflows or divides by zero.
EXTREME_INTEGERS = ["0", "-1", str(2**30), str(2**31), str(2**32 - 1)]
INTEGER = re.compile(r"(?<![\w%#@.])-?\d+(?![\w.])")


def split_cases(text):
    """lit inputs hold several cases separated by '// -----'."""
    return [c for c in re.split(r"^// -----\s*$", text, flags=re.M) if c.strip()]


def run_pipelines(text):
    """The tile-opt flags of a lit file's RUN lines that run passes on the
    file itself (diagnostic checks and splitting dropped)."""
    pipelines = []
    for line in re.findall(r"//\s*RUN:\s*(.*)", text):
        command = line.split("|")[0].split("2>&1")[0]
        words = shlex.split(command)
        if "tile-opt" not in words or "%s" not in words:
            continue
        flags = [w for w in words[words.index("tile-opt") + 1:]
                 if w != "%s" and w not in ("-split-input-file",
                                            "--split-input-file",
                                            "-verify-diagnostics")]
        if flags and flags not in pipelines:
            pipelines.append(flags)
    return pipelines


def sweep_integer(text, rng):
    """Sets one integer literal of `text` to an extreme value."""
    literals = list(INTEGER.finditer(text))
    if not literals:
        return text
    m = rng.choice(literals)
    return text[:m.start()] + rng.choice(EXTREME_INTEGERS) + text[m.end():]


def mutate(text, rng):
    if rng.random() < 0.25:
        return sweep_integer(text, rng)
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


def limit_memory(limit_bytes):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))
    return apply


def run_one(tile_opt, path, args, timeout, memory):
    try:
        proc = subprocess.run([tile_opt, str(path), *args], capture_output=True,
                              timeout=timeout, preexec_fn=limit_memory(memory))
    except subprocess.TimeoutExpired:
        return "timeout (over %g s)" % timeout
    stderr = proc.stderr.decode(errors="replace")
    if proc.returncode < 0:
        return "signal %s" % signal.Signals(-proc.returncode).name
    # Running out of the address-space limit ends in LLVM's out-of-memory
    # fatal error, which this also catches.
    if "LLVM ERROR" in stderr:
        return "LLVM ERROR: " + stderr.split("LLVM ERROR", 1)[1][:200].strip()
    if proc.returncode not in (0, 1):
        return "exit code %d" % proc.returncode
    if proc.returncode == 1 and "error:" not in stderr:
        return "exit code 1 without an error: line"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = Path(__file__).resolve().parent.parent
    parser.add_argument("--tile-opt", required=True)
    parser.add_argument("--inputs", default=str(root / "test"))
    parser.add_argument("--mutants", type=int, default=500)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--timeout", type=float, default=30.0)
    parser.add_argument("--memory-gb", type=float, default=4.0)
    parser.add_argument("--keep", default=None,
                        help="directory for failing mutants (default: a temp dir)")
    opts = parser.parse_args()

    seed = opts.seed if opts.seed is not None else random.randrange(1 << 30)
    rng = random.Random(seed)
    corpus = []  # (case text, its file's RUN pipelines)
    for path in sorted(Path(opts.inputs).rglob("*.mlir")):
        text = path.read_text(errors="replace")
        own = run_pipelines(text)
        corpus.extend((case, own) for case in split_cases(text))
    if not corpus:
        print("fuzz: no inputs under %s" % opts.inputs)
        return 2

    keep = Path(opts.keep or tempfile.mkdtemp(prefix="tile-fuzz-"))
    keep.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="tile-fuzz-work-"))
    runs = []  # (mutant, flags)
    for n in range(opts.mutants):
        path = work / ("mutant%05d.mlir" % n)
        case, own = rng.choice(corpus)
        path.write_text(mutate(case, rng))
        runs.extend((path, flags) for flags in FIXED_PIPELINES +
                    [p for p in own if p not in FIXED_PIPELINES])

    failures = []
    memory = int(opts.memory_gb * (1 << 30))
    with concurrent.futures.ThreadPoolExecutor(opts.jobs) as pool:
        futures = {pool.submit(run_one, opts.tile_opt, m, args, opts.timeout,
                               memory): (m, args) for m, args in runs}
        for future in concurrent.futures.as_completed(futures):
            problem = future.result()
            if problem:
                mutant, args = futures[future]
                kept = keep / mutant.name
                kept.write_text(mutant.read_text())
                failures.append((kept, args, problem))

    for kept, args, problem in failures:
        print("FAIL: %s: tile-opt %s %s" % (problem, kept, " ".join(args)))
    print("fuzz: seed %d, %d mutants, %d runs, %d failures" %
          (seed, opts.mutants, len(runs), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
