"""kiln_bundle: a model as a build input, compiled by kilnc into a cc_library.

    load("//bundles:defs.bzl", "kiln_bundle")

    kiln_bundle(
        name = "lenet5",                  # the cc_library; also the bundle name
        model = "models/lenet5.onnx",
    )

    cc_binary(name = "app", srcs = ["app.c"], deps = [":lenet5"])  # #include "lenet5.h"

The library carries NAME.o and NAME.h (and kiln.h through //runtime_min:kiln);
NAME.weights.bin is its data (runfiles), or linked in with embed_weights.

The bundle is compiled for the target platform (--platforms, or a .bazelrc
config such as --config=cortex-m4): kilnc's --target, --mcpu and --float-abi
come from the platforms in //targets, so one BUILD file builds the same model
for every target. Attributes given explicitly override them.

kilnc is never left to detect the build machine's CPU: that would make the
output depend on the machine while the action's cache key does not, and a
shared cache would serve an AVX-512 bundle to a machine without it. On the
host platform the CPU is the build setting //bundles:host_cpu (x86-64-v3
unless --@kiln//bundles:host_cpu=CPU says otherwise); with `target` given and
no `mcpu`, it is "generic".
"""

load("@bazel_skylib//rules:common_settings.bzl", "BuildSettingInfo")

# kilnc's code generation flags (kiln_bundle attributes) for each platform in
# //targets. Other platforms (the host) get the host triple and the CPU of
# //bundles:host_cpu.
KILNC_TARGET_FLAGS = {
    "linux_aarch64": {"target": "aarch64-linux-gnu", "mcpu": "generic"},
    "cortex_m3": {"target": "thumbv7m-none-eabi", "mcpu": "cortex-m3", "float_abi": "soft"},
    "cortex_m4": {"target": "thumbv7em-none-eabihf", "mcpu": "cortex-m4", "float_abi": "hard"},
    "cortex_m7": {"target": "thumbv7em-none-eabihf", "mcpu": "cortex-m7", "float_abi": "hard"},
}

def _platform_flag(flag):
    choices = {
        str(Label("//targets:is_" + platform)): flags.get(flag, "")
        for platform, flags in KILNC_TARGET_FLAGS.items()
    }
    choices["//conditions:default"] = ""
    return select(choices)

# Bare metal has no file system to load weights from: there they are linked
# into the object (flash) unless embed_weights says otherwise.
_EMBED_WEIGHTS_BY_DEFAULT = select({
    str(Label("//targets:is_bare_metal")): True,
    "//conditions:default": False,
})

def _mcpu(ctx):
    if ctx.attr.mcpu:
        return ctx.attr.mcpu
    if ctx.attr.target:
        return "generic"
    return ctx.attr._host_cpu[BuildSettingInfo].value

def _kiln_compile_impl(ctx):
    name = ctx.attr.bundle_name
    out_o = ctx.outputs.object
    out_h = ctx.outputs.header
    out_w = ctx.outputs.weights
    args = ctx.actions.args()
    args.add(ctx.file.model)
    args.add("-o", out_h.dirname)
    args.add("--name", name)
    if ctx.attr.target:
        args.add("--target", ctx.attr.target)
    args.add("--mcpu", _mcpu(ctx))
    if ctx.attr.mattr:
        args.add("--mattr", ctx.attr.mattr)
    if ctx.attr.float_abi:
        args.add("--float-abi", ctx.attr.float_abi)
    if ctx.attr.embed_weights:
        args.add("--embed-weights")
    if not ctx.attr.winograd:
        args.add("--no-winograd")
    if ctx.attr.overwrite_inputs:
        args.add("--overwrite-inputs")
    if ctx.attr.profile_layers:
        args.add("--profile-layers")
    for dim, value in sorted(ctx.attr.dims.items()):
        args.add("--dim", "%s=%s" % (dim, value))
    const_files = []
    by_input = {name: target for target, name in ctx.attr.const_inputs.items()}
    for input_name in sorted(by_input.keys()):
        npy = by_input[input_name].files.to_list()
        if len(npy) != 1:
            fail("const_inputs: '%s' must name one .npy file" % input_name)
        args.add("--const-input", "%s=%s" % (input_name, npy[0].path))
        const_files += npy
    if ctx.attr.passes:
        args.add("--passes", ",".join(ctx.attr.passes))
    outputs = [out_o, out_h, out_w]
    calibration = ctx.files.calibration
    if ctx.attr.quantize:
        dirs = sorted({f.dirname: True for f in calibration}.keys())
        if len(dirs) != 1:
            fail("calibration: the .npy files of one directory, got %s" % (dirs or "none"))
        args.add("--quantize", ctx.attr.quantize)
        args.add("--calibration", dirs[0])
        if ctx.attr.calibrator:
            args.add("--calibrator", ctx.attr.calibrator)
        if ctx.attr.percentile:
            args.add("--percentile", ctx.attr.percentile)
        if ctx.attr.keep_float:
            args.add("--keep-float", ",".join(ctx.attr.keep_float))
        if ctx.attr.bias_correction:
            args.add("--bias-correction")
        if ctx.attr.int8_io:
            args.add("--int8-io")
        outputs.append(ctx.actions.declare_file("%s/%s.accuracy.json" % (ctx.attr.out_dir, name)))
    elif (calibration or ctx.attr.calibrator or ctx.attr.percentile or ctx.attr.keep_float or
          ctx.attr.bias_correction or ctx.attr.int8_io):
        fail("calibration, calibrator, percentile, keep_float, bias_correction and int8_io " +
             "need quantize = \"int8\"")
    if ctx.attr.report:
        args.add("--report")
        outputs += [
            ctx.actions.declare_file("%s/%s.report.%s" % (ctx.attr.out_dir, name, ext))
            for ext in ("html", "json")
        ]
    ctx.actions.run(
        executable = ctx.executable._kilnc,
        arguments = [args],
        inputs = [ctx.file.model] + ctx.files.model_data + calibration + const_files,
        outputs = outputs,
        mnemonic = "KilnCompile",
        progress_message = "kilnc %s -> %s" % (ctx.file.model.short_path, name),
    )
    return [DefaultInfo(files = depset(outputs))]

