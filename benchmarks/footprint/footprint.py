#!/usr/bin/python3
"""Footprint report: for each model and target, the bundle's code size, its
three memory regions and the stack depth of its entry function.

    make footprint        (= benchmarks/footprint/footprint.py)

Builds //benchmarks/footprint for the host and each cross config, reads the
sizes from the bundle objects and headers, runs each stack probe (natively or
under QEMU, through the config's --run_under), and writes the table to
docs/footprint.md and stdout, with a second table that sets the int8 MLPerf
Tiny models beside X-CUBE-AI's published memory figures (XCUBE_AI below).
BAZEL (environment) is the Bazel command.
Needs the cross packages (tools/install_deps.sh all).
"""

import os
import re
import shlex
import struct
import subprocess
import sys
import textwrap

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from progress import QUIET_BAZEL_RUN, Progress  # noqa: E402

PACKAGE = "//benchmarks/footprint"

# (name in the table, .bazelrc config or None for the host).
TARGETS = [
    ("x86-64 (build machine's CPU)", None),
    ("AArch64 (generic)", "aarch64"),
    ("Cortex-M3 (soft float)", "cortex-m3"),
    ("Cortex-M4F", "cortex-m4"),
    ("Cortex-M7", "cortex-m7"),
]

# X-CUBE-AI 9.0's memory for the int8 MLPerf Tiny reference models on a
# Cortex-M4 (NUCLEO-L4R5ZI), as published with STMicroelectronics' MLPerf Tiny
# v1.2 closed-division results (also in ../shared/notes/anchors.md): model ->
# (activations in RAM, weights in flash), bytes; None where not published.
# The only copy of these figures: the int8 table is built from it.
XCUBE_AI_SOURCE = ("MLPerf Tiny v1.2 (closed division), STMicroelectronics' X-CUBE-AI 9.0 "
                   "submission, NUCLEO-L4R5ZI (Cortex-M4 at 120 MHz)")
XCUBE_AI = {
    "kws_ref_model": ("keyword spotting (DS-CNN)", 22272, 24368),
    "pretrainedResnet_quant": ("image classification (ResNet-8)", 56672, 78744),
    "vww_96_int8": ("visual wake words (MobileNetV1 0.25)", 58624, None),
    "ad01_int8": ("anomaly detection (FC autoencoder)", 2048, 270880),
}
# The target the int8 table reads kiln's figures from (the boards X-CUBE-AI's
# figures are for).
XCUBE_AI_TARGET = "Cortex-M4F"
# The suffix of their bundles built with --overwrite-inputs (BUILD.bazel).
ONE_ARENA = "_overwrite_inputs"

# What each output of the cquery below is: the label's name, whether the
# target is incompatible with the platform, its output files.
CQUERY_EXPR = (
    'target.label.name + " " + str("IncompatiblePlatformProvider" in providers(target))'
    ' + " " + " ".join([f.path for f in target.files.to_list()])'
)

SHF_ALLOC, SHF_EXECINSTR = 0x2, 0x4


def bazel(args, config, capture=True):
    cmd = shlex.split(os.environ.get("BAZEL", "bazel")) + args[:1]
    if config:
        cmd.append("--config=" + config)
    cmd += args[1:]
    result = subprocess.run(cmd, stdout=subprocess.PIPE if capture else None, text=True)
    if result.returncode != 0:
        sys.exit("footprint: failed: " + " ".join(cmd))
    return result.stdout


def text_bytes(path):
    """Sum of the allocated, executable sections of an ELF object."""
    with open(path, "rb") as f:
        data = f.read()
    endian = "<" if data[5] == 1 else ">"
    if data[4] == 2:  # ELFCLASS64
        word, shoff_at, shnum_at, flags_at, size_at = "Q", 0x28, 0x3A, 8, 32
    else:
        word, shoff_at, shnum_at, flags_at, size_at = "I", 0x20, 0x2E, 8, 20
    shoff, = struct.unpack_from(endian + word, data, shoff_at)
    shentsize, shnum = struct.unpack_from(endian + "HH", data, shnum_at)
    total = 0
    for i in range(shnum):
        at = shoff + i * shentsize
        flags, = struct.unpack_from(endian + word, data, at + flags_at)
        size, = struct.unpack_from(endian + word, data, at + size_at)
        if flags & SHF_ALLOC and flags & SHF_EXECINSTR:
            total += size
    return total


