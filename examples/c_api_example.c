/* The tritonc C API from C99: a vector addition (examples/vector_add.tc) and
 * a tuned matrix multiplication (examples/matmul.tc), both checked against
 * plain C loops. Usage: tritonc-c-example [vector_add.tc [matmul.tc]]
 * (defaults: examples/vector_add.tc, and matmul.tc next to it). Runs on the
 * GPU when there is one, else on the interpreter. Exits 0 on PASS. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tritonc/tritonc.h"

static char* read_file(const char* path) {
  FILE* f = fopen(path, "rb");
  char* text = NULL;
  long n;
  if (!f) return NULL;
  if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
    text = (char*)malloc((size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, f) == (size_t)n) {
      text[n] = '\0';
    } else {
      free(text);
      text = NULL;
    }
  }
  fclose(f);
  return text;
}

static const char* dtype_name(tritonc_dtype d) {
  static const char* const names[] = {"i1", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"};
  return (unsigned)d < sizeof names / sizeof names[0] ? names[d] : "?";
}

/* Uniform in [-1, 1), from a fixed-seed generator so runs are reproducible. */
static float next_random(uint64_t* state) {
  *state = *state * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
  return (float)((*state >> 40) & 0xFFFFFF) / (float)0x800000 - 1.0f;
}

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

static int vector_add(const char* path) {
  enum { N = 4096 }; /* the kernel has no mask: a multiple of its 32 elements per program */
  char* source = read_file(path);
  tritonc_options opts;
  tritonc_kernel* k = NULL;
  float *a, *b, *c;
  tritonc_arg args[4];
  int64_t grid[3] = {N / 32, 1, 1};
  size_t i;
  int ok = 1;
  if (!source) {
    fprintf(stderr, "cannot read %s\n", path);
    return 0;
  }
  tritonc_options_init(&opts);
  opts.filename = path;
  opts.target = "auto";
  if (tritonc_kernel_create(source, &opts, &k) != TRITONC_OK) {
    fprintf(stderr, "%s\n", tritonc_last_error());
    free(source);
    return 0;
  }
  printf("kernel from %s on %s, %zu parameters:\n", path, tritonc_kernel_target(k), tritonc_kernel_num_params(k));
  for (i = 0; i < tritonc_kernel_num_params(k); ++i) {
    const char* name;
    tritonc_dtype dtype;
    int is_pointer;
    if (tritonc_kernel_param(k, i, &name, &dtype, &is_pointer) == TRITONC_OK)
      printf("  %zu: %s %s%s\n", i, dtype_name(dtype), is_pointer ? "*" : "", name);
  }

  a = (float*)malloc(N * sizeof *a);
  b = (float*)malloc(N * sizeof *b);
  c = (float*)calloc(N, sizeof *c);
  {
    uint64_t state = 1;
    for (i = 0; i < N; ++i) {
      a[i] = next_random(&state);
      b[i] = next_random(&state);
    }
  }
  args[0] = int_arg(N);
  args[1] = host_arg(a, N * sizeof *a);
  args[2] = host_arg(b, N * sizeof *b);
  args[3] = host_arg(c, N * sizeof *c);
  if (tritonc_launch(k, args, 4, grid, NULL, NULL, NULL) != TRITONC_OK) {
    fprintf(stderr, "launch failed: %s\n", tritonc_last_error());
    ok = 0;
  }
  for (i = 0; ok && i < N; ++i)
    if (c[i] != a[i] + b[i]) {
      fprintf(stderr, "c[%zu] = %g, expected %g\n", i, c[i], a[i] + b[i]);
      ok = 0;
    }
  printf("vector add of %d floats: %s\n", N, ok ? "PASS" : "FAIL");
  free(a);
  free(b);
  free(c);
  tritonc_kernel_destroy(k);
  free(source);
  return ok;
}

struct matmul_sizes {
  int64_t m, n;
};

/* One program per TM x TN tile of C. */
static void matmul_grid(const tritonc_config* config, void* user, int64_t grid[3]) {
  const struct matmul_sizes* s = (const struct matmul_sizes*)user;
  int64_t tm = 0, tn = 0;
  if (!tritonc_config_int(config, "TM", &tm) || !tritonc_config_int(config, "TN", &tn)) return; /* grid stays 1x1x1 */
  grid[0] = s->m / tm;
  grid[1] = s->n / tn;
}

