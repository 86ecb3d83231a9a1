#!/bin/sh
# Regenerates tests/qdq/models: the quantized ONNX models and their inputs
# (make_models.py, python3-onnx and numpy from Debian), then the reference
# outputs from ONNX Runtime (ort_reference.js; onnxruntime-node in $ORT_DIR,
# default /tmp/ort, set up as ../shared/bench/README.md says), and the
# models' input and output for the end-to-end tests (make_model_io.py).
set -eu
cd "$(dirname "$0")"
/usr/bin/python3 make_models.py models
node ort_reference.js models
/usr/bin/python3 make_model_io.py models model_io.bzl
