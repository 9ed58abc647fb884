// The catalogues as JSON: kvscope.models/1, kvscope.gpus/1, kvscope.dtypes/1, kvscope.engines/1.
#include "json_writing.hpp"
#include "kvscope/catalog.hpp"
#include "kvscope/engines.hpp"
#include "kvscope/report_json.hpp"

namespace kvscope {

std::string model_catalog_to_json() {
  ordered_json list = ordered_json::array();
  for (const ModelEntry& m : model_catalog()) {
    list.push_back(ordered_json{{"id", m.id},
                                {"name", m.name},
                                {"family", m.family},
                                {"hf_id", m.hf_id},
                                {"aliases", m.aliases},
                                {"source", m.source},
                                {"config", ordered_json::parse(std::string_view(m.config_json), nullptr, false)}});
  }
  return dump(ordered_json{{"schema", "kvscope.models/1"}, {"models", list}});
}

std::string gpu_catalog_to_json() {
  ordered_json list = ordered_json::array();
  for (const GpuEntry& g : gpu_catalog()) {
    list.push_back(ordered_json{
        {"id", g.id},
        {"name", g.name},
        {"vendor", g.vendor},
        {"memory_marketed", g.memory_marketed},
        {"memory_bytes", g.memory_bytes},
        {"memory_bytes_source", g.memory_bytes_source},
        {"bandwidth_bytes_per_s", g.bandwidth_bytes_per_s},
        {"bf16_dense_flops",
         g.bf16_dense_flops == 0 ? ordered_json(nullptr) : ordered_json(g.bf16_dense_flops)},
        {"fp8_dense_flops",
         g.fp8_dense_flops == 0 ? ordered_json(nullptr) : ordered_json(g.fp8_dense_flops)},
        {"source", g.source}});
  }
  return dump(ordered_json{{"schema", "kvscope.gpus/1"}, {"gpus", list}});
}

std::string dtype_catalog_to_json() {
  ordered_json j{{"schema", "kvscope.dtypes/1"}};
  for (const DtypeUse use : {DtypeUse::kKv, DtypeUse::kWeight}) {
    ordered_json list = ordered_json::array();
    for (const Dtype& d : list_dtypes(use)) list.push_back(dtype_json(d));
    j[use == DtypeUse::kKv ? "kv" : "weight"] = std::move(list);
  }
  return dump(j);
}

std::string engine_catalog_to_json() {
  ordered_json engines = ordered_json::array();
  for (const EngineInfo& e : engine_catalog()) {
    ordered_json levers = ordered_json::array();
    for (const EngineLever& l : e.levers) {
      ordered_json lever{{"key", l.key}, {"label", l.label}, {"short_label", l.short_label}};
      if (l.step != 0) {
        lever["step"] = l.step;
        lever["from"] = l.from;
      } else {
        lever["value"] = l.value;
      }
      levers.push_back(std::move(lever));
    }
    engines.push_back(
        ordered_json{{"id", e.id},
                     {"label", e.label},
                     {"options_key",
                      e.options_key.empty() ? ordered_json(nullptr) : ordered_json(e.options_key)},
                     {"workload", e.workload},
                     {"knobs", e.knobs},
                     {"levers", std::move(levers)},
                     {"launches", e.launches}});
  }
  return dump(ordered_json{{"schema", "kvscope.engines/1"}, {"engines", std::move(engines)}});
}

}  // namespace kvscope
