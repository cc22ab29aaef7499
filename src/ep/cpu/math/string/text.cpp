// ep/cpu/math/string/text.cpp: see text.h.
#include "ep/cpu/math/string/text.h"

#include <algorithm>
#include <utility>

namespace nxrt::cpu::math {
namespace {

char AsciiLower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; }
char AsciiUpper(char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }

std::string Lowered(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), AsciiLower);
  return s;
}

}  // namespace

Result<CaseChange> ParseCaseChange(std::string_view text) {
  if (text == "NONE") return CaseChange::kNone;
  if (text == "LOWER") return CaseChange::kLower;
  if (text == "UPPER") return CaseChange::kUpper;
  return MakeStatus(StatusCode::kInvalidArgument, "case_change_action is '", text,
                    "', expected NONE, LOWER or UPPER");
}

StringNormalizerPlan MakeStringNormalizer(CaseChange case_change, bool case_sensitive,
                                          std::vector<std::string> stopwords) {
  StringNormalizerPlan plan;
  plan.case_change = case_change;
  plan.case_sensitive = case_sensitive;
  if (!case_sensitive) {
    for (std::string& word : stopwords) word = Lowered(std::move(word));
  }
  std::sort(stopwords.begin(), stopwords.end());
  plan.stopwords = std::move(stopwords);
  return plan;
}

std::vector<std::string> NormalizeStrings(const StringNormalizerPlan& plan,
                                          std::span<const std::string> input) {
  std::vector<std::string> kept;
  for (const std::string& s : input) {
    const std::string key = plan.case_sensitive ? s : Lowered(s);
    if (std::binary_search(plan.stopwords.begin(), plan.stopwords.end(), key)) continue;
    std::string out = s;
    if (plan.case_change == CaseChange::kLower) {
      std::transform(out.begin(), out.end(), out.begin(), AsciiLower);
    } else if (plan.case_change == CaseChange::kUpper) {
      std::transform(out.begin(), out.end(), out.begin(), AsciiUpper);
    }
    kept.push_back(std::move(out));
  }
  return kept;
}

Result<TfIdfMode> ParseTfIdfMode(std::string_view text) {
  if (text == "TF") return TfIdfMode::kTf;
  if (text == "IDF") return TfIdfMode::kIdf;
  if (text == "TFIDF") return TfIdfMode::kTfIdf;
  return MakeStatus(StatusCode::kInvalidArgument, "mode is '", text,
                    "', expected TF, IDF or TFIDF");
}

template <typename Item>
Result<TfIdfPlan<Item>> MakeTfIdf(TfIdfMode mode, int64_t min_gram, int64_t max_gram,
                                  int64_t max_skip, std::span<const int64_t> ngram_counts,
                                  std::span<const int64_t> ngram_indexes,
                                  std::span<const Item> pool, std::vector<float> weights) {
  if (min_gram < 1 || max_gram < min_gram) {
    return MakeStatus(StatusCode::kInvalidArgument, "min_gram_length ", min_gram,
                      " and max_gram_length ", max_gram, " must satisfy 1 <= min <= max");
  }
  if (max_skip < 0) {
    return MakeStatus(StatusCode::kInvalidArgument, "max_skip_count is ", max_skip,
                      ", expected >= 0");
  }
  TfIdfPlan<Item> plan;
  plan.mode = mode;
  plan.min_gram = min_gram;
  // No pool n-gram is longer than ngram_counts has levels, so a row's longer n-grams match
  // nothing: the plan stops there (a max_gram_length of 2^32 allocates no 2^32 maps).
  plan.max_gram = std::min(max_gram, static_cast<int64_t>(ngram_counts.size()));
  plan.max_skip = max_skip;
  plan.grams.resize(static_cast<size_t>(plan.max_gram) + 1);
  const int64_t pool_size = static_cast<int64_t>(pool.size());
  int64_t position = 0;  // the n-gram's position in the pool, across all lengths
  for (size_t level = 0; level < ngram_counts.size(); ++level) {
    const int64_t n = static_cast<int64_t>(level) + 1;
    const int64_t begin = ngram_counts[level];
    const int64_t end = level + 1 < ngram_counts.size() ? ngram_counts[level + 1] : pool_size;
    if (begin < 0 || end < begin || end > pool_size || (end - begin) % n != 0) {
      return MakeStatus(StatusCode::kInvalidArgument, "ngram_counts[", level, "] = ", begin,
                        ": the ", n, "-grams span pool items [", begin, ", ", end,
                        "), which is not a whole number of ", n, "-grams inside the pool of ",
                        pool_size, " items");
    }
    for (int64_t at = begin; at < end; at += n, ++position) {
      if (position >= static_cast<int64_t>(ngram_indexes.size())) {
        return MakeStatus(StatusCode::kInvalidArgument, "ngram_indexes has ",
                          ngram_indexes.size(), " entries, fewer than the pool's n-grams");
      }
      const int64_t index = ngram_indexes[position];
      if (index < 0) {
        return MakeStatus(StatusCode::kInvalidArgument, "ngram_indexes[", position, "] is ",
                          index, ", expected >= 0");
      }
      plan.output_size = std::max(plan.output_size, index + 1);
      if (n <= max_gram) {
        std::vector<Item> gram(pool.begin() + at, pool.begin() + at + n);
        plan.grams[n].emplace(std::move(gram), std::pair{position, index});
      }
    }
  }
  if (!weights.empty() && weights.size() != ngram_indexes.size()) {
    return MakeStatus(StatusCode::kInvalidArgument, "weights has ", weights.size(),
                      " entries, expected one per n-gram (", ngram_indexes.size(), ")");
  }
  plan.weights = std::move(weights);
  return plan;
}

