#!/usr/bin/env bash
# Stands in for the end-to-end test of a model that tests/shared_models.bzl
# did not find in a folder that exists (CI has ../shared/models): the folder
# is there, so the model's absence is a broken setup, and fails.
#
# usage: missing_model_test.sh FOLDER MODEL
echo "FAIL: model $2 is missing from $1: $2.onnx, $2.input.bin and $2.output.bin must all be there" >&2
exit 1
