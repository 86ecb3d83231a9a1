"""kiln_model_test: a model compiled with kiln_bundle, run from C on its
reference input and compared with its reference output."""

load("//bundles:defs.bzl", "kiln_bundle", "kiln_bundle_defines")

def _macro_part(tensor_name):
    """The header's spelling of a tensor name in its macros (HeaderGen)."""
    return "".join([c if c.isalnum() else "_" for c in tensor_name.elems()]).upper()

def _tensor_defines(prefix, tensor):
    """KILN_<prefix>_NAME, _MACRO and _SHAPE (and for an int8 tensor, given as
    (name, shape, (scale, zero_point)), _DTYPE, _SCALE and _ZERO_POINT): what
    run_bundle_test checks a kiln_tensor and the header's macros for it
    against."""
    name, shape = tensor[0], tensor[1]
    defines = [
        "KILN_%s_NAME=\\\"%s\\\"" % (prefix, name),
        "KILN_%s_MACRO=%s" % (prefix, _macro_part(name)),
        "KILN_%s_SHAPE=%s" % (prefix, ",".join([str(d) for d in shape])),
    ]
    if len(tensor) > 2:
        scale, zero_point = tensor[2]
        defines += [
            "KILN_%s_DTYPE=KILN_I8" % prefix,
            "KILN_%s_SCALE=%sf" % (prefix, scale),
            "KILN_%s_ZERO_POINT=%d" % (prefix, zero_point),
        ]
    return defines

def kiln_model_test(name, model, io, reference_input, reference_output, embed_weights = None, exact = False, overwrite_inputs = False, **kwargs):
    """Defines the bundle `name + "_bundle"` and the cc_test `name`.

    io: the model's (input, output), each (name, shape) (model_io.bzl).
    exact: the output must equal the reference byte for byte (int8 against
    the reference interpreter's output).
    overwrite_inputs: kiln_bundle's (one arena in the io region).
    embed_weights defaults to kiln_bundle's: embedded on bare metal only.
    """
    bundle = name + "_bundle"
    kiln_bundle(
        name = bundle,
        model = model,
        embed_weights = embed_weights,
        overwrite_inputs = overwrite_inputs,
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
            str(Label("//targets:is_bare_metal")): ["--embedded"],
            "//conditions:default": [],
        })
    elif embed_weights:
        args.append("--embedded")
    native.cc_test(
        name = name,
        srcs = [Label("//tests/e2e:run_bundle_test.c")],
        copts = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"],
        local_defines = kiln_bundle_defines(bundle) + (["KILN_EXACT=1"] if exact else []) +
                        _tensor_defines("IN", io[0]) +
                        _tensor_defines("OUT", io[1]),
        args = args,
        data = [":%s_weights" % bundle, reference_input, reference_output],
        deps = [":" + bundle],
        **kwargs
    )
