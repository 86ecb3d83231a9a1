#!/bin/sh
echo "remote_coverage_tools is a local stub: bazel coverage is not available offline" >&2
exit 1
