//===- GridSample.cpp - GridSample as gathers of weighted taps ------------===//
//
// GridSample-16 reads X [N, C, H, W] at the points of a grid [N, Ho, Wo, 2]
// of (x, y) in [-1, 1]. kiln imports it as the arithmetic that computes it:
// the grid is mapped to pixel coordinates (align_corners decides how), then
// each interpolation tap (1 for nearest, 2x2 for bilinear, 4x4 for bicubic)
// is a GatherElements of X at the tap's pixel, times the tap's weight, and
// the taps are summed. A tap outside the image reads 0 ("zeros"); "border"
// and "reflection" move the coordinates inside first (bicubic moves each
// tap, as PyTorch's grid_sample, whose results ONNX's tests hold, does).
//
//===----------------------------------------------------------------------===//

#include "compiler/frontend/onnx/AdapterUtils.h"

#include "compiler/ops/OnnxDTypes.h"

#include <array>

namespace kiln {
namespace {

class GridSampler {
public:
  GridSampler(NodeEmitter &e, const PendingNode &n, Value *x, bool alignCorners,
              llvm::StringRef padding)
      : f(e, n), x(x), alignCorners(alignCorners), padding(padding) {
    const TensorType &xt = x->getType();
    batch = xt.shape[0];
    channels = xt.shape[1];
    height = xt.shape[2];
    width = xt.shape[3];
    pixels =
        f.add("x_pixels", OpKind::Reshape, {x},
              {{"shape", Attr::ofInts({batch, channels, height * width})}});
  }

  /// Grid coordinate `axis` (0: x, 1: y) as a pixel coordinate [N, Ho, Wo].
  Value *coordinate(Value *grid, int64_t axis) {
    const TensorType &gt = grid->getType();
    Tensor index(TensorType(DType::I64, {}));
    index.data<int64_t>()[0] = axis;
    Value *g = f.add(axis ? "grid_y" : "grid_x", OpKind::Gather,
                     {grid, f.constant("axis_index", std::move(index))},
                     {{"axis", Attr::ofInt(gt.rank() - 1)}});
    int64_t size = axis ? height : width;
    // align_corners: -1 and 1 are the centers of the corner pixels, else
    // their outer edges.
    float scale = alignCorners ? (size - 1) / 2.0f : size / 2.0f;
    return affine(g, scale, (size - 1) / 2.0f);
  }

  /// Border and reflection padding: the coordinate moved into the image.
  Value *padded(Value *c, int64_t size) {
    if (padding == "border")
      return clip(c, 0, size - 1);
    if (padding != "reflection")
      return c;
    // Reflect about the image's edges (the corner centers with
    // align_corners, else the outer pixel edges), then clip.
    float lo = alignCorners ? 0.0f : -0.5f;
    float span = alignCorners ? size - 1 : size;
    if (span <= 0)
      return f.add("zero", OpKind::Mul, {c, f.scalar("zero", 0.0f)});
    Value *dist = f.add(
        "reflect_dist", OpKind::Abs,
        {f.add("reflect_from", OpKind::Sub, {c, f.scalar("reflect_lo", lo)})});
    Value *flips = f.add(
        "reflect_flips", OpKind::Floor,
        {f.add("reflect_spans", OpKind::Div, {dist, f.scalar("span", span)})});
    Value *extra = f.add("reflect_extra", OpKind::Sub,
                         {dist, f.add("reflect_whole", OpKind::Mul,
                                      {flips, f.scalar("span", span)})});
    Value *half = f.add("reflect_half", OpKind::Floor,
                        {f.add("reflect_halved", OpKind::Mul,
                               {flips, f.scalar("half", 0.5f)})});
    Value *even = f.add("reflect_even", OpKind::Equal,
                        {flips, f.add("reflect_twice", OpKind::Mul,
                                      {half, f.scalar("two", 2.0f)})});
    Value *forward = affine(extra, 1.0f, lo);
    Value *backward = affine(extra, -1.0f, lo + span);
    return clip(f.add("reflected", OpKind::Where, {even, forward, backward}), 0,
                size - 1);
  }

