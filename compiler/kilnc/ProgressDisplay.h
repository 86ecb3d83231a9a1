//===- ProgressDisplay.h - kilnc's progress output -------------*- C++ -*-===//
//
// Long steps (calibration) report progress through a callback; kilnc shows
// it. On a terminal a bar with an estimate of the time left is redrawn in
// place; elsewhere (CI logs, pipes) each phase prints a plain line when it
// starts and when it ends, so logs stay readable.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_KILNC_PROGRESSDISPLAY_H
#define KILN_KILNC_PROGRESSDISPLAY_H

#include "compiler/quantize/Quantizer.h"

#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <string>

namespace kiln::cli {

class ProgressDisplay {
public:
  ProgressDisplay(llvm::raw_ostream &os, bool terminal)
      : os(os), terminal(terminal) {}

  void update(const QuantizeProgress &p);

private:
  llvm::raw_ostream &os;
  bool terminal;
  std::string phase;
  std::chrono::steady_clock::time_point phaseStart;
};

/// "1m05s", "12s"
std::string formatDuration(double seconds);

} // namespace kiln::cli

#endif
