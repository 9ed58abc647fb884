// Reads the compiled-in catalogue JSON once.
#include "kvscope/model/catalog.hpp"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <nlohmann/json.hpp>

#include "model/catalog_data.hpp"
#include "base/json_text.hpp"
#include "base/spelling.hpp"

namespace kvscope {
namespace {

using json = nlohmann::ordered_json;  // one JSON type in the core: readers keep document order too

std::string text_of(const json& obj, const char* key) {
  return obj.contains(key) && obj[key].is_string() ? obj[key].get<std::string>() : std::string();
}

uint64_t count_of(const json& obj, const char* key) {
  return obj.contains(key) && obj[key].is_number_unsigned() ? obj[key].get<uint64_t>() : 0;
}

double rate_of(const json& obj, const char* key) {
  return obj.contains(key) && obj[key].is_number() ? obj[key].get<double>() : 0.0;
}

// The names a user may type for an entry, lowercased: its id, and for models the Hugging Face
// id, the repository part of it, and the display name ("qwen/qwen3-32b", "qwen3-32b", "qwen3 32b").
std::vector<std::string> spellings(const ModelEntry& e) {
  std::vector<std::string> out = {e.id, lowercase(e.name)};
  std::vector<std::string> repos = e.aliases;
  repos.push_back(e.hf_id);
  if (!e.serve_id.empty()) repos.push_back(e.serve_id);
  for (const std::string& repo : repos) {
    out.push_back(lowercase(repo));
    const size_t slash = repo.find('/');
    if (slash != std::string::npos) out.push_back(lowercase(repo.substr(slash + 1)));
  }
  return out;
}
std::vector<std::string> spellings(const GpuEntry& e) { return {e.id, lowercase(e.name)}; }

// Up to three ids close to the request (by any of their spellings), to suggest in an error.
template <typename Entry>
std::string suggestions(const std::vector<Entry>& entries, const std::string& wanted) {
  std::vector<std::string> ids;
  std::vector<std::vector<std::string>> other;
  for (const Entry& e : entries) {
    ids.push_back(e.id);
    other.push_back(spellings(e));
  }
  return closest_names(ids, other, wanted);
}

template <typename Entry>
Result<Entry> find_entry(const std::vector<Entry>& entries, std::string_view id, const char* field,
                         const char* list_command) {
  const std::string wanted = lowercase(id);
  for (const Entry& e : entries) {
    if (e.id == wanted) return Result<Entry>::success(e);
  }
  for (const Entry& e : entries) {
    for (const std::string& spelling : spellings(e)) {
      if (!spelling.empty() && spelling == wanted) return Result<Entry>::success(e);
    }
  }
  std::string detail = "unknown id " + quote_user_text(id);
  const std::string close = suggestions(entries, wanted);
  detail += close.empty() ? std::string(" (") + list_command + " lists them)"
                          : " (did you mean " + close + "?)";
  return Result<Entry>::failure(make_error(kUnknownId, field, detail));
}

// The entries of doc[key], each read by `read`; none when the key is missing.
template <typename Entry, typename Read>
std::vector<Entry> read_entries(const json& doc, const char* key, Read&& read) {
  std::vector<Entry> out;
  if (!doc.is_object() || !doc.contains(key)) return out;
  for (const json& e : doc[key]) out.push_back(read(e));
  return out;
}

// models.json with each entry's "config" object replaced by its ordinal, and the objects' texts.
// The configs are three quarters of the catalogue: the lookup parses the rest, and a config is
// parsed only by the plan that uses it (import_config), not parsed and written back for each.
struct CutConfigs {
  std::string rest;
  std::vector<std::string_view> configs;
};

// The end of the JSON object or array that starts at `at` (strings may hold brackets).
size_t end_of_value(std::string_view text, size_t at) {
  int depth = 0;
  bool in_string = false;
  for (size_t i = at; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++depth;
    } else if ((c == '}' || c == ']') && --depth == 0) {
      return i + 1;
    }
  }
  return text.size();
}

CutConfigs cut_configs(std::string_view text) {
  constexpr std::string_view kKey = "\"config\":";
  CutConfigs out;
  size_t copied = 0;
  for (size_t key = text.find(kKey); key != std::string_view::npos;
       key = text.find(kKey, key + kKey.size())) {
    if (key < copied) continue;  // a key inside a config already cut out
    const size_t start = text.find_first_not_of(" ", key + kKey.size());
    if (start == std::string_view::npos || text[start] != '{') continue;  // left in the JSON
    const size_t end = end_of_value(text, start);
    out.rest.append(text.substr(copied, start - copied)).append(std::to_string(out.configs.size()));
    out.configs.push_back(text.substr(start, end - start));
    copied = end;
  }
  out.rest.append(text.substr(copied));
  return out;
}

// gpus.json, parsed once for the GPUs and their class's decode measurements.
const json& gpus_document() {
  static const json doc = parse_json(data::kGpusJson);
  return doc;
}

}  // namespace

const std::vector<ModelEntry>& model_catalog() {
  static const std::vector<ModelEntry> entries = [] {
    const CutConfigs cut = cut_configs(data::kModelsJson);
    return read_entries<ModelEntry>(
        parse_json(cut.rest), "models", [&](const json& m) {
          std::vector<std::string> aliases;
          if (m.contains("aliases") && m["aliases"].is_array()) {
            for (const json& a : m["aliases"]) {
              if (a.is_string()) aliases.push_back(a.get<std::string>());
            }
          }
          // The ordinal of its cut-out text; a config that was not an object is still in the JSON.
          const bool cut_out = m.contains("config") && m["config"].is_number_unsigned();
          const uint64_t config = count_of(m, "config");
          return ModelEntry{text_of(m, "id"),
                            text_of(m, "name"),
                            text_of(m, "family"),
                            text_of(m, "hf_id"),
                            text_of(m, "serve_id"),
                            aliases,
                            text_of(m, "source"),
                            count_of(m, "params_published"),
                            count_of(m, "active_params_published"),
                            cut_out && config < cut.configs.size()
                                ? std::string(cut.configs[static_cast<size_t>(config)])
                                : (m.contains("config") ? m["config"].dump() : "{}"),
                            text_of(m, "base_model")};
        });
  }();
  return entries;
}

