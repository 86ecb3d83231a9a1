//===- Einsum.cpp - Einsum as transposes, diagonals and MatMuls -----------===//
//
// An Einsum equation names every axis of every operand with a letter; kiln
// imports it as the ops that compute it, so the code generator needs no
// Einsum kernel:
//  - a letter repeated within one operand takes the diagonal (a product with
//    an identity mask, summed over the second copy);
//  - a letter in no other operand and not in the output is summed out;
//  - two operands contract as one MatMul: letters both have and the result
//    keeps are the batch, letters both have and the result drops the inner
//    dimension, the others rows and columns; more operands contract left to
//    right;
//  - the result is transposed into the output's order.
// "..." stands for the same broadcast axes in every operand (right-aligned).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/AdapterUtils.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cctype>
#include <numeric>

namespace kiln {
namespace {

struct Equation {
  llvm::SmallVector<std::string, 3> inputs;
  std::string output;
};

bool isLabel(char c) { return std::isalpha(static_cast<unsigned char>(c)); }

/// Parses one side's term; `ellipsis` is set where "..." appeared.
llvm::Expected<std::string> parseTerm(const PendingNode &n, llvm::StringRef t,
                                      bool &ellipsis) {
  std::string labels;
  ellipsis = false;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.substr(i).starts_with("...") && !ellipsis) {
      ellipsis = true;
      labels += '.';
      i += 2;
    } else if (isLabel(t[i])) {
      labels += t[i];
    } else {
      return n.error("equation term '" + t + "' is not letters and one '...'");
    }
  }
  return labels;
}

/// Replaces the '.' of an ellipsis by `count` of the placeholders '0', '1',
/// ... ending at placeholder `total` - 1 (broadcasting aligns the right).
std::string expandEllipsis(llvm::StringRef labels, int64_t count,
                           int64_t total) {
  std::string out;
  for (char c : labels) {
    if (c != '.') {
      out += c;
      continue;
    }
    for (int64_t k = total - count; k < total; ++k)
      out += static_cast<char>('0' + k);
  }
  return out;
}

llvm::Expected<Equation> parseEquation(const PendingNode &n,
                                       llvm::StringRef text,
                                       llvm::ArrayRef<int64_t> ranks) {
  std::string compact;
  for (char c : text)
    if (c != ' ')
      compact += c;
  llvm::StringRef eq = compact;
  auto [lhs, rhs] = eq.split("->");
  bool explicitOutput = eq.contains("->");
  llvm::SmallVector<llvm::StringRef, 3> terms;
  lhs.split(terms, ',');
  if (terms.size() != ranks.size())
    return n.error(llvm::formatv("equation '{0}' has {1} operand terms for "
                                 "{2} inputs",
                                 text, terms.size(), ranks.size()));
  llvm::SmallVector<std::string, 3> parsed;
  llvm::SmallVector<int64_t, 3> ellipsisRanks;
  int64_t maxEllipsis = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    bool ellipsis;
    auto labels = parseTerm(n, terms[i], ellipsis);
    if (!labels)
      return labels.takeError();
    int64_t named = labels->size() - (ellipsis ? 1 : 0);
    int64_t rest = ranks[i] - named;
    if (rest < 0 || (!ellipsis && rest != 0))
      return n.error(llvm::formatv("equation term '{0}' does not match input "
                                   "{1} of rank {2}",
                                   terms[i], i, ranks[i]));
    parsed.push_back(*labels);
    ellipsisRanks.push_back(ellipsis ? rest : 0);
    maxEllipsis = std::max(maxEllipsis, ellipsisRanks.back());
  }
  if (maxEllipsis > 10)
    return n.error("'...' spans more than 10 axes");
  Equation result;
  for (size_t i = 0; i < parsed.size(); ++i)
    result.inputs.push_back(
        expandEllipsis(parsed[i], ellipsisRanks[i], maxEllipsis));
  if (explicitOutput) {
    bool ellipsis;
    auto labels = parseTerm(n, rhs, ellipsis);
    if (!labels)
      return labels.takeError();
    result.output = expandEllipsis(*labels, maxEllipsis, maxEllipsis);
    for (char c : result.output) {
      if (llvm::count(result.output, c) > 1)
        return n.error(llvm::formatv("output label '{0}' appears twice", c));
      if (llvm::none_of(result.inputs, [&](const std::string &t) {
            return t.find(c) != std::string::npos;
          }))
        return n.error(llvm::formatv("output label '{0}' is in no input", c));
    }
    return result;
  }
  // Implicit output: the broadcast axes, then the letters that appear once,
  // in alphabetical order.
  result.output = expandEllipsis(".", maxEllipsis, maxEllipsis);
  std::string all = std::accumulate(result.inputs.begin(), result.inputs.end(),
                                    std::string());
  std::string once;
  for (char c : all)
    if (isLabel(c) && llvm::count(all, c) == 1)
      once += c;
  llvm::sort(once);
  result.output += once;
  return result;
}

