#pragma once
// The kernels one GPU runs for each submodule use of a GPT/BERT-style transformer step, in
// launch order, with the shape or byte count that bounds each (timed by kernel_time.hpp).
//
// Layout: Megatron-LM's transformer layer (megatron/model/transformer.py, ParallelTransformerLayer,
// https://github.com/NVIDIA/Megatron-LM), the GPT-2 code DeepSpeed's ZeRO-3 examples train:
// biases of the QKV projection fused into its GEMM; the others added by a fused bias + GeLU and a
// fused bias + dropout + residual-add kernel; the loss Megatron's cross entropy over fp32 logits
// (megatron/mpu/cross_entropy.py). Symbols: b micro-batch, s sequence, T = b·s tokens, h hidden,
// f FFN width, a heads, d = h/a, V vocabulary, w bytes per activation (2 in mixed precision, else
// 4), S = b·a·s² attention-score elements, c = 1/2 for causal attention with the fused kernel
// (it skips the masked half), else 1.
//
// GEMM (m x n output, inner dimension k, `batch` independent products; 2·m·n·k·batch FLOPs):
//   forward Y = X·W^T: m = T, n = out, k = in;  backward dgrad dX = dY·W: m = T, n = in, k = out;
//   wgrad dW = dY^T·X: m = out, n = in, k = T.
// Memory-bound kernels (bytes read + written, fp32 statistics of a LayerNorm 8 B per token):
//   use        pass      kernels
//   embedding  forward   token lookup 2Thw + 8T; position add 3Thw; dropout 2Thw + Th
//   qkv        forward   LayerNorm 2Thw + 8T; QKV GEMM (T, 3h, h); attention (below)
//   out        forward   output projection GEMM (T, h, h); bias + dropout + residual 3Thw + Th
//   fc1        forward   LayerNorm 2Thw + 8T; FC1 GEMM (T, f, h); bias + GeLU 2Tfw
//   fc2        forward   FC2 GEMM (T, h, f); bias + dropout + residual 3Thw + Th
//   output     forward   final LayerNorm 2Thw + 8T; logits GEMM (T, V, h); loss (below)
//   output     backward  loss backward (below); logits dgrad (T, h, V) and wgrad (V, h, T);
//                        final LayerNorm backward 3Thw, its weight gradient 2Thw
//   fc2        backward  dropout backward 2Thw + Th; bias gradient Thw; dgrad (T, f, h);
//                        wgrad (h, f, T)
//   fc1        backward  bias + GeLU backward 3Tfw; bias gradient Tfw; dgrad (T, h, f);
//                        wgrad (f, h, T); LayerNorm backward 3Thw + weight gradient 2Thw;
//                        residual gradient add 3Thw
//   out        backward  dropout backward 2Thw + Th; bias gradient Thw; dgrad (T, h, h);
//                        wgrad (h, h, T); attention backward (below)
//   qkv        backward  bias gradient 3Thw; dgrad (T, h, 3h); wgrad (3h, h, T); LayerNorm
//                        backward 3Thw + weight gradient 2Thw; residual gradient add 3Thw
//   embedding  backward  dropout backward 2Thw + Th; position gradient Thw + s·h·w; token
//                        gradient: zero-fill Vhw, scatter-add Thw + 8T; tied-weight gradient
//                        accumulate 3Vhw
// Attention (training.attention):
//   unfused forward   scores Q·K^T (s, s, d) x b·a; mask 2Sw; softmax 2Sw; dropout 2Sw + S;
//                     context P·V (s, d, s) x b·a; transpose copy 2Thw
//   unfused backward  transpose copy 2Thw; dP = dO·V^T (s, s, d) and dV = P^T·dO (s, d, s);
//                     dropout backward 2Sw + S; softmax backward 3Sw; mask backward 2Sw;
//                     dQ = dS·K and dK = dS^T·Q (s, d, s), each x b·a
//   flash             one FlashAttention-2 kernel forward, 4·c·b·s²·h FLOPs; backward 2.5 x
//                     the forward FLOPs (Dao, "FlashAttention-2", 2023,
//                     https://arxiv.org/abs/2307.08691: the backward recomputes the scores;
//                     its benchmark counts fwd + bwd as 3.5 x fwd)
// Loss (fp32 logits, Megatron's _VocabParallelCrossEntropy): forward: cast to fp32 TV(w + 4);
//   max 4TV; subtract 8TV; exp 8TV; sum 4TV; divide 8TV; log and target gather 16T.
//   Backward: the turn from forward to backward first (DeepSpeed 0.7.3 engine.backward ->
//   stage3.backward -> loss_scaler.backward: loss.float(), loss x scale, autograd's seed
//   gradient: three one-element kernels, 8 B each); then subtract the one-hot target 16T;
//   scale by the incoming gradient 8TV; cast to w bytes TV(4 + w).
//   training.cross_entropy "torch" (Hugging Face models: torch.nn.functional.cross_entropy on
//   the 16-bit logits, log_softmax then nll_loss): forward log-softmax 3TVw (two reads for the
//   max and the sum, one write), target gather T(w + 8); backward (after the turn) nll_loss's
//   dense gradient TVw + T(w + 8), log-softmax backward 3TVw (reads its output and the
//   gradient, writes the input's). "fused" (flash-attn's Triton cross entropy,
//   flash_attn/losses/cross_entropy.py, llm-foundry's MPT default): forward one kernel reading
//   the logits and writing the loss and the log-sum-exp, TVw + 16T; backward one kernel reading
//   the logits, the log-sum-exp and the targets and writing the logits' gradient, 2TVw + 12T.
// GeLU (training.gelu): "fused" as above (bias + GeLU 2Tfw, backward 3Tfw). "unfused" (Hugging
//   Face's NewGELUActivation, transformers/activations.py, 0.5·x·(1 + tanh(sqrt(2/pi)·(x +
//   0.044715·x³))), GPT-2's gelu_new; FC1's bias added by its GEMM): forward eight elementwise
//   kernels, 0.5x 2, x³ 2, 0.044715x³ 2, x + · 3, sqrt(2/pi)· 2, tanh 2, 1 + · 2, product 3
//   (in Tfw, 18 in all); backward autograd's eleven: the product's two gradients 3 + 3, tanh
//   backward 3, two constant scalings 2 + 2, x³'s backward x² 2, 3x² 2, g·3x² 3, the half's
//   scaling 2, two gradient accumulations 3 + 3 (28 in all).
// Without dropout (model.dropout 0) the dropout kernels are not launched (PyTorch's dropout
// returns its input when p = 0) and the fused bias + dropout + residual add writes no mask:
// 3Thw.
// Recomputation (activation checkpointing) runs exactly the forward kernels again.
#include <string_view>
#include <vector>

