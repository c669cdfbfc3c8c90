/* The C API of the tritonc runtime: compile a Triton-C kernel once, launch it
 * many times (auto-tuned over its tuning space when it has one), on the
 * interpreter, the CPU or an NVIDIA GPU. Compiled code and tuning results
 * are cached in memory and on disk, as in the C++ runtime
 * (lib/runtime/kernel.h). Or load a kernel compiled ahead of time by
 * `tritonc compile` (a .tck file, docs/TCK_FORMAT.md) and launch it the
 * same way; a runtime-only library (CMake TRITONC_RUNTIME_ONLY) does only
 * that.
 *
 * Errors: every function that returns a tritonc_status resets this thread's
 * error message on entry and, when it fails, sets it (tritonc_last_error).
 * No function throws or aborts on bad input.
 *
 * Threads: a kernel handle may be used from several threads at once; launches
 * and tunes of one kernel are serialized. Different kernels run in parallel. */
#ifndef TRITONC_TRITONC_H
#define TRITONC_TRITONC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tritonc_kernel tritonc_kernel; /* opaque; owned by the caller (tritonc_kernel_destroy) */
typedef struct tritonc_config tritonc_config; /* opaque; valid only during the grid callback given it */

typedef enum {
  TRITONC_OK = 0,
  TRITONC_ERROR_INVALID_ARGUMENT = 1, /* a NULL pointer, a bad count or option, an argument of the wrong kind */
  TRITONC_ERROR_COMPILE = 2,          /* the source does not compile */
  TRITONC_ERROR_LAUNCH = 3,           /* the run failed (e.g. an out-of-bounds access found by the interpreter) */
  TRITONC_ERROR_NO_DEVICE = 4,        /* target "gpu" (or sm_XX) without a usable GPU; "cpu" in a build without it */
  TRITONC_ERROR_INTERNAL = 5,         /* a bug in tritonc, or out of memory */
  TRITONC_ERROR_FILE = 6              /* a .tck file cannot be read: missing, not a .tck file, another format
                                         version, truncated or damaged */
} tritonc_status;

typedef enum {
  TRITONC_I1,
  TRITONC_I8,
  TRITONC_I16,
  TRITONC_I32,
  TRITONC_I64,
  TRITONC_F16,
  TRITONC_BF16,
  TRITONC_F32,
  TRITONC_F64
} tritonc_dtype;

/* A -D macro. `value` may be a tuning list, "[32, 64]"; NULL means "". */
typedef struct {
  const char* name;
  const char* value;
} tritonc_define;

/* Options of tritonc_kernel_create; start from tritonc_options_init. Strings
 * and arrays are copied: they need to live only during the call. */
typedef struct {
  const char* filename; /* for diagnostics; NULL: "<source>" */
  const tritonc_define* defines;
  size_t num_defines;
  const int* num_warps; /* NULL/0: {4}; several: tuned over */
  size_t num_num_warps;
  const int* num_stages; /* NULL/0: {3}; several: tuned over */
  size_t num_num_stages;
  const char* target;    /* NULL or "auto" (the GPU when present, else "cpu" when built with it, else
                            "interp"), "interp" (checks every access), "cpu" (native code through LLVM),
                            "gpu", "sm_90a", ... */
  const char* kernel;    /* NULL: the only kernel of the source */
  const char* cache_dir; /* NULL: default per-user cache ($TRITONC_CACHE_DIR, ...); "none": memory only */
  const char* const* tuning_key; /* argument names keying tuning results; NULL: every integer argument */
  size_t num_tuning_key;
  int verbose; /* nonzero: tuning progress on stderr */
  int cache_must_hit; /* nonzero: a compile (a miss of the memory and disk caches) fails the launch
                         (TRITONC_ERROR_LAUNCH) naming the key, as TRITONC_CACHE_MUST_HIT=1 does;
                         TRITONC_LOG_COMPILES=1 prints a line per compile with what changed */
  int allow_tf32; /* nonzero: f32 dots on the GPU's tensor cores with tf32 inputs (10-bit mantissas),
                     as the CLI's --allow-tf32; the interpreter and the CPU back end compute f32 */
} tritonc_options;

/* Sets every field to its default (NULL / 0). */
void tritonc_options_init(tritonc_options* opts);

typedef enum {
  TRITONC_ARG_INT = 0,   /* `i`: integer parameters (also accepted by float parameters) */
  TRITONC_ARG_FLOAT = 1, /* `f`: float parameters */
  TRITONC_ARG_HOST = 2,  /* `ptr` + `bytes` of host memory: copied in and back (interpreter, or the GPU) */
  TRITONC_ARG_DEVICE = 3 /* `ptr`: a GPU address, used as is (GPU targets only); `bytes`: its size,
                            which tritonc_tune needs (it times configurations on copies) */
} tritonc_arg_kind;

/* One kernel argument, in parameter order. A HOST buffer holds elements of
 * the parameter's pointee type: `bytes` must be a multiple of its size. HOST
 * arguments whose memory overlaps (the same array twice, or parts of one
 * allocation that overlap) are one buffer for the kernel, each pointing into
 * it where its `ptr` is, so a store through one is seen through the other;
 * only the bytes the kernel changed inside the arguments go back. */
typedef struct {
  tritonc_arg_kind kind;
  int64_t i;
  double f;
  void* ptr;
  size_t bytes;
} tritonc_arg;

