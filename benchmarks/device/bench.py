#!/usr/bin/python3
"""On-device benchmark: kiln's small ONNX example models and the MLPerf Tiny
reference models (int8 and float) as bare-metal firmware on QEMU MPS2 boards,
in instructions executed per inference (not cycles: QEMU does not model
timing; see bench.c).

    make bench-device        (= benchmarks/device/bench.py cortex-m4 cortex-m7)
    benchmarks/device/bench.py [CONFIG...]     (.bazelrc configs; default cortex-m4)

Builds //benchmarks/device for each config, runs each firmware through the
config's --run_under (targets/qemu_run.sh, -icount shift=0), and prints, then
writes to benchmarks/device/RESULTS.md: a table per config, a table that
sets the int8 MLPerf Tiny models and their float twins beside the int8
budgets (BUDGETS below), the int8 models' code beside their code on the
Cortex-M3 (the portable int8 kernels), and per int8 model the instructions
of each layer (its firmware built from a bundle compiled with
--profile-layers). What RESULTS.md holds below HAND_WRITTEN it keeps. BAZEL
(environment) is the Bazel command.
"""

import json
import os
import re
import shlex
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from progress import QUIET_BAZEL_RUN, Progress  # noqa: E402

# kiln's ONNX examples (bundles/models; their MACs from manifest.json), the
# MLPerf Tiny models and TFLM's example LSTM, int8 and float
# (tests/tflite/models; MACs counted from the file), as in BUILD.bazel.
ONNX_MODELS = ["lenet5", "mlp", "ds_cnn_kws", "resnet8_cifar"]
TFLITE_MODELS = [
    "kws_ref_model", "kws_ref_model_float32", "vww_96_int8", "vww_96_float",
    "pretrainedResnet_quant", "pretrainedResnet", "ad01_int8", "ad01_fp32",
    "trained_lstm_int8", "trained_lstm",
]
RUNS = 10
RESULTS = "benchmarks/device/RESULTS.md"
# RESULTS.md from this line on is written by hand (the explanation of the
# per-layer figures): bench.py keeps it below what it generates.
HAND_WRITTEN = "<!-- Written by hand from here on; bench.py keeps it. -->"
# The core without the DSP extension, whose int8 code is the portable kernels'.
PORTABLE_CONFIG = "cortex-m3"

# The budgets of the fast int8 kernels: the best published MLPerf Tiny v1.2
# (closed division) latency of each int8 model on a Cortex-M4 at 120 MHz
# (NUCLEO-L4R5ZI), as cycles (ms x 120 MHz): X-CUBE-AI 9 (STMicroelectronics)
# for KWS, VWW and IC, Plumerai for AD (../shared/notes/anchors.md). The only
# copy of these figures: the budget table is built from it.
# int8 model -> (task, budget in cycles, float twin).
BUDGETS_SOURCE = ("MLPerf Tiny v1.2, closed division, Cortex-M4 at 120 MHz (NUCLEO-L4R5ZI): "
                  "X-CUBE-AI 9 for KWS, VWW and IC, Plumerai for AD; latency x 120 MHz")
BUDGETS = {
    "kws_ref_model": ("keyword spotting (DS-CNN)", 5.18e6, "kws_ref_model_float32"),
    "vww_96_int8": ("visual wake words (MobileNetV1 0.25)", 10.7e6, "vww_96_float"),
    "pretrainedResnet_quant": ("image classification (ResNet-8)", 19.8e6, "pretrainedResnet"),
    "ad01_int8": ("anomaly detection (FC autoencoder)", 0.49e6, "ad01_fp32"),
}

# TFLite builtin operator codes (schema.fbs BuiltinOperator) that multiply-accumulate.
CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, UNIDIRECTIONAL_SEQUENCE_LSTM = 3, 4, 9, 44


