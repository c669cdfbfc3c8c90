#include "target/nvptx/ptxas.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
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

std::string assembleCubin(const std::string& ptx, const std::string& arch, std::string* why) {
  const std::string& ptxas = ptxasPath();
  if (ptxas.empty()) {
    if (why) *why = "no ptxas";
    return "";
  }
  static std::atomic<unsigned> counter{0};
  std::error_code ec;
  std::filesystem::path dir = std::filesystem::temp_directory_path(ec);
  if (ec) dir = "/tmp";
  std::string base = (dir / ("tritonc-ptxas-" + std::to_string(::getpid()) + "-" + std::to_string(counter++))).string();
  std::string in = base + ".ptx", out = base + ".cubin", log = base + ".log";
  { std::ofstream(in, std::ios::binary) << ptx; }
  std::string archFlag = "-arch=" + arch;
  std::vector<std::string> argv{ptxas, archFlag, "-O3", in, "-o", out};
  std::vector<char*> args;
  for (std::string& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  pid_t pid = 0;
  int rc = posix_spawn(&pid, ptxas.c_str(), &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  int status = 0;
  bool ok = rc == 0 && ::waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  std::string cubin = ok ? readAll(out) : "";
  if (!ok && why) *why = "ptxas failed: " + readAll(log).substr(0, 500);
  std::filesystem::remove(in, ec);
  std::filesystem::remove(out, ec);
  std::filesystem::remove(log, ec);
  return cubin;
}

}  // namespace tritonc::nvptx
