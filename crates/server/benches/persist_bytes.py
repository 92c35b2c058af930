#!/usr/bin/env python3
"""Bytes the sidecar writes while a host tracks N files one after another (issue 25).

Each `roo/files/track` waits for its answer (as a host does), so every track is its own actor
batch. Reports the task folder's final size, the process's `write_bytes` from /proc (what
reached the file system; stdout is a pipe and not counted there), and the time from a track's
request to its answer (median, p99, and over the last tenth of the tracks, where a cost that
grows with the state shows).

    cargo build --release -p roo-context
    python3 crates/server/benches/persist_bytes.py target/release/roo-context 6000
"""
import json, os, subprocess, sys, tempfile, time

binary, count = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 6000
work = tempfile.mkdtemp()
root, store = os.path.join(work, "ws"), os.path.join(work, "tasks", "t")
os.makedirs(root); os.makedirs(store)
for i in range(count):
    with open(os.path.join(root, f"f{i}.ts"), "w") as f:
        f.write(f"export const v{i} = {i};\n")
proc = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                        env={**os.environ, "ROO_CONTEXT_LOG": "error"})
next_id = 0
def call(method, params):
    global next_id
    next_id += 1
    body = json.dumps({"jsonrpc": "2.0", "id": next_id, "method": method, "params": params}).encode()
    proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body); proc.stdin.flush()
    while True:
        length = 0
        while True:
            line = proc.stdout.readline()
            if line in (b"\r\n", b"\n"): break
            if line.lower().startswith(b"content-length:"): length = int(line.split(b":")[1])
        message = json.loads(proc.stdout.read(length))
        if message.get("id") == next_id and "method" not in message:
            return message
call("initialize", {"processId": None, "capabilities": {},
                    "workspaceFolders": [{"uri": "file://" + root, "name": "ws"}]})
def written():
    with open(f"/proc/{proc.pid}/io") as f:
        return int(next(l for l in f if l.startswith("write_bytes")).split()[1])
before = written()
latencies = []
for i in range(count):
    start = time.perf_counter()
    reply = call("roo/files/track", {"taskId": "t", "storageDir": store, "path": f"f{i}.ts",
                                     "source": "read_tool", "content": f"export const v{i} = {i};\n"})
    latencies.append(time.perf_counter() - start)
    assert "result" in reply, reply
during = written() - before
size = sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(store) for f in fs)
call("shutdown", None); proc.stdin.close(); proc.wait()
def ms(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] * 1e3
last = latencies[-max(1, count // 10):]
print(f"{count} tracks: {during / 1e6:.1f} MB written (write_bytes), task folder {size / 1e6:.2f} MB; "
      f"track answered in median {ms(latencies, 0.5):.2f} ms, p99 {ms(latencies, 0.99):.2f} ms, "
      f"last tenth median {ms(last, 0.5):.2f} ms")