static int matmul(const char* path) {
  enum { M = 64, N = 64, K = 64 };
  char* source = read_file(path);
  tritonc_options opts;
  tritonc_define defines[4];
  tritonc_kernel* k = NULL;
  float *a, *b, *c;
  tritonc_arg args[9];
  struct matmul_sizes sizes = {M, N};
  char best[256];
  double best_ms = 0;
  size_t i, j, l;
  int ok = 1;
  if (!source) {
    fprintf(stderr, "cannot read %s\n", path);
    return 0;
  }
  defines[0].name = "TYPE", defines[0].value = "float";
  defines[1].name = "TM", defines[1].value = "[16, 32]";
  defines[2].name = "TN", defines[2].value = "[16, 32]";
  defines[3].name = "TK", defines[3].value = "8";
  tritonc_options_init(&opts);
  opts.filename = path;
  opts.target = "auto";
  opts.defines = defines;
  opts.num_defines = 4;
  if (tritonc_kernel_create(source, &opts, &k) != TRITONC_OK) {
    fprintf(stderr, "%s\n", tritonc_last_error());
    free(source);
    return 0;
  }
  a = (float*)malloc(M * K * sizeof *a);
  b = (float*)malloc(K * N * sizeof *b);
  c = (float*)calloc(M * N, sizeof *c);
  {
    uint64_t state = 7;
    for (i = 0; i < M * K; ++i) a[i] = next_random(&state);
    for (i = 0; i < K * N; ++i) b[i] = next_random(&state);
  }
  args[0] = host_arg(a, M * K * sizeof *a);
  args[1] = host_arg(b, K * N * sizeof *b);
  args[2] = host_arg(c, M * N * sizeof *c);
  args[3] = int_arg(M);
  args[4] = int_arg(N);
  args[5] = int_arg(K);
  args[6] = int_arg(K); /* lda */
  args[7] = int_arg(N); /* ldb */
  args[8] = int_arg(N); /* ldc */
  printf("tuning %s over %zu configurations (%dx%dx%d)\n", path, tritonc_kernel_num_configs(k), M, N, K);
  if (tritonc_tune(k, args, 9, NULL, matmul_grid, &sizes, best, sizeof best, &best_ms) != TRITONC_OK) {
    fprintf(stderr, "tuning failed: %s\n", tritonc_last_error());
    ok = 0;
  } else {
    printf("best: %s (%.4f ms)\n", best, best_ms);
  }
  /* The launch uses the configuration just tuned for these sizes. */
  if (ok && tritonc_launch(k, args, 9, NULL, matmul_grid, &sizes, NULL) != TRITONC_OK) {
    fprintf(stderr, "launch failed: %s\n", tritonc_last_error());
    ok = 0;
  }
  for (i = 0; ok && i < M; ++i)
    for (j = 0; ok && j < N; ++j) {
      double want = 0;
      for (l = 0; l < K; ++l) want += (double)a[i * K + l] * b[l * N + j];
      if (fabs(c[i * N + j] - want) > 1e-3 * (1 + fabs(want))) {
        fprintf(stderr, "C[%zu, %zu] = %g, expected %g\n", i, j, c[i * N + j], want);
        ok = 0;
      }
    }
  printf("matmul %dx%dx%d: %s\n", M, N, K, ok ? "PASS" : "FAIL");
  free(a);
  free(b);
  free(c);
  tritonc_kernel_destroy(k);
  free(source);
  return ok;
}

int main(int argc, char** argv) {
  const char* add_path = argc > 1 ? argv[1] : "examples/vector_add.tc";
  char* mm_path;
  int ok;
  printf("%s\n", tritonc_version());
  if (argc > 2) {
    mm_path = (char*)malloc(strlen(argv[2]) + 1);
    strcpy(mm_path, argv[2]);
  } else {
    /* matmul.tc in the directory of the vector addition's file */
    const char* slash = strrchr(add_path, '/');
    size_t dir = slash ? (size_t)(slash - add_path + 1) : 0;
    mm_path = (char*)malloc(dir + sizeof "matmul.tc");
    memcpy(mm_path, add_path, dir);
    strcpy(mm_path + dir, "matmul.tc");
  }
  ok = vector_add(add_path);
  ok = matmul(mm_path) && ok;
  free(mm_path);
  printf("%s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
