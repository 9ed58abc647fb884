// Reading a Hugging Face config object: typed lookups that fall back to the transformers class
// defaults (data/config_defaults.json, each use recorded as an assumption) and stop at the first
// error, which names the field path. Shared by the importers of each part of config.json.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/json_text.hpp"
#include "kvscope/base/error.hpp"
#include "base/one_of.hpp"

namespace kvscope::config {

using json = nlohmann::ordered_json;  // one JSON type in the core: readers keep document order too

inline constexpr uint64_t kMaxLayers = 65536;
inline constexpr uint64_t kMaxHeads = 65536;
inline constexpr uint64_t kMaxHeadDim = 65536;
inline constexpr uint64_t kMaxWidth = uint64_t{1} << 24;  // hidden / intermediate sizes
inline constexpr uint64_t kMaxVocab = uint64_t{1} << 32;
inline constexpr uint64_t kMaxTokens = uint64_t{1} << 40;  // windows, chunks, max positions
inline constexpr uint64_t kMaxExperts = 65536;

// A bounded description of a config value for an error message (never dumps a whole subtree).
std::string describe(const json& value);

// The families table of data/config_defaults.json.
const json& family_defaults_table();

// Reads fields of the language-model config. Lookups fall back to the family's class defaults
// (recorded as assumptions). The first error stops the import: callers check failed().
class ConfigReader {
 public:
  ConfigReader(const json& config, std::string prefix, std::string model_type,
               std::vector<std::string>& assumptions)
      : config_(config), prefix_(std::move(prefix)), assumptions_(assumptions) {
    const json& families = family_defaults_table()["families"];
    if (families.is_object() && families.contains(model_type)) {
      defaults_ = &families[model_type]["values"];
      defaults_class_ = families[model_type]["class"].get<std::string>();
    }
  }

  bool failed() const { return failed_; }
  const Error& error() const { return error_; }
  std::string path(const std::string& key) const { return prefix_ + key; }
  void assume(std::string text) { assumptions_.push_back(std::move(text)); }
  std::vector<std::string>& assumptions() { return assumptions_; }

  void fail(const char* code, const std::string& key, const std::string& detail) {
    fail_at(code, path(key), detail);
  }
  void fail_at(const char* code, const std::string& full_path, const std::string& detail) {
    if (failed_) return;
    failed_ = true;
    error_ = make_error(code, full_path, detail);
  }

  // Present and not null in the config itself.
  bool has(const std::string& key) const {
    return config_.contains(key) && !config_[key].is_null();
  }
  bool present(const std::string& key) const { return config_.contains(key); }

  // The config's value, else the class default (recorded), else nullptr.
  const json* lookup(const std::string& key) {
    if (has(key)) return &config_[key];
    if (present(key)) return nullptr;  // explicit null means "not used", never a default
    if (defaults_ != nullptr && defaults_->contains(key)) {
      assume(path(key) + " absent: " + defaults_class_ + " default " + (*defaults_)[key].dump());
      return &(*defaults_)[key];
    }
    return nullptr;
  }

  // An integer in [min, max]; nullopt when absent or null.
  std::optional<uint64_t> count(const std::string& key, uint64_t min, uint64_t max) {
    const json* v = lookup(key);
    if (v == nullptr || failed_) return std::nullopt;
    return to_count(*v, key, min, max);
  }

  // The first of `keys` that is present; `used` receives its name.
  std::optional<uint64_t> first_count(std::initializer_list<const char*> keys, uint64_t min,
                                      uint64_t max, std::string* used = nullptr) {
    for (const char* key : keys) {
      if (!has(key)) continue;
      if (used != nullptr) *used = key;
      return count(key, min, max);
    }
    for (const char* key : keys) {  // then class defaults, in the same order
      if (present(key)) continue;
      if (auto v = count(key, min, max)) {
        if (used != nullptr) *used = key;
        return v;
      }
    }
    return std::nullopt;
  }

  uint64_t require_count(std::initializer_list<const char*> keys, uint64_t min, uint64_t max) {
    std::string used;
    if (auto v = first_count(keys, min, max, &used)) return *v;
    if (failed_) return 0;
    std::string names;
    for (const char* key : keys) names += names.empty() ? key : std::string(", ") + key;
    fail(kMissingField, *keys.begin(),
         keys.size() > 1 ? "missing (looked for " + names + ")" : "missing");
    return 0;
  }

  std::optional<bool> flag(const std::string& key) {
    const json* v = lookup(key);
    if (v == nullptr || failed_) return std::nullopt;
    if (!v->is_boolean()) {
      fail(kInvalidValue, key, "expected true or false, got " + describe(*v));
      return std::nullopt;
    }
    return v->get<bool>();
  }

  std::optional<std::string> text(const std::string& key) {
    const json* v = lookup(key);
    if (v == nullptr || failed_) return std::nullopt;
    if (!v->is_string() || non_finite_number(*v)) {
      fail(kInvalidValue, key, "expected a string, got " + describe(*v));
      return std::nullopt;
    }
    return v->get<std::string>();
  }

  // A list whose length must equal the layer count; nullptr when absent.
  const json* layer_list(const std::string& key, size_t layers) {
    const json* v = lookup(key);
    if (v == nullptr || failed_) return nullptr;
    if (!v->is_array()) {
      fail(kInvalidValue, key, "expected a list with one entry per layer, got " + describe(*v));
      return nullptr;
    }
    if (v->size() != layers) {
      fail(kInvalidValue, key,
           "has " + std::to_string(v->size()) + " entries but the model has " +
               std::to_string(layers) + " layers");
      return nullptr;
    }
    return v;
  }

  std::optional<uint64_t> to_count(const json& v, const std::string& key, uint64_t min,
                                   uint64_t max) {
    uint64_t n = 0;
    if (v.is_number_unsigned()) {
      n = v.get<uint64_t>();
    } else if (v.is_number_integer()) {
      const int64_t s = v.get<int64_t>();
      if (s < 0) {
        fail(kInvalidValue, key,
             "must be at least " + std::to_string(min) + ", got " + std::to_string(s));
        return std::nullopt;
      }
      n = static_cast<uint64_t>(s);
    } else if (v.is_number_float()) {
      const double d = v.get<double>();
      if (!(d >= 0 && d <= 1.8e19 && static_cast<double>(static_cast<uint64_t>(d)) == d)) {
        fail(kInvalidValue, key, "expected a whole number, got " + quote_user_text(v.dump()));
        return std::nullopt;
      }
      n = static_cast<uint64_t>(d);
    } else {  // strings, lists, objects and the non-finite literals
      fail(kInvalidValue, key, "expected a whole number, got " + describe(v));
      return std::nullopt;
    }
    if (n < min) {
      fail(kInvalidValue, key,
           "must be at least " + std::to_string(min) + ", got " + std::to_string(n));
      return std::nullopt;
    }
    if (n > max) {
      fail(kOutOfRange, key,
           std::to_string(n) + " exceeds the supported maximum " + std::to_string(max));
      return std::nullopt;
    }
    return n;
  }

  // Strings of a list field ("modules_to_not_convert", "ignore", ...); absent or null = none.
  std::vector<std::string> string_list(const std::string& key);

  const json& config() const { return config_; }

 private:
  const json& config_;
  std::string prefix_;
  std::vector<std::string>& assumptions_;
  const json* defaults_ = nullptr;
  std::string defaults_class_;
  bool failed_ = false;
  Error error_;
};

using kvscope::is_one_of;

}  // namespace kvscope::config
