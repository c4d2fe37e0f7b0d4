// The kernel lists of kernels.hpp: each use's kernels with the shapes and byte counts its
// header comment gives.
#include "ckptsim/workload/kernels.hpp"

#include <stdexcept>

namespace ckptsim {
namespace {

/// The symbols of kernels.hpp for one shape.
struct Symbols {
  double b, s, T, h, f, a, d, V, w, S;
  bool causal;
  AttentionKind attention;
  bool dropout;    ///< model.dropout > 0: dropout kernels and their masks
  CrossEntropyKind loss;
  GeluKind gelu;
};

Symbols symbols(const TransformerShape& x) {
  const double T = x.micro_batch * x.sequence;
  return {x.micro_batch, x.sequence, T,       x.hidden,    x.ffn,     x.heads,
          x.hidden / x.heads, x.vocabulary, x.word_bytes(), x.micro_batch * x.heads * x.sequence * x.sequence,
          x.causal, x.attention, x.dropout > 0, x.cross_entropy, x.gelu};
}

Kernel gemm(std::string_view name, double m, double n, double k, double batch = 1,
            KernelClass group = KernelClass::gemm) {
  Kernel g;
  g.name = name;
  g.group = group;
  g.bound = KernelBound::gemm;
  g.m = m;
  g.n = n;
  g.k = k;
  g.batch = batch;
  g.flops = 2 * m * n * k * batch;
  return g;
}

Kernel memory(std::string_view name, KernelClass group, double bytes) {
  Kernel k;
  k.name = name;
  k.group = group;
  k.bound = KernelBound::memory;
  k.bytes = bytes;
  return k;
}

/// The bias + dropout + residual add after a projection (Megatron's fused kernel): reads the
/// projection's output and the residual, writes the sum, and with dropout writes its 1-byte mask.
Kernel residual_add(const Symbols& y) {
  const double Thw = y.T * y.h * y.w;
  if (!y.dropout) return memory("bias + residual add", KernelClass::elementwise, 3 * Thw);
  return memory("bias + dropout + residual add", KernelClass::elementwise, 3 * Thw + y.T * y.h);
}

/// A linear layer's backward: dgrad dX = dY·W (T, in, out) and wgrad dW = dY^T·X (out, in, T).
void linear_backward(std::vector<Kernel>& out, const Symbols& y, double in, double width, std::string_view dgrad,
                     std::string_view wgrad) {
  out.push_back(gemm(dgrad, y.T, in, width));
  out.push_back(gemm(wgrad, width, in, y.T));
}

void attention_forward(std::vector<Kernel>& out, const Symbols& y) {
  if (y.attention == AttentionKind::flash) {
    Kernel k;
    k.name = "FlashAttention-2 forward";
    k.group = KernelClass::attention;
    k.bound = KernelBound::fused_attention;
    k.flops = 4 * (y.causal ? 0.5 : 1.0) * y.b * y.s * y.s * y.h;
    out.push_back(k);
    return;
  }
  out.push_back(gemm("attention scores Q K^T", y.s, y.s, y.d, y.b * y.a, KernelClass::attention));
  out.push_back(memory("attention mask", KernelClass::attention, 2 * y.S * y.w));
  out.push_back(memory("softmax", KernelClass::attention, 2 * y.S * y.w));
  if (y.dropout) out.push_back(memory("attention dropout", KernelClass::attention, 2 * y.S * y.w + y.S));
  out.push_back(gemm("attention context P V", y.s, y.d, y.s, y.b * y.a, KernelClass::attention));
  out.push_back(memory("context transpose", KernelClass::attention, 2 * y.T * y.h * y.w));
}

void attention_backward(std::vector<Kernel>& out, const Symbols& y) {
  if (y.attention == AttentionKind::flash) {
    Kernel k;
    k.name = "FlashAttention-2 backward";
    k.group = KernelClass::attention;
    k.bound = KernelBound::fused_attention;
    k.flops = 2.5 * 4 * (y.causal ? 0.5 : 1.0) * y.b * y.s * y.s * y.h;
    out.push_back(k);
    return;
  }
  out.push_back(memory("context transpose backward", KernelClass::attention, 2 * y.T * y.h * y.w));
  out.push_back(gemm("context backward dP = dO V^T", y.s, y.s, y.d, y.b * y.a, KernelClass::attention));
  out.push_back(gemm("context backward dV = P^T dO", y.s, y.d, y.s, y.b * y.a, KernelClass::attention));
  if (y.dropout) out.push_back(memory("attention dropout backward", KernelClass::attention, 2 * y.S * y.w + y.S));
  out.push_back(memory("softmax backward", KernelClass::attention, 3 * y.S * y.w));
  out.push_back(memory("attention mask backward", KernelClass::attention, 2 * y.S * y.w));
  out.push_back(gemm("scores backward dQ = dS K", y.s, y.d, y.s, y.b * y.a, KernelClass::attention));
  out.push_back(gemm("scores backward dK = dS^T Q", y.s, y.d, y.s, y.b * y.a, KernelClass::attention));
}

/// The GeLU after FC1 (training.gelu). Fused: one kernel reading and writing T·f elements.
/// Unfused (Hugging Face's NewGELUActivation, 0.5·x·(1 + tanh(sqrt(2/pi)·(x + 0.044715·x³)))):
/// its eight operations in evaluation order, each reading its operands and writing its result;
/// FC1's bias is added by its GEMM (Conv1D's addmm).
void gelu_forward(std::vector<Kernel>& out, const Symbols& y) {
  const double E = y.T * y.f * y.w;  // one tensor of the FFN's width
  if (y.gelu == GeluKind::fused) {
    out.push_back(memory("bias + GeLU", KernelClass::elementwise, 2 * E));
    return;
  }
  for (const auto& [name, tensors] : {std::pair{"GeLU: 0.5 x", 2.0}, {"GeLU: x^3", 2.0}, {"GeLU: 0.044715 x^3", 2.0},
                                      {"GeLU: x + 0.044715 x^3", 3.0}, {"GeLU: sqrt(2/pi) (...)", 2.0},
                                      {"GeLU: tanh", 2.0}, {"GeLU: 1 + tanh", 2.0}, {"GeLU: 0.5 x (1 + tanh)", 3.0}})
    out.push_back(memory(name, KernelClass::elementwise, tensors * E));
}

/// The GeLU's backward. Fused: one kernel reading the gradient and the kept input, writing the
/// input's gradient. Unfused: autograd's kernels for the eight operations, last first: the
/// product's two gradients (g·(1 + tanh), g·0.5x), tanh's backward g·(1 - t²), the two
/// constant scalings, x³'s backward (x², 3x², g·3x²), the half's scaling, and two adds that
/// accumulate x's three gradients.
void gelu_backward(std::vector<Kernel>& out, const Symbols& y) {
  const double E = y.T * y.f * y.w;
  if (y.gelu == GeluKind::fused) {
    out.push_back(memory("bias + GeLU backward", KernelClass::elementwise, 3 * E));
    return;
  }
  for (const auto& [name, tensors] :
       {std::pair{"GeLU backward: g (1 + tanh)", 3.0}, {"GeLU backward: g 0.5 x", 3.0}, {"GeLU backward: tanh", 3.0},
        {"GeLU backward: sqrt(2/pi) g", 2.0}, {"GeLU backward: 0.044715 g", 2.0}, {"GeLU backward: x^2", 2.0},
        {"GeLU backward: 3 x^2", 2.0}, {"GeLU backward: g 3 x^2", 3.0}, {"GeLU backward: gradient accumulate", 3.0},
        {"GeLU backward: 0.5 g", 2.0}, {"GeLU backward: gradient accumulate", 3.0}})
    out.push_back(memory(name, KernelClass::elementwise, tensors * E));
}

void layer_norm_backward(std::vector<Kernel>& out, const Symbols& y, std::string_view name,
                         std::string_view weight_name) {
  out.push_back(memory(name, KernelClass::layer_norm, 3 * y.T * y.h * y.w));
  out.push_back(memory(weight_name, KernelClass::layer_norm, 2 * y.T * y.h * y.w));
}

std::vector<Kernel> forward(const Symbols& y, ComputeUse use) {
  const double Thw = y.T * y.h * y.w;
  std::vector<Kernel> out;
  switch (use) {
    case ComputeUse::embedding:
      out.push_back(memory("token embedding lookup", KernelClass::embedding, 2 * Thw + 8 * y.T));
      out.push_back(memory("position embedding add", KernelClass::embedding, 3 * Thw));
      if (y.dropout) out.push_back(memory("embedding dropout", KernelClass::embedding, 2 * Thw + y.T * y.h));
      break;
    case ComputeUse::qkv:
      out.push_back(memory("LayerNorm 1", KernelClass::layer_norm, 2 * Thw + 8 * y.T));
      out.push_back(gemm("QKV GEMM", y.T, 3 * y.h, y.h));
      attention_forward(out, y);
      break;
    case ComputeUse::out:
      out.push_back(gemm("output projection GEMM", y.T, y.h, y.h));
      out.push_back(residual_add(y));
      break;
    case ComputeUse::fc1:
      out.push_back(memory("LayerNorm 2", KernelClass::layer_norm, 2 * Thw + 8 * y.T));
      out.push_back(gemm("FC1 GEMM", y.T, y.f, y.h));
      gelu_forward(out, y);
      break;
    case ComputeUse::fc2:
      out.push_back(gemm("FC2 GEMM", y.T, y.h, y.f));
      out.push_back(residual_add(y));
      break;
    case ComputeUse::output: {
      const double TV = y.T * y.V;
      out.push_back(memory("final LayerNorm", KernelClass::layer_norm, 2 * Thw + 8 * y.T));
      out.push_back(gemm("logits GEMM", y.T, y.V, y.h));
      if (y.loss == CrossEntropyKind::torch) {
        out.push_back(memory("loss: log-softmax", KernelClass::loss, 3 * TV * y.w));
        out.push_back(memory("loss: target gather", KernelClass::loss, y.T * (y.w + 8)));
        break;
      }
      if (y.loss == CrossEntropyKind::fused) {
        out.push_back(memory("loss: fused cross entropy", KernelClass::loss, TV * y.w + 16 * y.T));
        break;
      }
      out.push_back(memory("logits to fp32", KernelClass::loss, TV * (y.w + 4)));
      out.push_back(memory("loss: max over vocabulary", KernelClass::loss, 4 * TV));
      out.push_back(memory("loss: subtract max", KernelClass::loss, 8 * TV));
      out.push_back(memory("loss: exp", KernelClass::loss, 8 * TV));
      out.push_back(memory("loss: sum over vocabulary", KernelClass::loss, 4 * TV));
      out.push_back(memory("loss: softmax divide", KernelClass::loss, 8 * TV));
      out.push_back(memory("loss: log and target gather", KernelClass::loss, 16 * y.T));
      break;
    }
  }
  return out;
}

std::vector<Kernel> backward(const Symbols& y, ComputeUse use) {
  const double Thw = y.T * y.h * y.w;
  std::vector<Kernel> out;
  switch (use) {
    case ComputeUse::output: {
      const double TV = y.T * y.V;
      // The turn from forward to backward: loss.float(), loss x scale, autograd's seed.
      for (const char* name : {"turn: loss to fp32", "turn: loss x scale", "turn: backward seed"})
        out.push_back(memory(name, KernelClass::loss, 8));
      switch (y.loss) {
        case CrossEntropyKind::megatron_fp32:
          out.push_back(memory("loss backward: subtract one-hot", KernelClass::loss, 16 * y.T));
          out.push_back(memory("loss backward: scale", KernelClass::loss, 8 * TV));
          out.push_back(memory("logits gradient to 16-bit", KernelClass::loss, TV * (4 + y.w)));
          break;
        case CrossEntropyKind::torch:
          out.push_back(memory("loss backward: target gradient", KernelClass::loss, TV * y.w + y.T * (y.w + 8)));
          out.push_back(memory("loss backward: log-softmax", KernelClass::loss, 3 * TV * y.w));
          break;
        case CrossEntropyKind::fused:
          out.push_back(memory("loss backward: fused cross entropy", KernelClass::loss, 2 * TV * y.w + 12 * y.T));
          break;
      }
      linear_backward(out, y, y.h, y.V, "logits dgrad", "logits wgrad");
      layer_norm_backward(out, y, "final LayerNorm backward", "final LayerNorm weight gradient");
      break;
    }
    case ComputeUse::fc2:
      if (y.dropout) out.push_back(memory("dropout backward", KernelClass::elementwise, 2 * Thw + y.T * y.h));
      out.push_back(memory("FC2 bias gradient", KernelClass::elementwise, Thw));
      linear_backward(out, y, y.f, y.h, "FC2 dgrad", "FC2 wgrad");
      break;
    case ComputeUse::fc1:
      gelu_backward(out, y);
      out.push_back(memory("FC1 bias gradient", KernelClass::elementwise, y.T * y.f * y.w));
      linear_backward(out, y, y.h, y.f, "FC1 dgrad", "FC1 wgrad");
      layer_norm_backward(out, y, "LayerNorm 2 backward", "LayerNorm 2 weight gradient");
      out.push_back(memory("residual gradient add", KernelClass::elementwise, 3 * Thw));
      break;
    case ComputeUse::out:
      if (y.dropout) out.push_back(memory("dropout backward", KernelClass::elementwise, 2 * Thw + y.T * y.h));
      out.push_back(memory("output projection bias gradient", KernelClass::elementwise, Thw));
      linear_backward(out, y, y.h, y.h, "output projection dgrad", "output projection wgrad");
      attention_backward(out, y);
      break;
    case ComputeUse::qkv:
      out.push_back(memory("QKV bias gradient", KernelClass::elementwise, 3 * Thw));
      linear_backward(out, y, y.h, 3 * y.h, "QKV dgrad", "QKV wgrad");
      layer_norm_backward(out, y, "LayerNorm 1 backward", "LayerNorm 1 weight gradient");
      out.push_back(memory("residual gradient add", KernelClass::elementwise, 3 * Thw));
      break;
    case ComputeUse::embedding:
      if (y.dropout) out.push_back(memory("embedding dropout backward", KernelClass::embedding, 2 * Thw + y.T * y.h));
      out.push_back(memory("position embedding gradient", KernelClass::embedding, Thw + y.s * y.h * y.w));
      out.push_back(memory("token embedding gradient: zero-fill", KernelClass::embedding, y.V * y.h * y.w));
      out.push_back(memory("token embedding gradient: scatter-add", KernelClass::embedding, Thw + 8 * y.T));
      out.push_back(memory("tied embedding gradient accumulate", KernelClass::embedding, 3 * y.V * y.h * y.w));
      break;
  }
  return out;
}

}  // namespace

const char* to_string(KernelClass c) {
  switch (c) {
    case KernelClass::gemm: return "GEMM";
    case KernelClass::attention: return "attention";
    case KernelClass::layer_norm: return "LayerNorm";
    case KernelClass::elementwise: return "bias, activation, dropout, residual";
    case KernelClass::loss: return "loss";
    case KernelClass::embedding: return "embedding";
  }
  return "";
}

const char* key_of(KernelClass c) {
  switch (c) {
    case KernelClass::gemm: return "gemm";
    case KernelClass::attention: return "attention";
    case KernelClass::layer_norm: return "layer_norm";
    case KernelClass::elementwise: return "elementwise";
    case KernelClass::loss: return "loss";
    case KernelClass::embedding: return "embedding";
  }
  return "";
}

const char* to_string(ComputeUse u) {
  switch (u) {
    case ComputeUse::embedding: return "embedding";
    case ComputeUse::qkv: return "qkv";
    case ComputeUse::out: return "out";
    case ComputeUse::fc1: return "fc1";
    case ComputeUse::fc2: return "fc2";
    case ComputeUse::output: return "output";
  }
  return "";
}

const char* to_string(Pass p) {
  switch (p) {
    case Pass::forward: return "forward";
    case Pass::recompute: return "recompute";
    case Pass::backward: return "backward";
  }
  return "";
}

std::vector<Kernel> use_kernels(const TransformerShape& shape, ComputeUse use, Pass pass) {
  const Symbols y = symbols(shape);
  switch (pass) {
    case Pass::forward: return forward(y, use);
    case Pass::recompute:
      if (use == ComputeUse::embedding || use == ComputeUse::output)
        throw std::logic_error("use_kernels: the embedding and output stages are not recomputed");
      return forward(y, use);
    case Pass::backward: return backward(y, use);
  }
  return {};
}

}  // namespace ckptsim
