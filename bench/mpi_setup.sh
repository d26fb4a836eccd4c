# Sourced by the comparison scripts: makes sure Open MPI (mpicc, mpirun) is
# installed and sets mpirun_cmd (with --allow-run-as-root when root).
if ! command -v mpicc >/dev/null || ! command -v mpirun >/dev/null; then
  echo "installing Open MPI (openmpi-bin, libopenmpi-dev)" >&2
  _sudo=""; [ "$(id -u)" -eq 0 ] || _sudo="sudo"
  $_sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $_sudo apt-get install -y -qq openmpi-bin libopenmpi-dev >/dev/null
fi
mpirun_cmd=(mpirun)
[ "$(id -u)" -eq 0 ] && mpirun_cmd+=(--allow-run-as-root)
