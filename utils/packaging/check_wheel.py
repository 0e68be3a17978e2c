"""Checks a built tile wheel: what it holds, what its shared objects need at
run time, and that its tag says what it can run on.

    python3 utils/packaging/check_wheel.py WHEEL

Exits non-zero with the reasons when the wheel is not one to ship:
 - a Python source file of python/tile is missing from it (or one is there
   that the tree does not have), or libtile, the extension or libdevice is;
 - a shared object needs a library other than the C/C++ runtime ones that
   every manylinux system has (LLVM, zlib or the CUDA toolkit would be a
   host dependency; the CUDA driver is opened on demand, never linked);
 - a file lies outside the package (site-packages would get it);
 - a shared object has a run path that leaves the package;
 - its platform tag is neither manylinux nor the plain linux one.
Prints the wheel's size and its files' sizes.
"""

import os
import re
import subprocess
import sys
import tempfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

# What manylinux lets a wheel assume (PEP 600's list, less the X11/GL ones).
SYSTEM_LIBRARIES = {
    "libc.so.6", "libm.so.6", "libdl.so.2", "librt.so.1", "libpthread.so.0",
    "libstdc++.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2",
}
# Libraries the wheel ships itself.
OWN_LIBRARIES = {"libtile.so"}


def dynamic_section(path):
    """(NEEDED names, RUNPATH/RPATH entries) of an ELF file, from readelf."""
    out = subprocess.run(["readelf", "-d", path], capture_output=True,
                         text=True, check=True).stdout
    needed = re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", out)
    paths = []
    for entry in re.findall(r"\((?:RUNPATH|RPATH)\)\s+Library r(?:un)?path: \[([^\]]*)\]", out):
        paths.extend(p for p in entry.split(":") if p)
    return needed, paths


def source_files():
    base = os.path.join(ROOT, "python")
    found = set()
    for here, dirs, files in os.walk(os.path.join(base, "tile")):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if name.endswith(".py"):
                found.add(os.path.relpath(os.path.join(here, name), base))
    return found


def check(wheel):
    problems = []
    name = os.path.basename(wheel)
    tag = name[:-len(".whl")].split("-")[-1]
    if not re.fullmatch(r"(manylinux_\d+_\d+_x86_64(\.manylinux_\d+_\d+_x86_64)*"
                        r"|linux_x86_64)", tag):
        problems.append("platform tag %r is not a Linux x86-64 one" % tag)
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        sizes = {info.filename: info.file_size for info in zf.infolist()}
        for stray in sorted(n for n in names if not n.startswith(
                ("tile/", "tile-")) or (n.startswith("tile-") and
                                        ".dist-info/" not in n)):
            problems.append("%s is outside the package" % stray)
        packed = {n for n in names if n.startswith("tile/") and n.endswith(".py")}
        expected = source_files()
        for missing in sorted(expected - packed):
            problems.append("missing %s" % missing)
        for extra in sorted(packed - expected):
            problems.append("%s is not in python/tile" % extra)
        objects = sorted(n for n in names if n.endswith(".so"))
        for required in ("tile/libtile.so", "tile/libdevice.10.bc"):
            if required not in names:
                problems.append("missing %s" % required)
        if not any(re.fullmatch(r"tile/_C\..*\.so", n) for n in objects):
            problems.append("missing the extension tile/_C")
        with tempfile.TemporaryDirectory() as tmp:
            for obj in objects:
                path = zf.extract(obj, tmp)
                needed, paths = dynamic_section(path)
                for lib in needed:
                    if lib not in SYSTEM_LIBRARIES | OWN_LIBRARIES:
                        problems.append("%s needs %s, which is not a system "
                                        "library" % (obj, lib))
                for entry in paths:
                    if entry != "$ORIGIN":
                        problems.append("%s has run path %s" % (obj, entry))
                print("  %-48s %6.1f MB  needs %s" % (
                    obj, sizes[obj] / 1e6, ", ".join(needed)))
    print("  %-48s %6.1f MB  (compressed wheel)" % (name, os.path.getsize(wheel) / 1e6))
    return problems


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_wheel.py WHEEL")
    problems = check(sys.argv[1])
    for problem in problems:
        print("check_wheel: " + problem)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