_kiln_compile = rule(
    implementation = _kiln_compile_impl,
    # Predeclared, so the cc_library can name each file by its label.
    outputs = {
        "object": "%{out_dir}/%{bundle_name}.o",
        "header": "%{out_dir}/%{bundle_name}.h",
        "weights": "%{out_dir}/%{bundle_name}.weights.bin",
    },
    attrs = {
        "model": attr.label(allow_single_file = [".onnx", ".tflite"], mandatory = True),
        "model_data": attr.label_list(allow_files = True),
        "bundle_name": attr.string(mandatory = True),
        "out_dir": attr.string(mandatory = True),
        "target": attr.string(),
        "mcpu": attr.string(),
        "mattr": attr.string(),
        "float_abi": attr.string(),
        "embed_weights": attr.bool(),
        "winograd": attr.bool(default = True),
        "overwrite_inputs": attr.bool(),
        "profile_layers": attr.bool(),
        "dims": attr.string_dict(),
        # file -> input name: Bazel 4 has no string-keyed label dict.
        "const_inputs": attr.label_keyed_string_dict(allow_files = [".npy"]),
        "passes": attr.string_list(),
        "quantize": attr.string(values = ["", "int8"]),
        "calibration": attr.label_list(allow_files = [".npy"]),
        "calibrator": attr.string(values = ["", "minmax", "percentile", "entropy"]),
        "percentile": attr.string(),
        "keep_float": attr.string_list(),
        "bias_correction": attr.bool(),
        "int8_io": attr.bool(),
        "report": attr.bool(),
        "_host_cpu": attr.label(default = Label("//bundles:host_cpu")),
        "_kilnc": attr.label(
            default = Label("//compiler/kilnc"),
            executable = True,
            cfg = "exec",
        ),
    },
)

def _files_to_input_names(const_inputs):
    by_file = {}
    for input_name, npy in const_inputs.items():
        if npy in by_file:
            fail("const_inputs: '%s' and '%s' name the same file %s" % (by_file[npy], input_name, npy))
        by_file[npy] = input_name
    return by_file

def kiln_bundle_defines(bundle_name):
    """local_defines that name a bundle to a C program written for any bundle.

    KILN_BUNDLE_NAME is the C prefix (NAME_run, NAME_bundle), KILN_BUNDLE_MACRO
    the prefix of the header's macros, KILN_BUNDLE_HEADER the header to include.
    """
    return [
        "KILN_BUNDLE_NAME=" + bundle_name,
        "KILN_BUNDLE_MACRO=" + bundle_name.upper(),
        "KILN_BUNDLE_HEADER=<%s.h>" % bundle_name,
    ]

