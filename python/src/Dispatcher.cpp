//===- Dispatcher.cpp - The warm launch path of kernel[grid](...) ---------===//
//
// After the first launch of a specialization, `kernel[grid](*args, **kw)`
// never runs Python: the dispatcher binds the arguments, builds the
// specialization key from them (dtypes, 16-byte alignment, integer ranges,
// constexpr values, options), finds the loaded kernel in a hash table,
// packs the parameters and calls cuLaunchKernel on torch's current stream.
//
// Anything it does not recognise goes to the Python path (JITFunction.run),
// which raises the argument errors and handles the rare cases; a miss asks
// Python to compile (JITFunction._prepare) and remembers the answer. When a
// launcher other than the CUDA one is active (tests, no driver), the
// dispatcher still keys in C++ and hands the launch to it.
//
// Why this file is long: it is one CPython type with the whole hot path
// (bind, key, look up, pack, launch) and the cold path that fills its table;
// its pieces share the DispatcherObject and Entry structures. The rules
// it keys by live in Specialization.cpp, descriptor recipes in
// HostDescriptors.cpp.
//
//===----------------------------------------------------------------------===//

#include "Dispatcher.h"
#include "HostDescriptors.h"
#include "Specialization.h"

#include "tile/Runtime/Runtime.h"

#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace {

// Triton has no limit short of CUDA's parameter space (32 KiB on sm_90);
// library kernels that pass every stride reach 74 (mamba-ssm).
constexpr int kMaxParams = 256;

using KeyHash = tile::python::WordsHash;
using tile::python::ArgKind;
using tile::python::ArgSpec;
using tile::python::specializeArgument;
using tile::python::TypeKind;
using tile::python::typeKindOf;

/// One compiled specialization.
struct Entry {
  PyObject *kernel = nullptr;             // tile CompiledKernel (owned)
  std::vector<int> runtimeParams;         // parameter indices passed at launch
  std::string signature;                  // one letter per runtime parameter
  std::vector<PyObject *> constexprs;     // owned; compared on every hit
  std::vector<tile::LoadedKernel> loaded; // one per device it ran on
  // Descriptors the kernel makes (tl.make_tensor_descriptor): trailing
  // parameters encoded from the call's arguments.
  std::vector<tile::python::HostDescriptorRecipe> madeDescriptors;
  // Trailing parameters this file cannot compute: Python launches it.
  bool pythonOnly = false;
  // Global values were compiled in: Python checks them on every launch.
  bool checksGlobals = false;
};

struct DispatcherObject {
  PyObject_HEAD PyObject *fn; // the JITFunction
  PyObject *argNames;         // tuple of str
  PyObject *defaults;         // tuple; `missing` where there is none
  PyObject *missing;
  PyObject *launcherModule; // tile.runtime.launcher
  PyObject *cudaLauncherType;
  PyObject *getDevice, *getStream; // torch's, fetched on first CUDA launch
  int deviceCount; // the GPUs torch sees; -1 until the first CUDA launch
  std::vector<bool> *isConstexpr;
  std::vector<bool> *specialize;
  std::vector<bool> *alignment; // false: do_not_specialize_on_alignment
  std::unordered_map<std::vector<uint64_t>, Entry, KeyHash> *table;
  std::unordered_map<PyTypeObject *, TypeKind> *kinds;
  int numParams;
};

struct BoundLaunchObject {
  PyObject_HEAD vectorcallfunc vectorcall;
  DispatcherObject *dispatcher; // owned
  PyObject *grid;               // owned
};

PyObject *str_dtype, *str_active, *str_launch, *str_prepare, *str_run,
    *str_num_warps, *str_num_stages, *str_target, *str_load, *str_signature,
    *str_stream_functions, *str_active_fn, *str_launch_form, *str_metadata,
    *str_host_descriptors, *str_used_globals, *str_check_globals,
    *str_get_device, *str_device_count, *str_name;

/// Launch options that pick a compilation (Triton's names). Python checks
/// their values (jit._resolve_options) before anything is keyed by them.
constexpr int kNumOptions = 10;
const char *kOptionNames[kNumOptions] = {"num_warps",
                                         "num_stages",
                                         "target",
                                         "enable_fp_fusion",
                                         "num_ctas",
                                         "maxnreg",
                                         "launch_cooperative_grid",
                                         "launch_pdl",
                                         "debug",
                                         "enable_reflect_ftz"};
PyObject *optionNames[kNumOptions]; // kOptionNames, interned

//===----------------------------------------------------------------------===//
// Binding and keying
//===----------------------------------------------------------------------===//

/// The arguments of one call, bound to parameters.
struct Call {
  PyObject *values[kMaxParams];        // borrowed
  PyObject *options[kNumOptions] = {}; // borrowed
  uint64_t pointers[kMaxParams];       // data_ptr() of tensor-like arguments
  bool isPointer[kMaxParams];
  PyObject *maps[kMaxParams]; // encoded host descriptors (borrowed bytes)
  std::vector<uint64_t> key;
};

