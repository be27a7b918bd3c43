"""The Dask layer across machines (bindings/python/hashtrace/cluster.py, docs/cluster.md).

A four-node run (a sensor, a router, a sink and a monitor; messages between
them, ids reused) is written as CSV logs in two directories, and a cluster of
two worker processes is started where each worker holds one directory only
(HASHTRACE_CLUSTER_HOLDS), so that no worker sees every log and each slice must
be cut where its log is. The cluster's analysis must equal `hashtrace analyze`
in memory (counts, minima and maxima exactly, means to 1e-9, percentiles
within 0.1 %) and the same kernel sharded in one process exactly; a worker
killed in the middle of a shard changes nothing; a log no worker holds, a
worker with another build and a failing step are clear errors.

Run by ctest (tests/cluster/CMakeLists.txt) with Debian's /usr/bin/python3:
    HASHTRACE_BIN=build/app/hashtrace PYTHONPATH=bindings/python /usr/bin/python3 -m unittest -v test_cluster
"""
import hashlib
import importlib.util
import json
import logging
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = os.path.normpath(os.path.join(HERE, "..", ".."))
HASHTRACE = os.environ.get("HASHTRACE_BIN") or os.path.join(SOURCE, "build", "app", "hashtrace")

try:
    import cloudpickle
    import distributed
    from distributed import Client, Nanny, Scheduler, SpecCluster
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the helpers run on workers: ship them
except ImportError:
    distributed = None


