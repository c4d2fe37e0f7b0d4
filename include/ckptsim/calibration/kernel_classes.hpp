#pragma once
// The classes GPU work of a profiler trace is grouped into, by kernel name, in one table
// (kernel_classes.cpp) for the importer, calibrate and validate. The compute classes are the
// kernel compute model's own (workload/kernels.hpp, KernelClass, named by key_of), so a
// profiled job's time per class and the model's prediction per class line up; three more
// classes hold the GPU work the kernel model does not time per kernel. The first rule that
// matches wins (case-insensitive substrings of the kernel name):
//   nccl         "nccl", "rccl", "msccl"                           (collectives and send/receive; RCCL,
//                                                                  AMD's NCCL, keeps NCCL's kernel names)
//   gemm         "gemm", "cutlass", "xmma", "cublas", "matmul",    (dense matrix multiplications;
//                "cijk_"                                           Cijk_*: AMD Tensile / hipBLASLt)
//   attention    "flash", "fmha", "attention", "sdpa"              (fused attention kernels)
//   layer_norm   "layer_norm", "layernorm", "rms_norm", "rmsnorm"
//   loss         "cross_entropy", "nll_loss", "log_softmax"
//   embedding    "embedding", "index_select", "indexselect"
//   optimizer    "adam", "multi_tensor_apply", "sgd", "lamb_"      (the optimizer step: DeepSpeed's
//                                                                  step phases, step_phases.hpp;
//                                                                  "lamb_" so that "lambda" is not)
//   elementwise  "elementwise", "vectorized", "reduce_kernel", "softmax", "dropout", "gelu",
//                "index", "cat", "copy"                            (bias, activation, dropout, residual)
//   other        anything else
// Memory copies and sets (trace categories gpu_memcpy, gpu_memset) are their own classes:
// "memcpy DtoH", "memcpy HtoD", "memcpy DtoD", "memcpy other" and "memset".
// NCCL kernels also have a collective: the trace's "Collective name" arg (PyTorch >= 2.3's
// Kineto) or the name after "ncclKernel_" / "ncclDevKernel_" / "ncclDevKernelDebug_" (AllReduce,
// AllGather, ReduceScatter, SendRecv, Broadcast, ...), normalized to lower case without "_";
// "" when the name says none: the generic kernel of NCCL >= 2.19 and RCCL
// ("ncclDevKernel_Generic", "ncclDevKernel_Generic_4") and MSCCL's "mscclKernel_<redop>_...".
#include <optional>
#include <string>
#include <string_view>

#include "ckptsim/workload/kernels.hpp"

namespace ckptsim {

std::string kernel_class(std::string_view kernel_name);

/// The kernel model's class of a class name kernel_class gives; nullopt for nccl, optimizer,
/// other, memcpy and memset.
std::optional<KernelClass> model_kernel_class(std::string_view class_name);

/// "allreduce", "allgather", "reducescatter", "sendrecv", "broadcast", ... of an NCCL kernel
/// (from its "Collective name" when given, else its name); "" when neither says.
std::string nccl_collective(std::string_view kernel_name, std::string_view collective_arg);

}  // namespace ckptsim
