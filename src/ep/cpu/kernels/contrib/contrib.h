// ep/cpu/kernels/contrib/contrib.h: kernel factories of the CPU EP's contrib family, ONNX
// Runtime's com.microsoft operators (docs/ContribOperators.md of ONNX Runtime), used by its table
// (register_contrib.cpp).
//
// Layer: nxrt_ep_cpu (kernel glue over math/contrib/). Each factory reads the node's attributes
// once (kInvalidModel naming the attribute and its value); Prepare resolves the plan from the
// input dtypes and shapes and Compute runs it on the bound buffers.
#pragma once

#include <algorithm>
#include <cstdint>

#include "ep/cpu/kernels/kernel_util.h"
#include "ep/cpu/math/contrib/qlinear.h"
#include "ep/cpu/math/contrib/transformer_ops.h"
#include "ep/op_registry.h"

namespace nxrt::cpu::kernels {

// The domain of ONNX Runtime's contrib operators; every one is at version 1.
inline constexpr const char* kMsDomain = "com.microsoft";

// MatMulNBits(A, B, scales, zero_points?, g_idx?, bias?) with attributes K, N, bits (4, 8),
// block_size (math/contrib/matmul_nbits.h).
ep::KernelFactory MatMulNBitsFactory();

// SkipLayerNormalization (`simplified` false) and SkipSimplifiedLayerNormalization (true), with
// attribute epsilon (default 1e-12, ORT's).
ep::KernelFactory SkipLayerNormalizationFactory(bool simplified);
// SimplifiedLayerNormalization, ORT's RMSNorm schema in the ONNX domain (version 1): axis (-1),
// epsilon (1e-5), stash_type (1, float: the only one computed).
ep::KernelFactory SimplifiedLayerNormalizationFactory();
// FastGelu (kTanh, optional bias), BiasGelu and Gelu (kErf), QuickGelu (kQuick, attribute alpha).
ep::KernelFactory GeluFactory(contrib::GeluKind kind);
// EmbedLayerNormalization with attribute epsilon (default 1e-12, ORT's).
ep::KernelFactory EmbedLayerNormalizationFactory();
// BiasAdd (X, bias, skip).
ep::KernelFactory BiasAddFactory();

// RotaryEmbedding (input, position_ids, cos_cache, sin_cache): attributes interleaved,
// num_heads, rotary_embedding_dim (is_packed_batching must be 0) (math/contrib/attention.h).
ep::KernelFactory RotaryEmbeddingFactory();
// GroupQueryAttention (query, key?, value?, past_key?, past_value?, seqlens_k,
// total_sequence_length, cos_cache?, sin_cache?) -> output, present_key, present_value:
// attributes num_heads, kv_num_heads, scale, softcap, local_window_size, do_rotary,
// rotary_interleaved; float caches only, no position_ids / attention_bias / head_sink / output_qk.
ep::KernelFactory GroupQueryAttentionFactory();
// MultiHeadAttention (query, key, value 3-D; bias?, key_padding_mask?, attention_bias?) and
// Attention (input, weights, bias?, mask_index?, -, attention_bias?): num_heads, scale,
// mask_filter_value, unidirectional; no past state (math/contrib/attention.h MhaAttend).
ep::KernelFactory MultiHeadAttentionFactory();
ep::KernelFactory AttentionFactory();

// FusedMatMul and TransposeMatMul (A, B): attributes alpha, transA, transB (transBatchA/B 0).
ep::KernelFactory ContribFusedMatMulFactory();

// QLinearAdd / QLinearMul (A, A_scale, A_zp?, B, B_scale, B_zp?, C_scale, C_zp?), QLinearSigmoid
// (X, X_scale, X_zp?, Y_scale, Y_zp?), QLinearGlobalAveragePool (same inputs; channels_last),
// QLinearConcat (Y_scale, Y_zp, then X_i, X_i_scale, X_i_zp; axis) (math/contrib/qlinear.h).
ep::KernelFactory QLinearBinaryFactory(contrib::QLinearBinaryKind kind);
ep::KernelFactory QLinearSigmoidFactory();
ep::KernelFactory QLinearGlobalAveragePoolFactory();
ep::KernelFactory QLinearConcatFactory();

// MatMulIntegerToFloat (`dynamic` false) and DynamicQuantizeMatMul (true)
// (math/contrib/quant_matmul.h).
ep::KernelFactory IntegerToFloatFactory(bool dynamic);

}  // namespace nxrt::cpu::kernels
