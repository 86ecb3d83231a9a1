#!/usr/bin/env bash
# Installs what kiln needs from Debian's archive. Idempotent: only missing packages are fetched.
# Usage: tools/install_deps.sh [host|cross|oracle|suite|examples|browser|cache|all]   (default: host)
set -euo pipefail
set_name=${1:-host}

host_pkgs=(
  bazel-bootstrap bazel-skylib bazel-platforms bazel-rules-java
  llvm-19-dev llvm-19-tools clang-19 lld-19 libclang-rt-19-dev libzstd-dev zlib1g-dev libedit-dev libxml2-dev libffi-dev libncurses-dev
  libonnx-dev libonnx-testdata libprotobuf-dev protobuf-compiler
  libgtest-dev libgmock-dev libbenchmark-dev
  flatbuffers-compiler libflatbuffers-dev
  libgraphviz-dev
)
# The cross targets (targets/): compilers, C libraries, QEMU; python3 runs
# the footprint and on-device benchmark reports.
cross_pkgs=(
  gcc-aarch64-linux-gnu g++-aarch64-linux-gnu gcc-arm-none-eabi libnewlib-arm-none-eabi
  qemu-user qemu-system-arm python3
)
# The TFLite oracle: Arm NN's reference backend from Python. Needed only to
# regenerate tests/tflite/refs (tools/tflite_refs/generate.py), not to build or test.
# libarmnn-cpuref-backend22 is only a recommendation of python3-pyarmnn: name it.
# flatc writes the Python code that builds the single-op models (layers.py, ops.py).
oracle_pkgs=(
  python3-pyarmnn libarmnn-cpuref-backend22 libarmnntfliteparser22 python3-numpy python3-flatbuffers
  flatbuffers-compiler
)
# PyTorch and torchvision: needed only to regenerate the model suite
# (bundles/models/suite.py), not to build or test.
suite_pkgs=(python3-torch python3-torchvision python3-onnx python3-numpy libopenblas0-openmp)
# The CMake example project (examples/cmake).
examples_pkgs=(cmake)
# Headless Chromium for the test of kilnc --report's page
# (//tests/cli:report_browser_test, make test-report-browser): ~290 MB
# installed, so not part of host.
browser_pkgs=(chromium)
# The HTTP cache of the remote-cache test (make test-remote-cache): nginx's
# WebDAV module takes Bazel's PUTs; the test starts its own server.
cache_pkgs=(nginx curl)
case "$set_name" in
  host) pkgs=("${host_pkgs[@]}") ;;
  cross) pkgs=("${cross_pkgs[@]}") ;;
  oracle) pkgs=("${oracle_pkgs[@]}") ;;
  suite) pkgs=("${suite_pkgs[@]}") ;;
  examples) pkgs=("${examples_pkgs[@]}") ;;
  browser) pkgs=("${browser_pkgs[@]}") ;;
  cache) pkgs=("${cache_pkgs[@]}") ;;
  all) pkgs=("${host_pkgs[@]}" "${cross_pkgs[@]}") ;;   # not oracle or suite: CI needs neither
  *) echo "usage: $0 [host|cross|oracle|suite|examples|browser|cache|all]" >&2; exit 2 ;;
esac

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "kiln: installing ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
