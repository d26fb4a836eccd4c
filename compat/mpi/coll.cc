// Data-movement collectives: barrier, bcast, gather(v)/allgather(v),
// scatter(v), alltoall(v).
#include "compat/mpi/coll.h"

#include <numeric>

#include "compat/mpi/coll_check.h"
#include "compat/mpi/datatype.h"
#include "compat/mpi/device_memory.h"

namespace gpurun::mpi {
namespace {

Error Gr(grResult_t r, const char* what) { return FromGr(r, what); }

std::byte* At(void* buf, int displ, const Datatype& t) {
  return static_cast<std::byte*>(buf) + static_cast<MPI_Aint>(displ) * t.extent;
}
const std::byte* At(const void* buf, int displ, const Datatype& t) {
  return static_cast<const std::byte*>(buf) + static_cast<MPI_Aint>(displ) * t.extent;
}

std::vector<size_t> Bytes(const std::vector<int>& elems, const Datatype& t) {
  std::vector<size_t> out(elems.size());
  for (size_t i = 0; i < elems.size(); ++i) out[i] = static_cast<size_t>(elems[i]) * t.size;
  return out;
}

std::vector<size_t> Prefix(const std::vector<size_t>& sizes) {
  std::vector<size_t> out(sizes.size(), 0);
  for (size_t i = 1; i < sizes.size(); ++i) out[i] = out[i - 1] + sizes[i - 1];
  return out;
}

}  // namespace

std::vector<int> Uniform(int n, int count) { return std::vector<int>(n, count); }

std::vector<int> Strided(int n, int count) {
  std::vector<int> d(n);
  for (int i = 0; i < n; ++i) d[i] = i * count;
  return d;
}

// MPI_Gather / MPI_Allgather: every rank calls gpurun's uniform gather with
// blocks of `mcount` instances of `mt` packed; the receivers take them
// straight into recvbuf when its type is contiguous and unpadded, else
// through a staging buffer.
Error UniformGather(Comm& c, const void* mine, int mcount, const Datatype& mt, void* recvbuf, const Datatype* rt,
                    bool in_place, int root, bool all) {
  const size_t block = static_cast<size_t>(mcount) * mt.size;
  const bool receiver = all || c.rank == root;
  const bool direct_recv = receiver && rt->Contiguous() && rt->extent == static_cast<MPI_Aint>(rt->size);
  std::vector<std::byte> packed, staged;
  const void* s = mine;
  if (direct_recv && in_place) {
    s = static_cast<std::byte*>(recvbuf) + c.rank * block;  // gpurun's in place
  } else if (!mt.Contiguous()) {
    packed.resize(block);
    MPI_RETURN_IF_ERROR(Pack(mine, mcount, mt, packed.data()));
    s = packed.data();
  }
  void* r = recvbuf;
  if (receiver && !direct_recv) {
    staged.resize(block * c.size);
    r = staged.data();
  }
  if (!receiver) r = nullptr;
  const grResult_t res = all ? grAllgather(s, r, block, grByte, c.coll, GR_STREAM_HOST)
                             : grGather(s, r, block, grByte, root, c.coll, GR_STREAM_HOST);
  MPI_RETURN_IF_ERROR(Gr(res, all ? "grAllgather" : "grGather"));
  if (receiver && !direct_recv && rt->size > 0) {
    const int count = static_cast<int>(block / rt->size);
    for (int i = 0; i < c.size; ++i) {
      if (in_place && i == c.rank) continue;
      MPI_RETURN_IF_ERROR(Unpack(staged.data() + i * block, block, count, *rt, At(recvbuf, i * count, *rt)));
    }
  }
  return Ok();
}

// MPI_Scatter: every rank calls gpurun's uniform scatter of packed blocks.
Error UniformScatter(Comm& c, const void* sendbuf, int scount, const Datatype* st, void* recvbuf, int rcount,
                     const Datatype* rt, bool in_place, int root) {
  const bool sender = c.rank == root;
  const size_t block = in_place || !sender ? static_cast<size_t>(rcount) * (rt != nullptr ? rt->size : 0)
                                           : static_cast<size_t>(scount) * st->size;
  const size_t bytes = sender ? static_cast<size_t>(scount) * st->size : block;
  std::vector<std::byte> packed, staged;
  const void* s = sendbuf;
  const bool direct_send = sender && st->Contiguous() && st->extent == static_cast<MPI_Aint>(st->size);
  if (sender && !direct_send) {
    packed.resize(bytes * c.size);
    for (int i = 0; i < c.size; ++i) {
      MPI_RETURN_IF_ERROR(Pack(At(sendbuf, i * scount, *st), scount, *st, packed.data() + i * bytes));
    }
    s = packed.data();
  }
  void* r = recvbuf;
  if (in_place) {
    r = static_cast<std::byte*>(const_cast<void*>(s)) + c.rank * bytes;  // gpurun's in place
  } else if (!rt->Contiguous()) {
    staged.resize(static_cast<size_t>(rcount) * rt->size);
    r = staged.data();
  }
  MPI_RETURN_IF_ERROR(Gr(grScatter(sender ? s : nullptr, r, bytes, grByte, root, c.coll, GR_STREAM_HOST), "grScatter"));
  if (!in_place && !rt->Contiguous()) MPI_RETURN_IF_ERROR(Unpack(staged.data(), staged.size(), rcount, *rt, recvbuf));
  return Ok();
}

Error PlanBarrier(Comm& c, Run* run) {
  Comm* cp = &c;
  *run = [cp] { return Gr(grBarrier(cp->coll, GR_STREAM_HOST), "grBarrier"); };
  return Ok();
}

Error PlanBcast(Comm& c, void* buf, int count, MPI_Datatype type, int root, Run* run) {
  TypePtr t;
  MPI_RETURN_IF_ERROR(CheckCount(count, "count"));
  MPI_RETURN_IF_ERROR(CheckType(type, "datatype", &t));
  MPI_RETURN_IF_ERROR(CheckRoot(c, root));
  Comm* cp = &c;
  *run = [cp, buf, count, t, root]() -> Error {
    const size_t bytes = static_cast<size_t>(count) * t->size;
    if (t->Contiguous()) return Gr(grBcast(buf, bytes, grByte, root, cp->coll, GR_STREAM_HOST), "grBcast");
    std::vector<std::byte> packed(bytes);
    if (cp->rank == root) MPI_RETURN_IF_ERROR(Pack(buf, count, *t, packed.data()));
    MPI_RETURN_IF_ERROR(Gr(grBcast(packed.data(), bytes, grByte, root, cp->coll, GR_STREAM_HOST), "grBcast"));
    if (cp->rank != root) MPI_RETURN_IF_ERROR(Unpack(packed.data(), bytes, count, *t, buf));
    return Ok();
  };
  return Ok();
}

// Gather (root >= 0) or allgather (all): recvcounts/displs in recvtype
// elements, significant at the root (everywhere for allgather).
Error PlanGather(Comm& c, const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 const int* recvcounts, const int* displs, MPI_Datatype recvtype, int root, bool all, bool uniform,
                 Run* run) {
  const bool receiver = all || c.rank == root;
  if (!all) MPI_RETURN_IF_ERROR(CheckRoot(c, root));
  const bool in_place = sendbuf == MPI_IN_PLACE;
  if (in_place && !receiver) return Fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is only allowed at the root");
  TypePtr st, rt;
  if (!in_place) {
    MPI_RETURN_IF_ERROR(CheckCount(sendcount, "sendcount"));
    MPI_RETURN_IF_ERROR(CheckType(sendtype, "sendtype", &st));
  }
  std::vector<int> counts, disp;
  if (receiver) {
    MPI_RETURN_IF_ERROR(CheckType(recvtype, "recvtype", &rt));
    counts.assign(recvcounts, recvcounts + c.size);
    disp.assign(displs, displs + c.size);
    for (int n : counts) MPI_RETURN_IF_ERROR(CheckCount(n, "recvcounts[i]"));
    if (!in_place && static_cast<size_t>(sendcount) * st->size != counts[c.rank] * rt->size) {
      return Fail(MPI_ERR_TRUNCATE, "this rank sends " + std::to_string(sendcount * st->size) +
                                        " bytes but its block holds " + std::to_string(counts[c.rank] * rt->size));
    }
  }
  Comm* cp = &c;
  *run = [=]() -> Error {
    const int me = cp->rank;
    // This rank's contribution, packed (or in place: its block of recvbuf).
    const void* mine = sendbuf;
    const Datatype* mt = st.get();
    int mcount = sendcount;
    if (in_place) {
      mine = At(recvbuf, disp[me], *rt);
      mt = rt.get();
      mcount = counts[me];
    }
    const size_t mbytes = static_cast<size_t>(mcount) * mt->size;
    const bool direct = mt->Contiguous() && (!receiver || rt->Contiguous());
    if (uniform) return UniformGather(*cp, mine, mcount, *mt, recvbuf, rt.get(), in_place, root, all);
    if (!receiver) {
      // A sender of a rooted gather: only its own bytes matter.
      std::vector<std::byte> packed;
      const void* s = mine;
      if (!mt->Contiguous()) {
        packed.resize(mbytes);
        MPI_RETURN_IF_ERROR(Pack(mine, mcount, *mt, packed.data()));
        s = packed.data();
      }
      return Gr(grGatherv(s, mbytes, nullptr, nullptr, nullptr, grByte, root, cp->coll, GR_STREAM_HOST), "grGatherv");
    }
    const std::vector<size_t> sizes = Bytes(counts, *rt);
    if (direct) {
      std::vector<size_t> bdisp(disp.size());
      for (size_t i = 0; i < disp.size(); ++i) bdisp[i] = static_cast<size_t>(disp[i]) * rt->extent;
      const void* s = in_place ? static_cast<const void*>(At(recvbuf, disp[me], *rt)) : sendbuf;
      return all ? Gr(grAllgatherv(s, mbytes, recvbuf, sizes.data(), bdisp.data(), grByte, cp->coll, GR_STREAM_HOST),
                      "grAllgatherv")
                 : Gr(grGatherv(s, mbytes, recvbuf, sizes.data(), bdisp.data(), grByte, root, cp->coll, GR_STREAM_HOST),
                      "grGatherv");
    }
    // Staged: every block packed back to back, then unpacked where it goes.
    const std::vector<size_t> offsets = Prefix(sizes);
    std::vector<std::byte> packed(offsets.back() + sizes.back());
    MPI_RETURN_IF_ERROR(Pack(mine, mcount, *mt, packed.data() + offsets[me]));
    const grResult_t r = all ? grAllgatherv(packed.data() + offsets[me], mbytes, packed.data(), sizes.data(),
                                            offsets.data(), grByte, cp->coll, GR_STREAM_HOST)
                             : grGatherv(packed.data() + offsets[me], mbytes, packed.data(), sizes.data(),
                                         offsets.data(), grByte, root, cp->coll, GR_STREAM_HOST);
    MPI_RETURN_IF_ERROR(Gr(r, all ? "grAllgatherv" : "grGatherv"));
    for (int i = 0; i < cp->size; ++i) {
      if (in_place && i == me) continue;
      MPI_RETURN_IF_ERROR(Unpack(packed.data() + offsets[i], sizes[i], counts[i], *rt, At(recvbuf, disp[i], *rt)));
    }
    return Ok();
  };
  return Ok();
}

Error PlanScatter(Comm& c, const void* sendbuf, const int* sendcounts, const int* displs, MPI_Datatype sendtype,
                  void* recvbuf, int recvcount, MPI_Datatype recvtype, int root, bool uniform, Run* run) {
  MPI_RETURN_IF_ERROR(CheckRoot(c, root));
  const bool sender = c.rank == root;
  const bool in_place = recvbuf == MPI_IN_PLACE;
  if (in_place && !sender) return Fail(MPI_ERR_BUFFER, "MPI_IN_PLACE is only allowed at the root");
  TypePtr st, rt;
  std::vector<int> counts, disp;
  if (sender) {
    MPI_RETURN_IF_ERROR(CheckType(sendtype, "sendtype", &st));
    counts.assign(sendcounts, sendcounts + c.size);
    disp.assign(displs, displs + c.size);
    for (int n : counts) MPI_RETURN_IF_ERROR(CheckCount(n, "sendcounts[i]"));
  }
  if (!in_place) {
    MPI_RETURN_IF_ERROR(CheckCount(recvcount, "recvcount"));
    MPI_RETURN_IF_ERROR(CheckType(recvtype, "recvtype", &rt));
    if (sender && static_cast<size_t>(recvcount) * rt->size < counts[c.rank] * st->size) {
      return Fail(MPI_ERR_TRUNCATE, "the root's own block does not fit its receive buffer");
    }
  }
  Comm* cp = &c;
  *run = [=]() -> Error {
    const int me = cp->rank;
    const size_t rbytes = in_place ? 0 : static_cast<size_t>(recvcount) * rt->size;
    const bool direct = (in_place || rt->Contiguous()) && (!sender || st->Contiguous());
    if (uniform) {
      return UniformScatter(*cp, sendbuf, sender ? counts[0] : 0, st.get(), recvbuf, recvcount, rt.get(), in_place,
                            root);
    }
    if (!sender) {
      std::vector<std::byte> staged;
      void* r = recvbuf;
      if (!rt->Contiguous()) {
        staged.resize(rbytes);
        r = staged.data();
      }
      // The root sends exactly our block; its size is what we can take at most.
      MPI_RETURN_IF_ERROR(
          Gr(grScatterv(nullptr, nullptr, nullptr, r, rbytes, grByte, root, cp->coll, GR_STREAM_HOST), "grScatterv"));
      if (!rt->Contiguous()) MPI_RETURN_IF_ERROR(Unpack(staged.data(), rbytes, recvcount, *rt, recvbuf));
      return Ok();
    }
    const std::vector<size_t> sizes = Bytes(counts, *st);
    if (direct) {
      std::vector<size_t> bdisp(disp.size());
      for (size_t i = 0; i < disp.size(); ++i) bdisp[i] = static_cast<size_t>(disp[i]) * st->extent;
      void* r = in_place ? static_cast<void*>(const_cast<std::byte*>(At(sendbuf, disp[me], *st))) : recvbuf;
      return Gr(grScatterv(sendbuf, sizes.data(), bdisp.data(), r, sizes[me], grByte, root, cp->coll, GR_STREAM_HOST),
                "grScatterv");
    }
    const std::vector<size_t> offsets = Prefix(sizes);
    std::vector<std::byte> packed(offsets.back() + sizes.back());
    for (int i = 0; i < cp->size; ++i) {
      MPI_RETURN_IF_ERROR(Pack(At(sendbuf, disp[i], *st), counts[i], *st, packed.data() + offsets[i]));
    }
    MPI_RETURN_IF_ERROR(Gr(grScatterv(packed.data(), sizes.data(), offsets.data(), packed.data() + offsets[me],
                                      sizes[me], grByte, root, cp->coll, GR_STREAM_HOST),
                           "grScatterv"));
    if (!in_place) MPI_RETURN_IF_ERROR(Unpack(packed.data() + offsets[me], sizes[me], recvcount, *rt, recvbuf));
    return Ok();
  };
  return Ok();
}

Error PlanAlltoall(Comm& c, const void* sendbuf, const int* sendcounts, const int* sdispls, MPI_Datatype sendtype,
                   void* recvbuf, const int* recvcounts, const int* rdispls, MPI_Datatype recvtype, bool uniform,
                   Run* run) {
  const bool in_place = sendbuf == MPI_IN_PLACE;
  TypePtr st, rt;
  MPI_RETURN_IF_ERROR(CheckType(recvtype, "recvtype", &rt));
  std::vector<int> rc(recvcounts, recvcounts + c.size), rd(rdispls, rdispls + c.size), sc = rc, sd = rd;
  if (!in_place) {
    MPI_RETURN_IF_ERROR(CheckType(sendtype, "sendtype", &st));
    sc.assign(sendcounts, sendcounts + c.size);
    sd.assign(sdispls, sdispls + c.size);
  } else {
    st = rt;
  }
  for (int n : rc) MPI_RETURN_IF_ERROR(CheckCount(n, "recvcounts[i]"));
  for (int n : sc) MPI_RETURN_IF_ERROR(CheckCount(n, "sendcounts[i]"));
  Comm* cp = &c;
  *run = [=]() -> Error {
    const std::vector<size_t> ssize = Bytes(sc, *st), rsize = Bytes(rc, *rt);
    const bool unpadded =
        st->extent == static_cast<MPI_Aint>(st->size) && rt->extent == static_cast<MPI_Aint>(rt->size);
    if (uniform && st->Contiguous() && rt->Contiguous() && unpadded) {
      return Gr(grAlltoall(in_place ? recvbuf : sendbuf, recvbuf, rsize[0], grByte, cp->coll, GR_STREAM_HOST),
                "grAlltoall");
    }
    if (!uniform && st->Contiguous() && rt->Contiguous()) {
      std::vector<size_t> sdb(sd.size()), rdb(rd.size());
      for (size_t i = 0; i < sd.size(); ++i) sdb[i] = static_cast<size_t>(sd[i]) * st->extent;
      for (size_t i = 0; i < rd.size(); ++i) rdb[i] = static_cast<size_t>(rd[i]) * rt->extent;
      return Gr(grAlltoallv(in_place ? recvbuf : sendbuf, ssize.data(), sdb.data(), recvbuf, rsize.data(), rdb.data(),
                            grByte, cp->coll, GR_STREAM_HOST),
                "grAlltoallv");
    }
    const std::vector<size_t> soff = Prefix(ssize), roff = Prefix(rsize);
    std::vector<std::byte> out(soff.back() + ssize.back()), in(roff.back() + rsize.back());
    const void* src = in_place ? recvbuf : sendbuf;
    for (int i = 0; i < cp->size; ++i) MPI_RETURN_IF_ERROR(Pack(At(src, sd[i], *st), sc[i], *st, out.data() + soff[i]));
    const grResult_t r = uniform ? grAlltoall(out.data(), in.data(), rsize[0], grByte, cp->coll, GR_STREAM_HOST)
                                 : grAlltoallv(out.data(), ssize.data(), soff.data(), in.data(), rsize.data(),
                                               roff.data(), grByte, cp->coll, GR_STREAM_HOST);
    MPI_RETURN_IF_ERROR(Gr(r, uniform ? "grAlltoall" : "grAlltoallv"));
    for (int i = 0; i < cp->size; ++i) {
      MPI_RETURN_IF_ERROR(Unpack(in.data() + roff[i], rsize[i], rc[i], *rt, At(recvbuf, rd[i], *rt)));
    }
    return Ok();
  };
  return Ok();
}

}  // namespace gpurun::mpi
