#include "target/nvptx/ptxas.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

extern char** environ;

namespace tritonc::nvptx {

namespace {

bool executable(const std::string& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0; }

std::string findPtxas() {
  if (const char* e = std::getenv("TRITONC_PTXAS")) return std::string(e) == "none" ? "" : executable(e) ? e : "";
  std::vector<std::string> candidates;
  if (const char* home = std::getenv("CUDA_HOME")) candidates.push_back(std::string(home) + "/bin/ptxas");
  candidates.push_back("/usr/local/cuda/bin/ptxas");
  if (const char* path = std::getenv("PATH")) {
    std::stringstream ss(path);
    for (std::string dir; std::getline(ss, dir, ':');)
      if (!dir.empty()) candidates.push_back(dir + "/ptxas");
  }
  for (const std::string& c : candidates)
    if (executable(c)) return c;
  return "";
}

std::string readAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

const std::string& ptxasPath() {
  static const std::string path = findPtxas();
  return path;
}

namespace {

// Runs ptxas on `ptx` (with -v when `verbose`): the cubin, or "" on failure;
// its output in `log`.
std::string runPtxas(const std::string& ptx, const std::string& arch, bool verbose, std::string* log) {
  const std::string& ptxas = ptxasPath();
  static std::atomic<unsigned> counter{0};
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  std::string base = (dir / ("tritonc-ptxas-" + std::to_string(::getpid()) + "-" + std::to_string(counter++))).string();
  std::string in = base + ".ptx", out = base + ".cubin", logPath = base + ".log";
  { std::ofstream(in, std::ios::binary) << ptx; }
  std::string archFlag = "-arch=" + arch;
  std::vector<std::string> argv{ptxas, archFlag, "-O3", in, "-o", out};
  if (verbose) argv.insert(argv.begin() + 1, "-v");
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, ptxas.c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  bool ok = rc == 0 && ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  std::string cubin = ok ? readAll(out) : "";
  if (log) *log = readAll(logPath);
  std::filesystem::remove(in, ec);
  std::filesystem::remove(out, ec);
  std::filesystem::remove(logPath, ec);
  return cubin;
}

// The number before `what` in `log` ("Used 226 registers" -> 226), or -1.
int64_t numberBefore(const std::string& log, const std::string& what) {
  size_t at = log.find(what);
  if (at == std::string::npos || at == 0) return -1;
  size_t end = at;
  while (end > 0 && log[end - 1] == ' ') --end;
  size_t start = end;
  while (start > 0 && std::isdigit(static_cast<unsigned char>(log[start - 1]))) --start;
  return start == end ? -1 : std::stoll(log.substr(start, end - start));
}

}  // namespace

std::string assembleCubin(const std::string& ptx, const std::string& arch, std::string* why) {
  if (ptxasPath().empty()) {
    if (why) *why = "no ptxas";
    return "";
  }
  std::string log;
  std::string cubin = runPtxas(ptx, arch, false, &log);
  if (cubin.empty() && why) *why = "ptxas failed: " + log.substr(0, 500);
  return cubin;
}

std::string wgmmaSerializedReason(const std::string& log) {
  const std::string serialized = "wgmma.mma_async instructions are serialized due to ";
  size_t at = log.find(serialized);
  if (at == std::string::npos) return "";
  size_t from = at + serialized.size();
  size_t end = std::min(log.find(" in the function", from), log.find('\n', from));
  return log.substr(from, end == std::string::npos ? std::string::npos : end - from);
}

PtxasInfo ptxasInfo(const std::string& ptx, const std::string& arch) {
  PtxasInfo info;
  if (ptxasPath().empty()) {
    info.problem = "no ptxas (set TRITONC_PTXAS, or CUDA_HOME)";
    return info;
  }
  std::string cubin = runPtxas(ptx, arch, true, &info.log);
  if (cubin.empty()) {
    info.problem = "ptxas failed: " + info.log.substr(0, 500);
    return info;
  }
  info.ok = true;
  info.registers = numberBefore(info.log, " registers");
  info.stackFrame = std::max<int64_t>(0, numberBefore(info.log, " bytes stack frame"));
  info.spillStores = std::max<int64_t>(0, numberBefore(info.log, " bytes spill stores"));
  info.spillLoads = std::max<int64_t>(0, numberBefore(info.log, " bytes spill loads"));
  info.staticShared = std::max<int64_t>(0, numberBefore(info.log, " bytes smem"));
  info.wgmmaSerialized = wgmmaSerializedReason(info.log);
  return info;
}

}  // namespace tritonc::nvptx