def header_sizes(path):
    """NAME_{WEIGHTS,IO,SCRATCH}_SIZE from a bundle header, and the dtypes of
    its inputs and outputs (from the tensor comments, e.g. `i8[1,96,96,3]`)."""
    with open(path) as f:
        text = f.read()
    row = {
        region: int(re.search(r"#define \w+_%s_SIZE (\d+)" % region.upper(), text).group(1))
        for region in ("weights", "io", "scratch")
    }
    for kind in ("input", "output"):
        row[kind + "s"] = re.findall(r"/\* %s \d+ \"[^\"]*\": (\w+)\[" % kind, text)
    return row


def measure(config):
    """{model: {text, weights, io, scratch, stack}} for one target."""
    exec_root = bazel(["info", "execution_root"], config).strip()
    # The targets are manual (not built by //...); cquery tells which ones
    # this platform can build, and their output files.
    targets = [line.split() for line in bazel(
        ["cquery", "kind('_kiln_compile|cc_binary', %s:all)" % PACKAGE,
         "--output=starlark", "--starlark:expr=" + CQUERY_EXPR],
        config,
    ).splitlines()]
    targets = [(name, files) for name, incompatible, *files in targets if incompatible == "False"]
    bazel(["build"] + ["%s:%s" % (PACKAGE, name) for name, _ in targets], config, capture=False)
    rows, probes = {}, {}
    for name, files in targets:
        if name.endswith("_compile"):
            obj = next(f for f in files if f.endswith(".o"))
            header = next(f for f in files if f.endswith(".h"))
            row = header_sizes(os.path.join(exec_root, header))
            row["text"] = text_bytes(os.path.join(exec_root, obj))
            rows[name[: -len("_compile")]] = row
        else:
            probes[name[len("stack_"):]] = name
    progress = Progress("footprint", len([m for m in rows if m in probes]))
    for model, row in rows.items():
        if model not in probes:
            row["stack"] = None
            continue
        progress.start("%s: stack of %s" % (config or "host", model))
        out = bazel(["run"] + QUIET_BAZEL_RUN + ["%s:%s" % (PACKAGE, probes[model])], config)
        row["stack"] = int(re.search(r"\bstack=(\d+)", out).group(1))
        # The probe filled the input as the dtype its descriptor gives.
        probed = re.search(r"\binput=(\w+)", out).group(1)
        if probed != row["inputs"][0]:
            sys.exit("footprint: %s: the probe saw input dtype %s, the header says %s"
                     % (model, probed, row["inputs"][0]))
    progress.finish()
    return rows


def table(results):
    lines = [
        "| model | target | .text B | weights B | scratch B | io B | entry stack B |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    models = sorted({m for rows in results.values() for m in rows if not m.endswith(ONE_ARENA)},
                    key=lambda m: min(r[m]["weights"] for r in results.values() if m in r))
    for model in models:
        for target, _ in TARGETS:
            row = results[target].get(model)
            if row is None:
                continue
            stack = "n/a (too big for the board)" if row["stack"] is None else str(row["stack"])
            lines.append("| %s | %s | %d | %d | %d | %d | %s |" % (
                model, target, row["text"], row["weights"], row["scratch"], row["io"], stack))
    return "\n".join(lines)


def too_big(results):
    """The models not run on the bare-metal boards (no stack figure there)."""
    return sorted({m for target, config in TARGETS if config and config.startswith("cortex-m")
                   for m, row in results[target].items()
                   if row["stack"] is None and not m.endswith(ONE_ARENA)})


