//===- OpsetInputsTest.cpp - Every row of the opset-inputs table ----------===//
//
// Walks the table of OpsetInputs.h. For each row, a node of its op in the
// input form, at the opset that introduced it, imports with the constant as
// the attribute; the input computed at run time is an error naming the node
// and the input; the attribute form is rejected from the opset that removed
// it. Each op has one sample node here, so a row without one fails.
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/OpsetInputs.h"
#include "compiler/frontend/onnx/OnnxImporter.h"
#include "compiler/frontend/onnx/TensorProto.h"
#include "compiler/graph/Verifier.h"
#include "tests/unit/frontend/OnnxModelBuilder.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

#include <optional>

namespace kiln {
namespace {

using test::ModelBuilder;

/// One input of a sample node: run-time data of the proto's type, or the
/// constant the proto holds.
struct SampleInput {
  onnx::TensorProto tensor;
  bool runTime;
};

SampleInput data(std::vector<int64_t> dims,
                 int32_t elemType = onnx::TensorProto::FLOAT) {
  onnx::TensorProto t;
  t.set_data_type(elemType);
  for (int64_t d : dims)
    t.add_dims(d);
  return {t, true};
}
SampleInput ints(std::vector<int64_t> dims, std::vector<int64_t> values) {
  return {ModelBuilder::int64Tensor(dims, values), false};
}
SampleInput scalar(float v) {
  return {ModelBuilder::floatTensor({}, {v}), false};
}

/// A node of an op in its input form: all the inputs the table moves are
/// constants.
struct Sample {
  const char *opType;
  std::vector<SampleInput> inputs;
  unsigned numOutputs;
  /// For an op whose node does not stay (all its inputs are moved, so it
  /// folds, or it is imported as a formula): the type of its first result,
  /// which the attributes decide.
  std::optional<TensorType> resultType;
};

const Sample &sampleOf(llvm::StringRef opType) {
  static const std::vector<Sample> samples = {
      {"Reshape", {data({2, 3}), ints({2}, {3, 2})}, 1, {}},
      {"Tile", {data({2}), ints({1}, {3})}, 1, {}},
      {"Expand", {data({3, 1}), ints({2}, {3, 4})}, 1, {}},
      {"ConstantOfShape",
       {ints({2}, {2, 3})},
       1,
       TensorType(DType::F32, {2, 3})},
      // depth may be a float.
      {"OneHot",
       {data({3}, onnx::TensorProto::INT64), scalar(4), data({2})},
       1,
       {}},
      {"Slice",
       {data({4, 4}), ints({1}, {1}), ints({1}, {3}), ints({1}, {1}),
        ints({1}, {1})},
       1,
       {}},
      {"TopK", {data({5}), ints({1}, {2})}, 2, TensorType(DType::F32, {2})},
      {"Clip", {data({4}), scalar(-1.5f), scalar(2)}, 1, {}},
      {"Pad", {data({2, 2}), ints({4}, {1, 0, 0, 2}), scalar(7)}, 1, {}},
      {"CumSum", {data({3}), ints({}, {0})}, 1, {}},
      {"Range",
       {ints({}, {1}), ints({}, {7}), ints({}, {2})},
       1,
       TensorType(DType::I64, {3})},
      {"Split", {data({4}), ints({2}, {1, 3})}, 2, {}},
      {"ReduceSum", {data({2, 3}), ints({1}, {1})}, 1, {}},
      {"ReduceMean", {data({2, 3}), ints({1}, {1})}, 1, {}},
      {"ReduceMax", {data({2, 3}), ints({1}, {1})}, 1, {}},
      {"ReduceMin", {data({2, 3}), ints({1}, {1})}, 1, {}},
      {"ReduceProd", {data({2, 3}), ints({1}, {1})}, 1, {}},
      {"ReduceL1", {data({2, 3}), ints({1}, {1})}, 1, {}},
      {"ReduceL2", {data({2, 3}), ints({1}, {1})}, 1, {}},
      {"ReduceLogSum", {data({2, 3}), ints({1}, {1})}, 1, {}},
      {"ReduceLogSumExp", {data({2, 3}), ints({1}, {1})}, 1, {}},
      {"ReduceSumSquare", {data({2, 3}), ints({1}, {1})}, 1, {}},
      {"Squeeze", {data({3, 1}), ints({1}, {1})}, 1, {}},
      {"Unsqueeze", {data({3}), ints({1}, {0})}, 1, {}},
      {"Trilu", {data({3, 3}), ints({}, {1})}, 1, {}},
      {"HannWindow", {ints({}, {5})}, 1, TensorType(DType::F32, {5})},
      {"HammingWindow", {ints({}, {5})}, 1, TensorType(DType::F32, {5})},
      {"BlackmanWindow", {ints({}, {5})}, 1, TensorType(DType::F32, {5})},
  };
  for (const Sample &s : samples)
    if (opType == s.opType)
      return s;
  static const Sample none = {"", {}, 0, {}};
  return none;
}

/// The sample of `row`'s op at `opset`, with input `runTimeInput` (if any)
/// computed at run time instead of constant.
ModelBuilder sampleModel(const OpsetInput &row, int64_t opset,
                         std::optional<unsigned> runTimeInput = {}) {
  const Sample &s = sampleOf(row.opType);
  ModelBuilder b(opset);
  std::vector<std::string> names;
  for (unsigned i = 0; i < s.inputs.size(); ++i) {
    const SampleInput &in = s.inputs[i];
    names.push_back("in" + std::to_string(i));
    if (in.runTime || runTimeInput == i) {
      std::vector<test::Dim> dims(in.tensor.dims().begin(),
                                  in.tensor.dims().end());
      b.input(names.back(), dims, in.tensor.data_type());
      continue;
    }
    onnx::TensorProto *t = b.proto().mutable_graph()->add_initializer();
    *t = in.tensor;
    t->set_name(names.back());
  }
  onnx::NodeProto &n = b.node(row.opType, {}, {}, "n");
  for (const std::string &name : names)
    n.add_input(name);
  for (unsigned i = 0; i < s.numOutputs; ++i) {
    n.add_output("y" + std::to_string(i));
    b.output("y" + std::to_string(i));
  }
  return b;
}

/// The attribute the constant of `row`'s sample input must become.
Attr expectedAttr(const OpsetInput &row) {
  auto t = tensorFromProto(sampleOf(row.opType).inputs[row.input].tensor);
  if (!t) {
    ADD_FAILURE() << llvm::toString(t.takeError());
    return Attr::ofInt(0);
  }
  switch (row.value) {
  case InputValue::Ints: {
    llvm::SmallVector<int64_t, 8> v;
    for (int64_t i = 0; i < t->numElements(); ++i)
      v.push_back(t->getAsInt(i));
    return Attr::ofInts(v);
  }
  case InputValue::Int:
    return Attr::ofInt(t->getAsInt(0));
  case InputValue::Float:
    return Attr::ofFloat(float(t->getAsDouble(0)));
  case InputValue::IntOfAnyType:
    return Attr::ofInt(int64_t(t->getAsDouble(0)));
  case InputValue::Tensor:
    return Attr::ofTensor(std::move(*t));
  }
  return Attr::ofInt(0);
}

std::string rowName(const OpsetInput &row) {
  return llvm::formatv("{0}-{1} input {2} ({3})", row.opType, row.sinceOpset,
                       row.input, row.attr);
}

TEST(OpsetInputs, RowsOfAnOpAreConsecutiveInInputOrder) {
  llvm::ArrayRef<OpsetInput> rows = opsetInputs();
  llvm::StringSet<> earlierOps;
  for (size_t i = 0; i < rows.size(); ++i) {
    SCOPED_TRACE(rowName(rows[i]));
    EXPECT_FALSE(sampleOf(rows[i].opType).inputs.empty()) << "no sample node";
    if (i > 0 && llvm::StringRef(rows[i - 1].opType) == rows[i].opType)
      EXPECT_GT(rows[i].input, rows[i - 1].input);
    else
      EXPECT_TRUE(earlierOps.insert(rows[i].opType).second)
          << "the op's rows are not consecutive";
  }
}

TEST(OpsetInputs, ConstantInputBecomesTheAttribute) {
  for (const OpsetInput &row : opsetInputs()) {
    SCOPED_TRACE(rowName(row));
    const Sample &s = sampleOf(row.opType);
    if (s.inputs.empty())
      continue;
    auto g =
        importOnnxBuffer(sampleModel(row, row.sinceOpset).bytes(), "m", {});
    ASSERT_TRUE(bool(g)) << llvm::toString(g.takeError());
    if (llvm::Error err = verifyGraph(**g))
      FAIL() << llvm::toString(std::move(err));
    const Node *n = nullptr;
    for (const Node *node : (*g)->getNodes())
      if (node->getName() == "n")
        n = node;
    if (!n) {
      ASSERT_TRUE(s.resultType)
          << "the node is gone and no result type to check";
      EXPECT_EQ((*g)->getOutputs()[0].value->getType(), *s.resultType);
      continue;
    }
    const Attr *attr = n->getAttr(row.attr);
    ASSERT_TRUE(attr);
    Attr want = expectedAttr(row);
    EXPECT_TRUE(*attr == want) << attr->str() << " != " << want.str();
    for (Value *in : n->getInputs())
      EXPECT_FALSE(in && in->isConstant()) << "a moved input stayed";
  }
}

/// A moved input computed at run time is an error naming the node and the
/// input, except where it only carries a value: then the op computes with
/// it (the formulas are tested in OpsetAdaptersTest).
TEST(OpsetInputs, RunTimeInputIsAnErrorNamingTheNodeAndInput) {
  for (const OpsetInput &row : opsetInputs()) {
    SCOPED_TRACE(rowName(row));
    if (sampleOf(row.opType).inputs.empty())
      continue;
    ModelBuilder b = sampleModel(row, row.sinceOpset, row.input);
    auto g = importOnnxBuffer(b.bytes(), "m", {});
    if (takesRunTimeValues(row.opType)) {
      ASSERT_TRUE(bool(g)) << llvm::toString(g.takeError());
      std::string name = "in" + std::to_string(row.input);
      EXPECT_TRUE(llvm::any_of((*g)->getInputs(), [&](const Value *v) {
        return v->getName() == name && (*g)->hasUses(v);
      })) << name << " is not a used graph input";
      continue;
    }
    ASSERT_FALSE(bool(g));
    EXPECT_EQ(llvm::toString(g.takeError()),
              llvm::formatv("node 'n' ({0}): input {1} ({2}) must be a "
                            "constant (run-time shapes are not supported); "
                            "'in{1}' is a graph input: give it a value with "
                            "--const-input NAME=FILE.npy",
                            row.opType, row.input, row.getInputName())
                  .str());
  }
}

TEST(OpsetInputs, AttributeFormIsRejectedOnceRemoved) {
  for (const OpsetInput &row : opsetInputs()) {
    SCOPED_TRACE(rowName(row));
    if (sampleOf(row.opType).inputs.empty())
      continue;
    ModelBuilder b = sampleModel(row, row.getAttrRemovedIn());
    test::setInt(*b.proto().mutable_graph()->mutable_node(0), row.attr, 1);
    auto g = importOnnxBuffer(b.bytes(), "m", {});
    ASSERT_FALSE(bool(g));
    EXPECT_EQ(llvm::toString(g.takeError()),
              llvm::formatv("node 'n' ({0}): attribute '{1}' is an input "
                            "since opset {2}",
                            row.opType, row.attr, row.getAttrRemovedIn())
                  .str());
  }
}

/// Before opset `renamedIn`, the attribute went by its old name, which the
/// node gets under the new one.
TEST(OpsetInputs, OldAttributeNameIsRenamed) {
  for (const OpsetInput &row : opsetInputs()) {
    if (!row.oldAttr)
      continue;
    SCOPED_TRACE(rowName(row));
    ASSERT_EQ(row.value, InputValue::Ints);
    // The attribute form: the sample's run-time inputs alone.
    const Sample &s = sampleOf(row.opType);
    ModelBuilder b(row.renamedIn - 1);
    onnx::NodeProto &n = b.node(row.opType, {}, {"y"}, "n");
    b.output("y");
    for (unsigned i = 0; i < s.inputs.size(); ++i) {
      const onnx::TensorProto &t = s.inputs[i].tensor;
      if (!s.inputs[i].runTime)
        continue;
      std::string name = "in" + std::to_string(i);
      b.input(name, std::vector<test::Dim>(t.dims().begin(), t.dims().end()),
              t.data_type());
      n.add_input(name);
    }
    const onnx::TensorProto &value = s.inputs[row.input].tensor;
    test::setInts(n, row.oldAttr,
                  std::vector<int64_t>(value.int64_data().begin(),
                                       value.int64_data().end()));
    auto g = importOnnxBuffer(b.bytes(), "m", {});
    ASSERT_TRUE(bool(g)) << llvm::toString(g.takeError());
    ASSERT_EQ((*g)->getNodes().size(), 1u);
    const Node *node = (*g)->getNodes()[0];
    EXPECT_FALSE(node->hasAttr(row.oldAttr));
    ASSERT_TRUE(node->hasAttr(row.attr));
    EXPECT_TRUE(*node->getAttr(row.attr) == expectedAttr(row));
  }
}

} // namespace
} // namespace kiln
