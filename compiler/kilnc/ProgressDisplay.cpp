#include "compiler/kilnc/ProgressDisplay.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace kiln::cli {

namespace {

/// A phase shorter than this gets no plain lines between its start and end.
constexpr double kQuietSeconds = 10;

} // namespace

std::string formatDuration(double seconds) {
  long s = std::lround(seconds);
  return s >= 60 ? llvm::formatv("{0}m{1:2}s", s / 60, s % 60).str()
                 : llvm::formatv("{0}s", s).str();
}

void ProgressDisplay::update(llvm::StringRef newPhase, size_t done, size_t total) {
  auto now = std::chrono::steady_clock::now();
  if (newPhase != phase) {
    phase = newPhase.str();
    phaseStart = now;
    tenthsShown = 0;
  }
  double elapsed = std::chrono::duration<double>(now - phaseStart).count();
  std::string left = done && done < total
                         ? formatDuration(elapsed / done * (total - done)) + " left"
                         : formatDuration(elapsed);
  if (!terminal) {
    size_t tenths = total ? 10 * done / total : 10;
    if (done == 0)
      os << llvm::formatv("{0}: {1}: {2} {3}\n", tool, phase, total, unit);
    else if (done == total)
      os << llvm::formatv("{0}: {1}: done in {2}\n", tool, phase, formatDuration(elapsed));
    else if (tenths > tenthsShown && elapsed >= kQuietSeconds)
      os << llvm::formatv("{0}: {1}: {2}/{3} {4}, {5}\n", tool, phase, done, total, unit,
                          left);
    tenthsShown = std::max(tenthsShown, tenths);
    os.flush();
    return;
  }
  constexpr unsigned kWidth = 30;
  unsigned filled = total ? kWidth * done / total : kWidth;
  os << llvm::formatv("\r{0,-12} [{1}{2}] {3}/{4} {5,-10}", phase,
                      std::string(filled, '#'), std::string(kWidth - filled, '.'), done,
                      total, left);
  if (done == total)
    os << "\n";
  os.flush();
}

} // namespace kiln::cli
