// The communicator table and the MPI_Comm_* / MPI_Group_* calls.
#include "compat/mpi/comm.h"

#include <algorithm>
#include <cstring>
#include <map>

#include "compat/mpi/coll_queue.h"
#include "compat/mpi/init.h"

namespace gpurun::mpi {
namespace {

constexpr MPI_Comm kFirstUserComm = 3;

struct CommTable {
  std::mutex mu;
  std::vector<std::shared_ptr<Comm>> comms = std::vector<std::shared_ptr<Comm>>(kFirstUserComm);
};

CommTable& Comms() {
  static CommTable* table = new CommTable();
  return *table;
}

// Groups: world ranks in group order. Handle 1 is MPI_GROUP_EMPTY.
struct GroupTable {
  std::mutex mu;
  std::vector<std::shared_ptr<std::vector<int>>> groups = {nullptr, std::make_shared<std::vector<int>>()};
};

GroupTable& Groups() {
  static GroupTable* table = new GroupTable();
  return *table;
}

MPI_Group InsertGroup(std::vector<int> ranks) {
  GroupTable& t = Groups();
  std::lock_guard<std::mutex> lock(t.mu);
  for (size_t i = 2; i < t.groups.size(); ++i) {
    if (t.groups[i] == nullptr) {
      t.groups[i] = std::make_shared<std::vector<int>>(std::move(ranks));
      return static_cast<MPI_Group>(i);
    }
  }
  t.groups.push_back(std::make_shared<std::vector<int>>(std::move(ranks)));
  return static_cast<MPI_Group>(t.groups.size() - 1);
}

std::shared_ptr<std::vector<int>> FindGroup(MPI_Group g) {
  GroupTable& t = Groups();
  std::lock_guard<std::mutex> lock(t.mu);
  if (g <= 0 || static_cast<size_t>(g) >= t.groups.size()) return nullptr;
  return t.groups[g];
}

// Splits `c` by color/key into *newcomm (MPI_COMM_NULL for MPI_UNDEFINED).
Error Split(Comm& c, int color, int key, MPI_Comm* newcomm) {
  MPI_RETURN_IF_ERROR(DrainQueue(c));
  grComm_t gr = GR_COMM_NULL;
  const grResult_t r = grCommSplit(c.coll, color == MPI_UNDEFINED ? GR_UNDEFINED : color, key, &gr);
  if (r != grSuccess) return FromGr(r, "grCommSplit");
  if (gr == GR_COMM_NULL) {
    *newcomm = MPI_COMM_NULL;
    return Ok();
  }
  std::shared_ptr<Comm> made;
  MPI_RETURN_IF_ERROR(MakeComm(gr, &made));
  *newcomm = InsertComm(std::move(made));
  return Ok();
}

}  // namespace

Comm::~Comm() {
  queue.reset();
  if (coll != GR_COMM_NULL) grCommFree(&coll);
  if (gr != GR_COMM_NULL && owns_gr) grCommFree(&gr);
}

std::shared_ptr<Comm> FindComm(MPI_Comm comm) {
  CommTable& t = Comms();
  std::lock_guard<std::mutex> lock(t.mu);
  if (comm <= 0 || static_cast<size_t>(comm) >= t.comms.size()) return nullptr;
  return t.comms[comm];
}

Error CheckComm(MPI_Comm comm, std::shared_ptr<Comm>* out) {
  MPI_RETURN_IF_ERROR(CheckInitialized());
  *out = FindComm(comm);
  if (*out == nullptr) {
    return Fail(MPI_ERR_COMM, comm == MPI_COMM_NULL ? std::string("the communicator is MPI_COMM_NULL")
                                                    : "handle " + std::to_string(comm) + " is not a communicator");
  }
  return Ok();
}

Error MakeComm(grComm_t gr, std::shared_ptr<Comm>* out) {
  auto c = std::make_shared<Comm>();
  c->gr = gr;
  grResult_t r = grCommRank(gr, &c->rank);
  if (r == grSuccess) r = grCommSize(gr, &c->size);
  if (r == grSuccess) r = grCommDup(gr, &c->coll);
  if (r != grSuccess) return FromGr(r, "creating a communicator");
  int world_rank = 0;
  grCommRank(grCommWorld(), &world_rank);
  c->world_ranks.resize(c->size);
  r = grAllgather(&world_rank, c->world_ranks.data(), 1, grInt32, c->coll, GR_STREAM_HOST);
  if (r != grSuccess) return FromGr(r, "learning a communicator's group");
  *out = std::move(c);
  return Ok();
}

MPI_Comm InsertComm(std::shared_ptr<Comm> comm, MPI_Comm fixed) {
  CommTable& t = Comms();
  std::lock_guard<std::mutex> lock(t.mu);
  if (fixed != MPI_COMM_NULL) {
    t.comms[fixed] = std::move(comm);
    return fixed;
  }
  for (size_t i = kFirstUserComm; i < t.comms.size(); ++i) {
    if (t.comms[i] == nullptr) {
      t.comms[i] = std::move(comm);
      return static_cast<MPI_Comm>(i);
    }
  }
  t.comms.push_back(std::move(comm));
  return static_cast<MPI_Comm>(t.comms.size() - 1);
}

void FreeAllComms() {
  std::vector<std::shared_ptr<Comm>> all;
  {
    CommTable& t = Comms();
    std::lock_guard<std::mutex> lock(t.mu);
    all.swap(t.comms);
    t.comms.resize(kFirstUserComm);
  }
  // User communicators first, MPI_COMM_WORLD (whose gr is gpurun's world) last.
  for (auto it = all.rbegin(); it != all.rend(); ++it) it->reset();
}

Error DrainQueue(Comm& comm) {
  CollQueue* q = nullptr;
  {
    std::lock_guard<std::mutex> lock(comm.queue_mu);
    q = comm.queue.get();
  }
  if (q != nullptr) q->Drain();
  return Ok();
}

}  // namespace gpurun::mpi