def int8_table(results):
    """kiln's int8 MLPerf Tiny bundles beside X-CUBE-AI's figures, and a note
    on each figure where kiln needs more."""
    rows = results[XCUBE_AI_TARGET]
    lines = [
        "| model | kiln code (.text) B | kiln weights B | kiln arena (io + scratch) B "
        "| kiln arena, `--overwrite-inputs` B | kiln entry stack B | X-CUBE-AI activations B "
        "| X-CUBE-AI weights B | kiln arena / X-CUBE-AI activations |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    arena_above, weights_above = [], []
    for model, (task, activations, weights) in XCUBE_AI.items():
        row = rows[model]
        separate = row["io"] + row["scratch"]
        one = rows[model + ONE_ARENA]
        arena = one["io"] + one["scratch"]
        ratio = arena / activations
        lines.append("| %s: `%s` | %s | %s | %s (%s + %s) | %s | %s | %s | %s | %.2f%s |" % (
            task, model, commas(row["text"]), commas(row["weights"]),
            commas(separate), commas(row["io"]), commas(row["scratch"]), commas(arena),
            "n/a" if row["stack"] is None else commas(row["stack"]),
            commas(activations), "—" if weights is None else commas(weights),
            ratio, " (kiln above)" if ratio > 1 else ""))
        if arena > activations:
            arena_above.append("`%s`'s arena is %s B (%.0f%%) above X-CUBE-AI's activations"
                               % (model, commas(arena - activations), 100 * (ratio - 1)))
        if weights is not None and row["weights"] > weights:
            weights_above.append("`%s` by %s B" % (model, commas(row["weights"] - weights)))
    notes = []
    if arena_above:
        notes.append("Where kiln is above in RAM: %s." % "; ".join(arena_above))
    if weights_above:
        notes.append("kiln's weights are above X-CUBE-AI's for %s: alignment padding, as kiln "
                     "starts each weight tensor on a 64-byte boundary." % ", ".join(weights_above))
    if not notes:
        notes.append("kiln is nowhere above X-CUBE-AI.")
    return "\n".join(lines), " ".join(notes)


def commas(n):
    return "{:,}".format(n)


def prose(text):
    """One paragraph of the report, wrapped."""
    return textwrap.fill(" ".join(text.split()), width=78, break_on_hyphens=False)


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    results = {target: measure(config) for target, config in TARGETS}
    big = too_big(results)
    int8, int8_note = int8_table(results)
    sections = [
        "# Bundle footprint",
        "Generated by `make footprint` (benchmarks/footprint/footprint.py); do not edit.",
        prose("""For each model and target: `.text`, the bundle object's executable code;
            the three regions the caller provides (bundle ABI): weights (read-only: flash on
            bare metal, where they are embedded), scratch and io (RAM); and the stack depth
            of the entry function `NAME_run`, measured by painting the stack below the
            caller's frame, running the bundle once and finding the lowest byte written
            (benchmarks/footprint/stack_probe.c; on the host natively, under qemu-aarch64,
            and as firmware on the QEMU MPS2 boards). The probe sets each input to 0 in its
            dtype (for int8, the zero point). The bundle code calls no library: on Cortex-M3
            (no FPU) the soft-float helpers it calls (libgcc's `__aeabi_f*`) are not counted
            in `.text`. """ + (
                "%s do not fit the 4 MiB of flash of the Cortex-M boards: their code is "
                "compiled and sized, but not run there." % " and ".join(big) if big else
                "Every model fits the Cortex-M boards' 4 MiB of flash and runs there.")),
        prose("""The models are kiln's ONNX examples and the MLPerf Tiny reference models
            (tests/tflite/models): `*_int8`, `kws_ref_model` and `pretrainedResnet_quant`
            are int8 throughout, input and output included; `kws_ref_model_float32` is float
            with int8 convolution weights; the other MLPerf Tiny models are float."""),
        table(results),
        "## int8 MLPerf Tiny beside X-CUBE-AI 9, Cortex-M4",
        prose("""kiln's figures are the %s rows above. kiln's RAM for activations is its
            arena: io, which holds the model's input and output tensors for the whole call
            (the caller writes the input there and reads the output there), plus scratch,
            which holds every intermediate tensor (reused by the memory plan). Its weights
            are in flash, embedded in the object. X-CUBE-AI's figures are its activations
            buffer (RAM) and weights (flash) as published: %s. They are not measured here,
            and its code size is not among them. ST's code generator can place the input
            and output buffers inside the activations buffer (its inputs/outputs allocation
            options), sharing bytes with intermediates not live at the same time. kiln does
            the same with `--overwrite-inputs` (`kiln_bundle(overwrite_inputs = True)`):
            inputs, outputs and intermediates are planned together in io, and scratch is
            empty; the run may then overwrite its input. Without it kiln's io is a region of
            its own, live for the whole call. The published figures do not say which way
            they were produced; the ratio compares kiln's one arena with them."""
              % (XCUBE_AI_TARGET, XCUBE_AI_SOURCE)),
        int8,
        prose(int8_note),
    ]
    report = "\n\n".join(sections) + "\n"
    with open("docs/footprint.md", "w") as f:
        f.write(report)
    print(report)


if __name__ == "__main__":
    main()