def load_cluster_module():
    """hashtrace.cluster; from its file when the package cannot be imported here (its
    __init__ loads libhashtrace, which the cluster layer does not need)."""
    try:
        from hashtrace import cluster
        return cluster
    except ImportError:
        path = os.path.join(SOURCE, "bindings", "python", "hashtrace", "cluster.py")
        spec = importlib.util.spec_from_file_location("hashtrace_cluster", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        return module


cluster = load_cluster_module() if distributed else None

# ---------------------------------------------------------------------------
# The run: CSV logs (docs/spec.md section 1).

LOOPS = 6000            # 1 ms apart: a 6 s run of about 37 000 samples
SHARD_SAMPLES = 8000    # about 5 shards
MARGIN_MS = 50          # the run's links and intervals last at most a few ms

SPEC = """\
[[pair]]
from = "Sensor/Captured"
to = "Sensor/Sent"
scope = "instance"
[[pair]]
from = "Sensor/Sent"
to = "Router/Received"
[[pair]]
from = "Router/Received"
to = "Router/Forwarded"
scope = "instance"
[[pair]]
from = "Router/Forwarded"
to = "Sink/Received"
[[pair]]
from = "Router/Forwarded"
to = "Monitor/Received"
[[pair]]
from = "Sink/Received"
to = "Sink/Displayed"
scope = "instance"

[[interval]]
name = "router hop"
from = "Router/Received"
to = "Router/Forwarded"
kind = "process"
[[interval]]
name = "capture to display"
from = "Sensor/Captured"
to = "Sink/Displayed"
kind = "end_to_end"
"""

HEADER = "node_name,instance,tracepoint_name,input_hash_type,output_hash_type,sample_time,input_hash,output_hash\n"


def digest(*parts) -> str:
    return hashlib.md5(repr(parts).encode()).hexdigest()


def sample_time(ns: int) -> str:
    return f"{ns // 1_000_000_000}.{ns % 1_000_000_000:09d}"


def generate_run(loops: int, seed: int = 7):
    """{node: [(ns, row)]}: every millisecond the sensor captures and sends a message
    (ids reused every 4096), the router forwards it, the sink receives and displays it,
    the monitor receives every fourth; a spare node beats every 100 ms."""
    rng = random.Random(seed)
    t0 = 1_700_000_000_000_000_000
    logs = {name: [] for name in ("Sensor", "Router", "Sink", "Monitor", "Spare")}

    def add(node, instance, tracepoint, in_type, out_type, ns, in_hash, out_hash):
        logs[node].append((ns, f"{node},{instance},{tracepoint},{in_type},{out_type},{sample_time(ns)},{in_hash},{out_hash}\n"))

    us = 1000
    for i in range(loops):
        msg, fwd = digest("msg", i % 4096), digest("fwd", i % 4096)
        captured = t0 + i * 1_000_000 + rng.randrange(50 * us)
        sent = captured + rng.randrange(20 * us, 200 * us)
        received = sent + rng.randrange(100 * us, 600 * us)
        forwarded = received + int(rng.expovariate(1 / (80 * us))) + 5 * us
        add("Sensor", "101", "Captured", "", "messageid", captured, "", msg)
        add("Sensor", "101", "Sent", "messageid", "messageid", sent, msg, msg)
        add("Router", "202", "Received", "messageid", "messageid", received, msg, msg)
        add("Router", "202", "Forwarded", "messageid", "forwardid", forwarded, msg, fwd)
        sink = forwarded + rng.randrange(100 * us, 700 * us)
        add("Sink", "303", "Received", "forwardid", "forwardid", sink, fwd, fwd)
        add("Sink", "303", "Displayed", "forwardid", "", sink + rng.randrange(200 * us, 2500 * us), fwd, "")
        if i % 4 == 0:
            add("Monitor", "404", "Received", "forwardid", "forwardid", forwarded + rng.randrange(50 * us, 3000 * us), fwd, fwd)
        if i % 100 == 0:
            add("Spare", "505", "Beat", "", "beat", captured + 7 * us, "", digest("beat", i))
    return logs


def write_run(root: str, loops: int = LOOPS) -> dict:
    """The run's logs in three directories (d0: Sensor, Router; d1: Sink, Monitor; d2: Spare)
    and its spec; returns their paths."""
    where = {"Sensor": "d0", "Router": "d0", "Sink": "d1", "Monitor": "d1", "Spare": "d2"}
    for node, rows in generate_run(loops).items():
        os.makedirs(os.path.join(root, where[node]), exist_ok=True)
        with open(os.path.join(root, where[node], f"{node}.csv"), "w") as f:
            f.write(HEADER)
            f.writelines(row for _, row in sorted(rows))
    with open(os.path.join(root, "run.toml"), "w") as f:
        f.write(SPEC)
    return {d: os.path.join(root, d) for d in ("d0", "d1", "d2")} | {"spec": os.path.join(root, "run.toml")}


def hashtrace_json(*args: str) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out.json")
        subprocess.run([HASHTRACE, *args, "--json", out], check=True, stdout=subprocess.DEVNULL)
        with open(out) as f:
            return json.load(f)


# ---------------------------------------------------------------------------
# A cluster of worker processes on this machine, each holding its own directories.

def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_cluster(root: str, holds: list):
    """A LocalCluster (its base, SpecCluster, for a spec per worker): one single-threaded
    worker process per entry of HOLDS, holding those directories only. Each worker keeps
    its address (a fixed port) and its directories when its nanny restarts it."""
    workers = {}
    for n, dirs in enumerate(holds):
        scratch = os.path.join(root, f"worker-{n}")
        os.makedirs(scratch, exist_ok=True)
        workers[f"w{n}"] = {"cls": Nanny, "options": {
            "nthreads": 1, "host": "127.0.0.1", "worker_port": free_port(), "local_directory": scratch,
            "env": {cluster.HOLDS_ENV: os.pathsep.join(dirs)}, "silence_logs": logging.ERROR}}
    return SpecCluster(workers=workers, scheduler={"cls": Scheduler, "options": {"host": "127.0.0.1", "dashboard_address": ":0"}},
                       silence_logs=logging.ERROR)


def set_path(value: str) -> None:  # run on a worker
    os.environ["PATH"] = value


def worker_pids(client) -> dict:
    return client.run(os.getpid)


# ---------------------------------------------------------------------------

def assert_close(test, got, want, rel, what):
    if want == 0:
        test.assertAlmostEqual(got, want, delta=1e-12, msg=what)
    else:
        test.assertLessEqual(abs(got - want) / abs(want), rel, f"{what}: {got} against {want}")


def assert_matches_in_memory(test, got: dict, want: dict):
    """The sharded result against the in-memory one: docs/sharding.md's promises."""
    for key in ("samples", "edges", "message_edges", "local_edges", "unlinked_inputs", "unconsumed_outputs",
                "first_time_ns", "last_time_ns", "files", "nodes", "instances"):
        test.assertEqual(got[key], want[key], key)
    test.assertEqual([i["name"] for i in got["intervals"]], [i["name"] for i in want["intervals"]])
    for g, w in zip(got["intervals"], want["intervals"]):
        test.assertGreater(w["count"], 1000, w["name"])
        test.assertEqual(g["count"], w["count"], w["name"])
        for key in ("min_ms", "max_ms"):
            assert_close(test, g[key], w[key], 1e-12, f"{w['name']} {key}")
        for key in ("mean_ms", "sd_ms", "jitter_ms"):
            assert_close(test, g[key], w[key], 1e-9, f"{w['name']} {key}")
        for key in ("p50_ms", "p95_ms", "p99_ms"):
            assert_close(test, g[key], w[key], 1e-3, f"{w['name']} {key}")
    gm, wm = got["metrics"], want["metrics"]
    test.assertEqual(gm["M11"]["count"], wm["M11"]["count"])
    for key in ("mean_ms", "sd_ms", "jitter_ms"):
        assert_close(test, gm["M11"][key], wm["M11"][key], 1e-9, f"M11 {key}")
    for key in ("p50_ms", "p95_ms", "p99_ms"):
        assert_close(test, gm["M11"][key], wm["M11"][key], 1e-3, f"M11 {key}")
    for key in ("min_ms", "max_ms"):
        assert_close(test, gm["M11"][key], wm["M11"][key], 1e-12, f"M11 {key}")
    for key in ("mean", "sd", "max"):
        assert_close(test, gm["M3"][key], wm["M3"][key], 1e-9, f"M3 {key}")
    for key in ("M8", "M12"):
        assert_close(test, gm[key], wm[key], 1e-9, key)
    cells = {(c["from"], c["to"]): c for c in got["node_latency_matrix"]}
    test.assertEqual(sorted(cells), sorted((c["from"], c["to"]) for c in want["node_latency_matrix"]))
    for w in want["node_latency_matrix"]:
        g = cells[(w["from"], w["to"])]
        test.assertEqual(g["count"], w["count"])
        assert_close(test, g["max_ms"], w["max_ms"], 1e-12, f"matrix {w['from']}->{w['to']} max")
        assert_close(test, g["mean_ms"], w["mean_ms"], 1e-9, f"matrix {w['from']}->{w['to']} mean")


def without(result: dict, *keys: str) -> dict:
    return {k: v for k, v in result.items() if k not in keys}


@unittest.skipIf(distributed is None, "Dask distributed is not installed for this python (Debian: python3-distributed)")
@unittest.skipUnless(os.access(HASHTRACE, os.X_OK), f"no hashtrace binary at {HASHTRACE} (set HASHTRACE_BIN)")
class ClusterAnalysis(unittest.TestCase):
    """Two workers, one holding d0 (Sensor, Router), the other d1 (Sink, Monitor)."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="hashtrace-cluster-test-")
        cls.run_paths = write_run(cls.tmp)
        cls.logs = [cls.run_paths["d0"], cls.run_paths["d1"]]
        cls.spec = cls.run_paths["spec"]
        cls.cluster = start_cluster(os.path.join(cls.tmp, "a"), [[cls.run_paths["d0"]], [cls.run_paths["d1"]]])
        cls.client = Client(cls.cluster)
        cls.client.wait_for_workers(2, timeout=120)
        cls._result = None

    @classmethod
    def tearDownClass(cls):
        cls.client.close()
        cls.cluster.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def analyze(self, **options):
        settings = dict(spec=self.spec, scheduler=self.client, shard_samples=SHARD_SAMPLES, margin_ms=MARGIN_MS,
                        hashtrace=HASHTRACE)
        return cluster.analyze(self.logs, **(settings | options))

    def cluster_result(self):
        """The cluster's analysis of the run, made once."""
        if ClusterAnalysis._result is None:
            timings = {}
            ClusterAnalysis._result = self.analyze(timings=timings)
            ClusterAnalysis._timings = timings
        return ClusterAnalysis._result

    def test_equals_the_analysis_in_memory(self):
        text, got = self.cluster_result()
        want = hashtrace_json("analyze", *self.logs, "--spec", self.spec)
        self.assertNotIn("sharding", want)  # the reference really is in memory
        self.assertGreater(got["sharding"]["shards"], 3)
        self.assertTrue(got["sharding"]["margin_held"])
        assert_matches_in_memory(self, got, want)
        self.assertIn("capture to display", text)
        # The same kernel sharded in one process, with the same plan: the same numbers exactly.
        one_process = hashtrace_json("analyze", *self.logs, "--spec", self.spec, "--shard-samples", str(SHARD_SAMPLES),
                                     "--margin-ms", str(MARGIN_MS))
        self.assertEqual(without(got, "sharding"), without(one_process, "sharding"))

    def test_slices_are_cut_where_their_logs_are(self):
        # Each worker holds half the logs: the holding check sees that, and no worker holds every log.
        # A slice task run on a worker that does not hold its log fails (slice_task checks), so the
        # run's success shows each was cut where its log is.
        paths = [os.path.join(self.run_paths[d], f"{n}.csv") for d, n in (("d0", "Sensor"), ("d0", "Router"), ("d1", "Sink"))]
        reports = self.client.run(cluster.survey, None, paths)
        self.assertEqual(sorted(r["held"] for r in reports.values()), [[False, False, True], [True, True, False]])
        self.cluster_result()
        timings = ClusterAnalysis._timings
        self.assertGreater(timings["slice_bytes"], 0)
        # Each shard is summarised where some of its logs are, read in place there; only the others
        # are sliced. Both workers summarise.
        self.assertGreater(timings["slices"], 0)
        self.assertGreater(timings["logs_in_place"], 0)
        self.assertEqual(timings["workers_used"], 2)

    def test_a_log_no_worker_holds_is_refused_before_any_work(self):
        with tempfile.TemporaryDirectory() as work:
            with self.assertRaises(cluster.ClusterError) as caught:
                cluster.analyze(self.logs + [self.run_paths["d2"]], spec=self.spec, scheduler=self.client,
                                shard_samples=SHARD_SAMPLES, margin_ms=MARGIN_MS, hashtrace=HASHTRACE, workdir=work)
            self.assertFalse([f for f in os.listdir(work) if f.startswith("summary")])
        self.assertIn("no worker holds", str(caught.exception))
        self.assertIn(os.path.join(self.run_paths["d2"], "Spare.csv"), str(caught.exception))

    def test_a_worker_with_another_build_is_refused(self):
        # The driver and the first worker find the real binary under a name; the second worker, through
        # its PATH, a different file of that name.
        same, other = os.path.join(self.tmp, "same-build"), os.path.join(self.tmp, "other-build")
        for d in (same, other):
            os.makedirs(d, exist_ok=True)
        name = "hashtrace-under-test"
        if not os.path.exists(os.path.join(same, name)):
            os.symlink(HASHTRACE, os.path.join(same, name))
            with open(os.path.join(other, name), "w") as f:
                f.write(f'#!/bin/sh\nexec "{HASHTRACE}" "$@"\n')
            os.chmod(os.path.join(other, name), 0o755)
        first, second = sorted(self.client.scheduler_info()["workers"])
        saved = self.client.run(os.getenv, "PATH")
        driver_path = os.environ["PATH"]
        try:
            os.environ["PATH"] = same + os.pathsep + driver_path
            self.client.run(set_path, same + os.pathsep + saved[first], workers=[first])
            self.client.run(set_path, other + os.pathsep + saved[second], workers=[second])
            with self.assertRaises(cluster.ClusterError) as caught:
                self.analyze(hashtrace=name)
        finally:
            os.environ["PATH"] = driver_path
            for address, value in saved.items():
                self.client.run(set_path, value, workers=[address])
        message = str(caught.exception)
        self.assertIn("build", message)
        self.assertIn(second, message)
        self.assertNotIn(first, message)

    def test_a_failing_step_says_its_command_exit_code_and_stderr(self):
        bad = os.path.join(self.tmp, "broken.toml")
        with open(bad, "w") as f:
            f.write("[[pair]\nfrom =\n")
        with self.assertRaises(cluster.CommandError) as caught:
            self.analyze(spec=bad)
        e = caught.exception
        self.assertIn("shard summarize", " ".join(e.command))
        self.assertNotEqual(e.returncode, 0)
        self.assertIn("broken.toml", e.stderr)
        self.assertIn(f"exited with {e.returncode}", str(e))


@unittest.skipIf(distributed is None, "Dask distributed is not installed for this python (Debian: python3-distributed)")
@unittest.skipUnless(os.access(HASHTRACE, os.X_OK), f"no hashtrace binary at {HASHTRACE} (set HASHTRACE_BIN)")
class WorkerKilledMidShard(unittest.TestCase):
    """A worker process killed while it summarises a shard: Dask runs the shard again
    (and cuts again the slices the dead worker held, once its nanny has restarted it);
    the result is the same, to the last digit, as a run without a kill, whose shards
    read the logs in place."""

    def test_the_result_is_identical(self):
        tmp = tempfile.mkdtemp(prefix="hashtrace-cluster-kill-")
        try:
            self.check(tmp)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def check(self, tmp):
        paths = write_run(tmp)
        logs = [paths["d0"], paths["d1"]]
        marks = os.path.join(tmp, "marks")
        os.makedirs(marks)
        # hashtrace, slowed down by a second per shard summary, which first says which worker runs it.
        slow = os.path.join(tmp, "slow-hashtrace")
        with open(slow, "w") as f:
            f.write('#!/bin/sh\nif [ "$1 $2" = "shard summarize" ]; then echo $PPID > "%s/summarize.$$"; sleep 1; fi\n'
                    'exec "%s" "$@"\n' % (marks, HASHTRACE))
        os.chmod(slow, 0o755)
        options = dict(spec=paths["spec"], shard_samples=SHARD_SAMPLES, margin_ms=MARGIN_MS)

        with start_cluster(os.path.join(tmp, "b"), [[paths["d0"]], [paths["d1"]]]) as local, Client(local) as client:
            client.wait_for_workers(2, timeout=120)
            before = worker_pids(client)
            outcome = {}

            def run():
                try:
                    outcome["result"] = cluster.analyze(logs, scheduler=client, hashtrace=slow, **options)
                except BaseException as e:  # noqa: B902 - handed to the test's thread
                    outcome["error"] = e

            worker = threading.Thread(target=run)
            worker.start()
            victim = self.first_summarizer(marks, timeout=120)
            self.assertIn(victim, before.values())
            os.kill(victim, signal.SIGKILL)
            worker.join(timeout=400)
            self.assertFalse(worker.is_alive(), "the analysis did not finish after the kill")
            if "error" in outcome:
                raise outcome["error"]
            after = worker_pids(client)
            self.assertEqual(sorted(after), sorted(before))  # the nanny restarted it at its address
            self.assertNotIn(victim, after.values())
        text, got = outcome["result"]
        summarizers = len(os.listdir(marks))
        self.assertGreater(summarizers, got["sharding"]["shards"])  # the killed shard ran again
        # On a LocalCluster every worker holds every log: each shard reads them in place, no slice
        # cut and no byte moved; the result is still the slices' to the last digit.
        timings = {}
        want_text, want = cluster.analyze(logs, local=2, hashtrace=HASHTRACE, timings=timings, **options)
        self.assertEqual(timings["slice_bytes"], 0)
        self.assertEqual(got, want)
        self.assertEqual(text, want_text)

    @staticmethod
    def first_summarizer(marks: str, timeout: float) -> int:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for name in os.listdir(marks):
                with open(os.path.join(marks, name)) as f:
                    text = f.read().strip()
                if text:
                    return int(text)
            time.sleep(0.05)
        raise AssertionError("no shard summary started")


class WithoutCluster(unittest.TestCase):
    """The pieces that need no cluster."""

    @unittest.skipIf(cluster is None, "Dask distributed is not installed for this python")
    @unittest.skipUnless(os.access(HASHTRACE, os.X_OK), f"no hashtrace binary at {HASHTRACE}")
    def test_a_failing_command_is_reported_with_its_exit_code_and_stderr(self):
        with self.assertRaises(cluster.CommandError) as caught:
            cluster.run_hashtrace(HASHTRACE, ["shard", "slice", "/nonexistent/run.htlog", "-o", "/nonexistent/out.htlog"])
        e = caught.exception
        self.assertEqual(e.command[:3], [HASHTRACE, "shard", "slice"])
        self.assertNotEqual(e.returncode, 0)
        self.assertIn("/nonexistent/run.htlog", e.stderr)
        self.assertIn(f"exited with {e.returncode}", str(e))

    @unittest.skipIf(cluster is None, "Dask distributed is not installed for this python")
    def test_holding_follows_the_directories_a_worker_is_given(self):
        with tempfile.TemporaryDirectory() as tmp:
            for d in ("a", "b"):
                os.makedirs(os.path.join(tmp, d))
                open(os.path.join(tmp, d, "x.csv"), "w").close()
            a, b = os.path.join(tmp, "a", "x.csv"), os.path.join(tmp, "b", "x.csv")
            saved = os.environ.pop(cluster.HOLDS_ENV, None)
            try:
                self.assertEqual([cluster.holds(a), cluster.holds(b), cluster.holds(a + "-missing")], [True, True, False])
                os.environ[cluster.HOLDS_ENV] = os.path.join(tmp, "a")
                self.assertEqual([cluster.holds(a), cluster.holds(b)], [True, False])
                os.environ[cluster.HOLDS_ENV] = os.path.join(tmp, "b") + os.pathsep + os.path.join(tmp, "a")
                self.assertEqual([cluster.holds(a), cluster.holds(b)], [True, True])
            finally:
                os.environ.pop(cluster.HOLDS_ENV, None)
                if saved is not None:
                    os.environ[cluster.HOLDS_ENV] = saved


if __name__ == "__main__":
    unittest.main()
