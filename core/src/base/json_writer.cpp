// The JSON writer of the reports and catalogues (json_writer.hpp): nlohmann's dump format, written
// as it goes. Compiled for speed in the module: a sweep writes its thousands of numbers through it.
#include <algorithm>
#include <charconv>
#include <cmath>

#include "base/json_writer.hpp"

namespace kvscope {

// Whole values below 10^15, most of a sweep's points, by a faster path than grisu2. Flatten
// inlines to_chars here, whichever copy of it the linker keeps.
[[gnu::flatten]] char* write_json_number(char* at, double value) {
  if (!std::isfinite(value)) return std::copy_n("null", 4, at);
  if (value == std::floor(value) && std::fabs(value) < 1e15 && !std::signbit(value)) {
    at = std::to_chars(at, at + 24, static_cast<uint64_t>(value)).ptr;
    return std::copy_n(".0", 2, at);
  }
  return nlohmann::detail::to_chars(at, at + 32, value);
}

void JsonWriter::newline(unsigned depth) {
  if (!indented_) return;
  out_ += '\n';
  out_.append(2 * depth, ' ');
}

void JsonWriter::separate() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (depth_ == 0) return;
  const uint64_t bit = uint64_t{1} << (depth_ - 1);
  if (nonempty_ & bit) out_ += ',';
  nonempty_ |= bit;
  newline(depth_);
}

JsonWriter& JsonWriter::key(std::string_view name) {
  string(name);
  out_ += indented_ ? ": " : ":";
  after_key_ = true;
  return *this;
}

void JsonWriter::null() {
  separate();
  out_ += "null";
}

void JsonWriter::boolean(bool value) {
  separate();
  out_ += value ? "true" : "false";
}

namespace {
template <class Integer>
void append_integer(std::string& out, Integer value) {
  char digits[24];
  out.append(digits, std::to_chars(digits, digits + sizeof digits, value).ptr);
}
}  // namespace

void JsonWriter::number(uint64_t value) {
  separate();
  append_integer(out_, value);
}

void JsonWriter::number(int64_t value) {
  separate();
  append_integer(out_, value);
}

void JsonWriter::number(double value) {
  separate();
  char digits[32];
  out_.append(digits, write_json_number(digits, value));
}

void JsonWriter::number_pair(double first, double second) {
  if (indented_) {
    begin_array();
    number(first);
    number(second);
    end_array();
    return;
  }
  separate();
  char buffer[72];
  char* at = buffer;
  *at++ = '[';
  at = write_json_number(at, first);
  *at++ = ',';
  at = write_json_number(at, second);
  *at++ = ']';
  out_.append(buffer, at);
}

void JsonWriter::string(std::string_view value) {
  separate();
  const bool plain = std::all_of(value.begin(), value.end(), [](char c) {
    return c >= 0x20 && c < 0x7f && c != '"' && c != '\\';
  });
  if (!plain) {  // escapes and UTF-8 checks: nlohmann's own, so the text stays byte for byte
    out_ += dump_compact(ordered_json(std::string(value)));
    return;
  }
  out_ += '"';
  out_ += value;
  out_ += '"';
}

void JsonWriter::open(char bracket) {
  separate();
  out_ += bracket;
  ++depth_;
  nonempty_ &= ~(uint64_t{1} << (depth_ - 1));
}

void JsonWriter::close(char bracket) {
  const bool members = nonempty_ & (uint64_t{1} << (depth_ - 1));
  --depth_;
  if (members) newline(depth_);
  out_ += bracket;
}

void JsonWriter::begin_object() { open('{'); }
void JsonWriter::end_object() { close('}'); }
void JsonWriter::begin_array() { open('['); }
void JsonWriter::end_array() { close(']'); }

void JsonWriter::tree(const ordered_json& value) {
  separate();
  if (!indented_) {
    out_ += dump_compact(value);
    return;
  }
  const std::string text = dump(value);  // strings hold no raw line breaks: each is a new line
  const std::string indent(2 * depth_, ' ');
  for (char c : text) {
    out_ += c;
    if (c == '\n') out_ += indent;
  }
}

}  // namespace kvscope
