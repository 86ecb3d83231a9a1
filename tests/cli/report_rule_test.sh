#!/usr/bin/env bash
# kiln_bundle(report = True): the compile step's outputs include the report,
# whole: the page with its memory-plan picture, the JSON with the bundle's
# layers. Usage: report_rule_test.sh OUTPUT...
set -euo pipefail
html="" json=""
for f in "$@"; do
  case "$f" in
    *.report.html) html=$f ;;
    *.report.json) json=$f ;;
  esac
done
[ -n "$html" ] && [ -n "$json" ] || { echo "FAIL: no report among the outputs: $*" >&2; exit 1; }
grep -q '<svg id="memory-plan"' "$html" || { echo "FAIL: $html has no memory plan" >&2; exit 1; }
grep -q '"bundle": "lenet5_report"' "$json" || { echo "FAIL: $json is not lenet5_report's" >&2; exit 1; }
grep -q '"op": "Conv"' "$json" || { echo "FAIL: $json has no Conv layer" >&2; exit 1; }
echo PASS
