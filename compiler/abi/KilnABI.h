//===- KilnABI.h - The bundle ABI of runtime_min/kiln.h, checked -*- C++ -*-===//
//
// runtime_min/kiln.h is the one description of the bundle ABI. The compiler
// writes that ABI without running against it: the NAME_bundle descriptor is
// LLVM IR for the target's data layout and NAME.h is text. This header states
// what the compiler relies on, in kiln.h's own names, and checks it against
// kiln.h when the compiler is built: DType's numbering, and the fields of
// kiln_tensor and kiln_bundle in order with their kinds, from which codegen
// builds the target's struct types.
//
//===----------------------------------------------------------------------===//
#ifndef KILN_ABI_KILNABI_H
#define KILN_ABI_KILNABI_H

#include "compiler/graph/Type.h"

#include "kiln.h"

#include "llvm/ADT/StringRef.h"

#include <cstddef>
#include <iterator>
#include <type_traits>
#include <utility>

namespace kiln::abi {

/// The spelling of a name kiln.h declares, for the text the compiler writes;
/// a name kiln.h does not declare fails to compile here.
#define KILN_ABI_NAME(name) ((void)sizeof(name), llvm::StringLiteral(#name))

/// The runtime header a generated NAME.h includes.
inline constexpr llvm::StringLiteral kHeaderName = "kiln.h";
inline constexpr llvm::StringLiteral kBundleTypeName = KILN_ABI_NAME(kiln_bundle);
inline constexpr llvm::StringLiteral kTensorTypeName = KILN_ABI_NAME(kiln_tensor);
inline constexpr llvm::StringLiteral kStatusTypeName = KILN_ABI_NAME(kiln_status);

/// NAME_run's signature: HeaderGen declares it, BundleModule defines it (i32
/// of three pointers) and stores it in kiln_bundle.run.
static_assert(std::is_same_v<decltype(kiln_bundle::run),
                             int (*)(const uint8_t *, uint8_t *, uint8_t *)>,
              "kiln_bundle.run differs from the NAME_run the compiler emits");

/// Every DType beside its kiln_dtype.
inline constexpr std::pair<DType, kiln_dtype> kDTypes[] = {
    {DType::F32, KILN_F32},   {DType::I8, KILN_I8},   {DType::U8, KILN_U8},
    {DType::I16, KILN_I16},   {DType::I32, KILN_I32}, {DType::I64, KILN_I64},
    {DType::Bool, KILN_BOOL}, {DType::F16, KILN_F16}, {DType::F64, KILN_F64},
    {DType::U16, KILN_U16},   {DType::U32, KILN_U32}, {DType::U64, KILN_U64},
};

constexpr bool sameNumbering() {
  for (const auto &[dtype, kiln] : kDTypes)
    if (static_cast<unsigned>(dtype) != static_cast<unsigned>(kiln))
      return false;
  return true;
}
static_assert(sameNumbering(), "DType's numbering differs from kiln_dtype's");

/// The kiln_dtype a tensor table stores for `t`: DType's own value, since
/// the numbering is kiln_dtype's.
constexpr kiln_dtype kilnDType(DType t) { return static_cast<kiln_dtype>(t); }

/// How a descriptor field is stored. Pointers and sizes take the target's
/// width (32 bits on the Cortex-M cores), the others 32 bits everywhere.
enum class FieldKind : uint8_t { Pointer, Size, U32, I32, F32 };

/// One field of a kiln.h struct: its kind, and its offset and size on the
/// host, from the C struct itself.
struct Field {
  llvm::StringLiteral name;
  FieldKind kind;
  size_t hostOffset, hostSize;
};

/// Every field of kiln_tensor and kiln_bundle, in kiln.h's order, as
/// X(member, kind). A kiln_dtype is an I32: an int-sized enum on the hosts'
/// ABIs (arm-none-eabi gcc's short enums make it one byte, which reads the
/// same from the little-endian i32 since the next field is 4-aligned).
#define KILN_TENSOR_FIELDS(X)                                                  \
  X(name, Pointer) X(dtype, I32) X(rank, U32) X(shape, Pointer)                \
  X(offset, Size) X(size, Size) X(scale, F32) X(zero_point, I32)
#define KILN_BUNDLE_FIELDS(X)                                                  \
  X(abi_version, U32) X(name, Pointer) X(weights_size, Size)                   \
  X(io_size, Size) X(scratch_size, Size) X(alignment, Size)                    \
  X(num_inputs, U32) X(num_outputs, U32) X(inputs, Pointer)                    \
  X(outputs, Pointer) X(run, Pointer) X(embedded_weights, Pointer)

/// The fields by name, for code that gives each one its value.
#define KILN_ABI_ENUMERATOR(member, kind) member,
enum class TensorField : unsigned { KILN_TENSOR_FIELDS(KILN_ABI_ENUMERATOR) };
enum class BundleField : unsigned { KILN_BUNDLE_FIELDS(KILN_ABI_ENUMERATOR) };
#undef KILN_ABI_ENUMERATOR

#define KILN_ABI_TENSOR_ROW(member, kind)                                      \
  {#member, FieldKind::kind, offsetof(kiln_tensor, member),                    \
   sizeof(kiln_tensor::member)},
#define KILN_ABI_BUNDLE_ROW(member, kind)                                      \
  {#member, FieldKind::kind, offsetof(kiln_bundle, member),                    \
   sizeof(kiln_bundle::member)},
inline constexpr Field kTensorFields[] = {KILN_TENSOR_FIELDS(KILN_ABI_TENSOR_ROW)};
inline constexpr Field kBundleFields[] = {KILN_BUNDLE_FIELDS(KILN_ABI_BUNDLE_ROW)};
#undef KILN_ABI_TENSOR_ROW
#undef KILN_ABI_BUNDLE_ROW

constexpr size_t hostSize(FieldKind k) {
  switch (k) {
  case FieldKind::Pointer: return sizeof(void *);
  case FieldKind::Size: return sizeof(size_t);
  case FieldKind::U32:
  case FieldKind::I32:
  case FieldKind::F32: return 4;
  }
  return 0;
}

/// Whether `fields`, laid out in order with each kind's natural alignment as
/// LLVM does for a target, give the C struct's offsets, sizes and total size
/// on the host. Then the table names kiln.h's fields in kiln.h's order with
/// their widths, and the struct type built from the kinds for a 32-bit target
/// is kiln.h's struct there too.
template <size_t N>
constexpr bool matchesHostLayout(const Field (&fields)[N], size_t structSize) {
  size_t offset = 0, align = 1;
  for (const Field &f : fields) {
    size_t size = hostSize(f.kind);
    offset = (offset + size - 1) / size * size;
    if (f.hostOffset != offset || f.hostSize != size)
      return false;
    offset += size;
    align = size > align ? size : align;
  }
  return (offset + align - 1) / align * align == structSize;
}

/// Converts to any member type, to count a C struct's members: T{AnyMember x
/// N} compiles exactly for N up to the number of members.
struct AnyMember {
  template <typename T> constexpr operator T() const { return T(); }
};
template <size_t> using AnyMemberAt = AnyMember;
template <typename T, size_t... I>
constexpr auto initializableWith(std::index_sequence<I...>, int)
    -> decltype(T{AnyMemberAt<I>()...}, true) {
  return true;
}
template <typename T, size_t... I>
constexpr bool initializableWith(std::index_sequence<I...>, long) {
  return false;
}
/// Whether the C struct T has exactly N members: a member the table lacks
/// could otherwise hide in padding (after kiln_tensor.zero_point, say).
template <typename T, size_t N> constexpr bool hasMembers() {
  return initializableWith<T>(std::make_index_sequence<N>(), 0) &&
         !initializableWith<T>(std::make_index_sequence<N + 1>(), 0);
}

static_assert(hasMembers<kiln_tensor, std::size(kTensorFields)>(),
              "KILN_TENSOR_FIELDS lacks or adds a member of kiln_tensor in kiln.h");
static_assert(hasMembers<kiln_bundle, std::size(kBundleFields)>(),
              "KILN_BUNDLE_FIELDS lacks or adds a member of kiln_bundle in kiln.h");
static_assert(matchesHostLayout(kTensorFields, sizeof(kiln_tensor)),
              "KILN_TENSOR_FIELDS differs from kiln_tensor in kiln.h");
static_assert(matchesHostLayout(kBundleFields, sizeof(kiln_bundle)),
              "KILN_BUNDLE_FIELDS differs from kiln_bundle in kiln.h");

} // namespace kiln::abi

#endif