enum Tag : uint64_t {
  TagConstexpr = 1,
  TagBool,
  TagOne,
  TagI32,
  TagI64,
  TagU64,
  TagFloat,
  TagTensor,
  TagOption,
  TagDefaultOption,
  TagDescriptor,
  TagNone, // None: a constexpr None, as Triton specialises it
};

/// The parameter a keyword names, or -1. Names written at a call site are
/// interned and so is each parameter name, so the pointer scan nearly always
/// decides; the string comparison serves names built at run time.
int keywordIndex(DispatcherObject *self, PyObject *name) {
  int n = self->numParams;
  for (int i = 0; i < n; ++i)
    if (PyTuple_GET_ITEM(self->argNames, i) == name)
      return i;
  // A launch option (num_warps, ...) is no parameter: spare it the string
  // comparisons below, which cost a launch about a microsecond per option.
  for (PyObject *option : optionNames)
    if (option == name)
      return -1;
  for (int i = 0; i < n; ++i)
    if (PyUnicode_Compare(PyTuple_GET_ITEM(self->argNames, i), name) == 0)
      return i;
  PyErr_Clear();
  return -1;
}

/// The launch option a keyword names, or -1.
int optionIndex(PyObject *name) {
  for (int o = 0; o < kNumOptions; ++o)
    if (optionNames[o] == name)
      return o;
  for (int o = 0; o < kNumOptions; ++o)
    if (PyUnicode_Compare(optionNames[o], name) == 0)
      return o;
  PyErr_Clear();
  return -1;
}

/// Binds positional and keyword arguments. Returns false (no exception)
/// when the call needs the Python path: a bad name, a duplicate, a missing
/// argument.
bool bind(DispatcherObject *self, PyObject *const *args, size_t nargs,
          PyObject *kwnames, Call &call) {
  int n = self->numParams;
  if (nargs > static_cast<size_t>(n))
    return false;
  for (int i = 0; i < n; ++i)
    call.values[i] = nullptr;
  for (size_t i = 0; i < nargs; ++i)
    call.values[i] = args[i];
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k) {
    PyObject *name = PyTuple_GET_ITEM(kwnames, k);
    PyObject *value = args[nargs + k];
    int index = keywordIndex(self, name);
    if (index >= 0) {
      if (call.values[index])
        return false;
      call.values[index] = value;
      continue;
    }
    int option = optionIndex(name);
    if (option < 0)
      return false;
    call.options[option] = value;
  }
  for (int i = 0; i < n; ++i) {
    if (call.values[i])
      continue;
    PyObject *fallback = PyTuple_GET_ITEM(self->defaults, i);
    if (fallback == self->missing)
      return false;
    call.values[i] = fallback;
  }
  return true;
}

void pushObject(std::vector<uint64_t> &key, uint64_t tag, PyObject *value,
                bool &ok) {
  Py_hash_t hash = PyObject_Hash(value);
  if (hash == -1) {
    PyErr_Clear();
    ok = false;
    return;
  }
  key.push_back(tag);
  key.push_back(reinterpret_cast<uintptr_t>(Py_TYPE(value)));
  key.push_back(static_cast<uint64_t>(hash));
}

/// typeKindOf, remembered per type.
TypeKind kindOf(DispatcherObject *self, PyTypeObject *type) {
  auto it = self->kinds->find(type);
  if (it != self->kinds->end())
    return it->second;
  TypeKind kind = typeKindOf(type);
  self->kinds->emplace(type, kind);
  return kind;
}

