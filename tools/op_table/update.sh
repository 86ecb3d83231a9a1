#!/bin/sh
# Rewrites docs/ops.md from the op records (run with `bazel run`).
set -e
out="$BUILD_WORKSPACE_DIRECTORY/docs/ops.md"
tools/op_table/op_table > "$out"
echo "wrote $out"
