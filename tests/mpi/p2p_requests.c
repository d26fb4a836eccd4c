/*
 * Requests: MPI_Waitall, MPI_Waitany and MPI_Waitsome (each request completes
 * once, then MPI_UNDEFINED), MPI_Test, MPI_Testall, MPI_Testany,
 * MPI_Wait on MPI_REQUEST_NULL (empty status), MPI_Cancel of a receive that
 * nothing matches (MPI_Test_cancelled), MPI_Request_free of a send.
 * Completion order may vary from run to run; only what the standard fixes is
 * printed.
 */
#include "mpitest.h"

enum { kN = 4 };
static int right, left;

/* kN receives from the left with tags 50..53, and the matching sends to the right in reverse order. */
static void post(int in[kN], int out[kN], MPI_Request rreq[kN], MPI_Request sreq[kN], int base) {
  for (int k = 0; k < kN; ++k) {
    in[k] = -1;
    OK(MPI_Irecv(&in[k], 1, MPI_INT, left, base + k, MPI_COMM_WORLD, &rreq[k]));
  }
  for (int k = kN - 1; k >= 0; --k) {
    out[k] = mt_rank * 10 + k;
    OK(MPI_Isend(&out[k], 1, MPI_INT, right, base + k, MPI_COMM_WORLD, &sreq[k]));
  }
}

static int received_ok(const int in[kN]) {
  int bad = 0;
  for (int k = 0; k < kN; ++k) bad += in[k] != left * 10 + k;
  return bad == 0;
}

static void waitany_waitsome(void) {
  int in[kN], out[kN], done[kN] = {0}, index = -1;
  MPI_Request rreq[kN], sreq[kN];
  MPI_Status st;
  post(in, out, rreq, sreq, 50);
  for (int i = 0; i < kN; ++i) {
    OK(MPI_Waitany(kN, rreq, &index, &st));
    if (CHECK(index >= 0 && index < kN)) {
      CHECK(!done[index] && rreq[index] == MPI_REQUEST_NULL && st.MPI_TAG == 50 + index);
      done[index] = 1;
    }
  }
  OK(MPI_Waitany(kN, rreq, &index, &st));
  CHECK(index == MPI_UNDEFINED);
  OK(MPI_Waitall(kN, sreq, MPI_STATUSES_IGNORE));
  CHECK(received_ok(in));
  say("waitany: %d completions, each request once, then %s", kN, index == MPI_UNDEFINED ? "MPI_UNDEFINED" : "?");

  int outcount = 0, indices[kN], total = 0;
  MPI_Status sts[kN];
  memset(done, 0, sizeof done);
  post(in, out, rreq, sreq, 60);
  while (total < kN) {
    OK(MPI_Waitsome(kN, rreq, &outcount, indices, sts));
    if (!CHECK(outcount >= 1 && outcount <= kN - total)) break;
    for (int i = 0; i < outcount; ++i) {
      CHECK(!done[indices[i]] && sts[i].MPI_TAG == 60 + indices[i]);
      done[indices[i]] = 1;
    }
    total += outcount;
  }
  OK(MPI_Waitsome(kN, rreq, &outcount, indices, sts));
  CHECK(outcount == MPI_UNDEFINED);
  OK(MPI_Waitall(kN, sreq, MPI_STATUSES_IGNORE));
  CHECK(received_ok(in));
  say("waitsome: %d completions, each request once, then %s", total, outcount == MPI_UNDEFINED ? "MPI_UNDEFINED" : "?");
}

static void tests(void) {
  int in[kN], out[kN], flag = 0, index = -1;
  MPI_Request rreq[kN], sreq[kN];
  post(in, out, rreq, sreq, 70);
  while (!flag) OK(MPI_Test(&rreq[0], &flag, MPI_STATUS_IGNORE));
  CHECK(rreq[0] == MPI_REQUEST_NULL && in[0] == left * 10);
  for (flag = 0; !flag;) OK(MPI_Testall(kN, rreq, &flag, MPI_STATUSES_IGNORE));
  for (flag = 0; !flag;) OK(MPI_Testall(kN, sreq, &flag, MPI_STATUSES_IGNORE));
  CHECK(received_ok(in));
  OK(MPI_Testany(kN, rreq, &index, &flag, MPI_STATUS_IGNORE));
  CHECK(flag == 1 && index == MPI_UNDEFINED);
  say("test/testall: all received; testany over null requests: flag %d, index %s", flag,
      index == MPI_UNDEFINED ? "MPI_UNDEFINED" : "?");

  MPI_Request null = MPI_REQUEST_NULL;
  MPI_Status st;
  int count = -1;
  OK(MPI_Wait(&null, &st));
  OK(MPI_Get_count(&st, MPI_INT, &count));
  CHECK(st.MPI_SOURCE == MPI_ANY_SOURCE && st.MPI_TAG == MPI_ANY_TAG && count == 0);
  say("wait on MPI_REQUEST_NULL: empty status (source %s, tag %s, count %d)",
      st.MPI_SOURCE == MPI_ANY_SOURCE ? "MPI_ANY_SOURCE" : "?", st.MPI_TAG == MPI_ANY_TAG ? "MPI_ANY_TAG" : "?", count);
}

static void cancel_and_free(void) {
  int never = -1, cancelled = 0;
  MPI_Request req;
  MPI_Status st;
  OK(MPI_Irecv(&never, 1, MPI_INT, left, 999, MPI_COMM_WORLD, &req));
  OK(MPI_Cancel(&req));
  OK(MPI_Wait(&req, &st));
  OK(MPI_Test_cancelled(&st, &cancelled));
  CHECK(cancelled && req == MPI_REQUEST_NULL && never == -1);
  say("cancel of an unmatched receive: cancelled %d", cancelled);

  /* A freed send still goes; the receive sees it. */
  int value = 900 + mt_rank, got = -1;
  OK(MPI_Isend(&value, 1, MPI_INT, right, 80, MPI_COMM_WORLD, &req));
  OK(MPI_Request_free(&req));
  CHECK(req == MPI_REQUEST_NULL);
  OK(MPI_Recv(&got, 1, MPI_INT, left, 80, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  CHECK(got == 900 + left);
  OK(MPI_Barrier(MPI_COMM_WORLD)); /* the freed send has been received everywhere before `value` goes */
  say("request_free: the freed send arrived: %d", got);
}

int main(int argc, char** argv) {
  mt_init(&argc, &argv, "p2p_requests");
  right = (mt_rank + 1) % mt_size;
  left = (mt_rank + mt_size - 1) % mt_size;
  waitany_waitsome();
  tests();
  cancel_and_free();
  const int rc = mt_finish();
  MPI_Finalize();
  return rc;
}
