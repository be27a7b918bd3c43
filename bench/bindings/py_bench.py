"""The paper's Table 7 sizes for Python tracepoints: ns per call of the
interpreter's own call overhead (an empty function, a ctypes call into
libhashtrace), hashlib's MD5, and the tracepoint calls, hashing the payload as
bytes (a 4-byte length, then the bytes: as the C++ benchmark). Times are CPU
time of the calling thread (time.thread_time_ns), as Google Benchmark's CPU column. A session runs
throughout; the clock stops while the writer catches up, and drops are an error.
    HASHTRACE_LIBRARY=build/bindings/c/libhashtrace.so.0 PYTHONPATH=bindings/python python3 bench/bindings/py_bench.py
or, as a user installs the package (docs/sdk.md, Python), in a venv:
    python3 -m venv /tmp/ht && /tmp/ht/bin/pip install ./bindings/python && /tmp/ht/bin/python bench/bindings/py_bench.py
"""
import hashlib
import os
import shutil
import statistics
import sys
import tempfile
import time

import hashtrace
from hashtrace import _native

BATCH = 1 << 16


def measure(calls, repetitions, drain=False):
    runs = []
    for r in range(repetitions + 1):  # run 0 warms up
        start = time.thread_time_ns()
        calls(BATCH)
        elapsed = time.thread_time_ns() - start
        if drain:
            wait_for_writer()
        if r:
            runs.append(elapsed / BATCH)
    return statistics.median(runs)


recorded = 0


def wait_for_writer():
    while True:
        s = hashtrace.stats()
        if s.written + s.dropped >= recorded:
            return
        time.sleep(0.001)


def main():
    global recorded
    repetitions = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    log_dir = tempfile.mkdtemp(prefix="hashtrace-bench-python-")
    hashtrace.start(node="PyBench", log_dir=log_dir, queue_capacity=1 << 17, read_environment=False, signal_handlers=False)
    hashtrace.set_thread_name("bench")
    tp = hashtrace.Tracepoint("InlineMD5", "payload", "")
    tp_deferred = hashtrace.Tracepoint("DeferredMD5", "payload", "", deferred=True)

    def empty(x):
        return x

    def loop_empty(n, p):
        for _ in range(n):
            empty(p)

    running = _native.running

    def loop_ctypes(n, p):
        for _ in range(n):
            running()

    def loop_md5(n, p):
        data = hashtrace.canonical_bytes(p)
        for _ in range(n):
            hashlib.md5(data).digest()

    def loop_object(t):
        def run(n, p):
            global recorded
            args = (p,)
            for _ in range(n):
                t.record(args, None)
            recorded += n
        return run

    def loop_function(n, p):
        global recorded
        for _ in range(n):
            hashtrace.tracepoint("Function", hashtrace.inp("payload", p), hashtrace.none)
        recorded += n

    rows = [
        ("empty Python function call", loop_empty, False),
        ("ctypes call into libhashtrace", loop_ctypes, False),
        ("hashlib.md5 of the payload", loop_md5, False),
        ("Tracepoint.record, inline MD5", loop_object(tp), True),
        ("Tracepoint.record, deferred MD5", loop_object(tp_deferred), True),
        ("hashtrace.tracepoint(name, inp, out)", loop_function, True),
    ]
    # The docs' message-id pattern: an int id, plain (hashed as int64) or sized (u64),
    # through the one-call form and through a defined Tracepoint.
    tp_id = hashtrace.Tracepoint("Id", "id", "id")

    def loop_u64(n, p):
        u64 = hashtrace.u64
        for i in range(n):
            u64(i)

    def loop_inout_int(n, p):
        global recorded
        for i in range(n):
            hashtrace.tracepoint("Id", hashtrace.inout("id", i))
        recorded += n

    def loop_inout_u64(n, p):
        global recorded
        for i in range(n):
            hashtrace.tracepoint("Id", hashtrace.inout("id", hashtrace.u64(i)))
        recorded += n

    def loop_object_inout(n, p):
        global recorded
        for i in range(n):
            tp_id.inout(i)
        recorded += n

    id_rows = [
        ("hashtrace.u64(i) alone", loop_u64, False),
        ("tracepoint(name, inout(\"id\", i))", loop_inout_int, True),
        ("tracepoint(name, inout(\"id\", u64(i)))", loop_inout_u64, True),
        ("Tracepoint.inout(i)", loop_object_inout, True),
    ]
    mode = "C accelerator" if hashtrace.accelerated() else "ctypes only"
    print(f"Python {sys.version.split()[0]} ({mode}): ns of CPU per call, median of {repetitions} runs of {BATCH}")
    print(f"{'benchmark':<40}{'10 B':>10}{'100 B':>10}{'1000 B':>10}")
    for name, loop, drain in rows:
        cells = []
        for size in (10, 100, 1000):
            payload = bytes((i * 131 + 7) & 0xFF for i in range(size))
            cells.append(measure(lambda n: loop(n, payload), repetitions, drain))
        print(f"{name:<40}" + "".join(f"{c:>10.0f}" for c in cells))
    print(f"{'an int id (inline MD5 of 8 bytes)':<40}{'ns':>10}")
    for name, loop, drain in id_rows:
        print(f"{name:<40}{measure(lambda n: loop(n, None), repetitions, drain):>10.0f}")
    hashtrace.stop()
    s = hashtrace.stats()
    print(f"written {s.written}, dropped {s.dropped}")
    shutil.rmtree(log_dir, ignore_errors=True)
    return 0 if s.dropped == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
