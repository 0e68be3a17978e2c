//===- Runtime.cpp - Loading and launching kernels through the driver -----===//

#include "tile/Runtime/Runtime.h"

#include "tile/Support/TMA.h"

#include <dlfcn.h>
#include <mutex>
#include <utility>

namespace {

using CUresult = int;
using CUdevice = int;
using CUcontext = void *;
using CUmodule = void *;
using CUfunction = void *;
using CUstream = void *;

constexpr int kMaxDynamicSharedAttr =
    8; // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES

// The cuda.h layouts cuLaunchKernelEx takes (CUlaunchConfig and
// CUlaunchAttribute), and the enumerators used here.
struct LaunchAttribute {
  int id;
  char pad[4];
  union {
    char bytes[64];
    int flag;
  } value;
};
struct LaunchConfig {
  unsigned gridDimX, gridDimY, gridDimZ;
  unsigned blockDimX, blockDimY, blockDimZ;
  unsigned sharedMemBytes;
  CUstream stream;
  LaunchAttribute *attrs;
  unsigned numAttrs;
};
// cuda.h's numbers: launch attributes, function attributes, an error.
constexpr int kLaunchCooperative = 2;        // ..._COOPERATIVE
constexpr int kLaunchProgrammaticSerial = 6; // ..._PROGRAMMATIC_STREAM_...
constexpr int kFuncMaxThreads = 0;           // ..._MAX_THREADS_PER_BLOCK
constexpr int kFuncLocalBytes = 3;           // ..._LOCAL_SIZE_BYTES
constexpr int kFuncNumRegs = 4;              // ..._NUM_REGS
constexpr int kInvalidContext = 201;         // CUDA_ERROR_INVALID_CONTEXT
// The most parameters a kernel is launched with, and the largest one passed
// as zeros when the kernel declares more than the caller packs.
constexpr size_t kMaxParams = 256;
constexpr size_t kMaxZeroParamBytes = 256;

struct Driver {
  CUresult (*cuInit)(unsigned);
  CUresult (*cuCtxGetCurrent)(CUcontext *);
  CUresult (*cuCtxGetDevice)(CUdevice *);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned,
                             unsigned, unsigned, unsigned, CUstream, void **,
                             void **);
  CUresult (*cuLaunchKernelEx)(const LaunchConfig *, CUfunction, void **,
                               void **);
  CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
  // Optional (CUDA 12.4+): null where the driver lacks it.
  CUresult (*cuFuncGetParamInfo)(CUfunction, size_t, size_t *, size_t *);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuGetErrorString)(CUresult, const char **);
  CUresult (*cuTensorMapEncodeTiled)(void *, int, uint32_t, void *,
                                     const uint64_t *, const uint64_t *,
                                     const uint32_t *, const uint32_t *, int,
                                     int, int, int);
  std::string error;
  bool ok = false;
};

template <typename Fn> bool bind(void *lib, const char *name, Fn &fn) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  return fn != nullptr;
}

Driver &driver() {
  static Driver d;
  static std::once_flag once;
  std::call_once(once, [] {
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      d.error = std::string("cannot load libcuda.so.1: ") + dlerror();
      return;
    }
    bool all =
        bind(lib, "cuInit", d.cuInit) &&
        bind(lib, "cuCtxGetCurrent", d.cuCtxGetCurrent) &&
        bind(lib, "cuCtxGetDevice", d.cuCtxGetDevice) &&
        bind(lib, "cuCtxSetCurrent", d.cuCtxSetCurrent) &&
        bind(lib, "cuDeviceGet", d.cuDeviceGet) &&
        bind(lib, "cuDevicePrimaryCtxRetain", d.cuDevicePrimaryCtxRetain) &&
        bind(lib, "cuModuleLoadData", d.cuModuleLoadData) &&
        bind(lib, "cuModuleGetFunction", d.cuModuleGetFunction) &&
        bind(lib, "cuFuncSetAttribute", d.cuFuncSetAttribute) &&
        bind(lib, "cuLaunchKernel", d.cuLaunchKernel) &&
        bind(lib, "cuLaunchKernelEx", d.cuLaunchKernelEx) &&
        bind(lib, "cuFuncGetAttribute", d.cuFuncGetAttribute) &&
        bind(lib, "cuDeviceGetAttribute", d.cuDeviceGetAttribute) &&
        bind(lib, "cuGetErrorString", d.cuGetErrorString) &&
        bind(lib, "cuTensorMapEncodeTiled", d.cuTensorMapEncodeTiled);
    bind(lib, "cuFuncGetParamInfo", d.cuFuncGetParamInfo);
    if (!all) {
      d.error = "libcuda.so.1 lacks a driver API function tile needs";
      return;
    }
    if (d.cuInit(0) != 0) {
      d.error = "cuInit failed: no usable GPU";
      return;
    }
    d.ok = true;
  });
  return d;
}

