// The Python DSL's IR builder bindings (builder_bindings.cpp).
#pragma once
#include <nanobind/nanobind.h>

void bindFunctionBuilder(nanobind::module_& m);
