"""Same API as upstream rules_cc, for custom rules that call the C++ toolchain."""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", _find_cpp_toolchain = "find_cpp_toolchain")

def find_cc_toolchain(ctx):
    return _find_cpp_toolchain(ctx)

def find_cpp_toolchain(ctx):
    return _find_cpp_toolchain(ctx)
