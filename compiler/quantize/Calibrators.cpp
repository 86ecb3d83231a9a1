#include "compiler/quantize/Calibrators.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace kiln {

std::optional<CalibratorKind> parseCalibratorKind(llvm::StringRef name) {
  for (CalibratorKind k : {CalibratorKind::MinMax, CalibratorKind::Percentile,
                           CalibratorKind::Entropy})
    if (name == calibratorName(k))
      return k;
  return std::nullopt;
}

llvm::StringRef calibratorName(CalibratorKind kind) {
  switch (kind) {
  case CalibratorKind::MinMax: return "minmax";
  case CalibratorKind::Percentile: return "percentile";
  case CalibratorKind::Entropy: return "entropy";
  }
  return "";
}

Histogram::Histogram(double lo, double hi, unsigned bins)
    : lo_(lo), hi_(hi), binsPerUnit_(hi > lo ? bins / (hi - lo) : 0),
      counts_(bins, 0) {}

void Histogram::add(llvm::ArrayRef<float> values, bool magnitudes) {
  const double last = counts_.size() - 1;
  for (float v : values) {
    double x = magnitudes ? std::fabs(double(v)) : double(v);
    double bin = std::floor((x - lo_) * binsPerUnit_);
    ++counts_[size_t(std::clamp(bin, 0.0, last))];
  }
}

double Histogram::edge(unsigned i) const {
  return i == counts_.size() ? hi_ : lo_ + (hi_ - lo_) * i / counts_.size();
}

ValueRange percentileRange(const Histogram &values, double percentile) {
  llvm::ArrayRef<uint64_t> h = values.counts();
  double total = 0;
  for (uint64_t c : h)
    total += c;
  double below = (1 - percentile / 100) * total, upTo = percentile / 100 * total;
  ValueRange r{float(values.edge(0)), float(values.edge(h.size()))};
  bool lowFound = false;
  double cumulative = 0;
  for (unsigned b = 0; b < h.size(); ++b) {
    cumulative += h[b];
    if (!lowFound && cumulative > below) {
      r.min = values.edge(b);
      lowFound = true;
    }
    if (cumulative >= upTo) {
      r.max = values.edge(b + 1);
      break;
    }
  }
  return r;
}

namespace {

/// Each zero of `counts` becomes kEpsilon, taken evenly from the others;
/// then normalized to sum 1. Empty when all are zero.
std::vector<double> smoothedDistribution(llvm::ArrayRef<double> counts) {
  constexpr double kEpsilon = 1e-4;
  size_t zeros = llvm::count(counts, 0.0);
  if (zeros == counts.size())
    return {};
  double taken = kEpsilon * zeros / (counts.size() - zeros);
  std::vector<double> p(counts.begin(), counts.end());
  double sum = 0;
  for (double &x : p) {
    x += x == 0 ? kEpsilon : -taken;
    sum += x;
  }
  for (double &x : p)
    x /= sum;
  return p;
}

double klDivergence(llvm::ArrayRef<double> p, llvm::ArrayRef<double> q) {
  double kl = 0;
  for (size_t j = 0; j < p.size(); ++j)
    if (p[j] > 0)
      kl += p[j] * std::log(p[j] / q[j]);
  return kl;
}

} // namespace

double entropyThreshold(const Histogram &magnitudes) {
  // Bin 0 counts as bin 1: the zeros of a ReLU's result would otherwise
  // outweigh the shape of the rest (NVIDIA's pytorch-quantization does the
  // same).
  std::vector<uint64_t> h(magnitudes.counts().begin(), magnitudes.counts().end());
  h[0] = h[1];
  unsigned bins = h.size();
  double bestKL = std::numeric_limits<double>::infinity();
  unsigned best = bins;
  std::vector<double> p, q;
  for (unsigned i = kQuantizedBins; i <= bins; ++i) {
    p.assign(h.begin(), h.begin() + i);
    for (unsigned j = i; j < bins; ++j)
      p[i - 1] += h[j];
    q.assign(i, 0);
    unsigned merged = i / kQuantizedBins;
    for (unsigned g = 0; g < kQuantizedBins; ++g) {
      unsigned start = g * merged,
               end = g + 1 == kQuantizedBins ? i : start + merged;
      double total = 0;
      unsigned nonZero = 0;
      for (unsigned j = start; j < end; ++j) {
        total += h[j];
        nonZero += p[j] != 0;
      }
      for (unsigned j = start; j < end; ++j)
        if (p[j] != 0)
          q[j] = total / nonZero;
    }
    std::vector<double> ps = smoothedDistribution(p),
                        qs = smoothedDistribution(q);
    if (ps.empty() || qs.empty())
      continue;
    double kl = klDivergence(ps, qs);
    if (kl < bestKL) {
      bestKL = kl;
      best = i;
    }
  }
  return magnitudes.edge(best);
}

QuantParams asymmetricInt8(ValueRange range) {
  double lo = std::min<double>(range.min, 0), hi = std::max<double>(range.max, 0);
  float scale = hi > lo ? float((hi - lo) / 255) : 1.0f;
  double zp = std::nearbyint(-128 - lo / scale);
  QuantParams q;
  q.scales.push_back(scale);
  q.zeroPoints.push_back(int32_t(std::clamp(zp, -128.0, 127.0)));
  return q;
}

} // namespace kiln
