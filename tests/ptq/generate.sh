#!/bin/sh
# Regenerates tests/ptq's checked-in data:
#  1. calibration/MODEL/*.npy, the calibration sets (make_calibration.py;
#     Debian's python3-numpy);
#  2. models/MODEL.CALIBRATOR.qdq.onnx for each line of cases.txt: the shipped
#     model quantized by kilnc --quantize int8 --save-qdq;
#  3. models/MODEL.CALIBRATOR.ort_output.bin: ONNX Runtime's outputs of that
#     QDQ model on every calibration sample, in order (ort_reference.js;
#     onnxruntime-node in $ORT_DIR, default /tmp/ort, set up as
#     ../shared/bench/README.md says).
# ptq_models_test checks that kiln still writes these QDQ models byte for
# byte, so after a change to the quantizer run this again.
set -eu
cd "$(dirname "$0")"
root=$(cd ../.. && pwd)
(cd "$root" && bazel build //compiler/kilnc)
kilnc="$root/bazel-bin/compiler/kilnc/kilnc"
/usr/bin/python3 make_calibration.py
mkdir -p models
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
while read -r model calibrator; do
  "$kilnc" "$root/bundles/models/$model.onnx" --quantize int8 \
    --calibration "calibration/$model" --calibrator "$calibrator" \
    --save-qdq "models/$model.$calibrator.qdq.onnx" -o "$out" >/dev/null
done < cases.txt
node ort_reference.js
