// A -D definition as given: NAME, NAME=VALUE or NAME=[V1, V2, ...]. Its own
// header so that the runtime's configurations (runtime/config.h) name macros
// without the front end.
#pragma once
#include <string>

namespace tritonc::lang {

struct Define {
  std::string name;
  std::string value;
};

}  // namespace tritonc::lang
