// Diagnostics: the two error channels of the compiler.
//
// UserError is thrown when the *program* is wrong (bad syntax, bad shapes, an
// out-of-bounds access found by the interpreter): it carries a location and a
// message and is rendered as `FILE:LINE:COL: error: message` with a caret.
// InternalError is thrown when *we* are wrong (a broken invariant): it is never
// a user's fault and says so. Neither aborts the process; both are caught at
// the API boundary (CLI, C API, Python).
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace tritonc {

struct SourceLoc {
  uint32_t line = 0;  // 1-based; 0 means "unknown"
  uint32_t col = 0;   // 1-based
  bool known() const { return line != 0; }
  bool operator==(const SourceLoc& o) const { return line == o.line && col == o.col; }
};

class UserError : public std::runtime_error {
 public:
  UserError(SourceLoc loc, const std::string& message)
      : std::runtime_error(message), loc_(loc) {}
  SourceLoc loc() const { return loc_; }

 private:
  SourceLoc loc_;
};

// A kernel needs more of a resource (shared memory) than its target has:
// the Python package raises Triton's OutOfResources for it.
class OutOfResourcesError : public UserError {
 public:
  OutOfResourcesError(SourceLoc loc, const std::string& message, int64_t required, int64_t limit, std::string resource)
      : UserError(loc, message), required(required), limit(limit), resource(std::move(resource)) {}
  int64_t required, limit;
  std::string resource;
};

class InternalError : public std::logic_error {
 public:
  explicit InternalError(const std::string& message)
      : std::logic_error("internal compiler error: " + message) {}
};

// A warning about the program: it compiles and runs, but probably not as its
// author meant. Rendered like an error, with severity "warning".
struct Warning {
  SourceLoc loc;
  std::string message;
};

// Throws InternalError when `cond` is false: for invariants, never for user input.
#define TRITONC_CHECK(cond, msg)                                             \
  do {                                                                       \
    if (!(cond)) throw ::tritonc::InternalError(std::string(msg) + " (" +    \
                                                __FILE__ + ":" +             \
                                                std::to_string(__LINE__) + ")"); \
  } while (0)

// Renders `file:line:col: error: message`, then the source line and a caret
// under the column when the source text is available.
std::string formatDiagnostic(const std::string& file, const std::string& source,
                             SourceLoc loc, const std::string& message,
                             const char* severity = "error");

}  // namespace tritonc
