// Helpers shared by every error path.
#include "kvscope/base/error.hpp"

namespace kvscope {

Error make_error(std::string_view code, std::string_view field, std::string_view detail) {
  std::string message(field);
  if (!field.empty()) message += ": ";
  message += detail;
  return Error{std::string(code), std::move(message), std::string(field)};
}

Error byte_count_overflow(std::string_view field, std::string_view what) {
  return make_error(kOutOfRange, field,
                    std::string(what) + " exceeds 2^64-1 bytes; use a smaller value");
}

std::string quote_user_text(std::string_view text) {
  constexpr size_t kMaxShown = 40;
  static const char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (size_t i = 0; i < text.size() && i < kMaxShown; ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 || c == 0x7f || c == '"' || c == '\\' || c == '<' || c == '>') {
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 15];
    } else {
      out += static_cast<char>(c);
    }
  }
  if (text.size() > kMaxShown) out += "...";
  return out + "\"";
}

}  // namespace kvscope