def kiln_bundle(
        name,
        model,
        model_data = [],
        bundle_name = None,
        embed_weights = None,
        dims = {},
        const_inputs = {},
        target = "",
        mcpu = "",
        mattr = "",
        float_abi = "",
        passes = [],
        winograd = True,
        overwrite_inputs = False,
        profile_layers = False,
        quantize = "",
        calibration = [],
        calibrator = "",
        percentile = "",
        keep_float = [],
        bias_correction = False,
        int8_io = False,
        report = False,
        **kwargs):
    """Compiles `model` with kilnc and wraps the bundle in a cc_library `name`.

    Args:
      name: the cc_library; also the bundle name unless bundle_name is given.
      model: the ONNX or TFLite model file.
      model_data: the files an ONNX model keeps its weights in (external
        data, e.g. model.onnx.data as PyTorch's exporter writes it), where
        the model's locations name them: beside it in the same package.
      bundle_name: the C prefix (NAME_run, NAME_bundle, NAME.h); a C identifier.
      embed_weights: link the weights into the object as read-only data
        (default: on bare-metal platforms only).
      dims: {"symbolic_dim": value} bindings for inputs with symbolic shapes.
      const_inputs: {"input": "value.npy"}: graph inputs bound to the arrays
        in .npy files (kilnc --const-input), for inputs that decide shapes.
      target, mcpu, float_abi: code generation target (default: the target
        platform's; on the host, the CPU of //bundles:host_cpu; with target
        given, "generic" and kilnc's default float ABI).
      mattr: target features, added to the CPU's.
      passes: graph passes to run instead of the default pipeline.
      winograd: Winograd convolution where it qualifies (faster; more
        weights and scratch). False for the smallest flash and RAM.
      overwrite_inputs: the run may overwrite its inputs; inputs, outputs
        and intermediates share the io region and scratch is empty (the
        least RAM, as in TFLM's arena).
      profile_layers: NAME_run calls kiln_profile_layer (kiln.h), which the
        program defines, before each layer and after the last.
      quantize: "int8" for post-training quantization of a float model
        (kilnc --quantize int8); the accuracy report is the output
        NAME_kiln/NAME.accuracy.json.
      calibration: with quantize, the calibration inputs: .npy files of one
        directory, named as README's "Quantization" says, e.g.
        glob(["calibration/*.npy"]). kilnc reads that directory's .npy files.
      calibrator: with quantize, "minmax" (default), "percentile" or "entropy".
      percentile: with calibrator = "percentile", its P as a string, e.g.
        "99.9" (default "99.99").
      keep_float: with quantize, Conv, Gemm or MatMul node names that stay
        float (kilnc --keep-float).
      bias_correction: with quantize, correct the biases for the int8
        weights' mean shift (kilnc --bias-correction).
      int8_io: with quantize, the float inputs and outputs become int8
        (kilnc --int8-io); the header gives their scales and zero points.
      report: also write the compile report (kilnc --report), the outputs
        NAME_kiln/NAME.report.html and NAME.report.json of NAME_compile.
      **kwargs: passed to the cc_library (visibility, tags, ...); tags and
        target_compatible_with also to the kilnc step.
    """
    bundle_name = bundle_name or name
    out_dir = name + "_kiln"
    if not target:
        target = _platform_flag("target")
        mcpu = mcpu or _platform_flag("mcpu")
        float_abi = float_abi or _platform_flag("float_abi")
    _kiln_compile(
        name = name + "_compile",
        model = model,
        model_data = model_data,
        bundle_name = bundle_name,
        out_dir = out_dir,
        target = target,
        mcpu = mcpu,
        mattr = mattr,
        float_abi = float_abi,
        embed_weights = _EMBED_WEIGHTS_BY_DEFAULT if embed_weights == None else embed_weights,
        dims = dims,
        const_inputs = _files_to_input_names(const_inputs),
        passes = passes,
        winograd = winograd,
        overwrite_inputs = overwrite_inputs,
        profile_layers = profile_layers,
        quantize = quantize,
        calibration = calibration,
        calibrator = calibrator,
        percentile = percentile,
        keep_float = keep_float,
        bias_correction = bias_correction,
        int8_io = int8_io,
        report = report,
        tags = kwargs.get("tags"),
        target_compatible_with = kwargs.get("target_compatible_with"),
        visibility = ["//visibility:private"],
    )
    native.filegroup(
        name = name + "_weights",
        srcs = [":" + out_dir + "/" + bundle_name + ".weights.bin"],
        tags = kwargs.get("tags"),
        visibility = kwargs.get("visibility"),
    )
    native.cc_library(
        name = name,
        srcs = [":" + out_dir + "/" + bundle_name + ".o"],
        hdrs = [":" + out_dir + "/" + bundle_name + ".h"],
        includes = [out_dir],
        data = [":" + name + "_weights"],
        linkstatic = True,
        deps = [Label("//runtime_min:kiln")],
        **kwargs
    )
