// Helpers of the bench report tests: what a printer writes to a FILE*, and a
// line split into its whitespace-separated words.
#ifndef GPURUN_TESTS_UNIT_BENCH_TEXT_CAPTURE_H_
#define GPURUN_TESTS_UNIT_BENCH_TEXT_CAPTURE_H_

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace gpurun::bench_test {

// Everything `print` writes to the stream it is given.
inline std::string Capture(const std::function<void(std::FILE*)>& print) {
  char* text = nullptr;
  size_t size = 0;
  std::FILE* f = open_memstream(&text, &size);
  print(f);
  std::fclose(f);
  std::string s(text, size);
  std::free(text);
  return s;
}

inline std::vector<std::string> Words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

}  // namespace gpurun::bench_test

#endif  // GPURUN_TESTS_UNIT_BENCH_TEXT_CAPTURE_H_
