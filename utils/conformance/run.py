#!/usr/bin/env python3
"""Runs Triton's own tests against tile and against Triton, and prints a
per-test-function table of passed / failed / skipped for both.

    python3 utils/conformance/run.py --suite <dir of a Triton checkout's
        python/test> [--only tile|triton] [--deselect FILE] [--sample K/N]
        [-k EXPR] [--jobs J] [--out DIR] TEST_FILE...

TEST_FILE paths are relative to --suite (e.g. unit/runtime/test_launch.py).
Nothing is fetched: the suite directory must hold the test files, Triton's
python/test/conftest.py and `_internal_testing.py` (the helpers, which
tile's run loads through the alias in triton_alias.py). Under tile, pytest
runs with `-p triton_alias`; under Triton, with the installed triton.

--deselect names a file of `node-id-prefix  # reason` lines: those tests
run under neither compiler (tests of Triton internals with no tile
meaning). --sample K/N keeps the tests whose node id hashes to bucket K of
N (the same tests for both compilers), for suites too large to run whole;
K may be a range A-B or a list K1,K2 so that a few runs cover the suite.
"""

import argparse
import collections
import concurrent.futures
import hashlib
import os
import re
import signal
import subprocess
import sys
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))


def read_deselect(path):
    entries = []
    if not path:
        return entries
    for line in open(path):
        node, _, reason = line.partition("#")
        node = node.strip()
        if node:
            entries.append((node, reason.strip()))
    return entries


