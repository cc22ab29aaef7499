// bench/kernel_table.cpp: prints the CPU EP's kernel table as JSON, one entry per line, for
// bench/op_bench.py, so that the op-level benchmark covers every kernel the table registers
// (a new kernel shows up there without anyone listing it).
//
//   nxrt_kernel_table
//   {"domain":"","op":"Add","since":14,"until":null,"types":[{"name":"T","inputs":[0,1],
//    "outputs":[0],"variadic_from":-1,"dtypes":["uint8",...]}]}
//
// `until` is null for an entry that covers every later opset. The order is the registry's
// (domain, op type, since version, registration order). Exit 1 when the table fails to build.
#include <cstdio>
#include <string>
#include <vector>

#include "ep/cpu/cpu_execution_provider.h"
#include "ep/op_registry.h"
#include "nxrt/data_type.h"

namespace {

std::string Ints(const std::vector<int>& values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(values[i]);
  }
  return out + "]";
}

}  // namespace

int main() {
  nxrt::cpu::CpuExecutionProvider cpu;
  if (nxrt::Status status = cpu.Initialize({}); !status.ok()) {
    std::fprintf(stderr, "nxrt_kernel_table: the CPU EP's table failed: %s\n",
                 status.ToString().c_str());
    return 1;
  }
  for (const nxrt::ep::KernelDef* def : cpu.registry().Entries()) {
    std::string line = "{\"domain\":\"" + def->domain + "\",\"op\":\"" + def->op_type +
                       "\",\"since\":" + std::to_string(def->since_version) + ",\"until\":" +
                       (def->until_version == nxrt::ep::kLatestOpset
                            ? std::string("null")
                            : std::to_string(def->until_version)) +
                       ",\"types\":[";
    for (size_t t = 0; t < def->types.size(); ++t) {
      const nxrt::ep::TypeConstraint& c = def->types[t];
      if (t) line += ",";
      line += "{\"name\":\"" + c.name + "\",\"inputs\":" + Ints(c.inputs) +
              ",\"outputs\":" + Ints(c.outputs) +
              ",\"variadic_from\":" + std::to_string(c.variadic_inputs_from) + ",\"dtypes\":[";
      for (size_t d = 0; d < c.allowed.size(); ++d) {
        if (d) line += ",";
        line += "\"" + std::string(nxrt::DataTypeName(c.allowed[d])) + "\"";
      }
      line += "]}";
    }
    line += "]}";
    std::puts(line.c_str());
  }
  return 0;
}
