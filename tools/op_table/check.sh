#!/bin/sh
# Fails when docs/ops.md differs from what the op records give.
if ! diff -u docs/ops.md - <<EOT
$(tools/op_table/op_table)
EOT
then
  echo "docs/ops.md is out of date: bazel run //tools/op_table:update" >&2
  exit 1
fi
