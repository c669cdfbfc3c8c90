// A read-only map from pointers to small values, kept as one sorted vector:
// built once, then looked up by binary search. The verifier and the dominator
// tree index every instruction and block of a function this way; hash tables
// cost an allocation per entry, which dominated verifying large functions.
#pragma once
#include <algorithm>
#include <utility>
#include <vector>

namespace tritonc::ir {

template <class K, class V>
class PointerIndex {
 public:
  void reserve(size_t n) { entries_.reserve(n); }
  // Adds an entry; call seal() after the last one and before any find().
  void add(const K* key, V value) { entries_.emplace_back(key, std::move(value)); }
  void seal() {
    std::sort(entries_.begin(), entries_.end(),
              [](const Entry& a, const Entry& b) { return a.first < b.first; });
  }
  // The value of `key`, or nullptr.
  const V* find(const K* key) const {
    auto it = std::lower_bound(entries_.begin(), entries_.end(), key,
                               [](const Entry& e, const K* k) { return e.first < k; });
    return it != entries_.end() && it->first == key ? &it->second : nullptr;
  }
  bool contains(const K* key) const { return find(key) != nullptr; }
  size_t size() const { return entries_.size(); }

 private:
  using Entry = std::pair<const K*, V>;
  std::vector<Entry> entries_;
};

}  // namespace tritonc::ir
