//===- TileModule.cpp - tile._C, the Python bindings of libtile -----------===//
//
// Binds only tile/API/Compiler.h. Rebuild for another interpreter with:
//   g++ -O2 -shared -fPIC -std=c++17 $(python3 -m pybind11 --includes) \
//     -Iinclude python/src/*.cpp -L<prefix>/lib -ltile \
//     -Wl,-rpath,'$ORIGIN' -o tile/_C$(python3-config --extension-suffix)
//
//===----------------------------------------------------------------------===//

#include "Dispatcher.h"
#include "HostDescriptors.h"
#include "Specialization.h"
#include "TunedLaunch.h"

#include "tile/API/Compiler.h"
#include "tile/Runtime/Runtime.h"
#include "tile/Support/Limits.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <iterator>

namespace py = pybind11;

PYBIND11_MODULE(_C, m) {
  m.doc() = "Bindings of libtile, the tile compiler";

  py::enum_<tile::Diagnostic::Severity>(m, "Severity")
      .value("error", tile::Diagnostic::Severity::Error)
      .value("warning", tile::Diagnostic::Severity::Warning)
      .value("remark", tile::Diagnostic::Severity::Remark)
      .value("note", tile::Diagnostic::Severity::Note);

  py::class_<tile::Diagnostic>(m, "Diagnostic")
      .def_readonly("severity", &tile::Diagnostic::severity)
      .def_readonly("file", &tile::Diagnostic::file)
      .def_readonly("line", &tile::Diagnostic::line)
      .def_readonly("column", &tile::Diagnostic::column)
      .def_readonly("message", &tile::Diagnostic::message)
      .def("__repr__", [](const tile::Diagnostic &d) {
        return d.file + ":" + std::to_string(d.line) + ":" +
               std::to_string(d.column) + ": " + d.message;
      });

  py::class_<tile::Result>(m, "Result")
      .def_readonly("ok", &tile::Result::ok)
      .def_readonly("ir", &tile::Result::ir)
      .def_readonly("diagnostics", &tile::Result::diagnostics);

  m.def("version", &tile::version);
  m.def("ptxas_path", &tile::ptxasPath);
  m.def("libdevice_path", &tile::libdevicePath);
  m.attr("MAX_NUM_WARPS") = tile::kMaxNumWarps;
  m.attr("MAX_NUM_STAGES") = tile::kMaxNumStages;
  // The shared memory a block may have on sm_90 (the allocation's limit).
  m.attr("MAX_SHARED_BYTES") = 232448;
  py::tuple targets(std::size(tile::kSupportedTargets));
  for (size_t i = 0; i < std::size(tile::kSupportedTargets); ++i)
    targets[i] = py::str(tile::kSupportedTargets[i]);
  m.attr("SUPPORTED_TARGETS") = targets;
  // Compiling holds no Python state, so other Python threads may run.
  m.def("parse_and_verify", &tile::parseAndVerify, py::arg("source"),
        py::arg("buffer_name") = "<tile>",
        py::call_guard<py::gil_scoped_release>());
  m.def("run_pipeline", &tile::runPipeline, py::arg("source"),
        py::arg("buffer_name"), py::arg("pipeline"),
        py::call_guard<py::gil_scoped_release>());

  py::class_<tile::CompileOptions>(m, "CompileOptions")
      .def(py::init<>())
      .def_readwrite("num_warps", &tile::CompileOptions::numWarps)
      .def_readwrite("num_stages", &tile::CompileOptions::numStages)
      .def_readwrite("enable_fp_fusion", &tile::CompileOptions::fpFusion)
      .def_readwrite("enable_reflect_ftz", &tile::CompileOptions::reflectFtz)
      .def_readwrite("target", &tile::CompileOptions::target)
      .def_readwrite("emit_cubin", &tile::CompileOptions::emitCubin)
      .def_readwrite("num_ctas", &tile::CompileOptions::numCtas)
      .def_readwrite("maxnreg", &tile::CompileOptions::maxNumRegisters)
      .def_readwrite("stage_register_loads",
                     &tile::CompileOptions::stageRegisterLoads);

  py::class_<tile::CompiledKernel>(m, "CompiledKernel")
      .def_readonly("ok", &tile::CompiledKernel::ok)
      .def_readonly("staged_register_loads",
                    &tile::CompiledKernel::stagedRegisterLoads)
      .def_readonly("name", &tile::CompiledKernel::name)
      .def_readonly("tilegpu", &tile::CompiledKernel::tilegpu)
      .def_readonly("llir", &tile::CompiledKernel::llir)
      .def_readonly("ptx", &tile::CompiledKernel::ptx)
      .def_property_readonly(
          "cubin",
          [](const tile::CompiledKernel &k) { return py::bytes(k.cubin); })
      .def_readonly("shared", &tile::CompiledKernel::sharedBytes)
      .def_readonly("num_warps", &tile::CompiledKernel::numWarps)
      .def_readonly("num_regs", &tile::CompiledKernel::numRegisters)
      .def_readonly("maxnreg", &tile::CompiledKernel::registerCap)
      .def_readonly("wgmma_serialized", &tile::CompiledKernel::wgmmaSerialized)
      .def_readonly("spill_store_bytes", &tile::CompiledKernel::spillStoreBytes)
      .def_readonly("diagnostics", &tile::CompiledKernel::diagnostics);

  m.def("compile_kernel", &tile::compileKernel, py::arg("source"),
        py::arg("buffer_name"), py::arg("options"),
        py::call_guard<py::gil_scoped_release>());
  m.def("assemble_ptx", &tile::assemblePTX, py::arg("ptx"), py::arg("target"),
        py::arg("num_warps"), py::arg("shared"),
        py::call_guard<py::gil_scoped_release>());

  m.def("driver_available", [] {
    std::string error;
    bool ok = tile::driverAvailable(error);
    return py::make_tuple(ok, error);
  });

  py::class_<tile::LoadedKernel>(m, "LoadedKernel")
      .def_readonly("device", &tile::LoadedKernel::device)
      .def_readonly("ctas_per_program", &tile::LoadedKernel::ctasPerProgram)
      .def_readonly("cooperative", &tile::LoadedKernel::cooperative)
      .def_readonly("dependent_launch", &tile::LoadedKernel::dependentLaunch)
      .def_property_readonly("module",
                             [](const tile::LoadedKernel &k) {
                               return reinterpret_cast<uintptr_t>(k.module);
                             })
      .def_property_readonly("function", [](const tile::LoadedKernel &k) {
        return reinterpret_cast<uintptr_t>(k.function);
      });

  // (registers per thread, local bytes per thread, max threads per CTA)
  // of a loaded kernel, from cuFuncGetAttribute.
  m.def("kernel_attributes", [](const tile::LoadedKernel &kernel) {
    tile::KernelAttributes attributes;
    std::string error;
    if (!tile::getKernelAttributes(kernel, attributes, error))
      throw std::runtime_error(error);
    return py::make_tuple(attributes.registers, attributes.localBytes,
                          attributes.maxThreads);
  });

  // Triton's get_device_properties keys, from cuDeviceGetAttribute.
  m.def("device_properties", [](int ordinal) {
    tile::DeviceProperties p;
    std::string error;
    if (!tile::getDeviceProperties(ordinal, p, error))
      throw std::runtime_error(error);
    py::dict result;
    result["max_shared_mem"] = p.maxSharedPerBlock;
    result["max_num_regs"] = p.maxRegistersPerBlock;
    result["multiprocessor_count"] = p.multiprocessors;
    result["warpSize"] = p.warpSize;
    result["sm_clock_rate"] = p.smClockKHz;
    result["mem_clock_rate"] = p.memClockKHz;
    result["mem_bus_width"] = p.memBusWidthBits;
    result["capability"] = py::make_tuple(p.major, p.minor);
    return result;
  });
  tile::python::registerDispatcher(m);
  tile::python::registerSpecialization(m);
  tile::python::registerTunedLaunch(m);

  m.def(
      "load_kernel",
      [](py::bytes cubin, const std::string &name, unsigned shared,
         unsigned threads, int device, unsigned ctasPerProgram,
         bool cooperative, bool dependentLaunch, bool probeParams) {
        tile::LoadedKernel kernel;
        kernel.ctasPerProgram = ctasPerProgram;
        kernel.cooperative = cooperative;
        kernel.dependentLaunch = dependentLaunch;
        std::string error;
        if (!tile::loadKernel(std::string(cubin), name, shared, threads, device,
                              kernel, error, probeParams))
          throw std::runtime_error(error);
        return kernel;
      },
      py::arg("cubin"), py::arg("name"), py::arg("shared"), py::arg("threads"),
      py::arg("device") = 0, py::arg("ctas_per_program") = 1,
      py::arg("cooperative") = false, py::arg("dependent_launch") = false,
      py::arg("probe_params") = false);

  // The baseline of the launch benchmark: `repeat` back-to-back
  // cuLaunchKernel calls from C++ with packed parameters; µs per call.
  m.def("time_raw_launches",
        [](const tile::LoadedKernel &kernel, unsigned gx, uintptr_t stream,
           std::vector<uint64_t> slots, int repeat) {
          std::vector<void *> params;
          for (uint64_t &slot : slots)
            params.push_back(&slot);
          std::string error;
          auto start = std::chrono::steady_clock::now();
          for (int i = 0; i < repeat; ++i)
            if (!tile::launchKernel(kernel, gx, 1, 1,
                                    reinterpret_cast<void *>(stream),
                                    params.data(), params.size(), error))
              throw std::runtime_error(error);
          std::chrono::duration<double, std::micro> elapsed =
              std::chrono::steady_clock::now() - start;
          return elapsed.count() / repeat;
        });

  m.def("encode_tensor_map", [](int dataType, unsigned elementBytes,
                                uint64_t address, std::vector<int64_t> shape,
                                std::vector<int64_t> strides,
                                std::vector<int64_t> blockShape) {
    std::string error;
    const tile::python::TensorMapBytes *map =
        tile::python::encodeTensorMapCached(dataType, elementBytes, address,
                                            shape, strides, blockShape, error);
    if (!map)
      throw std::invalid_argument(error);
    return py::bytes(reinterpret_cast<const char *>(map->bytes),
                     sizeof(map->bytes));
  });

  // The dispatcher's evaluation of a tl.make_tensor_descriptor recipe, for
  // tests against tile.runtime.host_values: (address, shape, strides), or
  // None where the dispatcher would leave the launch to Python.
  m.def("evaluate_host_recipe",
        [](py::dict recipe, py::tuple argNames, std::vector<py::object> values,
           std::vector<bool> isPointer) -> py::object {
          tile::python::HostDescriptorRecipe parsed;
          if (!parsed.parse(recipe.ptr(), argNames.ptr()))
            throw std::invalid_argument(
                "evaluate_host_recipe: unsupported recipe");
          size_t n = values.size();
          if (isPointer.size() != n || n > 64)
            throw std::invalid_argument("evaluate_host_recipe: bad arguments");
          PyObject *objects[64];
          uint64_t pointers[64];
          bool pointerFlags[64];
          for (size_t i = 0; i < n; ++i) {
            objects[i] = values[i].ptr();
            pointerFlags[i] = isPointer[i];
            pointers[i] = isPointer[i] ? values[i].cast<uint64_t>() : 0;
          }
          uint64_t address;
          std::vector<int64_t> dims, steps;
          if (!parsed.evaluate({objects, pointers, pointerFlags}, address, dims,
                               steps))
            return py::none();
          return py::make_tuple(address, dims, steps);
        });

  m.def("launch", [](const tile::LoadedKernel &kernel, unsigned gx, unsigned gy,
                     unsigned gz, uintptr_t stream, const std::string &sig,
                     py::sequence args, bool on_its_device) {
    size_t n = sig.size();
    if (py::len(args) != n)
      throw std::invalid_argument("launch: argument count does not match "
                                  "the kernel signature");
    uint64_t slots[64];
    void *params[64];
    // CUtensorMaps are 64-byte aligned 128-byte parameters.
    struct alignas(64) TensorMap {
      unsigned char bytes[128];
    };
    std::vector<TensorMap> maps(std::count(sig.begin(), sig.end(), 'd'));
    size_t nextMap = 0;
    if (n > 64)
      throw std::invalid_argument("launch: more than 64 arguments");
    for (size_t i = 0; i < n; ++i) {
      py::handle arg = args[i];
      params[i] = &slots[i];
      switch (sig[i]) {
      case 'p':
        slots[i] = py::isinstance<py::int_>(arg)
                       ? arg.cast<uint64_t>()
                       : arg.attr("data_ptr")().cast<uint64_t>();
        break;
      case 'i': {
        int32_t v = arg.cast<int32_t>();
        std::memcpy(&slots[i], &v, 4);
        break;
      }
      case 'l': {
        int64_t v = arg.cast<int64_t>();
        std::memcpy(&slots[i], &v, 8);
        break;
      }
      case 'f': {
        float v = arg.cast<float>();
        std::memcpy(&slots[i], &v, 4);
        break;
      }
      case 'b': {
        uint8_t v = arg.cast<bool>() ? 1 : 0;
        std::memcpy(&slots[i], &v, 1);
        break;
      }
      case 'd': {
        std::string map = arg.cast<py::bytes>();
        if (map.size() != sizeof(TensorMap))
          throw std::invalid_argument("launch: a tensor map has 128 bytes");
        std::memcpy(maps[nextMap].bytes, map.data(), map.size());
        params[i] = maps[nextMap++].bytes;
        break;
      }
      default:
        throw std::invalid_argument("launch: bad signature letter");
      }
    }
    std::string error;
    if (!tile::launchKernel(kernel, gx, gy, gz,
                            reinterpret_cast<void *>(stream), params, n,
                            error, on_its_device))
      throw std::runtime_error(error);
  }, py::arg("kernel"), py::arg("gx"), py::arg("gy"), py::arg("gz"),
     py::arg("stream"), py::arg("sig"), py::arg("args"),
     py::arg("on_its_device") = false);
}
