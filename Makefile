# Thin wrapper over Bazel; every build target installs the Debian packages first.
BAZEL ?= bazel

# The cross configs of .bazelrc (README "Targets"): make test-aarch64, ...
CROSS_TESTS := test-aarch64 test-cortex-m3 test-cortex-m4 test-cortex-m7

.PHONY: all deps deps-cross build demo demo-cortex-m test $(CROSS_TESTS) footprint bench bench-ort \
	bench-device examples-bazel clean

all: build

deps:
	bash tools/install_deps.sh host

# Also the cross compilers and QEMU.
deps-cross:
	bash tools/install_deps.sh all

build: deps
	$(BAZEL) build //...

demo: deps
	$(BAZEL) run //bundles:demo

# The same program and model as firmware on the Cortex-M4 board, under QEMU.
demo-cortex-m: deps-cross
	@echo "kiln: the lenet5 demo as firmware on a Cortex-M4 board (QEMU mps2-an386)"
	$(BAZEL) run --config=cortex-m4 //bundles:demo

test: deps
	$(BAZEL) test //...

# Every test that can run on the target, under QEMU.
$(CROSS_TESTS): test-%: deps-cross
	$(BAZEL) test --config=$* //...

# docs/footprint.md: code, memory and stack of every model on every target.
footprint: deps-cross
	BAZEL="$(BAZEL)" benchmarks/footprint/footprint.py

# Single-thread speed of every model next to this core's FMA peak: a table of
# latency, GFLOP/s, % of peak, compile time, weights and scratch bytes.
bench: deps
	$(BAZEL) run //benchmarks/speed:speed_bench -- --benchmark_color=false

# The same against ONNX Runtime (one intra-op thread), alternating rounds.
bench-ort: deps
	BAZEL="$(BAZEL)" benchmarks/speed/compare_ort.sh 3

# Instructions per inference of the small and MLPerf Tiny models on the Cortex-M4 and
# Cortex-M7 boards; writes benchmarks/device/RESULTS.md.
bench-device: deps-cross
	BAZEL="$(BAZEL)" benchmarks/device/bench.py cortex-m4 cortex-m7

# examples/bazel_workspace, a workspace that uses kiln as a dependency: its demo
# on this machine and as Cortex-M4 firmware under QEMU. Its Bazel server is
# stopped after, as CI works in a fresh clone.
examples-bazel: deps-cross
	cd examples/bazel_workspace && $(BAZEL) run //:demo && $(BAZEL) run --config=cortex-m4 //:demo; \
	  status=$$?; $(BAZEL) shutdown; exit $$status

clean:
	$(BAZEL) clean
