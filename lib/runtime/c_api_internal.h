// What the C API's files share (include/tritonc/tritonc.h): the kernel
// handle, over either kind of runtime::Launchable, and the error plumbing:
// every entry point converts exceptions into a status and a per-thread
// message; nothing escapes into C.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "lang/define.h"
#include "runtime/launchable.h"
#include "support/diagnostic.h"
#include "tritonc/tritonc.h"

struct tritonc_kernel {
  std::unique_ptr<tritonc::runtime::Launchable> kernel;  // a source kernel (Kernel) or a loaded one (LoadedKernel)
  std::string source, filename;                          // to render diagnostics of launches
};

namespace tritonc::capi {

// An error the API itself detects. Deliberately not a std::exception: the
// tuner catches those per configuration (and skips the configuration), but a
// bad grid from the caller's callback must end the call with its own status.
struct ApiError {
  tritonc_status status;
  std::string message;
};

[[noreturn]] void fail(tritonc_status s, const std::string& message);

// This thread's last error message.
std::string& lastError();

// The status of a UserError that `body` threw (nullptr: `userStatus` for all).
using Classifier = std::function<tritonc_status(const UserError&)>;

// Runs `body`, mapping what it throws: ApiError -> its status, UserError ->
// `userStatus` or `classify`'s (with the diagnostic rendered against
// `filename` and `source`; a message without a location and without a
// filename as it is), the rest -> INTERNAL.
tritonc_status guarded(tritonc_status userStatus, const std::string& filename, const std::string& source,
                       const std::function<void()>& body, const Classifier& classify = nullptr);

bool isIdentifier(const char* s);
// The options' defines, checked (names must be identifiers; NULL value: "").
std::vector<lang::Define> definesOf(const tritonc_options& o);
// An int array of the options into `out` (left alone when `n` is 0).
void intListOf(const int* p, size_t n, const char* what, std::vector<int>* out);
// The options' tuning key names.
std::vector<std::string> tuningKeyOf(const tritonc_options& o);

}  // namespace tritonc::capi
