"""Repositories over model folders outside the clone: ../shared/models, the
large reference models CI provides, ../shared/suite, the large models of
the suite (bundles/models/suite.py --large), and ../shared/tflite_more, TFLite
models too large to ship (an int8 MobileNetV2 at 224x224).

defs.bzl gives the models found (LIST_NAME) and the models missing
(LIST_NAME_MISSING), with the folder they were looked for in
(LIST_NAME_FOLDER) and whether it exists (LIST_NAME_FOLDER_EXISTS): a fresh
clone has no ../shared, so its tests are reported skipped, while a folder
that exists but lacks a model (a broken CI setup) fails its test. The
environment variable named by `env` (KILN_SHARED_MODELS, KILN_SUITE_MODELS)
overrides the location. Each model is its files of `suffixes` (an ONNX
model with its reference input and output by default).
"""

def _impl(rctx):
    workspace = rctx.path(Label("//:WORKSPACE")).dirname
    location = rctx.os.environ.get(rctx.attr.env, str(workspace) + "/" + rctx.attr.default_dir)
    found, missing = [], []
    for model in rctx.attr.models:
        paths = [rctx.path(location + "/" + model + s) for s in rctx.attr.suffixes]
        if all([p.exists for p in paths]):
            for p in paths:
                rctx.symlink(p, p.basename)
            found.append(model)
        else:
            missing.append(model)
    rctx.file("BUILD.bazel", "package(default_visibility = [\"//visibility:public\"])\n" +
                             "exports_files(glob([\"*\"]))\n")
    name = rctx.attr.list_name
    rctx.file("defs.bzl", "".join([
        "%s = %r\n" % (name, found),
        "%s_MISSING = %r\n" % (name, missing),
        "%s_FOLDER = %r\n" % (name, location),
        "%s_FOLDER_EXISTS = %r\n" % (name, rctx.path(location).exists),
    ]))

kiln_shared_models = repository_rule(
    implementation = _impl,
    attrs = {
        "models": attr.string_list(doc = "the models to look for"),
        "env": attr.string(doc = "the variable that overrides the location"),
        "default_dir": attr.string(doc = "the location relative to the workspace"),
        "list_name": attr.string(doc = "the name defs.bzl gives the list of models found"),
        "suffixes": attr.string_list(
            doc = "the files of a model, its name followed by each",
            default = [".onnx", ".input.bin", ".output.bin"],
        ),
    },
    environ = ["KILN_SHARED_MODELS", "KILN_SUITE_MODELS", "KILN_TFLITE_MORE"],
    local = True,
)
