#include "compiler/quantize/AccuracyReport.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <limits>

namespace kiln {

void SqnrAccumulator::add(llvm::ArrayRef<float> exact,
                          llvm::ArrayRef<float> approx) {
  for (size_t i = 0; i < exact.size(); ++i) {
    double e = exact[i], d = e - approx[i];
    signal_ += e * e;
    noise_ += d * d;
  }
}

double SqnrAccumulator::decibels() const {
  if (noise_ == 0)
    return std::numeric_limits<double>::infinity();
  return 10 * std::log10(signal_ / noise_);
}

bool isClassVector(const TensorType &t) {
  unsigned longDims = 0;
  for (int64_t d : t.shape)
    longDims += d != 1;
  return longDims == 1 && t.numElements() >= 2;
}

size_t argmax(llvm::ArrayRef<float> values) {
  size_t best = 0;
  for (size_t i = 1; i < values.size(); ++i)
    if (values[i] > values[best])
      best = i;
  return best;
}

namespace {
llvm::json::Value decibels(double db) {
  return std::isfinite(db) ? llvm::json::Value(db) : llvm::json::Value(nullptr);
}
} // namespace

std::string accuracyReportJson(const AccuracyReport &report) {
  llvm::json::Array outputs, tensors;
  for (const OutputAccuracy &o : report.outputs) {
    llvm::json::Object entry{{"name", o.name}, {"sqnr_db", decibels(o.sqnrDb)}};
    if (o.top1Agreement)
      entry["top1_agreement"] = *o.top1Agreement;
    outputs.push_back(std::move(entry));
  }
  for (const TensorError &t : report.worstTensors)
    tensors.push_back(
        llvm::json::Object{{"tensor", t.tensor}, {"sqnr_db", decibels(t.sqnrDb)}});
  llvm::json::Object root{
      {"calibrator", calibratorName(report.calibrator)},
      {"calibration_samples", int64_t(report.calibrationSamples)},
      {"held_out_samples", int64_t(report.heldOutSamples)},
      {"outputs", std::move(outputs)},
      {"largest_error_tensors", std::move(tensors)},
      {"float_nodes", llvm::json::Array(report.floatNodes)},
      {"bias_correction", report.biasCorrection}};
  if (report.calibrator == CalibratorKind::Percentile)
    root["percentile"] = report.percentile;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::formatv("{0:2}", llvm::json::Value(std::move(root))) << "\n";
  return text;
}

} // namespace kiln
