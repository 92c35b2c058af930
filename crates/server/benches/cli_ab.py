#!/usr/bin/env python3
# A/B of two builds of the binary through its command line:
#   python3 crates/server/benches/cli_ab.py A_BINARY B_BINARY
# (see BENCHMARKS.md, "Release binary size"). Used to compare release profiles (LTO, codegen units).
"""Per process, alternating the binaries, 7 rounds: `tokens` of a 10 MiB source file (loading the
o200k_base tables plus counting) and `fold` of every Rust file of crates/ with no budget (tree-sitter
parsing and the folded view). Prints medians and the ratio B/A (below 1 is faster)."""
import glob, os, statistics, subprocess, sys, time

repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
sources = sorted(glob.glob(f"{repo}/crates/**/*.rs", recursive=True))
corpus = os.environ.get("CLI_AB_CORPUS", "/tmp/cli-ab-corpus.txt")
text = "".join(open(p, encoding="utf-8").read() for p in sources)
with open(corpus, "w", encoding="utf-8") as f:
    f.write((text * (10 * 2**20 // len(text.encode()) + 1))[: 10 * 2**20])
jobs = {
    "tokens 10 MiB": lambda b: [b, "tokens", corpus],
    f"fold {len(sources)} .rs files": lambda b: [b, "fold", "--max-chars", "1000000000", "-w", repo, *sources],
}


def timed(argv):
    t = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t


a, b = sys.argv[1:3]
for name, argv in jobs.items():
    times = ([], [])
    for _ in range(7):
        for side, binary in enumerate((a, b)):
            times[side].append(timed(argv(binary)))
    ma, mb = statistics.median(times[0]), statistics.median(times[1])
    print(f"{name}: A median {ma*1000:.0f} ms (min {min(times[0])*1000:.0f}), "
          f"B median {mb*1000:.0f} ms (min {min(times[1])*1000:.0f}), B/A {mb/ma:.2f}x")
