# Thin wrapper over Bazel; every build target installs the Debian packages first.
BAZEL ?= bazel

# The cross configs of .bazelrc (README "Targets"): make test-aarch64, ...
CROSS_TESTS := test-aarch64 test-cortex-m3 test-cortex-m4 test-cortex-m7

.PHONY: all deps deps-cross build demo demo-cortex-m test test-report-browser $(CROSS_TESTS) footprint bench bench-ort \
	bench-device bench-aarch64 fuzz test-asan test-ubsan test-sanitizers install examples examples-bazel \
	examples-install examples-cmake examples-make test-remote-cache clean

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

# kilnc --report's page in headless Chromium (a manual test: the browser is large).
test-report-browser: deps
	bash tools/install_deps.sh browser
	$(BAZEL) test //tests/cli:report_browser_test

# Every bundle built in one checkout is served, identical, to another checkout
# at another path through a shared HTTP cache (nginx on 127.0.0.1).
test-remote-cache: deps
	bash tools/install_deps.sh cache
	BAZEL="$(BAZEL)" tests/remote_cache/bundles_cached_across_checkouts.sh

# Every test that can run on the target, under QEMU.
$(CROSS_TESTS): test-%: deps-cross
	$(BAZEL) test --config=$* //...

# The unit and CLI tests and the fuzz regressions under gcc's ASan or UBSan,
# or both in clang's build of the fuzz targets (test-sanitizers, what CI runs);
# README "Reliability" says why not all of //...
SANITIZER_TESTS := //tests/unit/... //tests/cli/... //tests/fuzz:fuzz_replay_test

test-asan test-ubsan test-sanitizers: test-%: deps
	$(BAZEL) test --config=$* $(SANITIZER_TESTS)

# The libFuzzer targets of tests/fuzz, each for FUZZ_SECONDS (default 60);
# FUZZ_TARGETS picks some (README "Reliability").
fuzz: deps
	BAZEL="$(BAZEL)" tests/fuzz/run_fuzzers.sh

# docs/footprint.md: code, memory and stack of every model on every target.
footprint: deps-cross
	BAZEL="$(BAZEL)" benchmarks/footprint/footprint.py

# The benchmarks measure this machine: bundles for its own CPU (LLVM's name for
# it), named on the command line rather than the portable default x86-64-v3.
BENCH_CPU ?= $(shell /usr/lib/llvm-19/bin/llc --version | sed -n 's/^ *Host CPU: //p')

# Single-thread speed of every model next to this core's FMA peak: a table of
# latency, GFLOP/s, % of peak, compile time, weights and scratch bytes.
bench: deps
	$(BAZEL) run --//bundles:host_cpu=$(BENCH_CPU) //benchmarks/speed:speed_bench -- \
	  --benchmark_color=false

# The same against ONNX Runtime (one intra-op thread), alternating rounds.
bench-ort: deps
	BAZEL="$(BAZEL)" BENCH_CPU=$(BENCH_CPU) benchmarks/speed/compare_ort.sh 3

# Instructions per inference of the small and MLPerf Tiny models on the Cortex-M4 and
# Cortex-M7 boards; writes benchmarks/device/RESULTS.md.
bench-device: deps-cross
	BAZEL="$(BAZEL)" benchmarks/device/bench.py cortex-m4 cortex-m7

# The int8 models' instructions per inference on AArch64, generic and with
# SDOT (+dotprod), counted under qemu-aarch64.
bench-aarch64: deps-cross
	BAZEL="$(BAZEL)" benchmarks/aarch64/count_instructions.py

# kilnc, kiln.h and the CMake functions, for builds without Bazel (README "Use kiln in your project").
PREFIX ?= /usr/local
install: deps
	$(BAZEL) build //compiler/kilnc
	install -C -D -m 755 "$$($(BAZEL) info bazel-bin)/compiler/kilnc/kilnc" $(DESTDIR)$(PREFIX)/bin/kilnc
	install -C -D -m 644 runtime_min/kiln.h $(DESTDIR)$(PREFIX)/include/kiln.h
	install -C -D -m 644 -t $(DESTDIR)$(PREFIX)/lib/cmake/Kiln cmake/Kiln.cmake cmake/KilnConfig.cmake

# The projects of examples/, built and run as their users would: each on this
# machine and (but the plain Makefile) as Cortex-M4 firmware under QEMU. The
# CMake and Makefile ones use kiln installed in examples/out/kiln.
EXAMPLES_OUT := $(CURDIR)/examples/out
EXAMPLE_KILN := $(EXAMPLES_OUT)/kiln
QEMU_M4 := targets/qemu_run.sh mps2-an386
LENET5_IO := $(CURDIR)/bundles/models/lenet5.input.bin $(CURDIR)/bundles/models/lenet5.output.bin
CMAKE_EXAMPLE := cmake -S examples/cmake -DCMAKE_PREFIX_PATH=$(EXAMPLE_KILN) -B

examples: examples-bazel examples-cmake examples-make

# examples/bazel_workspace uses kiln as a dependency. Its Bazel server is
# stopped after, as CI works in a fresh clone.
examples-bazel: deps-cross
	cd examples/bazel_workspace && $(BAZEL) run //:demo && $(BAZEL) run --config=cortex-m4 //:demo; \
	  status=$$?; $(BAZEL) shutdown; exit $$status

examples-install:
	$(MAKE) install PREFIX=$(EXAMPLE_KILN)

examples-cmake: deps-cross examples-install
	bash tools/install_deps.sh examples
	$(CMAKE_EXAMPLE) $(EXAMPLES_OUT)/cmake-host
	cmake --build $(EXAMPLES_OUT)/cmake-host
	@# Without TARGET, kiln_add_bundle names the CPU (KILN_HOST_CPU); kilnc never picks this machine's.
	grep -rq -e '--mcpu' $(EXAMPLES_OUT)/cmake-host/CMakeFiles
	$(EXAMPLES_OUT)/cmake-host/demo $(EXAMPLES_OUT)/cmake-host/lenet5_kiln/lenet5.weights.bin $(LENET5_IO)
	$(CMAKE_EXAMPLE) $(EXAMPLES_OUT)/cmake-m4 -DCMAKE_TOOLCHAIN_FILE=$(CURDIR)/examples/cmake/cortex-m4.cmake
	cmake --build $(EXAMPLES_OUT)/cmake-m4
	$(QEMU_M4) $(EXAMPLES_OUT)/cmake-m4/demo $(EXAMPLES_OUT)/cmake-m4/lenet5_kiln/lenet5.weights.bin $(LENET5_IO)

examples-make: examples-install
	$(MAKE) -C examples/make KILN_PREFIX=$(EXAMPLE_KILN) OUT=$(EXAMPLES_OUT)/make run

clean:
	$(BAZEL) clean
