// mp_probe: the rank program of the multi-process tests. It starts gpurun,
// then does what its first argument says, so one binary covers every
// launcher behaviour the tests check:
//
//   mp_probe peers                 check the all-gathered peer table, print "ok rank R size N"
//   mp_probe exit RANK CODE        RANK exits with CODE right after grInit; the others wait in grFinalize
//   mp_probe sigkill RANK          RANK kills itself with SIGKILL; the others sleep
//   mp_probe abort RANK CODE       RANK calls grAbort(world, CODE); the others sleep
//   mp_probe sleep SECONDS         every rank sleeps, then finalizes
//   mp_probe stdin                 every rank reads stdin to EOF and prints "rank R read N bytes: FIRST-LINE"
//   mp_probe env VAR...            print "rank R VAR=value" (or "rank R VAR unset")
//   mp_probe lines COUNT           print COUNT long lines, each in several partial writes
//   mp_probe init                  only grInit: prints its result and message, then finalizes if it worked
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "gpurun/gpurun.h"

namespace {

int g_rank = 0;
int g_size = 0;

int Fail(const char* what) {
  std::fprintf(stderr, "mp_probe rank %d: %s: %s\n", g_rank, what, grGetLastErrorMessage());
  return 1;
}

int Finish() { return grFinalize() == grSuccess ? 0 : Fail("grFinalize"); }

int Peers() {
  for (int r = 0; r < g_size; ++r) {
    grPeerInfo_t info;
    if (grCommPeerInfo(grCommWorld(), r, &info) != grSuccess) return Fail("grCommPeerInfo");
    if (info.rank != r || info.pid <= 0 || info.host[0] == '\0') {
      std::fprintf(stderr, "mp_probe rank %d: bad entry %d\n", g_rank, r);
      return 1;
    }
  }
  grPeerInfo_t me;
  if (grCommPeerInfo(grCommWorld(), g_rank, &me) != grSuccess || me.pid != getpid()) return Fail("own entry");
  std::printf("ok rank %d size %d local %d/%d\n", g_rank, g_size, me.local_rank, me.local_size);
  return Finish();
}

int Stdin() {
  std::string data((std::istreambuf_iterator<char>(std::cin)), std::istreambuf_iterator<char>());
  const std::string first = data.substr(0, data.find('\n'));
  std::printf("rank %d read %zu bytes: %s\n", g_rank, data.size(), first.c_str());
  return Finish();
}

int Env(int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    const char* v = std::getenv(argv[i]);
    if (v != nullptr) {
      std::printf("rank %d %s=%s\n", g_rank, argv[i], v);
    } else {
      std::printf("rank %d %s unset\n", g_rank, argv[i]);
    }
  }
  return Finish();
}

// Each line: "rank R line I " then 200 copies of the rank digit, written in
// three pieces with a flush and a pause between, to tempt interleaving.
int Lines(int count) {
  const std::string body(200, static_cast<char>('0' + g_rank % 10));
  for (int i = 0; i < count; ++i) {
    std::printf("rank %d line %d ", g_rank, i);
    std::fflush(stdout);
    std::printf("%s", body.substr(0, 100).c_str());
    std::fflush(stdout);
    if (i % 16 == 0) usleep(100);
    std::printf("%s\n", body.substr(100).c_str());
    std::fflush(stdout);
  }
  return Finish();
}

int SleepSeconds(double seconds) {
  usleep(static_cast<useconds_t>(seconds * 1e6));
  return Finish();
}

}  // namespace

int main(int argc, char** argv) {
  const std::string cmd = argc > 1 ? argv[1] : "peers";
  const grResult_t init = grInit(&argc, &argv);
  if (cmd == "init") {
    std::printf("grInit: %s: %s\n", grGetErrorString(init), grGetLastErrorMessage());
    return init == grSuccess ? Finish() : 1;
  }
  if (init != grSuccess) return Fail("grInit");
  if (grCommRank(grCommWorld(), &g_rank) != grSuccess || grCommSize(grCommWorld(), &g_size) != grSuccess) {
    return Fail("rank/size");
  }
  const int target = argc > 2 ? std::atoi(argv[2]) : -1;
  if (cmd == "peers") return Peers();
  if (cmd == "exit") {
    if (g_rank == target) _exit(std::atoi(argv[3]));
    return Finish();
  }
  if (cmd == "sigkill") {
    if (g_rank == target) raise(SIGKILL);
    return SleepSeconds(60);
  }
  if (cmd == "abort") {
    if (g_rank == target) grAbort(grCommWorld(), std::atoi(argv[3]));
    return SleepSeconds(60);
  }
  if (cmd == "sleep") return SleepSeconds(std::atof(argv[2]));
  if (cmd == "stdin") return Stdin();
  if (cmd == "env") return Env(argc, argv);
  if (cmd == "lines") return Lines(std::atoi(argv[2]));
  std::fprintf(stderr, "mp_probe: unknown command '%s'\n", cmd.c_str());
  return 2;
}
