#!/usr/bin/env bash
# Cargo runner (see .cargo/config.toml): qemu-run.sh <qemu-machine> <elf>
# Runs the firmware under QEMU, prints its defmt log and exits with the firmware's exit code
# (0 all predictions match the host, 1 a mismatch, 2 bad model or data, 101 panic, 102 HardFault).
# Inside the ltu repository the xtask does this (`cargo xtask run-elf`, which decodes defmt itself);
# set INSNCOUNT=1 to also print the instruction count of every measured region.
# In a copy of this directory without the xtask, it pipes QEMU into defmt-print
# (`cargo install defmt-print`).
set -euo pipefail
machine="$1"
elf="$(realpath "$2")"
here="$(cd "$(dirname "$0")" && pwd)"
if [[ -f "$here/../xtask/Cargo.toml" ]]; then
  # Run cargo from the repository root so this directory's build target does not apply to the xtask.
  cd "$here/.."
  exec cargo run -q -p xtask -- run-elf --machine "$machine" ${INSNCOUNT:+--count} "$elf"
fi
timeout -k 5 "${QEMU_TIMEOUT:-120}" \
  qemu-system-arm -machine "$machine" -display none -serial null -monitor none \
    -semihosting-config enable=on,target=native -kernel "$elf" \
  | defmt-print -e "$elf"
