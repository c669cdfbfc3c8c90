// What the host can do at best, measured, for the CPU benchmark's floors:
// memory bandwidth (a plain copy and memcpy on every core) and the peak
// float rate (independent FMA chains in the widest vectors the CPU has).
#pragma once
#include <string>

namespace tritonc::bench {

struct MachineFloor {
  std::string cpuModel;      // /proc/cpuinfo "model name", family and model
  std::string vectorIsa;     // "avx512f+fma", "avx2+fma" or "sse2"
  int cores = 1;             // threads used for the measurements
  double mhz = 0;            // /proc/cpuinfo "cpu MHz" (nominal under a hypervisor)
  double copyGBps = 0;       // bytes read + written per second, the best of the three below
  double loopCopyGBps = 0;   // a vector loop (its stores read each line first, as kernels' do)
  double streamCopyGBps = 0; // the same with non-temporal stores (AVX-512 hosts)
  double memcpyGBps = 0;     // glibc memcpy (non-temporal stores for large sizes)
  double peakGflopsF32 = 0;  // measured: FMA chains on every core
  double nominalGflopsF32 = 0;  // lanes x 2 flops x FMA pipes (2) x MHz x cores
};

// Measures with `cores` threads over buffers of `bytes` each (source and
// destination), median of `repeats` rounds.
MachineFloor measureMachine(int cores, size_t bytes, int repeats);

}  // namespace tritonc::bench
