// Integers as LEB128 varints (most fields are small counts), doubles as varints too, strings
// length first, lists as runs of equal items. Writer and reader walk the same `fields` lists, so
// they cannot disagree.
#include "kvscope/model/preset_codec.hpp"

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace kvscope {
namespace {

// Each type's fields, one list for both directions: T is the type (const for the writer), and the
// null pointer of the plain type picks the list.
template <class A, class T> void fields(A& a, T& l, LayerSpec*) {
  a(l.attention, l.kv_heads, l.k_head_dim, l.v_head_dim, l.window_tokens, l.state, l.state_values,
    l.ssm_state_values, l.mixer_params, l.indexer_head_dim, l.indexer_key, l.k_eq_v, l.mlp,
    l.compress_ratio, l.index_topk);
}
template <class A, class T> void fields(A& a, T& m, MoeShape*) {
  a(m.num_experts, m.experts_per_token, m.shared_experts, m.expert_intermediate_size,
    m.shared_expert_intermediate_size);
}
template <class A, class T> void fields(A& a, T& m, MlaShape*) {
  a(m.q_lora_rank, m.kv_lora_rank, m.qk_rope_head_dim, m.qk_nope_head_dim, m.v_head_dim,
    m.index_n_heads, m.index_head_dim, m.index_topk, m.o_lora_rank, m.o_groups);
}
template <class A, class T>
void fields(A& a, T& x, LayerExtras*) {
  a(x.qkv_bias, x.o_bias, x.qk_norm, x.qk_norm_full, x.attention_sinks, x.moe_biases);
}
template <class A, class T> void fields(A& a, T& p, PositionLimits*) {
  a(p.keys, p.model_max_length, p.rope_type, p.rope_factor, p.rope_factor_float,
    p.original_max_position_embeddings);
}
template <class A, class T> void fields(A& a, T& f, MatrixFormat*) {
  a(f.name, f.group_values, f.group_bits, f.tile_rows, f.tile_cols, f.tile_bits, f.bits_per_col,
    f.tensor_bytes, f.nested_tiles, f.nested_bits, f.quantized);
}
template <class A, class T> void fields(A& a, T& r, StorageRule*) { a(r.modules, r.patterns, r.format); }
template <class A, class T> void fields(A& a, T& w, WeightStorage*) {
  a(w.name, w.method, w.summary, w.fp8_compute, w.exact, w.rules, w.kept_patterns, w.kept_modules,
    w.plain, w.whole_file);
}
template <class A, class T> void fields(A& a, T& s, ModelShape*) {
  a(s.model_type, s.has_encoder, s.vision_layers, s.vision_hidden_size, s.architectures,
    s.hidden_size, s.intermediate_size, s.vocab_size, s.max_position_embeddings, s.positions,
    s.num_attention_heads, s.head_dim, s.tie_word_embeddings, s.gated_mlp,
    s.learned_position_embeddings, s.torch_dtype, s.ssm_state_dtype, s.ssm_state_dtype_key, s.moe,
    s.mla, s.extras, s.layers, s.draft_layers, s.per_layer_input_size, s.per_layer_vocab,
    s.draft_embeddings, s.weights);
}
template <class A, class T> void fields(A& a, T& m, ImportedModel*) { a(m.shape, m.assumptions); }

class Writer {
 public:
  template <class... T> void operator()(const T&... values) { (write(values), ...); }
  std::string take() { return std::move(out_); }

 private:
  void varint(uint64_t v) {
    for (; v >= 0x80; v >>= 7) out_ += static_cast<char>(v | 0x80);
    out_ += static_cast<char>(v);
  }
  void write(const std::string& s) {
    varint(s.size());
    out_ += s;
  }
  // A double's bits byte-reversed as a varint: sign and exponent first, so the zero low bytes of
  // a round value's mantissa (1.0, 0.5, 1e6) cost nothing.
  void write(double d) {
    uint64_t bits = 0;
    std::memcpy(&bits, &d, sizeof d);
    varint(__builtin_bswap64(bits));
  }
  void write(const PatternList& list) {
    varint(list.size());
    for (const std::string& p : list) write(p);
  }
  // Runs of equal items (a model's layers repeat) as a count and the item once.
  template <class T> void write(const std::vector<T>& list) {
    std::vector<std::pair<size_t, std::string>> runs;
    for (const T& item : list) {
      Writer one;
      one(item);
      std::string bytes = one.take();
      if (!runs.empty() && runs.back().second == bytes) ++runs.back().first;
      else runs.emplace_back(1, std::move(bytes));
    }
    varint(runs.size());
    for (const auto& [count, bytes] : runs) {
      varint(count);
      out_ += bytes;
    }
  }
  template <class K, class V> void write(const std::pair<K, V>& p) { (*this)(p.first, p.second); }
  template <class T> void write(const T& value) {
    if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) {
      varint(static_cast<uint64_t>(value));
    } else {
      fields(*this, value, static_cast<T*>(nullptr));
    }
  }
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  template <class... T> void operator()(T&... values) { (read(values), ...); }
  bool ok() const { return ok_ && in_.empty(); }
  // The `index`-th of strings written one after another (without a copy); empty past the last.
  std::string_view string_at(size_t index) {
    while (!in_.empty()) {
      const size_t n = length();
      if (!ok_) break;
      if (index-- == 0) return in_.substr(0, n);
      in_.remove_prefix(n);
    }
    return {};
  }

 private:
  uint64_t varint() {
    uint64_t v = 0;
    for (int shift = 0; ok_; shift += 7) {
      if (in_.empty() || shift > 63) return fail();
      const auto byte = static_cast<unsigned char>(in_[0]);
      in_.remove_prefix(1);
      v |= uint64_t{byte & 0x7fu} << shift;
      if (!(byte & 0x80)) break;
    }
    return v;
  }
  uint64_t fail() {
    ok_ = false;
    return 0;
  }
  size_t length() {
    const uint64_t n = varint();
    return n <= in_.size() ? static_cast<size_t>(n) : static_cast<size_t>(fail());
  }
  void read(std::string& s) {
    const size_t n = length();
    s.assign(in_.substr(0, n));
    in_.remove_prefix(n);
  }
  void read(double& d) {
    const uint64_t bits = __builtin_bswap64(varint());
    std::memcpy(&d, &bits, sizeof d);
  }
  void read(PatternList& list) {
    for (size_t n = length(); n > 0 && ok_; --n) {
      std::string p;
      read(p);
      list.push_back(std::move(p));
    }
  }
  template <class T> void read(std::vector<T>& list) {
    for (size_t runs = length(); runs > 0 && ok_; --runs) {
      const uint64_t count = varint();
      if (count > (uint64_t{1} << 24)) return static_cast<void>(fail());  // no model has as many
      T item{};
      read(item);
      list.insert(list.end(), static_cast<size_t>(count), item);
    }
  }
  template <class K, class V> void read(std::pair<K, V>& p) { (*this)(p.first, p.second); }
  template <class T> void read(T& value) {
    if constexpr (std::is_enum_v<T> || std::is_integral_v<T>) {
      const uint64_t v = varint();
      value = static_cast<T>(v);
      if (static_cast<uint64_t>(value) != v) fail();
    } else {
      fields(*this, value, static_cast<T*>(nullptr));
    }
  }
  std::string_view in_;
  bool ok_ = true;
};

}  // namespace

std::string encode_imported_model(const ImportedModel& model) {
  Writer w;
  w(model);
  return w.take();
}

Result<ImportedModel> decode_imported_model(std::string_view bytes) {
  ImportedModel model;
  Reader r(bytes);
  r(model);
  if (!r.ok())
    return Result<ImportedModel>::failure(
        make_error(kInternalError, "model", "a preset's imported shape does not read back"));
  return Result<ImportedModel>::success(std::move(model));
}

void append_model_bytes(std::string& all, const ImportedModel& model) {
  Writer w;
  w(encode_imported_model(model));
  all += w.take();
}

std::string_view model_bytes_at(std::string_view all, size_t index) {
  return Reader(all).string_at(index);
}

}  // namespace kvscope
