"""Time-sharded analysis across machines, on Dask distributed (docs/cluster.md).

    from hashtrace import cluster
    text, result = cluster.analyze(["/data/run42"], spec="run42.toml",
                                   scheduler="tcp://head:8786", shard_samples=1_000_000)

    hashtrace-cluster analyze /data/run42 --spec run42.toml --scheduler tcp://head:8786 --json run42.json

The driver plans the run (`hashtrace shard plan`), asks every worker which of
the plan's logs its machine holds, then for each shard: where a worker holds
all of the shard's logs (one machine, shared storage), has it summarise the
shard reading them in place (`hashtrace shard summarize`, only the shard's
blocks); else has a worker that holds some of them summarise it, reading
those in place, from slices of the others cut on workers that hold them
(`hashtrace shard slice`; Dask moves the slices' bytes). The workers take
such shards in turn. It adds the summaries up once, on the driver
(`hashtrace shard merge`). The text it prints and the JSON it writes are those
of `hashtrace shard merge`, which equal `hashtrace analyze`'s (docs/sharding.md).

Every step is a `hashtrace` subprocess: a crash stays in it, and the worker's
Python does not hold the GIL while the kernel runs. The task functions travel
by value, so a worker needs Dask and the same `hashtrace` build, not this
package.

Only for tests and trials on one machine: a worker with the environment
variable HASHTRACE_CLUSTER_HOLDS (directories, separated by ':') holds only the
logs under those directories, as if it ran on a machine that had only those.
"""
from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from contextlib import ExitStack
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

HOLDS_ENV = "HASHTRACE_CLUSTER_HOLDS"
# A log whose holders all left the cluster (a machine gone, not a worker the
# nanny restarts) fails the run after this long, rather than waiting forever.
LOST_HOLDER_SECONDS = 60.0
# Shards in flight per worker thread: enough to keep the workers busy while the
# next slices are cut, few enough that the slices held at once stay bounded.
SHARDS_IN_FLIGHT_PER_THREAD = 2


class ClusterError(RuntimeError):
    """The cluster cannot do the analysis (a log nobody holds, another build, ...)."""


class CommandError(ClusterError):
    """A `hashtrace` subprocess failed."""

    def __init__(self, command: Sequence[str], returncode: int, stderr: str, where: str = ""):
        self.command = list(command)
        self.returncode = returncode
        self.stderr = stderr
        self.where = where
        at = f" on {where}" if where else ""
        super().__init__(f"`{' '.join(self.command)}`{at} exited with {returncode}: {stderr.strip() or '(no stderr)'}")

    def __reduce__(self):
        return (CommandError, (self.command, self.returncode, self.stderr, self.where))


# ---------------------------------------------------------------------------
# Run on any machine: the driver, a worker (as tasks or through client.run).

def run_hashtrace(hashtrace: str, args: Sequence[str]) -> Tuple[str, str]:
    """Runs `hashtrace ARGS`; its stdout and stderr, or CommandError."""
    command = [hashtrace, *args]
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True)
    except OSError as e:
        raise CommandError(command, -1, str(e), os.uname().nodename) from None
    if done.returncode != 0:
        raise CommandError(command, done.returncode, done.stderr, os.uname().nodename)
    return done.stdout, done.stderr


def holds(path: str) -> bool:
    """Whether this machine holds PATH (see HOLDS_ENV for the one-machine trials)."""
    if not os.path.exists(path):
        return False
    if HOLDS_ENV not in os.environ:
        return True
    real = os.path.realpath(path)
    dirs = [os.path.realpath(d) for d in os.environ[HOLDS_ENV].split(os.pathsep) if d]
    return any(os.path.commonpath([real, d]) == d for d in dirs)


def build_identity(hashtrace: str) -> Dict[str, Optional[str]]:
    """The `hashtrace` binary this machine would run: its path and sha256."""
    path = shutil.which(hashtrace)
    if path is None:
        where = "" if os.sep in hashtrace else " on PATH"
        return {"path": None, "sha256": None, "error": f"no executable `{hashtrace}`{where}"}
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return {"path": os.path.realpath(path), "sha256": digest.hexdigest(), "error": None}