def tflite_macs(path):
    """Multiply-accumulates of a .tflite model's CONV_2D, DEPTHWISE_CONV_2D,
    FULLY_CONNECTED and UNIDIRECTIONAL_SEQUENCE_LSTM operators (subgraph 0),
    read straight from the FlatBuffer: output elements x the weights' reduction
    size (an LSTM's four gates, each over its input and hidden state)."""
    with open(path, "rb") as f:
        buf = f.read()

    def u32(p):
        return struct.unpack_from("<I", buf, p)[0]

    def field(table, index):
        vtable = table - struct.unpack_from("<i", buf, table)[0]
        if 4 + 2 * index >= struct.unpack_from("<H", buf, vtable)[0]:
            return None
        off = struct.unpack_from("<H", buf, vtable + 4 + 2 * index)[0]
        return table + off if off else None

    def scalar(table, index, fmt):
        p = field(table, index)
        return 0 if p is None else struct.unpack_from("<" + fmt, buf, p)[0]

    def vector(table, index, fmt=None):  # of scalars (fmt) or of tables
        p = field(table, index)
        if p is None:
            return []
        p += u32(p)
        n = u32(p)
        if fmt:
            return list(struct.unpack_from("<%d%s" % (n, fmt), buf, p + 4))
        return [p + 4 + 4 * i + u32(p + 4 + 4 * i) for i in range(n)]

    model = u32(0)
    # OperatorCode: deprecated_builtin_code (0, int8), builtin_code (3, int32).
    codes = [max(scalar(c, 0, "b"), scalar(c, 3, "i")) for c in vector(model, 1)]
    graph = vector(model, 2)[0]  # Model.subgraphs
    shapes = [vector(t, 0, "i") for t in vector(graph, 0)]  # Tensor.shape
    macs = 0
    for op in vector(graph, 3):  # Operator: opcode_index, inputs, outputs
        code = codes[scalar(op, 0, "I")]
        inputs, outputs = vector(op, 1, "i"), vector(op, 2, "i")
        if code not in (CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, UNIDIRECTIONAL_SEQUENCE_LSTM):
            continue
        out, weights = 1, shapes[inputs[1]]
        for d in shapes[outputs[0]]:
            out *= d
        if code == UNIDIRECTIONAL_SEQUENCE_LSTM:  # input weights [H, In], recurrent [H, H]
            macs += out * 4 * (weights[1] + weights[0])
        elif code == CONV_2D:  # weights [Cout, H, W, Cin]
            macs += out * weights[1] * weights[2] * weights[3]
        elif code == DEPTHWISE_CONV_2D:  # weights [1, H, W, C]
            macs += out * weights[1] * weights[2]
        else:  # weights [Out, In]
            macs += out * weights[-1]
    return macs


def bazel(args, config):
    cmd = shlex.split(os.environ.get("BAZEL", "bazel")) + [args[0], "--config=" + config] + args[1:]
    result = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit("bench: failed: " + " ".join(cmd))
    return result.stdout


def code_bytes(obj):
    """Bytes of executable sections (SHF_EXECINSTR) of an ELF32 object: the
    bundle's code, without its weights or tables."""
    with open(obj, "rb") as f:
        elf = f.read()
    shoff, = struct.unpack_from("<I", elf, 0x20)
    shentsize, shnum = struct.unpack_from("<HH", elf, 0x2E)
    total = 0
    for i in range(shnum):
        flags, _, _, size = struct.unpack_from("<IIII", elf, shoff + i * shentsize + 8)
        if flags & 0x4:
            total += size
    return total


def bundle_code_bytes(config, models):
    """model -> code bytes of its bundle built for config."""
    bin_dir = bazel(["info", "bazel-bin"], config).strip()
    return {m: code_bytes(os.path.join(bin_dir, "benchmarks/device/%s_kiln/%s.o" % (m, m)))
            for m in models}


def portable_code_bytes(models):
    """int8 model -> code bytes of its bundle for the Cortex-M3, which has no
    DSP extension: the portable int8 kernels, the yardstick of the code-size
    rule (the Cortex-M code within 2x of theirs)."""
    bazel(["build"] + ["//benchmarks/device:" + m for m in models], PORTABLE_CONFIG)
    return bundle_code_bytes(PORTABLE_CONFIG, models)


