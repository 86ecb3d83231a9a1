"""kiln_model_test: a model compiled with kiln_bundle, run from C on its
reference input and compared with its reference output."""

load("//bundles:defs.bzl", "kiln_bundle", "kiln_bundle_defines")

def _macro_part(tensor_name):
    """The header's spelling of a tensor name in its macros (HeaderGen)."""
    return "".join([c if c.isalnum() else "_" for c in tensor_name.elems()]).upper()

def _tensor_defines(prefix, tensor):
    """KILN_<prefix>_NAME, _MACRO and _SHAPE (and for an int8 tensor, given as
    (name, shape, (scale, zero_point)), or a uint8 one, (name, shape, (scale,
    zero_point, "KILN_U8")), _DTYPE, _SCALE and _ZERO_POINT): what
    run_bundle_test checks a kiln_tensor and the header's macros for it
    against."""
    name, shape = tensor[0], tensor[1]
    defines = [
        "KILN_%s_NAME=\\\"%s\\\"" % (prefix, name),
        "KILN_%s_MACRO=%s" % (prefix, _macro_part(name)),
        "KILN_%s_SHAPE=%s" % (prefix, ",".join([str(d) for d in shape])),
    ]
    if len(tensor) > 2:
        scale, zero_point = tensor[2][0], tensor[2][1]
        dtype = tensor[2][2] if len(tensor[2]) > 2 else "KILN_I8"
        defines += [
            "KILN_%s_DTYPE=%s" % (prefix, dtype),
            "KILN_%s_SCALE=%sf" % (prefix, scale),
            "KILN_%s_ZERO_POINT=%d" % (prefix, zero_point),
        ]
    return defines

def kiln_model_test(name, int8_dot_variants = False, **kwargs):
    """Defines the bundle `name + "_bundle"` and the cc_test `name`.

    io: the model's (input, output), each (name, shape) (model_io.bzl).
    model_data: kiln_bundle's (the model's external data files).
    exact: the output must equal the reference byte for byte (int8 against
    the reference interpreter's output).
    overwrite_inputs: kiln_bundle's (one arena in the io region).
    const_inputs: kiln_bundle's ({"input": "value.npy"}).
    embed_weights defaults to kiln_bundle's: embedded on bare metal only.
    int8_dot_variants: also the tests of the int8 dot-product kernels that
    the default CPUs lack: `name + "_dotprod"` on AArch64, compiled with
    --mattr +dotprod (SDOT, which qemu-aarch64 runs), `name + "_i8mm"`, with
    --mattr +dotprod,+i8mm (SMMLA, which qemu-aarch64's default CPU, max,
    runs too), and `name + "_vnni"` on x86-64, with --mattr +avxvnni
    (VPDPBUSD; where the host has no AVX-VNNI, the test says it skips), and
    `name + "_vnni512"`, for x86-64-v4 with +avx512vnni and without its
    preference for 256-bit vectors (zmm VPDPBUSD; it skips where the host
    lacks them). Each variant's CPU constraint stands in for the test's
    target_compatible_with.
    """
    _model_test(name = name, **kwargs)
    if int8_dot_variants:
        kwargs = {k: v for k, v in kwargs.items() if k != "target_compatible_with"}
        _model_test(
            name = name + "_dotprod",
            mattr = "+dotprod",
            target_compatible_with = ["@platforms//cpu:aarch64"],
            **kwargs
        )
        _model_test(
            name = name + "_i8mm",
            mattr = "+dotprod,+i8mm",
            target_compatible_with = ["@platforms//cpu:aarch64"],
            **kwargs
        )
        _model_test(
            name = name + "_vnni",
            mattr = "+avxvnni",
            target_compatible_with = ["@platforms//cpu:x86_64"],
            extra_defines = ["KILN_TEST_NEEDS_AVXVNNI=1"],
            **kwargs
        )
        _model_test(
            name = name + "_vnni512",
            mcpu = "x86-64-v4",
            mattr = "+avx512vnni,-prefer-256-bit",
            target_compatible_with = ["@platforms//cpu:x86_64"],
            extra_defines = ["KILN_TEST_NEEDS_AVX512VNNI=1"],
            **kwargs
        )

def _model_test(name, model, io, reference_input, reference_output, model_data = [], embed_weights = None, exact = False, overwrite_inputs = False, const_inputs = {}, mcpu = "", mattr = "", extra_defines = [], **kwargs):
    bundle = name + "_bundle"
    kiln_bundle(
        name = bundle,
        model = model,
        model_data = model_data,
        embed_weights = embed_weights,
        overwrite_inputs = overwrite_inputs,
        const_inputs = const_inputs,
        mcpu = mcpu,
        mattr = mattr,
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
        srcs = [Label("//tests/e2e:run_bundle_test.c"), Label("//tests/e2e:guarded_region.h")],
        copts = ["-std=c99", "-Wall", "-Wextra", "-pedantic", "-Werror"],
        local_defines = kiln_bundle_defines(bundle) + (["KILN_EXACT=1"] if exact else []) +
                        _tensor_defines("IN", io[0]) +
                        _tensor_defines("OUT", io[1]) + extra_defines,
        args = args,
        data = [":%s_weights" % bundle, reference_input, reference_output],
        deps = [":" + bundle],
        **kwargs
    )

def interpreter_output(name, model, reference_input, out, optimized = False):
    """The genrule `name`: the reference interpreter's output `out` for
    `model` on `reference_input` (//tools/interpret), what an int8 bundle must
    equal byte for byte. optimized: run the default pipeline first (fold-qdq
    makes a QDQ model's int8 ops, the ones the bundle runs)."""
    native.genrule(
        name = name,
        testonly = True,
        srcs = [model, reference_input],
        outs = [out],
        cmd = "$(location %s) $(SRCS) $@%s" % (Label("//tools/interpret"), " --optimized" if optimized else ""),
        tools = [Label("//tools/interpret")],
    )
