#!/bin/sh
# Regenerates tests/qdq/models: the quantized ONNX models and their inputs
# (make_models.py, python3-onnx and numpy from Debian), then the reference
# outputs from ONNX Runtime (ort_reference.js; onnxruntime-node in $ORT_DIR,
# default /tmp/ort, set up as ../shared/bench/README.md says).
set -eu
cd "$(dirname "$0")"
/usr/bin/python3 make_models.py models
node ort_reference.js models