def measure(config, models, progress):
    """model -> (min, max) instructions per run over RUNS runs, and model ->
    code bytes of its bundle."""
    bazel(["build", "//benchmarks/device:all"], config)
    sizes = bundle_code_bytes(config, models)
    counts = {}
    for model in models:
        progress.start("%s %s, %d runs" % (config, model, RUNS))
        out = bazel(["run"] + QUIET_BAZEL_RUN + ["//benchmarks/device:bench_" + model, "--", str(RUNS)], config)
        counts[model] = tuple(map(int, re.search(r"instructions=(\d+)\.\.(\d+)", out).groups()))
        progress.note("bench: %s %s: %d instructions" % (config, model, counts[model][1]))
    return counts, sizes


def short_layer_name(name):
    """op[kernel] and the last of the ';'-joined TFLite tensor names."""
    op, _, node = name.partition("] ") if "] " in name else name.partition(" ")
    op += "]" if "[" in op else ""
    node = node.split(";")[-1]
    return op + " " + (node if len(node) <= 48 else "..." + node[-45:])


def profile(config, models, progress):
    """model -> [(layer name, instructions)] from its profile_ firmware."""
    layers = {}
    for model in models:
        progress.start("%s %s, per layer" % (config, model))
        out = bazel(["run"] + QUIET_BAZEL_RUN + ["//benchmarks/device:profile_" + model, "--", "1"], config)
        layers[model] = [(short_layer_name(name), int(n)) for n, name in
                         re.findall(r"^layer \d+ instructions=(\d+) (.*)$", out, re.M)]
    return layers


def layer_tables(configs, profiles):
    lines = []
    for model in BUDGETS:
        lines += ["### %s" % model, "",
                  "| # | layer (op[kernel] node) |" + "".join(" %s K instructions | %% |" % c for c in configs),
                  "|---:|---|" + "---:|---:|" * len(configs)]
        rows = profiles[configs[0]][model]
        totals = {c: sum(n for _, n in profiles[c][model]) or 1 for c in configs}
        for i, (name, _) in enumerate(rows):
            row = "| %d | %s |" % (i, name.replace("|", "\\|"))
            for c in configs:
                n = profiles[c][model][i][1]
                row += " %.1f | %.1f |" % (n / 1e3, 100.0 * n / totals[c])
            lines.append(row)
        lines.append("")
    return lines


def config_table(config, counts, sizes, macs):
    lines = ["Instructions per inference on %s under QEMU (-icount shift=0), %d runs each, and the" % (config, RUNS),
             "bundle's code bytes (executable sections of its object):",
             "",
             "| model | MMACs | M instructions / run | instructions / MAC | code KB | repeatable (within 1 tick) |",
             "|---|---:|---:|---:|---:|---|"]
    for model, (low, high) in counts.items():
        lines.append("| %s | %.2f | %.2f | %.1f | %.1f | %s |" % (
            model, macs[model] / 1e6, high / 1e6, high / macs[model], sizes[model] / 1024,
            "yes" if high - low <= 40 else "no (%d..%d)" % (low, high)))
    return lines


def budget_table(configs, results, macs):
    head = "| task | model | MMACs |"
    rule = "|---|---|---:|"
    for config in configs:
        head += " %s M instructions |" % config
        rule += "---:|"
    head += " budget M cycles (Cortex-M4) |"
    rule += "---:|"
    for config in configs:
        head += " %s / budget |" % config
        rule += "---:|"
    lines = [head, rule]
    for int8, (task, budget, twin) in BUDGETS.items():
        for model in (int8, twin):
            row = "| %s | %s | %.2f |" % (task if model == int8 else "", model, macs[model] / 1e6)
            row += "".join(" %.2f |" % (results[c][0][model][1] / 1e6) for c in configs)
            row += " %.2f |" % (budget / 1e6)
            row += "".join(" %.3f |" % (results[c][0][model][1] / budget) for c in configs)
            lines.append(row)
    return lines