using gpurun::mpi::CheckComm;
using gpurun::mpi::Comm;
using gpurun::mpi::Error;
using gpurun::mpi::Fail;
using gpurun::mpi::Report;

// Looks up `comm` into `c` or reports MPI_ERR_COMM for call `what`.
#define GET_COMM(comm, c, what)                  \
  std::shared_ptr<Comm> c;                       \
  do {                                           \
    const Error e_ = CheckComm(comm, &c);        \
    if (!e_.ok()) return Report(comm, what, e_); \
  } while (0)

extern "C" {

int MPI_Comm_rank(MPI_Comm comm, int* rank) {
  GET_COMM(comm, c, "MPI_Comm_rank");
  if (rank == nullptr) return Report(comm, "MPI_Comm_rank", Fail(MPI_ERR_ARG, "rank is null"));
  *rank = c->rank;
  return MPI_SUCCESS;
}

int MPI_Comm_size(MPI_Comm comm, int* size) {
  GET_COMM(comm, c, "MPI_Comm_size");
  if (size == nullptr) return Report(comm, "MPI_Comm_size", Fail(MPI_ERR_ARG, "size is null"));
  *size = c->size;
  return MPI_SUCCESS;
}

int MPI_Comm_split(MPI_Comm comm, int color, int key, MPI_Comm* newcomm) {
  GET_COMM(comm, c, "MPI_Comm_split");
  if (newcomm == nullptr) return Report(comm, "MPI_Comm_split", Fail(MPI_ERR_ARG, "newcomm is null"));
  if (color < 0 && color != MPI_UNDEFINED) {
    return Report(comm, "MPI_Comm_split", Fail(MPI_ERR_ARG, "color " + std::to_string(color) + " is negative"));
  }
  const Error e = gpurun::mpi::Split(*c, color, key, newcomm);
  return e.ok() ? MPI_SUCCESS : Report(comm, "MPI_Comm_split", e);
}

int MPI_Comm_split_type(MPI_Comm comm, int split_type, int key, MPI_Info, MPI_Comm* newcomm) {
  GET_COMM(comm, c, "MPI_Comm_split_type");
  if (split_type != MPI_COMM_TYPE_SHARED && split_type != MPI_UNDEFINED) {
    return Report(comm, "MPI_Comm_split_type", Fail(MPI_ERR_ARG, "split_type must be MPI_COMM_TYPE_SHARED"));
  }
  int color = MPI_UNDEFINED;
  if (split_type == MPI_COMM_TYPE_SHARED) {
    grPeerInfo_t info;
    const grResult_t r = grCommPeerInfo(c->gr, c->rank, &info);
    if (r != grSuccess) return Report(comm, "MPI_Comm_split_type", gpurun::mpi::FromGr(r, "grCommPeerInfo"));
    color = info.node_id;
  }
  const Error e = gpurun::mpi::Split(*c, color, key, newcomm);
  return e.ok() ? MPI_SUCCESS : Report(comm, "MPI_Comm_split_type", e);
}

int MPI_Comm_dup(MPI_Comm comm, MPI_Comm* newcomm) {
  GET_COMM(comm, c, "MPI_Comm_dup");
  if (newcomm == nullptr) return Report(comm, "MPI_Comm_dup", Fail(MPI_ERR_ARG, "newcomm is null"));
  gpurun::mpi::DrainQueue(*c);
  grComm_t gr = GR_COMM_NULL;
  const grResult_t r = grCommDup(c->coll, &gr);
  if (r != grSuccess) return Report(comm, "MPI_Comm_dup", gpurun::mpi::FromGr(r, "grCommDup"));
  std::shared_ptr<Comm> made;
  const Error e = gpurun::mpi::MakeComm(gr, &made);
  if (!e.ok()) return Report(comm, "MPI_Comm_dup", e);
  made->errhandler.store(c->errhandler.load());
  made->cart_dims = c->cart_dims;
  made->cart_periods = c->cart_periods;
  *newcomm = gpurun::mpi::InsertComm(std::move(made));
  return MPI_SUCCESS;
}

int MPI_Comm_free(MPI_Comm* comm) {
  if (comm == nullptr) return Report(MPI_COMM_WORLD, "MPI_Comm_free", Fail(MPI_ERR_ARG, "comm is null"));
  GET_COMM(*comm, c, "MPI_Comm_free");
  if (c->predefined) {
    return Report(*comm, "MPI_Comm_free", Fail(MPI_ERR_COMM, "MPI_COMM_WORLD and MPI_COMM_SELF cannot be freed"));
  }
  gpurun::mpi::DrainQueue(*c);
  {
    gpurun::mpi::CommTable& t = gpurun::mpi::Comms();
    std::lock_guard<std::mutex> lock(t.mu);
    t.comms[*comm] = nullptr;
  }
  c.reset();  // frees the gpurun communicators once no operation holds it
  *comm = MPI_COMM_NULL;
  return MPI_SUCCESS;
}

int MPI_Comm_compare(MPI_Comm comm1, MPI_Comm comm2, int* result) {
  GET_COMM(comm1, a, "MPI_Comm_compare");
  GET_COMM(comm2, b, "MPI_Comm_compare");
  if (comm1 == comm2) {
    *result = MPI_IDENT;
  } else if (a->world_ranks == b->world_ranks) {
    *result = MPI_CONGRUENT;
  } else {
    std::vector<int> x = a->world_ranks, y = b->world_ranks;
    std::sort(x.begin(), x.end());
    std::sort(y.begin(), y.end());
    *result = x == y ? MPI_SIMILAR : MPI_UNEQUAL;
  }
  return MPI_SUCCESS;
}

int MPI_Comm_set_name(MPI_Comm comm, const char* name) {
  GET_COMM(comm, c, "MPI_Comm_set_name");
  c->name = std::string(name).substr(0, MPI_MAX_OBJECT_NAME - 1);
  return MPI_SUCCESS;
}

int MPI_Comm_get_name(MPI_Comm comm, char* name, int* resultlen) {
  GET_COMM(comm, c, "MPI_Comm_get_name");
  std::memcpy(name, c->name.c_str(), c->name.size() + 1);
  *resultlen = static_cast<int>(c->name.size());
  return MPI_SUCCESS;
}

int MPI_Comm_get_attr(MPI_Comm comm, int keyval, void* attribute_val, int* flag) {
  GET_COMM(comm, c, "MPI_Comm_get_attr");
  static int tag_ub = GR_TAG_UB, host = MPI_PROC_NULL, io = MPI_ANY_SOURCE, wtime_global = 0, appnum = 0;
  static int universe = 0;
  int* value = nullptr;
  switch (keyval) {
    case MPI_TAG_UB: value = &tag_ub; break;
    case MPI_HOST: value = &host; break;
    case MPI_IO: value = &io; break;
    case MPI_WTIME_IS_GLOBAL: value = &wtime_global; break;
    case MPI_APPNUM: value = &appnum; break;
    case MPI_UNIVERSE_SIZE:
      grCommSize(grCommWorld(), &universe);
      value = &universe;
      break;
    default: break;
  }
  *flag = value != nullptr;
  if (value != nullptr) *static_cast<int**>(attribute_val) = value;
  return MPI_SUCCESS;
}

int MPI_Comm_test_inter(MPI_Comm comm, int* flag) {
  GET_COMM(comm, c, "MPI_Comm_test_inter");
  *flag = 0;
  return MPI_SUCCESS;
}

int MPI_Comm_group(MPI_Comm comm, MPI_Group* group) {
  GET_COMM(comm, c, "MPI_Comm_group");
  *group = gpurun::mpi::InsertGroup(c->world_ranks);
  return MPI_SUCCESS;
}

int MPI_Group_size(MPI_Group group, int* size) {
  auto g = gpurun::mpi::FindGroup(group);
  if (g == nullptr) return gpurun::mpi::ReportWorld("MPI_Group_size", Fail(MPI_ERR_GROUP, "not a group"));
  *size = static_cast<int>(g->size());
  return MPI_SUCCESS;
}

int MPI_Group_rank(MPI_Group group, int* rank) {
  auto g = gpurun::mpi::FindGroup(group);
  if (g == nullptr) return gpurun::mpi::ReportWorld("MPI_Group_rank", Fail(MPI_ERR_GROUP, "not a group"));
  int me = 0;
  grCommRank(grCommWorld(), &me);
  auto it = std::find(g->begin(), g->end(), me);
  *rank = it == g->end() ? MPI_UNDEFINED : static_cast<int>(it - g->begin());
  return MPI_SUCCESS;
}

int MPI_Group_incl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  auto g = gpurun::mpi::FindGroup(group);
  if (g == nullptr || n < 0) return gpurun::mpi::ReportWorld("MPI_Group_incl", Fail(MPI_ERR_GROUP, "not a group"));
  std::vector<int> out;
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= static_cast<int>(g->size())) {
      return gpurun::mpi::ReportWorld("MPI_Group_incl",
                                      Fail(MPI_ERR_RANK, "rank " + std::to_string(ranks[i]) + " is not in the group"));
    }
    out.push_back((*g)[ranks[i]]);
  }
  *newgroup = gpurun::mpi::InsertGroup(std::move(out));
  return MPI_SUCCESS;
}

