"""hashtrace for Python: the C++ SDK's tracepoints, canonical hashing and log
files, through libhashtrace (the C API), recorded by the C accelerator
(hashtrace_speedups) or, without it, through ctypes.

    import hashtrace

    with hashtrace.session(node="Planner"):
        hashtrace.tracepoint("MessageReceived", hashtrace.inout("messageid", msg_id))
        hashtrace.tracepoint("PlanMade", hashtrace.inp("messageid", msg_id),
                             hashtrace.out("plan", msg_id, cost))

Labels and canonical bytes are the C++ SDK's (docs/spec.md section 2): a plain int
hashes as int64, a float as double; say other widths with u8..u64, i8..i64, f32.
An id that C++ sends as uint64_t below 2**63 has the same 8 bytes as a plain int.

Errors, the Python way: wrong value types raise TypeError, out-of-range
numbers OverflowError, text with a lone surrogate UnicodeEncodeError (all
before anything is recorded); a second session raises SessionError; recording
without a session records nothing, warns (HashtraceWarning) and returns False.
"""
import ctypes
import os
import threading
import warnings
from collections import namedtuple

from ._canonical import Typed, canonical_bytes, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64

__version__ = "0.1.0"  # the project's version (CMakeLists.txt); the build backend checks they agree


def _import_speedups():
    """The C accelerator: inside the package when pip built it, else a top-level module beside
    the package (CMake's build and install). Imported before _native so that both use the same
    libhashtrace. HASHTRACE_PURE_PYTHON=1 runs without it."""
    if os.environ.get("HASHTRACE_PURE_PYTHON") == "1":
        return None
    try:
        from . import hashtrace_speedups as module
        return module
    except ImportError as e:
        # pip put one here and it does not load (another interpreter's build, a missing
        # libhashtrace): say so, or the 5x slower ctypes path would go unnoticed.
        here = os.path.dirname(os.path.abspath(__file__))
        if any(f.startswith("hashtrace_speedups.") for f in os.listdir(here)):
            warnings.warn(f"hashtrace: the package's C accelerator did not load ({e}); recording through ctypes",
                          RuntimeWarning, stacklevel=3)
    try:
        import hashtrace_speedups as module
        return module
    except ImportError:
        return None


_speedups = _import_speedups()

from . import _native  # noqa: E402  (after the accelerator, see above)

__all__ = [
    "accelerated", "__version__",
    "session", "start", "stop", "running", "set_enabled", "enabled", "set_thread_name", "stats", "log_path",
    "tracepoint", "Tracepoint", "inp", "out", "inout", "none", "canonical_bytes", "hash_of",
    "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64", "Typed",
    "SessionError", "HashtraceWarning", "Stats",
]

# written, dropped, bytes: the writer's counts (what reached the log file; the writer
# flushes every flush_ms, so inside a session they lag). recorded: the samples this
# process's Python tracepoints queued this session, counted as they are queued, so
# stats() inside the session already reports them.
Stats = namedtuple("Stats", "written dropped bytes recorded")
_FUNCTIONS = {"md5": 0, "xxh3_128": 1}


class SessionError(RuntimeError):
    """A session could not be started (one is running, a bad setting, the log cannot be created)."""


class HashtraceWarning(RuntimeWarning):
    """A sample was not recorded because no session is running."""


def _message():
    return _native.last_error().decode("utf-8", "replace")


# ---- sessions ------------------------------------------------------------------

def start(node="node", log_dir=".", format="binary", queue_capacity=16384, when_full="drop", flush_ms=100,
          enabled=True, signal_handlers=True, read_environment=True):
    """Starts the process's session; returns the log's path. HASHTRACE_* environment
    variables override the arguments unless read_environment is False."""
    if format not in ("binary", "csv"):
        raise ValueError(f"hashtrace: format must be 'binary' or 'csv', not {format!r}")
    if when_full not in ("drop", "block"):
        raise ValueError(f"hashtrace: when_full must be 'drop' or 'block', not {when_full!r}")
    c = _native.Config()
    _native.config_init(c)
    c.node_name = str(node).encode("utf-8")
    c.log_dir = str(log_dir).encode("utf-8")
    c.format = 1 if format == "csv" else 0
    c.queue_capacity = int(queue_capacity)
    c.when_full = 1 if when_full == "block" else 0
    c.flush_interval_ms = int(flush_ms)
    c.enabled = 1 if enabled else 0
    c.install_signal_handlers = 1 if signal_handlers else 0
    c.read_environment = 1 if read_environment else 0
    rc = _native.start(c)
    if rc != _native.OK:
        raise SessionError(_message())
    _reset_recorded()
    return log_path()


