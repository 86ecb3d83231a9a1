#!/usr/bin/env bash
# kiln_bundle(keep_float = [...], percentile = ..., bias_correction = True):
# the accuracy report among the compile step's outputs lists the kept Conv as
# float, names the calibrator and its P, and says the biases were corrected. Usage: keep_float_rule_test.sh OUTPUT...
set -euo pipefail
json=""
for f in "$@"; do
  case "$f" in *.accuracy.json) json=$f ;; esac
done
[ -n "$json" ] || { echo "FAIL: no accuracy report among the outputs: $*" >&2; exit 1; }
tr -d ' \n' <"$json" | grep -q '"float_nodes":\["/features/features.0/Conv"\]' ||
  { echo "FAIL: $json does not list the kept Conv as float" >&2; exit 1; }
grep -q '"calibrator": "percentile"' "$json" && grep -q '"percentile": 99.9' "$json" ||
  { echo "FAIL: $json does not name the percentile calibrator with P = 99.9" >&2; exit 1; }
grep -q '"bias_correction": true' "$json" ||
  { echo "FAIL: $json does not say the biases were corrected" >&2; exit 1; }
echo PASS
