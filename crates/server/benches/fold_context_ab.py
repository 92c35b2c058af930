#!/usr/bin/env python3
# A/B over stdio: python3 crates/server/benches/fold_context_ab.py OLD_BINARY NEW_BINARY
# (see BENCHMARKS.md, "The read gate and folding over stdio").
# FOLD_AB_PAIRED=N adds a paired warm run: both servers stay up and their calls alternate
# A, B, A, B ... N times each, so load drift on a shared machine hits both alike; it prints
# each side's median and fastest call and the median of the per-pair ratios.
"""roo/fold/context of 100 files over stdio: cold (first call in a fresh process) and warm
(median of 20 repeats), alternating two binaries in one run."""
import json, os, statistics, subprocess, sys, time
ws = os.environ.get("FOLD_AB_WORKSPACE", "/tmp/fold-ab-ws")
os.makedirs(ws + '/src', exist_ok=True)
paths = []
for i in range(100):
    p = f'src/m{i}.ts'
    body = ''.join(f'export class C{i}_{j} {{\n  method{j}(a: number): number {{\n    const x = a * {j};\n    return x + 1;\n  }}\n}}\n\n' for j in range(12))
    open(f'{ws}/{p}', 'w').write(body)
    paths.append(p)
open(ws + '/.rooignore', 'w').write('secret/\n')
def start(binary):
    p = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    def send(o):
        b = json.dumps(o).encode(); p.stdin.write(b'Content-Length: %d\r\n\r\n' % len(b) + b); p.stdin.flush()
    def recv():
        h = b''
        while not h.endswith(b'\r\n\r\n'): h += p.stdout.read(1)
        n = int([l for l in h.split(b'\r\n') if l.lower().startswith(b'content-length')][0].split(b':')[1])
        return json.loads(p.stdout.read(n))
    def call(i, m, params):
        send({"jsonrpc": "2.0", "id": i, "method": m, "params": params})
        while True:
            r = recv()
            if r.get('id') == i: return r
    call(0, 'initialize', {"workspaceFolders": [{"uri": "file://" + ws, "name": "w"}], "capabilities": {}, "initializationOptions": {"warmTokenizer": False}})
    send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    return p, call
def run(binary):
    p, call = start(binary)
    t = time.perf_counter(); r = call(1, 'roo/fold/context', {"paths": paths, "maxChars": 100000000}); cold = time.perf_counter() - t
    assert r["result"]["filesProcessed"] == 100, "not all files folded"
    warm = []
    for k in range(20):
        t = time.perf_counter(); call(2 + k, 'roo/fold/context', {"paths": paths, "maxChars": 100000000}); warm.append(time.perf_counter() - t)
    p.kill()
    return cold, statistics.median(warm)
bins = sys.argv[1:]
res = {b: ([], []) for b in bins}
for round in range(7):
    for b in bins:
        c, w = run(b); res[b][0].append(c); res[b][1].append(w)
for b in bins:
    print(f'{b}: cold median {statistics.median(res[b][0])*1000:.1f} ms (min {min(res[b][0])*1000:.1f}), warm median {statistics.median(res[b][1])*1000:.2f} ms (min {min(res[b][1])*1000:.2f})')

pairs = int(os.environ.get("FOLD_AB_PAIRED", "0"))
if pairs and len(bins) == 2:
    servers = [start(b) for b in bins]
    for _, call in servers:
        for k in range(5):
            call(1000 + k, 'roo/fold/context', {"paths": paths, "maxChars": 100000000})
    times = ([], [])
    for k in range(pairs):
        order = (0, 1) if k % 2 == 0 else (1, 0)
        for side in order:
            _, call = servers[side]
            t = time.perf_counter(); call(2000 + k, 'roo/fold/context', {"paths": paths, "maxChars": 100000000}); times[side].append(time.perf_counter() - t)
    for p, _ in servers:
        p.kill()
    ratios = [b / a for a, b in zip(*times)]
    for side, b in enumerate(bins):
        print(f'{b}: paired warm median {statistics.median(times[side])*1000:.2f} ms (fastest {min(times[side])*1000:.2f})')
    print(f'paired warm ratio new/old: median of ratios {statistics.median(ratios):.3f}, ratio of medians {statistics.median(times[1])/statistics.median(times[0]):.3f}, ratio of fastest {min(times[1])/min(times[0]):.3f}')
