//===- TunedLaunch.cpp - Warm launches of an autotuned kernel -------------===//
//
// `tuned[grid](*args)` of an @autotune kernel whose key was tuned before
// costs, through the Python Autotuner, a few microseconds of Python frames
// on top of the kernel's own C++ dispatcher: binding, building the key
// tuple, looking the config up, merging its keyword arguments. For kernels
// of a few hundred microseconds that is a measurable share of each call.
//
// TunedChoices keeps the configs the Autotuner chose, under a key built in
// C++ from the same arguments its Python key reads (the key arguments'
// values, the dtypes of the tensor arguments), and its bound form launches
// the kernel's `fn[grid]` with the chosen config's keyword arguments
// appended. Anything else (keyword arguments, a key never tuned, a value it
// cannot hash) goes to `Autotuner.run`, which tunes, raises, or launches,
// and tells TunedChoices what it chose.
//
//===----------------------------------------------------------------------===//

#include "TunedLaunch.h"
#include "HostDescriptors.h"

#include <unordered_map>
#include <vector>

namespace {

constexpr size_t kMaxArgs = 128;

/// One chosen config.
struct Choice {
  // The objects the key was built from (key values, dtypes), compared on
  // every hit: the hash words only find the entry.
  std::vector<PyObject *> keyObjects; // owned
  PyObject *config = nullptr;         // owned
  PyObject *kwnames = nullptr;        // owned tuple of interned str
  std::vector<PyObject *> values;     // owned
};

struct TunedChoicesObject {
  PyObject_HEAD std::vector<int> *keyPositions;
  Py_ssize_t numNames; // the kernel's parameter count
  std::unordered_map<std::vector<uint64_t>, Choice, tile::python::WordsHash>
      *table;
};

struct TunedBoundObject {
  PyObject_HEAD vectorcallfunc vectorcall;
  TunedChoicesObject *choices; // owned
  PyObject *tuner;             // owned: the Autotuner
  PyObject *grid;              // owned
  PyObject *inner;             // owned: fn[grid] of the kernel underneath
};

PyObject *str_dtype, *str_run, *str_grid, *str_warmup, *str_best_config;

/// The key of a launch's positional arguments, as the words to hash and
/// the objects they came from (new references, in `objects`). False (no
/// exception) when the Python path should key it.
bool tuningKey(TunedChoicesObject *self, PyObject *const *args, size_t nargs,
               std::vector<uint64_t> &words, std::vector<PyObject *> &objects) {
  if (nargs > static_cast<size_t>(self->numNames))
    return false;
  auto take = [&](PyObject *object, uint64_t position) {
    Py_hash_t hash = PyObject_Hash(object);
    if (hash == -1) {
      PyErr_Clear();
      return false;
    }
    Py_INCREF(object);
    objects.push_back(object);
    words.push_back(position);
    words.push_back(reinterpret_cast<uintptr_t>(Py_TYPE(object)));
    words.push_back(static_cast<uint64_t>(hash));
    return true;
  };
  for (int p : *self->keyPositions)
    if (static_cast<size_t>(p) >= nargs || !take(args[p], p))
      return false;
  // As the Python key: the dtype of every argument that has one.
  for (size_t i = 0; i < nargs; ++i) {
    PyObject *v = args[i];
    if (PyLong_Check(v) || PyFloat_Check(v) || v == Py_None ||
        PyUnicode_Check(v))
      continue;
    PyObject *dtype = PyObject_GetAttr(v, str_dtype);
    if (!dtype) {
      PyErr_Clear();
      continue;
    }
    bool ok = take(dtype, kMaxArgs + i);
    Py_DECREF(dtype);
    if (!ok)
      return false;
  }
  return true;
}

void release(std::vector<PyObject *> &objects) {
  for (PyObject *o : objects)
    Py_DECREF(o);
  objects.clear();
}

void releaseChoice(Choice &choice) {
  release(choice.keyObjects);
  release(choice.values);
  Py_XDECREF(choice.config);
  Py_XDECREF(choice.kwnames);
}

bool sameObjects(const std::vector<PyObject *> &stored,
                 const std::vector<PyObject *> &now) {
  if (stored.size() != now.size())
    return false;
  for (size_t i = 0; i < stored.size(); ++i) {
    if (stored[i] == now[i])
      continue;
    int eq = PyObject_RichCompareBool(stored[i], now[i], Py_EQ);
    if (eq != 1) {
      PyErr_Clear();
      return false;
    }
  }
  return true;
}

//===----------------------------------------------------------------------===//
// tuned[grid](*args)
//===----------------------------------------------------------------------===//

/// Autotuner.run(*args, grid=grid, warmup=False, **kwargs).
PyObject *runInPython(TunedBoundObject *bound, PyObject *const *args,
                      size_t nargs, PyObject *kwnames) {
  PyObject *tuple = PyTuple_New(static_cast<Py_ssize_t>(nargs));
  PyObject *kwargs = PyDict_New();
  PyObject *result = nullptr;
  if (tuple && kwargs) {
    for (size_t i = 0; i < nargs; ++i) {
      Py_INCREF(args[i]);
      PyTuple_SET_ITEM(tuple, i, args[i]);
    }
    bool ok = true;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw && ok; ++k)
      ok = PyDict_SetItem(kwargs, PyTuple_GET_ITEM(kwnames, k),
                          args[nargs + k]) == 0;
    ok = ok && PyDict_SetItem(kwargs, str_grid, bound->grid) == 0 &&
         PyDict_SetItem(kwargs, str_warmup, Py_False) == 0;
    PyObject *run = ok ? PyObject_GetAttr(bound->tuner, str_run) : nullptr;
    if (run) {
      result = PyObject_Call(run, tuple, kwargs);
      Py_DECREF(run);
    }
  }
  Py_XDECREF(tuple);
  Py_XDECREF(kwargs);
  return result;
}

