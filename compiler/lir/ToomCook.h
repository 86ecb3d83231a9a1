//===- ToomCook.h - The matrices of a 1-D Winograd F(m, r) -------*- C++ -*-===//
//
// m outputs of an r-tap correlation y_i = sum_k g_k d_{i+k} from n = m + r - 1
// inputs, with n multiplications: y = A^T [(G g) . (B^T d)]. Built by
// transposing Toom-Cook's linear convolution at the points 0, 1, -1, 2, -2,
// 1/2, -1/2, 3, -3 (as many as needed) and infinity: with V the n x n
// Vandermonde matrix of the points (infinity's row picks the leading
// coefficient), A^T = V_m^T, G = V_r and B^T = V^-T, V_k being the first k
// columns of V with infinity's 1 in the last. Computed exactly, in
// fractions, so that the weights' transform does not depend on the host's
// floating point.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_LIR_TOOMCOOK_H
#define KILN_LIR_TOOMCOOK_H

#include <cstdint>
#include <vector>

namespace kiln {
namespace lir {

/// The most inputs a ToomCook supports: the points listed above.
constexpr int64_t kMaxToomCookPoints = 10;

struct ToomCook {
  int64_t m = 0, r = 0, n = 0;
  std::vector<double> at; ///< A^T, m x n, row-major
  std::vector<double> g;  ///< G, n x r
  std::vector<double> bt; ///< B^T, n x n

  double atAt(int64_t i, int64_t j) const { return at[i * n + j]; }
  double gAt(int64_t i, int64_t j) const { return g[i * r + j]; }
  double btAt(int64_t i, int64_t j) const { return bt[i * n + j]; }
};

/// F(m, r), for m, r >= 1 and m + r - 1 <= kMaxToomCookPoints. F(1, r) and
/// F(m, 1) are the identity's: one point, or the plain products.
ToomCook toomCook(int64_t m, int64_t r);

} // namespace lir
} // namespace kiln

#endif
