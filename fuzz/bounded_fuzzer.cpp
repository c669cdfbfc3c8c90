// Fuzzing the front end for a bounded time without libFuzzer, for CI (which
// has no clang): the check of frontend_check.h on inputs made by the custom
// mutator (long_program_mutator.cpp) over byte_mutator.cpp's stand-in for
// libFuzzer's mutations. Without coverage, an input is kept when its outcome
// is new (a diagnostic not seen before, or IR with another set of opcodes);
// kept inputs go to the work folder (fuzz/corpus-work/, which libFuzzer's
// scripts/fuzz.sh shares), so that every run starts from what earlier runs
// learned. The fuzzing runs in a child process: a crash, an abort (a check
// failed), a hang past 10 s or a runaway allocation ends it, and the input is
// saved to the crashes folder with the command that reproduces it.
//   bounded_fuzzer SECONDS --work DIR --crashes DIR [--dict FILE] [--seed N] CORPUS_DIR...
// Exits 0 when nothing was found, 1 with a finding, 2 on bad usage.
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "byte_mutator.h"
#include "frontend_check.h"
#include "runtime/hash.h"

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t maxSize, unsigned int seed);

namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxLength = 4096;     // as scripts/fuzz.sh's -max_len
constexpr unsigned kInputSeconds = 10;  // as its -timeout
constexpr size_t kMaxKeptPerRun = 200;  // the work folder grows slowly

struct Options {
  double seconds = 30;
  std::string work, crashes, dict;
  std::vector<std::string> corpora;
  uint64_t seed = 0;
};

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void writeFile(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), std::streamsize(bytes.size()));
}

std::string nameOf(const std::string& bytes) {
  return tritonc::runtime::checksum64Hex(bytes.data(), bytes.size()) + ".tc";
}

fs::path currentInput(const Options& o) { return fs::path(o.work) / ".current-input"; }

void onAlarm(int) {
  const char msg[] = "bounded_fuzzer: an input took more than 10 s (a hang)\n";
  (void)!write(2, msg, sizeof msg - 1);
  std::_Exit(3);
}

// The child: replays the corpus, then mutates until the deadline.
[[noreturn]] void fuzz(const Options& o, std::vector<std::string> pool) {
  struct rlimit limit = {size_t(4) << 30, size_t(4) << 30};  // a runaway allocation is a finding
  setrlimit(RLIMIT_AS, &limit);
  std::signal(SIGALRM, onAlarm);
  tritonc::fuzz::MutationSources& sources = tritonc::fuzz::mutationSources();
  sources.rng.seed(o.seed);
  sources.corpus = &pool;
  if (!o.dict.empty()) sources.dictionary = tritonc::fuzz::readDictionary(o.dict);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.seconds);
  auto check = [&](const std::string& input) {
    writeFile(currentInput(o), input);
    alarm(kInputSeconds);
    std::string outcome = tritonc::fuzz::checkFrontEnd(input);
    alarm(0);
    return outcome;
  };
  std::set<std::string> outcomes;
  for (const std::string& input : pool) outcomes.insert(check(input));
  const size_t replayed = pool.size(), knownOutcomes = outcomes.size();
  size_t runs = 0, kept = 0;
  std::vector<uint8_t> buffer(kMaxLength);
  while (std::chrono::steady_clock::now() < deadline && !pool.empty()) {
    const std::string& parent = pool[sources.rng() % pool.size()];
    size_t size = std::min(parent.size(), kMaxLength);
    std::memcpy(buffer.data(), parent.data(), size);
    size = LLVMFuzzerCustomMutator(buffer.data(), size, kMaxLength, unsigned(sources.rng()));
    std::string input(reinterpret_cast<const char*>(buffer.data()), size);
    ++runs;
    if (!outcomes.insert(check(input)).second) continue;
    pool.push_back(input);
    if (kept < kMaxKeptPerRun) {
      writeFile(fs::path(o.work) / nameOf(input), input);
      ++kept;
    }
  }
  std::printf("bounded_fuzzer: replayed %zu inputs (%zu outcomes), then ran %zu mutants in %.0f s: %zu new outcomes, "
              "%zu inputs kept in %s\n",
              replayed, knownOutcomes, runs, o.seconds, outcomes.size() - knownOutcomes, kept, o.work.c_str());
  std::fflush(stdout);
  std::_Exit(0);
}

bool parseOptions(int argc, char** argv, Options& o) {
  if (argc < 2) return false;
  char* end = nullptr;
  o.seconds = std::strtod(argv[1], &end);
  if (*end || o.seconds < 0) return false;
  o.seed = (uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--work") o.work = value();
    else if (a == "--crashes") o.crashes = value();
    else if (a == "--dict") o.dict = value();
    else if (a == "--seed") o.seed = std::strtoull(value().c_str(), nullptr, 10);
    else o.corpora.push_back(a);
  }
  return !o.work.empty() && !o.crashes.empty() && !o.corpora.empty();
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parseOptions(argc, argv, o)) {
    std::fprintf(stderr,
                 "usage: bounded_fuzzer SECONDS --work DIR --crashes DIR [--dict FILE] [--seed N] CORPUS_DIR...\n");
    return 2;
  }
  std::error_code ec;
  fs::create_directories(o.work, ec);
  fs::create_directories(o.crashes, ec);
  // The seeds and findings, then what earlier runs kept.
  std::vector<std::string> pool;
  std::vector<std::string> dirs = o.corpora;
  dirs.push_back(o.work);
  for (const std::string& dir : dirs) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.is_regular_file() && e.path().filename().string()[0] != '.') files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const fs::path& f : files) pool.push_back(readFile(f).substr(0, kMaxLength));
  }
  std::printf("bounded_fuzzer: %zu inputs, %.0f s, seed %llu\n", pool.size(), o.seconds, (unsigned long long)o.seed);
  std::fflush(stdout);
  pid_t child = fork();
  if (child < 0) {
    std::perror("fork");
    return 2;
  }
  if (child == 0) fuzz(o, std::move(pool));
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return 0;
  const std::string input = readFile(currentInput(o));
  const fs::path saved = fs::path(o.crashes) / ("bounded-" + nameOf(input));
  writeFile(saved, input);
  std::fprintf(stderr, "bounded_fuzzer: the front end %s on an input, saved as %s\n",
               WIFSIGNALED(status) ? ("crashed (signal " + std::to_string(WTERMSIG(status)) + ")").c_str()
                                   : WEXITSTATUS(status) == 3 ? "hung" : "failed a check",
               saved.c_str());
  std::fprintf(stderr,
               "reproduce: tritonc emit %s --stage ir -DTYPE=float -DTM=16 -DTN=16 -DTK=8 -DBLOCK=32 -DSIZE=32 (and its "
               "`// define:` lines); once fixed, add it to test/lang/fuzz_regressions/\n",
               saved.c_str());
  return 1;
}