def code_size_table(configs, results, portable):
    head = "| model | %s (portable) code KB |" % PORTABLE_CONFIG
    rule = "|---|---:|"
    for config in configs:
        head += " %s code KB | %s / portable |" % (config, config)
        rule += "---:|---:|"
    lines = [head, rule]
    for model in BUDGETS:
        row = "| %s | %.1f |" % (model, portable[model] / 1024)
        for config in configs:
            size = results[config][1][model]
            row += " %.1f | %.2f |" % (size / 1024, size / portable[model])
        lines.append(row)
    return lines


def main():
    configs = sys.argv[1:] or ["cortex-m4"]
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    with open("bundles/models/manifest.json") as f:
        manifest = json.load(f)
    macs = {m: manifest[m]["flops"] // 2 for m in ONNX_MODELS}
    macs.update({m: tflite_macs("tests/tflite/models/%s.tflite" % m) for m in TFLITE_MODELS})
    models = ONNX_MODELS + TFLITE_MODELS
    progress = Progress("bench", len(configs) * (len(models) + len(BUDGETS)))
    results = {c: measure(c, models, progress) for c in configs}
    portable = portable_code_bytes(list(BUDGETS))
    profiles = {c: profile(c, list(BUDGETS), progress) for c in configs}
    progress.finish()

    lines = ["# On-device benchmark results", "",
             "Generated by `benchmarks/device/bench.py %s` (`make bench-device`); do not edit." % " ".join(configs),
             "",
             "Instructions executed per inference, counted under QEMU with `-icount shift=0` (SysTick x 40;",
             "benchmarks/device/bench.c): repeatable, but **instructions, not cycles**. Each input holds the",
             "value 0 in its dtype (for int8, the zero point). MMACs: the multiply-accumulates of the",
             "convolutions and fully connected layers. The MLPerf Tiny models are compiled from",
             "tests/tflite/models; in the int8 ones (`*_int8`, `kws_ref_model`, `pretrainedResnet_quant`)",
             "Conv and FULLY_CONNECTED run as int8 GEMMs (`int8 gemm`, SMLAD on these cores), the other",
             "layers on the portable int8 kernels (`int8`); the per-layer tables below name each layer's kernel.",
             ""]
    for config in configs:
        lines += config_table(config, *results[config], macs) + [""]
    lines += ["## int8 MLPerf Tiny beside the int8 budgets", "",
              "Budgets: %s." % BUDGETS_SOURCE,
              "They are cycles on a Cortex-M4, kiln's figures instructions on each board; the target is",
              "instructions at or below the budget (a ratio of at most 1). A Cortex-M4 takes more than one",
              "cycle for some instructions (e.g. loads), so its cycles would be more than its instructions.",
              "The float twins are set beside the same budget for orientation.",
              ""]
    lines += budget_table(configs, results, macs)
    lines += ["", "## int8 code beside the portable int8 kernels' code", "",
              "Code bytes (executable sections) of each int8 model's bundle, and their ratio to the same",
              "model's on the %s, which has no DSP extension and so runs the portable int8" % PORTABLE_CONFIG,
              "kernels (the issue's rule: within 2x). The Arm DSP GEMM unrolls its loop over a row only",
              "as far as the instructions it saves pay for the code (`unroll N` in the kernel's name).", ""]
    lines += code_size_table(configs, results, portable)
    lines += ["", "## Instructions per layer", "",
              "One run of each int8 model, its bundle compiled with `--profile-layers` (the firmware's",
              "`kiln_profile_layer` reads SysTick before each layer, so each figure includes that call's",
              "few dozen instructions).", ""]
    lines += layer_tables(configs, profiles)
    text = "\n".join(lines) + "\n"
    print(text)
    with open(RESULTS) as f:
        old = f.read()
    if HAND_WRITTEN in old:
        text += "\n" + old[old.index(HAND_WRITTEN):]
    with open(RESULTS, "w") as f:
        f.write(text)


if __name__ == "__main__":
    main()
