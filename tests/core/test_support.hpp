// Shared helpers for the core tests: fixture loading and imports that must succeed.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

#include "kvscope/model/catalog.hpp"
#include "kvscope/model/config_import.hpp"
#include "kvscope/model/dtype.hpp"
#include "kvscope/plan/plan.hpp"

namespace kvscope::test {

// A file under tests/data/ ("real-configs/qwen__qwen3.5-4b.json").
inline std::string read_data(const std::string& path) {
  std::ifstream in(std::string(KVSCOPE_TEST_DATA_DIR) + "/" + path, std::ios::binary);
  EXPECT_TRUE(in.good()) << "missing test data " << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline std::string read_fixture(const std::string& name) { return read_data("configs/" + name); }

inline ImportedModel import_ok(const std::string& json_text) {
  Result<ImportedModel> r = import_config(json_text);
  EXPECT_TRUE(r.ok) << r.error.message;
  return r.value;
}

// A real config.json copied verbatim into tests/data/real-configs/ (SOURCES.md says from where).
inline ModelShape real_config(const std::string& name) {
  return import_ok(read_data("real-configs/" + name)).shape;
}

inline ImportedModel import_fixture(const std::string& name) {
  return import_ok(read_fixture(name));
}

inline ModelShape catalog_shape(const std::string& id) {
  const Result<ModelEntry> entry = find_model(id);
  EXPECT_TRUE(entry.ok) << entry.error.message;
  return import_ok(entry.value.config_json).shape;
}

inline Dtype kv_dtype(const std::string& name) {
  Result<Dtype> d = parse_dtype(name, DtypeUse::kKv, "kv_dtype");
  EXPECT_TRUE(d.ok) << d.error.message;
  return d.value;
}

inline Dtype weight_dtype(const std::string& name) {
  Result<Dtype> d = parse_dtype(name, DtypeUse::kWeight, "weight_dtype");
  EXPECT_TRUE(d.ok) << d.error.message;
  return d.value;
}

inline PlanReport plan_ok(const PlanInput& in) {
  const Result<PlanReport> r = plan(in);
  EXPECT_TRUE(r.ok) << r.error.message;
  return r.value;
}

// How many of a shape's layers have this attention kind.
inline size_t count_kind(const ModelShape& s, AttentionKind kind) {
  size_t n = 0;
  for (const LayerSpec& l : s.layers) n += l.attention == kind ? 1 : 0;
  return n;
}

inline bool has_assumption(const ImportedModel& m, const std::string& needle) {
  for (const std::string& a : m.assumptions) {
    if (a.find(needle) != std::string::npos) return true;
  }
  return false;
}

}  // namespace kvscope::test
