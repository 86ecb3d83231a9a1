"""Same API as upstream rules_cc."""

load("@bazel_tools//tools/build_defs/cc:action_names.bzl", _ACTION_NAMES = "ACTION_NAMES")

ACTION_NAMES = _ACTION_NAMES
