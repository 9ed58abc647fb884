// Hostile configs: every field of every catalogue config replaced by hostile values. The import
// must either succeed or fail with a one-line error that names a field; nothing may crash, and a
// shape that imports must size without wrapping.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "kvscope/kv/kv_arithmetic.hpp"
#include "test_support.hpp"

namespace kvscope {
namespace {

using nlohmann::json;

const char* const kHostileValues[] = {"0",
                                      "-1",
                                      "1e300",
                                      "1.5",
                                      "18446744073709551615",
                                      "9223372036854775808",
                                      "\"32\"",
                                      "null",
                                      "[]",
                                      "{}",
                                      "true",
                                      "[1, 2, 3]",
                                      "\"<script>alert(1)</script>\"",
                                      "4294967296"};

void check_import(const std::string& text, const std::string& what) {
  const Result<ImportedModel> r = import_config(text);
  if (!r.ok) {
    ASSERT_FALSE(r.error.field.empty()) << what;
    ASSERT_EQ(r.error.message.rfind(r.error.field + ": ", 0), 0u)
        << what << ": " << r.error.message;
    ASSERT_EQ(r.error.message.find('\n'), std::string::npos) << what;
    ASSERT_EQ(r.error.message.find('<'), std::string::npos) << what;
    return;
  }
  const Result<Dtype> bf16 = parse_dtype("bf16", DtypeUse::kKv, "kv_dtype");
  const Result<KvEstimate> kv =
      kv_totals(r.value.shape, bf16.value, bf16.value, KvWorkload{4096, 8, 16, 100});
  if (!kv.ok) ASSERT_EQ(kv.error.code, kOutOfRange) << what << ": " << kv.error.message;
}

TEST(HostileConfigs, EveryFieldOfEveryCatalogueConfig) {
  size_t cases = 0;
  for (const ModelEntry& m : model_catalog()) {
    const json config = json::parse(m.config_json);
    std::vector<std::pair<std::string, std::string>> paths;  // (object key, field)
    for (const auto& item : config.items()) paths.emplace_back("", item.key());
    if (config.contains("text_config")) {
      for (const auto& item : config["text_config"].items())
        paths.emplace_back("text_config", item.key());
    }
    for (const auto& [parent, key] : paths) {
      for (const char* value : kHostileValues) {
        json mutated = config;
        json& target = parent.empty() ? mutated : mutated[parent];
        target[key] = json::parse(value);
        check_import(mutated.dump(), m.id + " " + parent + "." + key + "=" + value);
        ++cases;
        json removed = config;
        (parent.empty() ? removed : removed[parent]).erase(key);
        check_import(removed.dump(), m.id + " without " + parent + "." + key);
      }
    }
  }
  EXPECT_GT(cases, 5000u);
}

TEST(HostileConfigs, TruncatedDocuments) {
  const std::string text = find_model("deepseek-v3").value.config_json;
  for (size_t n = 0; n < text.size(); n += 7)
    check_import(text.substr(0, n), "prefix " + std::to_string(n));
}

}  // namespace
}  // namespace kvscope
