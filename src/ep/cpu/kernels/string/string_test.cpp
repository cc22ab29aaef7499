// ep/cpu/kernels/string/string_test.cpp: StringNormalizer and TfIdfVectorizer run as one-node
// models, against references computed here from the ONNX definitions (fixed seeds, random
// inputs), and string tensors through the data-movement ops.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "ep/cpu/kernels/tensor/single_op_test_util.h"
#include "ep/cpu/math/testing/nn_test_util.h"

namespace nxrt::cpu::kernels::testing {
namespace {

using cpu::testing::StringsAttr;
using nn::testing::RandomInt;

// A random word of 1-3 letters from "aAbB" (so case matters and repeats are common).
std::string RandomWord(std::mt19937& rng) {
  static const char kLetters[] = "aAbB";
  std::string w;
  for (int64_t i = RandomInt(rng, 1, 3); i > 0; --i) w += kLetters[RandomInt(rng, 0, 3)];
  return w;
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

TEST(StringNormalizerKernel, RandomWordsMatchReference) {
  std::mt19937 rng(161);
  const char* actions[] = {"NONE", "LOWER", "UPPER"};
  for (int iter = 0; iter < 40; ++iter) {
    const int64_t c = RandomInt(rng, 1, 8);
    const bool two_dims = iter % 2 == 0;
    const bool sensitive = iter % 3 == 0;
    const std::string action = actions[iter % 3];
    std::vector<std::string> x(c), stopwords(RandomInt(rng, 0, 3));
    for (std::string& w : x) w = RandomWord(rng);
    for (std::string& w : stopwords) w = RandomWord(rng);
    std::vector<AttributeValue> attrs = {StringAttr("case_change_action", action),
                                         IntAttr("is_case_sensitive", sensitive ? 1 : 0)};
    if (!stopwords.empty()) attrs.push_back(StringsAttr("stopwords", stopwords));
    const Shape shape = two_dims ? Shape{1, c} : Shape{c};
    OpCase op{"StringNormalizer", 10, {In(Tensor::FromVector<std::string>(shape, x).value())},
              attrs};
    std::vector<std::string> expected;
    for (const std::string& w : x) {
      const bool stop = std::any_of(stopwords.begin(), stopwords.end(), [&](const auto& s) {
        return sensitive ? s == w : Lower(s) == Lower(w);
      });
      if (stop) continue;
      expected.push_back(action == "LOWER" ? Lower(w) : action == "UPPER" ? Upper(w) : w);
    }
    if (expected.empty()) expected.emplace_back();  // the spec's [1] / [1, 1] empty string
    const int64_t n = static_cast<int64_t>(expected.size());
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), two_dims ? Shape({1, n}) : Shape({n})) << "iter " << iter;
    EXPECT_EQ(Values<std::string>(y[0]), expected) << "iter " << iter;
  }
}

TEST(StringNormalizerKernel, UnknownCaseActionIsAnError) {
  OpCase op{"StringNormalizer", 10,
            {In(Tensor::FromVector<std::string>({1}, {"a"}).value())},
            {StringAttr("case_change_action", "TITLE")}};
  EXPECT_FALSE(RunOp(op).ok());
}

TEST(TfIdfVectorizerKernel, RandomRowsMatchReference) {
  std::mt19937 rng(162);
  const char* modes[] = {"TF", "IDF", "TFIDF"};
  for (int iter = 0; iter < 30; ++iter) {
    // A pool of unigrams then bigrams over a small alphabet, each mapped to a random output slot.
    const int64_t unigrams = RandomInt(rng, 0, 3);
    const int64_t bigrams = RandomInt(rng, 1, 3);
    std::vector<int64_t> pool;
    std::vector<std::vector<int64_t>> grams;
    for (int64_t i = 0; i < unigrams; ++i) {
      grams.push_back({i + 1});
      pool.push_back(i + 1);
    }
    for (int64_t i = 0; i < bigrams; ++i) {
      // Distinct bigrams: (i, i+1 + something), generated so that they cannot repeat.
      grams.push_back({i, RandomInt(rng, 0, 3) * 10 + i});
      pool.insert(pool.end(), grams.back().begin(), grams.back().end());
    }
    const int64_t total = unigrams + bigrams;
    std::vector<int64_t> indexes(total);
    for (int64_t i = 0; i < total; ++i) indexes[i] = RandomInt(rng, 0, total);
    std::vector<float> weights(total);
    for (float& w : weights) w = static_cast<float>(RandomInt(rng, 1, 4)) * 0.5f;
    const int64_t min_gram = RandomInt(rng, 1, 2);
    const int64_t max_skip = RandomInt(rng, 0, 3);
    const std::string mode = modes[iter % 3];
    const int64_t rows = RandomInt(rng, 1, 3), cols = RandomInt(rng, 1, 9);
    std::vector<int32_t> x(rows * cols);
    for (int32_t& v : x) v = static_cast<int32_t>(RandomInt(rng, 0, 3) * (iter % 2 ? 10 : 1));
    OpCase op{"TfIdfVectorizer", 9,
              {In(Tensor::FromVector<int32_t>({rows, cols}, x).value())},
              {StringAttr("mode", mode), IntAttr("min_gram_length", min_gram),
               IntAttr("max_gram_length", 2), IntAttr("max_skip_count", max_skip),
               IntsAttr("ngram_counts", {0, unigrams}), IntsAttr("ngram_indexes", indexes),
               IntsAttr("pool_int64s", pool), FloatsAttr("weights", weights)}};
    const int64_t size = *std::max_element(indexes.begin(), indexes.end()) + 1;
    std::vector<float> expected(rows * size, 0.0f);
    for (int64_t r = 0; r < rows; ++r) {
      const int32_t* row = x.data() + r * cols;
      for (int64_t g = 0; g < total; ++g) {
        if (static_cast<int64_t>(grams[g].size()) < min_gram) continue;
        // Count the occurrences: unigrams once each; bigrams once per (start, skip) pair.
        int64_t count = 0;
        for (int64_t s = 0; s < cols; ++s) {
          if (grams[g].size() == 1) {
            count += row[s] == grams[g][0] ? 1 : 0;
            continue;
          }
          for (int64_t k = 0; k <= max_skip; ++k) {
            const int64_t t = s + k + 1;
            if (t < cols && row[s] == grams[g][0] && row[t] == grams[g][1]) ++count;
          }
        }
        if (count == 0) continue;
        float& out = expected[r * size + indexes[g]];
        if (mode == "TF") out += static_cast<float>(count);
        if (mode == "IDF") out += weights[g];
        if (mode == "TFIDF") out += weights[g] * static_cast<float>(count);
      }
    }
    NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
    EXPECT_EQ(y[0].shape(), (Shape{rows, size}));
    EXPECT_EQ(Values<float>(y[0]), expected) << "iter " << iter << " mode " << mode;
  }
}

TEST(TfIdfVectorizerKernel, StringPoolCountsStringNgrams) {
  OpCase op{"TfIdfVectorizer", 9,
            {In(Tensor::FromVector<std::string>({5}, {"a", "b", "a", "b", "c"}).value())},
            {StringAttr("mode", "TF"), IntAttr("min_gram_length", 1),
             IntAttr("max_gram_length", 2), IntAttr("max_skip_count", 0),
             IntsAttr("ngram_counts", {0, 2}), IntsAttr("ngram_indexes", {0, 1, 2}),
             StringsAttr("pool_strings", {"a", "c", "a", "b"})}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<float>(y[0]), (std::vector<float>{2, 1, 2}));
}

// A max_gram_length far past the pool's longest n-grams (2^32 + 1; the fuzz regression
// tfidf_max_gram_2_pow_32) counts as the pool's longest: the same output as max_gram_length 2,
// with no plan sized by the attribute.
TEST(TfIdfVectorizerKernel, HugeMaxGramLengthCountsThePoolsNgrams) {
  OpCase op{"TfIdfVectorizer", 9,
            {In(Tensor::FromVector<std::string>({5}, {"a", "b", "a", "b", "c"}).value())},
            {StringAttr("mode", "TF"), IntAttr("min_gram_length", 1),
             IntAttr("max_gram_length", (int64_t{1} << 32) + 1), IntAttr("max_skip_count", 0),
             IntsAttr("ngram_counts", {0, 2}), IntsAttr("ngram_indexes", {0, 1, 2}),
             StringsAttr("pool_strings", {"a", "c", "a", "b"})}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> y, RunOp(op));
  EXPECT_EQ(Values<float>(y[0]), (std::vector<float>{2, 1, 2}));
}

TEST(TfIdfVectorizerKernel, PoolTypeMustMatchTheInput) {
  OpCase op{"TfIdfVectorizer", 9, {In(Tensor::FromVector<int64_t>({2}, {1, 2}).value())},
            {StringAttr("mode", "TF"), IntAttr("min_gram_length", 1),
             IntAttr("max_gram_length", 1), IntAttr("max_skip_count", 0),
             IntsAttr("ngram_counts", {0}), IntsAttr("ngram_indexes", {0}),
             StringsAttr("pool_strings", {"a"})}};
  EXPECT_FALSE(RunOp(op).ok());
}

// String tensors move through the data-movement ops element by element.
TEST(StringTensors, FlowThroughGatherConcatAndReshape) {
  const Tensor words = Tensor::FromVector<std::string>({2, 2}, {"w", "x", "y", "z"}).value();
  OpCase gather{"Gather", 13,
                {In(words), In(Tensor::FromVector<int64_t>({2}, {1, -2}).value())},
                {IntAttr("axis", 0)}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> g, RunOp(gather));
  EXPECT_EQ(Values<std::string>(g[0]), (std::vector<std::string>{"y", "z", "w", "x"}));
  OpCase concat{"Concat", 13, {In(words), In(words)}, {IntAttr("axis", 1)}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> c, RunOp(concat));
  EXPECT_EQ(Values<std::string>(c[0]),
            (std::vector<std::string>{"w", "x", "w", "x", "y", "z", "y", "z"}));
  OpCase reshape{"Reshape", 14, {In(words), ConstInts({4})}};
  NXRT_ASSERT_OK_AND_ASSIGN(std::vector<Tensor> r, RunOp(reshape));
  EXPECT_EQ(r[0].shape(), (Shape{4}));
  EXPECT_EQ(Values<std::string>(r[0]), (std::vector<std::string>{"w", "x", "y", "z"}));
}

}  // namespace
}  // namespace nxrt::cpu::kernels::testing
