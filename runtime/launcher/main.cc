// gpurun: start N ranks of a program on this node (see launcher.h, --help).
#include "runtime/launcher/launcher.h"

int main(int argc, char** argv) { return gpurun::launcher::RunLauncher(argc, argv); }