int MPI_Group_excl(MPI_Group group, int n, const int ranks[], MPI_Group* newgroup) {
  auto g = gpurun::mpi::FindGroup(group);
  if (g == nullptr || n < 0) return gpurun::mpi::ReportWorld("MPI_Group_excl", Fail(MPI_ERR_GROUP, "not a group"));
  std::vector<bool> drop(g->size(), false);
  for (int i = 0; i < n; ++i) {
    if (ranks[i] < 0 || ranks[i] >= static_cast<int>(g->size())) {
      return gpurun::mpi::ReportWorld("MPI_Group_excl",
                                      Fail(MPI_ERR_RANK, "rank " + std::to_string(ranks[i]) + " is not in the group"));
    }
    drop[ranks[i]] = true;
  }
  std::vector<int> out;
  for (size_t i = 0; i < g->size(); ++i) {
    if (!drop[i]) out.push_back((*g)[i]);
  }
  *newgroup = gpurun::mpi::InsertGroup(std::move(out));
  return MPI_SUCCESS;
}

int MPI_Group_translate_ranks(MPI_Group group1, int n, const int ranks1[], MPI_Group group2, int ranks2[]) {
  auto a = gpurun::mpi::FindGroup(group1);
  auto b = gpurun::mpi::FindGroup(group2);
  if (a == nullptr || b == nullptr) {
    return gpurun::mpi::ReportWorld("MPI_Group_translate_ranks", Fail(MPI_ERR_GROUP, "not a group"));
  }
  for (int i = 0; i < n; ++i) {
    if (ranks1[i] == MPI_PROC_NULL) {
      ranks2[i] = MPI_PROC_NULL;
      continue;
    }
    if (ranks1[i] < 0 || ranks1[i] >= static_cast<int>(a->size())) {
      return gpurun::mpi::ReportWorld("MPI_Group_translate_ranks", Fail(MPI_ERR_RANK, "rank out of range"));
    }
    auto it = std::find(b->begin(), b->end(), (*a)[ranks1[i]]);
    ranks2[i] = it == b->end() ? MPI_UNDEFINED : static_cast<int>(it - b->begin());
  }
  return MPI_SUCCESS;
}

