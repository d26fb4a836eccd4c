#include "runtime/launcher/line_tagger.h"

#include <gtest/gtest.h>

namespace gpurun::launcher {
namespace {

TEST(LineTagger, TagsWholeLines) {
  LineTagger tagger(3, true);
  EXPECT_EQ(tagger.Feed("a\nbb\n"), "[3] a\n[3] bb\n");
  EXPECT_EQ(tagger.Finish(), "");
}

TEST(LineTagger, HoldsPartialLines) {
  LineTagger tagger(0, true);
  EXPECT_EQ(tagger.Feed("hel"), "");
  EXPECT_EQ(tagger.pending(), 3u);
  EXPECT_EQ(tagger.Feed("lo"), "");
  EXPECT_EQ(tagger.Feed(" world\nnext"), "[0] hello world\n");
  EXPECT_EQ(tagger.Feed("\n"), "[0] next\n");
  EXPECT_EQ(tagger.pending(), 0u);
}

TEST(LineTagger, FinishFlushesPartialLastLine) {
  LineTagger tagged(1, true);
  EXPECT_EQ(tagged.Feed("x\nno newline"), "[1] x\n");
  EXPECT_EQ(tagged.Finish(), "[1] no newline\n");
  EXPECT_EQ(tagged.Finish(), "");
  LineTagger plain(1, false);
  EXPECT_EQ(plain.Feed("x\nno newline"), "x\n");
  EXPECT_EQ(plain.Finish(), "no newline");  // untagged: byte for byte
}

TEST(LineTagger, UntaggedKeepsLinesWhole) {
  LineTagger tagger(5, false);
  EXPECT_EQ(tagger.Feed("ab"), "");
  EXPECT_EQ(tagger.Feed("c\nd"), "abc\n");
  EXPECT_EQ(tagger.Finish(), "d");
}

TEST(LineTagger, EmptyLinesAndByteAtATime) {
  LineTagger tagger(2, true);
  EXPECT_EQ(tagger.Feed("\n\n"), "[2] \n[2] \n");
  std::string out;
  for (char c : std::string("ab\ncd\n")) out += tagger.Feed(std::string_view(&c, 1));
  EXPECT_EQ(out, "[2] ab\n[2] cd\n");
}

// Two ranks writing fragments in an interleaved order still give whole lines.
TEST(LineTagger, InterleavedRanksNeverMixMidLine) {
  LineTagger r0(0, true), r1(1, true);
  std::string out;
  out += r0.Feed("zero-");
  out += r1.Feed("one-");
  out += r0.Feed("a\nzero-");
  out += r1.Feed("b\n");
  out += r0.Feed("c\n");
  EXPECT_EQ(out, "[0] zero-a\n[1] one-b\n[0] zero-c\n");
}

TEST(LineTagger, VeryLongLineIsReleasedInPieces) {
  LineTagger tagger(0, true);
  const std::string big(LineTagger::kMaxLine + 10, 'x');
  const std::string out = tagger.Feed(big);
  EXPECT_EQ(out, "[0] " + std::string(LineTagger::kMaxLine, 'x') + "\n");
  EXPECT_EQ(tagger.pending(), 10u);
  EXPECT_EQ(tagger.Feed("\n"), "[0] " + std::string(10, 'x') + "\n");
}

}  // namespace
}  // namespace gpurun::launcher
