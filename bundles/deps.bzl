"""The repositories and toolchains kiln needs, for any workspace that uses kiln.

    local_repository(name = "kiln", path = "path/to/kiln")

    load("@kiln//bundles:deps.bzl", "kiln_dependencies", "kiln_register_toolchains")

    kiln_dependencies()
    kiln_register_toolchains()

Every repository is local (Debian packages under /usr, installed by
tools/install_deps.sh, and stubs in kiln's third_party/). A repository the
workspace already declares is left as it is.
"""

def _kiln_subdir_impl(rctx):
    # local_repository resolves a relative path against the workspace that
    # declares it, which is the user's: find kiln's directory through a label.
    root = rctx.path(Label("//:WORKSPACE")).dirname
    for entry in rctx.path("%s/%s" % (root, rctx.attr.subdir)).readdir():
        rctx.symlink(entry, entry.basename)

# A directory of kiln's source tree as a repository of its own.
_kiln_subdir_repository = repository_rule(
    implementation = _kiln_subdir_impl,
    attrs = {"subdir": attr.string(mandatory = True)},
)

def _declare(rule, name, **kwargs):
    if not native.existing_rule(name):
        rule(name = name, **kwargs)

def kiln_dependencies():
    """Declares the repositories kiln's rules and kilnc need."""

    # @bazel_tools//tools/cpp loads @rules_cc; Debian's bazel-rules-cc 0.0.4 is too new for Bazel 4.2.3.
    _declare(_kiln_subdir_repository, "rules_cc", subdir = "third_party/rules_cc")

    # Registered by default through @bazel_tools//tools/jdk; otherwise Bazel downloads it.
    _declare(native.local_repository, "rules_java", path = "/usr/share/bazel/rules/java")  # bazel-rules-java

    # Every cc_test depends on it; the stub makes `bazel coverage` unavailable.
    _declare(_kiln_subdir_repository, "remote_coverage_tools", subdir = "third_party/remote_coverage_tools")

    _declare(native.local_repository, "bazel_skylib", path = "/usr/share/bazel/tools/skylib")  # bazel-skylib
    _declare(native.local_repository, "platforms", path = "/usr/share/bazel/tools/platforms")  # bazel-platforms

    # Debian's llvm-19-dev, libonnx-dev and libprotobuf-dev.
    _declare(
        native.new_local_repository,
        "llvm",
        build_file = str(Label("//third_party:llvm.BUILD")),
        path = "/usr/lib/llvm-19",
    )
    _declare(
        native.new_local_repository,
        "onnx",
        build_file = str(Label("//third_party:onnx.BUILD")),
        path = "/usr",
    )

    # Debian's libgraphviz-dev: the compile report's layer graph.
    _declare(
        native.new_local_repository,
        "graphviz",
        build_file = str(Label("//third_party:graphviz.BUILD")),
        path = "/usr",
    )

def kiln_register_toolchains():
    """Registers the C toolchains of kiln's cross platforms (@kiln//targets).

    Bazel uses them for a build whose --platforms is one of kiln's, with
    --incompatible_enable_cc_toolchain_resolution.
    """
    native.register_toolchains(str(Label("//targets:all")))
