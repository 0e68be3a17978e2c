//===- Specialization.cpp - What a launch specialises on ------------------===//

#include "Specialization.h"

namespace py = pybind11;
using namespace tile::python;

namespace {

/// Interned attribute names (registerSpecialization): the warm launch path
/// looks them up on every tensor argument.
PyObject *strIsCuda, *strIsPinned, *strDataPtr, *strInterface;

bool divisibleBy16(uint64_t value) { return value % 16 == 0; }

ArgSpec specializeInteger(PyObject *value, bool specialize) {
  int overflow = 0;
  long long x = PyLong_AsLongLongAndOverflow(value, &overflow);
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return {};
  }
  if (overflow > 0) {
    unsigned long long u = PyLong_AsUnsignedLongLong(value);
    if (PyErr_Occurred()) { // 2^64 or more
      PyErr_Clear();
      return {};
    }
    return {ArgKind::U64, specialize && divisibleBy16(u)};
  }
  if (overflow < 0) // below -2^63
    return {};
  if (specialize && x == 1)
    return {ArgKind::One, true};
  bool small = x >= -(1ll << 31) && x < (1ll << 31);
  // Two's complement: -16 is a multiple of 16 as in Python.
  return {small ? ArgKind::I32 : ArgKind::I64,
          specialize && divisibleBy16(static_cast<uint64_t>(x))};
}

/// Whether a tensor off the GPU is in page-locked host memory (torch's
/// is_pinned()): with unified addressing its data_ptr() is an address the
/// kernel can read and write, as Triton accepts it.
bool isPinnedHostTensor(PyObject *value) {
  PyErr_Clear();
  PyObject *pinned = PyObject_CallMethodNoArgs(value, strIsPinned);
  if (!pinned) {
    PyErr_Clear();
    return false;
  }
  int result = PyObject_IsTrue(pinned);
  Py_DECREF(pinned);
  PyErr_Clear();
  return result == 1;
}

/// data_ptr() of a tensor-like on the GPU (or in pinned host memory);
/// false for one that says it is not on the GPU, or whose data_ptr() is
/// not an integer.
bool tensorAddress(PyObject *value, uint64_t &address) {
  PyObject *cuda = PyObject_GetAttr(value, strIsCuda);
  if (!cuda) {
    PyErr_Clear(); // no is_cuda: taken to be a GPU tensor
  } else {
    int isCuda = PyObject_IsTrue(cuda);
    Py_DECREF(cuda);
    if (isCuda != 1 && !isPinnedHostTensor(value)) {
      PyErr_Clear();
      return false;
    }
  }
  PyObject *ptr = PyObject_CallMethodNoArgs(value, strDataPtr);
  if (!ptr || !PyLong_Check(ptr)) {
    Py_XDECREF(ptr);
    PyErr_Clear();
    return false;
  }
  address = PyLong_AsUnsignedLongLong(ptr);
  Py_DECREF(ptr);
  if (PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  return true;
}

/// data[0] of a __cuda_array_interface__, when it has the documented form.
bool interfaceAddress(PyObject *value, uint64_t &address) {
  PyObject *interface = PyObject_GetAttr(value, strInterface);
  if (!interface) {
    PyErr_Clear();
    return false;
  }
  bool ok = false;
  PyObject *data = PyDict_Check(interface)
                       ? PyDict_GetItemString(interface, "data")
                       : nullptr;
  if (data && PyTuple_Check(data) && PyTuple_GET_SIZE(data) >= 1 &&
      PyLong_Check(PyTuple_GET_ITEM(data, 0))) {
    address = PyLong_AsUnsignedLongLong(PyTuple_GET_ITEM(data, 0));
    ok = !PyErr_Occurred();
  }
  PyErr_Clear();
  Py_DECREF(interface);
  return ok;
}

const char *kindName(ArgKind kind) {
  switch (kind) {
  case ArgKind::Bool:
    return "i1";
  case ArgKind::One:
    return "one";
  case ArgKind::I32:
    return "i32";
  case ArgKind::I64:
    return "i64";
  case ArgKind::U64:
    return "u64";
  case ArgKind::Float:
    return "fp32";
  case ArgKind::Pointer:
    return "pointer";
  case ArgKind::Descriptor:
    return "descriptor";
  case ArgKind::Unsupported:
    break;
  }
  return nullptr;
}

} // namespace

TypeKind tile::python::typeKindOf(PyTypeObject *type) {
  PyObject *object = reinterpret_cast<PyObject *>(type);
  bool descriptor = PyObject_HasAttrString(object, "_launch_form");
  bool tensorLike = !descriptor && PyObject_HasAttrString(object, "data_ptr");
  PyErr_Clear();
  return descriptor   ? TypeKind::Descriptor
         : tensorLike ? TypeKind::TensorLike
                      : TypeKind::Other;
}

ArgSpec tile::python::specializeArgument(PyObject *value, bool specialize,
                                         TypeKind type) {
  if (PyBool_Check(value))
    return {ArgKind::Bool};
  if (PyLong_Check(value))
    return specializeInteger(value, specialize);
  if (PyFloat_Check(value))
    return {ArgKind::Float};
  if (type == TypeKind::Descriptor)
    return {ArgKind::Descriptor};
  uint64_t address = 0;
  bool found = type == TypeKind::TensorLike ? tensorAddress(value, address)
                                            : interfaceAddress(value, address);
  if (!found)
    return {};
  return {ArgKind::Pointer, specialize && divisibleBy16(address), address};
}

void tile::python::registerSpecialization(py::module_ &m) {
  strIsCuda = PyUnicode_InternFromString("is_cuda");
  strIsPinned = PyUnicode_InternFromString("is_pinned");
  strDataPtr = PyUnicode_InternFromString("data_ptr");
  strInterface = PyUnicode_InternFromString("__cuda_array_interface__");
  m.def(
      "specialize_argument",
      [](py::handle value, bool specialize) -> py::object {
        ArgSpec spec = specializeArgument(value.ptr(), specialize,
                                          typeKindOf(Py_TYPE(value.ptr())));
        const char *name = kindName(spec.kind);
        if (!name)
          return py::none();
        return py::make_tuple(name, spec.divisible);
      },
      py::arg("value"), py::arg("specialize") = true,
      "How a launch specialises one argument: (kind, divisible) or None");
}