/// The specialization key of a bound call, as the Python path computes it
/// (jit._spec_key), plus the options. False: leave it to Python.
bool buildKey(DispatcherObject *self, Call &call) {
  std::vector<uint64_t> &key = call.key;
  key.clear();
  bool ok = true;
  for (int i = 0; i < self->numParams && ok; ++i) {
    PyObject *v = call.values[i];
    call.isPointer[i] = false;
    if ((*self->isConstexpr)[i]) {
      pushObject(key, TagConstexpr, v, ok);
      continue;
    }
    if (v == Py_None) {
      key.push_back(TagNone);
      continue;
    }
    ArgSpec spec =
        specializeArgument(v, (*self->specialize)[i], kindOf(self, Py_TYPE(v)));
    if (!(*self->alignment)[i])
      spec.divisible = false;
    switch (spec.kind) {
    case ArgKind::Unsupported:
      return false;
    case ArgKind::Bool:
      key.push_back(TagBool);
      continue;
    case ArgKind::One:
      key.push_back(TagOne);
      continue;
    case ArgKind::I32:
    case ArgKind::I64:
    case ArgKind::U64:
      key.push_back(spec.kind == ArgKind::I32   ? TagI32
                    : spec.kind == ArgKind::I64 ? TagI64
                                                : TagU64);
      key.push_back(spec.divisible);
      continue;
    case ArgKind::Float:
      key.push_back(TagFloat);
      continue;
    case ArgKind::Descriptor:
    case ArgKind::Pointer:
      break;
    }
    if (spec.kind == ArgKind::Descriptor) {
      // (interned signature type, encoded map), cached on the descriptor.
      PyObject *form = PyObject_CallMethodOneArg(
          v, str_launch_form, PyTuple_GET_ITEM(self->argNames, i));
      if (!form || !PyTuple_Check(form) || PyTuple_GET_SIZE(form) != 2 ||
          !PyBytes_Check(PyTuple_GET_ITEM(form, 1)) ||
          PyBytes_GET_SIZE(PyTuple_GET_ITEM(form, 1)) != 128) {
        Py_XDECREF(form);
        PyErr_Clear();
        return false;
      }
      PyObject *sig = PyTuple_GET_ITEM(form, 0);
      Py_hash_t hash = PyObject_Hash(sig);
      // The descriptor holds the tuple, and the call holds the descriptor.
      call.maps[i] = PyTuple_GET_ITEM(form, 1);
      Py_DECREF(form);
      if (hash == -1) {
        PyErr_Clear();
        return false;
      }
      key.push_back(TagDescriptor);
      key.push_back(reinterpret_cast<uintptr_t>(sig));
      key.push_back(static_cast<uint64_t>(hash));
      continue;
    }
    PyObject *dtype = PyObject_GetAttr(v, str_dtype);
    if (!dtype) {
      PyErr_Clear();
      return false;
    }
    call.pointers[i] = spec.address;
    call.isPointer[i] = true;
    key.push_back(TagTensor);
    // dtype objects are singletons; the entry's kernel keeps none alive, so
    // the key also carries the dtype's hash against a reused address.
    key.push_back(reinterpret_cast<uintptr_t>(dtype));
    Py_hash_t hash = PyObject_Hash(dtype);
    Py_DECREF(dtype);
    if (hash == -1) {
      PyErr_Clear();
      return false;
    }
    key.push_back(static_cast<uint64_t>(hash));
    key.push_back(spec.divisible);
  }
  for (int o = 0; o < kNumOptions && ok; ++o) {
    if (call.options[o])
      pushObject(key, TagOption, call.options[o], ok);
    else
      key.push_back(TagDefaultOption);
  }
  return ok;
}