PyObject *tunedBoundCall(PyObject *callable, PyObject *const *args,
                         size_t nargsf, PyObject *kwnames) {
  auto *bound = reinterpret_cast<TunedBoundObject *>(callable);
  size_t nargs = PyVectorcall_NARGS(nargsf);
  if (kwnames && PyTuple_GET_SIZE(kwnames) > 0)
    return runInPython(bound, args, nargs, kwnames);
  TunedChoicesObject *self = bound->choices;
  std::vector<uint64_t> words;
  std::vector<PyObject *> objects;
  words.reserve(3 * (self->keyPositions->size() + nargs));
  bool keyed = tuningKey(self, args, nargs, words, objects);
  const Choice *choice = nullptr;
  if (keyed) {
    auto it = self->table->find(words);
    if (it != self->table->end() && sameObjects(it->second.keyObjects, objects))
      choice = &it->second;
  }
  release(objects);
  if (!choice)
    return runInPython(bound, args, nargs, kwnames);
  // Triton's Autotuner leaves the config of the last launch here.
  if (PyObject_SetAttr(bound->tuner, str_best_config, choice->config) < 0)
    return nullptr;
  size_t nvalues = choice->values.size();
  if (nargs + nvalues > kMaxArgs)
    return runInPython(bound, args, nargs, kwnames);
  PyObject *merged[kMaxArgs];
  for (size_t i = 0; i < nargs; ++i)
    merged[i] = args[i];
  for (size_t i = 0; i < nvalues; ++i)
    merged[nargs + i] = choice->values[i];
  // The call may re-enter the autotuner (a compile on a miss runs Python)
  // and so change the table: it gets references of its own.
  PyObject *kw = choice->kwnames;
  Py_INCREF(kw);
  for (size_t i = 0; i < nvalues; ++i)
    Py_INCREF(merged[nargs + i]);
  PyObject *result = PyObject_Vectorcall(bound->inner, merged, nargs, kw);
  for (size_t i = 0; i < nvalues; ++i)
    Py_DECREF(merged[nargs + i]);
  Py_DECREF(kw);
  return result;
}

void tunedBoundDealloc(PyObject *obj) {
  auto *bound = reinterpret_cast<TunedBoundObject *>(obj);
  Py_XDECREF(reinterpret_cast<PyObject *>(bound->choices));
  Py_XDECREF(bound->tuner);
  Py_XDECREF(bound->grid);
  Py_XDECREF(bound->inner);
  Py_TYPE(obj)->tp_free(obj);
}

