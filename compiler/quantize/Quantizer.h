//===- Quantizer.h - Post-training quantization to int8 --------*- C++ -*-===//
//
// A float model becomes an int8 one in three steps: a float bundle with
// observers (every quantization point is an extra output of the JIT'd float
// graph) runs over the calibration set; a calibrator turns what each point
// saw into its int8 parameters; and the float graph gets a QuantizeLinear ->
// DequantizeLinear pair at each point and int8 weights (QDQInsertion.h),
// which the default pipeline's fold-qdq makes int8 ops of. The int8 and
// float bundles then run on the held-out samples for the accuracy report.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_QUANTIZE_QUANTIZER_H
#define KILN_QUANTIZE_QUANTIZER_H

#include "compiler/graph/Graph.h"
#include "compiler/quantize/AccuracyReport.h"
#include "compiler/quantize/Calibrators.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln {

/// How far a long step of quantization is, for a progress display.
struct QuantizeProgress {
  /// "calibrating", "histograms", "bias correction", "accuracy"
  llvm::StringRef phase;
  size_t done = 0, total = 0;
};

struct QuantizeOptions {
  /// Directory of .npy samples (CalibrationSet.h); empty means no PTQ.
  std::string calibrationDir;
  CalibratorKind calibrator = CalibratorKind::MinMax;
  /// The percentile calibrator's P.
  double percentile = 99.99;
  /// Conv, Gemm and MatMul nodes that stay float (a layer that limits the
  /// model's accuracy), by node name.
  std::vector<std::string> keepFloat;
  /// Correct each Conv's and Gemm's bias for the mean shift its weight
  /// rounding causes, from the means of its input over the calibration set
  /// (QDQInsertion.h, WeightQuantization).
  bool biasCorrection = false;
  /// The graph's float inputs and outputs become int8 with their
  /// quantization points' parameters (makeIOInt8), as TFLite's converter
  /// makes them with inference_input_type=int8: a microcontroller feeds its
  /// sensor's integers in and reads int8 scores out, with no float at the
  /// edges. The accuracy report is the same: the int8 arithmetic is.
  bool int8IO = false;
  /// Called as each sample is done; the library never prints.
  std::function<void(const QuantizeProgress &)> progress;
};

struct QuantizedModel {
  /// The float model with QDQ pairs and int8 weights, before fold-qdq.
  std::unique_ptr<Graph> qdqGraph;
  AccuracyReport report;
};

/// Imports the float model afresh each time it is called.
using GraphImporter = llvm::function_ref<llvm::Expected<std::unique_ptr<Graph>>()>;

/// Calibrates the model `importGraph` gives and quantizes it (see the file
/// comment); errors name the calibration file or node at fault.
llvm::Expected<QuantizedModel> quantizeModel(GraphImporter importGraph,
                                             const QuantizeOptions &opts);

} // namespace kiln

#endif