#include "ckptsim/workload/transformer.hpp"

namespace ckptsim {

/// The groups kernels are reported in (`ckptsim compute`, docs/models.md).
enum class KernelClass { gemm, attention, layer_norm, elementwise, loss, embedding };
constexpr int kKernelClasses = 6;
const char* to_string(KernelClass c);  ///< display name ("GEMM", "LayerNorm", ...)
/// The class's key in files, the one set of class names `ckptsim import torch-profiler`'s kernel
/// document, `ckptsim calibrate` and the kernel model share: gemm, attention, layer_norm,
/// elementwise, loss, embedding.
const char* key_of(KernelClass c);

/// What bounds a kernel's time (kernel_time.hpp).
enum class KernelBound { gemm, memory, fused_attention };

struct Kernel {
  std::string_view name;
  KernelClass group = KernelClass::gemm;
  KernelBound bound = KernelBound::memory;
  double m = 0, n = 0, k = 0;  ///< GEMM: output rows x columns, inner dimension
  double batch = 1;            ///< GEMM: independent products (attention: b·a)
  double bytes = 0;            ///< memory: bytes read + written
  double flops = 0;            ///< GEMM and fused attention: FLOPs executed
};

/// The submodule uses a step is made of: the token embedding, a transformer layer's four
/// weight matrices (with the kernels around each), and the output stage (final LayerNorm,
/// logits against the tied embedding, loss).
enum class ComputeUse { embedding, qkv, out, fc1, fc2, output };
constexpr int kComputeUses = 6;
enum class Pass { forward, recompute, backward };
constexpr int kPasses = 3;
const char* to_string(ComputeUse u);
const char* to_string(Pass p);

/// The kernels of `use` in `pass`, in launch order. The embedding and output stages are not
/// recomputed: asking for their recompute pass is a logic error (std::logic_error).
std::vector<Kernel> use_kernels(const TransformerShape& shape, ComputeUse use, Pass pass);

/// The layer's four uses in forward order.
inline constexpr ComputeUse kLayerUses[4] = {ComputeUse::qkv, ComputeUse::out, ComputeUse::fc1, ComputeUse::fc2};

}  // namespace ckptsim
