#include "byte_mutator.h"

#include <algorithm>
#include <cstring>
#include <fstream>

namespace tritonc::fuzz {

MutationSources& mutationSources() {
  static MutationSources sources;
  return sources;
}

std::vector<std::string> readDictionary(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    size_t open = line.find('"'), close = line.rfind('"');
    if (line.empty() || line[0] == '#' || open == std::string::npos || close <= open) continue;
    std::string token;
    for (size_t i = open + 1; i < close; ++i) {
      if (line[i] == '\\' && i + 1 < close) {
        char next = line[++i];
        if (next == 'x' && i + 2 < close) {
          token += char(std::stoi(line.substr(i + 1, 2), nullptr, 16));
          i += 2;
        } else {
          token += next;
        }
      } else {
        token += line[i];
      }
    }
    if (!token.empty()) out.push_back(token);
  }
  return out;
}

}  // namespace tritonc::fuzz

using tritonc::fuzz::mutationSources;

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t maxSize) {
  auto& src = mutationSources();
  std::mt19937_64& rng = src.rng;
  std::string s(reinterpret_cast<const char*>(data), size);
  auto at = [&](size_t n) { return n == 0 ? size_t(0) : size_t(rng() % (n + 1)); };
  const int rounds = 1 + int(rng() % 4);
  for (int r = 0; r < rounds; ++r) {
    switch (rng() % 7) {
      case 0:  // erase a span
        if (!s.empty()) {
          size_t from = at(s.size() - 1);
          s.erase(from, 1 + rng() % std::min<size_t>(16, s.size() - from));
        }
        break;
      case 1:  // a random byte, printable mostly
        if (!s.empty()) s[at(s.size() - 1)] = rng() % 8 ? char(32 + rng() % 95) : char(rng() & 0xFF);
        break;
      case 2:  // insert a dictionary token
        if (!src.dictionary.empty()) s.insert(at(s.size()), src.dictionary[rng() % src.dictionary.size()]);
        break;
      case 3:  // duplicate a span
        if (!s.empty()) {
          size_t from = at(s.size() - 1), n = 1 + rng() % std::min<size_t>(32, s.size() - from);
          s.insert(at(s.size()), s.substr(from, n));
        }
        break;
      case 4:  // splice in part of another input
        if (src.corpus && !src.corpus->empty()) {
          const std::string& other = (*src.corpus)[rng() % src.corpus->size()];
          if (!other.empty()) {
            size_t from = at(other.size() - 1);
            s.insert(at(s.size()), other.substr(from, 1 + rng() % std::min<size_t>(64, other.size() - from)));
          }
        }
        break;
      case 5:  // flip a bit
        if (!s.empty()) s[at(s.size() - 1)] ^= char(1 << (rng() % 8));
        break;
      default:  // a digit changed: sizes, shapes
        for (size_t i = at(s.size()); i < s.size(); ++i)
          if (s[i] >= '0' && s[i] <= '9') {
            s[i] = char('0' + rng() % 10);
            break;
          }
        break;
    }
  }
  if (s.size() > maxSize) s.resize(maxSize);
  std::memcpy(data, s.data(), s.size());
  return s.size();
}
