#!/usr/bin/env bash
# Stands in for the end-to-end test of a model that tests/shared_models.bzl
# did not find in a folder that exists (CI has ../shared): the folder is
# there, so the model's absence is a broken setup, and fails.
#
# usage: missing_model_test.sh FOLDER MODEL [FILE...]
#   FILE: the files the model needs (default: its ONNX file, reference input
#   and reference output)
folder=$1 model=$2
shift 2
files=${*:-$model.onnx $model.input.bin $model.output.bin}
echo "FAIL: model $model is missing from $folder, which needs: $files" >&2
exit 1