template <typename Item>
void TfIdfRow(const TfIdfPlan<Item>& plan, std::span<const Item> row, float* output) {
  std::fill(output, output + plan.output_size, 0.0f);
  // Counts per pool n-gram, turned into output values at the end (weights are per n-gram).
  std::map<int64_t, std::pair<int64_t, int64_t>> found;  // position → (output index, count)
  const int64_t length = static_cast<int64_t>(row.size());
  std::vector<Item> gram;
  for (int64_t start = 0; start < length; ++start) {
    for (int64_t skip = 0; skip <= plan.max_skip; ++skip) {
      // Past this skip no second item fits in the row: only the unigram of skip 0 counts, so a
      // max_skip_count of INT64_MAX costs no more than one of length - 2.
      if (skip > 0 && skip >= length - start - 1) break;
      gram.clear();
      for (int64_t n = 1; n <= plan.max_gram; ++n) {
        const int64_t at = start + (n - 1) * (skip + 1);
        if (at >= length) break;
        gram.push_back(row[at]);
        if (n == 1 && skip > 0) continue;  // unigrams are counted at skip 0 only
        if (n < plan.min_gram) continue;
        const auto it = plan.grams[n].find(gram);
        if (it == plan.grams[n].end()) continue;
        auto& entry = found[it->second.first];
        entry.first = it->second.second;
        ++entry.second;
      }
    }
  }
  for (const auto& [position, entry] : found) {
    const auto [index, count] = entry;
    const float weight = plan.weights.empty() ? 1.0f : plan.weights[position];
    switch (plan.mode) {
      case TfIdfMode::kTf: output[index] += static_cast<float>(count); break;
      case TfIdfMode::kIdf: output[index] += weight; break;
      case TfIdfMode::kTfIdf: output[index] += weight * static_cast<float>(count); break;
    }
  }
}

template Result<TfIdfPlan<int64_t>> MakeTfIdf(TfIdfMode, int64_t, int64_t, int64_t,
                                              std::span<const int64_t>, std::span<const int64_t>,
                                              std::span<const int64_t>, std::vector<float>);
template Result<TfIdfPlan<std::string>> MakeTfIdf(TfIdfMode, int64_t, int64_t, int64_t,
                                                  std::span<const int64_t>,
                                                  std::span<const int64_t>,
                                                  std::span<const std::string>,
                                                  std::vector<float>);
template void TfIdfRow(const TfIdfPlan<int64_t>&, std::span<const int64_t>, float*);
template void TfIdfRow(const TfIdfPlan<std::string>&, std::span<const std::string>, float*);

}  // namespace nxrt::cpu::math
