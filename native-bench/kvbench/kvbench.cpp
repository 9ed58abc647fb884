// kvbench: builds a paged KV cache for a model's attention layers, checks the kernel against the
// fp64 reference, times it, measures the machine's read bandwidth in the same run, and prints one
// kvscope.measured/1 record with its provenance. Shapes and the estimate come from the core. Its
// stages, each in its own file: arguments (bench_args), problem (bench_problem), check
// (bench_check), timing (bench_timing), machine (bench_machine) and record (bench_record).
#include "kvbench.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <memory>

#include "bench_args.hpp"
#include "bench_check.hpp"
#include "bench_machine.hpp"
#include "bench_problem.hpp"
#include "bench_record.hpp"
#include "bench_timing.hpp"
#include "decode_attention.hpp"
#include "kvscope/model/catalog.hpp"
#include "kvscope/base/error.hpp"

#ifdef KVBENCH_WITH_CUDA
#include "decode_attention_cuda.hpp"
#endif

namespace kvbench {
namespace {

using nlohmann::ordered_json;

// A --cpu-kernel this CPU cannot run for the KV type, named with the paths it can.
std::optional<Usage> unsupported_kernel(CpuKernel kernel, KvType type) {
  const std::vector<CpuKernel> paths = supported_cpu_kernels(type);
  if (std::find(paths.begin(), paths.end(), kernel) != paths.end()) return std::nullopt;
  std::string names;
  for (CpuKernel k : paths) names += std::string(names.empty() ? "" : ", ") + cpu_kernel_name(k);
  return Usage{"--cpu-kernel", std::string("this CPU cannot run the ") + cpu_kernel_name(kernel) +
                                   " path for " + kv_type_name(type) + " KV (it runs: " + names +
                                   ")"};
}

int fail(std::ostream& err, const Usage& u) {
  err << "kvbench: error: " << u.field << ": " << u.message << "\n";
  return 2;
}

}  // namespace

int run(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  BenchArgs a;
  if (auto u = parse_bench_args(args, a)) return fail(err, *u);
  if (a.help) {
    out << kUsage;
    return args.empty() ? 2 : 0;
  }
  Problem p;
  if (auto u = make_problem(a, p)) return fail(err, *u);
  const CpuKernel kernel = a.cpu_kernel.value_or(best_cpu_kernel(p.kv_type));
  if (auto u = unsupported_kernel(kernel, p.kv_type)) return fail(err, *u);
  std::vector<PagedKv> caches = build_caches(p, a);
  std::vector<std::vector<float>> outputs;
  for (const PagedKv& c : caches)
    outputs.emplace_back(c.lengths.size() * p.q_heads * c.shape.head_dim, std::nanf(""));

  // The step on the chosen device.
  const CpuPlan plan{static_cast<uint32_t>(a.threads), 0, kernel, a.cpu_walk};
  std::function<void()> step;
#ifdef KVBENCH_WITH_CUDA
  std::unique_ptr<CudaDecode> gpu;
#endif
  if (a.device == "cpu") {
    step = [&] {
      for (size_t i = 0; i < caches.size(); ++i)
        decode_attention_cpu(caches[i], plan, outputs[i].data());
    };
  } else {
#ifdef KVBENCH_WITH_CUDA
    std::string why;
    gpu = CudaDecode::create(caches, why);
    if (!gpu) return fail(err, {"--device", why});
    step = [&] {
      gpu->run();
      gpu->synchronize();
    };
#else
    return fail(err,
                {"--device", "this kvbench was built without CUDA (no nvcc at configure time)"});
#endif
  }
  step();  // the checked run: outputs were NaN before it
#ifdef KVBENCH_WITH_CUDA
  if (gpu) gpu->copy_outputs(outputs);
#endif
  const Correctness check = check_outputs(caches, outputs, p.q_heads);
  const Timing timing = time_runs(step);

  uint64_t bytes = 0;
  for (const PagedKv& c : caches) bytes += c.bytes_moved();
  Machine machine;
  if (a.device == "cpu")
    machine = measure_cpu(caches, a.threads, bytes, timing.quantile(0.5), kernel, a.cpu_walk, step);
#ifdef KVBENCH_WITH_CUDA
  else {
    machine.device_json = gpu->device_json();
    machine.bandwidth = CudaDecode::measure_read_bandwidth(machine.bandwidth_json);
    // The kvscope catalogue entry of this GPU, so the page can set the record beside its plans.
    const std::string name = machine.device_json["name"].get<std::string>();
    for (const kvscope::GpuEntry& g : kvscope::gpu_catalog()) {
      if (g.name.rfind(name, 0) == 0) {
        machine.device_json["catalogue_id"] = g.id;
        break;
      }
    }
  }
#endif

  const ordered_json j =
      make_record(args, a, p, timing, machine, bytes, estimated_kv_bytes(p), check);
  const std::string text =
      j.dump(2, ' ', false, ordered_json::error_handler_t::replace);  // args may be any bytes
  if (!a.out_path.empty()) {
    std::ofstream file(a.out_path);
    if (!file) return fail(err, {"--out", "cannot write " + kvscope::quote_user_text(a.out_path)});
    file << text << "\n";
  }
  out << (a.json ? text + "\n" : summary(j));
  if (!check.pass) {
    err << "kvbench: error: correctness: the kernel differs from the fp64 reference (max abs error "
        << check.max_abs << ")\n";
    return 1;
  }
  return 0;
}

}  // namespace kvbench
