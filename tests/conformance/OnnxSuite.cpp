//===- OnnxSuite.cpp - ONNX's backend test data, read for kiln ------------===//

#include "tests/conformance/OnnxSuite.h"

#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/graph/Half.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include "onnx/onnx_pb.h"

#include <cmath>
#include <limits>
#include <set>

namespace kiln {
namespace conformance {
namespace {

llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

std::vector<std::string> sortedSubdirs(llvm::StringRef dir,
                                       llvm::StringRef mustContain) {
  std::vector<std::string> out;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec))
    if (llvm::sys::fs::exists(it->path() + "/" + mustContain))
      out.push_back(it->path());
  llvm::sort(out);
  return out;
}

/// "element [1,0,2]": the multi-index of flat element `i`.
std::string elementName(llvm::ArrayRef<int64_t> shape, int64_t i) {
  Shape index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] ? i % shape[d] : 0;
    i = shape[d] ? i / shape[d] : 0;
  }
  return "element " + shapeStr(index);
}

double elementAsDouble(const Tensor &t, int64_t i) {
  if (t.getDType() == DType::F16)
    return halfToFloat(t.data<uint16_t>()[i]);
  return t.getAsDouble(i);
}

/// The positions in info.dataInputs of the data inputs `value` is
/// computed from (itself, if it is one).
std::vector<size_t> dataInputsBehind(const ModelInfo &info,
                                     const std::string &value) {
  std::vector<size_t> found;
  std::set<std::string> seen;
  std::vector<std::string> work{value};
  while (!work.empty()) {
    std::string v = std::move(work.back());
    work.pop_back();
    if (v.empty() || !seen.insert(v).second)
      continue;
    auto pos = llvm::find(info.dataInputs, v);
    if (pos != info.dataInputs.end())
      found.push_back(pos - info.dataInputs.begin());
    auto producer = info.producerInputs.find(v);
    if (producer != info.producerInputs.end())
      work.insert(work.end(), producer->second.begin(), producer->second.end());
  }
  llvm::sort(found);
  return found;
}

} // namespace

llvm::ArrayRef<const char *> onnxSuites() {
  static const char *const suites[] = {"node", "simple", "pytorch-converted",
                                       "pytorch-operator"};
  return suites;
}

std::vector<std::string> listCases(llvm::StringRef suite,
                                   llvm::StringRef root) {
  return sortedSubdirs((root + "/" + suite).str(), "model.onnx");
}

std::vector<std::string> listAllCases(llvm::StringRef root) {
  std::vector<std::string> all;
  for (const char *suite : onnxSuites())
    for (std::string &dir : listCases(suite, root))
      all.push_back(std::move(dir));
  return all;
}

std::string caseKey(llvm::StringRef dir) {
  llvm::StringRef name = llvm::sys::path::filename(dir);
  llvm::StringRef suite =
      llvm::sys::path::filename(llvm::sys::path::parent_path(dir));
  return (suite + "/" + name).str();
}

std::string caseTestName(llvm::StringRef dir) {
  std::string name = caseKey(dir);
  for (char &c : name)
    if (!llvm::isAlnum(c))
      c = '_';
  return name;
}

std::string caseDir(llvm::StringRef key, llvm::StringRef root) {
  return (root + "/" + key).str();
}

llvm::Expected<ModelInfo> readModelInfo(llvm::StringRef dir) {
  std::string path = (dir + "/model.onnx").str();
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  onnx::ModelProto model;
  if (!buf || !model.ParseFromArray((*buf)->getBufferStart(),
                                    (*buf)->getBufferSize()))
    return fail("cannot read " + path);
  ModelInfo info;
  std::set<std::string> initializers;
  for (const onnx::TensorProto &t : model.graph().initializer())
    initializers.insert(t.name());
  for (const onnx::ValueInfoProto &vi : model.graph().input()) {
    if (initializers.count(vi.name()))
      continue;
    info.dataInputs.push_back(vi.name());
    std::vector<std::string> &params = info.dimParams.emplace_back();
    if (vi.type().has_tensor_type() && vi.type().tensor_type().has_shape())
      for (const auto &d : vi.type().tensor_type().shape().dim())
        params.push_back(d.has_dim_param() ? d.dim_param() : "");
  }
  auto checkTensor = [&](const onnx::ValueInfoProto &vi, const char *what) {
    if (!info.nonTensor.empty() || vi.type().has_tensor_type())
      return;
    const onnx::TypeProto &t = vi.type();
    const char *kind = t.has_sequence_type() ? "a sequence"
                       : t.has_optional_type() ? "an optional"
                       : t.has_map_type()      ? "a map"
                                               : "not a tensor";
    info.nonTensor = llvm::formatv("{0} '{1}' is {2}", what, vi.name(), kind);
  };
  for (const onnx::ValueInfoProto &vi : model.graph().input())
    checkTensor(vi, "input");
  for (const onnx::ValueInfoProto &vi : model.graph().output())
    checkTensor(vi, "output");
  for (const onnx::NodeProto &n : model.graph().node()) {
    info.opTypes.push_back(n.op_type());
    for (const std::string &out : n.output())
      info.producerInputs[out].assign(n.input().begin(), n.input().end());
  }
  for (const onnx::OperatorSetIdProto &id : model.opset_import())
    if (id.domain().empty() || id.domain() == "ai.onnx")
      info.opset = id.version();
  return info;
}

