# -*- Python -*-
import os

import lit.formats
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "TILE"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tile_obj_root, "test")
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tile_lib_dir", config.tile_lib_dir))
config.substitutions.append(("%tile_src_root", config.tile_src_root))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.tile_tools_dir, append_path=True)

tools = [ToolSubst("tile-opt", unresolved="fatal")]
llvm_config.add_tool_substitutions(tools, [config.tile_tools_dir])
config.substitutions.append(("%mlir_include_dir", config.mlir_include_dir))
config.substitutions.append(("%python", config.python_executable))
