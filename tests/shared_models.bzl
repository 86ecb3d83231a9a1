"""A repository over ../shared/models, the large reference models CI provides.

A fresh clone has no ../shared: the repository is then empty and SHARED_MODELS
lists nothing, so the tests that need those models are simply not defined.
KILN_SHARED_MODELS overrides the location.
"""

_MODELS = ["mobilenet_v2", "resnet18"]
_SUFFIXES = [".onnx", ".input.bin", ".output.bin"]

def _impl(rctx):
    workspace = rctx.path(Label("//:WORKSPACE")).dirname
    location = rctx.os.environ.get("KILN_SHARED_MODELS", str(workspace) + "/../shared/models")
    found = []
    for model in _MODELS:
        paths = [rctx.path(location + "/" + model + s) for s in _SUFFIXES]
        if all([p.exists for p in paths]):
            for p in paths:
                rctx.symlink(p, p.basename)
            found.append(model)
    rctx.file("BUILD.bazel", "package(default_visibility = [\"//visibility:public\"])\n" +
                             "exports_files(glob([\"*\"]))\n")
    rctx.file("defs.bzl", "SHARED_MODELS = %r\n" % found)

kiln_shared_models = repository_rule(
    implementation = _impl,
    environ = ["KILN_SHARED_MODELS"],
    local = True,
)
