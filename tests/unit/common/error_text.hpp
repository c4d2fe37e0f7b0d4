#pragma once
// The message of what a call throws, for tests that compare refusals.
#include <exception>
#include <functional>
#include <string>

namespace ckptsim::test {

/// what() of the exception `f` throws, "" when it returns.
inline std::string what_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "";
}

}  // namespace ckptsim::test
