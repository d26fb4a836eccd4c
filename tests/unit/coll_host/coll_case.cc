// RunAndCheck (coll_case.h).
#include "tests/unit/coll_host/coll_case.h"

#include <cstring>
#include <sstream>
#include <vector>

#include "coll/host/half.h"

namespace gpurun::coll {
namespace {

constexpr unsigned char kPoison = 0xA5;

bool IsSigned(DataType t) {
  return t == DataType::kInt8 || t == DataType::kInt32 || t == DataType::kInt64 || t == DataType::kFloat16 ||
         t == DataType::kFloat32 || t == DataType::kFloat64 || t == DataType::kBfloat16;
}
bool IsInteger(DataType t) {
  return t == DataType::kInt8 || t == DataType::kUint8 || t == DataType::kInt32 || t == DataType::kUint32 ||
         t == DataType::kInt64 || t == DataType::kUint64;
}

// Input element i of `rank`: small integers.
int64_t Value(const CollCase& c, int rank, uint64_t i) {
  if (c.op == RedOp::kProd) return 1 + static_cast<int64_t>((static_cast<uint64_t>(rank) + i) % 2);
  const auto v = static_cast<int64_t>((static_cast<uint64_t>(rank) * 5 + i * 3) % 7);
  return IsSigned(c.type) ? v - 3 : v;
}

void Encode(DataType t, double v, unsigned char* p) {
  switch (t) {
    case DataType::kFloat16: {
      const uint16_t h = FloatToHalf(static_cast<float>(v));
      std::memcpy(p, &h, 2);
      return;
    }
    case DataType::kBfloat16: {
      const uint16_t h = FloatToBf16(static_cast<float>(v));
      std::memcpy(p, &h, 2);
      return;
    }
    case DataType::kFloat32: {
      const auto f = static_cast<float>(v);
      std::memcpy(p, &f, 4);
      return;
    }
    case DataType::kFloat64: std::memcpy(p, &v, 8); return;
    default: {
      const auto iv = static_cast<int64_t>(v);  // little-endian: low bytes are the narrow value
      std::memcpy(p, &iv, static_cast<size_t>(ElemSize(t)));
    }
  }
}

// The reduction over ranks of element i (input index), encoded.
void Expected(const CollCase& c, int nranks, uint64_t i, unsigned char* p) {
  int64_t acc = Value(c, 0, i);
  for (int r = 1; r < nranks; ++r) {
    const int64_t v = Value(c, r, i);
    switch (c.op) {
      case RedOp::kSum:
      case RedOp::kAvg: acc += v; break;
      case RedOp::kProd: acc *= v; break;
      case RedOp::kMax: acc = v > acc ? v : acc; break;
      case RedOp::kMin: acc = v < acc ? v : acc; break;
    }
  }
  if (c.op != RedOp::kAvg) return Encode(c.type, static_cast<double>(acc), p);
  if (IsInteger(c.type)) {  // avg truncates for integers
    if (c.type == DataType::kUint64 || c.type == DataType::kUint32 || c.type == DataType::kUint8) {
      const uint64_t q = static_cast<uint64_t>(acc) / static_cast<uint64_t>(nranks);
      return Encode(c.type, static_cast<double>(q), p);
    }
    const int64_t q = acc / nranks;
    return Encode(c.type, static_cast<double>(q), p);
  }
  if (c.type == DataType::kFloat64) return Encode(c.type, static_cast<double>(acc) / nranks, p);
  return Encode(c.type, static_cast<double>(static_cast<float>(acc) / static_cast<float>(nranks)), p);
}

std::string Mismatch(const CollCase& c, uint64_t elem, const unsigned char* got, const unsigned char* want) {
  std::ostringstream os;
  os << c.Describe() << ": element " << elem << " is";
  for (int b = 0; b < ElemSize(c.type); ++b) os << " " << static_cast<int>(got[b]);
  os << ", want";
  for (int b = 0; b < ElemSize(c.type); ++b) os << " " << static_cast<int>(want[b]);
  return os.str();
}

}  // namespace

std::string CollCase::Describe() const {
  std::ostringstream os;
  os << FuncName(func) << " " << AlgoName(algo) << "/" << ProtocolName(proto) << " " << DataTypeName(type) << " "
     << RedOpName(op) << " count " << count << (in_place ? " in-place" : " out-of-place") << " channels " << nchannels
     << " root " << root;
  return os.str();
}

std::string RunAndCheck(HostCollImpl& coll, int rank, int nranks, const CollCase& c) {
  const auto es = static_cast<uint64_t>(ElemSize(c.type));
  const uint64_t n = c.count;
  const bool gather = c.func == Func::kAllGather, scatter = c.func == Func::kReduceScatter;
  const uint64_t in_elems = scatter ? n * static_cast<uint64_t>(nranks) : n;
  const uint64_t out_elems = gather ? n * static_cast<uint64_t>(nranks) : n;
  std::vector<unsigned char> send(in_elems * es + 1, kPoison), recv(out_elems * es + 1, kPoison);
  // Where this rank's input lives.
  unsigned char* in = send.data();
  if (c.in_place) in = gather ? recv.data() + static_cast<uint64_t>(rank) * n * es : recv.data();
  if (c.in_place && scatter) {
    recv.assign(in_elems * es + 1, kPoison);
    in = recv.data();
  }
  for (uint64_t i = 0; i < in_elems; ++i) {
    Encode(c.type, static_cast<double>(Value(c, rank, i)), in + i * es);
  }
  CollCall call;
  call.func = c.func;
  call.send = in;
  call.recv =
      c.in_place && scatter ? recv.data() + static_cast<uint64_t>(rank) * n * es : (c.in_place ? in : recv.data());
  if (c.in_place && gather) call.recv = recv.data();
  call.count = n;
  call.type = c.type;
  call.op = c.op;
  call.root = c.root;
  const TuneChoice forced{c.algo, c.proto, c.nchannels, 0};
  if (Status s = coll.Run(call, &forced); !s.ok()) return c.Describe() + ": " + s.ToString();

  const auto* out = static_cast<const unsigned char*>(call.recv);
  std::vector<unsigned char> want(es);
  for (uint64_t i = 0; i < n * (gather ? static_cast<uint64_t>(nranks) : 1); ++i) {
    switch (c.func) {
      case Func::kAllReduce: Expected(c, nranks, i, want.data()); break;
      case Func::kReduce:
        if (rank != c.root) return "";
        Expected(c, nranks, i, want.data());
        break;
      case Func::kBroadcast: Encode(c.type, static_cast<double>(Value(c, c.root, i)), want.data()); break;
      case Func::kAllGather:
        Encode(c.type, static_cast<double>(Value(c, static_cast<int>(i / n), i % n)), want.data());
        break;
      case Func::kReduceScatter: Expected(c, nranks, static_cast<uint64_t>(rank) * n + i, want.data()); break;
    }
    if (std::memcmp(out + i * es, want.data(), es) != 0) return Mismatch(c, i, out + i * es, want.data());
  }
  // Nothing written past the output.
  if (!c.in_place && recv.back() != kPoison) return c.Describe() + ": wrote past the end of the output";
  return "";
}

}  // namespace gpurun::coll
