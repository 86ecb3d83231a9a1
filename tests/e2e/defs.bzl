"""kiln_model_test: a model compiled with kiln_bundle, run from C on its
reference input and compared with its reference output."""

load("//bundles:defs.bzl", "kiln_bundle", "kiln_bundle_defines")

def kiln_model_test(name, model, reference_input, reference_output, embed_weights = None, **kwargs):
    """Defines the bundle `name + "_bundle"` and the cc_test `name`.

    embed_weights defaults to kiln_bundle's: embedded on bare metal only.
    """
    bundle = name + "_bundle"
    kiln_bundle(
        name = bundle,
        model = model,
        embed_weights = embed_weights,
        target_compatible_with = kwargs.get("target_compatible_with"),
        testonly = True,
    )
    args = [
        "$(rootpath :%s_weights)" % bundle,
        "$(rootpath %s)" % reference_input,
        "$(rootpath %s)" % reference_output,
    ]
    if embed_weights == None:
        args += select({
            "//targets:is_bare_metal": ["--embedded"],
            "//conditions:default": [],
        })
    elif embed_weights:
        args.append("--embedded")
    native.cc_test(
        name = name,
        srcs = ["run_bundle_test.c"],
        copts = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"],
        local_defines = kiln_bundle_defines(bundle),
        args = args,
        data = [":%s_weights" % bundle, reference_input, reference_output],
        deps = [":" + bundle],
        **kwargs
    )