def stop():
    """Drains the queues and completes the log. A no-op without a session; also runs at exit."""
    _native.stop()


class session:
    """with hashtrace.session(node="Planner") as s: ... (s.log_path, s.stats())"""

    def __init__(self, **settings):
        self._settings = settings
        self.log_path = None

    def __enter__(self):
        self.log_path = start(**self._settings)
        return self

    def __exit__(self, *exc):
        stop()
        return False

    @staticmethod
    def stats():
        return stats()


def running():
    return bool(_native.running())


def set_enabled(on):
    """Recording on/off at run time (ignored without a session)."""
    _native.set_enabled(1 if on else 0)


def enabled():
    return bool(_native.enabled())


def set_thread_name(name):
    """Names the calling thread in the log."""
    if _native.set_thread_name(str(name).encode("utf-8")) != _native.OK:
        raise ValueError(_message())


def stats():
    """Stats(written, dropped, bytes, recorded) of the current (or last) session."""
    s = _native.Stats()
    _native.get_stats(s)
    return Stats(s.written, s.dropped, s.bytes, _recorded())


def log_path():
    """The log of the current (or last) session."""
    buf = ctypes.create_string_buffer(4096)
    n = _native.log_path(buf, len(buf))
    return buf.raw[:min(n, len(buf) - 1)].decode("utf-8", "replace")


def hash_of(*values, hash_function="md5"):
    """The 16 digest bytes of values' canonical bytes (what a tracepoint records)."""
    data = canonical_bytes(*values)
    digest = ctypes.create_string_buffer(16)
    _native.hash_bytes(_function(hash_function), data, len(data), digest)
    return digest.raw


def _function(name):
    try:
        return _FUNCTIONS[name]
    except KeyError:
        raise ValueError(f"hashtrace: hash_function must be 'md5' or 'xxh3_128', not {name!r}") from None


# ---- what a tracepoint hashes ----------------------------------------------------
# The pure-Python forms; with the accelerator, its C versions replace them below
# (the same rules and errors, without a Python frame or constructor per call).

class _Spec:
    __slots__ = ("label", "values")

    def __init__(self, label, values):
        if not isinstance(label, str):
            raise TypeError(f"hashtrace: a hash label is a str, not {type(label).__name__}")
        self.label = label
        self.values = values  # a tuple, or None for no hash


class _InOut(_Spec):
    __slots__ = ()


def inp(label, *values):
    """The input state: its label (the paper's input hash type) and the values hashed."""
    return _Spec(label, values)


def out(label, *values):
    """The output state."""
    return _Spec(label, values)


def inout(label, *values):
    """The same state in and out: hashed once, recorded as both hashes."""
    return _InOut(label, values)


none = _Spec("", None)  # no hash: a source with no input, a sink with no output


# ---- tracepoints ------------------------------------------------------------------

def _not_recorded(rc, stacklevel=3):
    """A status other than OK: no session warns and returns False, anything else raises.
    stacklevel names the user's line: 3 from the Python methods, 2 from the accelerator's."""
    if rc == _native.E_NOT_RUNNING:
        warnings.warn(_message(), HashtraceWarning, stacklevel=stacklevel)
        return False
    raise ValueError(_message())


if _speedups is not None:
    _recorded = _speedups.recorded
    _reset_recorded = _speedups.reset_recorded
    _count_recorded = _speedups.count_recorded
else:
    # Tracepoints run on many threads; the lock keeps the count exact.
    _recorded_lock = threading.Lock()
    _recorded_count = 0

    def _recorded():
        return _recorded_count

    def _reset_recorded():
        global _recorded_count
        with _recorded_lock:
            _recorded_count = 0

    def _queued(rc):
        """The status of a record call, counting a queued sample."""
        global _recorded_count
        if rc == 0 and _native.enabled():  # switched off: accepted, not recorded
            with _recorded_lock:
                _recorded_count += 1
        return rc

    def _count_recorded():
        _queued(0)

    def _record(handle, inp, out):
        i = None if inp is None else canonical_bytes(*inp)
        o = None if out is None else canonical_bytes(*out)
        return _queued(_native.record_bytes(handle, i, 0 if i is None else len(i), o, 0 if o is None else len(o)))

    def _record_inout(handle, values):
        data = canonical_bytes(*values)
        return _queued(_native.record_bytes_inout(handle, data, len(data)))


