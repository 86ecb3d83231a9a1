//===- AccuracyReport.h - How far int8 is from float -----------*- C++ -*-===//
//
// What quantization cost, measured on the calibration samples held out from
// calibration (isHeldOut): per output, the SQNR of the int8 bundle's result
// against the float bundle's, and for a class vector how often both pick the
// same class; per quantized tensor, the SQNR of its own int8 encoding (its
// rounding and clipping applied to its float value), which names the layers
// whose ranges limit the model.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_QUANTIZE_ACCURACYREPORT_H
#define KILN_QUANTIZE_ACCURACYREPORT_H

#include "compiler/graph/Tensor.h"
#include "compiler/quantize/Calibrators.h"

#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// Signal over noise, in dB, of `approx` as `exact`, summed over tensor pairs;
/// +infinity when they are equal.
class SqnrAccumulator {
public:
  void add(llvm::ArrayRef<float> exact, llvm::ArrayRef<float> approx);
  double decibels() const;

private:
  double signal_ = 0, noise_ = 0;
};

struct OutputAccuracy {
  std::string name;
  double sqnrDb = 0;
  /// The fraction of samples whose int8 and float results have the same
  /// largest element; for outputs that are a vector of classes (one
  /// dimension other than 1, of at least 2) only.
  std::optional<double> top1Agreement;
};

struct TensorError {
  std::string tensor;
  double sqnrDb = 0;
};

struct AccuracyReport {
  CalibratorKind calibrator = CalibratorKind::MinMax;
  /// The percentile calibrator's P.
  double percentile = 0;
  /// Whether the biases were corrected (QuantizeOptions::biasCorrection).
  bool biasCorrection = false;
  size_t calibrationSamples = 0, heldOutSamples = 0;
  std::vector<OutputAccuracy> outputs;
  /// The quantized tensors of least SQNR, worst first (at most
  /// kReportedTensors).
  std::vector<TensorError> worstTensors;
  /// The layers kept in float (QuantizeOptions::keepFloat).
  std::vector<std::string> floatNodes;
};

inline constexpr size_t kReportedTensors = 5;

/// Whether `t` is a vector of classes (see OutputAccuracy::top1Agreement).
bool isClassVector(const TensorType &t);

/// The index of the largest element of `values` (the first of equals).
size_t argmax(llvm::ArrayRef<float> values);

/// The report as JSON (an SQNR of +infinity, an exact result, as null).
std::string accuracyReportJson(const AccuracyReport &report);

} // namespace kiln

#endif
