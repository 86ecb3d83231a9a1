"""The kilnc that kiln_bundle runs (exec configuration), as an output group.

    bazel build --aspects=//tests/remote_cache:kilnc_tool.bzl%kilnc_tool \
        --output_groups=kilnc TARGETS

builds that kilnc and none of the bundles, so the remote-cache test can take
the compiler from the local disk cache and leave every kilnc action to the
remote cache.
"""

def _kilnc_tool_impl(target, ctx):
    kilnc = getattr(ctx.rule.attr, "_kilnc", None)
    return [OutputGroupInfo(kilnc = kilnc.files if kilnc else depset())]

kilnc_tool = aspect(implementation = _kilnc_tool_impl)