bool constexprsMatch(DispatcherObject *self, const Entry &entry,
                     const Call &call) {
  size_t next = 0;
  auto same = [&](PyObject *stored, PyObject *value) {
    if (stored == value)
      return true;
    int eq = PyObject_RichCompareBool(stored, value, Py_EQ);
    if (eq < 0)
      PyErr_Clear();
    return eq == 1;
  };
  for (int i = 0; i < self->numParams; ++i)
    if ((*self->isConstexpr)[i] &&
        !same(entry.constexprs[next++], call.values[i]))
      return false;
  for (int o = 0; o < kNumOptions; ++o)
    if (call.options[o] && !same(entry.constexprs[next++], call.options[o]))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// The Python side: fallback, compile on a miss, other launchers
//===----------------------------------------------------------------------===//

/// (args tuple, kwargs dict) of a vectorcall, for the Python path.
bool packArgs(PyObject *const *args, size_t nargs, PyObject *kwnames,
              PyObject **tuple, PyObject **dict) {
  *tuple = PyTuple_New(nargs);
  *dict = PyDict_New();
  if (!*tuple || !*dict)
    return false;
  for (size_t i = 0; i < nargs; ++i) {
    Py_INCREF(args[i]);
    PyTuple_SET_ITEM(*tuple, i, args[i]);
  }
  Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
  for (Py_ssize_t k = 0; k < nkw; ++k)
    if (PyDict_SetItem(*dict, PyTuple_GET_ITEM(kwnames, k), args[nargs + k]))
      return false;
  return true;
}

PyObject *pythonRun(DispatcherObject *self, PyObject *grid,
                    PyObject *const *args, size_t nargs, PyObject *kwnames) {
  PyObject *tuple, *dict;
  PyObject *result = nullptr;
  if (packArgs(args, nargs, kwnames, &tuple, &dict))
    result = PyObject_CallMethodObjArgs(self->fn, str_run, grid, tuple, dict,
                                        nullptr);
  Py_XDECREF(tuple);
  Py_XDECREF(dict);
  return result;
}

/// The recipes of the descriptors the kernel makes, which account for every
/// trailing parameter. False: Python launches it.
bool parseMadeDescriptors(DispatcherObject *self, Entry &entry) {
  PyObject *metadata = PyObject_GetAttr(entry.kernel, str_metadata);
  PyObject *recipes =
      metadata && PyDict_Check(metadata)
          ? PyDict_GetItemWithError(metadata, str_host_descriptors)
          : nullptr;
  bool ok = recipes && PyList_Check(recipes) &&
            entry.runtimeParams.size() + PyList_GET_SIZE(recipes) ==
                entry.signature.size() &&
            entry.signature.size() <= kMaxParams;
  for (Py_ssize_t i = 0; ok && i < PyList_GET_SIZE(recipes); ++i) {
    entry.madeDescriptors.emplace_back();
    ok = entry.madeDescriptors.back().parse(PyList_GET_ITEM(recipes, i),
                                            self->argNames);
  }
  Py_XDECREF(metadata);
  PyErr_Clear();
  if (!ok)
    entry.madeDescriptors.clear();
  return ok;
}

/// Compiles (or finds) the specialization through Python and records it.
Entry *prepare(DispatcherObject *self, const Call &call, PyObject *const *args,
               size_t nargs, PyObject *kwnames) {
  PyObject *tuple, *dict;
  PyObject *result = nullptr;
  if (packArgs(args, nargs, kwnames, &tuple, &dict))
    result =
        PyObject_CallMethodObjArgs(self->fn, str_prepare, tuple, dict, nullptr);
  Py_XDECREF(tuple);
  Py_XDECREF(dict);
  if (!result)
    return nullptr;
  // (kernel, [runtime parameter indices])
  PyObject *kernel = PyTuple_GetItem(result, 0);
  PyObject *indices = PyTuple_GetItem(result, 1);
  PyObject *signature =
      kernel ? PyObject_GetAttr(kernel, str_signature) : nullptr;
  if (!kernel || !indices || !signature || !PyUnicode_Check(signature)) {
    Py_XDECREF(signature);
    Py_DECREF(result);
    if (!PyErr_Occurred())
      PyErr_SetString(PyExc_RuntimeError, "tile: bad _prepare result");
    return nullptr;
  }
  Entry entry;
  entry.kernel = kernel;
  Py_INCREF(kernel);
  entry.signature = PyUnicode_AsUTF8(signature);
  Py_DECREF(signature);
  for (Py_ssize_t i = 0, e = PyList_Size(indices); i < e; ++i)
    entry.runtimeParams.push_back(
        static_cast<int>(PyLong_AsLong(PyList_GetItem(indices, i))));
  Py_DECREF(result);
  if (entry.signature.size() != entry.runtimeParams.size() &&
      !parseMadeDescriptors(self, entry))
    entry.pythonOnly = true;
  PyObject *globals = PyObject_GetAttr(kernel, str_used_globals);
  entry.checksGlobals = globals && PyObject_IsTrue(globals) == 1;
  Py_XDECREF(globals);
  PyErr_Clear();
  for (int i = 0; i < self->numParams; ++i)
    if ((*self->isConstexpr)[i]) {
      Py_INCREF(call.values[i]);
      entry.constexprs.push_back(call.values[i]);
    }
  for (int o = 0; o < kNumOptions; ++o)
    if (call.options[o]) {
      Py_INCREF(call.options[o]);
      entry.constexprs.push_back(call.options[o]);
    }
  auto [it, inserted] = self->table->insert_or_assign(call.key, entry);
  return &it->second;
}

void releaseEntry(Entry &entry) {
  Py_XDECREF(entry.kernel);
  for (PyObject *c : entry.constexprs)
    Py_DECREF(c);
}

/// The grid as three unsigned ints; a callable gets the bound arguments.
bool evalGrid(DispatcherObject *self, PyObject *grid, const Call &call,
              unsigned dims[3]) {
  dims[0] = dims[1] = dims[2] = 1;
  PyObject *value = grid;
  Py_INCREF(value);
  if (PyCallable_Check(grid)) {
    PyObject *meta = PyDict_New();
    if (!meta)
      return false;
    for (int i = 0; i < self->numParams; ++i)
      PyDict_SetItem(meta, PyTuple_GET_ITEM(self->argNames, i), call.values[i]);
    Py_DECREF(value);
    value = PyObject_CallOneArg(grid, meta);
    Py_DECREF(meta);
    if (!value)
      return false;
  }
  PyObject *seq = PyUnicode_Check(value) || PyBytes_Check(value)
                      ? nullptr
                      : PySequence_Fast(value, "");
  if (!seq) {
    PyErr_Format(PyExc_TypeError,
                 "the grid must be a tuple of ints or a callable returning "
                 "one, got %R",
                 value);
    Py_DECREF(value);
    return false;
  }
  Py_DECREF(value);
  Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
  if (n < 1 || n > 3) {
    Py_DECREF(seq);
    PyErr_SetString(PyExc_ValueError, "the grid needs 1 to 3 dimensions");
    return false;
  }
  for (Py_ssize_t d = 0; d < n; ++d) {
    PyObject *item = PySequence_Fast_GET_ITEM(seq, d);
    PyObject *index = PyNumber_Index(item); // ints and numpy integers
    if (!index) {
      PyErr_Format(PyExc_TypeError, "grid dimension %d must be an int, got %R",
                   (int)d, item);
      Py_DECREF(seq);
      return false;
    }
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(index, &overflow);
    Py_DECREF(index);
    if (overflow || x < 0 || x > 0x7fffffffll) {
      PyErr_Format(PyExc_ValueError,
                   "grid dimension %d is %R; it must be in [0, 2^31 - 1]",
                   (int)d, item);
      Py_DECREF(seq);
      return false;
    }
    dims[d] = static_cast<unsigned>(x);
  }
  Py_DECREF(seq);
  return true;
}

/// The device the launch's tensors live on (-1 for none), or false with a
/// ValueError naming two tensor arguments on different devices. The CUDA
/// launch checks only where several GPUs are visible: with one, the tensors
/// cannot disagree and the launch pays nothing; other launchers (`always`)
/// are checked wherever they run.
bool tensorDevice(DispatcherObject *self, const Entry &entry,
                  const Call &call, int *found, bool always = false) {
  *found = -1;
  if (!always && self->deviceCount < 0) {
    PyObject *count =
        PyObject_CallMethodNoArgs(self->launcherModule, str_device_count);
    if (!count)
      return false;
    self->deviceCount = static_cast<int>(PyLong_AsLong(count));
    Py_DECREF(count);
    if (PyErr_Occurred())
      return false;
  }
  if (!always && self->deviceCount < 2)
    return true;
  int firstParam = -1;
  for (size_t i = 0; i < entry.runtimeParams.size(); ++i) {
    int p = entry.runtimeParams[i];
    if (entry.signature[i] != 'p' || !call.isPointer[p])
      continue;
    PyObject *ordinal = PyObject_CallMethodNoArgs(call.values[p], str_get_device);
    if (!ordinal) { // a tensor-like that cannot say: the current device
      PyErr_Clear();
      continue;
    }
    long device = PyLong_AsLong(ordinal);
    Py_DECREF(ordinal);
    if (device < 0) {
      PyErr_Clear();
      continue;
    }
    if (*found < 0) {
      *found = static_cast<int>(device);
      firstParam = p;
    } else if (device != *found) {
      PyObject *name = PyObject_GetAttr(entry.kernel, str_name);
      PyErr_Format(PyExc_ValueError,
                   "%S: argument '%U' is on cuda:%d but argument '%U' is on "
                   "cuda:%ld; one launch's tensors must share a device",
                   name ? name : Py_None,
                   PyTuple_GET_ITEM(self->argNames, firstParam), *found,
                   PyTuple_GET_ITEM(self->argNames, p), device);
      Py_XDECREF(name);
      return false;
    }
  }
  return true;
}

PyObject *launchThroughPython(DispatcherObject *self, PyObject *launcher,
                              const Entry &entry, const Call &call,
                              const unsigned dims[3]) {
  int device;
  if (!tensorDevice(self, entry, call, &device, /*always=*/true))
    return nullptr;
  PyObject *list = PyList_New(entry.runtimeParams.size());
  if (!list)
    return nullptr;
  for (size_t i = 0; i < entry.runtimeParams.size(); ++i) {
    PyObject *v = call.values[entry.runtimeParams[i]];
    Py_INCREF(v);
    PyList_SET_ITEM(list, i, v);
  }
  PyObject *grid = Py_BuildValue("(III)", dims[0], dims[1], dims[2]);
  PyObject *result =
      grid ? PyObject_CallMethodObjArgs(launcher, str_launch, entry.kernel,
                                        grid, list, nullptr)
           : nullptr;
  Py_XDECREF(grid);
  Py_DECREF(list);
  if (!result)
    return nullptr;
  // A launch returns its CompiledKernel, as Triton's does.
  Py_DECREF(result);
  Py_INCREF(entry.kernel);
  return entry.kernel;
}

//===----------------------------------------------------------------------===//
// The CUDA launch
//===----------------------------------------------------------------------===//

/// torch's current device and its current stream (device 0 and the
/// default stream without torch).
bool currentStream(DispatcherObject *self, int *device, void **stream) {
  *device = 0;
  *stream = nullptr;
  if (!self->getStream) {
    PyObject *fns =
        PyObject_CallMethodNoArgs(self->launcherModule, str_stream_functions);
    if (!fns)
      return false;
    if (fns == Py_None) {
      Py_DECREF(fns);
      return true;
    }
    if (!PyArg_ParseTuple(fns, "OO", &self->getDevice, &self->getStream)) {
      Py_DECREF(fns);
      return false;
    }
    Py_INCREF(self->getDevice);
    Py_INCREF(self->getStream);
    Py_DECREF(fns);
  }
  PyObject *ordinal = PyObject_CallNoArgs(self->getDevice);
  if (!ordinal)
    return false;
  *device = static_cast<int>(PyLong_AsLong(ordinal));
  PyObject *raw = PyObject_CallOneArg(self->getStream, ordinal);
  Py_DECREF(ordinal);
  if (!raw)
    return false;
  *stream = reinterpret_cast<void *>(PyLong_AsUnsignedLongLong(raw));
  Py_DECREF(raw);
  return !PyErr_Occurred();
}

/// The kernel loaded on `device`, loading it through Python the first time.
const tile::LoadedKernel *loadedOn(DispatcherObject *self, Entry &entry,
                                   int device) {
  for (const tile::LoadedKernel &k : entry.loaded)
    if (k.device == device)
      return &k;
  PyObject *ordinal = PyLong_FromLong(device);
  PyObject *loaded =
      ordinal ? PyObject_CallMethodObjArgs(self->launcherModule, str_load,
                                           entry.kernel, ordinal, nullptr)
              : nullptr;
  Py_XDECREF(ordinal);
  if (!loaded)
    return nullptr;
  try {
    entry.loaded.push_back(py::cast<tile::LoadedKernel>(py::handle(loaded)));
  } catch (const py::cast_error &) {
    Py_DECREF(loaded);
    PyErr_SetString(PyExc_TypeError, "tile: launcher.load returned no "
                                     "LoadedKernel");
    return nullptr;
  }
  Py_DECREF(loaded);
  return &entry.loaded.back();
}

/// False with `*usePython` set: nothing launched, the Python path should
/// take the call.
bool launchCuda(DispatcherObject *self, Entry &entry, const Call &call,
                const unsigned dims[3], bool *usePython) {
  *usePython = false;
  int device;
  void *stream;
  if (!currentStream(self, &device, &stream))
    return false;
  // As a torch op does: run where the tensors are, on that device's
  // current stream, with its context current for the launch only.
  int onDevice;
  if (!tensorDevice(self, entry, call, &onDevice))
    return false;
  bool switchDevice = onDevice >= 0 && onDevice != device;
  if (switchDevice) {
    device = onDevice;
    PyObject *ordinal = PyLong_FromLong(device);
    PyObject *raw =
        ordinal ? PyObject_CallOneArg(self->getStream, ordinal) : nullptr;
    Py_XDECREF(ordinal);
    if (!raw)
      return false;
    stream = reinterpret_cast<void *>(PyLong_AsUnsignedLongLong(raw));
    Py_DECREF(raw);
    if (PyErr_Occurred())
      return false;
  }
  const tile::LoadedKernel *kernel = loadedOn(self, entry, device);
  if (!kernel)
    return false;
  uint64_t slots[kMaxParams];
  void *params[kMaxParams];
  tile::python::TensorMapBytes maps[kMaxParams];
  for (size_t i = 0; i < entry.runtimeParams.size(); ++i) {
    int p = entry.runtimeParams[i];
    PyObject *v = call.values[p];
    params[i] = &slots[i];
    switch (entry.signature[i]) {
    case 'p':
      slots[i] =
          PyLong_Check(v) ? PyLong_AsUnsignedLongLong(v) : call.pointers[p];
      break;
    case 'i': {
      int32_t x = static_cast<int32_t>(PyLong_AsLongLong(v));
      std::memcpy(&slots[i], &x, 4);
      break;
    }
    case 'l': {
      // i64 or u64: the bits are the same.
      int overflow = 0;
      long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
      uint64_t bits =
          overflow ? PyLong_AsUnsignedLongLong(v) : static_cast<uint64_t>(x);
      std::memcpy(&slots[i], &bits, 8);
      break;
    }
    case 'f': {
      float x = static_cast<float>(PyFloat_AsDouble(v));
      std::memcpy(&slots[i], &x, 4);
      break;
    }
    case 'b': {
      uint8_t x = v == Py_True ? 1 : 0;
      std::memcpy(&slots[i], &x, 1);
      break;
    }
    case 'd':
      std::memcpy(maps[i].bytes, PyBytes_AS_STRING(call.maps[p]), 128);
      params[i] = maps[i].bytes;
      break;
    default:
      PyErr_Format(PyExc_TypeError,
                   "tile: parameter type '%c' cannot be "
                   "launched",
                   entry.signature[i]);
      return false;
    }
  }
  if (PyErr_Occurred())
    return false;
  size_t next = entry.runtimeParams.size();
  tile::python::RecipeArguments recipeArgs{call.values, call.pointers,
                                           call.isPointer};
  for (const auto &recipe : entry.madeDescriptors) {
    if (!recipe.encode(recipeArgs, maps[next])) {
      *usePython = true; // let Python compute it or name the bad argument
      return false;
    }
    params[next] = maps[next].bytes;
    ++next;
  }
  std::string error;
  if (!tile::launchKernel(*kernel, dims[0], dims[1], dims[2], stream, params,
                          next, error, switchDevice)) {
    PyErr_SetString(PyExc_RuntimeError, error.c_str());
    return false;
  }
  return true;
}

//===----------------------------------------------------------------------===//
// kernel[grid](...)
//===----------------------------------------------------------------------===//

PyObject *boundLaunchCall(PyObject *callable, PyObject *const *args,
                          size_t nargsf, PyObject *kwnames) {
  auto *bound = reinterpret_cast<BoundLaunchObject *>(callable);
  DispatcherObject *self = bound->dispatcher;
  size_t nargs = PyVectorcall_NARGS(nargsf);
  Call call;
  call.key.reserve(4 * self->numParams + 8);
  if (!bind(self, args, nargs, kwnames, call) || !buildKey(self, call))
    return pythonRun(self, bound->grid, args, nargs, kwnames);
  auto it = self->table->find(call.key);
  Entry *entry = nullptr;
  if (it != self->table->end() && constexprsMatch(self, it->second, call))
    entry = &it->second;
  else if (!(entry = prepare(self, call, args, nargs, kwnames)))
    return nullptr;
  if (entry->pythonOnly)
    return pythonRun(self, bound->grid, args, nargs, kwnames);
  if (entry->checksGlobals) {
    PyObject *ok =
        PyObject_CallMethodOneArg(self->fn, str_check_globals, entry->kernel);
    if (!ok)
      return nullptr;
    Py_DECREF(ok);
  }
  unsigned dims[3];
  if (!evalGrid(self, bound->grid, call, dims))
    return nullptr;
  PyObject *active = PyObject_GetAttr(self->launcherModule, str_active);
  if (!active)
    return nullptr;
  if (active == Py_None) {
    Py_DECREF(active);
    active = PyObject_CallMethodNoArgs(self->launcherModule, str_active_fn);
    if (!active)
      return nullptr;
  }
  if (reinterpret_cast<PyObject *>(Py_TYPE(active)) != self->cudaLauncherType) {
    // Other launchers get the descriptors a kernel makes as Python objects.
    PyObject *result = entry->madeDescriptors.empty()
                           ? launchThroughPython(self, active, *entry, call, dims)
                           : pythonRun(self, bound->grid, args, nargs, kwnames);
    Py_DECREF(active);
    return result;
  }
  Py_DECREF(active);
  bool usePython;
  if (!launchCuda(self, *entry, call, dims, &usePython))
    return usePython ? pythonRun(self, bound->grid, args, nargs, kwnames)
                     : nullptr;
  // A launch returns its CompiledKernel, as Triton's does (`.asm`,
  // `.metadata`, `.n_regs` of what ran).
  Py_INCREF(entry->kernel);
  return entry->kernel;
}

void boundLaunchDealloc(PyObject *obj) {
  auto *bound = reinterpret_cast<BoundLaunchObject *>(obj);
  Py_XDECREF(reinterpret_cast<PyObject *>(bound->dispatcher));
  Py_XDECREF(bound->grid);
  Py_TYPE(obj)->tp_free(obj);
}

PyTypeObject BoundLaunchType = {PyVarObject_HEAD_INIT(nullptr, 0)};

PyObject *dispatcherSubscript(PyObject *obj, PyObject *grid) {
  auto *bound = PyObject_New(BoundLaunchObject, &BoundLaunchType);
  if (!bound)
    return nullptr;
  bound->vectorcall = boundLaunchCall;
  Py_INCREF(obj);
  bound->dispatcher = reinterpret_cast<DispatcherObject *>(obj);
  Py_INCREF(grid);
  bound->grid = grid;
  return reinterpret_cast<PyObject *>(bound);
}

void clearTable(DispatcherObject *self) {
  for (auto &[key, entry] : *self->table)
    releaseEntry(entry);
  self->table->clear();
}

PyObject *dispatcherClear(PyObject *obj, PyObject *) {
  clearTable(reinterpret_cast<DispatcherObject *>(obj));
  Py_RETURN_NONE;
}

PyObject *dispatcherSize(PyObject *obj, PyObject *) {
  return PyLong_FromSize_t(
      reinterpret_cast<DispatcherObject *>(obj)->table->size());
}

/// Dispatcher(fn, arg_names, defaults, missing, constexpr_mask,
///            specialize_mask, alignment_mask, launcher_module)
int dispatcherInit(PyObject *obj, PyObject *args, PyObject *) {
  auto *self = reinterpret_cast<DispatcherObject *>(obj);
  PyObject *fn, *names, *defaults, *missing, *constexprMask, *specializeMask,
      *alignmentMask, *module;
  if (!PyArg_ParseTuple(args, "OO!O!OOOOO", &fn, &PyTuple_Type, &names,
                        &PyTuple_Type, &defaults, &missing, &constexprMask,
                        &specializeMask, &alignmentMask, &module))
    return -1;
  Py_ssize_t n = PyTuple_GET_SIZE(names);
  if (n > kMaxParams || PyTuple_GET_SIZE(defaults) != n) {
    PyErr_Format(PyExc_ValueError,
                 "tile: a kernel takes at most %d "
                 "parameters (this one has %zd)",
                 kMaxParams, n);
    return -1;
  }
  PyObject *cudaType = PyObject_GetAttrString(module, "CUDALauncher");
  if (!cudaType)
    return -1;
  self->fn = fn;
  self->argNames = names;
  self->defaults = defaults;
  self->missing = missing;
  self->launcherModule = module;
  self->cudaLauncherType = cudaType;
  for (PyObject *o : {fn, names, defaults, missing, module})
    Py_INCREF(o);
  self->getDevice = self->getStream = nullptr;
  self->deviceCount = -1;
  self->numParams = static_cast<int>(n);
  self->isConstexpr = new std::vector<bool>(n);
  self->specialize = new std::vector<bool>(n);
  self->alignment = new std::vector<bool>(n);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *c = PySequence_GetItem(constexprMask, i);
    PyObject *s = PySequence_GetItem(specializeMask, i);
    PyObject *a = PySequence_GetItem(alignmentMask, i);
    (*self->isConstexpr)[i] = c && PyObject_IsTrue(c) == 1;
    (*self->specialize)[i] = s && PyObject_IsTrue(s) == 1;
    (*self->alignment)[i] = a && PyObject_IsTrue(a) == 1;
    Py_XDECREF(c);
    Py_XDECREF(s);
    Py_XDECREF(a);
  }
  self->table = new std::unordered_map<std::vector<uint64_t>, Entry, KeyHash>();
  self->kinds = new std::unordered_map<PyTypeObject *, TypeKind>();
  return PyErr_Occurred() ? -1 : 0;
}

