// GPURUN_ALGO / GPURUN_PROTO parsing and description (see override.h).
#include "coll/tuner/override.h"

#include <algorithm>
#include <bit>
#include <optional>
#include <vector>

#include "runtime/base/param_table.h"
#include "runtime/base/parse.h"

namespace gpurun::coll {
namespace {

// What differs between the two variables: their name and their vocabulary.
template <typename E>
struct Vocabulary;

template <>
struct Vocabulary<Algo> {
  static constexpr const char* kVariable = "GPURUN_ALGO";
  static constexpr const char* kNoun = "algorithm";
  static const char* Name(int i) { return AlgoName(static_cast<Algo>(i)); }
};

template <>
struct Vocabulary<Protocol> {
  static constexpr const char* kVariable = "GPURUN_PROTO";
  static constexpr const char* kNoun = "protocol";
  static const char* Name(int i) { return ProtocolName(static_cast<Protocol>(i)); }
};

template <typename E>
std::string ValidNames() {
  std::string out;
  for (int i = 0; i < OverrideMask<E>::kCount; ++i) out += (i == 0 ? "" : ", ") + std::string(Vocabulary<E>::Name(i));
  return out;
}

std::string ValidFuncs() {
  std::string out;
  for (int f = 0; f < kNumFuncs; ++f) out += (f == 0 ? "" : ", ") + std::string(FuncName(static_cast<Func>(f)));
  return out;
}

// "unknown GPURUN_ALGO algorithm 'x' in 'clause'; valid algorithms: tree, ...".
template <typename E>
Status NameError(std::string_view what, std::string_view clause) {
  using V = Vocabulary<E>;
  return InvalidArgument(std::string(what) + " in '" + std::string(clause) + "'; valid " + V::kNoun +
                         "s: " + ValidNames<E>());
}

Status FuncError(std::string_view what, std::string_view clause) {
  return InvalidArgument(std::string(what) + " in '" + std::string(clause) + "'; valid collectives: " + ValidFuncs());
}

template <typename E>
std::optional<int> FindName(std::string_view name) {
  const std::string lower = ToLower(name);
  for (int i = 0; i < OverrideMask<E>::kCount; ++i) {
    if (lower == Vocabulary<E>::Name(i)) return i;
  }
  return std::nullopt;
}

std::optional<Func> FindFunc(std::string_view name) {
  const std::string lower = ToLower(name);
  for (int f = 0; f < kNumFuncs; ++f) {
    if (lower == FuncName(static_cast<Func>(f))) return static_cast<Func>(f);
  }
  return std::nullopt;
}

std::string_view Trim(std::string_view text) {
  const size_t begin = text.find_first_not_of(" \t\n\r\f\v");
  if (begin == std::string_view::npos) return {};
  return text.substr(begin, text.find_last_not_of(" \t\n\r\f\v") - begin + 1);
}

// `list` := [^] name {, name}; returns the allowed bits (never 0).
template <typename E>
StatusOr<typename OverrideMask<E>::Bits> ParseList(std::string_view list, std::string_view clause) {
  using V = Vocabulary<E>;
  using Bits = typename OverrideMask<E>::Bits;
  const bool negate = !list.empty() && list.front() == '^';
  if (negate) list = Trim(list.substr(1));
  if (list.empty()) return NameError<E>(std::string("empty ") + V::kVariable + " " + V::kNoun + " list", clause);
  Bits listed = 0;
  for (const std::string& item : SplitList(list, ',')) {
    if (item.empty()) return NameError<E>(std::string("empty ") + V::kVariable + " " + V::kNoun + " name", clause);
    const std::optional<int> index = FindName<E>(item);
    if (!index) {
      return NameError<E>(std::string("unknown ") + V::kVariable + " " + V::kNoun + " '" + item + "'", clause);
    }
    listed |= Bits{1} << *index;
  }
  const Bits bits = negate ? (OverrideMask<E>::kAll & ~listed) : listed;
  if (bits == 0) return NameError<E>(std::string(V::kVariable) + " allows no " + V::kNoun, clause);
  return bits;
}

template <typename E>
StatusOr<OverrideMask<E>> ParseOverride(std::string_view text) {
  using V = Vocabulary<E>;
  OverrideMask<E> mask;
  if (Trim(text).empty()) return mask;
  const std::vector<std::string> clauses = SplitList(text, ';');
  std::array<std::string, kNumFuncs> named;  // the clause that named each collective
  std::optional<typename OverrideMask<E>::Bits> others;
  for (size_t i = 0; i < clauses.size(); ++i) {
    const std::string& clause = clauses[i];
    if (clause.empty()) return FuncError(std::string("empty ") + V::kVariable + " clause", text);
    const size_t colon = clause.find(':');
    if (colon == std::string::npos) {
      if (i != 0) {
        return InvalidArgument(std::string(V::kVariable) + " clause '" + clause +
                               "' names no collective but is not the first (only the first clause may apply to all "
                               "collectives); valid collectives: " +
                               ValidFuncs());
      }
      GR_ASSIGN_OR_RETURN(others, ParseList<E>(clause, clause));
      continue;
    }
    const std::string_view func_name = Trim(std::string_view(clause).substr(0, colon));
    const std::optional<Func> func = FindFunc(func_name);
    if (!func) {
      return FuncError(std::string(func_name.empty() ? "empty " : "unknown ") + V::kVariable + " collective" +
                           (func_name.empty() ? "" : " '" + std::string(func_name) + "'"),
                       clause);
    }
    std::string& first = named[static_cast<int>(*func)];
    if (!first.empty()) {
      return InvalidArgument(std::string(V::kVariable) + " names collective '" + FuncName(*func) + "' twice ('" +
                             first + "' and '" + clause + "'); give each collective one clause");
    }
    first = clause;
    GR_ASSIGN_OR_RETURN(auto bits, ParseList<E>(Trim(std::string_view(clause).substr(colon + 1)), clause));
    mask.set_bits(*func, bits);
  }
  for (int f = 0; f < kNumFuncs; ++f) {
    if (others && named[f].empty()) mask.set_bits(static_cast<Func>(f), *others);
  }
  return mask;
}

// One list, as names or as ^names, whichever is shorter (names on a tie).
template <typename E>
std::string ListText(typename OverrideMask<E>::Bits bits) {
  const int allowed = std::popcount(bits);
  const int excluded = OverrideMask<E>::kCount - allowed;
  const bool negate = excluded > 0 && excluded < allowed;  // "^" needs a name after it
  std::string out = negate ? "^" : "";
  bool first = true;
  for (int i = 0; i < OverrideMask<E>::kCount; ++i) {
    if ((((bits >> i) & 1u) != 0) == negate) continue;
    out += (first ? "" : ",") + std::string(Vocabulary<E>::Name(i));
    first = false;
  }
  return out;
}

}  // namespace

template <typename E>
bool OverrideMask<E>::Unrestricted() const {
  for (Bits b : bits_) {
    if (b != kAll) return false;
  }
  return true;
}

template <typename E>
std::string OverrideMask<E>::AllowedNames(Func func) const {
  std::string out;
  for (int i = 0; i < kCount; ++i) {
    if (((bits(func) >> i) & 1u) != 0) out += (out.empty() ? "" : ",") + std::string(Vocabulary<E>::Name(i));
  }
  return out;
}

template <typename E>
std::string OverrideMask<E>::Describe() const {
  // The list most collectives share becomes the first clause; "no
  // restriction" wins a tie, then the earliest collective's list.
  auto count = [&](Bits b) { return static_cast<int>(std::count(bits_.begin(), bits_.end(), b)); };
  Bits others = kAll;
  for (Bits b : bits_) {
    if (count(b) > count(others)) others = b;
  }
  std::string out = others == kAll ? "" : ListText<E>(others);
  for (int f = 0; f < kNumFuncs; ++f) {
    if (bits_[f] == others) continue;
    out += (out.empty() ? "" : ";") + std::string(FuncName(static_cast<Func>(f))) + ":" + ListText<E>(bits_[f]);
  }
  return out;
}

template class OverrideMask<Algo>;
template class OverrideMask<Protocol>;

StatusOr<AlgoMask> ParseAlgoOverride(std::string_view text) { return ParseOverride<Algo>(text); }

StatusOr<ProtoMask> ParseProtoOverride(std::string_view text) { return ParseOverride<Protocol>(text); }

std::string CollOverride::DescribeRestriction(Func func) const {
  const char* name = FuncName(func);
  std::string text;
  if (algo.Restricted(func)) {
    text += "GPURUN_ALGO='" + algo.Describe() + "' (allows " + algo.AllowedNames(func) + " for " + name + ")";
  }
  if (proto.Restricted(func)) {
    text += std::string(text.empty() ? "" : " with ") + "GPURUN_PROTO='" + proto.Describe() + "' (allows " +
            proto.AllowedNames(func) + " for " + name + ")";
  }
  return text;
}

StatusOr<CollOverride> LoadCollOverride() {
  CollOverride result;
  GR_ASSIGN_OR_RETURN(result.algo, ParseAlgoOverride(params::kAlgo.Get()));
  GR_ASSIGN_OR_RETURN(result.proto, ParseProtoOverride(params::kProto.Get()));
  return result;
}

}  // namespace gpurun::coll
