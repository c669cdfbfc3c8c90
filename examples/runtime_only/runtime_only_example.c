/* A C99 program linked only to the runtime library (tritonc_runtime, which
 * has no front end and no optimizer: CMake TRITONC_RUNTIME_ONLY builds just
 * it): loads the vector addition compiled ahead of time,
 *   tritonc compile examples/vector_add.tc --target interp,cpu -o vector_add.tck
 * runs it on each target given (default: interp and cpu; a target the file or
 * this build has no code for is skipped with a note), checks c = a + b on
 * random inputs, and checks that compiling source says this library cannot.
 * Usage: tritonc-runtime-only-example vector_add.tck [TARGET...]
 * Exits 0 on PASS. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tritonc/tritonc.h"

static tritonc_arg int_arg(int64_t v) {
  tritonc_arg a;
  memset(&a, 0, sizeof a);
  a.kind = TRITONC_ARG_INT;
  a.i = v;
  return a;
}

static tritonc_arg host_arg(void* p, size_t bytes) {
  tritonc_arg a;
  memset(&a, 0, sizeof a);
  a.kind = TRITONC_ARG_HOST;
  a.ptr = p;
  a.bytes = bytes;
  return a;
}

/* 0: passed, 1: failed, 2: skipped (no code for the target here). */
static int run_on(const char* path, const char* target, unsigned seed) {
  enum { N = 4096 }; /* the kernel has no mask: a multiple of its 32 elements per program */
  static float a[N], b[N], c[N];
  tritonc_options o;
  tritonc_kernel* k = NULL;
  tritonc_status s;
  int64_t grid[3] = {N / 32, 1, 1};
  tritonc_arg args[4];
  int i;
  tritonc_options_init(&o);
  o.target = target;
  s = tritonc_kernel_load(path, &o, &k);
  if (s == TRITONC_ERROR_NO_DEVICE) {
    printf("%s: skipped (%s)\n", target, tritonc_last_error());
    return 2;
  }
  if (s != TRITONC_OK) {
    fprintf(stderr, "%s: loading %s failed (%d): %s\n", target, path, (int)s, tritonc_last_error());
    return 1;
  }
  srand(seed);
  for (i = 0; i < N; ++i) {
    a[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    b[i] = (float)rand() / (float)RAND_MAX - 0.5f;
    c[i] = NAN; /* poisoned */
  }
  args[0] = int_arg(N);
  args[1] = host_arg(a, sizeof a);
  args[2] = host_arg(b, sizeof b);
  args[3] = host_arg(c, sizeof c);
  s = tritonc_launch(k, args, 4, grid, NULL, NULL, NULL);
  if (s != TRITONC_OK) {
    fprintf(stderr, "%s: launch failed (%d): %s\n", target, (int)s, tritonc_last_error());
    tritonc_kernel_destroy(k);
    return 1;
  }
  for (i = 0; i < N; ++i)
    if (c[i] != a[i] + b[i]) {
      fprintf(stderr, "%s: c[%d] = %g, expected %g\n", target, i, c[i], a[i] + b[i]);
      tritonc_kernel_destroy(k);
      return 1;
    }
  printf("%s: kernel from %s ran on %s: PASS\n", target, path, tritonc_kernel_target(k));
  tritonc_kernel_destroy(k);
  return 0;
}

int main(int argc, char** argv) {
  const char* defaults[] = {"interp", "cpu"};
  const char** targets = argc > 2 ? (const char**)(argv + 2) : defaults;
  int count = argc > 2 ? argc - 2 : 2, t, ran = 0;
  tritonc_kernel* k = NULL;
  tritonc_status s;
  if (argc < 2) {
    fprintf(stderr, "usage: %s vector_add.tck [TARGET...]\n", argv[0]);
    return 2;
  }
  for (t = 0; t < count; ++t) {
    int r = run_on(argv[1], targets[t], 1234u + (unsigned)t);
    if (r == 1) return 1;
    ran += r == 0;
  }
  if (!ran) {
    fprintf(stderr, "no target ran\n");
    return 1;
  }
  /* No compiler in this library: a clear error, not a crash. */
  s = tritonc_kernel_create("__global__ void k() {}", NULL, &k);
  if (s != TRITONC_ERROR_COMPILE || k != NULL || !strstr(tritonc_last_error(), "runtime-only")) {
    fprintf(stderr, "tritonc_kernel_create: expected the runtime-only error, got %d: %s\n", (int)s,
            tritonc_last_error());
    return 1;
  }
  printf("tritonc_kernel_create: %s\nPASS\n", tritonc_last_error());
  return 0;
}
