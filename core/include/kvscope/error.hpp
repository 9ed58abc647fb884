// Errors as values: every core entry point returns a Result with either a value or an Error
// naming the input field that caused it, so the CLI, the WASM API and the page can all show it.
#pragma once

#include <string>
#include <string_view>
#include <utility>

namespace kvscope {

// Stable codes, part of the JSON and JS API.
inline constexpr const char* kInvalidJson = "invalid_json";
inline constexpr const char* kMissingField = "missing_field";
inline constexpr const char* kInvalidValue = "invalid_value";
inline constexpr const char* kOutOfRange = "out_of_range";
inline constexpr const char* kUnsupported = "unsupported";
inline constexpr const char* kUnknownId = "unknown_id";
inline constexpr const char* kInternalError = "internal_error";

struct Error {
  std::string code;     // one of the codes above
  std::string message;  // one line, starts with the field path
  std::string field;    // e.g. "text_config.num_key_value_heads", "context", "kv_dtype"
};

// Builds an Error whose message is "<field>: <detail>".
inline Error make_error(std::string code, std::string field, const std::string& detail) {
  std::string message = field.empty() ? detail : field + ": " + detail;
  return Error{std::move(code), std::move(message), std::move(field)};
}

// Quotes untrusted text for a message: at most 40 characters, control characters and quotes
// escaped, so a hostile value cannot break the one-line error or inject markup.
std::string quote_user_text(std::string_view text);

template <typename T>
struct Result {
  bool ok = false;
  T value{};
  Error error{};

  static Result success(T v) { return Result{true, std::move(v), {}}; }
  static Result failure(Error e) { return Result{false, T{}, std::move(e)}; }
};

}  // namespace kvscope
