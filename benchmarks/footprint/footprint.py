#!/usr/bin/python3
"""Footprint report: for each model and target, the bundle's code size, its
three memory regions and the stack depth of its entry function.

    make footprint        (= benchmarks/footprint/footprint.py)

Builds //benchmarks/footprint for the host and each cross config, reads the
sizes from the bundle objects and headers, runs each stack probe (natively or
under QEMU, through the config's --run_under), and writes the table to
docs/footprint.md and stdout. BAZEL (environment) is the Bazel command.
Needs the cross packages (tools/install_deps.sh all).
"""

import os
import re
import shlex
import struct
import subprocess
import sys

PACKAGE = "//benchmarks/footprint"

# (name in the table, .bazelrc config or None for the host).
TARGETS = [
    ("x86-64 (build machine's CPU)", None),
    ("AArch64 (generic)", "aarch64"),
    ("Cortex-M3 (soft float)", "cortex-m3"),
    ("Cortex-M4F", "cortex-m4"),
    ("Cortex-M7", "cortex-m7"),
]

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
    """NAME_{WEIGHTS,IO,SCRATCH}_SIZE from a bundle header."""
    with open(path) as f:
        text = f.read()
    return {
        region: int(re.search(r"#define \w+_%s_SIZE (\d+)" % region.upper(), text).group(1))
        for region in ("weights", "io", "scratch")
    }


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
    for model, row in rows.items():
        if model not in probes:
            row["stack"] = None
            continue
        out = bazel(["run", "%s:%s" % (PACKAGE, probes[model])], config)
        row["stack"] = int(re.search(r"\bstack=(\d+)", out).group(1))
    return rows


def table(results):
    lines = [
        "| model | target | .text B | weights B | scratch B | io B | entry stack B |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    models = sorted({m for rows in results.values() for m in rows},
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


def main():
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    results = {target: measure(config) for target, config in TARGETS}
    report = """# Bundle footprint

Generated by `make footprint` (benchmarks/footprint/footprint.py); do not edit.

For each model and target: `.text`, the bundle object's executable code; the
three regions the caller provides (bundle ABI): weights (read-only: flash on
bare metal, where they are embedded), scratch and io (RAM); and the stack
depth of the entry function `NAME_run`, measured by painting the stack below
the caller's frame, running the bundle once and finding the lowest byte
written (benchmarks/footprint/stack_probe.c; on the host natively, under
qemu-aarch64, and as firmware on the QEMU MPS2 boards). The bundle code calls
no library: on Cortex-M3 (no FPU) the soft-float helpers it calls (libgcc's
`__aeabi_f*`) are not counted in `.text`. mobilenet_v2 and resnet18 do not
fit the 4 MiB of flash of the Cortex-M boards: their code is compiled and
sized, but not run there.

%s
""" % table(results)
    with open("docs/footprint.md", "w") as f:
        f.write(report)
    print(report)


if __name__ == "__main__":
    main()
