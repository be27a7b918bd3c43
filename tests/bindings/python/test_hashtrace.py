"""Tests of the Python package, run by ctest:
    HASHTRACE_LIBRARY=build/bindings/c/libhashtrace.so.0 HASHTRACE_GOLDEN=... python3 -m unittest test_hashtrace
"""
import csv
import hashlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import unittest
import warnings

import hashtrace

GOLDEN = os.environ["HASHTRACE_GOLDEN"]


def golden_rows():
    with open(GOLDEN, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#") or line.startswith("name\t"):
                continue
            yield line.split("\t")


def python_values(spec):
    """A golden row's values as Python values (widths said with the wrappers)."""
    values = []
    for token in spec.split():
        kind, lit = token.split(":", 1)
        if kind == "str":
            values.append(bytes.fromhex(lit).decode("utf-8"))
        elif kind == "bytes":
            values.append(bytes.fromhex(lit))
        elif kind == "bool":
            values.append(lit == "1")
        elif kind == "f32":
            values.append(hashtrace.f32(__import__("struct").unpack("<f", int(lit, 16).to_bytes(4, "little"))[0]))
        elif kind == "f64":
            values.append(__import__("struct").unpack("<d", int(lit, 16).to_bytes(8, "little"))[0])
        elif kind == "i64":
            values.append(int(lit))  # a plain int is an int64
        else:
            values.append(getattr(hashtrace, kind)(int(lit)))
    return values


class CanonicalBytes(unittest.TestCase):
    def test_golden_vectors(self):
        rows = 0
        for name, spec, canonical, md5, xxh3 in golden_rows():
            with self.subTest(name):
                values = python_values(spec)
                data = hashtrace.canonical_bytes(*values)
                self.assertEqual(data.hex(), canonical)
                self.assertEqual(hashlib.md5(data).hexdigest(), md5)
                self.assertEqual(hashtrace.hash_of(*values).hex(), md5)
                self.assertEqual(hashtrace.hash_of(*values, hash_function="xxh3_128").hex(), xxh3)
                rows += 1
        self.assertGreaterEqual(rows, 50)

    def test_accelerator_encodes_as_the_python_encoder(self):
        if not hashtrace.accelerated():
            self.skipTest("pure-Python run")
        for name, spec, canonical, _, _ in golden_rows():
            with self.subTest(name):
                self.assertEqual(hashtrace._speedups.encode(tuple(python_values(spec))).hex(), canonical)

    def test_sized_numbers_match_the_python_ones(self):
        # With the accelerator, u8()..f64() are its C objects: the same bytes and the same
        # errors as the pure-Python Typed (the fallback), at every width's edges.
        if not hashtrace.accelerated():
            self.skipTest("pure-Python run")
        from hashtrace import _canonical
        samples = [0, 1, -1, 127, 128, -128, -129, 255, 256, 2 ** 15, -2 ** 15, 2 ** 16, 2 ** 31, -2 ** 31 - 1,
                   2 ** 32, 2 ** 63 - 1, 2 ** 63, -2 ** 63, -2 ** 63 - 1, 2 ** 64 - 1, 2 ** 64, 10 ** 30,
                   1.5, -0.0, float("inf"), 3.5e38, 1e39, True, "1", None]
        for kind in ("u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64"):
            for value in samples:
                with self.subTest(kind=kind, value=value):
                    try:
                        expected = getattr(_canonical, kind)(value)
                    except (TypeError, OverflowError) as e:
                        with self.assertRaises(type(e)):
                            getattr(hashtrace, kind)(value)
                        continue
                    made = getattr(hashtrace, kind)(value)
                    self.assertIsInstance(made, hashtrace.Typed)
                    self.assertEqual(made.data, expected.data)
                    self.assertEqual(hashtrace.canonical_bytes(made), expected.data)
                    self.assertEqual(repr(made), repr(expected))

    def test_plain_numbers_are_int64_and_double(self):
        self.assertEqual(hashtrace.canonical_bytes(42), hashtrace.canonical_bytes(hashtrace.i64(42)))
        self.assertEqual(hashtrace.canonical_bytes(1.5), hashtrace.canonical_bytes(hashtrace.f64(1.5)))
        self.assertEqual(hashtrace.canonical_bytes(True), b"\x01")

    def test_bad_values_raise_before_recording(self):
        with self.assertRaises(TypeError):
            hashtrace.canonical_bytes([1, 2])
        with self.assertRaises(TypeError):
            hashtrace.canonical_bytes(None)
        with self.assertRaises(TypeError):
            hashtrace.u32("42")
        with self.assertRaises(TypeError):
            hashtrace.u8(1.5)
        with self.assertRaises(OverflowError):
            hashtrace.u8(256)
        with self.assertRaises(OverflowError):
            hashtrace.u64(-1)
        with self.assertRaises(OverflowError):
            hashtrace.canonical_bytes(2 ** 63)
        with self.assertRaises(UnicodeEncodeError):
            hashtrace.canonical_bytes("lone \ud800 surrogate")
        with self.assertRaises(ValueError):
            hashtrace.hash_of(1, hash_function="sha1")
        with self.assertRaises(TypeError):
            hashtrace.tracepoint("X", hashtrace.inp("a", 1))  # a single spec must be inout
        with self.assertRaises(TypeError):
            hashtrace.tracepoint("X", "a", "b")
        with self.assertRaises(ValueError):
            hashtrace.Tracepoint("has,comma", "a", "b")
        with self.assertRaises(TypeError):
            hashtrace.Tracepoint("X", 1, "b")
        # The same errors from the recording path (the accelerator's or the Python one).
        tp = hashtrace.Tracepoint("Bad", "a", "b")
        with self.assertRaises(TypeError):
            tp.record(([1, 2],), None)
        with self.assertRaises(TypeError):
            tp.inout(object())
        with self.assertRaises(OverflowError):
            tp.inout(2 ** 63)
        with self.assertRaises(UnicodeEncodeError):
            tp.inout("lone \udc00")
        with self.assertRaises(TypeError):
            hashtrace.tracepoint("Bad", hashtrace.inp("a", {}), hashtrace.none)


class Sessions(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="hashtrace-python-")

    def tearDown(self):
        hashtrace.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def start(self, **kw):
        return hashtrace.start(node=kw.pop("node", "Py"), log_dir=self.dir, signal_handlers=False,
                               read_environment=False, **kw)

    def test_misuse_is_reported_the_python_way(self):
        tp = hashtrace.Tracepoint("Misuse", "id", "id")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            self.assertFalse(tp.inout(1))  # before a session
            self.start()
            with self.assertRaises(hashtrace.SessionError) as e:
                self.start()
            self.assertIn("already running", str(e.exception))
            self.assertTrue(tp.inout(1))
            hashtrace.stop()
            self.assertFalse(tp.inout(2))  # after stop
            self.assertFalse(hashtrace.tracepoint("Misuse", hashtrace.inout("id", 3)))
        self.assertEqual(sum(issubclass(w.category, hashtrace.HashtraceWarning) for w in caught), 3)
        self.assertEqual(hashtrace.stats().written, 1)
        hashtrace.stop()  # twice: a no-op
        with self.assertRaises(ValueError):
            self.start(format="xml")
        with self.assertRaises(hashtrace.SessionError):
            self.start(queue_capacity=0)
        not_a_dir = os.path.join(self.dir, "file")
        open(not_a_dir, "w").close()
        with self.assertRaises(hashtrace.SessionError):
            hashtrace.start(node="Py", log_dir=not_a_dir, read_environment=False)
        self.assertFalse(hashtrace.running())

    def test_csv_log_holds_labels_and_the_sdks_hashes(self):
        path = self.start(format="csv")
        hashtrace.set_thread_name("main")
        for i in range(10):
            hashtrace.tracepoint("Received", hashtrace.inout("messageid", hashtrace.u64(i)))
            hashtrace.tracepoint("Computed", hashtrace.inp("messageid", hashtrace.u64(i)),
                                 hashtrace.out("force", hashtrace.u64(i), 1.5), deferred=True)
            hashtrace.tracepoint("Fast", hashtrace.none, hashtrace.out("messageid", hashtrace.u64(i)),
                                 hash_function="xxh3_128")
        hashtrace.set_enabled(False)
        self.assertTrue(hashtrace.tracepoint("Received", hashtrace.inout("messageid", 99)))  # off: accepted, not recorded
        hashtrace.set_enabled(True)
        hashtrace.stop()
        with open(path, newline="", encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        self.assertEqual(len(rows), 30)
        for n, row in enumerate(rows):
            i = n // 3
            self.assertEqual(row["node_name"], "Py")
            if row["tracepoint_name"] == "Received":
                self.assertEqual(row["input_hash"], hashtrace.hash_of(hashtrace.u64(i)).hex())
                self.assertEqual(row["output_hash"], row["input_hash"])
                self.assertEqual(row["hash_function"], "md5")
            elif row["tracepoint_name"] == "Computed":
                self.assertEqual(row["output_hash_type"], "force")
                self.assertEqual(row["output_hash"], hashtrace.hash_of(hashtrace.u64(i), 1.5).hex())
            else:
                self.assertEqual(row["input_hash"], "")
                self.assertEqual(row["hash_function"], "xxh3_128")
                self.assertEqual(row["output_hash"], hashtrace.hash_of(hashtrace.u64(i), hash_function="xxh3_128").hex())
            self.assertEqual(int(row["seq"]), n)

    def test_threads_record_concurrently(self):
        self.start(when_full="block")
        tp = hashtrace.Tracepoint("Worker", "n", "n")

        def work(me):
            hashtrace.set_thread_name(f"worker {me}")
            for i in range(2000):
                tp.inout(hashtrace.i32(me), hashtrace.u32(i))

        threads = [threading.Thread(target=work, args=(t,)) for t in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        hashtrace.stop()
        self.assertEqual(hashtrace.stats(), hashtrace.Stats(6000, 0, hashtrace.stats().bytes, 6000))

    def test_stats_inside_the_session_count_what_was_recorded(self):
        # The writer flushes every flush_ms: inside the session `written` lags, `recorded`
        # does not. A long flush interval makes the lag certain.
        with hashtrace.session(node="Stats", log_dir=self.dir, read_environment=False, flush_ms=60000) as s:
            tp = hashtrace.Tracepoint("Counted", "id", "id")
            for i in range(5):
                self.assertTrue(tp.inout(i))
            hashtrace.tracepoint("Counted", hashtrace.inout("id", 5))
            tp.record_canonical(b"", None)
            hashtrace.set_enabled(False)
            self.assertTrue(tp.inout(7))  # accepted while switched off, not recorded
            hashtrace.set_enabled(True)
            inside = s.stats()
            self.assertEqual(inside.recorded, 7)
            self.assertEqual(inside.written, 0)
        after = hashtrace.stats()
        self.assertEqual((after.written, after.recorded), (7, 7))
        # A new session counts from zero.
        self.start()
        self.assertEqual(hashtrace.stats().recorded, 0)

    def test_warning_names_the_callers_line(self):
        tp = hashtrace.Tracepoint("Nowhere", "id", "id")
        for record in (lambda: tp.inout(1), lambda: tp.record((1,), None),
                       lambda: hashtrace.tracepoint("Nowhere", hashtrace.inout("id", 1))):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                self.assertFalse(record())
            self.assertEqual(len(caught), 1)
            self.assertEqual(caught[0].filename, __file__)

    def test_session_context_manager(self):
        with hashtrace.session(node="Ctx", log_dir=self.dir, read_environment=False) as s:
            self.assertTrue(hashtrace.running())
            hashtrace.Tracepoint("Once", "", "x").record(None, (1,))
        self.assertFalse(hashtrace.running())
        self.assertTrue(s.log_path.endswith(".htlog"))
        with open(s.log_path, "rb") as f:
            data = f.read()
        self.assertEqual(data[:8], b"\x89HTLOG\r\n")
        self.assertEqual(data[-1], 0x83)  # the end marker

    # HASHTRACE_STREAM reaches libhashtrace's writer, as it does a C++
    # node's: a collector (here a loopback listener keeping the bytes) gets
    # a log that reads as the disk log does, closed cleanly.
    def test_streams_to_the_collector_the_environment_names(self):
        exe = os.environ.get("HASHTRACE_EXE")
        if not exe:
            self.skipTest("HASHTRACE_EXE (the hashtrace tool, to read the logs) is not set")
        listener = socket.create_server(("127.0.0.1", 0))
        received = bytearray()

        def collect():
            connection, _ = listener.accept()
            with connection:
                while chunk := connection.recv(65536):
                    received.extend(chunk)

        collector = threading.Thread(target=collect)
        collector.start()
        os.environ["HASHTRACE_STREAM"] = "127.0.0.1:%d" % listener.getsockname()[1]
        try:
            hashtrace.start(node="Streamed", log_dir=self.dir, signal_handlers=False, read_environment=True)
            tp = hashtrace.Tracepoint("Tick", "id", "id")
            for i in range(500):
                tp.inout(i)
            hashtrace.stop()
        finally:
            del os.environ["HASHTRACE_STREAM"]
        collector.join(10)
        listener.close()
        self.assertFalse(collector.is_alive())
        streamed = tempfile.mkdtemp(prefix="hashtrace-python-stream-")  # beside the disk log's folder, not in it
        self.addCleanup(shutil.rmtree, streamed, True)
        with open(os.path.join(streamed, "Streamed-stream.htlog"), "wb") as f:
            f.write(received)
        for folder in (self.dir, streamed):
            out = os.path.join(folder, "analysis.json")
            subprocess.run([exe, "analyze", folder, "--json", out, "--quiet"], check=True, capture_output=True, timeout=60)
            with open(out) as f:
                result = json.load(f)
            self.assertEqual(result["samples"], 500, folder)
            self.assertEqual(result["unclean_files"], [], folder)
            self.assertEqual(result["stream_dropped_samples"], 0, folder)


class Install(unittest.TestCase):
    def pip_install(self, target, *settings):
        source = os.environ["HASHTRACE_PYTHON_SOURCE"]
        command = [sys.executable, "-m", "pip", "install", "--no-index", "--no-deps", "--quiet",
                   "--disable-pip-version-check", "--target", target, source]
        for setting in settings:
            command += ["--config-settings", setting]
        subprocess.run(command, check=True, timeout=300, cwd=target, capture_output=True)

    def run_installed(self, target, code):
        return subprocess.run([sys.executable, "-c", code], env=dict(os.environ, PYTHONPATH=target), cwd=target,
                              check=True, capture_output=True, text=True, timeout=60).stdout

    def test_pip_installs_offline_with_the_accelerator(self):
        # With no index: the in-tree build backend downloads nothing. The library built
        # by this build is bundled (the default builds its own: tests/bindings/install_test.sh).
        target = tempfile.mkdtemp(prefix="hashtrace-pip-")
        try:
            self.pip_install(target, "libhashtrace=" + os.environ["HASHTRACE_LIBRARY"], "werror=on")
            out = self.run_installed(target, "import hashtrace, os; print(hashtrace.__file__, hashtrace.accelerated(), "
                                             "hashtrace._native.lib._name, hashtrace.__version__, "
                                             "os.path.exists(os.path.join(os.path.dirname(hashtrace.__file__), 'py.typed')), "
                                             "hashtrace.hash_of(hashtrace.u32(42)).hex())").split()
            package = os.path.join(target, "hashtrace")
            self.assertEqual(out[0], os.path.join(package, "__init__.py"))
            self.assertEqual(out[1], "True")  # the accelerator came with the install
            self.assertEqual(out[2], os.path.join(package, "libhashtrace.so.0"))  # and the library, found beside it
            self.assertEqual(out[3], hashtrace.__version__)
            self.assertEqual(out[4], "True")
            self.assertEqual(out[5], "9824a7030ce67cf3f0efe7529f0c6ecc")
        finally:
            shutil.rmtree(target, ignore_errors=True)

    def test_pure_python_wheel_and_a_bad_library_setting(self):
        target = tempfile.mkdtemp(prefix="hashtrace-pip-")
        try:
            self.pip_install(target, "native=off")
            self.assertFalse(os.path.exists(os.path.join(target, "hashtrace", "libhashtrace.so.0")))
            out = self.run_installed(target, "import hashtrace; print(hashtrace.accelerated())")
            self.assertEqual(out.strip(), "False")  # ctypes over HASHTRACE_LIBRARY
            # A library that is not there fails the build, loudly.
            with self.assertRaises(subprocess.CalledProcessError):
                self.pip_install(tempfile.mkdtemp(dir=target), "libhashtrace=" + os.path.join(target, "missing.so"))
        finally:
            shutil.rmtree(target, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()