  /// X at integer pixel coordinates (ix, iy) [N, Ho, Wo] times `weight`
  /// [N, Ho, Wo] (nullptr: 1); 0 where the pixel is outside the image.
  Value *tap(Value *ix, Value *iy, Value *weight) {
    Value *cx = clip(ix, 0, width - 1), *cy = clip(iy, 0, height - 1);
    Value *inside = f.add("tap_inside", OpKind::Cast,
                          {f.add("tap_in", OpKind::And,
                                 {f.add("tap_in_x", OpKind::Equal, {cx, ix}),
                                  f.add("tap_in_y", OpKind::Equal, {cy, iy})})},
                          {{"to", Attr::ofInt(onnxFromDType(DType::F32))}});
    Value *flat = f.add("tap_index", OpKind::Cast,
                        {f.add("tap_offset", OpKind::Add,
                               {f.add("tap_row", OpKind::Mul,
                                      {cy, f.scalar("width", float(width))}),
                                cx})},
                        {{"to", Attr::ofInt(onnxFromDType(DType::I64))}});
    Shape gridShape = ix->getType().shape;
    int64_t points = gridShape[1] * gridShape[2];
    // One image: a Gather of every channel's pixels at the same indices.
    // Several: each image's indices, repeated for its channels.
    Value *values;
    if (batch == 1) {
      values = f.add("tap_values", OpKind::Gather,
                     {pixels, f.add("tap_index_row", OpKind::Reshape, {flat},
                                    {{"shape", Attr::ofInts({points})}})},
                     {{"axis", Attr::ofInt(2)}});
    } else {
      Value *index = f.add("tap_channels", OpKind::Expand,
                           {f.add("tap_index_row", OpKind::Reshape, {flat},
                                  {{"shape", Attr::ofInts({batch, 1, points})}})},
                           {{"shape", Attr::ofInts({batch, channels, points})}});
      values = f.add("tap_values", OpKind::GatherElements, {pixels, index},
                     {{"axis", Attr::ofInt(2)}});
    }
    Value *w =
        weight ? f.add("tap_weight", OpKind::Mul, {weight, inside}) : inside;
    return f.add(
        "tap", OpKind::Mul,
        {f.add("tap_grid", OpKind::Reshape, {values},
               {{"shape",
                 Attr::ofInts({batch, channels, gridShape[1], gridShape[2]})}}),
         f.add("tap_weight_row", OpKind::Reshape, {w},
               {{"shape",
                 Attr::ofInts({batch, 1, gridShape[1], gridShape[2]})}})});
  }

  Value *sum(Value *acc, Value *term) {
    return acc ? f.add("taps", OpKind::Add, {acc, term}) : term;
  }

  Value *affine(Value *v, float scale, float offset) {
    return f.add("offset", OpKind::Add,
                 {f.add("scale", OpKind::Mul, {v, f.scalar("s", scale)}),
                  f.scalar("o", offset)});
  }
  Value *clip(Value *v, int64_t lo, int64_t hi) {
    return f.add(
        "clip", OpKind::Clip, {v},
        {{"min", Attr::ofFloat(float(lo))}, {"max", Attr::ofFloat(float(hi))}});
  }

