//===- ScalarMathKernelTest.cpp - Math functions, comparisons, Where, Cast -===//
//
// The elementwise kernel builds every float function from arithmetic
// (kernels/ScalarMath.cpp, no libm); the interpreter calls libm. Each
// function over its domain at random, and at its edges (signed zeros,
// infinities, NaN, the ends of argument reductions and clamps) with a
// tolerance relative to each element; comparisons and Where; Cast between
// the kinds of element the kernel converts; f16 in and out.
//
//===----------------------------------------------------------------------===//

#include "tests/unit/codegen/KernelTestUtil.h"

#include "compiler/graph/Half.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace kiln {
namespace {

using namespace test;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kPi = 3.14159265358979f;

/// Sets element i of `t`, f16 included (Tensor::setFromDouble has no f16).
void setValue(Tensor &t, int64_t i, double v) {
  if (t.getDType() == DType::F16)
    t.data<uint16_t>()[i] = floatToHalf(static_cast<float>(v));
  else
    t.setFromDouble(i, v);
}

/// Uniform [lo, hi) values of any float or integer dtype (integers
/// truncated), determined by `seed`.
Tensor uniform(DType dtype, Shape shape, uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Tensor t(TensorType(dtype, shape));
  for (int64_t i = 0; i < t.numElements(); ++i)
    setValue(t, i, dist(rng));
  return t;
}

Tensor f32Values(std::vector<float> values) {
  return Tensor::fromValues<float>(DType::F32, {int64_t(values.size())}, values);
}

//===----------------------------------------------------------------------===//
// Unary functions
//===----------------------------------------------------------------------===//

struct MathCase {
  const char *name;
  OpKind op;
  /// The random inputs' range: the function's domain, or where it is finite.
  float lo, hi;
  /// Inputs where implementations go wrong, all in the function's domain
  /// or giving NaN there.
  std::vector<float> edges;
  /// Per element, relative to max(1, |ref|).
  double rtol = 1e-5;
};

class MathKernel : public ::testing::TestWithParam<MathCase> {};

/// 4 x 37 elements: full vectors and a tail at every width.
TEST_P(MathKernel, MatchesTheInterpreterOnItsDomain) {
  const MathCase &c = GetParam();
  JitCheck check;
  check.lo = c.lo;
  check.hi = c.hi;
  check.rtol = c.rtol;
  check.scale = Tolerance::OfElement;
  EXPECT_TRUE(jitMatchesInterpreter(singleNode(c.op, {f32({4, 37})}), check));
}

TEST_P(MathKernel, MatchesTheInterpreterAtItsEdges) {
  const MathCase &c = GetParam();
  std::vector<float> edges = c.edges;
  for (float common : {0.0f, -0.0f, kNaN})
    edges.push_back(common);
  JitCheck check;
  check.inputs = {f32Values(edges)};
  check.rtol = c.rtol;
  check.scale = Tolerance::OfElement;
  EXPECT_TRUE(jitMatchesInterpreter(
      singleNode(c.op, {f32({int64_t(edges.size())})}), check));
}

INSTANTIATE_TEST_SUITE_P(
    Functions, MathKernel,
    ::testing::Values(
        MathCase{"Exp", OpKind::Exp, -20, 20,
                 {-kInf, kInf, -104.0f, -88.0f, -87.3f, 1e-30f, 1.0f, 88.3f, 88.8f}},
        MathCase{"Log", OpKind::Log, 1e-3f, 1e3f,
                 {-1.0f, kInf, 1.0f, 2.0f, 0.5f, 1.1754944e-38f, 1e-30f, 3e38f}},
        MathCase{"Sqrt", OpKind::Sqrt, 0, 100,
                 {-1.0f, kInf, 1.1754944e-38f, 2.0f, 4.0f, 1e-30f, 3e38f}},
        MathCase{"Reciprocal", OpKind::Reciprocal, 0.01f, 100,
                 {-kInf, kInf, 1e-30f, -3e38f}},
        MathCase{"Erf", OpKind::Erf, -4, 4,
                 {-kInf, kInf, -10.0f, -3.9f, -1.0f, 1e-30f, 0.5f, 1.0f, 3.9f, 10.0f}},
        MathCase{"Sin", OpKind::Sin, -20, 20,
                 {-kInf, kInf, kPi / 4, kPi / 2, kPi, -3 * kPi / 4, 1e4f, -1e4f}},
        MathCase{"Cos", OpKind::Cos, -20, 20,
                 {-kInf, kInf, kPi / 4, kPi / 2, kPi, -3 * kPi / 4, 1e4f, -1e4f}},
        MathCase{"Tan", OpKind::Tan, -1.5f, 1.5f,
                 {-kInf, kInf, kPi / 4, -kPi / 4, 1.5f, 3.0f, 100.0f}, 1e-4},
        MathCase{"Asin", OpKind::Asin, -1, 1, {-1.0f, 1.0f, 0.5f, -0.99f, 1.5f, -kInf}},
        MathCase{"Acos", OpKind::Acos, -1, 1, {-1.0f, 1.0f, 0.5f, -0.99f, 1.5f, kInf}},
        MathCase{"Atan", OpKind::Atan, -20, 20, {-kInf, kInf, 1.0f, -1.0f, 1e30f, -1e30f}},
        MathCase{"Sinh", OpKind::Sinh, -10, 10, {-kInf, kInf, 1e-30f, 1e-4f, -88.0f, 88.0f}},
        MathCase{"Cosh", OpKind::Cosh, -10, 10, {-kInf, kInf, 1e-4f, -88.0f, 88.0f}},
        MathCase{"Asinh", OpKind::Asinh, -100, 100,
                 {-kInf, kInf, 1e-30f, -1e-4f, 1e30f, -1e30f}},
        MathCase{"Acosh", OpKind::Acosh, 1, 100, {1.0f, 1.0001f, 1e30f, kInf, 0.5f}},
        MathCase{"Atanh", OpKind::Atanh, -0.99f, 0.99f,
                 {-1.0f, 1.0f, 1e-30f, 0.5f, -0.999f, 2.0f}},
        MathCase{"Floor", OpKind::Floor, -100, 100,
                 {-kInf, kInf, -0.5f, 0.5f, -1.5f, 8388607.5f, -8388607.5f, 1e30f}, 0},
        MathCase{"Ceil", OpKind::Ceil, -100, 100,
                 {-kInf, kInf, -0.5f, 0.5f, -1.5f, 8388607.5f, -8388607.5f, 1e30f}, 0},
        MathCase{"Round", OpKind::Round, -100, 100,
                 {-kInf, kInf, -0.5f, 0.5f, 1.5f, 2.5f, -2.5f, 8388607.5f, 1e30f}, 0},
        MathCase{"Softplus", OpKind::Softplus, -30, 30, {-100.0f, 100.0f, -kInf, kInf}},
        MathCase{"Mish", OpKind::Mish, -30, 30, {-100.0f, 100.0f, -kInf}}),
    [](const auto &info) { return std::string(info.param.name); });

//===----------------------------------------------------------------------===//
// Pow
//===----------------------------------------------------------------------===//

TEST(PowKernel, MatchesTheInterpreterOnRandomBasesAndExponents) {
  JitCheck check;
  check.inputs = {uniform(DType::F32, {3, 37}, 1, 0.01, 10),
                  uniform(DType::F32, {3, 37}, 2, -4, 4)};
  check.scale = Tolerance::OfElement;
  TensorType t = f32({3, 37});
  EXPECT_TRUE(jitMatchesInterpreter(singleNode(OpKind::Pow, {t, t}), check));
}

/// C's special cases: negative bases with integer and other exponents,
/// zeros, ones, infinities and NaN on either side.
TEST(PowKernel, MatchesTheInterpreterOnSpecialCases) {
  std::vector<std::pair<float, float>> cases = {
      {2, 3},       {-2, 3},     {-2, 2},       {-2, 0.5f},   {-8, 1.0f / 3},
      {0, 0},       {0, -1},     {-0.0f, -1},   {0, 2},       {-0.0f, 3},
      {1, kNaN},    {kNaN, 0},   {kNaN, 1},     {kInf, -1},   {kInf, 0.5f},
      {-kInf, 3},   {-kInf, 2},  {-kInf, -3},   {0.5f, kInf}, {2, kInf},
      {0.5f, -kInf}, {2, -kInf}, {-1, kInf},    {-1, -kInf},  {1e10f, 5},
      {1e-10f, 5},  {-3, -3},    {10, -40},     {4, 0.5f},    {1.5f, 100}};
  std::vector<float> x, y;
  for (auto [a, b] : cases) {
    x.push_back(a);
    y.push_back(b);
  }
  JitCheck check;
  check.inputs = {f32Values(x), f32Values(y)};
  check.scale = Tolerance::OfElement;
  TensorType t = f32({int64_t(cases.size())});
  EXPECT_TRUE(jitMatchesInterpreter(singleNode(OpKind::Pow, {t, t}), check));
}

//===----------------------------------------------------------------------===//
// Comparisons and Where
//===----------------------------------------------------------------------===//

/// Every pair of values that compare in different ways: equal, signed
/// zeros, infinities and NaN (unordered: only Not-Equal-like results).
TEST(CompareKernel, FloatsMatchTheInterpreter) {
  std::vector<float> values = {-kInf, -1.0f, -0.0f, 0.0f, 0.5f, 1.0f, kInf, kNaN};
  std::vector<float> a, b;
  for (float u : values)
    for (float v : values) {
      a.push_back(u);
      b.push_back(v);
    }
  for (OpKind op : {OpKind::Equal, OpKind::Less, OpKind::LessOrEqual,
                    OpKind::Greater, OpKind::GreaterOrEqual}) {
    SCOPED_TRACE(getOpDef(op).name);
    JitCheck check;
    check.inputs = {f32Values(a), f32Values(b)};
    check.rtol = 0;
    TensorType t = f32({int64_t(a.size())});
    EXPECT_TRUE(jitMatchesInterpreter(singleNode(op, {t, t}), check));
  }
}

TEST(CompareKernel, IntegersMatchTheInterpreterWithBroadcasting) {
  for (DType dtype : {DType::I32, DType::I64})
    for (OpKind op : {OpKind::Equal, OpKind::Less, OpKind::LessOrEqual,
                      OpKind::Greater, OpKind::GreaterOrEqual}) {
      SCOPED_TRACE(getOpDef(op).name + std::string(" ") + dtypeName(dtype).str());
      JitCheck check;
      // Few distinct values, so that many pairs are equal.
      check.inputs = {uniform(dtype, {3, 1, 5}, 3, -3, 3),
                      uniform(dtype, {4, 1}, 4, -3, 3)};
      check.rtol = 0;
      EXPECT_TRUE(jitMatchesInterpreter(
          singleNode(op, {TensorType(dtype, {3, 1, 5}), TensorType(dtype, {4, 1})}),
          check));
    }
}

TEST(WhereKernel, MatchesTheInterpreterWithBroadcasting) {
  Tensor cond(TensorType(DType::Bool, {2, 3, 4}));
  for (int64_t i = 0; i < cond.numElements(); ++i)
    cond.setFromDouble(i, (i * 7) % 3 == 0);
  for (DType dtype : {DType::F32, DType::I64}) {
    SCOPED_TRACE(dtypeName(dtype).str());
    JitCheck check;
    check.inputs = {cond, uniform(dtype, {3, 1}, 5, -9, 9),
                    uniform(dtype, {4}, 6, -9, 9)};
    check.rtol = 0;
    EXPECT_TRUE(jitMatchesInterpreter(
        singleNode(OpKind::Where, {cond.getType(), TensorType(dtype, {3, 1}),
                                   TensorType(dtype, {4})}),
        check));
  }
}

//===----------------------------------------------------------------------===//
// Cast and f16
//===----------------------------------------------------------------------===//

/// ONNX's TensorProto data types, Cast's `to`.
int64_t onnxType(DType t) {
  switch (t) {
  case DType::F32: return 1;
  case DType::U8: return 2;
  case DType::I8: return 3;
  case DType::I16: return 5;
  case DType::I32: return 6;
  case DType::I64: return 7;
  case DType::Bool: return 9;
  case DType::F16: return 10;
  case DType::F64: return 11;
  default: ADD_FAILURE() << "no ONNX type for " << dtypeName(t).str(); return 0;
  }
}

struct CastCase {
  DType from, to;
};

class CastKernel : public ::testing::TestWithParam<CastCase> {};

/// Values inside every destination's range (out-of-range float to integer
/// is undefined in ONNX), with halves to see the rounding direction.
TEST_P(CastKernel, MatchesTheInterpreter) {
  const CastCase &c = GetParam();
  Tensor x = uniform(c.from, {3, 37}, 7, -100, 100);
  if (c.from == DType::F32 || c.from == DType::F64 || c.from == DType::F16)
    for (int64_t i = 0; i < 8; ++i)
      setValue(x, i, std::vector<double>{-2.5, -0.5, -0.0, 0.5, 1.5, 99.75, -99.5, 65.5}[i]);
  JitCheck check;
  check.inputs = {x};
  check.rtol = 0;
  EXPECT_TRUE(jitMatchesInterpreter(
      singleNode(OpKind::Cast, {x.getType()}, {{"to", Attr::ofInt(onnxType(c.to))}}),
      check));
}

std::vector<CastCase> castCases() {
  std::vector<CastCase> cases;
  for (DType from : {DType::F32, DType::F16, DType::F64, DType::I32, DType::I64, DType::I8})
    for (DType to : {DType::F32, DType::F16, DType::F64, DType::I32, DType::I64,
                     DType::I8, DType::Bool})
      if (from != to)
        cases.push_back({from, to});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Kinds, CastKernel, ::testing::ValuesIn(castCases()),
                         [](const auto &info) {
                           return dtypeName(info.param.from).str() + "_to_" +
                                  dtypeName(info.param.to).str();
                         });

/// f16 subnormals, the largest finite f16, infinities and NaN, both ways:
/// the conversions are bit manipulations of their own.
TEST(HalfKernel, ConversionsMatchTheInterpreterAtTheEdges) {
  std::vector<float> edges = {0.0f,     -0.0f,   5.96e-8f, -5.96e-8f, 6.1e-5f,   6.09e-5f,
                              65504.0f, 65519.0f, 65520.0f, 1e6f,      -1e6f,     kInf,
                              -kInf,    kNaN,    1.0009765625f, 1.00048828125f, 2049.0f, 1e-9f};
  JitCheck check;
  check.inputs = {f32Values(edges)};
  check.rtol = 0;
  TensorType t = f32({int64_t(edges.size())});
  // f32 -> f16 -> f32: both conversions, checked on the way back.
  GraphBuilder roundTrip = [&](Graph &g) {
    Value *x = g.addInput("x", t);
    Node *toHalf = addNode(g, OpKind::Cast, "to_half", {x}, {{"to", Attr::ofInt(10)}});
    Node *back = addNode(g, OpKind::Cast, "back", {toHalf->getOutput()},
                         {{"to", Attr::ofInt(1)}});
    g.addOutput("half", toHalf->getOutput());
    g.addOutput("y", back->getOutput());
  };
  EXPECT_TRUE(jitMatchesInterpreter(roundTrip, check));
}

/// Arithmetic on f16 tensors is computed in f32 and rounded once.
TEST(HalfKernel, ArithmeticMatchesTheInterpreter) {
  for (OpKind op : {OpKind::Add, OpKind::Mul, OpKind::Div}) {
    SCOPED_TRACE(getOpDef(op).name);
    JitCheck check;
    check.inputs = {uniform(DType::F16, {3, 37}, 8, 0.5, 20),
                    uniform(DType::F16, {37}, 9, 0.5, 20)};
    check.rtol = 0;
    EXPECT_TRUE(jitMatchesInterpreter(
        singleNode(op, {TensorType(DType::F16, {3, 37}), TensorType(DType::F16, {37})}),
        check));
  }
  JitCheck check;
  check.inputs = {uniform(DType::F16, {3, 37}, 10, 0, 100)};
  check.rtol = 0;
  EXPECT_TRUE(jitMatchesInterpreter(singleNode(OpKind::Sqrt, {TensorType(DType::F16, {3, 37})}),
                                    check));
}

} // namespace
} // namespace kiln
