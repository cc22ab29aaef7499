// ep/cpu/kernels/string/string.h: kernel factories of the CPU EP's string family, used by its
// table (register_string.cpp).
//
// Layer: nxrt_ep_cpu (kernel glue over the reference math of src/ep/cpu/math/string/text.h). Each
// factory reads and checks the node's attributes once (kInvalidModel naming the attribute and its
// value) and returns a kernel whose Prepare checks the input and declares the outputs.
#pragma once

#include "ep/op_registry.h"

namespace nxrt::cpu::kernels {

// StringNormalizer (opset 10): `case_change_action`, `is_case_sensitive`, `stopwords`
// (`locale` is accepted; case changes act on ASCII letters). Output size depends on the data.
ep::KernelFactory StringNormalizerFactory();

// TfIdfVectorizer (opset 9): `mode`, `min_gram_length`, `max_gram_length`, `max_skip_count`,
// `ngram_counts`, `ngram_indexes`, `pool_int64s` or `pool_strings`, `weights`.
ep::KernelFactory TfIdfVectorizerFactory();

}  // namespace nxrt::cpu::kernels
