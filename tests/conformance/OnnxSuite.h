//===- OnnxSuite.h - ONNX's backend test data, read for kiln ---*- C++ -*-===//
//
// The one reader of ONNX's backend test data (Debian's libonnx-testdata) for
// every harness: the conformance runner (compiled bundles), the reference
// interpreter's test (//tests/unit/ops) and the importer's robustness test
// (//tests/unit/frontend). A case is a directory with model.onnx and
// test_data_set_N/{input,output}_K.pb; input_K is the K-th graph input that
// is not an initializer.
//
// Node tests feed data kiln needs constant (Reshape's shape, Slice's starts,
// a window's size, ...) as graph inputs. importCase gives such inputs their
// test data as constants (OnnxImportOptions::constantInputs) as the importer
// asks for them, so exactly the shape-deciding inputs are fixed and the rest
// stay run-time inputs.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_TESTS_CONFORMANCE_ONNXSUITE_H
#define KILN_TESTS_CONFORMANCE_ONNXSUITE_H

#include "compiler/graph/Graph.h"
#include "compiler/graph/Tensor.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace kiln {
namespace conformance {

/// Where Debian's libonnx-testdata puts the suites.
inline constexpr const char *kOnnxTestDataRoot =
    "/usr/share/libonnx-testdata/data";

/// The suites kiln runs: node, simple, pytorch-converted, pytorch-operator
/// ("real" holds only download links).
llvm::ArrayRef<const char *> onnxSuites();

/// Every case directory of `suite` under `root`, sorted; empty when the data
/// is not installed.
std::vector<std::string> listCases(llvm::StringRef suite,
                                   llvm::StringRef root = kOnnxTestDataRoot);
/// Every case of every suite, in onnxSuites() order.
std::vector<std::string> listAllCases(llvm::StringRef root = kOnnxTestDataRoot);

/// "node/test_abs" for ".../node/test_abs": a case's stable name.
std::string caseKey(llvm::StringRef caseDir);
/// caseKey with '_' for every character that is not a letter or a digit: a
/// GoogleTest name ("node_test_abs").
std::string caseTestName(llvm::StringRef caseDir);
/// The directory of the case named `key` under `root`.
std::string caseDir(llvm::StringRef key,
                    llvm::StringRef root = kOnnxTestDataRoot);

/// What the harnesses need from model.onnx without importing it.
struct ModelInfo {
  /// Graph inputs that are not initializers, in input_K order.
  std::vector<std::string> dataInputs;
  /// For each data input, the dim_param of each dimension ("" where the
  /// dimension is a number).
  std::vector<std::vector<std::string>> dimParams;
  /// The op type of every node, in graph order (Constant included).
  std::vector<std::string> opTypes;
  /// For every node result, the node's inputs: what a value depends on.
  std::map<std::string, std::vector<std::string>> producerInputs;
  int64_t opset = 0;
  /// "input 'x' is a sequence" for the first graph input or output that is
  /// not a tensor (kiln compiles tensors only); empty when all are.
  std::string nonTensor;
};
llvm::Expected<ModelInfo> readModelInfo(llvm::StringRef caseDir);

/// The test_data_set_N directories of a case, in N order.
std::vector<std::string> listDataSets(llvm::StringRef caseDir);

struct DataSet {
  std::vector<Tensor> inputs;
  std::vector<Tensor> outputs;
};
/// Reads input_K.pb and output_K.pb for K = 0, 1, ... of one data set.
/// Element types kiln lacks give an error saying so ("output_0.pb: ...
/// element type DOUBLE is not supported").
llvm::Expected<DataSet> readDataSet(llvm::StringRef dataSetDir);

/// Whether an error means that kiln lacks a feature (an op, an attribute
/// value, a dtype) rather than that something went wrong: kiln's messages
/// for those say "not supported", "unsupported" or "supports only".
bool isUnsupportedMessage(llvm::StringRef message);

/// A case imported for one data set.
struct ImportedCase {
  std::unique_ptr<Graph> graph;
  /// The data set's inputs for the graph's inputs, in graph-input order.
  std::vector<Tensor> inputs;
  /// Graph inputs given their test data as constants.
  std::vector<std::string> constantInputs;
};
/// Imports the case's model, making inputs the importer needs constant
/// constants holding `data`'s values (see the file comment): when the
/// importer needs a value constant, the data inputs it is computed from.
llvm::Expected<ImportedCase> importCase(llvm::StringRef caseDir,
                                        const ModelInfo &info,
                                        const DataSet &data);

/// The outcome of comparing one output with ONNX's expected tensor, with
/// ONNX's backend-test tolerances: floats match when |got - want| <= 1e-7 +
/// 1e-3 * |want| (NaN matches NaN, infinities match themselves), integers
/// and bools exactly.
struct Comparison {
  bool match = true;
  /// The largest |got - want| (0 for a type mismatch).
  double maxError = 0;
  /// Why it does not match: the type mismatch or the first bad element.
  std::string mismatch;
};
Comparison compareWithOnnx(const Tensor &got, const Tensor &want);

} // namespace conformance
} // namespace kiln

#endif
