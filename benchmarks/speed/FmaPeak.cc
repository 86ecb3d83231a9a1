//===- FmaPeak.cc - Peak FP32 FMA throughput of one core ------------------===//
//
// Built with -O3 -march=native -ffp-contract=fast: acc = acc * b + a becomes
// one FMA on the widest vectors the CPU has. There are enough independent
// accumulators to cover FMA latency times the number of FMA pipes on current
// cores (4 cycles x 2 pipes), and few enough to stay in registers (32 with
// AVX-512, 16 with AVX2).
//
//===----------------------------------------------------------------------===//

#include "benchmarks/speed/FmaPeak.h"

namespace {
#ifdef __AVX512F__
constexpr int kBytes = 64, kAccumulators = 24;
#else
constexpr int kBytes = 32, kAccumulators = 12;
#endif
constexpr int kLanes = kBytes / 4;
typedef float Vec __attribute__((vector_size(kBytes)));
} // namespace

double runFmaPeak(int64_t iterations, float seed, float *sink) {
  Vec a, b, acc[kAccumulators];
  for (int l = 0; l < kLanes; ++l) {
    a[l] = seed * 1e-3f;
    b[l] = 0.999f;
  }
  for (int i = 0; i < kAccumulators; ++i)
    acc[i] = a * static_cast<float>(i + 1);
  for (int64_t it = 0; it < iterations; ++it) {
#pragma GCC unroll 24
    for (int i = 0; i < kAccumulators; ++i)
      acc[i] = acc[i] * b + a;
  }
  Vec s = acc[0];
  for (int i = 1; i < kAccumulators; ++i)
    s += acc[i];
  *sink = s[0];
  return static_cast<double>(iterations) * kAccumulators * kLanes * 2;
}
