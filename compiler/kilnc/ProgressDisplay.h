//===- ProgressDisplay.h - Progress of a long step on the console -*- C++ -*-===//
//
// Long steps (kilnc's calibration, the conformance runner's cases) report
// progress as a phase and a count done of a total; ProgressDisplay shows it.
// On a terminal a bar with an estimate of the time left is redrawn in place;
// elsewhere (CI logs, pipes) each phase prints a plain line when it starts,
// at every tenth of the way for long phases, and when it ends, so logs stay
// readable.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_KILNC_PROGRESSDISPLAY_H
#define KILN_KILNC_PROGRESSDISPLAY_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <string>

namespace kiln::cli {

class ProgressDisplay {
public:
  /// Plain lines start with "`tool`: " and count `unit` ("samples").
  ProgressDisplay(llvm::raw_ostream &os, bool terminal, llvm::StringRef tool,
                  llvm::StringRef unit)
      : os(os), terminal(terminal), tool(tool.str()), unit(unit.str()) {}

  /// `done` of `total` of `phase`; a new phase name starts a new phase.
  void update(llvm::StringRef phase, size_t done, size_t total);

private:
  llvm::raw_ostream &os;
  bool terminal;
  std::string tool, unit, phase;
  std::chrono::steady_clock::time_point phaseStart;
  /// Tenths of the phase already printed as plain lines.
  size_t tenthsShown = 0;
};

/// "1m05s", "12s"
std::string formatDuration(double seconds);

} // namespace kiln::cli

#endif