std::string describe(Driver &d, CUresult rc) {
  const char *text = nullptr;
  d.cuGetErrorString(rc, &text);
  return std::string(text ? text : "unknown CUDA error") + " (" +
         std::to_string(rc) + ")";
}

/// Kernels load into `ordinal`'s primary context, the one PyTorch uses: the
/// current context when it belongs to that device, otherwise the primary
/// context is made current (as cudaSetDevice would).
bool ensureContext(Driver &d, int ordinal, std::string &error) {
  CUcontext context = nullptr;
  CUdevice current;
  if (d.cuCtxGetCurrent(&context) == 0 && context &&
      d.cuCtxGetDevice(&current) == 0 && current == ordinal)
    return true;
  CUdevice device;
  CUresult rc = d.cuDeviceGet(&device, ordinal);
  if (rc == 0)
    rc = d.cuDevicePrimaryCtxRetain(&context, device);
  if (rc == 0)
    rc = d.cuCtxSetCurrent(context);
  if (rc != 0) {
    error = "cannot make device " + std::to_string(ordinal) +
            "'s CUDA context current: " + describe(d, rc);
    return false;
  }
  return true;
}

/// One launch of `kernel` (cuLaunchKernel, or cuLaunchKernelEx for the
/// cooperative and dependent kinds); the driver's result.
CUresult launchOnce(Driver &d, const tile::LoadedKernel &kernel, unsigned gridX,
                    unsigned gridY, unsigned gridZ, CUstream stream,
                    void **params) {
  unsigned ctasX = gridX * kernel.ctasPerProgram;
  if (!kernel.cooperative && !kernel.dependentLaunch)
    return d.cuLaunchKernel(kernel.function, ctasX, gridY, gridZ,
                            kernel.threads, 1, 1, kernel.sharedBytes, stream,
                            params, nullptr);
  LaunchAttribute attrs[2] = {};
  unsigned count = 0;
  if (kernel.cooperative) {
    attrs[count].id = kLaunchCooperative;
    attrs[count++].value.flag = 1;
  }
  if (kernel.dependentLaunch) {
    attrs[count].id = kLaunchProgrammaticSerial;
    attrs[count++].value.flag = 1;
  }
  LaunchConfig config{
      ctasX,  gridY, gridZ, kernel.threads, 1, 1, kernel.sharedBytes,
      stream, attrs, count};
  return d.cuLaunchKernelEx(&config, kernel.function, params, nullptr);
}

} // namespace

