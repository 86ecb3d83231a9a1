"""C/C++ toolchains over Debian's cross compilers, for the platforms in //targets.

gcc_toolchain(name, ...) declares the toolchain config, the cc_toolchain and
the toolchain() that Bazel's toolchain resolution picks for a platform
(--incompatible_enable_cc_toolchain_resolution, set by the .bazelrc configs).

A bare-metal toolchain (startup and linker_script given) links the startup
code and the board's linker script into every binary, so any cc_binary or
cc_test built for the platform is a complete firmware image.
"""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", "ACTION_NAMES")
load(
    "@bazel_tools//tools/cpp:cc_toolchain_config_lib.bzl",
    "feature",
    "flag_group",
    "flag_set",
    "tool_path",
    "with_feature_set",
)

_COMPILE_ACTIONS = [
    ACTION_NAMES.assemble,
    ACTION_NAMES.preprocess_assemble,
    ACTION_NAMES.c_compile,
    ACTION_NAMES.cpp_compile,
    ACTION_NAMES.cpp_header_parsing,
]

_LINK_ACTIONS = [
    ACTION_NAMES.cpp_link_executable,
    ACTION_NAMES.cpp_link_dynamic_library,
    ACTION_NAMES.cpp_link_nodeps_dynamic_library,
]

_TOOLS = ["ar", "cpp", "gcc", "gcov", "ld", "nm", "objcopy", "objdump", "strip"]

def _flags(actions, flags, features = None):
    return flag_set(
        actions = actions,
        flag_groups = [flag_group(flags = flags)],
        with_features = [with_feature_set(features = features)] if features else [],
    )

# Clang is Debian's clang-19; binutils (Bazel's ar flags are GNU ar's) serve both.
def _tool_path(gnu_target, tool, clang):
    if clang and tool in ("gcc", "cpp"):
        return "/usr/lib/llvm-19/bin/clang"
    return "/usr/bin/%s-%s" % (gnu_target, tool)

def _gcc_toolchain_config_impl(ctx):
    cpu_flags = ctx.attr.cpu_flags

    # gcc reports the system headers it includes with the paths it was given,
    # which Bazel checks against cxx_builtin_include_directories. (Clang
    # reports them as found; Bazel normalizes the paths.)
    common = [] if ctx.attr.clang else ["-no-canonical-prefixes", "-fno-canonical-system-headers"]
    link_flags = cpu_flags + common + ["-Wl,--gc-sections"] + ctx.attr.linkopts
    if ctx.file.startup:
        link_flags = link_flags + [ctx.file.startup.path, "-T", ctx.file.linker_script.path]
    features = [
        feature(name = "opt"),
        feature(name = "dbg"),
        feature(
            name = "default_compile_flags",
            enabled = True,
            flag_sets = [
                _flags(_COMPILE_ACTIONS, cpu_flags + common + [
                    "-Wall",
                    "-ffunction-sections",
                    "-fdata-sections",
                ]),
                _flags(_COMPILE_ACTIONS, ["-O2", "-DNDEBUG"], ["opt"]),
                _flags(_COMPILE_ACTIONS, ["-O0", "-g"], ["dbg"]),
            ],
        ),
        feature(
            name = "default_link_flags",
            enabled = True,
            flag_sets = [_flags(_LINK_ACTIONS, link_flags)],
        ),
    ]
    return cc_common.create_cc_toolchain_config_info(
        ctx = ctx,
        toolchain_identifier = ctx.label.name,
        host_system_name = "x86_64-linux-gnu",
        target_system_name = ctx.attr.gnu_target,
        target_cpu = ctx.attr.cpu,
        target_libc = ctx.attr.libc,
        compiler = "clang" if ctx.attr.clang else "gcc",
        abi_version = "gcc",
        abi_libc_version = ctx.attr.libc,
        tool_paths = [
            tool_path(name = t, path = _tool_path(ctx.attr.gnu_target, t, ctx.attr.clang))
            for t in _TOOLS
        ],
        features = features,
        cxx_builtin_include_directories = ctx.attr.include_dirs,
    )