void dispatcherDealloc(PyObject *obj) {
  auto *self = reinterpret_cast<DispatcherObject *>(obj);
  if (self->table) {
    clearTable(self);
    delete self->table;
  }
  delete self->kinds;
  delete self->isConstexpr;
  delete self->specialize;
  delete self->alignment;
  for (PyObject *o : {self->fn, self->argNames, self->defaults, self->missing,
                      self->launcherModule, self->cudaLauncherType,
                      self->getDevice, self->getStream})
    Py_XDECREF(o);
  Py_TYPE(obj)->tp_free(obj);
}

PyObject *dispatcherNew(PyTypeObject *type, PyObject *, PyObject *) {
  PyObject *obj = type->tp_alloc(type, 0); // zero-filled
  return obj;
}

PyMappingMethods DispatcherMapping = {nullptr, dispatcherSubscript, nullptr};

PyMethodDef DispatcherMethods[] = {
    {"clear", dispatcherClear, METH_NOARGS,
     "Forget every specialization (the kernels stay in the Python cache)."},
    {"size", dispatcherSize, METH_NOARGS, "Specializations known."},
    {nullptr, nullptr, 0, nullptr}};

PyTypeObject DispatcherType = {PyVarObject_HEAD_INIT(nullptr, 0)};

} // namespace

