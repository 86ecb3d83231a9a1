//===- Int8VsFloat.cc - Host latency of int8 bundles next to their float twins //
//
// Issue 12's host table: each MLPerf Tiny int8 model and its float twin,
// compiled for the host CPU, timed on one thread in the same run. The two
// alternate round by round, so that load on the shared machine falls on
// both; the table gives each side's median over rounds and their ratio.
//
//   bazel run //benchmarks/speed:int8_vs_float -- [--rounds=15] [--min_time=0.05]
//       [--only=NAME]  (one pair, e.g. under perf record)
//
//===----------------------------------------------------------------------===//

#include "benchmarks/speed/Int8Pairs.h"

extern "C" {
#include "benchmarks/common/zero_inputs.h"
}

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

struct FreeDeleter {
  void operator()(uint8_t *p) const { std::free(p); }
};
using Region = std::unique_ptr<uint8_t, FreeDeleter>;

Region allocate(size_t size) {
  size_t rounded = (std::max<size_t>(size, 1) + KILN_ALIGNMENT - 1) / KILN_ALIGNMENT * KILN_ALIGNMENT;
  auto *p = static_cast<uint8_t *>(std::aligned_alloc(KILN_ALIGNMENT, rounded));
  std::memset(p, 0, rounded);
  return Region(p);
}

/// A bundle with its regions: weights linked in, zero inputs.
struct Loaded {
  const kiln_bundle *bundle;
  Region io, scratch;
  std::vector<double> roundSeconds; ///< per-run time of each round

  explicit Loaded(const kiln_bundle *b)
      : bundle(b), io(allocate(b->io_size)), scratch(allocate(b->scratch_size)) {
    kiln_zero_inputs(b, io.get());
  }
  void run() {
    if (bundle->run(bundle->embedded_weights, io.get(), scratch.get()) != KILN_OK) {
      std::fprintf(stderr, "int8_vs_float: %s failed\n", bundle->name);
      std::exit(1);
    }
  }
  /// Runs for at least `minTime` seconds; records the time per run.
  void timeRound(double minTime) {
    using Clock = std::chrono::steady_clock;
    auto start = Clock::now();
    long runs = 0;
    double elapsed = 0;
    do {
      run();
      ++runs;
      elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    } while (elapsed < minTime);
    roundSeconds.push_back(elapsed / runs);
  }
  double median() {
    std::sort(roundSeconds.begin(), roundSeconds.end());
    return roundSeconds[roundSeconds.size() / 2];
  }
};

} // namespace

int main(int argc, char **argv) {
  int rounds = 15;
  double minTime = 0.05;
  const char *only = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strncmp(argv[i], "--rounds=", 9))
      rounds = std::max(1, std::atoi(argv[i] + 9));
    else if (!std::strncmp(argv[i], "--min_time=", 11))
      minTime = std::atof(argv[i] + 11);
    else if (!std::strncmp(argv[i], "--only=", 7))
      only = argv[i] + 7;
    else {
      std::fprintf(stderr, "usage: int8_vs_float [--rounds=N] [--min_time=S] [--only=NAME]\n");
      return 2;
    }
  }
  std::printf("| model | int8 us | float us | float / int8 |\n|---|---:|---:|---:|\n");
  for (size_t p = 0; p < kNumInt8Pairs; ++p) {
    if (only && std::strcmp(only, kInt8Pairs[p].name) != 0)
      continue;
    Loaded q(kInt8Pairs[p].int8), f(kInt8Pairs[p].fp32);
    q.run();
    f.run();
    for (int r = 0; r < rounds; ++r) {
      q.timeRound(minTime);
      f.timeRound(minTime);
    }
    double tq = q.median(), tf = f.median();
    std::printf("| %s | %.1f | %.1f | %.2fx |\n", kInt8Pairs[p].name, tq * 1e6, tf * 1e6, tf / tq);
    std::fflush(stdout);
  }
  return 0;
}
