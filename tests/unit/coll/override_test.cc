// GPURUN_ALGO / GPURUN_PROTO: NCCL's grammar over every single name, every
// listed and ^-negated subset, every per-collective clause; each error with its
// message; Describe round trips (all protocol masks, sampled algorithm masks);
// and the parameter registry rejecting a bad value with the variable named.
#include "coll/tuner/override.h"

#include <gtest/gtest.h>

#include <cctype>
#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "coll_test_util.h"
#include "runtime/base/param_table.h"
#include "runtime/base/params.h"

namespace gpurun::coll {
namespace {

constexpr Func kFuncs[] = {Func::kBroadcast, Func::kReduce, Func::kAllGather, Func::kReduceScatter, Func::kAllReduce};
constexpr const char* kValidAlgos = "tree, ring, nvls, oneshot, twoshot";
constexpr const char* kValidProtos = "ll, ll128, simple";
constexpr const char* kValidFuncs = "broadcast, reduce, allgather, reducescatter, allreduce";

// Typed helpers, so that one test body covers both variables.
template <typename E>
StatusOr<OverrideMask<E>> Parse(std::string_view text) {
  if constexpr (std::is_same_v<E, Algo>) {
    return ParseAlgoOverride(text);
  } else {
    return ParseProtoOverride(text);
  }
}

template <typename E>
const char* NameOf(int i) {
  if constexpr (std::is_same_v<E, Algo>) {
    return AlgoName(static_cast<Algo>(i));
  } else {
    return ProtocolName(static_cast<Protocol>(i));
  }
}

// The names of the set bits, comma-separated, in enum order.
template <typename E>
std::string Names(uint32_t bits) {
  std::string out;
  for (int i = 0; i < OverrideMask<E>::kCount; ++i) {
    if ((bits >> i) & 1u) out += (out.empty() ? "" : ",") + std::string(NameOf<E>(i));
  }
  return out;
}

template <typename E>
OverrideMask<E> ParseOk(std::string_view text) {
  StatusOr<OverrideMask<E>> mask = Parse<E>(text);
  EXPECT_TRUE(mask.ok()) << "'" << text << "': " << mask.status().ToString();
  return mask.ok() ? *mask : OverrideMask<E>();
}

// The bits of every collective, in Func order.
template <typename E>
std::vector<uint32_t> BitsOf(const OverrideMask<E>& mask) {
  std::vector<uint32_t> out;
  for (Func f : kFuncs) out.push_back(mask.bits(f));
  return out;
}

std::vector<uint32_t> Same(uint32_t bits) { return std::vector<uint32_t>(kNumFuncs, bits); }

constexpr uint32_t kAllAlgos = AlgoMask::kAll;
constexpr uint32_t kAllProtos = ProtoMask::kAll;
constexpr uint32_t Bit(Algo a) { return 1u << static_cast<int>(a); }
constexpr uint32_t Bit(Protocol p) { return 1u << static_cast<int>(p); }

TEST(OverrideTest, EmptyMeansNoRestriction) {
  for (const char* text : {"", " ", "\t \n"}) {
    const AlgoMask algo = ParseOk<Algo>(text);
    EXPECT_TRUE(algo.Unrestricted());
    EXPECT_EQ(algo, AlgoMask());
    EXPECT_EQ(algo.Describe(), "");
    EXPECT_TRUE(ParseOk<Protocol>(text).Unrestricted());
  }
  EXPECT_EQ(AlgoMask::kAll, 0x1fu);
  EXPECT_EQ(ProtoMask::kAll, 0x7u);
  for (Func f : kFuncs) {
    EXPECT_FALSE(AlgoMask().Restricted(f));
    for (int a = 0; a < kNumAlgos; ++a) EXPECT_TRUE(AlgoMask().Allowed(f, static_cast<Algo>(a)));
  }
}

TEST(OverrideTest, Examples) {
  EXPECT_EQ(BitsOf(ParseOk<Algo>("ring,tree")), Same(Bit(Algo::kRing) | Bit(Algo::kTree)));
  EXPECT_EQ(BitsOf(ParseOk<Algo>("^tree")), Same(kAllAlgos & ~Bit(Algo::kTree)));

  const AlgoMask per_func = ParseOk<Algo>("allreduce:ring;broadcast:^tree");
  EXPECT_EQ(per_func.bits(Func::kAllReduce), Bit(Algo::kRing));
  EXPECT_EQ(per_func.bits(Func::kBroadcast), kAllAlgos & ~Bit(Algo::kTree));
  for (Func f : {Func::kReduce, Func::kAllGather, Func::kReduceScatter}) {
    EXPECT_EQ(per_func.bits(f), kAllAlgos) << FuncName(f);
    EXPECT_FALSE(per_func.Restricted(f));
  }
  EXPECT_TRUE(per_func.Allowed(Func::kAllReduce, Algo::kRing));
  EXPECT_FALSE(per_func.Allowed(Func::kAllReduce, Algo::kTree));
  EXPECT_FALSE(per_func.Allowed(Func::kBroadcast, Algo::kTree));
  EXPECT_TRUE(per_func.Allowed(Func::kBroadcast, Algo::kNvls));

  // NCCL's own examples (tuning.cc parseList comment), in gpurun's names.
  const AlgoMask nccl = ParseOk<Algo>("ring,nvls;allreduce:tree,nvls;broadcast:ring");
  EXPECT_EQ(
      BitsOf(nccl),
      (std::vector<uint32_t>{Bit(Algo::kRing), Bit(Algo::kRing) | Bit(Algo::kNvls), Bit(Algo::kRing) | Bit(Algo::kNvls),
                             Bit(Algo::kRing) | Bit(Algo::kNvls), Bit(Algo::kTree) | Bit(Algo::kNvls)}));
  const ProtoMask ll_simple = ParseOk<Protocol>("LL,Simple;allreduce:^LL");
  EXPECT_EQ(ll_simple.bits(Func::kAllReduce), Bit(Protocol::kLL128) | Bit(Protocol::kSimple));
  EXPECT_EQ(ll_simple.bits(Func::kAllGather), Bit(Protocol::kLL) | Bit(Protocol::kSimple));
  const ProtoMask no_ll128 = ParseOk<Protocol>("^LL128;allreduce:LL128");
  EXPECT_EQ(no_ll128.bits(Func::kAllReduce), Bit(Protocol::kLL128));
  EXPECT_EQ(no_ll128.bits(Func::kBroadcast), Bit(Protocol::kLL) | Bit(Protocol::kSimple));
}

template <typename E>
void CheckSingleNames() {
  constexpr uint32_t kAll = OverrideMask<E>::kAll;
  for (int i = 0; i < OverrideMask<E>::kCount; ++i) {
    const std::string name = NameOf<E>(i);
    std::string upper = name;
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    for (const std::string& text : {name, upper, " " + name + " "}) {
      const OverrideMask<E> only = ParseOk<E>(text);
      EXPECT_EQ(BitsOf(only), Same(1u << i)) << text;
      for (Func f : kFuncs) {
        EXPECT_TRUE(only.Restricted(f));
        EXPECT_TRUE(only.Allowed(f, static_cast<E>(i)));
        EXPECT_EQ(only.AllowedNames(f), name);
      }
      EXPECT_EQ(BitsOf(ParseOk<E>("^" + text)), Same(kAll & ~(1u << i))) << "^" << text;
      EXPECT_EQ(BitsOf(ParseOk<E>(" ^ " + text)), Same(kAll & ~(1u << i))) << " ^ " << text;
    }
  }
}

TEST(OverrideTest, EverySingleNameAndItsNegation) {
  CheckSingleNames<Algo>();
  CheckSingleNames<Protocol>();
}

// Every non-empty subset, listed, and negated where that leaves something.
template <typename E>
void CheckSubsets() {
  constexpr uint32_t kAll = OverrideMask<E>::kAll;
  for (uint32_t set = 1; set <= kAll; ++set) {
    EXPECT_EQ(BitsOf(ParseOk<E>(Names<E>(set))), Same(set)) << Names<E>(set);
    if (set != kAll) {
      EXPECT_EQ(BitsOf(ParseOk<E>("^" + Names<E>(set))), Same(kAll & ~set)) << "^" << Names<E>(set);
    }
  }
}

TEST(OverrideTest, EverySubsetListedAndNegated) {
  CheckSubsets<Algo>();
  CheckSubsets<Protocol>();
}

// Each collective alone, with every subset; then after a first clause for the others.
template <typename E>
void CheckClauses() {
  constexpr uint32_t kAll = OverrideMask<E>::kAll;
  for (int fi = 0; fi < kNumFuncs; ++fi) {
    const std::string func = FuncName(kFuncs[fi]);
    for (uint32_t set = 1; set <= kAll; ++set) {
      std::vector<uint32_t> want = Same(kAll);
      want[fi] = set;
      EXPECT_EQ(BitsOf(ParseOk<E>(func + ":" + Names<E>(set))), want) << func << ":" << Names<E>(set);
      if (set != kAll) {
        want[fi] = kAll & ~set;
        EXPECT_EQ(BitsOf(ParseOk<E>(func + ":^" + Names<E>(set))), want);
      }
      // "others;func:list": the first clause covers every collective but func.
      const uint32_t others = (kAll & ~set) != 0 ? (kAll & ~set) : kAll;
      want = Same(others);
      want[fi] = set;
      EXPECT_EQ(BitsOf(ParseOk<E>(Names<E>(others) + ";" + func + ":" + Names<E>(set))), want);
    }
  }
}

TEST(OverrideTest, EveryCollectiveClause) {
  CheckClauses<Algo>();
  CheckClauses<Protocol>();
}

TEST(OverrideTest, CaseAndWhitespace) {
  EXPECT_EQ(ParseOk<Algo>(" AllReduce : RING , Tree ; BroadCast:^ TREE\t"),
            ParseOk<Algo>("allreduce:ring,tree;broadcast:^tree"));
  EXPECT_EQ(ParseOk<Algo>("\tOneShot,TwoShot\n"), ParseOk<Algo>("oneshot,twoshot"));
  EXPECT_EQ(ParseOk<Protocol>(" Simple ; ReduceScatter : LL128 "), ParseOk<Protocol>("simple;reducescatter:ll128"));
  // A collective may be listed once in any case; the same algorithm twice is harmless.
  EXPECT_EQ(BitsOf(ParseOk<Algo>("ring,RING")), Same(Bit(Algo::kRing)));
}

TEST(OverrideTest, CollOverrideCombinesBoth) {
  const CollOverride both{ParseOk<Algo>("allreduce:tree"), ParseOk<Protocol>("^ll128")};
  EXPECT_TRUE(both.Allowed(Func::kAllReduce, Algo::kTree, Protocol::kSimple));
  EXPECT_FALSE(both.Allowed(Func::kAllReduce, Algo::kRing, Protocol::kSimple));
  EXPECT_FALSE(both.Allowed(Func::kAllReduce, Algo::kTree, Protocol::kLL128));
  EXPECT_TRUE(both.Allowed(Func::kAllGather, Algo::kRing, Protocol::kLL));
  EXPECT_FALSE(both.Allowed(Func::kAllGather, Algo::kRing, Protocol::kLL128));
  EXPECT_TRUE(both.Restricted(Func::kAllGather)) << "GPURUN_PROTO restricts every collective";
  const CollOverride algo_only{ParseOk<Algo>("allreduce:tree"), ProtoMask()};
  EXPECT_FALSE(algo_only.Restricted(Func::kAllGather));
  EXPECT_TRUE(algo_only.Restricted(Func::kAllReduce));
}

struct ErrorCase {
  const char* text;
  std::vector<std::string> expect;  // substrings of the message
};

template <typename E>
void CheckErrors(const std::vector<ErrorCase>& cases) {
  for (const ErrorCase& c : cases) {
    StatusOr<OverrideMask<E>> mask = Parse<E>(c.text);
    ASSERT_FALSE(mask.ok()) << "'" << c.text << "' parsed as '" << mask->Describe() << "'";
    EXPECT_EQ(mask.status().code(), grInvalidArgument) << c.text;
    for (const std::string& part : c.expect) {
      EXPECT_NE(mask.status().message().find(part), std::string::npos)
          << "'" << c.text << "': message lacks \"" << part << "\": " << mask.status().message();
    }
  }
}

TEST(OverrideTest, AlgoErrorsNameVariableTokenAndChoices) {
  const std::string v = "GPURUN_ALGO";
  CheckErrors<Algo>({
      {"rign", {"unknown " + v + " algorithm 'rign'", kValidAlgos}},
      {"ring,collnetdirect", {"unknown " + v + " algorithm 'collnetdirect'", "'ring,collnetdirect'", kValidAlgos}},
      {"pat", {"'pat'", kValidAlgos}},
      {"Simple", {"'Simple'", kValidAlgos}},
      {"ring,^tree", {"algorithm '^tree'", kValidAlgos}},
      {"^^tree", {"algorithm '^tree'", kValidAlgos}},
      {"allreduce:rign", {"algorithm 'rign' in 'allreduce:rign'", kValidAlgos}},
      {"allreduce:ring:tree", {"algorithm 'ring:tree'", kValidAlgos}},
      {"allreduc:ring", {"unknown " + v + " collective 'allreduc' in 'allreduc:ring'", kValidFuncs}},
      {"sendrecv:ring", {"collective 'sendrecv'", kValidFuncs}},
      {"all reduce:ring", {"collective 'all reduce'", kValidFuncs}},
      {" : ring", {"empty " + v + " collective in ': ring'", kValidFuncs}},
      {"^", {"empty " + v + " algorithm list in '^'", kValidAlgos}},
      {"allreduce:", {"empty " + v + " algorithm list in 'allreduce:'", kValidAlgos}},
      {"allreduce: ^ ", {"empty " + v + " algorithm list", kValidAlgos}},
      {"ring,,tree", {"empty " + v + " algorithm name in 'ring,,tree'", kValidAlgos}},
      {"ring,", {"empty " + v + " algorithm name in 'ring,'", kValidAlgos}},
      {",ring", {"empty " + v + " algorithm name", kValidAlgos}},
      {"ring;", {"empty " + v + " clause in 'ring;'", kValidFuncs}},
      {";ring", {"empty " + v + " clause in ';ring'"}},
      {"ring;;allreduce:tree", {"empty " + v + " clause"}},
      {" ; ", {"empty " + v + " clause"}},
      {"^tree,ring,nvls,oneshot,twoshot",
       {v + " allows no algorithm in '^tree,ring,nvls,oneshot,twoshot'", kValidAlgos}},
      {"allreduce:^ring,twoshot,tree,oneshot,nvls",
       {"allows no algorithm in 'allreduce:^ring,twoshot,tree,oneshot,nvls'", kValidAlgos}},
      {"allreduce:ring;allreduce:tree",
       {v + " names collective 'allreduce' twice ('allreduce:ring' and 'allreduce:tree')"}},
      {"allreduce:ring; AllReduce : tree", {"'allreduce' twice ('allreduce:ring' and 'AllReduce : tree')"}},
      {"broadcast:ring;allreduce:tree;broadcast:tree", {"'broadcast' twice"}},
      {"allreduce:ring;tree", {v + " clause 'tree' names no collective but is not the first", kValidFuncs}},
      {"ring;tree", {"clause 'tree' names no collective but is not the first"}},
  });
}

TEST(OverrideTest, ProtoErrorsNameVariableTokenAndChoices) {
  const std::string v = "GPURUN_PROTO";
  CheckErrors<Protocol>({
      {"ll129", {"unknown " + v + " protocol 'll129'", kValidProtos}},
      {"ring", {"protocol 'ring'", kValidProtos}},
      {"LL128;allgather:simpel", {"protocol 'simpel' in 'allgather:simpel'", kValidProtos}},
      {"gather:ll", {"unknown " + v + " collective 'gather'", kValidFuncs}},
      {"^", {"empty " + v + " protocol list", kValidProtos}},
      {"ll,", {"empty " + v + " protocol name", kValidProtos}},
      {"ll;", {"empty " + v + " clause"}},
      {"^ll,ll128,simple", {v + " allows no protocol", kValidProtos}},
      {"reduce:^simple,ll,ll128", {"allows no protocol in 'reduce:^simple,ll,ll128'"}},
      {"allreduce:ll;allreduce:simple", {v + " names collective 'allreduce' twice"}},
      {"reduce:ll;simple", {v + " clause 'simple' names no collective but is not the first"}},
  });
}

TEST(OverrideTest, DescribeIsCanonical) {
  const std::map<std::string, std::string> algo = {
      {"", ""},
      {"ring,tree", "tree,ring"},
      {"Tree , Ring", "tree,ring"},
      {"^tree", "^tree"},
      {"ring,nvls,tree", "^oneshot,twoshot"},
      {"tree,ring,nvls,oneshot,twoshot", ""},
      {"allreduce:ring;broadcast:^tree", "broadcast:^tree;allreduce:ring"},
      {"ring;allreduce:tree", "ring;allreduce:tree"},
      {"ring;allreduce:tree;reduce:tree;broadcast:tree", "tree;allgather:ring;reducescatter:ring"},
      {"ring;allreduce:^oneshot", "ring;allreduce:^oneshot"},
      {"ring;allreduce:tree,ring,nvls,oneshot,twoshot", "ring;allreduce:tree,ring,nvls,oneshot,twoshot"},
      {"allreduce:tree;allgather:ring", "allgather:ring;allreduce:tree"},
  };
  for (const auto& [text, want] : algo) EXPECT_EQ(ParseOk<Algo>(text).Describe(), want) << "'" << text << "'";
  EXPECT_EQ(ParseOk<Protocol>("^LL128;allreduce:LL128").Describe(), "^ll128;allreduce:ll128");
  EXPECT_EQ(ParseOk<Protocol>("ll,ll128").Describe(), "^simple");
  EXPECT_EQ(ParseOk<Protocol>("simple,ll").Describe(), "^ll128");
  EXPECT_EQ(ParseOk<Protocol>("LL").Describe(), "ll");
}

template <typename E>
void ExpectRoundTrip(const OverrideMask<E>& mask) {
  const std::string text = mask.Describe();
  StatusOr<OverrideMask<E>> again = Parse<E>(text);
  ASSERT_TRUE(again.ok()) << "'" << text << "': " << again.status().ToString();
  EXPECT_EQ(BitsOf(*again), BitsOf(mask)) << "'" << text << "'";
  EXPECT_EQ(again->Describe(), text);
}

TEST(OverrideTest, EveryProtocolMaskRoundTrips) {
  // 7 non-empty sets for each of 5 collectives: all 16807 masks.
  constexpr uint32_t kAll = ProtoMask::kAll;
  std::vector<uint32_t> sets(kNumFuncs, 1);
  while (true) {
    ProtoMask mask;
    for (int f = 0; f < kNumFuncs; ++f) mask.set_bits(kFuncs[f], sets[f]);
    ExpectRoundTrip(mask);
    int f = 0;
    while (f < kNumFuncs && sets[f] == kAll) sets[f++] = 1;
    if (f == kNumFuncs) break;
    ++sets[f];
  }
}

TEST(OverrideTest, AlgorithmMasksRoundTrip) {
  constexpr uint32_t kAll = AlgoMask::kAll;
  // Every pair of collectives with every pair of sets, the rest unrestricted
  // or all sharing the first set...
  for (int f = 0; f < kNumFuncs; ++f) {
    for (int g = f + 1; g < kNumFuncs; ++g) {
      for (uint32_t a = 1; a <= kAll; ++a) {
        for (uint32_t b = 1; b <= kAll; ++b) {
          AlgoMask mask;
          mask.set_bits(kFuncs[f], a);
          mask.set_bits(kFuncs[g], b);
          ExpectRoundTrip(mask);
          for (Func h : kFuncs) mask.set_bits(h, a);
          mask.set_bits(kFuncs[g], b);
          ExpectRoundTrip(mask);
        }
      }
    }
  }
  // ...and a fixed pseudo-random sample of arbitrary masks.
  testing::SplitMix rng(42);
  for (int i = 0; i < 20000; ++i) {
    AlgoMask mask;
    for (Func f : kFuncs) mask.set_bits(f, 1 + static_cast<uint32_t>(rng.Next() % kAll));
    ExpectRoundTrip(mask);
  }
}

class OverrideParamsTest : public ::testing::Test {
 protected:
  void TearDown() override { ParamRegistry::Global().Reset(); }
};

EnvLookup FakeEnv(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](std::string_view name) -> std::optional<std::string> {
    auto it = vars.find(std::string(name));
    if (it == vars.end()) return std::nullopt;
    return it->second;
  };
}

TEST_F(OverrideParamsTest, DefaultsAreUnrestricted) {
  ASSERT_TRUE(ParamRegistry::Global().Load(FakeEnv({})).ok());
  EXPECT_EQ(params::kAlgo.Get(), "");
  EXPECT_EQ(params::kProto.Get(), "");
  StatusOr<CollOverride> o = LoadCollOverride();
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_TRUE(o->algo.Unrestricted());
  EXPECT_TRUE(o->proto.Unrestricted());
}

TEST_F(OverrideParamsTest, ValuesFromTheEnvironment) {
  ASSERT_TRUE(
      ParamRegistry::Global().Load(FakeEnv({{"GPURUN_ALGO", "allreduce:ring"}, {"GPURUN_PROTO", "^ll128"}})).ok());
  StatusOr<CollOverride> o = LoadCollOverride();
  ASSERT_TRUE(o.ok()) << o.status().ToString();
  EXPECT_EQ(o->algo.Describe(), "allreduce:ring");
  EXPECT_EQ(o->proto.Describe(), "^ll128");
}

TEST_F(OverrideParamsTest, BadValueFailsLoadCollOverrideNamingTheVariable) {
  ASSERT_TRUE(
      ParamRegistry::Global().Load(FakeEnv({{"GPURUN_ALGO", "ring"}, {"GPURUN_PROTO", "^ll,ll128,simple"}})).ok())
      << "the registry keeps the text; the grammar is checked by LoadCollOverride (grInit, gpurun)";
  StatusOr<CollOverride> o = LoadCollOverride();
  ASSERT_EQ(o.status().code(), grInvalidArgument);
  EXPECT_NE(o.status().message().find("GPURUN_PROTO"), std::string::npos) << o.status().message();
  EXPECT_NE(o.status().message().find("allows no protocol"), std::string::npos) << o.status().message();

  ASSERT_TRUE(ParamRegistry::Global().Override("GPURUN_ALGO", "rign").ok());
  o = LoadCollOverride();
  ASSERT_EQ(o.status().code(), grInvalidArgument);
  EXPECT_NE(o.status().message().find("GPURUN_ALGO"), std::string::npos) << o.status().message();
  EXPECT_NE(o.status().message().find(kValidAlgos), std::string::npos) << o.status().message();
}

}  // namespace
}  // namespace gpurun::coll
