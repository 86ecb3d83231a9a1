"""Progress of a benchmark script's slow loop, on stderr (stdout stays the
report): on a terminal one line redrawn in place with the time left, as
kilnc's calibration bar does (compiler/kilnc/ProgressDisplay.h); in a log
(CI, a pipe) one plain line per step.

    progress = Progress("bench", total=len(steps))
    for step in steps:
        progress.start(step)      # "cortex-m4 lenet5"
        ...
        progress.note(result)     # a line that stays
    progress.finish()
"""

import sys
import time

# Flags for a `bazel run` of what is built already: only errors, so that
# Bazel's own lines do not break the progress line.
QUIET_BAZEL_RUN = ["--noshow_progress", "--ui_event_filters=-info"]


def duration(seconds):
    """1m05s, 12s"""
    s = round(seconds)
    return "%dm%02ds" % (s // 60, s % 60) if s >= 60 else "%ds" % s


class Progress:
    def __init__(self, tool, total, stream=sys.stderr):
        self.tool, self.total, self.stream = tool, total, stream
        self.terminal = stream.isatty()
        self.done, self.began = 0, time.monotonic()

    def start(self, what):
        """Step `what` starts; the steps before it are done."""
        elapsed = time.monotonic() - self.began
        left = (" %s left" % duration(elapsed / self.done * (self.total - self.done))
                if self.done else "")
        line = "%s: [%d/%d] %s%s" % (self.tool, self.done + 1, self.total, what, left)
        self.done += 1
        if self.terminal:
            self.stream.write("\r\033[K" + line)
        else:
            self.stream.write(line + "\n")
        self.stream.flush()

    def note(self, text):
        """A result line between the steps, kept on a terminal too."""
        self.stream.write(("\r\033[K" if self.terminal else "") + text + "\n")
        self.stream.flush()

    def finish(self):
        end = "\r\033[K" if self.terminal else ""
        self.stream.write("%s%s: %d steps in %s\n" % (
            end, self.tool, self.total, duration(time.monotonic() - self.began)))
        self.stream.flush()
