// InferProgress (platform/infer_progress.h): the progress line of a model run, written by
// wall-clock time. The intervals are given to the constructor, so the tests choose them
// (0: every report is due; an hour: none is) instead of sleeping.
#include "platform/infer_progress.h"

#include <gtest/gtest.h>

#include <chrono>
#include <sstream>

namespace npuvp {
namespace {

std::vector<InferProgress::Layer> three_layers() {
  return {{"conv1", "Conv+Relu"}, {"/layer1/conv2", "Conv+Add+Relu"}, {"fc", "Gemm"}};
}

TEST(InferProgress, AShortRunPrintsNothing) {
  std::ostringstream out;
  InferProgress progress(three_layers(), out, true, std::chrono::hours(1));
  for (std::size_t layer = 0; layer < 3; ++layer) progress.block_ended(layer, 1e-3 * double(layer));
  progress.finish();
  EXPECT_EQ(out.str(), "");
  EXPECT_EQ(progress.lines_written(), 0u);
}

TEST(InferProgress, NamesTheFurthestLayerAndTheSimulatedTime) {
  std::ostringstream out;
  InferProgress progress(three_layers(), out, false, std::chrono::seconds(0), std::chrono::seconds(0));
  progress.block_ended(1, 512e-6);
  progress.block_ended(0, 600e-6);  // a block of an earlier layer (another stream) ends later
  const std::string text = out.str();
  EXPECT_NE(text.find("infer: layer 2/3 '/layer1/conv2' (Conv+Add+Relu), 512 us simulated, "), std::string::npos)
      << text;
  EXPECT_NE(text.find("infer: layer 2/3 '/layer1/conv2' (Conv+Add+Relu), 600 us simulated, "), std::string::npos)
      << text;
  EXPECT_EQ(progress.lines_written(), 2u);
  EXPECT_EQ(text.back(), '\n');  // not a terminal: one line each
  EXPECT_EQ(text.find('\r'), std::string::npos);
}

TEST(InferProgress, OnATerminalTheLineOverwritesItselfUntilFinished) {
  std::ostringstream out;
  InferProgress progress(three_layers(), out, true, std::chrono::seconds(0), std::chrono::seconds(0));
  progress.block_ended(1, 1e-3);
  progress.block_ended(2, 2e-3);
  std::string text = out.str();
  EXPECT_EQ(text.find('\n'), std::string::npos) << text;
  EXPECT_EQ(text.front(), '\r');
  EXPECT_NE(text.find("\rinfer: layer 3/3 'fc' (Gemm), 2000 us simulated, "), std::string::npos) << text;
  // The shorter second line is padded with blanks over the longer first one.
  const std::size_t second = text.rfind('\r');
  EXPECT_EQ(text.size() - second, second);
  progress.finish();
  EXPECT_EQ(out.str().back(), '\n');
}

TEST(InferProgress, AtMostOneLinePerInterval) {
  std::ostringstream out;
  InferProgress progress(three_layers(), out, false, std::chrono::seconds(0), std::chrono::hours(1));
  for (int i = 0; i < 5; ++i) progress.block_ended(2, 1e-3);
  EXPECT_EQ(progress.lines_written(), 1u);
}

}  // namespace
}  // namespace npuvp