  Formula f;
  Value *x;
  bool alignCorners;
  llvm::StringRef padding;
  int64_t batch, channels, height, width;
  Value *pixels;
};

/// Keys' cubic convolution weights (A = -0.75) of the taps at -1, 0, 1, 2
/// from floor(c), for the fraction `t` = c - floor(c).
std::array<Value *, 4> cubicWeights(GridSampler &s, Value *t) {
  Formula &f = s.f;
  constexpr float a = -0.75f;
  auto poly = [&](Value *u, float c3, float c2, float c1, float c0) {
    // ((c3 u + c2) u + c1) u + c0.
    Value *p = s.affine(u, c3, c2);
    p = f.add("cubic", OpKind::Add,
              {f.add("cubic_mul", OpKind::Mul, {p, u}), f.scalar("c1", c1)});
    return f.add("cubic", OpKind::Add,
                 {f.add("cubic_mul", OpKind::Mul, {p, u}), f.scalar("c0", c0)});
  };
  Value *oneMinusT = s.affine(t, -1.0f, 1.0f);
  // Near taps (|d| < 1): (A+2)|d|^3 - (A+3)|d|^2 + 1; far taps (1 <= |d| <
  // 2): A|d|^3 - 5A|d|^2 + 8A|d| - 4A.
  return {poly(s.affine(t, 1.0f, 1.0f), a, -5 * a, 8 * a, -4 * a),
          poly(t, a + 2, -(a + 3), 0.0f, 1.0f),
          poly(oneMinusT, a + 2, -(a + 3), 0.0f, 1.0f),
          poly(s.affine(t, -1.0f, 2.0f), a, -5 * a, 8 * a, -4 * a)};
}

} // namespace

llvm::Expected<ValueList> emitGridSample(NodeEmitter &e, PendingNode &n) {
  if (n.inputs.size() != 2 || !n.inputs[0] || !n.inputs[1])
    return n.error("expects inputs X and grid");
  Value *x = n.inputs[0], *grid = n.inputs[1];
  const TensorType &xt = x->getType(), &gt = grid->getType();
  if (xt.rank() != 4 || gt.rank() != 4 || gt.shape[3] != 2 ||
      gt.shape[0] != xt.shape[0])
    return n.error("expects X [N, C, H, W] and grid [N, Ho, Wo, 2], got " +
                   xt.str() + " and " + gt.str());
  if (xt.dtype != DType::F32 || gt.dtype != DType::F32)
    return n.error("supports f32 only");
  auto align = intAttr(n, "align_corners", 0);
  if (!align)
    return align.takeError();
  auto stringAttr = [&](llvm::StringRef name, llvm::StringRef dflt) {
    auto it = n.attrs.find(name);
    return it == n.attrs.end() || it->second.getKind() != AttrKind::String
               ? dflt.str()
               : it->second.getString().str();
  };
  // GridSample-20 renamed bilinear and bicubic to linear and cubic.
  const bool renamed = e.getOpset() >= 20;
  std::string mode = stringAttr("mode", renamed ? "linear" : "bilinear");
  if (renamed && (mode == "linear" || mode == "cubic"))
    mode = mode == "linear" ? "bilinear" : "bicubic";
  else if (renamed && mode != "nearest")
    return n.error("unknown mode '" + mode + "'");
  std::string padding = stringAttr("padding_mode", "zeros");
  if (mode != "bilinear" && mode != "nearest" && mode != "bicubic")
    return n.error("unknown mode '" + mode + "'");
  if (padding != "zeros" && padding != "border" && padding != "reflection")
    return n.error("unknown padding_mode '" + padding + "'");

  GridSampler s(e, n, x, *align != 0, padding);
  Formula &f = s.f;
  Value *cx = s.coordinate(grid, 0), *cy = s.coordinate(grid, 1);
  Value *y = nullptr;
  if (mode == "bicubic") {
    Value *x0 = f.add("floor_x", OpKind::Floor, {cx});
    Value *y0 = f.add("floor_y", OpKind::Floor, {cy});
    auto wx = cubicWeights(s, f.add("frac_x", OpKind::Sub, {cx, x0}));
    auto wy = cubicWeights(s, f.add("frac_y", OpKind::Sub, {cy, y0}));
    for (int dy = 0; dy < 4; ++dy)
      for (int dx = 0; dx < 4; ++dx) {
        Value *ix = s.padded(s.affine(x0, 1.0f, dx - 1.0f), s.width);
        Value *iy = s.padded(s.affine(y0, 1.0f, dy - 1.0f), s.height);
        y = s.sum(
            y, s.tap(ix, iy, f.add("weight", OpKind::Mul, {wx[dx], wy[dy]})));
      }
  } else {
    cx = s.padded(cx, s.width);
    cy = s.padded(cy, s.height);
    if (mode == "nearest") {
      // Round: halves to even, as std::nearbyint in PyTorch's kernel.
      y = s.tap(f.add("nearest_x", OpKind::Round, {cx}),
                f.add("nearest_y", OpKind::Round, {cy}), nullptr);
    } else {
      Value *x0 = f.add("floor_x", OpKind::Floor, {cx});
      Value *y0 = f.add("floor_y", OpKind::Floor, {cy});
      Value *fx = f.add("frac_x", OpKind::Sub, {cx, x0});
      Value *fy = f.add("frac_y", OpKind::Sub, {cy, y0});
      Value *wx[] = {s.affine(fx, -1.0f, 1.0f), fx};
      Value *wy[] = {s.affine(fy, -1.0f, 1.0f), fy};
      for (int dy = 0; dy < 2; ++dy)
        for (int dx = 0; dx < 2; ++dx)
          y = s.sum(y, s.tap(s.affine(x0, 1.0f, dx), s.affine(y0, 1.0f, dy),
                             f.add("weight", OpKind::Mul, {wx[dx], wy[dy]})));
    }
  }
  y = f.add("y", OpKind::Identity, {y}, {},
            n.getOutputName(0));
  if (llvm::Error err = f.takeError())
    return std::move(err);
  return ValueList{y};
}

} // namespace kiln
