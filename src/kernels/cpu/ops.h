// Every CPU kernel, grouped by the file that implements it. All share the KernelFn
// signature of kernel.h; registry.cpp maps operator names to them.
#pragma once

#include <cstdint>
#include <span>

#include "core/status.h"
#include "runtime/value.h"

namespace wick::cpu {

// conv.cpp
Status convolution_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_conv_with_clamp_out(ValueTable& values, std::span<const int32_t> args);

// creation.cpp
Status scalar_tensor_out(ValueTable& values, std::span<const int32_t> args);
Status full_out(ValueTable& values, std::span<const int32_t> args);
Status full_like_out(ValueTable& values, std::span<const int32_t> args);
Status zeros_out(ValueTable& values, std::span<const int32_t> args);
Status ones_out(ValueTable& values, std::span<const int32_t> args);
Status zeros_like_out(ValueTable& values, std::span<const int32_t> args);
Status ones_like_out(ValueTable& values, std::span<const int32_t> args);
Status fill_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status arange_out(ValueTable& values, std::span<const int32_t> args);
Status arange_start_out(ValueTable& values, std::span<const int32_t> args);
Status tril_out(ValueTable& values, std::span<const int32_t> args);
Status triu_out(ValueTable& values, std::span<const int32_t> args);

// cumsum.cpp
Status cumsum_out(ValueTable& values, std::span<const int32_t> args);
Status cumprod_out(ValueTable& values, std::span<const int32_t> args);

// elementwise_binary.cpp
Status add_out(ValueTable& values, std::span<const int32_t> args);
Status add_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status sub_out(ValueTable& values, std::span<const int32_t> args);
Status sub_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status rsub_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status mul_out(ValueTable& values, std::span<const int32_t> args);
Status mul_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status div_out(ValueTable& values, std::span<const int32_t> args);
Status div_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status div_out_mode(ValueTable& values, std::span<const int32_t> args);
Status div_scalar_mode_out(ValueTable& values, std::span<const int32_t> args);
Status floor_divide_out(ValueTable& values, std::span<const int32_t> args);
Status maximum_out(ValueTable& values, std::span<const int32_t> args);
Status minimum_out(ValueTable& values, std::span<const int32_t> args);
Status pow_tensor_tensor_out(ValueTable& values, std::span<const int32_t> args);
Status pow_tensor_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status pow_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status remainder_tensor_out(ValueTable& values, std::span<const int32_t> args);
Status remainder_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status fmod_tensor_out(ValueTable& values, std::span<const int32_t> args);
Status fmod_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status atan2_out(ValueTable& values, std::span<const int32_t> args);
Status bitwise_and_tensor_out(ValueTable& values, std::span<const int32_t> args);
Status bitwise_or_tensor_out(ValueTable& values, std::span<const int32_t> args);
Status bitwise_xor_tensor_out(ValueTable& values, std::span<const int32_t> args);
Status bitwise_and_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status bitwise_or_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status bitwise_xor_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status eq_tensor_out(ValueTable& values, std::span<const int32_t> args);
Status ne_tensor_out(ValueTable& values, std::span<const int32_t> args);
Status lt_tensor_out(ValueTable& values, std::span<const int32_t> args);
Status le_tensor_out(ValueTable& values, std::span<const int32_t> args);
Status gt_tensor_out(ValueTable& values, std::span<const int32_t> args);
Status ge_tensor_out(ValueTable& values, std::span<const int32_t> args);
Status eq_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status ne_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status lt_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status le_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status gt_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status ge_scalar_out(ValueTable& values, std::span<const int32_t> args);
Status logical_and_out(ValueTable& values, std::span<const int32_t> args);
Status logical_or_out(ValueTable& values, std::span<const int32_t> args);
Status logical_xor_out(ValueTable& values, std::span<const int32_t> args);
Status where_self_out(ValueTable& values, std::span<const int32_t> args);
Status masked_fill_scalar_out(ValueTable& values, std::span<const int32_t> args);

// grid_sampler.cpp
Status grid_sampler_2d_out(ValueTable& values, std::span<const int32_t> args);

// indexing.cpp
Status index_tensor_out(ValueTable& values, std::span<const int32_t> args);
Status index_put_out(ValueTable& values, std::span<const int32_t> args);
Status index_select_out(ValueTable& values, std::span<const int32_t> args);
Status embedding_out(ValueTable& values, std::span<const int32_t> args);
Status gather_out(ValueTable& values, std::span<const int32_t> args);

// linear_algebra.cpp
Status addmm_out(ValueTable& values, std::span<const int32_t> args);
Status baddbmm_out(ValueTable& values, std::span<const int32_t> args);
Status mm_out(ValueTable& values, std::span<const int32_t> args);
Status bmm_out(ValueTable& values, std::span<const int32_t> args);
Status linear_out(ValueTable& values, std::span<const int32_t> args);

// llm_ops.cpp
Status et_vk_rms_norm_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_apply_rotary_emb_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_apply_rotary_emb_hf_out(ValueTable& values, std::span<const int32_t> args);
Status llama_sdpa_with_kv_cache_out(ValueTable& values, std::span<const int32_t> args);
Status llama_update_cache_out(ValueTable& values, std::span<const int32_t> args);

// normalization.cpp
Status native_batch_norm_legit_no_stats_out(ValueTable& values, std::span<const int32_t> args);
Status native_batch_norm_legit_no_training_out(ValueTable& values, std::span<const int32_t> args);
Status native_layer_norm_out(ValueTable& values, std::span<const int32_t> args);
Status native_group_norm_out(ValueTable& values, std::span<const int32_t> args);

// pooling.cpp
Status max_pool2d_with_indices_out(ValueTable& values, std::span<const int32_t> args);
Status avg_pool2d_out(ValueTable& values, std::span<const int32_t> args);
Status adaptive_avg_pool2d_out(ValueTable& values, std::span<const int32_t> args);

// quantized.cpp
Status et_vk_linear_q4gsw_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_q4gsw_requant_out(ValueTable& values, std::span<const int32_t> args);
// quantized_8da4w.cpp (torchao's 8da4w flow)
Status torchao_choose_qparams_affine_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_linear_dq8ca_q4gsw_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_embedding_q4gsw_out(ValueTable& values, std::span<const int32_t> args);
// vulkan_misc_ops.cpp
Status et_vk_sdpa_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_apply_rotary_emb_interleaved_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_grid_priors_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_linear_qcs4w_out(ValueTable& values, std::span<const int32_t> args);

// training.cpp
Status et_vk_adamw_step_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_fused_ce_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_linear_dw_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_linear_q4gsw_backward_out(ValueTable& values, std::span<const int32_t> args);
// q8ta.cpp (ExecuTorch Vulkan's int8 ops)
Status et_vk_q8ta_conv2d_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_q8ta_conv2d_pw_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_q8ta_conv2d_dw_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_q8ta_conv2d_transposed_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_q8ta_linear_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_q8ta_linear_gemv_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_linear_q8ta_q8csw_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_q8ta_add_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_q8ta_relu_out(ValueTable& values, std::span<const int32_t> args);
Status et_vk_q8ta_pixel_shuffle_out(ValueTable& values, std::span<const int32_t> args);

// quantized_decomposed.cpp
Status quantize_per_tensor_out(ValueTable& values, std::span<const int32_t> args);
Status dequantize_per_tensor_out(ValueTable& values, std::span<const int32_t> args);

// reduce.cpp
Status sum_intlist_out(ValueTable& values, std::span<const int32_t> args);
Status mean_out(ValueTable& values, std::span<const int32_t> args);
Status prod_int_out(ValueTable& values, std::span<const int32_t> args);
Status any_out(ValueTable& values, std::span<const int32_t> args);
Status any_dims_out(ValueTable& values, std::span<const int32_t> args);
Status any_all_out(ValueTable& values, std::span<const int32_t> args);
Status all_out(ValueTable& values, std::span<const int32_t> args);
Status all_dims_out(ValueTable& values, std::span<const int32_t> args);
Status all_all_out(ValueTable& values, std::span<const int32_t> args);
Status amax_out(ValueTable& values, std::span<const int32_t> args);
Status amin_out(ValueTable& values, std::span<const int32_t> args);
Status max_dim_max(ValueTable& values, std::span<const int32_t> args);
Status min_dim_min(ValueTable& values, std::span<const int32_t> args);
Status argmax_out(ValueTable& values, std::span<const int32_t> args);
Status argmin_out(ValueTable& values, std::span<const int32_t> args);
Status var_correction_out(ValueTable& values, std::span<const int32_t> args);

// shape_ops.cpp
Status permute_copy_out(ValueTable& values, std::span<const int32_t> args);
Status transpose_copy_int_out(ValueTable& values, std::span<const int32_t> args);
Status t_copy_out(ValueTable& values, std::span<const int32_t> args);
Status view_copy_out(ValueTable& values, std::span<const int32_t> args);
Status clone_out(ValueTable& values, std::span<const int32_t> args);
Status alias_copy_out(ValueTable& values, std::span<const int32_t> args);
Status to_copy_out(ValueTable& values, std::span<const int32_t> args);
Status to_dim_order_copy_out(ValueTable& values, std::span<const int32_t> args);
Status clone_dim_order_out(ValueTable& values, std::span<const int32_t> args);
Status copy_inplace(ValueTable& values, std::span<const int32_t> args);
Status copy_out(ValueTable& values, std::span<const int32_t> args);
Status unsqueeze_copy_out(ValueTable& values, std::span<const int32_t> args);
Status squeeze_copy_out(ValueTable& values, std::span<const int32_t> args);
Status squeeze_copy_dim_out(ValueTable& values, std::span<const int32_t> args);
Status squeeze_copy_dims_out(ValueTable& values, std::span<const int32_t> args);
Status select_copy_int_out(ValueTable& values, std::span<const int32_t> args);
Status slice_copy_tensor_out(ValueTable& values, std::span<const int32_t> args);
Status expand_copy_out(ValueTable& values, std::span<const int32_t> args);
Status flip_out(ValueTable& values, std::span<const int32_t> args);
Status pixel_shuffle_out(ValueTable& values, std::span<const int32_t> args);
Status pixel_unshuffle_out(ValueTable& values, std::span<const int32_t> args);
Status repeat_out(ValueTable& values, std::span<const int32_t> args);
Status cat_out(ValueTable& values, std::span<const int32_t> args);
Status stack_out(ValueTable& values, std::span<const int32_t> args);
Status split_with_sizes_copy_out(ValueTable& values, std::span<const int32_t> args);
Status split_copy_tensor_out(ValueTable& values, std::span<const int32_t> args);
Status unbind_copy_int_out(ValueTable& values, std::span<const int32_t> args);
Status constant_pad_nd_out(ValueTable& values, std::span<const int32_t> args);

// softmax.cpp
Status softmax_out(ValueTable& values, std::span<const int32_t> args);
Status log_softmax_out(ValueTable& values, std::span<const int32_t> args);

// topk.cpp
Status topk_values(ValueTable& values, std::span<const int32_t> args);
Status sort_values(ValueTable& values, std::span<const int32_t> args);
Status sort_values_stable(ValueTable& values, std::span<const int32_t> args);

// unary.cpp
Status gelu_out(ValueTable& values, std::span<const int32_t> args);
Status leaky_relu_out(ValueTable& values, std::span<const int32_t> args);
Status elu_out(ValueTable& values, std::span<const int32_t> args);
Status clamp_out(ValueTable& values, std::span<const int32_t> args);
Status hardtanh_out(ValueTable& values, std::span<const int32_t> args);
Status logical_not_out(ValueTable& values, std::span<const int32_t> args);
Status isnan_out(ValueTable& values, std::span<const int32_t> args);
Status isinf_out(ValueTable& values, std::span<const int32_t> args);
Status bitwise_not_out(ValueTable& values, std::span<const int32_t> args);
Status relu_out(ValueTable& values, std::span<const int32_t> args);
Status log_out(ValueTable& values, std::span<const int32_t> args);
Status log2_out(ValueTable& values, std::span<const int32_t> args);
Status log10_out(ValueTable& values, std::span<const int32_t> args);
Status log1p_out(ValueTable& values, std::span<const int32_t> args);
Status exp_out(ValueTable& values, std::span<const int32_t> args);
Status expm1_out(ValueTable& values, std::span<const int32_t> args);
Status sqrt_out(ValueTable& values, std::span<const int32_t> args);
Status rsqrt_out(ValueTable& values, std::span<const int32_t> args);
Status reciprocal_out(ValueTable& values, std::span<const int32_t> args);
Status sin_out(ValueTable& values, std::span<const int32_t> args);
Status cos_out(ValueTable& values, std::span<const int32_t> args);
Status tan_out(ValueTable& values, std::span<const int32_t> args);
Status asin_out(ValueTable& values, std::span<const int32_t> args);
Status acos_out(ValueTable& values, std::span<const int32_t> args);
Status atan_out(ValueTable& values, std::span<const int32_t> args);
Status sinh_out(ValueTable& values, std::span<const int32_t> args);
Status cosh_out(ValueTable& values, std::span<const int32_t> args);
Status tanh_out(ValueTable& values, std::span<const int32_t> args);
Status erf_out(ValueTable& values, std::span<const int32_t> args);
Status sigmoid_out(ValueTable& values, std::span<const int32_t> args);
Status silu_out(ValueTable& values, std::span<const int32_t> args);
Status hardsigmoid_out(ValueTable& values, std::span<const int32_t> args);
Status hardswish_out(ValueTable& values, std::span<const int32_t> args);
Status neg_out(ValueTable& values, std::span<const int32_t> args);
Status abs_out(ValueTable& values, std::span<const int32_t> args);
Status sign_out(ValueTable& values, std::span<const int32_t> args);
Status floor_out(ValueTable& values, std::span<const int32_t> args);
Status ceil_out(ValueTable& values, std::span<const int32_t> args);
Status trunc_out(ValueTable& values, std::span<const int32_t> args);
Status round_out(ValueTable& values, std::span<const int32_t> args);

// upsample.cpp
Status upsample_nearest2d_vec_out(ValueTable& values, std::span<const int32_t> args);
Status upsample_bilinear2d_vec_out(ValueTable& values, std::span<const int32_t> args);

}  // namespace wick::cpu
