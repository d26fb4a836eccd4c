// Cuts one rank's output stream into whole lines, optionally prefixed with
// "[rank] ". Pure: bytes in, bytes out, so lines of different ranks written by
// gpurun never mix mid-line.
//
//   LineTagger tagger(3, /*tag=*/true);
//   out = tagger.Feed("a\nb");  // "[3] a\n"; "b" is held back
//   out = tagger.Finish();      // "[3] b\n"
//
// A partial last line is released by Finish (at EOF): tagged, it gets a final
// "\n"; untagged, it is released as is, so a single rank's output is kept
// byte for byte. A line longer than kMaxLine is released in pieces of
// kMaxLine bytes, each treated as a line, so memory stays bounded.
#ifndef GPURUN_RUNTIME_LAUNCHER_LINE_TAGGER_H_
#define GPURUN_RUNTIME_LAUNCHER_LINE_TAGGER_H_

#include <cstddef>
#include <string>
#include <string_view>

namespace gpurun::launcher {

class LineTagger {
 public:
  static constexpr size_t kMaxLine = 64 * 1024;

  LineTagger(int rank, bool tag);

  // Appends bytes; returns every line completed by them (possibly empty).
  std::string Feed(std::string_view bytes);
  // End of stream: returns the held partial line (possibly empty).
  std::string Finish();

  // Bytes held back (a partial line).
  size_t pending() const { return partial_.size(); }

 private:
  void EmitLine(std::string_view line, bool add_newline, std::string& out) const;

  std::string prefix_;  // "[3] " or ""
  std::string partial_;
};

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_LINE_TAGGER_H_