PyTypeObject TunedBoundType = {PyVarObject_HEAD_INIT(nullptr, 0)};

//===----------------------------------------------------------------------===//
// TunedChoices
//===----------------------------------------------------------------------===//

PyObject *choicesNew(PyTypeObject *type, PyObject *, PyObject *) {
  auto *self = reinterpret_cast<TunedChoicesObject *>(type->tp_alloc(type, 0));
  if (!self)
    return nullptr;
  self->keyPositions = new std::vector<int>();
  self->table = new std::unordered_map<std::vector<uint64_t>, Choice,
                                       tile::python::WordsHash>();
  self->numNames = 0;
  return reinterpret_cast<PyObject *>(self);
}

/// TunedChoices(key_positions: tuple of int, num_names: int)
int choicesInit(PyObject *obj, PyObject *args, PyObject *) {
  auto *self = reinterpret_cast<TunedChoicesObject *>(obj);
  PyObject *positions;
  if (!PyArg_ParseTuple(args, "O!n", &PyTuple_Type, &positions,
                        &self->numNames))
    return -1;
  self->keyPositions->clear();
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(positions); ++i) {
    long p = PyLong_AsLong(PyTuple_GET_ITEM(positions, i));
    if (p < 0 || p >= self->numNames || p >= static_cast<long>(kMaxArgs)) {
      if (!PyErr_Occurred())
        PyErr_SetString(PyExc_ValueError, "key position out of range");
      return -1;
    }
    self->keyPositions->push_back(static_cast<int>(p));
  }
  return 0;
}

void clearTable(TunedChoicesObject *self) {
  for (auto &[key, choice] : *self->table)
    releaseChoice(choice);
  self->table->clear();
}

void choicesDealloc(PyObject *obj) {
  auto *self = reinterpret_cast<TunedChoicesObject *>(obj);
  clearTable(self);
  delete self->table;
  delete self->keyPositions;
  Py_TYPE(obj)->tp_free(obj);
}

/// remember(args: tuple, config, kwnames: tuple of str, values: tuple) ->
/// bool: launches with these positional arguments' key get `config`,
/// passed as the keyword arguments kwnames=values. False when the key
/// cannot be built in C++ (those launches stay on the Python path).
PyObject *choicesRemember(PyObject *obj, PyObject *args) {
  auto *self = reinterpret_cast<TunedChoicesObject *>(obj);
  PyObject *launchArgs, *config, *kwnames, *values;
  if (!PyArg_ParseTuple(args, "O!OO!O!", &PyTuple_Type, &launchArgs, &config,
                        &PyTuple_Type, &kwnames, &PyTuple_Type, &values))
    return nullptr;
  Py_ssize_t n = PyTuple_GET_SIZE(kwnames);
  if (PyTuple_GET_SIZE(values) != n) {
    PyErr_SetString(PyExc_ValueError, "one value per keyword name");
    return nullptr;
  }
  Choice choice;
  std::vector<uint64_t> words;
  size_t nargs = static_cast<size_t>(PyTuple_GET_SIZE(launchArgs));
  if (!tuningKey(self, &PyTuple_GET_ITEM(launchArgs, 0), nargs, words,
                 choice.keyObjects)) {
    release(choice.keyObjects);
    Py_RETURN_FALSE;
  }
  // Interned names: the kernel's dispatcher matches them by pointer.
  PyObject *names = PyTuple_New(n);
  if (!names) {
    release(choice.keyObjects);
    return nullptr;
  }
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *name = PyTuple_GET_ITEM(kwnames, i);
    if (!PyUnicode_CheckExact(name)) {
      Py_DECREF(names);
      release(choice.keyObjects);
      PyErr_SetString(PyExc_TypeError, "keyword names must be str");
      return nullptr;
    }
    Py_INCREF(name);
    PyUnicode_InternInPlace(&name);
    PyTuple_SET_ITEM(names, i, name);
    PyObject *value = PyTuple_GET_ITEM(values, i);
    Py_INCREF(value);
    choice.values.push_back(value);
  }
  choice.kwnames = names;
  Py_INCREF(config);
  choice.config = config;
  auto it = self->table->find(words);
  if (it != self->table->end()) {
    releaseChoice(it->second);
    it->second = choice;
  } else {
    self->table->emplace(std::move(words), choice);
  }
  Py_RETURN_TRUE;
}

