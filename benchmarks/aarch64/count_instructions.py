#!/usr/bin/env python3
"""Instructions per inference of the int8 TFLite models on AArch64, without
SDOT (NEON's SMLAL), with it (+dotprod) and with SMMLA (+i8mm), counted under qemu-aarch64
(`make bench-aarch64`).

Debian's QEMU has no TCG plugins, so the count comes from QEMU's own logs:
`-d in_asm` gives each translated block's instructions and `-d exec,nochain`
one line per block executed. The blocks inside the bundle's functions (its
`kiln.*` kernels and NAME_run) are summed and divided by the inferences
(the calls of its kernels). The programs are the exact tests of //tests/tflite (`<model>` for
the "generic" Armv8.0 CPU, `<model>_dotprod`, `<model>_i8mm`), run on their reference
input; the harness around the bundle is not counted. Writes RESULTS.md
beside this script.
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

MODELS = ["kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8", "person_detect"]
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BAZEL = os.environ.get("BAZEL", "bazel")
CONFIG = ["--config=aarch64"]


def bazel(*args):
    return subprocess.run([BAZEL, *args], cwd=ROOT, check=True, text=True,
                          stdout=subprocess.PIPE).stdout


def functions(binary, prefix):
    """(start, end, name) of the bundle's functions in `binary` (offsets)."""
    out = subprocess.run(["aarch64-linux-gnu-nm", "-S", "--defined-only", binary],
                         check=True, text=True, stdout=subprocess.PIPE).stdout
    funcs, start = [], None
    for line in out.splitlines():
        f = line.split()
        if len(f) != 4 or f[2] not in "tT":
            continue
        addr, size, name = int(f[0], 16), int(f[1], 16), f[3]
        if name == "_start":
            start = addr
        if name.startswith("kiln.") or name == prefix + "_run":
            funcs.append((addr, addr + size, name))
    return funcs, start


def is_sdot(word):
    """SDOT by its encoding (QEMU 7.2's disassembler prints it as .byte):
    the vector form, or by element."""
    w = int(word, 16)
    return (w & 0xbfe0fc00) == 0x0e809400 or (w & 0xbfc0f400) == 0x0f80e000


def is_smmla(word):
    """SMMLA Vd.4S, Vn.16B, Vm.16B by its encoding."""
    return (int(word, 16) & 0xffe0fc00) == 0x4e80a400


SUFFIXES = ("", "_dotprod", "_i8mm")


def count(binary, args, cwd, prefix):
    """Instructions executed in the bundle per inference, and the SDOTs and
    SMMLAs among them."""
    funcs, start = functions(binary, prefix)
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "qemu.log")
        subprocess.run(["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", "-d", "in_asm,exec,nochain",
                        "-D", log, binary, *args], cwd=cwd, check=True, stdout=subprocess.DEVNULL)
        blocks, execs = {}, collections.Counter()
        with open(log) as f:
            pc, insns = None, []
            for line in f:
                if line.startswith("IN:"):
                    pc, insns = None, []
                    continue
                m = re.match(r"0x([0-9a-f]+):\s+([0-9a-f]{8})\s", line)
                if m:
                    if pc is None:
                        pc = int(m.group(1), 16)
                    insns.append(m.group(2))
                    blocks[pc] = insns
                    continue
                m = re.match(r"Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/", line)
                if m:
                    execs[int(m.group(1), 16)] += 1
    # The load address (a PIE): of the page-aligned ones at which _start is a
    # block that ran, the one at which most of the bundle's functions ran
    # (other code, such as the test's guard-page checks, can run at _start's
    # offset from another page, a few blocks of it many times).
    run = [f for f in funcs if f[2] == prefix + "_run"][0]
    base = max((pc - start for pc in execs if (pc - start) % 4096 == 0),
               key=lambda b: sum(1 for a, _, _ in funcs if execs[a + b]))
    # Inferences: the calls of the kernels, each entered once per inference
    # (NAME_run is also called with bad arguments, and returns early).
    entries = collections.Counter(execs[a + base] for a, _, name in funcs if name != run[2])
    calls = entries.most_common(1)[0][0]
    total, sdot, smmla = 0, 0, 0
    for pc, n in execs.items():
        off = pc - base
        if any(a <= off < b for a, b, _ in funcs):
            insns = blocks[pc]
            total += n * len(insns)
            sdot += n * sum(1 for i in insns if is_sdot(i))
            smmla += n * sum(1 for i in insns if is_smmla(i))
    return total / calls, sdot / calls, smmla / calls


def main():
    tests = [m + s for m in MODELS for s in SUFFIXES]
    bazel("build", *CONFIG, *["//tests/tflite:" + t for t in tests])
    bin_dir = bazel("info", *CONFIG, "bazel-bin").strip()
    rows = []
    for m in MODELS:
        row = [m]
        for suffix in SUFFIXES:
            t = m + suffix
            binary = os.path.join(bin_dir, "tests/tflite", t)
            runfiles = binary + ".runfiles/kiln"
            bundle = "tests/tflite/%s_bundle_kiln/%s_bundle.weights.bin" % (t, t)
            args = [bundle, "tests/tflite/refs/%s.0.input.bin" % m,
                    "tests/tflite/%s.interpreter.output.bin" % m]
            insns, sdot, smmla = count(binary, args, runfiles, t + "_bundle")
            row.append((insns, sdot, smmla))
            print("%s: %.0f instructions per inference, %.0f SDOT, %.0f SMMLA" % (t, insns, sdot, smmla),
                  file=sys.stderr)
        rows.append(row)
    with open(os.path.join(HERE, "RESULTS.md"), "w") as out:
        out.write("# AArch64 int8: instructions per inference, generic, +dotprod and +i8mm\n\n")
        out.write("Generated by `benchmarks/aarch64/count_instructions.py` (`make bench-aarch64`); do not edit.\n\n")
        out.write("Instructions executed in the bundle (its kernels and `NAME_run`) per inference,\n")
        out.write("counted from qemu-aarch64's block logs (Debian's QEMU has no plugins): the tests\n")
        out.write("`//tests/tflite:<model>` (`--mcpu generic`, Armv8.0: SMLAL), `<model>_dotprod` (`--mattr +dotprod`) and\n")
        out.write("`<model>_i8mm` (`--mattr +dotprod,+i8mm`: SMMLA, SDOT where a Conv has under 8 pixels),\n")
        out.write("each bit-exact with the interpreter, on their reference input. Instructions, not cycles.\n\n")
        out.write("| model | generic M instructions | +dotprod M instructions | +i8mm M instructions "
                  "| generic / +dotprod | +dotprod / +i8mm | SDOT per inference (M) | SMMLA per inference (M) |\n")
        out.write("|---|---:|---:|---:|---:|---:|---:|---:|\n")
        for m, (g, _, _), (d, s, _), (i, _, mm) in rows:
            out.write("| %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.3f | %.3f |\n"
                      % (m, g / 1e6, d / 1e6, i / 1e6, g / d, d / i, s / 1e6, mm / 1e6))


if __name__ == "__main__":
    main()