def survey(hashtrace: Optional[str], paths: Sequence[str]) -> Dict[str, Any]:
    """What this machine offers: which of PATHS it holds and, given HASHTRACE, its build."""
    return {
        "held": [holds(p) for p in paths],
        "restricted": HOLDS_ENV in os.environ,
        "build": build_identity(hashtrace) if hashtrace else None,
    }


def scratch_dir() -> Optional[str]:
    """Where a task keeps its files: the worker's local directory (`--local-directory`,
    which a restarted worker clears of what a killed one left), else the system's."""
    try:
        from distributed import get_worker
        return get_worker().local_directory
    except (ImportError, ValueError):
        return None


def plan_task(hashtrace: str, args: Sequence[str]) -> Tuple[str, str]:
    """`hashtrace shard plan ARGS`: the plan's JSON text and the health report."""
    return run_hashtrace(hashtrace, ["shard", "plan", *args])


def slice_task(hashtrace: str, path: str, from_ns: int, to_ns: int) -> Tuple[bytes, float]:
    """The samples of PATH in [FROM_NS, TO_NS) as binary log bytes, and the seconds `slice` took."""
    if not holds(path):  # the task is pinned to the log's holders: a safeguard
        raise ClusterError(f"{path}: not held on {os.uname().nodename}")
    with tempfile.TemporaryDirectory(prefix="hashtrace-slice-", dir=scratch_dir()) as tmp:
        out = os.path.join(tmp, "slice.htlog")
        start = time.perf_counter()
        run_hashtrace(hashtrace, ["shard", "slice", path, "--from-ns", str(from_ns), "--to-ns", str(to_ns), "-o", out])
        seconds = time.perf_counter() - start
        with open(out, "rb") as f:
            return f.read(), seconds


def summarize_task(hashtrace: str, plan_text: str, spec: Optional[Tuple[str, str]], shard: int,
                   inputs: Sequence[Union[str, Tuple[bytes, float]]]) -> Dict[str, Any]:
    """Shard SHARD's summary from INPUTS, per log of the shard in the plan's order its slice
    (bytes, seconds to cut) or its path (a log this worker holds: read in place, only the
    shard's blocks), and SPEC, (file name, text)."""
    slices = [x for x in inputs if not isinstance(x, str)]
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="hashtrace-shard-", dir=scratch_dir()) as tmp:
        def write(name: str, data: bytes) -> str:
            path = os.path.join(tmp, name)
            with open(path, "wb") as f:
                f.write(data)
            return path

        args = ["shard", "summarize"]
        args += [x if isinstance(x, str) else write(f"{n:05d}.htlog", x[0]) for n, x in enumerate(inputs)]
        args += ["--plan", write("plan.json", plan_text.encode()), "--shard", str(shard), "--threads", "1", "--quiet"]
        if spec is not None:  # under its own name, which its errors then show
            os.mkdir(os.path.join(tmp, "spec"))
            args += ["--spec", write(os.path.join("spec", spec[0]), spec[1].encode())]
        args += ["-o", os.path.join(tmp, "summary.json")]
        kernel_start, cpu_start = time.perf_counter(), _children_cpu()
        _, stderr = run_hashtrace(hashtrace, args)
        kernel, kernel_cpu = time.perf_counter() - kernel_start, _children_cpu() - cpu_start
        with open(os.path.join(tmp, "summary.json"), encoding="utf-8") as f:
            summary = f.read()
    return {"shard": shard, "summary": summary, "stderr": stderr,
            "summarize_seconds": kernel, "summarize_cpu_seconds": kernel_cpu, "task_seconds": time.perf_counter() - start,
            "slice_seconds": sum(s for _, s in slices), "slice_bytes": sum(len(d) for d, _ in slices),
            "slices": len(slices), "in_place": len(inputs) - len(slices),
            "worker": _worker_address()}


