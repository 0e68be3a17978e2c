//===- Runtime.h - Loading and launching kernels ----------------*- C++ -*-===//
//
// The CUDA driver is opened with dlopen on first use, so libtile links
// against no GPU library and imports on machines without a driver.
//
//===----------------------------------------------------------------------===//

#ifndef TILE_RUNTIME_RUNTIME_H
#define TILE_RUNTIME_RUNTIME_H

#include "tile/Support/Export.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tile {

/// A cubin loaded into the current device's primary context.
struct LoadedKernel {
  void *module = nullptr;
  void *function = nullptr;
  unsigned sharedBytes = 0;
  unsigned threads = 128;
  int device = 0;
  /// CTAs per program: the kernel was compiled for clusters of this many
  /// CTAs along x, so a grid of N programs launches N * ctasPerProgram CTAs.
  unsigned ctasPerProgram = 1;
  /// Launched with cuLaunchKernelEx attributes: every CTA resident at once
  /// (grid-wide synchronisation), or programmatic dependent launch.
  bool cooperative = false;
  bool dependentLaunch = false;
  /// The bytes of each parameter the cubin's kernel declares, as the driver
  /// reports them (empty where the driver cannot say: before CUDA 12.4).
  std::vector<unsigned> paramBytes;
};

/// What the driver reports about a loaded kernel.
struct KernelAttributes {
  int registers = 0;  // per thread
  int localBytes = 0; // per thread: spills and local arrays
  int maxThreads = 0; // per CTA, given its registers and shared memory
};

/// The device attributes Triton's `get_device_properties` reports.
struct DeviceProperties {
  int multiprocessors = 0;
  int maxSharedPerBlock = 0; // opt-in limit, bytes
  int maxRegistersPerBlock = 0;
  int warpSize = 0;
  int smClockKHz = 0;
  int memClockKHz = 0;
  int memBusWidthBits = 0;
  int major = 0;
  int minor = 0;
};

/// True when libcuda.so.1 loads and initialises; `error` says why not.
TILE_API bool driverAvailable(std::string &error);

/// Loads `cubin` on `device` (into its primary context, the one PyTorch
/// uses, made current if another is) and finds kernel `name`; raises the
/// dynamic shared-memory limit when the kernel needs more than 48 KiB.
/// With `probeParams` (a kernel from PTX that tile did not write, which
/// may declare parameters past the ones a launch packs) it records the
/// kernel's parameter sizes, asking the driver until it says there are no
/// more: an API error that compute-sanitizer reports, so tile's own kernels
/// are not probed.
TILE_API bool loadKernel(const std::string &cubin, const std::string &name,
                         unsigned sharedBytes, unsigned threads, int device,
                         LoadedKernel &kernel, std::string &error,
                         bool probeParams = false);

/// The driver's attributes of a loaded kernel.
TILE_API bool getKernelAttributes(const LoadedKernel &kernel,
                                  KernelAttributes &attributes,
                                  std::string &error);

/// The attributes of device `ordinal`.
TILE_API bool getDeviceProperties(int ordinal, DeviceProperties &properties,
                                  std::string &error);

/// Launches `gridX * ctasPerProgram` by `gridY` by `gridZ` CTAs with `params`
/// (one pointer per kernel parameter, `numParams` of them): cuLaunchKernel,
/// or cuLaunchKernelEx for cooperative and dependent launches. Parameters
/// the kernel declares past `numParams` are passed as zeros: a PTX override
/// written for Triton declares its scratch pointers last, which Triton
/// passes as null when the kernel needs no scratch.
/// With `onItsDevice`, the kernel's device's primary context is made current
/// for the launch and the caller's context restored after it: a launch on a
/// device other than the current one (tensors on cuda:1 while torch's
/// current device is cuda:0), as a torch device guard would do.
TILE_API bool launchKernel(const LoadedKernel &kernel, unsigned gridX,
                           unsigned gridY, unsigned gridZ, void *stream,
                           void **params, size_t numParams, std::string &error,
                           bool onItsDevice = false);

/// Encodes the 128-byte CUtensorMap of a tensor at `address` with `shape`
/// and `strides` (in elements, outermost first, the last stride 1) read in
/// blocks of `blockShape`, with the swizzle and box the compiler's TMA
/// copies expect. `dataType` is a CUtensorMapDataType.
TILE_API bool encodeTensorMap(void *map, int dataType, unsigned elementBytes,
                              uint64_t address,
                              const std::vector<int64_t> &shape,
                              const std::vector<int64_t> &strides,
                              const std::vector<int64_t> &blockShape,
                              std::string &error);

} // namespace tile

#endif // TILE_RUNTIME_RUNTIME_H