PyObject *choicesClear(PyObject *obj, PyObject *) {
  clearTable(reinterpret_cast<TunedChoicesObject *>(obj));
  Py_RETURN_NONE;
}

PyObject *choicesSize(PyObject *obj, PyObject *) {
  return PyLong_FromSize_t(
      reinterpret_cast<TunedChoicesObject *>(obj)->table->size());
}

/// bind(tuner, grid, inner) -> the callable `tuned[grid]`.
PyObject *choicesBind(PyObject *obj, PyObject *args) {
  PyObject *tuner, *grid, *inner;
  if (!PyArg_ParseTuple(args, "OOO", &tuner, &grid, &inner))
    return nullptr;
  auto *bound = PyObject_New(TunedBoundObject, &TunedBoundType);
  if (!bound)
    return nullptr;
  bound->vectorcall = tunedBoundCall;
  Py_INCREF(obj);
  bound->choices = reinterpret_cast<TunedChoicesObject *>(obj);
  Py_INCREF(tuner);
  bound->tuner = tuner;
  Py_INCREF(grid);
  bound->grid = grid;
  Py_INCREF(inner);
  bound->inner = inner;
  return reinterpret_cast<PyObject *>(bound);
}

PyMethodDef ChoicesMethods[] = {
    {"remember", choicesRemember, METH_VARARGS,
     "remember(args, config, kwnames, values): the choice for args' key."},
    {"bind", choicesBind, METH_VARARGS,
     "bind(tuner, grid, inner): tuned[grid], launching inner."},
    {"clear", choicesClear, METH_NOARGS, "Forget every choice."},
    {"size", choicesSize, METH_NOARGS, "Choices known."},
    {nullptr, nullptr, 0, nullptr}};

PyTypeObject TunedChoicesType = {PyVarObject_HEAD_INIT(nullptr, 0)};

} // namespace

void tile::python::registerTunedLaunch(pybind11::module_ &m) {
  str_dtype = PyUnicode_InternFromString("dtype");
  str_run = PyUnicode_InternFromString("run");
  str_grid = PyUnicode_InternFromString("grid");
  str_warmup = PyUnicode_InternFromString("warmup");
  str_best_config = PyUnicode_InternFromString("best_config");

  TunedBoundType.tp_name = "tile._C.TunedLaunch";
  TunedBoundType.tp_basicsize = sizeof(TunedBoundObject);
  TunedBoundType.tp_dealloc = tunedBoundDealloc;
  TunedBoundType.tp_call = PyVectorcall_Call;
  TunedBoundType.tp_vectorcall_offset = offsetof(TunedBoundObject, vectorcall);
  TunedBoundType.tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL;
  TunedBoundType.tp_doc = "tuned[grid]: call it with the kernel's arguments";

  TunedChoicesType.tp_name = "tile._C.TunedChoices";
  TunedChoicesType.tp_basicsize = sizeof(TunedChoicesObject);
  TunedChoicesType.tp_dealloc = choicesDealloc;
  TunedChoicesType.tp_new = choicesNew;
  TunedChoicesType.tp_init = choicesInit;
  TunedChoicesType.tp_methods = ChoicesMethods;
  TunedChoicesType.tp_flags = Py_TPFLAGS_DEFAULT;
  TunedChoicesType.tp_doc = "The configs an Autotuner chose, by tuning key";

  if (PyType_Ready(&TunedBoundType) < 0 || PyType_Ready(&TunedChoicesType) < 0)
    throw pybind11::error_already_set();
  Py_INCREF(&TunedChoicesType);
  m.add_object("TunedChoices", reinterpret_cast<PyObject *>(&TunedChoicesType));
}