_gcc_toolchain_config = rule(
    implementation = _gcc_toolchain_config_impl,
    attrs = {
        "gnu_target": attr.string(mandatory = True),
        "clang": attr.bool(),
        "cpu": attr.string(mandatory = True),
        "libc": attr.string(mandatory = True),
        "cpu_flags": attr.string_list(),
        "linkopts": attr.string_list(),
        "include_dirs": attr.string_list(mandatory = True),
        "startup": attr.label(allow_single_file = [".o"]),
        "linker_script": attr.label(allow_single_file = [".ld"]),
    },
    provides = [CcToolchainConfigInfo],
)

def _startup_object_impl(ctx):
    out = ctx.actions.declare_file(ctx.label.name + ".o")
    ctx.actions.run(
        executable = "/usr/bin/%s-gcc" % ctx.attr.gnu_target,
        arguments = ctx.attr.cpu_flags + [
            "-std=c99",
            "-O2",
            "-Wall",
            "-Wextra",
            "-pedantic",
            "-Werror",
            "-c",
            ctx.file.src.path,
            "-o",
            out.path,
        ],
        inputs = [ctx.file.src],
        outputs = [out],
        mnemonic = "StartupCompile",
        progress_message = "Compiling %s for %s" % (ctx.file.src.short_path, ctx.label.name),
    )
    return [DefaultInfo(files = depset([out]))]

# The startup object is compiled by a plain action, not a cc_library: the
# toolchain links it into everything it builds, so it cannot itself be built
# with that toolchain.
_startup_object = rule(
    implementation = _startup_object_impl,
    attrs = {
        "src": attr.label(allow_single_file = [".c"], mandatory = True),
        "gnu_target": attr.string(mandatory = True),
        "cpu_flags": attr.string_list(),
    },
)

def gcc_toolchain(
        name,
        gnu_target,
        cpu,
        libc,
        include_dirs,
        target_compatible_with,
        cpu_flags = [],
        linkopts = [],
        startup = None,
        linker_script = None,
        clang = False):
    """A cc toolchain over /usr/bin/<gnu_target>-gcc (or clang-19) for one platform.

    Args:
      name: the toolchain() to register.
      gnu_target: the compiler's prefix, e.g. "aarch64-linux-gnu".
      cpu, libc: Bazel's names for the target CPU and C library.
      include_dirs: the compiler's built-in include directories (prefixes).
      target_compatible_with: the platform constraints this toolchain serves.
      cpu_flags: code generation flags for compiling and linking (-mcpu, ...).
      linkopts: further link flags (libraries come last on the link line).
      startup: a C file compiled with cpu_flags and linked into every binary.
      linker_script: the linker script every binary is linked with.
      clang: compile and link with clang-19 instead of gcc.

    All but the toolchain() are tagged manual: `bazel build //...` for the
    host must not need the cross compilers. Toolchain resolution still uses
    them when a build targets the platform.
    """
    runtime = []
    if startup:
        _startup_object(
            name = name + "_startup",
            src = startup,
            gnu_target = gnu_target,
            cpu_flags = cpu_flags,
            tags = ["manual"],
        )
        runtime = [":" + name + "_startup"]
    native.filegroup(name = name + "_no_files")
    native.filegroup(
        name = name + "_linker_files",
        srcs = runtime + ([linker_script] if linker_script else []),
        tags = ["manual"],
    )
    _gcc_toolchain_config(
        name = name + "_config",
        gnu_target = gnu_target,
        cpu = cpu,
        libc = libc,
        cpu_flags = cpu_flags,
        linkopts = linkopts,
        include_dirs = include_dirs,
        startup = runtime[0] if runtime else None,
        linker_script = linker_script,
        clang = clang,
        tags = ["manual"],
    )
    none = ":" + name + "_no_files"
    native.cc_toolchain(
        name = name + "_cc",
        all_files = ":" + name + "_linker_files",
        ar_files = none,
        as_files = none,
        compiler_files = none,
        dwp_files = none,
        linker_files = ":" + name + "_linker_files",
        objcopy_files = none,
        strip_files = none,
        toolchain_config = ":" + name + "_config",
        tags = ["manual"],
    )
    native.toolchain(
        name = name,
        exec_compatible_with = [
            Label("@platforms//cpu:x86_64"),
            Label("@platforms//os:linux"),
        ],
        target_compatible_with = target_compatible_with,
        toolchain = ":" + name + "_cc",
        toolchain_type = Label("@bazel_tools//tools/cpp:toolchain_type"),
    )
