#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets (--config=fuzz: clang-19, ASan,
# UBSan) and runs each for FUZZ_SECONDS (default 60) from the seed corpus.
# What a fuzzer adds to its corpus stays in FUZZ_OUT/TARGET/corpus for the
# next run; a crash, timeout or OOM input goes to FUZZ_OUT/TARGET/ and fails
# the run (after every target has run). Then: minimize it, fix the compiler,
# and add it to regressions/ (README "Reliability").
#   FUZZ_SECONDS=3600 FUZZ_TARGETS="front_half" make fuzz
set -euo pipefail
cd "$(dirname "$0")/../.."
bazel=${BAZEL:-bazel}
seconds=${FUZZ_SECONDS:-60}
targets=${FUZZ_TARGETS:-import_onnx import_tflite front_half codegen}
out=${FUZZ_OUT:-fuzz-out}
seeds=tests/fuzz/corpus

labels=()
for t in $targets; do labels+=("//tests/fuzz:${t}_fuzzer"); done
"$bazel" build --config=fuzz "${labels[@]}"
bin=$("$bazel" info --config=fuzz bazel-bin)/tests/fuzz

failed=()
for t in $targets; do
  case $t in
    import_onnx) dirs=("$seeds/onnx") ;;
    import_tflite) dirs=("$seeds/tflite") ;;
    *) dirs=("$seeds/onnx" "$seeds/tflite") ;;
  esac
  mkdir -p "$out/$t/corpus"
  echo "fuzz: $t for $seconds s"
  # A model that takes 30 s or 2 GB to compile is a finding (a hang or OOM).
  if ! "$bin/${t}_fuzzer" -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$out/$t/" "$out/$t/corpus" "${dirs[@]}" \
      2>"$out/$t/log"; then
    failed+=("$t")
  fi
  grep -E "^#[0-9]+ +(DONE|INITED)|stat::|^==|SUMMARY|ERROR" "$out/$t/log" || true
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: findings in ${failed[*]}; inputs and logs in $out/" >&2
  exit 1
fi
