# lit configuration of the fnc regression tests.
import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "fnc"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
# .mlir: dialect, pass and tool tests; .test: the checks of docs/ and the
# README (test/docs).
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.fnc_obj_root, "test")
# fuzz/ holds libFuzzer targets and their crashers, Package/ the projects
# of the package tests (ctest), ctest/ a check of ctest's tests: not lit
# tests.
config.excludes = [
    "CMakeLists.txt", "Inputs", "Package", "ctest", "fuzz", "lit.cfg.py",
    "lit.site.cfg.py"
]

llvm_config.use_default_substitutions()
# No test reads or writes the user's compile cache. Under ctest the tests
# share the run's cache (FNC_LIT_CACHE_DIR: build/test-cache, emptied when
# the run starts; test/CMakeLists.txt); run by hand, the cache is off
# unless a test names a directory (--cache-dir).
config.environment["FNC_CACHE_DIR"] = os.environ.get("FNC_LIT_CACHE_DIR", "")
# Big eager ops compile their kernels before they run (docs/Eager.md), as
# under ctest.
config.environment["FNC_EAGER_KERNELS"] = "blocking"
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(["fnc-opt", "fnc-run", "fnc-compile"],
                                   [config.fnc_tools_dir])
config.substitutions.append(("%fnc_src_root", config.fnc_src_root))
config.substitutions.append(("%fnc_obj_root", config.fnc_obj_root))
config.substitutions.append(("%fnc_tools_dir", config.fnc_tools_dir))
# The C++ compiler fnc is built with.
config.substitutions.append(("%fnc_cxx", config.fnc_cxx_compiler))

# AddressSanitizer builds (scripts/sanitize.sh): ASan's operator new reports
# out-of-memory and aborts instead of throwing std::bad_alloc, so the tests
# of fnc's answer to a failed host allocation run only without it.
if "-fsanitize=" in config.fnc_cxx_flags and "address" in config.fnc_cxx_flags:
    config.available_features.add("asan")

# GCC, Debian's default compiler, for the tests that compile what users
# write (test/docs/cpp-snippets.test).
if shutil.which("g++"):
    config.available_features.add("gxx")
# gdb, for the test that breaks in JIT-compiled code (test/Execution/
# debug-jit-code.mlir).
if shutil.which("gdb"):
    config.available_features.add("gdb")
