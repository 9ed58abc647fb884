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
// A module built without the config.json reader (the page's first) was asked to read one.
inline constexpr const char* kNeedsFullModule = "needs_full_module";

struct Error {
  std::string code;     // one of the codes above
  std::string message;  // one line, starts with the field path
  std::string field;    // e.g. "text_config.num_key_value_heads", "context", "kv_dtype"
};

// Builds an Error whose message is "<field>: <detail>" (out of line: hundreds of call sites).
Error make_error(std::string_view code, std::string_view field, std::string_view detail);

// "<field>: <what> exceeds 2^64-1 bytes; use a smaller value", the out_of_range error of a byte
// count.
Error byte_count_overflow(std::string_view field, std::string_view what);

// Quotes untrusted text for a message: at most 40 characters, control characters and quotes
// escaped, so a hostile value cannot break the one-line error or inject markup.
std::string quote_user_text(std::string_view text);

template <typename T>
struct Result {
  bool ok = false;
  T value{};
  Error error{};

  static Result success(T v) { return Result{true, std::move(v), {}}; }
  // Out of line: a failure default-constructs the value, which for a report is long code (0.98 kB
  // gzipped of the first module, 2026-12-06: under 1 kB, kept, the module being over 150 kB
  // without). By reference: an error passed on from another Result is copied here, once, not at
  // each of the core's hundreds of call sites (1.6 kB gzipped of the first module, 2026-12-06).
  [[gnu::noinline]] static Result failure(const Error& e) { return Result{false, T{}, e}; }
};

}  // namespace kvscope
