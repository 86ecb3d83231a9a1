#!/bin/sh
# Outside compiler/ops, an op's attributes are read through its view
# (compiler/ops/OpViews.h), never by a string literal: the views are checked
# against the op records (op_views_test), a string is not. Fails listing each
# read by string it finds.
set -u
reads='(\.|->)(get(Int|Ints|Float|Floats|String|IntAt|Activation)|hasAttr|getAttr)\("'
files=$(find compiler -name '*.cpp' -o -name '*.h' | sort)
count=$(echo "$files" | wc -l)
# The data must be here: fewer files means the test reads nothing.
if [ "$count" -lt 200 ]; then
  echo "only $count compiler sources found" >&2
  exit 1
fi
# The pattern finds the records' own reads, which stay.
if ! grep -qE "$reads" compiler/ops/*.cpp; then
  echo "the pattern finds no read in compiler/ops: it is wrong" >&2
  exit 1
fi
found=$(echo "$files" | grep -v '^compiler/ops/' | xargs grep -nE "$reads")
if [ -n "$found" ]; then
  echo "attributes read by string outside compiler/ops; read them through a view (compiler/ops/OpViews.def):" >&2
  echo "$found" >&2
  exit 1
fi
echo "no attribute read by string in $count compiler sources outside compiler/ops"