const std::vector<GpuEntry>& gpu_catalog() {
  static const std::vector<GpuEntry> entries =
      read_entries<GpuEntry>(gpus_document(), "gpus", [](const json& g) {
        return GpuEntry{text_of(g, "id"),
                        text_of(g, "name"),
                        text_of(g, "vendor"),
                        text_of(g, "device_class"),
                        text_of(g, "compute_capability"),
                        text_of(g, "memory_marketed"),
                        count_of(g, "memory_bytes"),
                        text_of(g, "memory_bytes_source"),
                        count_of(g, "bandwidth_bytes_per_s"),
                        rate_of(g, "bf16_dense_flops"),
                        rate_of(g, "fp8_dense_flops"),
                        rate_of(g, "fp16_dense_flops"),
                        text_of(g, "source"),
                        g.contains("price") ? rate_of(g["price"], "usd_per_gpu_hour") : 0,
                        g.contains("price") ? text_of(g["price"], "source") : ""};
      });
  return entries;
}

const std::vector<DecodeEfficiencyAnchor>& decode_efficiency_anchors() {
  static const std::vector<DecodeEfficiencyAnchor> anchors =
      read_entries<DecodeEfficiencyAnchor>(gpus_document(), "decode_efficiency", [](const json& a) {
        return DecodeEfficiencyAnchor{text_of(a, "device_class"),
                                      text_of(a, "kv_dtype"),
                                      count_of(a, "batch"),
                                      count_of(a, "context"),
                                      rate_of(a, "achieved_bytes_per_s"),
                                      rate_of(a, "datasheet_bytes_per_s"),
                                      text_of(a, "measured_on"),
                                      text_of(a, "kernel"),
                                      text_of(a, "source")};
      });
  return anchors;
}

Result<ModelEntry> find_model(std::string_view id) {
  return find_entry(model_catalog(), id, "model", "kvscope models");
}

Result<GpuEntry> find_gpu(std::string_view id) {
  return find_entry(gpu_catalog(), id, "gpu", "kvscope gpus");
}

namespace {

// A model name reduced to what identifies it: letters, digits and points of its last path part,
// without the words that name a release's packaging rather than its weights.
std::string identity_of(std::string_view name) {
  std::string s = lowercase(name.substr(std::min(name.size(), name.find_last_of('/') + 1)));
  if (s.size() > 5 && s.compare(s.size() - 5, 5, ".gguf") == 0) s.resize(s.size() - 5);
  std::string out, word;
  const auto flush = [&] {
    static const std::vector<std::string> packaging = {"meta", "instruct", "chat", "it",   "hf",
                                                       "base", "gguf",     "f16",  "bf16", "fp16"};
    const auto digit = [&](size_t i) {
      return i < word.size() && std::isdigit(static_cast<unsigned char>(word[i])) != 0;
    };
    const bool quant_tag = (word[0] == 'q' && digit(1)) || (word.rfind("iq", 0) == 0 && digit(2));
    if (!quant_tag && std::find(packaging.begin(), packaging.end(), word) == packaging.end())
      out += word;
    word.clear();
  };
  for (char c : s) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_') {
      word += c;  // q4_k_m is one word
    } else if (!word.empty()) {
      flush();
    }
  }
  if (!word.empty()) flush();
  return out;
}

}  // namespace

Result<ModelEntry> identify_model(std::string_view printed) {
  Result<ModelEntry> exact = find_model(printed);
  if (exact.ok || printed.empty()) return exact;
  const std::string wanted = identity_of(printed);
  std::vector<const ModelEntry*> found;
  for (const ModelEntry& e : model_catalog()) {
    for (const std::string& spelling : spellings(e)) {
      if (!wanted.empty() && identity_of(spelling) == wanted) {
        found.push_back(&e);
        break;
      }
    }
  }
  if (found.size() == 1) return Result<ModelEntry>::success(*found.front());
  std::string detail = found.empty() ? "no catalogue entry is " + quote_user_text(printed)
                                     : quote_user_text(printed) + " could be ";
  for (size_t i = 0; i < found.size() && i < 3; ++i) detail += (i == 0 ? "" : ", ") + found[i]->id;
  return Result<ModelEntry>::failure(make_error(kUnknownId, "model", detail));
}

Result<CheckpointMatch> identify_checkpoint(std::string_view name) {
  const Result<ModelEntry> whole = identify_model(name);
  if (whole.ok) return Result<CheckpointMatch>::success({whole.value, {}});
  // An organisation names the whole id only: the shortened names are the last part's.
  std::string rest(name.substr(std::min(name.size(), name.find_last_of('/') + 1)));
  std::string dropped;
  for (size_t dash = rest.find_last_of("-_"); dash != std::string::npos && dash > 0;
       dash = rest.find_last_of("-_")) {
    dropped = rest.substr(dash) + dropped;
    rest.resize(dash);
    const Result<ModelEntry> m = identify_model(rest);
    if (m.ok) return Result<CheckpointMatch>::success({m.value, dropped});
  }
  return Result<CheckpointMatch>::failure(whole.error);
}

}  // namespace kvscope