/// An operand as the contraction goes: its value and its axes' labels.
struct Term {
  Value *value;
  std::string labels;
  int64_t dim(char c) const { return value->getType().shape[labels.find(c)]; }
};

class EinsumBuilder {
public:
  EinsumBuilder(NodeEmitter &e, const PendingNode &n) : n(n), f(e, n) {}

  /// Takes the diagonal of every label `t` repeats.
  void takeDiagonals(Term &t) {
    for (size_t j = 1; t.value && j < t.labels.size(); ++j) {
      size_t i = t.labels.find(t.labels[j]);
      if (i == j)
        continue;
      const TensorType &type = t.value->getType();
      int64_t d = type.shape[i];
      if (type.shape[j] != d) {
        fail(llvm::formatv("label '{0}' is repeated with sizes {1} and {2}",
                           t.labels[j], d, type.shape[j]));
        t.value = nullptr;
        return;
      }
      Shape maskShape(type.rank(), 1);
      maskShape[i] = maskShape[j] = d;
      Tensor mask(TensorType(type.dtype, maskShape));
      for (int64_t a = 0; a < d; ++a)
        mask.setFromDouble(a * d + a, 1.0);
      Value *masked = f.add("diagonal_mask", OpKind::Mul,
                            {t.value, f.constant("eye", std::move(mask))});
      t.value = f.reduce("diagonal", OpKind::ReduceSum, masked,
                         {static_cast<int64_t>(j)}, false);
      t.labels.erase(j, 1);
      --j;
    }
  }

  /// Sums out the labels of `t` that are neither in `keep` nor in `other`.
  void sumOut(Term &t, llvm::StringRef keep, llvm::StringRef other) {
    Shape axes;
    std::string kept;
    for (size_t a = 0; a < t.labels.size(); ++a) {
      char c = t.labels[a];
      if (keep.contains(c) || other.contains(c))
        kept += c;
      else
        axes.push_back(a);
    }
    if (axes.empty())
      return;
    t.value = f.reduce("sum", OpKind::ReduceSum, t.value, axes, false);
    t.labels = kept;
  }

  /// `t` with its axes in the order of `labels` (a permutation of its own).
  Value *transposed(const Term &t, llvm::StringRef labels,
                    const std::string &resultName = "") {
    Shape perm;
    for (char c : labels)
      perm.push_back(t.labels.find(c));
    bool identity = true;
    for (size_t i = 0; i < perm.size(); ++i)
      identity &= perm[i] == static_cast<int64_t>(i);
    if (identity && resultName.empty())
      return t.value;
    return f.add("transpose", identity ? OpKind::Identity : OpKind::Transpose,
                 {t.value},
                 identity ? AttrMap{} : AttrMap{{"perm", Attr::ofInts(perm)}},
                 resultName);
  }

  Value *reshaped(Value *v, llvm::ArrayRef<int64_t> shape) {
    if (!v || llvm::equal(v->getType().shape, shape))
      return v;
    return f.add("reshape", OpKind::Reshape, {v},
                 {{"shape", Attr::ofInts(shape)}});
  }

