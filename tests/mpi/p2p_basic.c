/*
 * Point-to-point basics: blocking and nonblocking send/receive around the
 * ring (non-overtaking order, a large message), self-sends, MPI_Sendrecv and
 * MPI_Sendrecv_replace, MPI_PROC_NULL, MPI_ANY_SOURCE/MPI_ANY_TAG with the
 * status fields, MPI_Probe/MPI_Iprobe and MPI_Get_count (MPI_UNDEFINED on a
 * partial element), zero-length messages.
 */
#include "mpitest.h"

static int right, left;

/* Four messages with one tag: they arrive in the order sent. */
static void ordered_ring(void) {
  int out[4], in[4] = {-1, -1, -1, -1};
  MPI_Request req[4];
  for (int k = 0; k < 4; ++k) {
    out[k] = mt_rank * 10 + k;
    OK(MPI_Isend(&out[k], 1, MPI_INT, right, 1, MPI_COMM_WORLD, &req[k]));
  }
  for (int k = 0; k < 4; ++k) OK(MPI_Recv(&in[k], 1, MPI_INT, left, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  OK(MPI_Waitall(4, req, MPI_STATUSES_IGNORE));
  for (int k = 0; k < 4; ++k) CHECK(in[k] == left * 10 + k);
  say_ints("ordered from left", in, 4);
}

/* 1 Mi ints each way (past any eager limit), Irecv posted before the send. */
static void large_ring(void) {
  const int n = 1 << 20;
  int* out = malloc(sizeof(int) * (size_t)n);
  int* in = malloc(sizeof(int) * (size_t)n);
  for (int i = 0; i < n; ++i) out[i] = mt_rank * 7 + i % 1000, in[i] = -1;
  MPI_Request req;
  MPI_Status st;
  OK(MPI_Irecv(in, n, MPI_INT, left, 2, MPI_COMM_WORLD, &req));
  OK(MPI_Send(out, n, MPI_INT, right, 2, MPI_COMM_WORLD));
  OK(MPI_Wait(&req, &st));
  int count = -1, bad = 0;
  OK(MPI_Get_count(&st, MPI_INT, &count));
  for (int i = 0; i < n; ++i) bad += in[i] != left * 7 + i % 1000;
  CHECK(bad == 0 && count == n && st.MPI_SOURCE == left && st.MPI_TAG == 2);
  say("large from left: count %d, source %d, tag %d, %d wrong", count, st.MPI_SOURCE, st.MPI_TAG, bad);
  free(out);
  free(in);
}

static void sendrecv(void) {
  int got = -1;
  MPI_Status st;
  OK(MPI_Sendrecv(&mt_rank, 1, MPI_INT, right, 3, &got, 1, MPI_INT, left, 3, MPI_COMM_WORLD, &st));
  CHECK(got == left && st.MPI_SOURCE == left);
  int buf[3] = {mt_rank, mt_rank * 100, -mt_rank};
  OK(MPI_Sendrecv_replace(buf, 3, MPI_INT, right, 4, left, 4, MPI_COMM_WORLD, &st));
  CHECK(buf[0] == left && buf[1] == left * 100 && buf[2] == -left);
  say("sendrecv got %d; sendrecv_replace got %d %d %d (tag %d)", got, buf[0], buf[1], buf[2], st.MPI_TAG);
}

static void proc_null(void) {
  int buf = 42, count = -1;
  MPI_Status st;
  OK(MPI_Send(&buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD));
  OK(MPI_Recv(&buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
  OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(buf == 42 && st.MPI_SOURCE == MPI_PROC_NULL && st.MPI_TAG == MPI_ANY_TAG && count == 0);
  MPI_Request req;
  OK(MPI_Irecv(&buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &req));
  OK(MPI_Wait(&req, &st));
  CHECK(req == MPI_REQUEST_NULL && st.MPI_SOURCE == MPI_PROC_NULL && buf == 42);
  OK(MPI_Sendrecv(&buf, 1, MPI_INT, MPI_PROC_NULL, 0, &buf, 1, MPI_INT, MPI_PROC_NULL, 0, MPI_COMM_WORLD, &st));
  CHECK(buf == 42 && st.MPI_SOURCE == MPI_PROC_NULL);
  say("proc_null: buffer untouched %d, source is MPI_PROC_NULL, tag is MPI_ANY_TAG, count %d", buf, count);
}

/* Rank 0 takes one message from every rank (itself included) with wildcards, on a duplicate of the world so
 * that no message of another section (the next one's, say) can match them. */
static void any_source(void) {
  int mine = 1000 + mt_rank;
  MPI_Comm comm;
  MPI_Request req;
  if (!OK(MPI_Comm_dup(MPI_COMM_WORLD, &comm))) return;
  OK(MPI_Isend(&mine, 1, MPI_INT, 0, 10 + mt_rank, comm, &req));
  if (mt_rank == 0) {
    int seen[64] = {0};
    for (int i = 0; i < mt_size; ++i) {
      int v = -1;
      MPI_Status st;
      OK(MPI_Recv(&v, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG, comm, &st));
      CHECK(st.MPI_SOURCE >= 0 && st.MPI_SOURCE < mt_size && st.MPI_TAG == 10 + st.MPI_SOURCE &&
            v == 1000 + st.MPI_SOURCE && !seen[st.MPI_SOURCE]);
      if (st.MPI_SOURCE >= 0 && st.MPI_SOURCE < 64) seen[st.MPI_SOURCE] = v;
    }
    say_ints("any_source values by source", seen, mt_size);
  }
  OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  OK(MPI_Comm_free(&comm));
}

/* rank + 1 ints to the right, found by MPI_Probe; a message never sent is not found by MPI_Iprobe. */
static void probe(void) {
  int out[64], flag = 1;
  for (int i = 0; i <= mt_rank; ++i) out[i] = mt_rank;
  OK(MPI_Iprobe(MPI_ANY_SOURCE, 777, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
  CHECK(flag == 0);
  MPI_Request req;
  OK(MPI_Isend(out, mt_rank + 1, MPI_INT, right, 6, MPI_COMM_WORLD, &req));
  MPI_Status st;
  int count = -1, in[64];
  OK(MPI_Probe(MPI_ANY_SOURCE, 6, MPI_COMM_WORLD, &st));
  OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(st.MPI_SOURCE == left && count == left + 1);
  OK(MPI_Recv(in, count, MPI_INT, st.MPI_SOURCE, 6, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  say("probe: source %d, tag %d, count %d", st.MPI_SOURCE, st.MPI_TAG, count);

  /* Iprobe until the message is there; 6 bytes are 1.5 ints: MPI_UNDEFINED. */
  char bytes[6] = {1, 2, 3, 4, 5, 6};
  OK(MPI_Isend(bytes, 6, MPI_BYTE, right, 8, MPI_COMM_WORLD, &req));
  for (flag = 0; !flag;) OK(MPI_Iprobe(left, 8, MPI_COMM_WORLD, &flag, &st));
  int as_ints = 0, as_bytes = 0;
  OK(MPI_Get_count(&st, MPI_INT, &as_ints));
  OK(MPI_Get_count(&st, MPI_BYTE, &as_bytes));
  CHECK(as_ints == MPI_UNDEFINED && as_bytes == 6);
  OK(MPI_Recv(bytes, 6, MPI_BYTE, left, 8, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  say("iprobe: 6 bytes, count as MPI_INT is %s", as_ints == MPI_UNDEFINED ? "MPI_UNDEFINED" : "defined");
}

static void zero_length(void) {
  MPI_Status st;
  int count = -1;
  OK(MPI_Sendrecv(NULL, 0, MPI_INT, right, 9, NULL, 0, MPI_INT, left, 9, MPI_COMM_WORLD, &st));
  OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(count == 0 && st.MPI_SOURCE == left && st.MPI_TAG == 9);
  say("zero length: count %d from %d", count, st.MPI_SOURCE);
}

int main(int argc, char** argv) {
  mt_init(&argc, &argv, "p2p_basic");
  right = (mt_rank + 1) % mt_size;
  left = (mt_rank + mt_size - 1) % mt_size;
  ordered_ring();
  large_ring();
  sendrecv();
  proc_null();
  any_source();
  probe();
  zero_length();
  const int rc = mt_finish();
  MPI_Finalize();
  return rc;
}
