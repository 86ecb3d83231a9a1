#!/usr/bin/python3
"""On-device benchmark: the four small models as bare-metal firmware on a QEMU
MPS2 board, in instructions executed per inference (not cycles: QEMU does not
model timing; see bench.c).

    make bench-device                 (= benchmarks/device/bench.py cortex-m4)
    benchmarks/device/bench.py cortex-m7

Builds //benchmarks/device for the config, runs each firmware through the
config's --run_under (targets/qemu_run.sh, -icount shift=0) and prints a
markdown table. BAZEL (environment) is the Bazel command.
"""

import json
import os
import re
import shlex
import subprocess
import sys

MODELS = ["lenet5", "mlp", "ds_cnn_kws", "resnet8_cifar"]
RUNS = 10


def bazel(args, config):
    cmd = shlex.split(os.environ.get("BAZEL", "bazel")) + [args[0], "--config=" + config] + args[1:]
    result = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit("bench: failed: " + " ".join(cmd))
    return result.stdout


def main():
    config = sys.argv[1] if len(sys.argv) > 1 else "cortex-m4"
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    with open("bundles/models/manifest.json") as f:
        manifest = json.load(f)
    rows = []
    for model in MODELS:
        out = bazel(["run", "//benchmarks/device:bench_" + model, "--", str(RUNS)], config)
        low, high = map(int, re.search(r"instructions=(\d+)\.\.(\d+)", out).groups())
        macs = manifest[model]["flops"] // 2
        rows.append("| %s | %.2f | %.2f | %.1f | %s |" % (
            model, macs / 1e6, high / 1e6, high / macs,
            "yes" if high - low <= 40 else "no (%d..%d)" % (low, high)))
    print("Instructions per inference on %s under QEMU (-icount shift=0), %d runs each:\n"
          % (config, RUNS))
    print("| model | MMACs | M instructions / run | instructions / MAC | repeatable (within 1 tick) |")
    print("|---|---:|---:|---:|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
