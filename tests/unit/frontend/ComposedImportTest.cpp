//===- ComposedImportTest.cpp - Ops the importer rewrites into others -----===//
//
// Einsum, TopK, the sequence ops and Gradient have no kiln op of their
// own (TopK's is TopKIndices, its values a GatherElements): the importer
// emits the ops that compute them. Each imported graph
// runs in the reference interpreter and is compared with a plain
// computation written here from the ONNX specification (nested loops over
// every index for Einsum, a stable sort for TopK, list operations for
// sequences, the derivatives by hand for Gradient).
//
//===----------------------------------------------------------------------===//

#include "tests/unit/frontend/ImportTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

namespace kiln {
namespace {

using namespace test;

//===----------------------------------------------------------------------===//
// Einsum
//===----------------------------------------------------------------------===//

/// Einsum by definition: every assignment of the letters, the operands'
/// elements multiplied and added into the output element. `equation` has
/// an explicit output and no ellipsis.
std::vector<float> einsumOracle(const std::string &equation,
                                const std::vector<Shape> &shapes,
                                const std::vector<std::vector<float>> &data,
                                Shape &outShape) {
  std::string lhs = equation.substr(0, equation.find("->"));
  std::string out = equation.substr(equation.find("->") + 2);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  std::map<char, int64_t> size;
  for (size_t t = 0; t < terms.size(); ++t)
    for (size_t a = 0; a < terms[t].size(); ++a)
      size[terms[t][a]] = shapes[t][a];
  std::string letters;
  for (auto &[c, n] : size)
    letters += c;
  outShape.clear();
  for (char c : out)
    outShape.push_back(size[c]);
  std::vector<float> result(product(outShape), 0.0f);
  std::map<char, int64_t> at;
  auto offset = [&](const std::string &term, const Shape &shape) {
    int64_t o = 0;
    for (size_t a = 0; a < term.size(); ++a)
      o = o * shape[a] + at[term[a]];
    return o;
  };
  std::function<void(size_t)> loop = [&](size_t k) {
    if (k == letters.size()) {
      float p = 1.0f;
      for (size_t t = 0; t < terms.size(); ++t)
        p *= data[t][offset(terms[t], shapes[t])];
      result[offset(out, outShape)] += p;
      return;
    }
    for (at[letters[k]] = 0; at[letters[k]] < size[letters[k]];
         ++at[letters[k]])
      loop(k + 1);
  };
  loop(0);
  return result;
}

struct EinsumCase {
  std::string equation;
  std::vector<Shape> shapes;
  /// The same contraction with an explicit output and letters only, for the
  /// oracle; empty when `equation` already is.
  std::string oracleEquation;
};

class ImportEinsum : public ::testing::TestWithParam<EinsumCase> {};

TEST_P(ImportEinsum, MatchesTheDefinition) {
  const EinsumCase &c = GetParam();
  ModelBuilder b(12);
  std::vector<Tensor> inputs;
  std::vector<std::vector<float>> data;
  std::vector<std::string> names;
  for (size_t i = 0; i < c.shapes.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    b.input(names.back(), {c.shapes[i].begin(), c.shapes[i].end()});
    data.push_back(randomData(product(c.shapes[i]), 7 + i));
    inputs.push_back(
        Tensor::fromValues<float>(DType::F32, c.shapes[i], data.back()));
  }
  onnx::NodeProto &n = b.node("Einsum", {}, {"y"}, "einsum");
  for (const std::string &name : names)
    n.add_input(name);
  test::setString(n, "equation", c.equation);
  b.output("y");
  Shape want;
  std::vector<float> expected =
      einsumOracle(c.oracleEquation.empty() ? c.equation : c.oracleEquation,
                   c.shapes, data, want);
  auto out = importAndRun(b, inputs);
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  ASSERT_EQ((*out)[0].getShape(), llvm::ArrayRef<int64_t>(want));
  llvm::ArrayRef<float> got = (*out)[0].values<float>();
  for (size_t i = 0; i < expected.size(); ++i)
    EXPECT_NEAR(got[i], expected[i], 1e-5) << "element " << i;
}

INSTANTIATE_TEST_SUITE_P(
    Equations, ImportEinsum,
    ::testing::Values(
        EinsumCase{"ij,jk->ik", {{3, 4}, {4, 5}}},
        EinsumCase{"bij,bjk->bik", {{2, 3, 4}, {2, 4, 2}}},
        EinsumCase{"i,i->", {{6}, {6}}}, EinsumCase{"ij->i", {{3, 4}}},
        EinsumCase{"ij->ji", {{3, 4}}}, EinsumCase{"ij->", {{3, 4}}},
        EinsumCase{"bii->bi", {{2, 3, 3}}}, EinsumCase{"iij->j", {{3, 3, 2}}},
        EinsumCase{"ij,ij->ij", {{3, 4}, {3, 4}}},
        EinsumCase{"ijk,ikl->jl", {{2, 3, 4}, {2, 4, 5}}},
        EinsumCase{"ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 2}}},
        EinsumCase{"i,j->ij", {{3}, {4}}},
        EinsumCase{"ij,jk", {{3, 4}, {4, 2}}, "ij,jk->ik"},
        EinsumCase{"ba", {{3, 4}}, "ba->ab"},
        EinsumCase{"...ij,...jk->...ik",
                   {{2, 3, 4, 5}, {2, 3, 5, 2}},
                   "abij,abjk->abik"},
        EinsumCase{"i...->...", {{3, 2, 4}}, "iab->ab"}));

TEST(ImportEinsum, BadEquationsAreErrorsNamingTheNode) {
  struct Bad {
    std::string equation;
    const char *message;
  };
  for (const Bad &bad : {Bad{"ij,jk->iz", "output label 'z' is in no input"},
                         Bad{"ijk,jk->ik", "does not match input 0"},
                         Bad{"ij->", "operand terms for 2 inputs"},
                         Bad{"i1,jk->ik", "is not letters"},
                         Bad{"ij,jk->ii", "appears twice"}}) {
    ModelBuilder b(12);
    b.input("a", {3, 4}).input("b", {4, 2});
    test::setString(b.node("Einsum", {"a", "b"}, {"y"}, "mix"), "equation",
                    bad.equation);
    b.output("y");
    std::string msg = importError(b);
    EXPECT_NE(msg.find("node 'mix' (Einsum)"), std::string::npos) << msg;
    EXPECT_NE(msg.find(bad.message), std::string::npos)
        << bad.equation << ": " << msg;
  }
}

//===----------------------------------------------------------------------===//
// TopK
//===----------------------------------------------------------------------===//

TEST(ImportTopK, MatchesAStableSortWithTies) {
  // Rows with repeated values: equal values keep the lower index first.
  std::vector<float> x = {3, 1, 3, 2, 5, 1, 0, 0, 4, 4, 4, -1,
                          2, 2, 2, 2, 2, 2, 7, 6, 5, 6, 7, 5};
  Shape shape{4, 6};
  for (bool largest : {true, false})
    for (int64_t axis : {1, 0}) {
      int64_t k = 3;
      ModelBuilder b(11);
      b.input("x", {4, 6}).int64Initializer("k", {1}, {k});
      onnx::NodeProto &n =
          b.node("TopK", {"x", "k"}, {"values", "indices"}, "top");
      test::setInt(n, "axis", axis);
      test::setInt(n, "largest", largest);
      b.output("values").output("indices");
      auto out =
          importAndRun(b, {Tensor::fromValues<float>(DType::F32, shape, x)});
      ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
      int64_t lines = shape[1 - axis], len = shape[axis];
      for (int64_t line = 0; line < lines; ++line) {
        auto at = [&](int64_t i) {
          return axis == 1 ? line * len + i : i * lines + line;
        };
        std::vector<int64_t> order(len);
        std::iota(order.begin(), order.end(), 0);
        std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t c) {
          return largest ? x[at(a)] > x[at(c)] : x[at(a)] < x[at(c)];
        });
        for (int64_t p = 0; p < k; ++p) {
          int64_t o = axis == 1 ? line * k + p : p * lines + line;
          EXPECT_EQ((*out)[1].values<int64_t>()[o], order[p])
              << "largest " << largest << " axis " << axis << " line " << line;
          EXPECT_EQ((*out)[0].values<float>()[o], x[at(order[p])]);
        }
      }
    }
}

TEST(ImportTopK, KBeyondTheAxisIsAnError) {
  ModelBuilder b(11);
  b.input("x", {4, 6}).int64Initializer("k", {1}, {7});
  b.node("TopK", {"x", "k"}, {"values", "indices"}, "top");
  b.output("values").output("indices");
  std::string msg = importError(b);
  EXPECT_NE(msg.find("node 'top' (TopK)"), std::string::npos) << msg;
  EXPECT_NE(msg.find("k = 7 is not in [0, 6]"), std::string::npos) << msg;
}

//===----------------------------------------------------------------------===//
// Sequences
//===----------------------------------------------------------------------===//

TEST(ImportSequences, ResolveToTheTensorsTheyHold) {
  ModelBuilder b(12);
  b.input("a", {2, 3}).input("b", {2, 3}).input("c", {2, 3});
  b.int64Initializer("minus_two", {}, {-2}).int64Initializer("zero", {}, {0});
  b.int64Initializer("two", {}, {2}).int64Initializer("one", {}, {1});
  b.int64Initializer("sizes", {2}, {1, 2});
  b.node("SequenceConstruct", {"a", "b", "c"}, {"abc"});
  b.node("SequenceErase", {"abc", "minus_two"}, {"ac"});
  b.node("SequenceInsert", {"ac", "b", "zero"}, {"bac"});
  b.node("SequenceAt", {"bac", "two"}, {"third"});
  b.node("SequenceLength", {"bac"}, {"length"});
  onnx::NodeProto &stack = b.node("ConcatFromSequence", {"bac"}, {"stacked"});
  test::setInt(stack, "axis", 1);
  test::setInt(stack, "new_axis", 1);
  test::setInt(b.node("ConcatFromSequence", {"bac"}, {"joined"}), "axis", 0);
  test::setInt(b.node("SplitToSequence", {"a", "sizes"}, {"parts"}), "axis", 1);
  b.node("SequenceAt", {"parts", "one"}, {"second_part"});
  b.node("SequenceEmpty", {}, {"empty"});
  b.node("SequenceInsert", {"empty", "c"}, {"just_c"});
  b.node("SequenceLength", {"just_c"}, {"one_long"});
  b.output("third").output("length").output("stacked").output("joined");
  b.output("second_part").output("one_long");
  std::vector<float> a = randomData(6, 1), bv = randomData(6, 2),
                     c = randomData(6, 3);
  auto t = [](const std::vector<float> &v) {
    return Tensor::fromValues<float>(DType::F32, {2, 3}, v);
  };
  auto out = importAndRun(b, {t(a), t(bv), t(c)});
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  // [a, b, c] - erase(-2) = [a, c]; insert b at 0 = [b, a, c].
  EXPECT_EQ((*out)[0].values<float>(), llvm::ArrayRef<float>(c));
  EXPECT_EQ((*out)[1].values<int64_t>()[0], 3);
  const std::vector<float> *seq[] = {&bv, &a, &c};
  ASSERT_EQ((*out)[2].getShape(), llvm::ArrayRef<int64_t>({2, 3, 3}));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t s = 0; s < 3; ++s)
      for (int64_t j = 0; j < 3; ++j)
        EXPECT_EQ((*out)[2].values<float>()[(i * 3 + s) * 3 + j],
                  (*seq[s])[i * 3 + j]);
  ASSERT_EQ((*out)[3].getShape(), llvm::ArrayRef<int64_t>({6, 3}));
  for (int64_t s = 0; s < 3; ++s)
    for (int64_t e = 0; e < 6; ++e)
      EXPECT_EQ((*out)[3].values<float>()[s * 6 + e], (*seq[s])[e]);
  ASSERT_EQ((*out)[4].getShape(), llvm::ArrayRef<int64_t>({2, 2}));
  for (int64_t i = 0; i < 2; ++i)
    for (int64_t j = 0; j < 2; ++j)
      EXPECT_EQ((*out)[4].values<float>()[i * 2 + j], a[i * 3 + 1 + j]);
  EXPECT_EQ((*out)[5].values<int64_t>()[0], 1);
}

