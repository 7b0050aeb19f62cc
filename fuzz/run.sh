#!/usr/bin/env bash
# Runs a fuzz target for a bounded time. With nightly and cargo-fuzz installed:
#     cargo +nightly fuzz run from_bytes_predict -- -max_total_time=60
# Without them (stable toolchain only, as in CI here), this script builds the same libFuzzer
# binary with the stable SanitizerCoverage flags cargo-fuzz would pass (no AddressSanitizer:
# the runtime has no unsafe code, and the C API's only unsafe code turns the fuzz target's own
# live slices into pointers and back) and runs it:
#     fuzz/run.sh [seconds, default 60] [target, default from_bytes_predict] [libFuzzer flags...]
# Targets: from_bytes_predict (the Rust API), c_api (the C API's extern functions), learn (on-device
# learning: updates, then the learned file reloaded). Extra flags
# go to libFuzzer, e.g. `fuzz/run.sh 3600 c_api -runs=10000000` stops after 10 million inputs.
# Debug assertions and overflow checks stay on (see [profile.release] in Cargo.toml), so an
# arithmetic overflow is a crash. Crashes land in fuzz/artifacts/ and fail the script.
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-60}"
target="${2:-from_bytes_predict}"
shift $(( $# < 2 ? $# : 2 ))
export RUSTFLAGS="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
-Cllvm-args=-sanitizer-coverage-trace-compares"
host="$(rustc -vV | sed -n 's/^host: //p')"
# --target keeps the instrumentation flags away from build scripts and proc macros.
cargo build --release --target "$host" --bin "$target"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Seeds: every golden model in the target's layout (flags 1 = repair CRC, u16 length, bytes,
# then four i32 inputs). A corpus of your own can be passed in LTU_FUZZ_CORPUS.
for f in ../tests/golden/*.ltu; do
    n=$(wc -c < "$f")
    { printf '\x01'; printf "\x$(printf %02x $((n & 255)))\x$(printf %02x $((n >> 8)))"; cat "$f";
      printf '\x00\x00\x00\x00\x03\x00\x00\x00\xff\xff\xff\xff\xff\xff\xff\x7f'; } > "$work/$(basename "$f")"
done
# The firmware example's model (a sensor pipeline), then its first 600 samples as i32 inputs: the
# windows `c_api` cuts from them.
m=../firmware-example/model/model.ltu
n=$(wc -c < "$m")
{ printf '\x01'; printf "\x$(printf %02x $((n & 255)))\x$(printf %02x $((n >> 8)))"; cat "$m";
  for v in $(od -An -v -td2 -N1200 ../firmware-example/model/recordings.bin); do
      v=$(( v & 0xffffffff ))
      printf "\x$(printf %02x $((v & 255)))\x$(printf %02x $((v >> 8 & 255)))\x$(printf %02x $((v >> 16 & 255)))\x$(printf %02x $((v >> 24)))"
  done; } > "$work/pipeline.ltu"
if [ -n "${LTU_FUZZ_CORPUS:-}" ]; then cp "$LTU_FUZZ_CORPUS"/* "$work"/; fi
mkdir -p "artifacts/$target"
"target/$host/release/$target" "$work" -max_total_time="$secs" -max_len=4096 \
    -artifact_prefix="artifacts/$target/" -print_final_stats=1 "$@"