def _children_cpu() -> float:
    """CPU seconds of this process's children that have ended (a task's subprocess, once run:
    a worker runs one task at a time, threads_per_worker=1)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _worker_address() -> str:
    try:
        from distributed import get_worker
        return get_worker().address
    except (ImportError, ValueError):
        return ""


def same(value: Any) -> Any:
    return value


def _ship_by_value() -> None:
    # The tasks above travel with the task (cloudpickle by value): a worker
    # needs no copy of this package, nor libhashtrace, which importing the
    # package would load.
    try:
        import cloudpickle
        if __name__ != "__main__":
            cloudpickle.register_pickle_by_value(sys.modules[__name__])
    except (ImportError, AttributeError, ValueError):
        pass


_ship_by_value()


# ---------------------------------------------------------------------------
# The driver.

class _Workers:
    """Which worker holds which log, from one survey of every worker."""

    def __init__(self, client, paths: Sequence[str], hashtrace: Optional[str] = None):
        from distributed.comm import get_address_host
        self.paths = list(paths)
        self.reports: Dict[str, Dict[str, Any]] = client.run(survey, hashtrace, self.paths)
        self._host = get_address_host

    def holders(self, index: int) -> List[str]:
        return sorted(a for a, r in self.reports.items() if r["held"][index])

    def pins(self, index: int) -> List[str]:
        """Where a slice of log INDEX may run: its holders and, on real machines, their hosts
        (so that a worker the nanny restarts on the same machine, at a new address, qualifies)."""
        pins = set(self.holders(index))
        pins |= {self._host(a) for a in self.holders(index) if not self.reports[a]["restricted"]}
        return sorted(pins)

    def pins_of_all(self, indices: Sequence[int]) -> List[str]:
        """Where every log of INDICES is held: a shard summarised there reads them in place."""
        common: Optional[set] = None
        for i in indices:
            common = set(self.pins(i)) if common is None else common & set(self.pins(i))
        return sorted(common or ())

    def holding_all(self) -> Optional[str]:
        return next((a for a in sorted(self.reports) if all(self.reports[a]["held"])), None)

    def check_builds(self, hashtrace: str, mine: Dict[str, Optional[str]]) -> None:
        bad = []
        for address, report in sorted(self.reports.items()):
            theirs = report["build"]
            if theirs["error"]:
                bad.append(f"{address}: {theirs['error']}")
            elif theirs["sha256"] != mine["sha256"]:
                bad.append(f"{address}: {theirs['path']} (sha256 {theirs['sha256'][:16]})")
        if bad:
            raise ClusterError(f"every worker must run the driver's `{hashtrace}` build, {mine['path']} "
                               f"(sha256 {mine['sha256'][:16]}); these do not:\n  " + "\n  ".join(bad))


def _connect(stack: ExitStack, scheduler, local: Optional[int]):
    """A Client: to SCHEDULER (an address, or a Client used as is) or to a new LocalCluster of LOCAL workers."""
    from distributed import Client, LocalCluster
    if (scheduler is None) == (local is None):
        raise ValueError("give either scheduler (an address or a Client) or local (a number of workers)")
    if isinstance(scheduler, Client):
        return scheduler
    if scheduler is not None:
        client = stack.enter_context(Client(scheduler))
        try:
            client.wait_for_workers(1, timeout=60)
        except (TimeoutError, asyncio.TimeoutError):
            raise ClusterError(f"no worker joined the scheduler at {scheduler} in 60 s") from None
        return client
    # The workers' statistical profiler samples every thread's stack every 10 ms:
    # CPU taken from the kernels on a machine whose cores they fill.
    import dask
    with dask.config.set({"distributed.worker.profile.enabled": False}):
        cluster = stack.enter_context(LocalCluster(n_workers=local, processes=True, threads_per_worker=1,
                                                   dashboard_address=":0"))
    return stack.enter_context(Client(cluster))


def _plan(client, local_bin: str, hashtrace: str, inputs: List[str], args: List[str],
          inputs_survey: _Workers) -> Tuple[str, str]:
    """The plan, made here when this machine sees every input, else on a worker that does."""
    if all(holds(p) for p in inputs):
        return plan_task(local_bin, args)
    where = inputs_survey.holding_all()
    if where is None:
        missing = [p for p in inputs if not holds(p)]
        raise ClusterError("`hashtrace shard plan` needs every log on one machine, the driver or a worker, "
                           "and none holds them all; the driver lacks " + ", ".join(missing))
    return client.submit(plan_task, hashtrace, args, workers=[where], allow_other_workers=False,
                         pure=False).result()


def _balanced_plan(client, local_bin: str, hashtrace: str, inputs: List[str], survey: _Workers,
                   args_for: Callable[[int], List[str]], shard_samples: int) -> Tuple[str, str]:
    """The plan, its shards a multiple of the workers' threads in number where that takes at
    most one shard more a thread (shards of about SHARD_SAMPLES, at most): the last round then
    keeps every thread busy, where 11 shards on 2 threads left one idle for half a shard."""
    plan_text, health = _plan(client, local_bin, hashtrace, inputs, args_for(shard_samples), survey)
    threads = sum(client.nthreads().values()) or 1
    plan = json.loads(plan_text)
    count, samples = len(plan["shards"]), int(plan["samples"])
    if count < 2 or count % threads == 0:
        return plan_text, health
    balanced = -(-samples // (-(-count // threads) * threads))  # samples over the next multiple, rounded up
    return _plan(client, local_bin, hashtrace, inputs, args_for(max(balanced, 1)), survey)


def _check_held(plan: Dict[str, Any], workers: _Workers) -> None:
    needed = sorted({i for s in plan["shards"] for i in s["logs"]})
    missing = [plan["logs"][i]["path"] for i in needed if not workers.holders(i)]
    if missing:
        raise ClusterError(f"no worker holds {', '.join(missing)} (of {len(workers.reports)} workers: "
                           + ", ".join(sorted(workers.reports)) + ")")


class _ShardRunner:
    """Submits the shards a few at a time and collects their summaries."""

    def __init__(self, client, hashtrace: str, plan: Dict[str, Any], plan_text: str,
                 spec: Optional[Tuple[str, str]], workers: _Workers):
        self.client, self.hashtrace, self.plan, self.workers = client, hashtrace, plan, workers
        self.token = uuid.uuid4().hex[:12]
        # The plan as a task, not scattered data: a worker that dies with it makes Dask compute it
        # again, where the loss of scattered data would cancel every shard.
        self.plan_future = client.submit(same, plan_text, key=f"hashtrace-plan-{self.token}")
        # On every worker before the first shard: else the scheduler, which keeps a task beside its
        # data, queues the shards on the worker that made the plan until work stealing moves them
        # (one of two workers idle for the first 0.2 s of a 3.5 s shard phase).
        from distributed import wait
        wait([self.plan_future])
        client.replicate([self.plan_future])
        self.spec = spec
        self.lost_since: Dict[int, float] = {}
        self.summarised: Dict[str, int] = {}  # shards given to each worker to summarise, of those reading some logs in place

    def submit(self, k: int):
        shard = self.plan["shards"][k]
        # Where one worker holds all of the shard's logs (one machine, shared storage), it reads
        # them in place: no slices cut, no bytes moved.
        together = self.workers.pins_of_all(shard["logs"])
        if together:
            paths = [self.plan["logs"][i]["path"] for i in shard["logs"]]
            return self.client.submit(summarize_task, self.hashtrace, self.plan_future, self.spec, k, paths,
                                      key=f"hashtrace-summarize-{self.token}-{k}", workers=together,
                                      allow_other_workers=False, retries=2)
        # Else a worker holding some of them summarises it, reading those in place; only the others
        # are cut into slices and moved to it.
        here = self.in_place(shard["logs"])
        inputs = [self.plan["logs"][i]["path"] if i in here else
                  self.client.submit(slice_task, self.hashtrace, self.plan["logs"][i]["path"],
                                     shard["read_from_ns"], shard["read_to_ns"],
                                     key=f"hashtrace-slice-{self.token}-{k}-{i}", workers=self.workers.pins(i),
                                     allow_other_workers=False, retries=2)
                  for i in shard["logs"]]
        pinned = dict(workers=self.workers.pins_of_all(sorted(here)), allow_other_workers=False) if here else {}
        return self.client.submit(summarize_task, self.hashtrace, self.plan_future, self.spec, k, inputs,
                                  key=f"hashtrace-summarize-{self.token}-{k}", retries=2, **pinned)

    def in_place(self, logs: Sequence[int]) -> set:
        """The logs of a shard its summarising worker reads in place: those of the worker that has
        summarised the fewest such shards so far, of those holding some of them (the most samples
        first), so that the workers share the summaries and the slices move only the rest."""
        held = {a: [i for i in logs if r["held"][i]] for a, r in sorted(self.workers.reports.items())}
        candidates = [a for a in held if held[a]]
        if not candidates:
            return set()
        best = min(candidates, key=lambda a: (self.summarised.get(a, 0),
                                              -sum(int(self.plan["logs"][i]["samples"]) for i in held[a])))
        self.summarised[best] = self.summarised.get(best, 0) + 1
        return set(held[best])

    def run(self) -> List[Dict[str, Any]]:
        from distributed import wait
        threads = sum(self.client.nthreads().values()) or 1
        todo = list(range(len(self.plan["shards"])))[::-1]
        running: Dict[Any, int] = {}
        results: List[Dict[str, Any]] = []
        try:
            while todo or running:
                while todo and len(running) < SHARDS_IN_FLIGHT_PER_THREAD * threads:
                    k = todo.pop()
                    running[self.submit(k)] = k
                try:
                    done, _ = wait(list(running), timeout=5, return_when="FIRST_COMPLETED")
                except (TimeoutError, asyncio.TimeoutError):
                    self.check_holders(set(running.values()) | set(todo))
                    continue
                for future in done:
                    del running[future]
                    results.append(future.result())
        finally:
            self.client.cancel(list(running))
        return sorted(results, key=lambda r: r["shard"])

    def check_holders(self, shards: set) -> None:
        """Fails the run when a log still needed has had no live holder for LOST_HOLDER_SECONDS."""
        from distributed.comm import get_address_host
        live = set(self.client.scheduler_info()["workers"])
        live |= {get_address_host(a) for a in live}
        now = time.monotonic()
        for i in sorted({i for k in shards for i in self.plan["shards"][k]["logs"]}):
            if live & set(self.workers.pins(i)):
                self.lost_since.pop(i, None)
            elif now - self.lost_since.setdefault(i, now) > LOST_HOLDER_SECONDS:
                raise ClusterError(f"every worker holding {self.plan['logs'][i]['path']} left the cluster "
                                   f"({', '.join(self.workers.holders(i))}) and none came back "
                                   f"in {LOST_HOLDER_SECONDS:.0f} s")


def _plan_args(inputs: List[str], shard_samples: int, margin_ms: Optional[float],
               tolerance_ms: float) -> List[str]:
    args = [*inputs, "--shard-samples", str(shard_samples), "--tolerance-ms", repr(float(tolerance_ms))]
    if margin_ms is not None:
        args += ["--margin-ms", repr(float(margin_ms))]
    return args


def _read_spec(spec: Optional[str]) -> Optional[Tuple[str, str]]:
    if spec is None:
        return None
    with open(spec, encoding="utf-8") as f:
        return os.path.basename(spec), f.read()


def _merge(hashtrace: str, results: List[Dict[str, Any]], workdir: str, json_path: str) -> str:
    """One `hashtrace shard merge` of every summary, here: what it prints (and JSON_PATH written)."""
    paths = []
    for r in results:
        paths.append(os.path.join(workdir, f"summary-{r['shard']:06d}.json"))
        with open(paths[-1], "w", encoding="utf-8") as f:
            f.write(r["summary"])
    text, stderr = run_hashtrace(hashtrace, ["shard", "merge", *paths, "--plan", os.path.join(workdir, "plan.json"),
                                             "--json", json_path])
    sys.stderr.write(stderr)
    return text


def _forward_stderr(results: List[Dict[str, Any]]) -> None:
    for r in results:
        sys.stderr.write("".join(f"shard {r['shard']}: {line}\n" for line in r["stderr"].splitlines()))


def _count(clock: Dict[str, float], results: List[Dict[str, Any]]) -> None:
    """The workers' time, summed over the shards: the `summarize` and `slice` subprocesses,
    the summarize tasks whole (their files written and read); the bytes moved."""
    clock["summarize_s"] = sum(r["summarize_seconds"] for r in results)
    clock["summarize_cpu_s"] = sum(r["summarize_cpu_seconds"] for r in results)
    clock["summarize_task_s"] = sum(r["task_seconds"] for r in results)
    clock["workers_used"] = float(len({r["worker"] for r in results}))
    if clock["summarize_s"] > 0 and "shards_s" in clock:
        # The shard phase's wall over the kernel's own, its subprocesses' wall summed over the
        # workers that ran them (docs/benchmarks.md): what distributing the shards costs.
        clock["overhead"] = clock["shards_s"] / (clock["summarize_s"] / clock["workers_used"]) - 1
    clock["slice_s"] = sum(r["slice_seconds"] for r in results)
    clock["slice_bytes"] = float(sum(r["slice_bytes"] for r in results))
    clock["slices"] = float(sum(r["slices"] for r in results))
    clock["logs_in_place"] = float(sum(r["in_place"] for r in results))
    clock["summary_bytes"] = float(sum(len(r["summary"]) for r in results))


def analyze(logs: Sequence[str], spec: Optional[str] = None, scheduler=None, local: Optional[int] = None,
            shard_samples: int = 1_000_000, margin_ms: Optional[float] = None, json_path: Optional[str] = None,
            hashtrace: str = "hashtrace", workdir: Optional[str] = None, tolerance_ms: float = 0.0,
            timings: Optional[Dict[str, float]] = None) -> Tuple[str, Dict[str, Any]]:
    """The analysis of the run in LOGS (files or directories, by paths that are the same on
    every machine that holds them), in time shards on a Dask cluster: SCHEDULER (an address
    such as "tcp://head:8786", or a distributed.Client) or a LocalCluster of LOCAL processes.

    Returns what `hashtrace shard merge` prints and its JSON (also written to JSON_PATH when
    given). HASHTRACE is the binary, by name on each machine's PATH or by path; WORKDIR keeps
    the plan and the summaries (default: a temporary directory); TOLERANCE_MS admits a
    producer up to that long after its consumer (clock error; the plan carries it to every
    shard); TIMINGS, a dict, receives each phase's seconds. Raises ClusterError before any
    shard work for a log no worker holds or a worker with another build, CommandError when
    a `hashtrace` step fails."""
    start = time.perf_counter()
    clock = {} if timings is None else timings
    me = build_identity(hashtrace)
    if me["error"]:
        raise ClusterError(f"the driver: {me['error']}")
    local_bin = me["path"]  # what the driver checked; each worker resolves the name the same way
    if os.sep in hashtrace:
        hashtrace = os.path.abspath(hashtrace)
    inputs = [os.path.abspath(p) for p in logs]
    spec_file = _read_spec(spec)
    with ExitStack() as stack:
        work = workdir or stack.enter_context(tempfile.TemporaryDirectory(prefix="hashtrace-cluster-"))
        os.makedirs(work, exist_ok=True)
        client = _connect(stack, scheduler, local)
        clock["connect_s"] = time.perf_counter() - start

        t = time.perf_counter()
        given = _Workers(client, inputs, hashtrace)
        given.check_builds(hashtrace, me)
        plan_text, health = _balanced_plan(client, local_bin, hashtrace, inputs, given,
                                           lambda n: _plan_args(inputs, n, margin_ms, tolerance_ms), shard_samples)
        sys.stderr.write(health)
        with open(os.path.join(work, "plan.json"), "w", encoding="utf-8") as f:
            f.write(plan_text)
        plan = json.loads(plan_text)
        held = _Workers(client, [log["path"] for log in plan["logs"]])
        _check_held(plan, held)
        clock["plan_s"] = time.perf_counter() - t  # with both surveys of the workers

        t = time.perf_counter()
        results = _ShardRunner(client, hashtrace, plan, plan_text, spec_file, held).run()
        clock["shards_s"] = time.perf_counter() - t
        _forward_stderr(results)
        _count(clock, results)

        t = time.perf_counter()
        out = json_path or os.path.join(work, "analysis.json")
        text = _merge(local_bin, results, work, out)
        with open(out, encoding="utf-8") as f:
            result = json.load(f)
        clock["merge_s"] = time.perf_counter() - t
    clock["wall_s"] = time.perf_counter() - start
    return text, result


# ---------------------------------------------------------------------------
# The command line.

def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="hashtrace-cluster",
                                     description="hashtrace's time-sharded analysis on a Dask cluster (docs/cluster.md)")
    commands = parser.add_subparsers(dest="command", required=True)
    a = commands.add_parser("analyze", help="analyse a run across the cluster; prints what `hashtrace analyze` prints")
    a.add_argument("logs", nargs="+", metavar="LOGS", help="log files or directories, by paths valid where they are held")
    a.add_argument("--spec", help="analysis spec (TOML)")
    where = a.add_mutually_exclusive_group(required=True)
    where.add_argument("--scheduler", metavar="ADDRESS", help="the Dask scheduler, e.g. tcp://head:8786")
    where.add_argument("--local", type=int, metavar="N", help="a cluster of N worker processes on this machine")
    a.add_argument("--json", metavar="FILE", help="write the analysis as JSON")
    a.add_argument("--shard-samples", type=int, default=1_000_000, metavar="N", help="samples per shard (default 1000000)")
    a.add_argument("--margin-ms", type=float, metavar="X", help="each shard's margin (default: hashtrace's, 1000)")
    a.add_argument("--tolerance-ms", type=float, default=0.0, metavar="X",
                   help="admit a producer up to X ms after its consumer (clock error); default 0")
    a.add_argument("--hashtrace", default="hashtrace", metavar="PATH", help="the hashtrace binary (default: on PATH)")
    a.add_argument("--workdir", metavar="DIR", help="keep the plan and the summaries in DIR")
    a.add_argument("--timings", action="store_true", help="print each phase's seconds to stderr")
    args = parser.parse_args(argv)
    if args.local is not None and args.local < 1:
        parser.error("--local needs at least 1 worker")
    timings: Dict[str, float] = {}
    try:
        text, _ = analyze(args.logs, spec=args.spec, scheduler=args.scheduler, local=args.local,
                          shard_samples=args.shard_samples, margin_ms=args.margin_ms, json_path=args.json,
                          hashtrace=args.hashtrace, workdir=args.workdir, tolerance_ms=args.tolerance_ms,
                          timings=timings)
    except (ClusterError, OSError) as e:
        print(f"hashtrace-cluster: error: {e}", file=sys.stderr)
        return 1
    sys.stdout.write(text)
    if args.timings:
        print("timings: " + " ".join(f"{k}={v:.3f}" for k, v in timings.items()), file=sys.stderr)
    return 0


if __name__ == "__main__":
    from hashtrace.cluster import main as _main  # the package's copy, whose tasks ship by value
    sys.exit(_main())
