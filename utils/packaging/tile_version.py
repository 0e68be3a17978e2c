"""tile's version, decided in one place.

The release number is the VERSION file at the top of the tree. A build that
is not a release (TILE_RELEASE unset) adds the git commit as a PEP 440 local
label, "+g<commit>", and ".dirty" when tracked files differ from it. An
extension built against a prebuilt libtile (TILE_PREBUILT_LIBTILE) takes
that libtile's version, since libtile is what compiles.

Three callers share this rule: CMake (through `--header`, which writes the
string that libtile reports as tile::version()), scikit-build-core (as the
wheel's metadata version, through `dynamic_metadata`), and people (run it
with no argument to print the version).
"""

import ctypes
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _git(*args):
    try:
        done = subprocess.run(["git", "-C", ROOT] + list(args),
                              capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def libtile_version(path):
    """What a built libtile reports as tile::version()."""
    # Relative to the top of the tree, as CMake takes it.
    lib = ctypes.CDLL(os.path.join(ROOT, path))
    # libtile exports only C++ names; this is tile::version()'s (Itanium ABI).
    version = lib._ZN4tile7versionEv
    version.restype = ctypes.c_char_p
    return version().decode()


def source_version():
    with open(os.path.join(ROOT, "VERSION")) as f:
        release = f.read().strip()
    if os.environ.get("TILE_RELEASE") == "1":
        return release
    commit = _git("rev-parse", "--short=9", "HEAD")
    if commit is None:
        # A source tree outside git (an sdist): say so rather than pass
        # as the release.
        return release + "+unknown"
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    return release + "+g" + commit + (".dirty" if dirty else "")


def version():
    prebuilt = os.environ.get("TILE_PREBUILT_LIBTILE")
    return libtile_version(prebuilt) if prebuilt else source_version()


def dynamic_metadata(field, settings=None):
    """scikit-build-core's metadata provider hook."""
    if field != "version":
        raise ValueError("tile_version provides only the version")
    return version()


def write_header(path):
    """Writes the C++ definition of the version, touching the file only
    when it changes, so that a build with nothing new compiles nothing."""
    text = '#define TILE_VERSION_STRING "%s"\n' % source_version()
    try:
        with open(path) as f:
            if f.read() == text:
                return
    except OSError:
        pass
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--header":
        write_header(sys.argv[2])
    elif len(sys.argv) == 1:
        print(version())
    else:
        sys.exit("usage: tile_version.py [--header FILE]")
