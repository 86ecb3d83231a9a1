#!/bin/sh
# Runs every ONNX backend test case through compiled bundles, rewrites the
# report and adds newly passing cases to the regression list. Extra
# arguments go to onnx_conformance (e.g. --jobs 4, --prune-passing).
exec tests/conformance/onnx_conformance \
  --report docs/onnx-conformance.md \
  --passing tests/conformance/passing.txt --update-passing "$@"