TEST(ImportSequences, SequenceOutputsAndBadPositionsAreErrors) {
  {
    ModelBuilder b(12);
    b.input("a", {2});
    b.node("SequenceConstruct", {"a", "a"}, {"s"});
    b.output("s");
    EXPECT_NE(importError(b).find("graph output 's' is a sequence"),
              std::string::npos);
  }
  {
    ModelBuilder b(12);
    b.input("a", {2}).int64Initializer("five", {}, {5});
    b.node("SequenceConstruct", {"a", "a"}, {"s"});
    b.node("SequenceAt", {"s", "five"}, {"y"}, "pick");
    b.output("y");
    std::string msg = importError(b);
    EXPECT_NE(msg.find("node 'pick' (SequenceAt): position 5 is outside "
                       "[-2, 1]"),
              std::string::npos)
        << msg;
  }
  {
    ModelBuilder b(12);
    b.input("a", {2});
    b.node("SequenceConstruct", {"a", "a"}, {"s"});
    b.node("Relu", {"s"}, {"y"}, "relu");
    b.output("y");
    std::string msg = importError(b);
    EXPECT_NE(msg.find("input 's' is a sequence"), std::string::npos) << msg;
  }
}

//===----------------------------------------------------------------------===//
// Gradient
//===----------------------------------------------------------------------===//

