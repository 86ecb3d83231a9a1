#!/bin/sh
# An op's attributes are read through its view (compiler/ops/OpViews.h),
# never by a string literal, in the records of compiler/ops as everywhere
# else: the views are checked against the op records (op_views_test), a
# string is not. Fails listing each read by string it finds.
set -u
reads='(\.|->)(get(Int|Ints|Float|Floats|String|IntAt|Activation)|hasAttr|getAttr)\("|getAttrs\(\)\.(find|count|lookup)\("'
# The control: the pattern matches each form of read in the fixture and
# nothing else there, so a pattern that finds nothing cannot pass.
fixture=tests/unit/ops/attr_reads_fixture.txt
tagged=$(grep -c '// read$' "$fixture")
matched=$(grep -E "$reads" "$fixture" | grep -c '// read$')
wrong=$(grep -E "$reads" "$fixture" | grep -v '// read$')
if [ "$tagged" -lt 10 ] || [ "$matched" -ne "$tagged" ] || [ -n "$wrong" ]; then
  echo "the pattern matches $matched of the $tagged reads in $fixture" >&2
  [ -n "$wrong" ] && echo "and lines that are not reads: $wrong" >&2
  exit 1
fi
files=$(find compiler -name '*.cpp' -o -name '*.h' | sort)
count=$(echo "$files" | wc -l)
# The data must be here: fewer files means the test reads nothing.
if [ "$count" -lt 200 ] || ! echo "$files" | grep -q '^compiler/ops/ShapeOps.cpp$'; then
  echo "only $count compiler sources found, or not compiler/ops" >&2
  exit 1
fi
found=$(echo "$files" | xargs grep -nE "$reads")
if [ -n "$found" ]; then
  echo "attributes read by string; read them through a view (compiler/ops/OpViews.def):" >&2
  echo "$found" >&2
  exit 1
fi
echo "no attribute read by string in $count compiler sources"
