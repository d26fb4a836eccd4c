/* mpi_probe: checks gpurun's MPI layer against MPI semantics, one function
 * group per argument, on any number of ranks (gpurun -n N mpi_probe GROUP).
 * Plain MPI C, built with build/bin/gpurun-cc. Each rank prints
 * "mpi GROUP ok rank R" when every check passed, else "FAIL ..." lines and
 * exits 1. Groups: world p2p ssend cancel coll reduce types nbc errors topo
 * unsupported comm; "all" runs every group but the fatal ones; "fatal" ends
 * through MPI_ERRORS_ARE_FATAL on purpose; "peerdeath" kills rank 1 (run it
 * with gpurun --disable-auto-cleanup). */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank, g_size, g_failures;

#define CHECK(cond)                                                          \
  do {                                                                       \
    if (!(cond)) {                                                           \
      printf("FAIL rank %d %s:%d: %s\n", g_rank, __FILE__, __LINE__, #cond); \
      fflush(stdout);                                                        \
      ++g_failures;                                                          \
    }                                                                        \
  } while (0)
#define OK(call) CHECK((call) == MPI_SUCCESS)

static void GroupWorld(void) {
  int flag = 0, v = 0, sv = 0, len = 0, provided = 0;
  char name[MPI_MAX_PROCESSOR_NAME], lib[MPI_MAX_LIBRARY_VERSION_STRING];
  OK(MPI_Initialized(&flag));
  CHECK(flag == 1);
  OK(MPI_Finalized(&flag));
  CHECK(flag == 0);
  OK(MPI_Query_thread(&provided));
  CHECK(provided == MPI_THREAD_MULTIPLE);
  OK(MPI_Get_version(&v, &sv));
  CHECK(v == MPI_VERSION && sv == MPI_SUBVERSION);
  OK(MPI_Get_processor_name(name, &len));
  CHECK(len > 0 && (int)strlen(name) == len);
  OK(MPI_Get_library_version(lib, &len));
  CHECK(strstr(lib, "gpurun") != NULL);
  double t0 = MPI_Wtime(), t1 = MPI_Wtime();
  CHECK(t1 >= t0 && MPI_Wtick() > 0);
  int self_rank = -1, self_size = -1;
  OK(MPI_Comm_rank(MPI_COMM_SELF, &self_rank));
  OK(MPI_Comm_size(MPI_COMM_SELF, &self_size));
  CHECK(self_rank == 0 && self_size == 1);
  int* tag_ub = NULL;
  OK(MPI_Comm_get_attr(MPI_COMM_WORLD, MPI_TAG_UB, &tag_ub, &flag));
  CHECK(flag && *tag_ub >= 32767);
}

static void GroupComm(void) {
  MPI_Comm half, dup;
  int r = -1, s = -1, cmp = -1;
  OK(MPI_Comm_split(MPI_COMM_WORLD, g_rank % 2, -g_rank, &half));
  OK(MPI_Comm_rank(half, &r));
  OK(MPI_Comm_size(half, &s));
  CHECK(s == (g_size + 1 - g_rank % 2) / 2);
  CHECK(r == s - 1 - g_rank / 2); /* key -rank reverses the order */
  OK(MPI_Comm_dup(MPI_COMM_WORLD, &dup));
  OK(MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp));
  CHECK(cmp == MPI_CONGRUENT);
  OK(MPI_Comm_compare(dup, dup, &cmp));
  CHECK(cmp == MPI_IDENT);
  if (g_size > 1) {
    OK(MPI_Comm_compare(MPI_COMM_WORLD, half, &cmp));
    CHECK(cmp == MPI_UNEQUAL);
  }
  /* Messages on dup never match receives on world. */
  int x = g_rank, y = -1;
  OK(MPI_Sendrecv(&x, 1, MPI_INT, (g_rank + 1) % g_size, 5, &y, 1, MPI_INT, (g_rank + g_size - 1) % g_size, 5, dup,
                  MPI_STATUS_IGNORE));
  CHECK(y == (g_rank + g_size - 1) % g_size);
  MPI_Comm none;
  OK(MPI_Comm_split(MPI_COMM_WORLD, g_rank == 0 ? MPI_UNDEFINED : 1, 0, &none));
  CHECK((g_rank == 0) == (none == MPI_COMM_NULL));
  if (none != MPI_COMM_NULL) OK(MPI_Comm_free(&none));
  MPI_Comm node;
  OK(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  OK(MPI_Comm_size(node, &s));
  CHECK(s >= 1 && s <= g_size);
  MPI_Group wg, g2;
  OK(MPI_Comm_group(MPI_COMM_WORLD, &wg));
  int first = 0, tr = -1;
  OK(MPI_Group_incl(wg, 1, &first, &g2));
  OK(MPI_Group_translate_ranks(g2, 1, &first, wg, &tr));
  CHECK(tr == 0);
  MPI_Comm only0;
  OK(MPI_Comm_create(MPI_COMM_WORLD, g2, &only0));
  CHECK((g_rank == 0) == (only0 != MPI_COMM_NULL));
  if (only0 != MPI_COMM_NULL) OK(MPI_Comm_free(&only0));
  OK(MPI_Group_free(&g2));
  OK(MPI_Group_free(&wg));
  OK(MPI_Comm_free(&node));
  OK(MPI_Comm_free(&half));
  OK(MPI_Comm_free(&dup));
  CHECK(dup == MPI_COMM_NULL);
}

static void GroupP2p(void) {
  const int next = (g_rank + 1) % g_size, prev = (g_rank + g_size - 1) % g_size;
  int buf[64], got[64];
  for (int i = 0; i < 64; ++i) buf[i] = g_rank * 100 + i;
  MPI_Status st;
  /* Ring with Isend/Irecv, wildcard source and tag, Get_count. */
  MPI_Request reqs[2];
  OK(MPI_Irecv(got, 64, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &reqs[0]));
  OK(MPI_Isend(buf, 10, MPI_INT, next, 7, MPI_COMM_WORLD, &reqs[1]));
  MPI_Status sts[2];
  OK(MPI_Waitall(2, reqs, sts));
  CHECK(reqs[0] == MPI_REQUEST_NULL && reqs[1] == MPI_REQUEST_NULL);
  CHECK(sts[0].MPI_SOURCE == prev && sts[0].MPI_TAG == 7);
  int count = -1;
  OK(MPI_Get_count(&sts[0], MPI_INT, &count));
  CHECK(count == 10 && got[9] == prev * 100 + 9);
  OK(MPI_Get_count(&sts[0], MPI_DOUBLE, &count));
  CHECK(count == 5);
  OK(MPI_Get_count(&sts[0], MPI_LONG_DOUBLE, &count));
  CHECK(count == MPI_UNDEFINED);
  /* Non-overtaking: two messages, same tag, arrive in order. */
  int a = 1, b = 2, r1 = 0, r2 = 0;
  OK(MPI_Send(&a, 1, MPI_INT, next, 3, MPI_COMM_WORLD));
  OK(MPI_Send(&b, 1, MPI_INT, next, 3, MPI_COMM_WORLD));
  OK(MPI_Recv(&r1, 1, MPI_INT, prev, 3, MPI_COMM_WORLD, &st));
  OK(MPI_Recv(&r2, 1, MPI_INT, prev, 3, MPI_COMM_WORLD, &st));
  CHECK(r1 == 1 && r2 == 2);
  /* Probe then receive the probed size. */
  OK(MPI_Send(buf, 33, MPI_INT, next, 11, MPI_COMM_WORLD));
  OK(MPI_Probe(prev, 11, MPI_COMM_WORLD, &st));
  OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == 33 && st.MPI_SOURCE == prev);
  OK(MPI_Recv(got, count, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(got[32] == prev * 100 + 32);
  int flag = 1;
  OK(MPI_Iprobe(MPI_ANY_SOURCE, 12345, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
  CHECK(flag == 0);
  /* Sendrecv_replace around the ring. */
  int v = g_rank;
  OK(MPI_Sendrecv_replace(&v, 1, MPI_INT, next, 4, prev, 4, MPI_COMM_WORLD, &st));
  CHECK(v == prev && st.MPI_SOURCE == prev);
  /* MPI_PROC_NULL: immediate, empty status. */
  OK(MPI_Send(buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
  OK(MPI_Recv(got, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
  OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0);
  /* Waitany / Waitsome / Testall / Testany over several messages. */
  MPI_Request rr[3];
  int vals[3];
  for (int i = 0; i < 3; ++i) OK(MPI_Irecv(&vals[i], 1, MPI_INT, prev, 20 + i, MPI_COMM_WORLD, &rr[i]));
  for (int i = 2; i >= 0; --i) {
    int x = 1000 + i;
    OK(MPI_Send(&x, 1, MPI_INT, next, 20 + i, MPI_COMM_WORLD));
  }
  int idx = -1, done = 0;
  OK(MPI_Waitany(3, rr, &idx, &st));
  CHECK(idx >= 0 && idx < 3 && rr[idx] == MPI_REQUEST_NULL && vals[idx] == 1000 + idx);
  done = 1;
  while (done < 3) {
    int out = 0, ind[3];
    OK(MPI_Waitsome(3, rr, &out, ind, MPI_STATUSES_IGNORE));
    CHECK(out >= 1);
    done += out;
  }
  OK(MPI_Waitany(3, rr, &idx, &st));
  CHECK(idx == MPI_UNDEFINED);
  OK(MPI_Testall(3, rr, &flag, MPI_STATUSES_IGNORE));
  CHECK(flag == 1);
  OK(MPI_Testany(3, rr, &idx, &flag, MPI_STATUS_IGNORE));
  CHECK(flag == 1 && idx == MPI_UNDEFINED);
  /* Buffered send with an attached buffer. */
  int bsize = 4 * (int)sizeof(int) + 2 * MPI_BSEND_OVERHEAD;
  void* bbuf = malloc(bsize);
  OK(MPI_Buffer_attach(bbuf, bsize));
  int bs[2] = {7, 8};
  OK(MPI_Bsend(bs, 2, MPI_INT, next, 30, MPI_COMM_WORLD));
  OK(MPI_Recv(got, 2, MPI_INT, prev, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(got[0] == 7 && got[1] == 8);
  void* detached = NULL;
  int dsize = 0;
  OK(MPI_Buffer_detach(&detached, &dsize));
  CHECK(detached == bbuf && dsize == bsize);
  free(bbuf);
  /* Request_free of a send still in flight; Rsend to a posted receive. */
  MPI_Request fr, rq;
  OK(MPI_Irecv(&r1, 1, MPI_INT, prev, 40, MPI_COMM_WORLD, &rq));
  OK(MPI_Barrier(MPI_COMM_WORLD));
  OK(MPI_Isend(&a, 1, MPI_INT, next, 40, MPI_COMM_WORLD, &fr));
  OK(MPI_Request_free(&fr));
  CHECK(fr == MPI_REQUEST_NULL);
  OK(MPI_Wait(&rq, MPI_STATUS_IGNORE));
  CHECK(r1 == 1);
  /* A big message (rendezvous). */
  const int big = 1 << 20;
  double* bx = malloc(big * sizeof(double));
  double* by = malloc(big * sizeof(double));
  for (int i = 0; i < big; ++i) bx[i] = g_rank + i * 0.5;
  OK(MPI_Sendrecv(bx, big, MPI_DOUBLE, next, 50, by, big, MPI_DOUBLE, prev, 50, MPI_COMM_WORLD, &st));
  CHECK(by[0] == prev && by[big - 1] == prev + (big - 1) * 0.5);
  free(bx);
  free(by);
}

/* MPI_Ssend completes only once the receive has matched: rank 0's Issend
 * stays incomplete while rank 1 waits for a go message before receiving. */
static void GroupSsend(void) {
  if (g_size < 2) return;
  int x = 42, y = 0, go = 1;
  if (g_rank == 0) {
    MPI_Request r;
    int flag = 0;
    OK(MPI_Issend(&x, 1, MPI_INT, 1, 1, MPI_COMM_WORLD, &r));
    for (int i = 0; i < 200; ++i) {
      OK(MPI_Test(&r, &flag, MPI_STATUS_IGNORE));
      CHECK(flag == 0);
      if (flag) break;
    }
    OK(MPI_Send(&go, 1, MPI_INT, 1, 2, MPI_COMM_WORLD));
    OK(MPI_Wait(&r, MPI_STATUS_IGNORE));
    OK(MPI_Ssend(&x, 1, MPI_INT, 1, 3, MPI_COMM_WORLD));
    /* A large synchronous message. */
    int* big = calloc(1 << 20, sizeof(int));
    big[12345] = 6;
    OK(MPI_Ssend(big, 1 << 20, MPI_INT, 1, 4, MPI_COMM_WORLD));
    free(big);
  } else if (g_rank == 1) {
    OK(MPI_Recv(&go, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Recv(&y, 1, MPI_INT, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(y == 42);
    OK(MPI_Recv(&y, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(y == 42);
    int* big = malloc((1 << 20) * sizeof(int));
    OK(MPI_Recv(big, 1 << 20, MPI_INT, 0, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    CHECK(big[12345] == 6);
    free(big);
  }
  /* Progress of nonblocking collectives: Ibarrier, then Ssend/Recv, then Wait. */
  MPI_Request b;
  if (g_rank == 0) {
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &b));
    OK(MPI_Ssend(&x, 1, MPI_INT, 1, 9, MPI_COMM_WORLD));
    OK(MPI_Wait(&b, MPI_STATUS_IGNORE));
  } else if (g_rank == 1) {
    OK(MPI_Recv(&y, 1, MPI_INT, 0, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &b));
    OK(MPI_Wait(&b, MPI_STATUS_IGNORE));
  } else {
    OK(MPI_Ibarrier(MPI_COMM_WORLD, &b));
    OK(MPI_Wait(&b, MPI_STATUS_IGNORE));
  }
}

static void GroupCancel(void) {
  int x = 0;
  MPI_Request r;
  MPI_Status st;
  int flag = 0;
  OK(MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 999, MPI_COMM_WORLD, &r));
  OK(MPI_Cancel(&r));
  OK(MPI_Wait(&r, &st));
  OK(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 1);
  /* A receive that has already matched is not cancelled. */
  int v = 5;
  OK(MPI_Send(&v, 1, MPI_INT, 0, 998, MPI_COMM_SELF));
  OK(MPI_Irecv(&x, 1, MPI_INT, 0, 998, MPI_COMM_SELF, &r));
  OK(MPI_Cancel(&r));
  OK(MPI_Wait(&r, &st));
  OK(MPI_Test_cancelled(&st, &flag));
  CHECK(flag == 0 && x == 5);
}

static int Sum(int n) { return n * (n - 1) / 2; }

static void GroupColl(void) {
  const int n = g_size;
  int v = g_rank + 1, out = 0;
  OK(MPI_Barrier(MPI_COMM_WORLD));
  int bc[4] = {0, 0, 0, 0};
  if (g_rank == n - 1) bc[0] = 11, bc[3] = 44;
  OK(MPI_Bcast(bc, 4, MPI_INT, n - 1, MPI_COMM_WORLD));
  CHECK(bc[0] == 11 && bc[3] == 44);
  OK(MPI_Allreduce(&v, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(out == n * (n + 1) / 2);
  out = -1;
  OK(MPI_Reduce(&v, &out, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD));
  if (g_rank == 0) CHECK(out == n);
  double d = g_rank;
  OK(MPI_Allreduce(MPI_IN_PLACE, &d, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
  CHECK(d == Sum(n));
  int* all = malloc(sizeof(int) * n * 2);
  int mine[2] = {g_rank, -g_rank};
  OK(MPI_Allgather(mine, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i) CHECK(all[2 * i] == i && all[2 * i + 1] == -i);
  for (int i = 0; i < 2 * n; ++i) all[i] = -7;
  all[2 * g_rank] = g_rank;
  all[2 * g_rank + 1] = -g_rank;
  OK(MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, all, 2, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i) CHECK(all[2 * i] == i && all[2 * i + 1] == -i);
  OK(MPI_Gather(mine, 2, MPI_INT, all, 2, MPI_INT, 0, MPI_COMM_WORLD));
  if (g_rank == 0)
    for (int i = 0; i < n; ++i) CHECK(all[2 * i] == i);
  /* Gatherv / Allgatherv / Scatterv: rank i contributes i+1 elements. */
  int* counts = malloc(sizeof(int) * n);
  int* displs = malloc(sizeof(int) * n);
  int total = 0;
  for (int i = 0; i < n; ++i) counts[i] = i + 1, displs[i] = total, total += i + 2; /* a gap after each block */
  int* vbuf = malloc(sizeof(int) * total);
  int* part = malloc(sizeof(int) * (g_rank + 1));
  for (int i = 0; i <= g_rank; ++i) part[i] = g_rank * 10 + i;
  OK(MPI_Allgatherv(part, g_rank + 1, MPI_INT, vbuf, counts, displs, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) CHECK(vbuf[displs[i] + j] == i * 10 + j);
  for (int i = 0; i < total; ++i) vbuf[i] = -1;
  OK(MPI_Gatherv(part, g_rank + 1, MPI_INT, vbuf, counts, displs, MPI_INT, n - 1, MPI_COMM_WORLD));
  if (g_rank == n - 1)
    for (int i = 0; i < n; ++i) CHECK(vbuf[displs[i] + i] == i * 10 + i);
  for (int i = 0; i <= g_rank; ++i) part[i] = -1;
  OK(MPI_Scatterv(vbuf, counts, displs, MPI_INT, part, g_rank + 1, MPI_INT, n - 1, MPI_COMM_WORLD));
  for (int i = 0; i <= g_rank; ++i) CHECK(part[i] == g_rank * 10 + i);
  int sc = -1;
  int* src = malloc(sizeof(int) * n);
  for (int i = 0; i < n; ++i) src[i] = 100 + i;
  OK(MPI_Scatter(src, 1, MPI_INT, &sc, 1, MPI_INT, 0, MPI_COMM_WORLD));
  CHECK(sc == 100 + g_rank);
  /* Alltoall(v). */
  int* sa = malloc(sizeof(int) * n);
  int* ra = malloc(sizeof(int) * n);
  for (int i = 0; i < n; ++i) sa[i] = g_rank * 1000 + i;
  OK(MPI_Alltoall(sa, 1, MPI_INT, ra, 1, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i) CHECK(ra[i] == i * 1000 + g_rank);
  OK(MPI_Alltoall(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, sa, 1, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i) CHECK(sa[i] == i * 1000 + g_rank);
  int* ones = malloc(sizeof(int) * n);
  int* offs = malloc(sizeof(int) * n);
  for (int i = 0; i < n; ++i) ones[i] = 1, offs[i] = n - 1 - i;
  for (int i = 0; i < n; ++i) sa[i] = g_rank * 1000 + i;
  OK(MPI_Alltoallv(sa, ones, offs, MPI_INT, ra, ones, offs, MPI_INT, MPI_COMM_WORLD));
  for (int i = 0; i < n; ++i) CHECK(ra[n - 1 - i] == i * 1000 + (n - 1 - g_rank));
  /* Reduce_scatter(_block), Scan, Exscan. */
  for (int i = 0; i < n; ++i) sa[i] = g_rank + i;
  OK(MPI_Reduce_scatter_block(sa, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(out == Sum(n) + n * g_rank);
  for (int i = 0; i < n; ++i) sa[i] = g_rank + i;
  OK(MPI_Reduce_scatter_block(MPI_IN_PLACE, sa, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(sa[0] == Sum(n) + n * g_rank);
  int rs_total = 0;
  for (int i = 0; i < n; ++i) rs_total += counts[i];
  int* rs_in = malloc(sizeof(int) * rs_total);
  for (int i = 0; i < rs_total; ++i) rs_in[i] = i;
  int* rs_out = malloc(sizeof(int) * (g_rank + 1));
  OK(MPI_Reduce_scatter(rs_in, rs_out, counts, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  int start = g_rank * (g_rank + 1) / 2;
  for (int j = 0; j <= g_rank; ++j) CHECK(rs_out[j] == n * (start + j));
  OK(MPI_Scan(&v, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(out == (g_rank + 1) * (g_rank + 2) / 2);
  out = -5;
  OK(MPI_Exscan(&v, &out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  if (g_rank > 0) CHECK(out == g_rank * (g_rank + 1) / 2);
  free(all), free(counts), free(displs), free(vbuf), free(part), free(src), free(sa), free(ra), free(ones), free(offs);
  free(rs_in), free(rs_out);
}

/* A non-commutative user op: 2x2 integer matrix product (rank order matters). */
static void MatMul(void* in, void* inout, int* len, MPI_Datatype* type) {
  (void)type;
  int* a = in;
  int* b = inout;
  for (int k = 0; k < *len; ++k, a += 4, b += 4) {
    int c[4] = {a[0] * b[0] + a[1] * b[2], a[0] * b[1] + a[1] * b[3], a[2] * b[0] + a[3] * b[2],
                a[2] * b[1] + a[3] * b[3]};
    memcpy(b, c, sizeof(c));
  }
}

static void GroupReduce(void) {
  const int n = g_size;
  short s = (short)(g_rank + 1), so = 0;
  OK(MPI_Allreduce(&s, &so, 1, MPI_SHORT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(so == n * (n + 1) / 2);
  long double ld = g_rank + 0.5L, ldo = 0;
  OK(MPI_Allreduce(&ld, &ldo, 1, MPI_LONG_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
  CHECK(ldo == n - 0.5L);
  _Bool bl = g_rank == 0, blo = 0;
  OK(MPI_Allreduce(&bl, &blo, 1, MPI_C_BOOL, MPI_LOR, MPI_COMM_WORLD));
  CHECK(blo == 1);
  OK(MPI_Allreduce(&bl, &blo, 1, MPI_C_BOOL, MPI_LAND, MPI_COMM_WORLD));
  CHECK(blo == (n == 1));
  unsigned bits = 1u << (g_rank % 32), bo = 0;
  OK(MPI_Allreduce(&bits, &bo, 1, MPI_UNSIGNED, MPI_BOR, MPI_COMM_WORLD));
  CHECK(bo == (n >= 32 ? 0xffffffffu : (1u << n) - 1));
  int x = g_rank % 2, xo = -1;
  OK(MPI_Allreduce(&x, &xo, 1, MPI_INT, MPI_LXOR, MPI_COMM_WORLD));
  CHECK(xo == (n / 2) % 2);
  char c = 1, co = 0;
  OK(MPI_Allreduce(&c, &co, 1, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD));
  CHECK(co == n);
  struct {
    double v;
    int i;
  } pin = {(double)(g_rank % 3), g_rank}, pmax, pmin;
  OK(MPI_Allreduce(&pin, &pmax, 1, MPI_DOUBLE_INT, MPI_MAXLOC, MPI_COMM_WORLD));
  OK(MPI_Allreduce(&pin, &pmin, 1, MPI_DOUBLE_INT, MPI_MINLOC, MPI_COMM_WORLD));
  CHECK(pmax.v == (n >= 3 ? 2 : n - 1) && pmax.i == (n >= 3 ? 2 : n - 1));
  CHECK(pmin.v == 0 && pmin.i == 0);
  int pi[2] = {-g_rank, g_rank}, po[2];
  OK(MPI_Reduce(pi, po, 1, MPI_2INT, MPI_MINLOC, 0, MPI_COMM_WORLD));
  if (g_rank == 0) CHECK(po[0] == -(n - 1) && po[1] == n - 1);
  /* User op, non-commutative: product of [[1,r],[0,1]] is [[1,sum r],[0,1]]
   * whatever the order, so use [[r+1,1],[0,1]] whose product depends on it. */
  MPI_Op mm;
  OK(MPI_Op_create(MatMul, 0, &mm));
  int commute = 1;
  OK(MPI_Op_commutative(mm, &commute));
  CHECK(commute == 0);
  int m[4] = {g_rank + 1, 1, 0, 1}, mo[4];
  int expect[4] = {1, 0, 0, 1};
  for (int r = 0; r < n; ++r) {
    int a[4] = {expect[0], expect[1], expect[2], expect[3]}, b[4] = {r + 1, 1, 0, 1};
    expect[0] = a[0] * b[0] + a[1] * b[2];
    expect[1] = a[0] * b[1] + a[1] * b[3];
    expect[2] = a[2] * b[0] + a[3] * b[2];
    expect[3] = a[2] * b[1] + a[3] * b[3];
  }
  MPI_Datatype mat;
  OK(MPI_Type_contiguous(4, MPI_INT, &mat));
  OK(MPI_Type_commit(&mat));
  OK(MPI_Allreduce(m, mo, 1, mat, mm, MPI_COMM_WORLD));
  CHECK(memcmp(mo, expect, sizeof(expect)) == 0);
  OK(MPI_Scan(m, mo, 1, mat, mm, MPI_COMM_WORLD));
  OK(MPI_Type_free(&mat));
  OK(MPI_Op_free(&mm));
  CHECK(mm == MPI_OP_NULL);
  int li[3] = {1, 2, 3}, lo[3] = {10, 20, 30};
  OK(MPI_Reduce_local(li, lo, 3, MPI_INT, MPI_SUM));
  CHECK(lo[0] == 11 && lo[2] == 33);
}

static void GroupTypes(void) {
  const int next = (g_rank + 1) % g_size, prev = (g_rank + g_size - 1) % g_size;
  int size = 0;
  char name[MPI_MAX_OBJECT_NAME];
  int len = 0;
  OK(MPI_Type_size(MPI_DOUBLE, &size));
  CHECK(size == 8);
  OK(MPI_Type_size(MPI_LONG_DOUBLE, &size));
  CHECK(size == (int)sizeof(long double));
  OK(MPI_Type_get_name(MPI_UNSIGNED_LONG_LONG, name, &len));
  CHECK(strcmp(name, "MPI_UNSIGNED_LONG_LONG") == 0 && len == 22);
  /* Vector: every other element of a 4x4 matrix's column. */
  MPI_Datatype col;
  OK(MPI_Type_vector(4, 1, 4, MPI_INT, &col));
  OK(MPI_Type_commit(&col));
  MPI_Aint lb, extent;
  OK(MPI_Type_get_extent(col, &lb, &extent));
  CHECK(lb == 0 && extent == (MPI_Aint)(13 * sizeof(int)));
  OK(MPI_Type_size(col, &size));
  CHECK(size == 16);
  int mat[16], got[16];
  for (int i = 0; i < 16; ++i) mat[i] = g_rank * 100 + i, got[i] = -1;
  OK(MPI_Sendrecv(mat + 1, 1, col, next, 1, got + 2, 1, col, prev, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  for (int i = 0; i < 4; ++i) CHECK(got[2 + 4 * i] == prev * 100 + 1 + 4 * i);
  CHECK(got[0] == -1 && got[3] == -1);
  /* Indexed and struct types, received as contiguous ints. */
  int lens[2] = {2, 1}, disps[2] = {0, 5};
  MPI_Datatype idx;
  OK(MPI_Type_indexed(2, lens, disps, MPI_INT, &idx));
  OK(MPI_Type_commit(&idx));
  int flat[3];
  OK(MPI_Sendrecv(mat, 1, idx, next, 2, flat, 3, MPI_INT, prev, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(flat[0] == prev * 100 && flat[1] == prev * 100 + 1 && flat[2] == prev * 100 + 5);
  struct Particle {
    double x;
    int id;
    char tag;
  } ps[2] = {{1.5, g_rank, 'a'}, {2.5, g_rank + 10, 'b'}}, pr[2];
  int bl[3] = {1, 1, 1};
  MPI_Aint pd[3], base;
  MPI_Datatype pt[3] = {MPI_DOUBLE, MPI_INT, MPI_CHAR}, ptype, presized;
  OK(MPI_Get_address(&ps[0], &base));
  OK(MPI_Get_address(&ps[0].x, &pd[0]));
  OK(MPI_Get_address(&ps[0].id, &pd[1]));
  OK(MPI_Get_address(&ps[0].tag, &pd[2]));
  for (int i = 0; i < 3; ++i) pd[i] -= base;
  OK(MPI_Type_create_struct(3, bl, pd, pt, &ptype));
  OK(MPI_Type_create_resized(ptype, 0, sizeof(struct Particle), &presized));
  OK(MPI_Type_commit(&presized));
  OK(MPI_Type_size(presized, &size));
  CHECK(size == 13);
  OK(MPI_Sendrecv(ps, 2, presized, next, 3, pr, 2, presized, prev, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(pr[1].x == 2.5 && pr[1].id == prev + 10 && pr[1].tag == 'b');
  /* Derived types in collectives: broadcast a column, gather structs. */
  for (int i = 0; i < 16; ++i) got[i] = (g_rank == 0) ? i : -1;
  OK(MPI_Bcast(got, 1, col, 0, MPI_COMM_WORLD));
  for (int i = 0; i < 4; ++i) CHECK(got[4 * i] == 4 * i);
  if (g_rank != 0) CHECK(got[1] == -1);
  struct Particle* everyone = malloc(sizeof(struct Particle) * g_size);
  OK(MPI_Allgather(ps, 1, presized, everyone, 1, presized, MPI_COMM_WORLD));
  for (int i = 0; i < g_size; ++i) CHECK(everyone[i].id == i && everyone[i].tag == 'a');
  free(everyone);
  /* Pack / Unpack. */
  char packed[64];
  int pos = 0, psize = 0;
  OK(MPI_Pack_size(1, col, MPI_COMM_WORLD, &psize));
  CHECK(psize == 16);
  OK(MPI_Pack(mat, 1, col, packed, sizeof(packed), &pos, MPI_COMM_WORLD));
  CHECK(pos == 16);
  int unpacked[4];
  pos = 0;
  OK(MPI_Unpack(packed, 16, &pos, unpacked, 4, MPI_INT, MPI_COMM_WORLD));
  CHECK(unpacked[1] == g_rank * 100 + 4);
  /* A receive of a derived type truncated: count of whole elements. */
  MPI_Status st;
  int count = 0;
  OK(MPI_Sendrecv(mat, 6, MPI_INT, next, 4, got, 2, col, prev, 4, MPI_COMM_WORLD, &st));
  OK(MPI_Get_count(&st, col, &count));
  CHECK(count == MPI_UNDEFINED);
  OK(MPI_Get_elements(&st, col, &count));
  CHECK(count == 6);
  OK(MPI_Type_free(&col));
  OK(MPI_Type_free(&idx));
  OK(MPI_Type_free(&ptype));
  OK(MPI_Type_free(&presized));
  CHECK(col == MPI_DATATYPE_NULL);
}

static void GroupNbc(void) {
  const int n = g_size;
  MPI_Request r[6];
  int v = g_rank + 1, sum = 0, mx = 0, bc = g_rank == 0 ? 77 : 0;
  int* all = malloc(sizeof(int) * n);
  OK(MPI_Iallreduce(&v, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]));
  OK(MPI_Ibcast(&bc, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[1]));
  OK(MPI_Iallgather(&v, 1, MPI_INT, all, 1, MPI_INT, MPI_COMM_WORLD, &r[2]));
  OK(MPI_Ireduce(&v, &mx, 1, MPI_INT, MPI_MAX, n - 1, MPI_COMM_WORLD, &r[3]));
  OK(MPI_Ibarrier(MPI_COMM_WORLD, &r[4]));
  short s = 1, ss = 0;
  OK(MPI_Iscan(&s, &ss, 1, MPI_SHORT, MPI_SUM, MPI_COMM_WORLD, &r[5]));
  /* Point-to-point meanwhile. */
  int x = g_rank, y = -1;
  OK(MPI_Sendrecv(&x, 1, MPI_INT, (g_rank + 1) % n, 0, &y, 1, MPI_INT, (g_rank + n - 1) % n, 0, MPI_COMM_WORLD,
                  MPI_STATUS_IGNORE));
  OK(MPI_Waitall(6, r, MPI_STATUSES_IGNORE));
  CHECK(sum == n * (n + 1) / 2 && bc == 77 && ss == g_rank + 1);
  for (int i = 0; i < n; ++i) CHECK(all[i] == i + 1);
  if (g_rank == n - 1) CHECK(mx == n);
  /* Test until done; then a blocking collective after a pending nonblocking one. */
  int flag = 0;
  OK(MPI_Iallreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]));
  int w = 1, wo = 0;
  OK(MPI_Allreduce(&w, &wo, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD));
  CHECK(wo == n);
  while (!flag) OK(MPI_Test(&r[0], &flag, MPI_STATUS_IGNORE));
  CHECK(v == n * (n + 1) / 2 && r[0] == MPI_REQUEST_NULL);
  int* sa = malloc(sizeof(int) * n);
  int* ra = malloc(sizeof(int) * n);
  for (int i = 0; i < n; ++i) sa[i] = g_rank * 10 + i;
  OK(MPI_Ialltoall(sa, 1, MPI_INT, ra, 1, MPI_INT, MPI_COMM_WORLD, &r[0]));
  OK(MPI_Wait(&r[0], MPI_STATUS_IGNORE));
  for (int i = 0; i < n; ++i) CHECK(ra[i] == i * 10 + g_rank);
  free(all), free(sa), free(ra);
}

static void GroupErrors(void) {
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  MPI_Errhandler h;
  OK(MPI_Comm_get_errhandler(MPI_COMM_WORLD, &h));
  CHECK(h == MPI_ERRORS_RETURN);
  int x = 0, cls = 0, len = 0;
  char msg[MPI_MAX_ERROR_STRING];
  CHECK(MPI_Send(&x, 1, MPI_INT, g_size, 0, MPI_COMM_WORLD) == MPI_ERR_RANK);
  CHECK(MPI_Send(&x, 1, MPI_INT, 0, -5, MPI_COMM_WORLD) == MPI_ERR_TAG);
  CHECK(MPI_Send(&x, -1, MPI_INT, 0, 0, MPI_COMM_WORLD) == MPI_ERR_COUNT);
  CHECK(MPI_Send(&x, 1, (MPI_Datatype)12345, 0, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE);
  CHECK(MPI_Bcast(&x, 1, MPI_INT, g_size, MPI_COMM_WORLD) == MPI_ERR_ROOT);
  CHECK(MPI_Allreduce(&x, &cls, 1, MPI_INT, (MPI_Op)999, MPI_COMM_WORLD) == MPI_ERR_OP);
  double d = 0, dd = 0;
  CHECK(MPI_Allreduce(&d, &dd, 1, MPI_DOUBLE, MPI_BAND, MPI_COMM_WORLD) == MPI_ERR_OP);
  CHECK(MPI_Allreduce(&d, &dd, 1, MPI_DOUBLE, MPI_MAXLOC, MPI_COMM_WORLD) == MPI_ERR_OP);
  MPI_Datatype uncommitted;
  OK(MPI_Type_contiguous(2, MPI_INT, &uncommitted));
  CHECK(MPI_Send(&x, 1, uncommitted, g_rank, 0, MPI_COMM_WORLD) == MPI_ERR_TYPE);
  OK(MPI_Type_free(&uncommitted));
  CHECK(MPI_Comm_rank((MPI_Comm)4242, &x) == MPI_ERR_COMM);
  MPI_Request bogus = (MPI_Request)7777;
  CHECK(MPI_Wait(&bogus, MPI_STATUS_IGNORE) == MPI_ERR_REQUEST);
  /* Truncation: a 4-int message into a 2-int receive. */
  int four[4] = {1, 2, 3, 4}, two[2];
  MPI_Status st;
  MPI_Comm self;
  OK(MPI_Comm_dup(MPI_COMM_SELF, &self));
  OK(MPI_Comm_set_errhandler(self, MPI_ERRORS_RETURN));
  OK(MPI_Send(four, 4, MPI_INT, 0, 1, self));
  int rc = MPI_Recv(two, 2, MPI_INT, 0, 1, self, &st);
  CHECK(rc == MPI_ERR_TRUNCATE);
  OK(MPI_Error_class(rc, &cls));
  CHECK(cls == MPI_ERR_TRUNCATE);
  OK(MPI_Error_string(rc, msg, &len));
  CHECK(strstr(msg, "MPI_ERR_TRUNCATE") != NULL && len == (int)strlen(msg));
  /* Waitall reports MPI_ERR_IN_STATUS with each status's error. */
  MPI_Request rq[2];
  int y = 0;
  OK(MPI_Send(four, 4, MPI_INT, 0, 2, self));
  OK(MPI_Irecv(two, 2, MPI_INT, 0, 2, self, &rq[0]));
  OK(MPI_Isend(&y, 1, MPI_INT, 0, 3, self, &rq[1]));
  MPI_Status sts[2];
  CHECK(MPI_Waitall(2, rq, sts) == MPI_ERR_IN_STATUS);
  CHECK(sts[0].MPI_ERROR == MPI_ERR_TRUNCATE && sts[1].MPI_ERROR == MPI_SUCCESS);
  OK(MPI_Recv(&y, 1, MPI_INT, 0, 3, self, MPI_STATUS_IGNORE));
  OK(MPI_Comm_free(&self));
  /* Predefined communicators cannot be freed. */
  MPI_Comm w = MPI_COMM_WORLD;
  CHECK(MPI_Comm_free(&w) == MPI_ERR_COMM);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

static int g_handler_calls, g_handler_code;
static void Handler(MPI_Comm* comm, int* code, ...) {
  (void)comm;
  ++g_handler_calls;
  g_handler_code = *code;
}

static void GroupTopo(void) {
  int dims[3] = {0, 0, 0};
  OK(MPI_Dims_create(12, 3, dims));
  CHECK(dims[0] == 3 && dims[1] == 2 && dims[2] == 2);
  int d2[2] = {0, 3};
  OK(MPI_Dims_create(6, 2, d2));
  CHECK(d2[0] == 2 && d2[1] == 3);
  int pd[2] = {0, 0};
  OK(MPI_Dims_create(g_size, 2, pd));
  CHECK(pd[0] * pd[1] == g_size && pd[0] >= pd[1]);
  int periods[2] = {1, 0};
  MPI_Comm cart;
  OK(MPI_Cart_create(MPI_COMM_WORLD, 2, pd, periods, 0, &cart));
  int coords[2], r = -1, status = 0;
  OK(MPI_Cart_coords(cart, g_rank, 2, coords));
  OK(MPI_Cart_rank(cart, coords, &r));
  CHECK(r == g_rank && coords[0] == g_rank / pd[1] && coords[1] == g_rank % pd[1]);
  OK(MPI_Topo_test(cart, &status));
  CHECK(status == MPI_CART);
  int src = -1, dst = -1;
  OK(MPI_Cart_shift(cart, 0, 1, &src, &dst));
  CHECK(dst == ((coords[0] + 1) % pd[0]) * pd[1] + coords[1]);
  OK(MPI_Cart_shift(cart, 1, 1, &src, &dst));
  CHECK(dst == (coords[1] + 1 < pd[1] ? g_rank + 1 : MPI_PROC_NULL));
  CHECK(src == (coords[1] > 0 ? g_rank - 1 : MPI_PROC_NULL));
  int remain[2] = {0, 1};
  MPI_Comm row;
  OK(MPI_Cart_sub(cart, remain, &row));
  int rs = 0;
  OK(MPI_Comm_size(row, &rs));
  CHECK(rs == pd[1]);
  OK(MPI_Comm_free(&row));
  OK(MPI_Comm_free(&cart));
}

static void GroupUnsupported(void) {
  MPI_Errhandler h;
  OK(MPI_Comm_create_errhandler(Handler, &h));
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, h));
  MPI_Win win;
  int x = 0;
  CHECK(MPI_Win_create(&x, sizeof(x), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win) == MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK(win == MPI_WIN_NULL && g_handler_calls == 1 && g_handler_code == MPI_ERR_UNSUPPORTED_OPERATION);
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN));
  CHECK(MPI_Win_fence(0, win) == MPI_ERR_UNSUPPORTED_OPERATION);
  MPI_Comm g;
  int one = 1;
  CHECK(MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &one, MPI_UNWEIGHTED, 1, &one, MPI_UNWEIGHTED, MPI_INFO_NULL,
                                       0, &g) == MPI_ERR_UNSUPPORTED_OPERATION);
  CHECK(g == MPI_COMM_NULL);
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  OK(MPI_Error_string(MPI_ERR_UNSUPPORTED_OPERATION, msg, &len));
  CHECK(strstr(msg, "MPI_Dist_graph_create_adjacent") != NULL);
  OK(MPI_Errhandler_free(&h));
  OK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL));
}

/* Ends the job through MPI_ERRORS_ARE_FATAL: rank 0 sends to a rank that does not exist. */
static void GroupFatal(void) {
  int x = 0;
  if (g_rank == 0) MPI_Send(&x, 1, MPI_INT, g_size + 3, 0, MPI_COMM_WORLD);
  MPI_Barrier(MPI_COMM_WORLD);
}

/* Prints "WHAT: CLASS NAME [N]: MESSAGE" for one outcome of a wait. */
static void SayWait(const char* what, int code, int n) {
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(code, msg, &len);
  printf("%s [%d]: %s\n", what, n, msg);
  fflush(stdout);
}

/* Rank 1 is killed while rank 0 waits in MPI_Waitany and MPI_Waitsome on
 * mixes of requests from it: a receive into a derived datatype, a plain
 * receive, a nonblocking barrier of the world. Each wait must fail at once,
 * naming rank 1, not after GPURUN_TIMEOUT; rank 0 then exits 0 without
 * MPI_Finalize (the world is broken). Run on 2 ranks. */
static void GroupPeerDeath(void) {
  if (g_size != 2) return;
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  MPI_Barrier(MPI_COMM_WORLD);
  if (g_rank == 1) raise(SIGKILL);
  MPI_Datatype strided;
  MPI_Type_vector(3, 1, 2, MPI_INT, &strided);
  MPI_Type_commit(&strided);
  int grid[5], x, index = -2, out = -1, idx[3];
  MPI_Request r[3];
  MPI_Status st[3];
  /* Point-to-point requests only: gpurun's own wait. */
  MPI_Irecv(grid, 1, strided, 1, 1, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(&x, 1, MPI_INT, 1, 2, MPI_COMM_WORLD, &r[1]);
  const int rc = MPI_Waitany(2, r, &index, MPI_STATUS_IGNORE);
  SayWait("waitany", rc, index);
  /* A nonblocking collective among them: the polling wait. */
  MPI_Irecv(grid, 1, strided, 1, 3, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, &r[1]);
  MPI_Ibarrier(MPI_COMM_WORLD, &r[2]);
  const int some = MPI_Waitsome(3, r, &out, idx, st);
  SayWait("waitsome", some, out);
  for (int i = 0; i < out; ++i) SayWait("waitsome status", st[i].MPI_ERROR, idx[i]);
  exit(0);
}

static void GroupAbort(void) {
  if (g_rank == g_size - 1) MPI_Abort(MPI_COMM_WORLD, 7);
  MPI_Barrier(MPI_COMM_WORLD);
}

typedef struct {
  const char* name;
  void (*run)(void);
} Group;

static const Group kGroups[] = {
    {"world", GroupWorld},   {"comm", GroupComm},     {"p2p", GroupP2p},       {"ssend", GroupSsend},
    {"cancel", GroupCancel}, {"coll", GroupColl},     {"reduce", GroupReduce}, {"types", GroupTypes},
    {"nbc", GroupNbc},       {"errors", GroupErrors}, {"topo", GroupTopo},     {"unsupported", GroupUnsupported},
};

int main(int argc, char** argv) {
  int provided = -1;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS) return 2;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  const char* which = argc > 1 ? argv[1] : "all";
  if (strcmp(which, "fatal") == 0) GroupFatal();
  if (strcmp(which, "abort") == 0) GroupAbort();
  if (strcmp(which, "peerdeath") == 0) GroupPeerDeath();
  int ran = 0;
  for (size_t i = 0; i < sizeof(kGroups) / sizeof(kGroups[0]); ++i) {
    if (strcmp(which, "all") != 0 && strcmp(which, kGroups[i].name) != 0) continue;
    kGroups[i].run();
    ++ran;
    MPI_Barrier(MPI_COMM_WORLD);
  }
  if (ran == 0) {
    printf("FAIL rank %d: unknown group %s\n", g_rank, which);
    ++g_failures;
  }
  MPI_Finalize();
  int flag = 0;
  MPI_Finalized(&flag);
  if (!flag) ++g_failures;
  if (g_failures == 0) printf("mpi %s ok rank %d\n", which, g_rank);
  fflush(stdout);
  return g_failures == 0 ? 0 : 1;
}
