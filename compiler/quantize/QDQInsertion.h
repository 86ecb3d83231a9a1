//===- QDQInsertion.h - A float graph as a QDQ graph -----------*- C++ -*-===//
//
// Post-training quantization writes its result in the form quantized ONNX
// models have: a QuantizeLinear -> DequantizeLinear pair after every tensor
// the int8 graph holds, and weights as int8 constants behind a
// DequantizeLinear. fold-qdq then makes the int8 ops out of it exactly as it
// does for a model quantized elsewhere, and the same graph, written as ONNX,
// is what --save-qdq gives ONNX Runtime.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_QUANTIZE_QDQINSERTION_H
#define KILN_QUANTIZE_QDQINSERTION_H

#include "compiler/graph/Graph.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace kiln {

/// The passes that bring an imported float model to the form it is
/// quantized in: constants folded, BatchNorm in the weights, zero padding in
/// the Conv (so that one scale covers the folded weights, as on the device).
std::vector<std::string> quantizationPreparePipeline();

/// The float tensors that get their own int8 parameters, in graph order:
/// float graph inputs and node results, except results of ops that only
/// move values (they keep their input's parameters) and results whose only
/// use is a clamp the producer's int8 form fuses (Conv -> Relu). An error
/// if the graph is quantized already or has nothing to quantize.
llvm::Expected<std::vector<Value *>> quantizationPoints(const Graph &g);

/// Whether `n` is a Conv, Gemm or 2-D MatMul with constant f32 weights,
/// which insertQDQ quantizes per output channel.
bool hasQuantizableWeights(const Node &n);

/// How insertQDQ treats the weights.
struct WeightQuantization {
  /// Nodes whose weights stay float, so fold-qdq leaves them float between
  /// their input's DequantizeLinear and their result's QuantizeLinear.
  llvm::StringSet<> keepFloat;
  /// Bias correction: per Conv or Gemm node, the mean over the calibration
  /// set of each channel of its input (the weights' input-channel axis).
  /// The rounding of its weights shifts each output's mean by (Wq - W)
  /// times those means; its bias is corrected by as much.
  llvm::StringMap<std::vector<double>> inputChannelMeans;
};

/// A Conv or Gemm that bias correction applies to: the value it reads and
/// that value's channel axis, over which the means are taken.
struct BiasCorrectionInput {
  const Node *node;
  const Value *input;
  int64_t channelAxis;
};
std::vector<BiasCorrectionInput>
biasCorrectionInputs(const Graph &g, const llvm::StringSet<> &keepFloat);

/// Inserts QuantizeLinear -> DequantizeLinear with `activations[name]`
/// after each quantization point named there (all its uses read the
/// DequantizeLinear), and replaces the f32 constant weights of Conv, Gemm
/// and 2-D MatMul by int8 ones, symmetric per output channel (scale max|w| /
/// 127, values in [-127, 127]), behind a DequantizeLinear, as `weights`
/// says.
llvm::Error insertQDQ(Graph &g, const llvm::StringMap<QuantParams> &activations,
                      const WeightQuantization &weights);

/// Makes the float graph inputs and outputs of a QDQ graph int8 where they
/// are quantization points: an input read only by its QuantizeLinear takes
/// that QuantizeLinear's int8 type and is read by the DequantizeLinear
/// directly; an output that is DequantizeLinear(QuantizeLinear(y)) becomes
/// the QuantizeLinear's int8 result. fold-qdq then gives both their
/// parameters, which the bundle's descriptor carries. Others stay float.
void makeIOInt8(Graph &g);

} // namespace kiln

#endif