int MPI_Group_free(MPI_Group* group) {
  gpurun::mpi::GroupTable& t = gpurun::mpi::Groups();
  std::lock_guard<std::mutex> lock(t.mu);
  if (group == nullptr || *group < 2 || static_cast<size_t>(*group) >= t.groups.size() || t.groups[*group] == nullptr) {
    return MPI_ERR_GROUP;
  }
  t.groups[*group] = nullptr;
  *group = MPI_GROUP_NULL;
  return MPI_SUCCESS;
}

int MPI_Comm_create(MPI_Comm comm, MPI_Group group, MPI_Comm* newcomm) {
  GET_COMM(comm, c, "MPI_Comm_create");
  auto g = gpurun::mpi::FindGroup(group);
  if (g == nullptr) return Report(comm, "MPI_Comm_create", Fail(MPI_ERR_GROUP, "not a group"));
  const int me = c->world_ranks[c->rank];
  auto it = std::find(g->begin(), g->end(), me);
  const int color = it == g->end() ? MPI_UNDEFINED : 0;
  const int key = it == g->end() ? 0 : static_cast<int>(it - g->begin());
  const Error e = gpurun::mpi::Split(*c, color, key, newcomm);
  return e.ok() ? MPI_SUCCESS : Report(comm, "MPI_Comm_create", e);
}

}  // extern "C"
