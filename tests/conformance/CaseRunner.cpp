//===- CaseRunner.cpp - One ONNX test case through a compiled bundle ------===//

#include "tests/conformance/CaseRunner.h"

#include "tests/conformance/OnnxSuite.h"

#include "compiler/jit/BundleJit.h"
#include "compiler/pipeline/Pipeline.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstdio>

namespace kiln {
namespace conformance {
namespace {

CaseResult errorResult(llvm::Error e) {
  std::string msg = llvm::toString(std::move(e));
  Status s = isUnsupportedMessage(msg) ? Status::Unsupported
                                       : Status::CompileError;
  return {s, std::move(msg), 0};
}

} // namespace

std::string formatError(double e) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", e);
  return buf;
}

llvm::StringRef statusName(Status s) {
  switch (s) {
  case Status::Pass: return "pass";
  case Status::Fail: return "fail";
  case Status::CompileError: return "compile error";
  case Status::Unsupported: return "unsupported";
  }
  return "?";
}

llvm::StringRef stageName(Stage s) {
  switch (s) {
  case Stage::Load: return "loading";
  case Stage::Compile: return "compiling";
  case Stage::Run: return "running";
  }
  return "?";
}

CaseResult runCase(llvm::StringRef dir,
                   llvm::function_ref<void(Stage)> onStage) {
  onStage(Stage::Load);
  auto info = readModelInfo(dir);
  if (!info)
    return errorResult(info.takeError());
  if (!info->nonTensor.empty())
    return {Status::Unsupported,
            info->nonTensor + "; kiln supports only tensors", 0};
  std::vector<std::string> sets = listDataSets(dir);
  if (sets.empty())
    return {Status::CompileError, "the case has no test data set", 0};

  CaseResult result;
  for (size_t s = 0; s < sets.size(); ++s) {
    onStage(Stage::Load);
    auto data = readDataSet(sets[s]);
    if (!data)
      return errorResult(data.takeError());
    // Inputs that the importer needs constant take this data set's values,
    // so each data set gets its own compilation.
    onStage(Stage::Compile);
    auto imported = importCase(dir, *info, *data);
    if (!imported)
      return errorResult(imported.takeError());
    Graph &g = *imported->graph;
    if (g.getOutputs().size() != data->outputs.size())
      return {Status::CompileError,
              llvm::formatv("the graph has {0} outputs, the test data {1}",
                            g.getOutputs().size(), data->outputs.size()),
              0};
    std::vector<std::string> outputNames;
    for (const GraphOutput &o : g.getOutputs())
      outputNames.push_back(o.name);
    if (auto err = runPipeline(g, defaultPipeline(), PipelineOptions{}))
      return errorResult(std::move(err));
    auto bundle = JitBundle::compile(g, "conformance");
    if (!bundle)
      return errorResult(bundle.takeError());

    // fold-qdq gives an int8 or uint8 input that only DequantizeLinear reads
    // that quantization (for the bundle's descriptor); the test data's raw
    // integers are those quantized values.
    for (size_t k = 0; k < imported->inputs.size() && k < g.getInputs().size(); ++k) {
      Tensor &in = imported->inputs[k];
      const TensorType &t = g.getInputs()[k]->getType();
      if (t.quant.isQuantized() && !in.getType().quant.isQuantized() &&
          TensorType(t.dtype, t.shape) == in.getType())
        in = Tensor(t, in.raw());
    }

    onStage(Stage::Run);
    auto outputs = (*bundle)->run(imported->inputs);
    if (!outputs)
      return {Status::Fail, "run failed: " + llvm::toString(outputs.takeError()),
              0};
    for (size_t k = 0; k < outputs->size(); ++k) {
      Comparison c = compareWithOnnx((*outputs)[k], data->outputs[k]);
      result.maxError = std::max(result.maxError, c.maxError);
      if (!c.match && result.status == Status::Pass) {
        result.status = Status::Fail;
        result.detail = llvm::formatv("data set {0}, output '{1}': {2}", s,
                                      outputNames[k], c.mismatch);
      }
    }
  }
  if (result.status == Status::Fail)
    result.detail += " (max error " + formatError(result.maxError) + ")";
  return result;
}

} // namespace conformance
} // namespace kiln
