// What the report and catalogue writers share: a writer that prints JSON text as it goes, exactly
// as nlohmann's dump prints the same tree, without building the tree (the trees' initializer lists
// were a third of the module's code).
#pragma once

#include <nlohmann/json.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>


namespace kvscope {

using nlohmann::ordered_json;

// Indented (reports, catalogues) or on one line; invalid UTF-8 (a truncated or hostile string) is
// replaced, never thrown.
inline std::string dump(const ordered_json& j) {
  return j.dump(2, ' ', false, ordered_json::error_handler_t::replace);
}
inline std::string dump_compact(const ordered_json& j) {
  return j.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

// A number as nlohmann's dump writes it (null when not finite; else the shortest text that reads
// back), into `at` (room for 32 characters); returns the end.
char* write_json_number(char* at, double value);

// Values go in document order: in an object, key() then the value; containers nest to depth 64.
class JsonWriter {
 public:
  explicit JsonWriter(bool indented = true) : indented_(indented) {}

  JsonWriter& key(std::string_view name);
  void null();
  void boolean(bool value);
  void number(uint64_t value);
  void number(int64_t value);
  void number(double value);
  void string(std::string_view value);
  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  void tree(const ordered_json& value);  // a parsed document, at the current indentation
  // [first, second]: a sweep's point, with one append on one line (the string's own calls
  // dominated a sweep's time).
  void number_pair(double first, double second);

  template <class T>
  void value(const T& v) {
    if constexpr (std::is_same_v<T, bool>)
      boolean(v);
    else if constexpr (std::is_same_v<T, std::nullptr_t>)
      null();
    else if constexpr (std::is_floating_point_v<T>)
      number(static_cast<double>(v));
    else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>)
      number(static_cast<int64_t>(v));
    else if constexpr (std::is_integral_v<T>)
      number(static_cast<uint64_t>(v));
    else if constexpr (std::is_convertible_v<const T&, std::string_view>)
      string(v);
    else {
      begin_array();
      for (const auto& x : v) value(x);
      end_array();
    }
  }
  template <class T>
  void field(std::string_view name, const T& v) {
    key(name).value(v);
  }
  // The value, or null where it is absent.
  template <class T>
  void field_or_null(std::string_view name, bool present, const T& v) {
    key(name);
    if (present)
      value(v);
    else
      null();
  }

  // The object `fields()` writes, or null where it is absent.
  template <class Fields>
  void object_or_null(std::string_view name, bool present, const Fields& fields) {
    key(name);
    if (!present) {
      null();
      return;
    }
    begin_object();
    fields();
    end_object();
  }

  void reserve(size_t bytes) { out_.reserve(bytes); }
  std::string take() { return std::move(out_); }

 private:
  void separate();  // the comma and line break before a value (none after a key)
  void open(char bracket);
  void close(char bracket);
  void newline(unsigned depth);

  std::string out_;
  bool indented_;
  bool after_key_ = false;
  unsigned depth_ = 0;
  uint64_t nonempty_ = 0;  // bit d-1: the container at depth d has a member already
};

}  // namespace kvscope
