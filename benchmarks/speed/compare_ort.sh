#!/bin/bash
# kiln against ONNX Runtime on one thread, side by side: ROUNDS rounds, each
# running every kiln bundle (speed_bench) and then ONNX Runtime on the same
# models (../shared/bench/ort_bench.js), then the medians and ratios.
#
#   benchmarks/speed/compare_ort.sh [ROUNDS]
#
# Needs onnxruntime-node in $ORT_DIR (default /tmp/ort; see
# ../shared/bench/README.md) and the models in $KILN_SHARED_MODELS (default
# ../shared/models); ONNX Runtime also runs the models of bundles/models (the
# suite's small ones) and, when present, the suite's large ones in
# $KILN_SUITE_MODELS (default ../shared/suite). $BAZEL overrides the bazel
# command; the bundles are for the CPU $BENCH_CPU (default x86-64-v3).
set -euo pipefail
rounds=${1:-3}
bazel_cmd=${BAZEL:-bazel}
root=$(cd "$(dirname "$0")/../.." && pwd)
models=${KILN_SHARED_MODELS:-$root/../shared/models}
suite=${KILN_SUITE_MODELS:-$root/../shared/suite}
ort_bench=${ORT_BENCH:-$root/../shared/bench/ort_bench.js}
out=$(mktemp -d /tmp/kiln_speed.XXXXXX)
cd "$root"
cpu_flag=--//bundles:host_cpu=${BENCH_CPU:-x86-64-v3}
$bazel_cmd build "$cpu_flag" //benchmarks/speed:speed_bench
began=$SECONDS
# Each round's start with the time so far and, from the second on, an estimate
# of the time left (the first round also measures compile times: a bit long).
for r in $(seq "$rounds"); do
  compile=0
  [ "$r" = 1 ] && compile=1
  elapsed=$((SECONDS - began))
  left=""
  [ "$r" -gt 1 ] && left=", about $((elapsed / (r - 1) * (rounds - r + 1))) s left"
  echo "round $r/$rounds: kiln (${elapsed} s so far$left)" >&2
  $bazel_cmd run "$cpu_flag" //benchmarks/speed:speed_bench -- --benchmark_color=false \
    --compile_reps=$compile --json="$out/kiln_$r.json" > "$out/kiln_$r.txt" 2>&1
  echo "round $r/$rounds: onnxruntime" >&2
  # One file per folder, which compare.js merges.
  for folder in "bundled:$root/bundles/models" "shared:$models" "suite:$suite"; do
    dir=${folder#*:}
    [ -f "$dir/manifest.json" ] || continue
    ORT_DIR=${ORT_DIR:-/tmp/ort} node "$ort_bench" --models-dir "$dir" --threads 1 \
      --runs 50 --out "$out/ort_${r}_${folder%%:*}.json" >> "$out/ort_$r.txt"
  done
done
echo "$rounds rounds in $((SECONDS - began)) s" >&2
node "$root/benchmarks/speed/compare.js" "$out"
echo "(raw results in $out)" >&2