void tile::python::registerDispatcher(py::module_ &m) {
  for (auto [slot, text] :
       std::initializer_list<std::pair<PyObject **, const char *>>{
           {&str_dtype, "dtype"},
           {&str_active, "_active"},
           {&str_launch, "launch"},
           {&str_prepare, "_prepare"},
           {&str_run, "_run_python"},
           {&str_num_warps, "num_warps"},
           {&str_num_stages, "num_stages"},
           {&str_target, "target"},
           {&str_load, "load"},
           {&str_signature, "signature"},
           {&str_stream_functions, "stream_functions"},
           {&str_active_fn, "active"},
           {&str_launch_form, "_launch_form"},
           {&str_metadata, "metadata"},
           {&str_host_descriptors, "host_descriptors"},
           {&str_used_globals, "used_globals"},
           {&str_check_globals, "_check_globals"},
           {&str_get_device, "get_device"},
           {&str_device_count, "device_count"},
           {&str_name, "name"}})
    *slot = PyUnicode_InternFromString(text);
  for (int o = 0; o < kNumOptions; ++o)
    optionNames[o] = PyUnicode_InternFromString(kOptionNames[o]);

  BoundLaunchType.tp_name = "tile._C.BoundLaunch";
  BoundLaunchType.tp_basicsize = sizeof(BoundLaunchObject);
  BoundLaunchType.tp_dealloc = boundLaunchDealloc;
  BoundLaunchType.tp_call = PyVectorcall_Call;
  BoundLaunchType.tp_vectorcall_offset =
      offsetof(BoundLaunchObject, vectorcall);
  BoundLaunchType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL;
  BoundLaunchType.tp_doc = "kernel[grid]: call it with the kernel's arguments";

  DispatcherType.tp_name = "tile._C.Dispatcher";
  DispatcherType.tp_basicsize = sizeof(DispatcherObject);
  DispatcherType.tp_dealloc = dispatcherDealloc;
  DispatcherType.tp_new = dispatcherNew;
  DispatcherType.tp_init = dispatcherInit;
  DispatcherType.tp_as_mapping = &DispatcherMapping;
  DispatcherType.tp_methods = DispatcherMethods;
  DispatcherType.tp_flags = Py_TPFLAGS_DEFAULT;
  DispatcherType.tp_doc = "The C++ launch path of one @tile.jit kernel";

  if (PyType_Ready(&BoundLaunchType) < 0 || PyType_Ready(&DispatcherType) < 0)
    throw py::error_already_set();
  Py_INCREF(&DispatcherType);
  m.add_object("Dispatcher", reinterpret_cast<PyObject *>(&DispatcherType));
}