def run_pytest(flavor, suite, files, args, out, budget=None):
    """Runs pytest for one compiler; (the junit XML path, whether the run
    was cut short). Past `budget` seconds pytest gets SIGINT, so that it
    stops and still writes the XML of the tests that finished."""
    xml = os.path.join(out, "%s.xml" % flavor)
    log = os.path.join(out, "%s.log" % flavor)
    env = dict(os.environ)
    cmd = [sys.executable, "-m", "pytest", "-q", "-rfE", "--rootdir", suite,
           "-c", os.devnull, "--junitxml", xml, "-o", "junit_family=xunit2",
           "-p", "no:cacheprovider", "--continue-on-collection-errors"]
    # Both runs use the suite's own test helpers (see triton_helpers).
    env["PYTHONPATH"] = os.pathsep.join(
        [HERE] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["TILE_CONFORMANCE_HELPERS"] = os.path.join(suite, "_internal_testing.py")
    cmd += ["-p", "triton_alias" if flavor == "tile" else "triton_helpers"]
    cmd += args + files
    cut = False
    with open(log, "w") as f:
        # A job started in the background (nohup, `&`) inherits SIGINT
        # ignored; pytest must take the budget's SIGINT.
        proc = subprocess.Popen(
            cmd, cwd=suite, env=env, stdout=f, stderr=subprocess.STDOUT,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        try:
            proc.wait(timeout=budget)
        except subprocess.TimeoutExpired:
            cut = True
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    return xml, cut


def outcomes(xml):
    """{(file, function): Counter(passed/failed/skipped)} from junit XML."""
    table = collections.defaultdict(collections.Counter)
    if not os.path.exists(xml):
        return table
    for case in ET.parse(xml).getroot().iter("testcase"):
        if not case.get("classname") and not case.get("name"):
            continue   # the interrupted session's own entry (--budget)
        if case.get("classname"):
            module = case.get("classname").replace(".", "/") + ".py"
            function = case.get("name", "").split("[")[0]
        else:   # a module that failed to import: all its tests fail
            module = case.get("name", "").replace(".", "/") + ".py"
            function = "(collection)"
        kinds = {child.tag for child in case}
        if kinds & {"failure", "error"}:
            outcome = "failed"
        elif "skipped" in kinds:
            outcome = "skipped"
        else:
            outcome = "passed"
        table[(module, function)][outcome] += 1
    return table


def failure_reasons(xml):
    """{(function, reason): [test ids]}: the first line of each failure's
    message, with numbers blanked so that one cause groups its tests."""
    groups = collections.defaultdict(list)
    if not os.path.exists(xml):
        return groups
    for case in ET.parse(xml).getroot().iter("testcase"):
        for child in case:
            if child.tag not in ("failure", "error"):
                continue
            message = (child.get("message") or child.text or "").strip()
            lines = [l for l in message.splitlines() if l.strip()] or ["(none)"]
            # A compile error's first line is only its position; what went
            # wrong is on its last.
            text = lines[0] if len(lines) == 1 else lines[0] + " ... " + lines[-1]
            reason = re.sub(r"\d+", "N", text)[:200]
            function = case.get("name", "").split("[")[0]
            groups[(function, reason)].append(case.get("name", ""))
    return groups


def write_failures(xml, path):
    groups = failure_reasons(xml)
    lines = ["| function | tests | the failure's first ... last line |", "|---|---|---|"]
    for (function, reason), ids in sorted(groups.items(),
                                          key=lambda kv: -len(kv[1])):
        lines.append("| %s | %d | %s |" % (function, len(ids),
                                           reason.replace("|", "\\|")))
    lines.append("")
    for (function, reason), ids in sorted(groups.items()):
        lines.append("%s: %s" % (function, reason))
        lines.extend("    " + i for i in ids[:8])
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def parse_sample(sample):
    """K/N, or a range A-B/N (buckets A to B, both included), or a list
    K1,K2,.../N: a long suite is split into a few runs that together cover
    every bucket once."""
    spec, _, n = sample.partition("/")
    n = int(n)
    buckets = set()
    for part in spec.split(","):
        first, _, last = part.partition("-")
        buckets.update(range(int(first), int(last or first) + 1))
    if not buckets or min(buckets) < 0 or max(buckets) >= n:
        raise SystemExit("--sample %s: buckets must lie in 0..%d" % (sample, n - 1))
    return buckets, n


def write_sample(suite, files, sample, deselect_args, out):
    """The node ids in bucket K of N: collected under Triton (the reference)
    and passed to both runs."""
    buckets, n = parse_sample(sample)
    env = dict(os.environ, TILE_CONFORMANCE_HELPERS=os.path.join(
        suite, "_internal_testing.py"), PYTHONPATH=os.pathsep.join(
            [HERE] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep)
                      if p]))
    listing = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "--rootdir",
         suite, "-c", os.devnull, "-p", "no:cacheprovider", "-p",
         "triton_helpers"] + deselect_args + files,
        cwd=suite, env=env, capture_output=True, text=True).stdout.splitlines()
    # Only node ids: pytest's collection also prints warnings that name a
    # test ("Test: <id>, argvalues type: chain"), which are no node ids.
    ids = [line for line in listing
           if "::" in line and line.partition("::")[0] in files]
    keep = [i for i in ids
            if int(hashlib.sha256(i.encode()).hexdigest(), 16) % n in buckets]
    path = os.path.join(out, "sample.txt")
    with open(path, "w") as f:
        f.write("\n".join(keep) + "\n")
    return keep


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="+")
    parser.add_argument("--suite", required=True)
    parser.add_argument("--only", choices=["tile", "triton"])
    parser.add_argument("--deselect")
    parser.add_argument("--sample")
    parser.add_argument("-k", dest="keyword")
    parser.add_argument("--out", default="conformance-out")
    parser.add_argument("--pytest-arg", action="append", default=[])
    parser.add_argument("--concurrent", action="store_true",
                        help="run the two compilers' pytest sessions at the "
                        "same time (on a GPU host with cores to spare, about "
                        "half the wall time; the tests' own timings are then "
                        "not comparable)")
    parser.add_argument("--budget", type=float, default=None,
                        help="seconds each compiler's run may take; a run cut "
                        "short reports the tests that finished")
    opts = parser.parse_args()
    suite = os.path.abspath(opts.suite)
    out = os.path.abspath(opts.out)
    os.makedirs(out, exist_ok=True)
    deselected = read_deselect(opts.deselect)
    # A whole file deselected is not even imported (its imports may be
    # what has no tile meaning).
    whole = {node for node, _ in deselected if "::" not in node}
    args = [a for node, _ in deselected if node not in whole
            for a in ("--deselect", node)]
    args += opts.pytest_arg
    if opts.keyword:
        args += ["-k", opts.keyword]
    files = [f for f in opts.files if f not in whole]
    if opts.sample:
        files = write_sample(suite, files, opts.sample, args, out)
        print("sample %s: %d tests" % (opts.sample, len(files)))
        if not files:
            # pytest with no paths would run the whole suite directory.
            sys.exit("the sample is empty: collection under Triton failed "
                     "(run pytest --collect-only on the files to see why)")
    flavors = [opts.only] if opts.only else ["tile", "triton"]
    results = {}
    cut = {}
    workers = len(flavors) if opts.concurrent else 1
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        runs = {f: pool.submit(run_pytest, f, suite, files, args, out,
                               opts.budget) for f in flavors}
    for f in flavors:
        xml, cut[f] = runs[f].result()
        results[f] = outcomes(xml)
        # Why each test failed, grouped: what to fix first.
        write_failures(xml, os.path.join(out, "%s-failures.md" % f))
    keys = sorted(set().union(*[set(r) for r in results.values()]))
    header = "| test file | function | " + " | ".join(
        "%s pass / fail / skip" % f for f in flavors) + " |"
    lines = [header, "|" + "---|" * (2 + len(flavors))]
    totals = {f: collections.Counter() for f in flavors}
    for key in keys:
        cells = []
        for f in flavors:
            c = results[f].get(key, collections.Counter())
            totals[f].update(c)
            cells.append("%d / %d / %d" % (c["passed"], c["failed"], c["skipped"]))
        lines.append("| %s | %s | %s |" % (key[0], key[1], " | ".join(cells)))
    lines.append("| **total** | | %s |" % " | ".join(
        "**%d / %d / %d**" % (totals[f]["passed"], totals[f]["failed"],
                              totals[f]["skipped"]) for f in flavors))
    text = "\n".join(lines)
    for f in flavors:
        if cut[f]:
            text += ("\n\n%s was cut short at --budget %g s: its column counts "
                     "only the tests that finished" % (f, opts.budget))
    print(text)
    if deselected:
        print("\ndeselected (run under neither): %d prefixes" % len(deselected))
    with open(os.path.join(out, "table.md"), "w") as f:
        f.write(text + "\n")
    if "tile" in totals and "triton" in totals and totals["triton"]["passed"]:
        print("\ntile passed %d of Triton's %d passes (%.1f%%)" % (
            totals["tile"]["passed"], totals["triton"]["passed"],
            100.0 * totals["tile"]["passed"] / totals["triton"]["passed"]))


if __name__ == "__main__":
    main()