  /// Contracts `a` and `b` into one term whose labels are those of `keep`
  /// that either has.
  Term contract(Term a, Term b, llvm::StringRef keep) {
    sumOut(a, keep, b.labels);
    sumOut(b, keep, a.labels);
    if (!a.value || !b.value)
      return Term{nullptr, ""};
    std::string batch, inner, rows, cols;
    for (char c : a.labels) {
      bool shared = b.labels.find(c) != std::string::npos;
      (shared ? (keep.contains(c) ? batch : inner) : rows) += c;
    }
    for (char c : b.labels)
      if (a.labels.find(c) == std::string::npos)
        cols += c;
    for (char c : batch + inner)
      if (a.value && b.value && a.dim(c) != b.dim(c))
        broadcast(a.dim(c) == 1 ? a : b, c, std::max(a.dim(c), b.dim(c)));
    if (!a.value || !b.value)
      return Term{nullptr, ""};
    auto product = [&](const Term &t, llvm::StringRef labels) {
      int64_t p = 1;
      for (char c : labels)
        p *= t.dim(c);
      return p;
    };
    int64_t batchSize = product(a, batch), innerSize = product(a, inner);
    Shape lhsShape{product(a, rows), innerSize},
        rhsShape{innerSize, product(b, cols)};
    if (!batch.empty()) {
      lhsShape.insert(lhsShape.begin(), batchSize);
      rhsShape.insert(rhsShape.begin(), batchSize);
    }
    Value *lhs = reshaped(transposed(a, batch + rows + inner), lhsShape);
    Value *rhs = reshaped(transposed(b, batch + inner + cols), rhsShape);
    Shape resultShape;
    for (char c : batch + rows)
      resultShape.push_back(a.dim(c));
    for (char c : cols)
      resultShape.push_back(b.dim(c));
    Value *product2 = f.add("matmul", OpKind::MatMul, {lhs, rhs});
    return Term{reshaped(product2, resultShape), batch + rows + cols};
  }

  /// Expands axis `c` of `t` (of size 1) to `size`.
  void broadcast(Term &t, char c, int64_t size) {
    if (t.dim(c) != 1) {
      fail(llvm::formatv("label '{0}' has sizes that do not broadcast", c));
      t.value = nullptr;
      return;
    }
    Shape shape = t.value->getType().shape;
    shape[t.labels.find(c)] = size;
    t.value = f.add("broadcast", OpKind::Expand, {t.value},
                    {{"shape", Attr::ofInts(shape)}});
  }

  void fail(const llvm::Twine &msg) {
    if (!error)
      error = n.error(msg);
  }

  /// The first error: a step's own, else the Formula's.
  llvm::Error takeError() {
    if (error) {
      llvm::consumeError(f.takeError());
      return std::move(error);
    }
    return f.takeError();
  }

private:
  const PendingNode &n;
  Formula f;
  llvm::Error error = llvm::Error::success();
};

} // namespace

llvm::Expected<ValueList> emitEinsum(NodeEmitter &e, PendingNode &n) {
  auto eq = n.attrs.find("equation");
  if (eq == n.attrs.end() || eq->second.getKind() != AttrKind::String)
    return n.error("needs a string attribute 'equation'");
  if (n.inputs.empty() || llvm::is_contained(n.inputs, nullptr))
    return n.error("needs at least one input");
  llvm::SmallVector<int64_t, 3> ranks;
  for (Value *v : n.inputs) {
    DType dt = v->getType().dtype;
    if (dt != DType::F32 && dt != DType::I32 && dt != DType::I64)
      return n.error("supports f32, i32 and i64 operands, got " +
                     v->getType().str());
    ranks.push_back(v->getType().rank());
  }
  auto equation = parseEquation(n, eq->second.getString(), ranks);
  if (!equation)
    return equation.takeError();

  EinsumBuilder b(e, n);
  llvm::SmallVector<Term, 3> terms;
  for (size_t i = 0; i < n.inputs.size(); ++i) {
    terms.push_back(Term{n.inputs[i], equation->inputs[i]});
    b.takeDiagonals(terms.back());
  }
  const std::string &output = equation->output;
  Term result = terms[0];
  for (size_t i = 1; i < terms.size() && result.value; ++i) {
    std::string keep = output;
    for (size_t j = i + 1; j < terms.size(); ++j)
      keep += terms[j].labels;
    result = b.contract(result, terms[i], keep);
  }
  Value *y = nullptr;
  if (result.value)
    b.sumOut(result, output, "");
  if (result.value)
    y = b.transposed(result, output, n.getOutputName(0));
  if (llvm::Error err = b.takeError())
    return std::move(err);
  return ValueList{y};
}

} // namespace kiln
