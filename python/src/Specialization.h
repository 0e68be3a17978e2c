//===- Specialization.h - What a launch specialises on ----------*- C++ -*-===//
//
// The one statement of Triton's specialisation rules in tile: booleans,
// integers equal to 1 (compiled in as constants), the i32 / i64 / u64
// ranges, divisibility by 16 of integers and of pointer addresses, floats,
// tensor descriptors. The dispatcher's hash key (Dispatcher.cpp) and the
// Python cache key (tile.runtime.jit._spec_key, through
// `_C.specialize_argument`) are both built from it, so they cannot drift
// apart.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_PYTHON_SRC_SPECIALIZATION_H
#define TILE_PYTHON_SRC_SPECIALIZATION_H

#include <pybind11/pybind11.h>

#include <cstdint>

namespace tile {
namespace python {

enum class ArgKind {
  Unsupported, // the Python path explains why
  Bool,
  One, // an integer equal to 1, specialised as a constant
  I32,
  I64,
  U64,
  Float,
  Pointer,    // a tensor-like: data_ptr() or __cuda_array_interface__
  Descriptor, // a host tensor descriptor (has _launch_form)
};

struct ArgSpec {
  ArgKind kind = ArgKind::Unsupported;
  /// Integers: a multiple of 16; pointers: 16-byte aligned. Always false
  /// for parameters in do_not_specialize.
  bool divisible = false;
  /// Pointers: the address.
  uint64_t address = 0;
};

/// What an argument's Python type says, before its value is looked at.
enum class TypeKind { Other, TensorLike, Descriptor };

/// The type's kind, by the attributes its class has.
TypeKind typeKindOf(PyTypeObject *type);

/// How a launch specialises `value` (`specialize` false for parameters in
/// do_not_specialize). Leaves no Python exception set.
ArgSpec specializeArgument(PyObject *value, bool specialize, TypeKind type);

/// Adds tile._C.specialize_argument(value, specialize) -> (kind, divisible)
/// or None, with kind one of "i1", "one", "i32", "i64", "u64", "fp32",
/// "pointer", "descriptor".
void registerSpecialization(pybind11::module_ &m);

} // namespace python
} // namespace tile

#endif // TILE_PYTHON_SRC_SPECIALIZATION_H
