"""kiln_model_test: a model compiled with kiln_bundle, run from C on its
reference input and compared with its reference output."""

load("//bundles:defs.bzl", "kiln_bundle")

def kiln_model_test(name, model, reference_input, reference_output, embed_weights = False, **kwargs):
    """Defines the bundle `name + "_bundle"` and the cc_test `name`."""
    bundle = name + "_bundle"
    kiln_bundle(
        name = bundle,
        model = model,
        embed_weights = embed_weights,
        testonly = True,
    )
    args = [
        "$(rootpath :%s_weights)" % bundle,
        "$(rootpath %s)" % reference_input,
        "$(rootpath %s)" % reference_output,
    ]
    if embed_weights:
        args.append("--embedded")
    native.cc_test(
        name = name,
        srcs = ["run_bundle_test.c"],
        copts = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"],
        local_defines = [
            "KILN_TEST_NAME=" + bundle,
            "KILN_TEST_MACRO=" + bundle.upper(),
            "KILN_TEST_HEADER=<%s.h>" % bundle,
            "_POSIX_C_SOURCE=200112L",
            "_ISOC11_SOURCE",
        ],
        args = args,
        data = [":%s_weights" % bundle, reference_input, reference_output],
        deps = [":" + bundle],
        **kwargs
    )
