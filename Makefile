# Thin wrapper over Bazel; every build target installs the Debian packages first.
BAZEL ?= bazel

.PHONY: all deps build demo test clean

all: build

deps:
	bash tools/install_deps.sh host

build: deps
	$(BAZEL) build //...

demo: deps
	$(BAZEL) run //bundles:demo

test: deps
	$(BAZEL) test //...

clean:
	$(BAZEL) clean
