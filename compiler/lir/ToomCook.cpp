//===- ToomCook.cpp - The matrices of a 1-D Winograd F(m, r) --------------===//

#include "compiler/lir/ToomCook.h"

#include <cassert>
#include <cstddef>
#include <numeric>

namespace kiln {
namespace lir {

namespace {

/// An exact fraction; the matrices' entries stay far inside int64.
struct Fraction {
  int64_t num = 0, den = 1;
  Fraction(int64_t n = 0, int64_t d = 1) : num(n), den(d) {
    if (den < 0) {
      num = -num;
      den = -den;
    }
    int64_t g = std::gcd(num, den);
    if (g > 1) {
      num /= g;
      den /= g;
    }
  }
  Fraction operator*(Fraction o) const { return {num * o.num, den * o.den}; }
  Fraction operator/(Fraction o) const { return {num * o.den, den * o.num}; }
  Fraction operator-(Fraction o) const { return {num * o.den - o.num * den, den * o.den}; }
  bool isZero() const { return num == 0; }
  double value() const { return double(num) / double(den); }
};

/// Small points first: their powers, and so the transforms' constants,
/// stay small.
const Fraction kPoints[kMaxToomCookPoints - 1] = {0, 1, -1, 2, -2, {1, 2}, {-1, 2}, 3, -3};

using Matrix = std::vector<std::vector<Fraction>>;

/// The first `cols` columns of the Vandermonde matrix of `n` points, the
/// last of them infinity: its row is 1 in the last column.
Matrix vandermonde(int64_t n, int64_t cols) {
  Matrix v(n, std::vector<Fraction>(cols));
  for (int64_t i = 0; i + 1 < n; ++i) {
    Fraction p = 1;
    for (int64_t k = 0; k < cols; ++k, p = p * kPoints[i])
      v[i][k] = p;
  }
  v[n - 1][cols - 1] = 1;
  return v;
}

/// The inverse of the square matrix `a` by Gauss-Jordan elimination.
Matrix inverse(Matrix a) {
  const size_t n = a.size();
  Matrix inv(n, std::vector<Fraction>(n));
  for (size_t i = 0; i < n; ++i)
    inv[i][i] = 1;
  for (size_t c = 0; c < n; ++c) {
    size_t p = c;
    while (a[p][c].isZero())
      ++p;
    std::swap(a[c], a[p]);
    std::swap(inv[c], inv[p]);
    Fraction pivot = a[c][c];
    for (size_t j = 0; j < n; ++j) {
      a[c][j] = a[c][j] / pivot;
      inv[c][j] = inv[c][j] / pivot;
    }
    for (size_t r = 0; r < n; ++r) {
      if (r == c || a[r][c].isZero())
        continue;
      Fraction f = a[r][c];
      for (size_t j = 0; j < n; ++j) {
        a[r][j] = a[r][j] - f * a[c][j];
        inv[r][j] = inv[r][j] - f * inv[c][j];
      }
    }
  }
  return inv;
}

} // namespace

ToomCook toomCook(int64_t m, int64_t r) {
  assert(m >= 1 && r >= 1 && m + r - 1 <= kMaxToomCookPoints);
  ToomCook t;
  t.m = m;
  t.r = r;
  t.n = m + r - 1;
  const int64_t n = t.n;
  if (m == 1 || r == 1) {
    // One output (a dot product) or one tap (a scaling): no transform.
    t.at.assign(m * n, 0);
    t.g.assign(n * r, 0);
    t.bt.assign(n * n, 0);
    for (int64_t i = 0; i < n; ++i) {
      t.bt[i * n + i] = 1;
      t.g[i * r + (r == 1 ? 0 : i)] = 1;
      t.at[(m == 1 ? 0 : i) * n + i] = 1;
    }
    return t;
  }
  Matrix vm = vandermonde(n, m), vr = vandermonde(n, r), vInv = inverse(vandermonde(n, n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      t.at.push_back(vm[j][i].value());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < r; ++j)
      t.g.push_back(vr[i][j].value());
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j)
      t.bt.push_back(vInv[j][i].value());
  return t;
}

} // namespace lir
} // namespace kiln
