// The report and catalogue writers print text as they go; what they print must be what nlohmann's
// dump prints for the same document (the format every golden file and script reads): parsing and
// dumping it again changes nothing, for every engine, hostile names and every catalogue.
#include "kvscope/request/report_json.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace kvscope {
namespace {

void expect_as_nlohmann_prints(const std::string& text) {
  const auto parsed = nlohmann::ordered_json::parse(text, nullptr, false);
  ASSERT_FALSE(parsed.is_discarded()) << text.substr(0, 400);
  EXPECT_EQ(parsed.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace), text);
}

TEST(ReportJson, PlansPrintAsNlohmannDumps) {
  for (const char* engine : {"plain", "vllm", "sglang", "tensorrt-llm", "llama.cpp"}) {
    for (const char* model : {"llama-3.1-8b", "deepseek-v3", "gemma-3-27b", "gpt-oss-120b"}) {
      PlanInput in;
      in.model.model_id = model;
      in.model.context_tokens = 32768;
      in.model.batch = 4;
      in.engine = engine;
      in.gpu_id = "h200-sxm-141gb";
      in.gpus = 8;
      if (std::string(engine) != "llama.cpp") in.tensor_parallel = 8;
      in.prompt_lengths = "lognormal:mean=2000,p99=16000";
      in.output_lengths = "512";
      const PlanReport p = test::plan_ok(in);
      SCOPED_TRACE(std::string(engine) + " " + model);
      expect_as_nlohmann_prints(plan_to_json(p));
      expect_as_nlohmann_prints(report_to_json(p.estimate));
    }
  }
}

TEST(ReportJson, HostileTextIsEscapedAsNlohmannEscapesIt) {
  // Quotes, backslashes, control characters, markup, valid and invalid UTF-8 in the config's name.
  EstimateInput in;
  in.config_json = test::read_fixture("llama2_mha_no_kv_heads.json");
  in.config_name = std::string("a\"b\\c\n\t\x01<x>\xc3\xa9\xff\xe2\x82 end");
  const Result<EstimateReport> r = estimate(in);
  ASSERT_TRUE(r.ok) << r.error.message;
  const std::string text = report_to_json(r.value);
  expect_as_nlohmann_prints(text);
  EXPECT_NE(text.find(R"("a\"b\\c\n\t\u0001<x>é)"), std::string::npos) << text.substr(0, 600);
  expect_as_nlohmann_prints(error_to_json(make_error(kInvalidValue, "x\"y", "\xff bad")));
}

TEST(ReportJson, CataloguesPrintAsNlohmannDumps) {
  for (const std::string& text : {model_catalog_to_json(), gpu_catalog_to_json(),
                                  dtype_catalog_to_json(), engine_catalog_to_json()}) {
    expect_as_nlohmann_prints(text);
  }
}

}  // namespace
}  // namespace kvscope
