#!/usr/bin/env bash
# kilnc --report's page in a real browser: headless Chromium lays it out, a
# probe script added to a copy of the page measures every SVG, and the test
# checks that both pictures are there and drawn: the footprint bar, and the
# memory plan with a box for every buffer of the report's JSON. A screenshot
# of each page is kept in the test's outputs (bazel-testlogs/.../outputs.zip).
# Needs Debian's chromium (tools/install_deps.sh browser; make test-report-browser).
# Usage: report_browser_test.sh KILNC MODEL.onnx...
set -euo pipefail
kilnc=$1
shift
browser=$(command -v chromium || true)
if [ -z "$browser" ]; then
  echo "FAIL: no chromium on PATH: tools/install_deps.sh browser" >&2
  exit 1
fi
tmp=${TEST_TMPDIR:-$(mktemp -d)}
shots=${TEST_UNDECLARED_OUTPUTS_DIR:-$tmp}
# Chromium wants a writable home for its profile.
export HOME=$tmp
chrome() {
  "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$tmp/profile" "$@" 2>"$tmp/chromium.log"
}
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }

for model in "$@"; do
  name=$(basename "$model" .onnx)
  out="$tmp/$name"
  "$kilnc" "$model" -o "$out" --report >/dev/null
  page="$out/$name.report.html"
  json="$out/$name.report.json"
  [ -s "$page" ] && [ -s "$json" ] || { fail "$name: no report files"; continue; }
  if grep -q "<script" "$page"; then fail "$name: the page has a script"; fi
  buffers=$(grep -c '"first_layer"' "$json" || true)
  layers=$(grep -c '"producers"' "$json" || true)

  # The probe: for each SVG, its laid-out size, its content's size, and how
  # many of its rects (and Graphviz nodes) have an area.
  sed 's|</body>|<script>\
const lines = [];\
for (const svg of document.querySelectorAll("svg")) {\
  const box = svg.getBoundingClientRect(), content = svg.getBBox();\
  const painted = [...svg.querySelectorAll("rect, g.node")].filter(r => {\
    const b = r.getBBox(); return b.width > 0 \&\& b.height > 0; }).length;\
  lines.push(`probe ${svg.id} ${Math.round(box.width)} ${Math.round(box.height)} ${Math.round(content.width)} ${Math.round(content.height)} ${painted}`);\
}\
const pre = document.createElement("pre"); pre.textContent = lines.join("\\n");\
document.body.appendChild(pre);\
</script></body>|' "$page" >"$out/probe.html"
  chrome --dump-dom "file://$out/probe.html" >"$out/dom.html"
  for id in footprint-bar layer-graph memory-plan; do
    read -r w h cw ch painted < <(grep -o "probe $id [0-9 ]*" "$out/dom.html" | cut -d' ' -f3-) ||
      { fail "$name: no SVG '$id' in the rendered page"; continue; }
    echo "$name: $id ${w}x${h}, content ${cw}x${ch}, $painted rects with an area"
    [ "$w" -gt 0 ] && [ "$h" -gt 0 ] && [ "$cw" -gt 0 ] && [ "$ch" -gt 0 ] ||
      fail "$name: SVG '$id' is empty"
    # The footprint's four parts and four legend keys; the graph's box for
    # the inputs and one per layer; the plan's frame, peak band and one box
    # per buffer.
    case $id in
      footprint-bar) want=8 ;;
      layer-graph) want=$((layers + 1)) ;;
      memory-plan) want=$((buffers + 2)) ;;
    esac
    [ "$painted" -ge "$want" ] || fail "$name: SVG '$id' draws $painted rects, want $want"
  done

  chrome --window-size=1240,1600 --screenshot="$shots/$name.report.png" "file://$page" >/dev/null
  size=$(stat -c %s "$shots/$name.report.png" 2>/dev/null || echo 0)
  # A blank page of that size compresses to a few KB.
  [ "$size" -gt 30000 ] || fail "$name: screenshot of $size bytes"
done
[ "$failures" -eq 0 ] && echo "PASS"
exit "$failures"
