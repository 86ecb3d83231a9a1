//===- OnnxTestData.h - ONNX backend test cases as kiln graphs -*- C++ -*-===//
//
// Test-only reader for ONNX's backend test data (libonnx-testdata): each case
// is a directory with model.onnx and test_data_set_0/{input,output}_N.pb.
// It builds the model's nodes into a kiln Graph by hand, independently of the
// real importer, so the ops' reference semantics can be checked against
// ONNX's recorded outputs.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_UNIT_OPS_ONNXTESTDATA_H
#define KILN_TESTS_UNIT_OPS_ONNXTESTDATA_H

#include "compiler/graph/Graph.h"
#include "compiler/graph/Tensor.h"

#include "llvm/Support/Error.h"

#include "onnx/onnx_pb.h"

#include <memory>
#include <string>
#include <vector>

namespace kiln {
namespace testing {

/// Where Debian's libonnx-testdata puts the cases.
inline const char *const kOnnxTestDataRoot = "/usr/share/libonnx-testdata/data";

/// A TensorProto as a kiln Tensor (raw_data or the typed *_data fields).
/// Errors for dtypes kiln has no DType for.
llvm::Expected<Tensor> tensorFromProto(const onnx::TensorProto &proto);

/// One backend test case, ready to run: either `skipReason` says why kiln's
/// IR cannot express it, or `graph` holds it with its data.
struct OnnxCase {
  std::string skipReason;
  std::unique_ptr<Graph> graph;
  /// In the graph's input order.
  std::vector<Tensor> inputs;
  /// ONNX's recorded results, in the graph's output order.
  std::vector<Tensor> expected;
  /// The ONNX op types of the case's nodes, e.g. "Conv".
  std::vector<std::string> opTypes;
};

/// Reads the case in `dir`. Forms kiln's normalized IR does not have (ops it
/// lacks, older-opset attributes, non-constant attribute inputs, dtypes it
/// has no DType for, outputs it does not produce) give a skip reason; a node
/// that kiln's type rules reject gives the rule's Error.
///
/// Where ONNX moved an attribute to an input (Clip min/max, Pad pads/value,
/// Reshape shape, Squeeze/Unsqueeze axes) the input's data, known from an
/// initializer, a Constant node or the test inputs, becomes the attribute,
/// as kiln's importer does.
llvm::Expected<OnnxCase> loadOnnxCase(const std::string &dir);

/// Every case directory under `suite` (e.g. "node") of kOnnxTestDataRoot,
/// sorted; empty when the data is not installed.
std::vector<std::string> listOnnxCases(const std::string &suite);

} // namespace testing
} // namespace kiln

#endif
