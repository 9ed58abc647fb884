// The catalogues as JSON: kvscope.models/1, kvscope.gpus/1, kvscope.dtypes/1, kvscope.engines/1.
#include "request/report_writing.hpp"
#include "kvscope/model/catalog.hpp"
#include "kvscope/engines/engine_catalog.hpp"
#include "kvscope/request/report_json.hpp"

namespace kvscope {

namespace {

// {"schema": ..., "<list>": [ — the caller writes the entries and calls end_catalog.
void begin_catalog(JsonWriter& w, const char* schema, const char* list) {
  w.begin_object();
  w.field("schema", schema);
  w.key(list).begin_array();
}

std::string end_catalog(JsonWriter& w) {
  w.end_array();
  w.end_object();
  return w.take();
}

}  // namespace

std::string model_catalog_to_json() {
  JsonWriter w;
  begin_catalog(w, "kvscope.models/1", "models");
  for (const ModelEntry& m : model_catalog()) {
    w.begin_object();
    w.field("id", m.id);
    w.field("name", m.name);
    w.field("family", m.family);
    w.field("hf_id", m.hf_id);
    w.field("serve_id", m.served_id());
    w.field("aliases", m.aliases);
    w.field("source", m.source);
    w.end_object();
  }
  return end_catalog(w);
}

std::string gpu_catalog_to_json() {
  JsonWriter w;
  begin_catalog(w, "kvscope.gpus/1", "gpus");
  for (const GpuEntry& g : gpu_catalog()) {
    w.begin_object();
    w.field("id", g.id);
    w.field("name", g.name);
    w.field("vendor", g.vendor);
    w.field("device_class", g.device_class);
    w.field("compute_capability", g.compute_capability);
    w.field("memory_marketed", g.memory_marketed);
    w.field("memory_bytes", g.memory_bytes);
    w.field("memory_bytes_source", g.memory_bytes_source);
    w.field("bandwidth_bytes_per_s", g.bandwidth_bytes_per_s);
    w.field_or_null("bf16_dense_flops", g.bf16_dense_flops != 0, g.bf16_dense_flops);
    w.field_or_null("fp8_dense_flops", g.fp8_dense_flops != 0, g.fp8_dense_flops);
    w.field_or_null("fp16_dense_flops", g.fp16_dense_flops != 0, g.fp16_dense_flops);
    w.field("source", g.source);
    w.field_or_null("usd_per_gpu_hour", g.usd_per_hour > 0, g.usd_per_hour);
    w.field_or_null("price_source", g.usd_per_hour > 0, g.price_source);
    w.end_object();
  }
  return end_catalog(w);
}

std::string dtype_catalog_to_json() {
  JsonWriter w;
  w.begin_object();
  w.field("schema", "kvscope.dtypes/1");
  for (const DtypeUse use : {DtypeUse::kKv, DtypeUse::kWeight}) {
    w.key(use == DtypeUse::kKv ? "kv" : "weight").begin_array();
    for (const Dtype& d : list_dtypes(use)) write_dtype(w, d);
    w.end_array();
  }
  w.end_object();
  return w.take();
}

std::string engine_catalog_to_json() {
  JsonWriter w;
  begin_catalog(w, "kvscope.engines/1", "engines");
  for (const EngineInfo& e : engine_catalog()) {
    w.begin_object();
    w.field("id", e.id);
    w.field("label", e.label);
    w.field_or_null("options_key", !e.options_key.empty(), e.options_key);
    w.field("workload", e.workload);
    w.field("knobs", e.knobs);
    w.field("calibration", e.calibration);
    w.key("levers").begin_array();
    for (const EngineLever& l : e.levers) {
      w.begin_object();
      w.field("key", l.key);
      w.field("label", l.label);
      w.field("short_label", l.short_label);
      if (l.step != 0) {
        w.field("step", l.step);
        w.field("from", l.from);
      } else {
        w.field("value", l.value);
      }
      w.end_object();
    }
    w.end_array();
    w.field("launches", e.launches);
    w.field("kv_dtype_choices", e.kv_dtype_choices);
    w.field("load_time_weight_dtypes", e.load_time_weight_dtypes);
    w.field("checkpoint_methods", e.checkpoint_methods);
    w.field("one_server", e.one_server);
    w.key("versions").begin_array();
    for (const EngineVersion& v : e.versions) {  // newest first; the newest is the default
      w.begin_object();
      w.field("id", v.id);
      w.field("label", v.label);
      w.field("releases", v.releases);
      w.field("differs", v.differs);
      w.field("default", &v == &e.versions.front());
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  return end_catalog(w);
}

}  // namespace kvscope
