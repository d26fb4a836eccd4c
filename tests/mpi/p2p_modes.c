/*
 * Send modes: MPI_Ssend (pairs 0-1, 2-3, ...; an odd last rank sits out),
 * MPI_Rsend to a receive known to be posted, MPI_Bsend through a buffer from
 * MPI_Buffer_attach (small and 256 KiB messages, to self when alone) and
 * MPI_Buffer_detach giving the buffer back.
 */
#include "mpitest.h"

static void ssend_pairs(void) {
  const int peer = mt_rank ^ 1;
  if (peer >= mt_size) {
    say("ssend: no partner");
    return;
  }
  int out[2] = {mt_rank, mt_rank * 3}, in[2] = {-1, -1};
  for (int turn = 0; turn < 2; ++turn) {
    if ((mt_rank % 2) == turn)
      OK(MPI_Ssend(out, 2, MPI_INT, peer, 20 + turn, MPI_COMM_WORLD));
    else
      OK(MPI_Recv(in, 2, MPI_INT, peer, 20 + turn, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  }
  CHECK(in[0] == peer && in[1] == peer * 3);
  say_ints("ssend: got from partner", in, 2);
}

/* The receive is posted before a zero-byte handshake, so the ready send finds it. */
static void rsend_ring(void) {
  const int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
  int got = -1, token = 0;
  MPI_Request req;
  OK(MPI_Irecv(&got, 1, MPI_INT, left, 30, MPI_COMM_WORLD, &req));
  OK(MPI_Sendrecv(&token, 0, MPI_INT, left, 31, &token, 0, MPI_INT, right, 31, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  const int value = 500 + mt_rank;
  OK(MPI_Rsend(&value, 1, MPI_INT, right, 30, MPI_COMM_WORLD));
  OK(MPI_Wait(&req, MPI_STATUS_IGNORE));
  CHECK(got == 500 + left);
  say("rsend: got %d", got);
}

static void bsend_ring(void) {
  const int right = (mt_rank + 1) % mt_size, left = (mt_rank + mt_size - 1) % mt_size;
  const int big = 1 << 16; /* ints */
  const int size = 3 * ((int)sizeof(int) * 4 + MPI_BSEND_OVERHEAD) + (int)sizeof(int) * big + MPI_BSEND_OVERHEAD;
  char* buffer = malloc((size_t)size);
  OK(MPI_Buffer_attach(buffer, size));
  int small[3][4];
  int* large = malloc(sizeof(int) * (size_t)big);
  for (int m = 0; m < 3; ++m) {
    for (int i = 0; i < 4; ++i) small[m][i] = mt_rank * 100 + m * 10 + i;
    OK(MPI_Bsend(small[m], 4, MPI_INT, right, 40 + m, MPI_COMM_WORLD));
    small[m][0] = -1; /* the buffered copy went, not this one */
  }
  for (int i = 0; i < big; ++i) large[i] = mt_rank + i;
  OK(MPI_Bsend(large, big, MPI_INT, right, 43, MPI_COMM_WORLD));
  memset(large, 0, sizeof(int) * (size_t)big);
  int got[3][4];
  for (int m = 2; m >= 0; --m) OK(MPI_Recv(got[m], 4, MPI_INT, left, 40 + m, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  OK(MPI_Recv(large, big, MPI_INT, left, 43, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
  int bad = 0;
  for (int i = 0; i < big; ++i) bad += large[i] != left + i;
  for (int m = 0; m < 3; ++m) {
    for (int i = 0; i < 4; ++i) bad += got[m][i] != left * 100 + m * 10 + i;
  }
  void* back = NULL;
  int back_size = 0;
  OK(MPI_Buffer_detach(&back, &back_size));
  CHECK(bad == 0 && back == buffer && back_size == size);
  say("bsend: 3 small and one of %d ints from %d, %d wrong; detach gave the buffer back: %s", big, left, bad,
      back == buffer && back_size == size ? "yes" : "no");
  free(large);
  free(buffer);
}

int main(int argc, char** argv) {
  mt_init(&argc, &argv, "p2p_modes");
  ssend_pairs();
  rsend_ring();
  bsend_ring();
  const int rc = mt_finish();
  MPI_Finalize();
  return rc;
}
