"""Launch options: the keyword arguments a launch takes besides the
kernel's own (Triton's names), their defaults and their checks."""

import collections
import os

from tile import _C, knobs
from tile.compiler.compiler import check_launch_options

# What a launch takes besides the kernel's arguments (Triton's names), and
# their defaults; `debug` None means the @jit's, else knobs.runtime.debug.
LAUNCH_OPTIONS = {"num_warps": 4, "num_stages": 3, "num_ctas": 1,
                  "maxnreg": None, "enable_fp_fusion": None,
                  "launch_cooperative_grid": False, "launch_pdl": False,
                  "debug": None, "target": None,
                  "enable_reflect_ftz": True, "ir_override": None}

# Triton options tile has no way to honour, and why.
UNSUPPORTED_OPTIONS = {
    "extern_libs": "tile links CUDA's libdevice itself and links no other "
                   "bitcode libraries",
    "cluster_dims": "use num_ctas: tile's clusters span x",
    "sanitize_overflow": "tile has no integer overflow sanitizer",
    "instrumentation_mode": "tile has no instrumentation passes",
    "default_dot_input_precision": "pass input_precision to tl.dot",
    "max_num_imprecise_acc_default": "pass max_num_imprecise_acc to tl.dot",
}

LaunchOptions = collections.namedtuple("LaunchOptions", list(LAUNCH_OPTIONS))

# Every launch keyword tile takes: the options, and `arch`, Triton's name
# for the target that resolve_options turns into `target`.
LAUNCH_KEYWORDS = list(LAUNCH_OPTIONS) + ["arch"]


def arch_target(arch, what):
    """tile's target name for an architecture in Triton's spellings ("sm80",
    80) or tile's ("sm_80"); sm90 is sm_90a (its wgmma and TMA)."""
    text = str(arch)
    digits = text[3:] if text.startswith("sm_") else \
        text[2:] if text.startswith("sm") else text
    if digits.isdigit():
        target = "sm_%s%s" % (digits, "a" if digits == "90" else "")
    else:
        target = text
    if target not in _C.SUPPORTED_TARGETS:
        raise ValueError("%s=%r: tile compiles for NVIDIA %s" % (
            what, arch, ", ".join(_C.SUPPORTED_TARGETS)))
    return target


def resolve_options(fn, kwargs):
    """Pops the launch options out of `kwargs` and checks them: a
    LaunchOptions. Known Triton options tile cannot honour raise ValueError
    naming them."""
    for name, why in UNSUPPORTED_OPTIONS.items():
        if name in kwargs and name not in fn.arg_names:
            raise ValueError("%s: the launch option %s is not supported: %s"
                             % (fn.__name__, name, why))
    arch = kwargs.pop("arch", None) if "arch" not in fn.arg_names else None
    values = {name: kwargs.pop(name, default) if name not in fn.arg_names
              else default for name, default in LAUNCH_OPTIONS.items()}
    if arch is not None:
        if values["target"] is not None:
            raise ValueError("%s: name the architecture once, as arch= "
                             "(Triton's) or target= (tile's)" % fn.__name__)
        values["target"] = arch_target(arch, "arch")
    if values["target"] is None:
        override = knobs.runtime.override_arch
        values["target"] = arch_target(override, "knobs.runtime.override_arch") \
            if override else "sm_90a"
    if values["debug"] is None:
        values["debug"] = fn.debug if fn.debug is not None else \
            knobs.runtime.debug
    values["debug"] = bool(values["debug"])
    if values["enable_fp_fusion"] is None:
        values["enable_fp_fusion"] = knobs.language.default_fp_fusion
    if values["maxnreg"] == 0:
        values["maxnreg"] = None
    check_launch_options(**values)
    if values["ir_override"] is not None:
        # A path as a string (checked above), so that the options hash.
        values["ir_override"] = os.fspath(values["ir_override"])
    return LaunchOptions(**values)
