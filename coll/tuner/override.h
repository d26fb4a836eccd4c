// GPURUN_ALGO and GPURUN_PROTO: the user's restriction of which algorithms
// and protocols each collective may use, in NCCL_ALGO / NCCL_PROTO's grammar
// (NCCL src/graph/tuning.cc parseList; digest §4.2) with strict semantics.
//
// Grammar (names in any case; spaces around names and separators ignored):
//   value   := "" | clause { ";" clause }
//   clause  := [ func ":" ] list
//   list    := [ "^" ] name { "," name }
//   "ring,tree"                        only these, for every collective
//   "^tree"                            everything but tree
//   "allreduce:ring;broadcast:^tree"   per collective; the others unrestricted
//   "ring,nvls;allreduce:tree"         a first clause without a collective
//                                      applies to every collective not named
// Names: algorithms tree, ring, nvls, oneshot, twoshot; protocols ll, ll128,
// simple; collectives broadcast, reduce, allgather, reducescatter, allreduce
// (coll_types.h). An empty value means no restriction (the default).
//
// Strict, unlike NCCL: each of these is an InvalidArgument that names the
// variable, the offending token and the valid choices, and ParamRegistry::Load
// reports it at grInit: an unknown name (also NCCL-only ones such as
// collnetdirect or pat), an empty clause, list or name ("ring;", "^",
// "ring,,tree"), a clause that allows nothing ("^ll,ll128,simple"), a
// collective named twice, a clause without a collective after the first.
// GPURUN_ALGO and GPURUN_PROTO are independent: naming a collective in one
// does not restrict it in the other.
//
// How the tuner uses it: a mask is a filter, never an enabler. For each call
// the tuner considers only the (algorithm, protocol) pairs that both
// CollOverride::Allowed and its own tables accept (an implementation exists
// for the function, type, op and rank count; NVLS is supported and enabled;
// LL128 is safe on this platform). If none is left and the override restricts
// that collective (CollOverride::Restricted), the call fails with
// InvalidUsage naming the variable, its value and the collective — e.g.
// GPURUN_ALGO=tree with an allgather, which has no tree algorithm. It never
// falls back silently to a choice the user excluded. With no restriction an
// empty candidate set is an InternalError (a hole in the tables).
//
// Masks are plain values; the functions here are pure and thread-safe, and
// LoadCollOverride may be called from any thread once the registry is loaded.
#ifndef GPURUN_COLL_TUNER_OVERRIDE_H_
#define GPURUN_COLL_TUNER_OVERRIDE_H_

#include <array>
#include <cassert>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "coll/coll_types.h"
#include "runtime/base/status.h"

namespace gpurun::coll {

// For each collective, the set of allowed values of E (Algo or Protocol): bit
// i stands for the enumerator of value i. Default-constructed: all allowed.
template <typename E>
class OverrideMask {
 public:
  static_assert(std::is_same_v<E, Algo> || std::is_same_v<E, Protocol>);
  using Bits = uint32_t;
  static constexpr int kCount = std::is_same_v<E, Algo> ? kNumAlgos : kNumProtocols;
  static constexpr Bits kAll = (Bits{1} << kCount) - 1;

  OverrideMask() { bits_.fill(kAll); }

  bool Allowed(Func func, E value) const { return ((bits(func) >> static_cast<int>(value)) & 1u) != 0; }
  Bits bits(Func func) const { return bits_[static_cast<int>(func)]; }
  // `bits` must be a non-empty subset of kAll.
  void set_bits(Func func, Bits bits) {
    assert(bits != 0 && (bits & ~kAll) == 0);
    bits_[static_cast<int>(func)] = bits;
  }
  // True when the user excluded something for `func`.
  bool Restricted(Func func) const { return bits(func) != kAll; }
  // True when no collective is restricted.
  bool Unrestricted() const;

  // The allowed names for `func`, comma-separated in enum order: "tree,ring".
  std::string AllowedNames(Func func) const;
  // Canonical text in the grammar above, for logs: "" when unrestricted, else
  // the shortest of the forms this writer knows (the most common list as a
  // first clause, `^` when it is shorter). Parsing it yields *this again.
  std::string Describe() const;

  friend bool operator==(const OverrideMask&, const OverrideMask&) = default;

 private:
  std::array<Bits, kNumFuncs> bits_;
};

using AlgoMask = OverrideMask<Algo>;
using ProtoMask = OverrideMask<Protocol>;

// Parses a GPURUN_ALGO / GPURUN_PROTO value; errors name the variable.
StatusOr<AlgoMask> ParseAlgoOverride(std::string_view text);
StatusOr<ProtoMask> ParseProtoOverride(std::string_view text);

// Both restrictions, as the tuner applies them.
struct CollOverride {
  AlgoMask algo;
  ProtoMask proto;

  bool Allowed(Func func, Algo a, Protocol p) const { return algo.Allowed(func, a) && proto.Allowed(func, p); }
  bool Restricted(Func func) const { return algo.Restricted(func) || proto.Restricted(func); }
  // What restricts `func`, for errors: "GPURUN_ALGO='tree' (allows tree for
  // allgather) with GPURUN_PROTO='...' (...)"; "" when nothing does.
  std::string DescribeRestriction(Func func) const;
};

// The restriction from the parameter registry (params::kAlgo, params::kProto).
// Their values were validated by ParamRegistry::Load, so an error here means
// the registry was bypassed.
StatusOr<CollOverride> LoadCollOverride();

}  // namespace gpurun::coll

#endif  // GPURUN_COLL_TUNER_OVERRIDE_H_
