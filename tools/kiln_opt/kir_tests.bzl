"""Text-IR tests: each .kir file's `// RUN:` lines, with kiln_opt and LLVM's FileCheck."""

def kir_tests(files, data = []):
    """One sh_test per file, named ir_<file's stem>.

    Args:
      files: the .kir files, under ir/.
      data: other files the RUN lines read (e.g. inputs of error tests).
    """
    for f in files:
        native.sh_test(
            name = "ir_" + f[len("ir/"):-len(".kir")],
            size = "small",
            srcs = ["//tools/kiln_opt:run_ir_test.sh"],
            args = [
                "$(location //tools/kiln_opt)",
                "$(location @llvm//:bin/FileCheck)",
                "$(location @llvm//:bin/not)",
                "$(location %s)" % f,
            ],
            data = data + [
                f,
                "//tools/kiln_opt",
                "@llvm//:bin/FileCheck",
                "@llvm//:bin/not",
            ],
            # kiln_opt and FileCheck run on the build machine.
            target_compatible_with = [
                "@platforms//cpu:x86_64",
                "@platforms//os:linux",
            ],
        )
