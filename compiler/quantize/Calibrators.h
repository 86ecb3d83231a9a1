//===- Calibrators.h - From observed values to an int8 range ---*- C++ -*-===//
//
// A calibrator turns what calibration saw of one tensor into the real range
// its int8 encoding covers. min/max takes everything; percentile and entropy
// clip outliers, which spend the 256 steps on values that rarely occur.
// Both work on a histogram of the tensor over the calibration set, with
// bins over the range min/max found first:
//
//  - percentile P: over a histogram of the values (kHistogramBins bins on
//    [min, max]), the range is [lower edge of the first bin whose cumulative
//    count exceeds (1 - P/100) * N, upper edge of the first bin whose
//    cumulative count reaches P/100 * N], N the number of values.
//  - entropy (TensorRT's calibration, as ONNX Runtime has it): over a
//    histogram of |x| (kHistogramBins bins on [0, max |x|]) whose bin 0
//    takes bin 1's count (a ReLU's zeros would outweigh the rest), for each
//    i = kQuantizedBins .. kHistogramBins, the reference distribution P is
//    the first i bins with the counts beyond them added to bin i - 1; the
//    candidate Q merges the first i bins into kQuantizedBins groups of
//    i / kQuantizedBins bins (the last group also takes the i %
//    kQuantizedBins left over) and spreads each group's count evenly over
//    the group's bins where P is not zero. Both are smoothed (each zero
//    count becomes 1e-4, taken evenly from the others) and normalized; the i
//    of least KL(P || Q) gives the threshold t = i bin widths, and the range
//    is [max(min, -t), min(max, t)]. A tensor calibration saw fewer than
//    kHistogramBins values of (a model's class scores, say) keeps its
//    min/max range: so few values show no distribution to fit.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_QUANTIZE_CALIBRATORS_H
#define KILN_QUANTIZE_CALIBRATORS_H

#include "compiler/graph/Type.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace kiln {

enum class CalibratorKind { MinMax, Percentile, Entropy };

std::optional<CalibratorKind> parseCalibratorKind(llvm::StringRef name);
llvm::StringRef calibratorName(CalibratorKind kind);

inline constexpr unsigned kHistogramBins = 2048;
inline constexpr unsigned kQuantizedBins = 128;

/// A real interval [min, max].
struct ValueRange {
  float min = 0, max = 0;
};

/// Counts of values in equal bins over [lo, hi]; values outside go to the
/// first or last bin. A value x falls in bin floor((x - lo) * bins / (hi -
/// lo)) (in double), the last bin also taking hi itself.
class Histogram {
public:
  Histogram(double lo, double hi, unsigned bins = kHistogramBins);

  /// Counts `values`, or their magnitudes with `magnitudes`.
  void add(llvm::ArrayRef<float> values, bool magnitudes = false);

  llvm::ArrayRef<uint64_t> counts() const { return counts_; }
  /// The lower edge of bin `i` (the upper edge of bin i - 1).
  double edge(unsigned i) const;

private:
  double lo_, hi_, binsPerUnit_;
  std::vector<uint64_t> counts_;
};

/// The percentile range of a value histogram (see the file comment).
ValueRange percentileRange(const Histogram &values, double percentile);

/// The entropy threshold t of a magnitude histogram (see the file comment).
double entropyThreshold(const Histogram &magnitudes);

/// Asymmetric int8 parameters covering `range` and 0: scale (max - min) /
/// 255 (1 for an empty range), zero point round(-128 - min / scale)
/// clamped to [-128, 127].
QuantParams asymmetricInt8(ValueRange range);

} // namespace kiln

#endif