/* Computes the launch grid for one configuration of the tuning space: write
 * the program counts into grid[0..2] (preset to 1, 1, 1). Called during
 * tritonc_launch / tritonc_tune, possibly several times, on the calling thread. */
typedef void (*tritonc_grid_fn)(const tritonc_config* config, void* user, int64_t grid[3]);

/* Parses `source` (NUL-terminated) and finds its parameters and tuning space;
 * compiles lazily, on first launch. On success *out is a new kernel (free it
 * with tritonc_kernel_destroy); on failure *out is NULL. `opts` may be NULL
 * (defaults). Errors: COMPILE (with the diagnostic, "file:line:col: error:
 * ..."), INVALID_ARGUMENT (bad options), NO_DEVICE (target "gpu" without one).
 * A runtime-only library (TRITONC_RUNTIME_ONLY) has no compiler: COMPILE,
 * saying so (load .tck files with tritonc_kernel_load). */
tritonc_status tritonc_kernel_create(const char* source, const tritonc_options* opts, tritonc_kernel** out);

/* Loads a kernel compiled ahead of time by `tritonc compile` from the .tck
 * file at `path`; nothing is compiled (the CPU back end JIT-compiles the
 * file's IR for target "cpu"). `opts` (may be NULL) selects what to run:
 * `target` ("auto": the GPU's code when there is a GPU and the file has code
 * it runs, else "cpu" when built with it, else "interp"; or "gpu", "cpu",
 * "interp", "sm_90a", ...); `defines` keep the configurations whose macro
 * NAME has the value ("[64, 128]": any of those; a name no configuration
 * defines matches none); `num_warps` / `num_stages` likewise (NULL/0: any);
 * `kernel` (NULL, or the file's kernel's name); `tuning_key` and `verbose`
 * as for tritonc_kernel_create. `filename`, `cache_dir` and `cache_must_hit`
 * are not used. Several configurations left are tuned at launch, as a
 * source kernel's space is; a launch runs the most specialized code whose
 * assumptions (aligned pointers, divisible integers) its arguments meet.
 * On success *out is a new kernel (free it with tritonc_kernel_destroy); on
 * failure *out is NULL. Errors: FILE (the file), INVALID_ARGUMENT (NULL
 * path or out, bad options, no configuration matches: the message lists the
 * file's), NO_DEVICE (no code for the target or this machine). */
tritonc_status tritonc_kernel_load(const char* path, const tritonc_options* opts, tritonc_kernel** out);

/* Frees the kernel; NULL is fine. No call on it may be in progress. */
void tritonc_kernel_destroy(tritonc_kernel* k);

/* The number of the kernel's parameters (0 for NULL). */
size_t tritonc_kernel_num_params(const tritonc_kernel* k);

/* Parameter `index`: its name (owned by the kernel), its type (for pointers,
 * the pointee's) and whether it is a pointer. Any output may be NULL. */
tritonc_status tritonc_kernel_param(const tritonc_kernel* k, size_t index, const char** name, tritonc_dtype* dtype,
                                    int* is_pointer);

/* The size of the tuning space (1: nothing to tune; 0 for NULL). */
size_t tritonc_kernel_num_configs(const tritonc_kernel* k);

/* The resolved target: "interp", "cpu" or "sm_90a", ... (owned by the kernel; "" for NULL). */
const char* tritonc_kernel_target(const tritonc_kernel* k);

/* Runs the kernel on `args` (num_args must be its parameter count). The grid
 * is either `grid` (3 values; then grid_fn is NULL) or grid_fn(config, user,
 * out) (then grid is NULL). A kernel with several configurations is tuned
 * first when the tuning key of `args` is new (see tritonc_tune). HOST
 * buffers are written back before the call returns (not at all when it
 * fails: then the caller's memory is unchanged); with DEVICE arguments
 * only, the launch is asynchronous on `stream` (a CUstream; NULL: default).
 * On a GPU target, the call makes device 0's primary context (the CUDA
 * runtime API's) current on the calling thread. */
tritonc_status tritonc_launch(tritonc_kernel* k, const tritonc_arg* args, size_t num_args, const int64_t* grid,
                              tritonc_grid_fn grid_fn, void* user, void* stream);

/* Times every configuration on copies of the buffers of `args` (HOST, or
 * DEVICE with their `bytes`; the
 * caller's memory is never written; always re-times) and keeps the fastest
 * for later launches with the same tuning key. Writes the best configuration's
 * text ("TM=64 TN=32 num_warps=4 num_stages=3") into best (best_size bytes,
 * truncated, NUL-terminated) and its median time in milliseconds into
 * *best_ms; either may be NULL. Grid as for tritonc_launch. */
tritonc_status tritonc_tune(tritonc_kernel* k, const tritonc_arg* args, size_t num_args, const int64_t* grid,
                            tritonc_grid_fn grid_fn, void* user, char* best, size_t best_size, double* best_ms);

/* The value of a tuning parameter, -D macro, "num_warps" or "num_stages" in
 * the configuration: 1 (and *value) if found and an integer, else 0. */
int tritonc_config_int(const tritonc_config* c, const char* name, int64_t* value);

/* This thread's last error message ("" if none): set by the last call on
 * this thread that returned a tritonc_status, and valid until the next one. */
const char* tritonc_last_error(void);

/* The compiler's version, "tritonc 0.2 (<git id>)" (as `tritonc --version` and
   the Python package's tritonc.version()); a static string. */
const char* tritonc_version(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TRITONC_TRITONC_H */
