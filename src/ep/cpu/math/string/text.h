// ep/cpu/math/string/text.h: the string and n-gram ops of ONNX (StringNormalizer, TfIdfVectorizer)
// as reference math.
//
// Layer: nxrt_cpu_math (framework-free; no IR, no EP API). Strings are std::string holding UTF-8
// bytes. Case changes and case-insensitive matching act on ASCII letters; other bytes (non-ASCII
// UTF-8 sequences) are kept as they are.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "nxrt/status.h"

namespace nxrt::cpu::math {

// StringNormalizer (ONNX opset 10): drops the stopwords, then changes the case of what is left.
enum class CaseChange { kNone, kLower, kUpper };

// "NONE", "LOWER", "UPPER"; kInvalidArgument for anything else.
Result<CaseChange> ParseCaseChange(std::string_view text);

struct StringNormalizerPlan {
  CaseChange case_change = CaseChange::kNone;
  bool case_sensitive = false;
  std::vector<std::string> stopwords;  // lowercased when !case_sensitive, sorted
};

StringNormalizerPlan MakeStringNormalizer(CaseChange case_change, bool case_sensitive,
                                          std::vector<std::string> stopwords);
// The strings of `input` that are not stopwords, in order, with the case change applied.
std::vector<std::string> NormalizeStrings(const StringNormalizerPlan& plan,
                                          std::span<const std::string> input);

// TfIdfVectorizer (ONNX opset 9): counts, in each row of a [C] or [N, C] input, the n-grams of
// the pool (n from min_gram_length to max_gram_length, the n items of an n-gram `skip + 1` apart
// for skip in [0, max_skip_count]; a unigram is counted once, whatever the skip) and writes
// per row a float vector of max(ngram_indexes) + 1 entries: TF the count, IDF weight (1 without
// weights) when the count is non-zero, TFIDF weight * count.
enum class TfIdfMode { kTf, kIdf, kTfIdf };

// "TF", "IDF", "TFIDF"; kInvalidArgument for anything else.
Result<TfIdfMode> ParseTfIdfMode(std::string_view text);

// An n-gram's items: int64 values or strings, depending on the pool.
template <typename Item>
struct TfIdfPlan {
  TfIdfMode mode = TfIdfMode::kTf;
  int64_t min_gram = 1;
  int64_t max_gram = 1;         // max_gram_length, at most the pool's n-gram lengths
  int64_t max_skip = 0;
  int64_t output_size = 0;      // max(ngram_indexes) + 1
  std::vector<float> weights;   // per pool n-gram; empty: all 1
  // n-gram → (its position among the pool's n-grams, its output index), one map per length n.
  std::vector<std::map<std::vector<Item>, std::pair<int64_t, int64_t>>> grams;
};

// Checks the attributes: ngram_counts[i] is the pool offset of the (i+1)-grams (non-decreasing,
// each level's length a multiple of i+1), ngram_indexes has one entry per pool n-gram (each >= 0),
// weights is empty or as long as ngram_indexes, and 1 <= min <= max, max_skip >= 0.
// Errors: kInvalidArgument naming the attribute and the values.
template <typename Item>
Result<TfIdfPlan<Item>> MakeTfIdf(TfIdfMode mode, int64_t min_gram, int64_t max_gram,
                                  int64_t max_skip, std::span<const int64_t> ngram_counts,
                                  std::span<const int64_t> ngram_indexes,
                                  std::span<const Item> pool, std::vector<float> weights);

// One row of `row_length` items → `output_size` floats in `output`.
template <typename Item>
void TfIdfRow(const TfIdfPlan<Item>& plan, std::span<const Item> row, float* output);

}  // namespace nxrt::cpu::math
