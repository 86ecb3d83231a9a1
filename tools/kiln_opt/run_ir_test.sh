#!/bin/bash
# Runs the `// RUN:` lines of a text-IR test file, as LLVM's lit does: %s is
# the file and %S its directory; kiln_opt, FileCheck and not are the tools passed in, first on PATH.
# usage: run_ir_test.sh KILN_OPT FILECHECK NOT FILE
set -euo pipefail
file=$4
tools=$(mktemp -d)
trap 'rm -rf "$tools"' EXIT
ln -s "$(realpath "$1")" "$tools/kiln_opt"
ln -s "$(realpath "$2")" "$tools/FileCheck"
ln -s "$(realpath "$3")" "$tools/not"
mapfile -t runs < <(sed -n 's|^// RUN: *||p' "$file")
if [ "${#runs[@]}" -eq 0 ]; then
  echo "$file: no RUN lines" >&2
  exit 1
fi
for run in "${runs[@]}"; do
  cmd=${run//%s/$file}
  cmd=${cmd//%S/$(dirname "$file")}
  echo "RUN: $cmd"
  PATH="$tools:$PATH" bash -c "set -o pipefail; $cmd"
done
