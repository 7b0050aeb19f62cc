#!/usr/bin/env python3
"""Where a firmware's measured regions spend their instructions, exactly (QEMU, Arm targets).

    firmware-example/tools/profile.py ELF [--machine mps2-an385] [--skip 1] [--top 30]

Builds insnprofile.c next to this script's output directory (target/insnprofile/), runs ELF under
QEMU with it, and prints the instructions per region-run by function and by source line (innermost
inlined frame), from `arm-none-eabi-addr2line -f -i` on the ELF's debug info. `--skip 1` leaves
out the bench firmware's load region (`firmware-example/examples/bench.rs`, built by
`cargo xtask bench-device` under target/bench-device/ltu/<dataset>/<model>/). Counts are totals
over every measured region; divide by the number of predictions for a per-prediction figure.
"""
import argparse, collections, os, pathlib, subprocess, sys, tempfile

here = pathlib.Path(__file__).resolve().parent
root = here.parent.parent
ap = argparse.ArgumentParser()
ap.add_argument("elf")
ap.add_argument("--machine", default="mps2-an385")
ap.add_argument("--skip", type=int, default=0, help="regions to leave out first")
ap.add_argument("--top", type=int, default=30)
args = ap.parse_args()

out_dir = root / "target" / "insnprofile"
out_dir.mkdir(parents=True, exist_ok=True)
lib = out_dir / "libinsnprofile.so"
src = here / "insnprofile.c"
if not lib.exists() or lib.stat().st_mtime < src.stat().st_mtime:
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", str(lib), str(src), "-ldl"], check=True)

with tempfile.TemporaryDirectory() as tmp:
    raw = pathlib.Path(tmp) / "profile.txt"
    env = dict(os.environ, INSNPROFILE=str(raw), INSNPROFILE_SKIP=str(args.skip))
    subprocess.run(
        ["qemu-system-arm", "-machine", args.machine, "-display", "none", "-serial", "null",
         "-monitor", "none", "-semihosting-config", "enable=on,target=native",
         "-plugin", str(lib), "-kernel", args.elf],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=600)
    counts = {int(a, 16): int(c) for a, c in (l.split() for l in raw.read_text().splitlines())}
if not counts:
    sys.exit("no instruction was counted: does the firmware have region markers?")
addrs = sorted(counts)
a2l = subprocess.run(["arm-none-eabi-addr2line", "-e", args.elf, "-f", "-i", "-a", "-C"],
                     input="\n".join(hex(a) for a in addrs), capture_output=True, text=True,
                     check=True).stdout.splitlines()
frames, cur = {}, None
for line in a2l:
    if line.startswith("0x"):
        cur = int(line, 16)
        frames[cur] = []
    elif cur is not None:
        frames[cur].append(line)
by_fn, by_line = collections.Counter(), collections.Counter()
for a, c in counts.items():
    f = frames.get(a, [])
    if len(f) >= 2:
        by_line[f"{f[0][:70]}  {f[1].rsplit('/', 1)[-1]}"] += c
        by_fn[f[-2][:90]] += c  # the outermost frame: the function the code was inlined into
total = sum(counts.values())
print(f"{total} instructions in the measured regions (after skipping {args.skip})")
print("\nby function (outermost frame):")
for k, v in by_fn.most_common(args.top):
    print(f"{v:10d} {100 * v / total:5.1f}%  {k}")
print("\nby source line (innermost frame):")
for k, v in by_line.most_common(args.top):
    print(f"{v:10d} {100 * v / total:5.1f}%  {k}")
