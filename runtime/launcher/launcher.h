// The gpurun program, minus main(): parses the command line, loads the
// GPURUN_* parameters, handles --help/--version/--print-params, checks the
// program, and runs the job.
#ifndef GPURUN_RUNTIME_LAUNCHER_LAUNCHER_H_
#define GPURUN_RUNTIME_LAUNCHER_LAUNCHER_H_

namespace gpurun::launcher {

// Returns gpurun's exit status (see --help). Call once per process.
int RunLauncher(int argc, char** argv);

}  // namespace gpurun::launcher

#endif  // GPURUN_RUNTIME_LAUNCHER_LAUNCHER_H_
