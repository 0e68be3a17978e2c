#!/usr/bin/env python3
"""Runs GPU tests under compute-sanitizer, one process per (tool, test), many
at once, and writes one line per run: tool, test, result, error count, seconds.

A sanitizer run costs 10x to 100x the test, so the whole suite under three
tools does not fit one sequential pass; a pool of processes on one GPU does,
and a line per test says exactly which tests each tool has seen. Tests are
started largest first (by --heavy patterns) so the pool drains evenly; none
starts after --deadline seconds, and those left are listed as not run.

  utils/gpu_sanitize.py --tools memcheck,synccheck --jobs 12 \\
      --deadline 500 --log out.txt python/test/test_gpu_quantized.py -k int8
"""

import argparse
import concurrent.futures as cf
import os
import re
import subprocess
import sys
import time

SANITIZER = "/usr/local/cuda/bin/compute-sanitizer"


def collect(pytest_args):
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only",
                          "-q", "-p", "no:cacheprovider"] + pytest_args,
                         capture_output=True, text=True)
    # Ids are relative to pytest's rootdir (python/test, where pytest.ini
    # is): map each back to the file path it was given as.
    paths = {os.path.basename(a): a for a in pytest_args if a.endswith(".py")}
    ids = []
    for line in out.stdout.splitlines():
        if "::" in line and not line.startswith(" "):
            file, _, rest = line.strip().partition("::")
            ids.append(paths.get(os.path.basename(file), file) + "::" + rest)
    if not ids:
        sys.exit("no tests collected:\n" + out.stdout + out.stderr)
    return ids


def run_one(tool, test, timeout):
    start = time.time()
    cmd = [SANITIZER, "--tool", tool, "--error-exitcode", "9",
           sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
           "-x", test]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=timeout)
        text, rc = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as e:
        text = (e.stdout or b"").decode(errors="replace") if isinstance(
            e.stdout, bytes) else (e.stdout or "")
        rc = "timeout"
    # memcheck and synccheck end with "ERROR SUMMARY: N errors", racecheck
    # with "RACECHECK SUMMARY: N hazards displayed (E errors, W warnings)".
    summary = re.search(r"ERROR SUMMARY: (\d+) error", text) or \
        re.search(r"RACECHECK SUMMARY: (\d+) hazard", text)
    errors = int(summary.group(1)) if summary else None
    if re.search(r"\d+ passed", text):
        outcome = "passed"
    elif re.search(r"\d+ skipped", text) and rc == 0:
        outcome = "skipped"
    else:
        outcome = "failed"
    return tool, test, rc, errors, outcome, time.time() - start, text


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tools", default="memcheck,racecheck,synccheck")
    parser.add_argument("--jobs", type=int, default=8)
    parser.add_argument("--deadline", type=float, default=500)
    parser.add_argument("--heavy", default="",
                        help="comma-separated substrings of slow test ids")
    parser.add_argument("--log", required=True)
    args, pytest_args = parser.parse_known_args()
    tests = collect(pytest_args)
    heavy = [h for h in args.heavy.split(",") if h]
    tests.sort(key=lambda t: not any(h in t for h in heavy))
    work = [(tool, t) for t in tests for tool in args.tools.split(",")]
    began = time.time()
    counts = {"clean": 0, "dirty": 0, "skipped": 0, "not run": 0}
    with open(args.log, "a") as log, \
            cf.ThreadPoolExecutor(args.jobs) as pool:
        def submit(item):
            left = args.deadline - (time.time() - began)
            if left < 1:
                return None
            return pool.submit(run_one, item[0], item[1], left + 60)
        pending = {}
        queue = list(work)
        while queue or pending:
            while queue and len(pending) < args.jobs:
                item = queue.pop(0)
                future = submit(item)
                if future is None:
                    counts["not run"] += 1
                    log.write("%s %s NOT-RUN\n" % item)
                    continue
                pending[future] = item
            if not pending:
                break
            done, _ = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for future in done:
                del pending[future]
                tool, test, rc, errors, outcome, secs, text = future.result()
                clean = rc == 0 and errors == 0
                verdict = ("SKIPPED" if clean and outcome == "skipped" else
                           "CLEAN" if clean and outcome == "passed" else
                           "DIRTY")
                counts[verdict.lower()] = counts.get(verdict.lower(), 0) + 1
                log.write("%s %s %s rc=%s errors=%s %.0fs\n"
                          % (tool, test, verdict, rc, errors, secs))
                clean = verdict != "DIRTY"
                if not clean:
                    log.write("".join("    " + line + "\n"
                                      for line in text.splitlines()[-40:]))
                log.flush()
        log.write("SUMMARY %s\n" % counts)
    print("SUMMARY", counts)
    return 0 if counts["dirty"] == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