namespace tile {

bool driverAvailable(std::string &error) {
  Driver &d = driver();
  error = d.error;
  return d.ok;
}

bool loadKernel(const std::string &cubin, const std::string &name,
                unsigned sharedBytes, unsigned threads, int device,
                LoadedKernel &kernel, std::string &error, bool probeParams) {
  Driver &d = driver();
  if (!d.ok) {
    error = d.error;
    return false;
  }
  // Loading on another device than the current one must not change which
  // device the caller (torch) sees as current afterwards.
  CUcontext saved = nullptr;
  if (d.cuCtxGetCurrent(&saved) != 0)
    saved = nullptr;
  if (!ensureContext(d, device, error))
    return false;
  struct Restore {
    Driver &d;
    CUcontext saved;
    ~Restore() {
      CUcontext now = nullptr;
      if (saved && d.cuCtxGetCurrent(&now) == 0 && now != saved)
        d.cuCtxSetCurrent(saved);
    }
  } restore{d, saved};
  CUmodule module;
  CUresult rc = d.cuModuleLoadData(&module, cubin.data());
  if (rc != 0) {
    error = "cuModuleLoadData: " + describe(d, rc);
    return false;
  }
  CUfunction function;
  rc = d.cuModuleGetFunction(&function, module, name.c_str());
  if (rc != 0) {
    error = "cuModuleGetFunction(" + name + "): " + describe(d, rc);
    return false;
  }
  if (sharedBytes > 48 * 1024) {
    rc = d.cuFuncSetAttribute(function, kMaxDynamicSharedAttr, sharedBytes);
    if (rc != 0) {
      error = "cannot raise the shared-memory limit of " + name + " to " +
              std::to_string(sharedBytes) + " bytes: " + describe(d, rc);
      return false;
    }
  }
  kernel.paramBytes.clear();
  if (probeParams && d.cuFuncGetParamInfo) {
    size_t offset, size;
    while (kernel.paramBytes.size() < kMaxParams &&
           d.cuFuncGetParamInfo(function, kernel.paramBytes.size(), &offset,
                                &size) == 0)
      kernel.paramBytes.push_back(static_cast<unsigned>(size));
  }
  kernel.module = module;
  kernel.function = function;
  kernel.device = device;
  kernel.sharedBytes = sharedBytes;
  kernel.threads = threads;
  return true;
}

bool launchKernel(const LoadedKernel &kernel, unsigned gridX, unsigned gridY,
                  unsigned gridZ, void *stream, void **params, size_t numParams,
                  std::string &error, bool onItsDevice) {
  Driver &d = driver();
  void *padded[kMaxParams];
  if (numParams < kernel.paramBytes.size()) {
    alignas(64) static const unsigned char zeros[kMaxZeroParamBytes] = {};
    for (size_t i = 0; i < kernel.paramBytes.size(); ++i) {
      if (i < numParams) {
        padded[i] = params[i];
        continue;
      }
      if (kernel.paramBytes[i] > sizeof(zeros)) {
        error = "the kernel's parameter " + std::to_string(i) + " (of " +
                std::to_string(kernel.paramBytes[i]) +
                " bytes) has no argument, and only parameters up to " +
                std::to_string(sizeof(zeros)) + " bytes are passed as zeros";
        return false;
      }
      padded[i] = const_cast<unsigned char *>(zeros);
    }
    params = padded;
    numParams = kernel.paramBytes.size();
  }
  if (onItsDevice) {
    CUcontext saved = nullptr;
    if (d.cuCtxGetCurrent(&saved) != 0)
      saved = nullptr;
    if (!ensureContext(d, kernel.device, error))
      return false;
    bool ok = launchKernel(kernel, gridX, gridY, gridZ, stream, params,
                           numParams, error);
    // Put back what the caller (torch) had current, even after a failure.
    if (saved)
      d.cuCtxSetCurrent(saved);
    return ok;
  }
  CUresult rc = launchOnce(d, kernel, gridX, gridY, gridZ, stream, params);
  // A thread that never touched CUDA has no current context (torch makes
  // one current only where it runs): make the kernel's device's primary
  // context current and try again. Checked on failure only, so that the
  // usual launch pays nothing for it.
  if (rc == kInvalidContext) {
    if (!ensureContext(d, kernel.device, error))
      return false;
    rc = launchOnce(d, kernel, gridX, gridY, gridZ, stream, params);
  }
  if (rc != 0) {
    const char *what = kernel.cooperative ? "cuLaunchKernelEx (cooperative)"
                       : kernel.dependentLaunch ? "cuLaunchKernelEx (dependent)"
                                                : "cuLaunchKernel";
    error = std::string(what) + ": " + describe(d, rc);
    return false;
  }
  return true;
}

bool getKernelAttributes(const LoadedKernel &kernel,
                         KernelAttributes &attributes, std::string &error) {
  Driver &d = driver();
  if (!d.ok) {
    error = d.error;
    return false;
  }
  CUresult rc = d.cuFuncGetAttribute(&attributes.registers, kFuncNumRegs,
                                     kernel.function);
  if (rc == 0)
    rc = d.cuFuncGetAttribute(&attributes.localBytes, kFuncLocalBytes,
                              kernel.function);
  if (rc == 0)
    rc = d.cuFuncGetAttribute(&attributes.maxThreads, kFuncMaxThreads,
                              kernel.function);
  if (rc != 0) {
    error = "cuFuncGetAttribute: " + describe(d, rc);
    return false;
  }
  return true;
}

bool getDeviceProperties(int ordinal, DeviceProperties &properties,
                         std::string &error) {
  Driver &d = driver();
  if (!d.ok) {
    error = d.error;
    return false;
  }
  CUdevice device;
  CUresult rc = d.cuDeviceGet(&device, ordinal);
  // cuda.h's CU_DEVICE_ATTRIBUTE_* numbers.
  std::pair<int *, int> queries[] = {{&properties.multiprocessors, 16},
                                     {&properties.maxSharedPerBlock, 97},
                                     {&properties.maxRegistersPerBlock, 12},
                                     {&properties.warpSize, 10},
                                     {&properties.smClockKHz, 13},
                                     {&properties.memClockKHz, 36},
                                     {&properties.memBusWidthBits, 37},
                                     {&properties.major, 75},
                                     {&properties.minor, 76}};
  for (auto [slot, attribute] : queries)
    if (rc == 0)
      rc = d.cuDeviceGetAttribute(slot, attribute, device);
  if (rc != 0) {
    error = "device " + std::to_string(ordinal) + ": " + describe(d, rc);
    return false;
  }
  return true;
}

bool encodeTensorMap(void *map, int dataType, unsigned elementBytes,
                     uint64_t address, const std::vector<int64_t> &shape,
                     const std::vector<int64_t> &strides,
                     const std::vector<int64_t> &blockShape,
                     std::string &error) {
  size_t rank = shape.size();
  if (rank < 1 || rank > 5 || strides.size() != rank ||
      blockShape.size() != rank) {
    error = "a tensor map has rank 1 to 5, with as many strides and block "
            "dimensions as dimensions";
    return false;
  }
  if (address % 16 != 0) {
    error = "a tensor map's base address must be 16-byte aligned";
    return false;
  }
  // The driver takes dimensions innermost first and strides (in bytes) of
  // all but the innermost dimension.
  uint64_t dims[5], byteStrides[5];
  uint32_t box[5], elementStrides[5];
  for (size_t i = 0; i < rank; ++i) {
    size_t d = rank - 1 - i;
    if (shape[d] <= 0 || shape[d] > (int64_t(1) << 32)) {
      error = "tensor map dimension " + std::to_string(d) + " is " +
              std::to_string(shape[d]) + ", outside 1 .. 2^32";
      return false;
    }
    dims[i] = uint64_t(shape[d]);
    box[i] = uint32_t(blockShape[d]);
    elementStrides[i] = 1;
    if (i > 0) {
      uint64_t bytes = uint64_t(strides[d]) * elementBytes;
      if (strides[d] <= 0 || bytes % 16 != 0) {
        error = "tensor map stride " + std::to_string(strides[d]) +
                " of dimension " + std::to_string(d) +
                " is not a positive multiple of 16 bytes";
        return false;
      }
      byteStrides[i - 1] = bytes;
    }
  }
  if (strides[rank - 1] != 1) {
    error = "a tensor map's innermost dimension must be contiguous";
    return false;
  }
  // The box and swizzle the compiler's shared layout expects (TMA.h).
  int64_t rowBytes = blockShape[rank - 1] * elementBytes;
  unsigned swizzle = tma::getNVMMASwizzleBytes(rowBytes);
  box[0] = uint32_t(tma::getTMABoxInner(blockShape[rank - 1], elementBytes));
  for (size_t i = 1; i < rank; ++i)
    if (box[i] > 256) {
      error = "a block dimension is larger than the 256 a TMA box allows";
      return false;
    }
  int swizzleMode = swizzle == 128  ? 3
                    : swizzle == 64 ? 2
                    : swizzle == 32 ? 1
                                    : 0;
  Driver &d = driver();
  if (!d.ok) {
    error = d.error;
    return false;
  }
  CUresult rc = d.cuTensorMapEncodeTiled(
      map, dataType, uint32_t(rank), reinterpret_cast<void *>(address), dims,
      byteStrides, box, elementStrides, /*interleave=*/0, swizzleMode,
      /*l2Promotion: 128B=*/2, /*oobFill: zeros=*/0);
  if (rc != 0) {
    error = "cuTensorMapEncodeTiled: " + describe(d, rc);
    return false;
  }
  return true;
}

} // namespace tile