std::vector<std::string> listDataSets(llvm::StringRef dir) {
  std::vector<std::string> sets;
  for (int n = 0;; ++n) {
    std::string set = llvm::formatv("{0}/test_data_set_{1}", dir, n).str();
    if (!llvm::sys::fs::is_directory(set))
      return sets;
    sets.push_back(std::move(set));
  }
}

llvm::Expected<DataSet> readDataSet(llvm::StringRef dir) {
  DataSet data;
  for (const char *kind : {"input", "output"}) {
    std::vector<Tensor> &into = llvm::StringRef(kind) == "input"
                                    ? data.inputs
                                    : data.outputs;
    for (int k = 0;; ++k) {
      std::string path = llvm::formatv("{0}/{1}_{2}.pb", dir, kind, k).str();
      if (!llvm::sys::fs::exists(path))
        break;
      auto t = readTensorProtoFile(path);
      if (!t) {
        // The message starts with the path; the file name is enough.
        std::string msg = llvm::toString(t.takeError());
        llvm::StringRef rest(msg);
        rest.consume_front(dir);
        rest.consume_front("/");
        return fail(rest);
      }
      into.push_back(std::move(*t));
    }
  }
  return data;
}

bool isUnsupportedMessage(llvm::StringRef message) {
  return message.contains("not supported") || message.contains("unsupported") ||
         message.contains("supports only");
}

llvm::Expected<ImportedCase> importCase(llvm::StringRef dir,
                                        const ModelInfo &info,
                                        const DataSet &data) {
  std::string model = (dir + "/model.onnx").str();
  OnnxImportOptions opts;
  // Symbolic dimensions take the test data's sizes, as a user binds them
  // with `kilnc --dim NAME=VALUE`.
  for (size_t k = 0; k < info.dimParams.size() && k < data.inputs.size(); ++k)
    for (size_t d = 0; d < info.dimParams[k].size(); ++d)
      if (!info.dimParams[k][d].empty() &&
          d < data.inputs[k].getShape().size())
        opts.dimBindings.emplace(info.dimParams[k][d],
                                 data.inputs[k].getShape()[d]);
  ImportedCase result;
  for (;;) {
    auto g = importOnnxFile(model, opts);
    if (g) {
      result.graph = std::move(*g);
      break;
    }
    // The data inputs a value the importer needs constant is computed from
    // get their test data; anything else ends the import.
    std::vector<size_t> fix;
    llvm::Error rest = llvm::handleErrors(
        g.takeError(),
        [&](std::unique_ptr<NonConstantInputError> e) -> llvm::Error {
          for (size_t k : dataInputsBehind(info, e->getValueName()))
            if (k < data.inputs.size() &&
                !opts.constantInputs.count(info.dataInputs[k]))
              fix.push_back(k);
          if (fix.empty())
            return llvm::Error(std::move(e));
          return llvm::Error::success();
        });
    if (rest)
      return std::move(rest);
    for (size_t k : fix) {
      opts.constantInputs.emplace(info.dataInputs[k], data.inputs[k]);
      result.constantInputs.push_back(info.dataInputs[k]);
    }
  }
  for (const Value *v : result.graph->getInputs()) {
    auto pos = llvm::find(info.dataInputs, v->getName());
    size_t k = pos - info.dataInputs.begin();
    if (pos == info.dataInputs.end() || k >= data.inputs.size())
      return fail("the test data has no value for graph input '" +
                  v->getName() + "'");
    result.inputs.push_back(data.inputs[k]);
  }
  return result;
}

Comparison compareWithOnnx(const Tensor &got, const Tensor &want) {
  Comparison c;
  if (got.getType() != want.getType()) {
    c.match = false;
    c.mismatch = "got " + got.getType().str() + ", expected " +
                 want.getType().str();
    return c;
  }
  bool isFloat = got.getDType() == DType::F32 || got.getDType() == DType::F16 ||
                 got.getDType() == DType::F64;
  int64_t bad = 0, firstBad = -1;
  for (int64_t i = 0, e = got.numElements(); i < e; ++i) {
    bool ok;
    double err;
    if (isFloat) {
      double g = elementAsDouble(got, i), w = elementAsDouble(want, i);
      bool bothNaN = std::isnan(g) && std::isnan(w);
      ok = bothNaN || g == w || std::fabs(g - w) <= 1e-7 + 1e-3 * std::fabs(w);
      err = bothNaN || g == w ? 0.0 : std::fabs(g - w);
      if (std::isnan(err))
        err = std::numeric_limits<double>::infinity();
    } else {
      int64_t g = got.getAsInt(i), w = want.getAsInt(i);
      ok = g == w;
      err = std::fabs(double(g) - double(w));
    }
    c.maxError = std::max(c.maxError, err);
    if (!ok && bad++ == 0)
      firstBad = i;
  }
  if (bad == 0)
    return c;
  c.match = false;
  c.mismatch = llvm::formatv("{0} of {1} elements differ; first: {2} is {3}, "
                             "expected {4}",
                             bad, got.numElements(),
                             elementName(got.getShape(), firstBad),
                             elementAsDouble(got, firstBad),
                             elementAsDouble(want, firstBad))
                   .str();
  return c;
}

} // namespace conformance
} // namespace kiln
