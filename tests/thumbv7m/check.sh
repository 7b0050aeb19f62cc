#!/usr/bin/env bash
# Builds the runtime's evaluation entry points for thumbv7m-none-eabi (release, opt-level "s",
# as firmware builds it) and inspects the generated assembly:
#   - fails if any soft-float helper (__aeabi_f*/__aeabi_d*, __addsf3, __floatsisf, ...) is
#     reachable from predict / predict_with / predict_scores / from_bytes;
#   - prints a static stack bound for each entry point (see analyze.awk).
# Needs only the stable toolchain with the thumbv7m-none-eabi target, awk and cargo.
# Usage: tests/thumbv7m/check.sh        (CI: run it from anywhere; exit status says pass/fail)
set -euo pipefail
cd "$(dirname "$0")"
export CARGO_TARGET_DIR="${LTU_THUMB_TARGET_DIR:-$PWD/target}"
deps="$CARGO_TARGET_DIR/thumbv7m-none-eabi/release/deps"
cargo rustc --quiet --release --target thumbv7m-none-eabi -p ltu-runtime -- --emit asm
cargo rustc --quiet --release --target thumbv7m-none-eabi -- --emit asm
# cargo keeps the .s of a fresh build; take the newest of each (older hashes may linger).
newest() { ls -t "$deps"/"$1"-*.s | head -n 1; }
cat "$(newest ltu_runtime)" "$(newest ltu_thumbv7m_check)" > "$CARGO_TARGET_DIR/all.s"
if grep -Eq '__aeabi_[fd]|__(add|sub|mul|div)[sd]f3|__float[a-z]*[sd]f' "$CARGO_TARGET_DIR/all.s"; then
    echo "note: the runtime crate references soft-float helpers somewhere (see below for reachability)"
fi
awk -f analyze.awk "$CARGO_TARGET_DIR/all.s"
