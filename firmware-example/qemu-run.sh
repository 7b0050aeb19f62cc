#!/usr/bin/env bash
# Cargo runner (see .cargo/config.toml): qemu-run.sh <qemu-machine> <elf>
# Runs the firmware under QEMU, prints its defmt log and exits with the firmware's exit code
# (0 all predictions match the host, 1 a mismatch, 2 bad model or data, 101 panic, 102 HardFault
# or RISC-V exception trap).
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
# The RISC-V machine starts the ELF directly (no firmware in front of it); the others are Arm.
case "$machine" in
  virt) qemu=(qemu-system-riscv32 -machine virt -bios none) ;;
  *) qemu=(qemu-system-arm -machine "$machine") ;;
esac
timeout -k 5 "${QEMU_TIMEOUT:-120}" \
  "${qemu[@]}" -display none -serial null -monitor none \
    -semihosting-config enable=on,target=native -kernel "$elf" \
  | defmt-print -e "$elf"
