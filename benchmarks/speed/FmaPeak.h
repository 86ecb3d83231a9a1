//===- FmaPeak.h - Peak FP32 FMA throughput of one core --------*- C++ -*-===//
#ifndef KILN_BENCHMARKS_SPEED_FMAPEAK_H
#define KILN_BENCHMARKS_SPEED_FMAPEAK_H

#include <cstdint>

/// Runs `iterations` rounds of independent vector FMAs on one thread and
/// returns the number of floating-point operations done (2 per FMA lane).
/// `seed` keeps the compiler from folding the work away; the result is
/// written to `*sink`.
double runFmaPeak(int64_t iterations, float seed, float *sink);

#endif
