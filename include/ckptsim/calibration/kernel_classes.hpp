#pragma once
// The classes GPU work of a profiler trace is grouped into, by kernel name, in one table
// (kernel_classes.cpp) for the importer, calibrate and validate. The first rule that matches
// wins (case-insensitive substrings of the kernel name):
//   nccl         "nccl"                                            (collectives and send/receive)
//   gemm         "gemm", "cutlass", "xmma", "cublas", "matmul"     (dense matrix multiplications)
//   attention    "flash", "fmha", "attention", "sdpa"
//   norm         "layer_norm", "layernorm", "rms_norm", "rmsnorm", "batch_norm", "group_norm"
//   optimizer    "adam", "multi_tensor_apply", "sgd", "lamb"
//   elementwise  "elementwise", "vectorized", "reduce_kernel", "softmax", "index", "cat", "copy"
//   other        anything else
// Memory copies and sets (trace categories gpu_memcpy, gpu_memset) are their own classes:
// "memcpy DtoH", "memcpy HtoD", "memcpy DtoD", "memcpy other" and "memset".
// NCCL kernels also have a collective: the trace's "Collective name" arg (PyTorch >= 2.3's
// Kineto) or the name after "ncclKernel_" / "ncclDevKernel_" (AllReduce, AllGather,
// ReduceScatter, SendRecv, Broadcast, ...), normalized to lower case without "_".
#include <string>
#include <string_view>

namespace ckptsim {

std::string kernel_class(std::string_view kernel_name);

/// "allreduce", "allgather", "reducescatter", "sendrecv", "broadcast", ... of an NCCL kernel
/// (from its "Collective name" when given, else its name); "" when neither says.
std::string nccl_collective(std::string_view kernel_name, std::string_view collective_arg);

}  // namespace ckptsim
