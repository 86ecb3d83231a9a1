#include "compiler/kilnc/ProgressDisplay.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

namespace kiln::cli {

std::string formatDuration(double seconds) {
  long s = std::lround(seconds);
  return s >= 60 ? llvm::formatv("{0}m{1:2}s", s / 60, s % 60).str()
                 : llvm::formatv("{0}s", s).str();
}

void ProgressDisplay::update(const QuantizeProgress &p) {
  auto now = std::chrono::steady_clock::now();
  if (p.phase != phase) {
    phase = p.phase.str();
    phaseStart = now;
  }
  double elapsed = std::chrono::duration<double>(now - phaseStart).count();
  if (!terminal) {
    if (p.done == 0)
      os << llvm::formatv("kilnc: {0}: {1} samples\n", phase, p.total);
    else if (p.done == p.total)
      os << llvm::formatv("kilnc: {0}: done in {1}\n", phase,
                          formatDuration(elapsed));
    os.flush();
    return;
  }
  constexpr unsigned kWidth = 30;
  unsigned filled = p.total ? kWidth * p.done / p.total : kWidth;
  std::string eta = p.done && p.done < p.total
                        ? formatDuration(elapsed / p.done * (p.total - p.done)) + " left"
                        : formatDuration(elapsed);
  os << llvm::formatv("\r{0,-12} [{1}{2}] {3}/{4} {5,-10}", phase,
                      std::string(filled, '#'), std::string(kWidth - filled, '.'),
                      p.done, p.total, eta);
  if (p.done == p.total)
    os << "\n";
  os.flush();
}

} // namespace kiln::cli
