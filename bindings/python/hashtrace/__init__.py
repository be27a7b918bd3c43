"""hashtrace for Python: the C++ SDK's tracepoints, canonical hashing and log
files, through libhashtrace (the C API) with ctypes.

    import hashtrace

    with hashtrace.session(node="Planner"):
        hashtrace.tracepoint("MessageReceived", hashtrace.inout("messageid", hashtrace.u64(msg_id)))
        hashtrace.tracepoint("PlanMade", hashtrace.inp("messageid", hashtrace.u64(msg_id)),
                             hashtrace.out("plan", hashtrace.u64(msg_id), cost))

Labels and canonical bytes are the C++ SDK's (docs/spec.md section 2): a plain int
hashes as int64, a float as double; say other widths with u8..u64, i8..i64, f32.

Errors, the Python way: wrong value types raise TypeError, out-of-range
numbers OverflowError, text with a lone surrogate UnicodeEncodeError (all
before anything is recorded); a second session raises SessionError; recording
without a session records nothing, warns (HashtraceWarning) and returns False.
"""
import ctypes
import os
import warnings
from collections import namedtuple

from ._canonical import Typed, canonical_bytes, f32, f64, i8, i16, i32, i64, u8, u16, u32, u64

# The optional C accelerator (built by CMake beside the package); imported
# before _native so that both use the same libhashtrace. HASHTRACE_PURE_PYTHON=1
# runs without it.
try:
    if os.environ.get("HASHTRACE_PURE_PYTHON") == "1":
        raise ImportError("disabled by HASHTRACE_PURE_PYTHON")
    import hashtrace_speedups as _speedups
    _speedups.set_typed(Typed)
except ImportError:
    _speedups = None

from . import _native  # noqa: E402  (after the accelerator, see above)

__all__ = [
    "accelerated",
    "session", "start", "stop", "running", "set_enabled", "enabled", "set_thread_name", "stats", "log_path",
    "tracepoint", "Tracepoint", "inp", "out", "inout", "none", "canonical_bytes", "hash_of",
    "u8", "u16", "u32", "u64", "i8", "i16", "i32", "i64", "f32", "f64", "Typed",
    "SessionError", "HashtraceWarning", "Stats",
]

Stats = namedtuple("Stats", "written dropped bytes")
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
    s = _native.Stats()
    _native.get_stats(s)
    return Stats(s.written, s.dropped, s.bytes)


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

def _not_recorded(rc):
    if rc == _native.E_NOT_RUNNING:
        warnings.warn(_message(), HashtraceWarning, stacklevel=3)
        return False
    raise ValueError(_message())


# Encode and record: (handle, inp values or None, out values or None) -> status.
if _speedups is not None:
    _record = _speedups.record
    _record_inout = _speedups.record_inout
else:
    def _record(handle, inp, out):
        i = None if inp is None else canonical_bytes(*inp)
        o = None if out is None else canonical_bytes(*out)
        return _native.record_bytes(handle, i, 0 if i is None else len(i), o, 0 if o is None else len(o))

    def _record_inout(handle, values):
        data = canonical_bytes(*values)
        return _native.record_bytes_inout(handle, data, len(data))


def accelerated():
    """Whether the C accelerator (hashtrace_speedups) records the samples."""
    return _speedups is not None


class Tracepoint:
    """A tracepoint defined once, for the cheapest calls:

        received = hashtrace.Tracepoint("MessageReceived", "messageid", "messageid")
        received.inout(hashtrace.u64(msg_id))
        computed.record((msg_id,), (msg_id, force))
    """

    __slots__ = ("name", "input_type", "output_type", "_handle")

    def __init__(self, name, input_type, output_type, deferred=False, hash_function="md5"):
        for what, text in (("name", name), ("input_type", input_type), ("output_type", output_type)):
            if not isinstance(text, str):
                raise TypeError(f"hashtrace: tracepoint {what} is a str, not {type(text).__name__}")
        self.name, self.input_type, self.output_type = name, input_type, output_type
        self._handle = _native.define(name.encode("utf-8"), input_type.encode("utf-8"), output_type.encode("utf-8"),
                                      _function(hash_function), 1 if deferred else 0)
        if not self._handle:
            raise ValueError(_message())

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