/// A Gradient node of the training domain: d(y)/d(each of xs).
void addGradient(ModelBuilder &b, const std::string &y,
                 std::initializer_list<const char *> xs,
                 std::initializer_list<const char *> outputs) {
  onnx::OperatorSetIdProto *id = b.proto().add_opset_import();
  id->set_domain("ai.onnx.preview.training");
  id->set_version(1);
  onnx::NodeProto &n = b.node("Gradient", xs, outputs, "grad");
  n.set_domain("ai.onnx.preview.training");
  test::setString(n, "y", y);
  onnx::AttributeProto *a = n.add_attribute();
  a->set_name("xs");
  a->set_type(onnx::AttributeProto::STRINGS);
  for (const char *x : xs)
    a->add_strings(x);
}

TEST(ImportGradient, MatchesTheDerivativesWithBroadcasting) {
  // c = a * b + a / b - b, with b [3] broadcast over a [2, 3]:
  // dc/da = b + 1/b; dc/db = sum over rows of (a - a/b^2 - 1).
  ModelBuilder b(12);
  b.input("a", {2, 3}).input("b", {3});
  b.node("Mul", {"a", "b"}, {"ab"});
  b.node("Div", {"a", "b"}, {"a_b"});
  b.node("Add", {"ab", "a_b"}, {"sum"});
  b.node("Sub", {"sum", "b"}, {"c"});
  addGradient(b, "c", {"a", "b"}, {"dc_da", "dc_db"});
  b.output("c").output("dc_da").output("dc_db");
  std::vector<float> a = randomData(6, 4), bv = {0.5f, -1.25f, 2.0f};
  auto out = importAndRun(b, {Tensor::fromValues<float>(DType::F32, {2, 3}, a),
                              Tensor::fromValues<float>(DType::F32, {3}, bv)});
  ASSERT_TRUE(bool(out)) << llvm::toString(out.takeError());
  ASSERT_EQ((*out)[2].getShape(), llvm::ArrayRef<int64_t>({3}));
  for (int64_t j = 0; j < 3; ++j) {
    float dbWant = 0;
    for (int64_t i = 0; i < 2; ++i) {
      EXPECT_NEAR((*out)[1].values<float>()[i * 3 + j], bv[j] + 1 / bv[j],
                  1e-5);
      dbWant += a[i * 3 + j] - a[i * 3 + j] / (bv[j] * bv[j]) - 1;
    }
    EXPECT_NEAR((*out)[2].values<float>()[j], dbWant, 1e-5);
  }
}

TEST(ImportGradient, OtherOpsOnThePathAreErrors) {
  ModelBuilder b(12);
  b.input("a", {3});
  b.node("Relu", {"a"}, {"r"}, "relu");
  addGradient(b, "r", {"a"}, {"dr_da"});
  b.output("dr_da");
  std::string msg = importError(b);
  EXPECT_NE(msg.find("node 'grad' (Gradient): cannot differentiate through "
                     "node 'relu' (Relu)"),
            std::string::npos)
      << msg;
}

} // namespace
} // namespace kiln