def accelerated():
    """Whether the C accelerator (hashtrace_speedups) records the samples."""
    return _speedups is not None


class Tracepoint(object if _speedups is None else _speedups.TracepointBase):
    """A tracepoint defined once, for the cheapest calls:

        received = hashtrace.Tracepoint("MessageReceived", "messageid", "messageid")
        received.inout(msg_id)
        computed.record((msg_id,), (msg_id, force))
    """

    # With the accelerator, _handle and the recording methods are its own (TracepointBase).
    __slots__ = ("name", "input_type", "output_type") + (("_handle",) if _speedups is None else ())

    def __init__(self, name, input_type, output_type, deferred=False, hash_function="md5"):
        for what, text in (("name", name), ("input_type", input_type), ("output_type", output_type)):
            if not isinstance(text, str):
                raise TypeError(f"hashtrace: tracepoint {what} is a str, not {type(text).__name__}")
        self.name, self.input_type, self.output_type = name, input_type, output_type
        handle = _native.define(name.encode("utf-8"), input_type.encode("utf-8"), output_type.encode("utf-8"),
                                _function(hash_function), 1 if deferred else 0)
        if not handle:
            raise ValueError(_message())
        self._handle = handle

    if _speedups is None:
        def inout(self, *values):
            """Records the same state as input and output. True when queued."""
            rc = _record_inout(self._handle, values)
            return True if rc == 0 else _not_recorded(rc)

        def record(self, inp=None, out=None):
            """Records a sample: inp and out are tuples of values, or None for no hash."""
            rc = _record(self._handle, inp, out)
            return True if rc == 0 else _not_recorded(rc)

    def record_canonical(self, inp, out):
        """Records bytes that are already canonical (bytes, or None for no hash)."""
        rc = _native.record_bytes(self._handle, inp, 0 if inp is None else len(inp), out, 0 if out is None else len(out))
        if rc == 0:
            _count_recorded()
        return True if rc == 0 else _not_recorded(rc)


_defined = {}


def tracepoint(name, inp, out=None, *, deferred=False, hash_function="md5"):
    """TRACEPOINT(name, inout(...)) or TRACEPOINT(name, inp(...), out(...)), as in C++.
    Returns True when the sample was queued."""
    if out is None:
        if type(inp) is not _InOut:
            raise TypeError("hashtrace.tracepoint(name, spec): a single spec must be hashtrace.inout(...); "
                            "else pass inp(...) and out(...) (or hashtrace.none)")
        out = inp
    elif type(inp) is not _Spec or type(out) is not _Spec:
        raise TypeError("hashtrace.tracepoint(name, inp, out): pass hashtrace.inp(...), hashtrace.out(...) or hashtrace.none")
    key = (name, inp.label, out.label, deferred, hash_function)
    tp = _defined.get(key)
    if tp is None:
        tp = _defined[key] = Tracepoint(name, inp.label, out.label, deferred, hash_function)
    rc = _record_inout(tp._handle, inp.values) if out is inp else _record(tp._handle, inp.values, out.values)
    return True if rc == 0 else _not_recorded(rc)


def _define(name, input_type, output_type, deferred, hash_function):
    """The accelerator's one-call tracepoint() defines through here, once per definition."""
    return Tracepoint(name, input_type, output_type, deferred, hash_function)._handle


if _speedups is not None:
    _speedups.set_hooks(Typed, _not_recorded, _define)
    Typed = _speedups.Typed  # noqa: F811  (the C one: the same bytes, made without a Python frame)
    u8, u16, u32, u64 = _speedups.u8, _speedups.u16, _speedups.u32, _speedups.u64
    i8, i16, i32, i64 = _speedups.i8, _speedups.i16, _speedups.i32, _speedups.i64
    f32, f64 = _speedups.f32, _speedups.f64
    inp, out, inout, none, tracepoint = _speedups.inp, _speedups.out, _speedups.inout, _speedups.none, _speedups.tracepoint

    def canonical_bytes(*values):  # noqa: F811
        """The canonical bytes of values, as every hashtrace language computes them."""
        return _speedups.encode(values)
