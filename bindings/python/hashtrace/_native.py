"""Loads libhashtrace (the C API) and declares the functions used.

With the accelerator (hashtrace_speedups) imported, the library it links is
used. Else the library is looked for, in order: the HASHTRACE_LIBRARY environment
variable (a path), the copy a pip-built wheel holds beside this file, the path
the CMake install wrote into _install_path.py, the system's library search
(ldconfig, LD_LIBRARY_PATH).
"""
import ctypes
import ctypes.util
import os
import sys

c_size = ctypes.c_size_t
c_ptr = ctypes.c_void_p


class Config(ctypes.Structure):
    _fields_ = [
        ("struct_size", ctypes.c_uint32),
        ("node_name", ctypes.c_char_p),
        ("log_dir", ctypes.c_char_p),
        ("format", ctypes.c_int32),
        ("queue_capacity", ctypes.c_uint64),
        ("when_full", ctypes.c_int32),
        ("flush_interval_ms", ctypes.c_uint32),
        ("install_signal_handlers", ctypes.c_int32),
        ("enabled", ctypes.c_int32),
        ("read_environment", ctypes.c_int32),
    ]


class Stats(ctypes.Structure):
    _fields_ = [("written", ctypes.c_uint64), ("dropped", ctypes.c_uint64), ("bytes", ctypes.c_uint64)]


_HERE = os.path.dirname(os.path.abspath(__file__))
_BUNDLED = os.path.join(_HERE, "libhashtrace.so.0")  # where a pip-built wheel puts it


def _candidates():
    # The accelerator links libhashtrace itself: load that very instance, or the
    # session started through ctypes would not be the one it records into. Inside
    # the package (pip) it is the bundled file; beside it (CMake) the one its soname
    # names, already loaded.
    if "hashtrace.hashtrace_speedups" in sys.modules and os.path.exists(_BUNDLED):
        yield _BUNDLED
        return
    if "hashtrace_speedups" in sys.modules:
        yield "libhashtrace.so.0"
        return
    env = os.environ.get("HASHTRACE_LIBRARY")
    if env:
        yield env
        return
    if os.path.exists(_BUNDLED):
        yield _BUNDLED
    try:
        from ._install_path import LIBRARY
        yield LIBRARY
    except ImportError:
        pass
    found = ctypes.util.find_library("hashtrace")
    if found:
        yield found
    yield "libhashtrace.so.0"


def _load():
    errors = []
    for path in _candidates():
        try:
            # CDLL releases the GIL around a call (start/stop wait for the writer);
            # PyDLL keeps it: the record calls are short and skip the release.
            return ctypes.CDLL(path), ctypes.PyDLL(path)
        except OSError as e:
            errors.append(f"{path}: {e}")
    raise ImportError("hashtrace: cannot load libhashtrace (build it with CMake, install it, or set "
                      "HASHTRACE_LIBRARY to its path): " + "; ".join(errors))


lib, fast = _load()


def _declare(library, name, restype, *argtypes):
    f = getattr(library, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


abi_version = _declare(lib, "hashtrace_abi_version", ctypes.c_int)
config_init = _declare(lib, "hashtrace_config_init", None, ctypes.POINTER(Config))
start = _declare(lib, "hashtrace_start", ctypes.c_int, ctypes.POINTER(Config))
stop = _declare(lib, "hashtrace_stop", ctypes.c_int)
running = _declare(lib, "hashtrace_running", ctypes.c_int)
log_path = _declare(lib, "hashtrace_log_path", c_size, ctypes.c_char_p, c_size)
get_stats = _declare(lib, "hashtrace_get_stats", None, ctypes.POINTER(Stats))
set_enabled = _declare(lib, "hashtrace_set_enabled", None, ctypes.c_int)
enabled = _declare(lib, "hashtrace_enabled", ctypes.c_int)
set_thread_name = _declare(lib, "hashtrace_set_thread_name", ctypes.c_int, ctypes.c_char_p)
last_error = _declare(fast, "hashtrace_last_error", ctypes.c_char_p)
define = _declare(lib, "hashtrace_tracepoint_define", c_ptr, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                  ctypes.c_int, ctypes.c_int)
record_bytes = _declare(fast, "hashtrace_record_bytes", ctypes.c_int, c_ptr, ctypes.c_char_p, c_size, ctypes.c_char_p, c_size)
record_bytes_inout = _declare(fast, "hashtrace_record_bytes_inout", ctypes.c_int, c_ptr, ctypes.c_char_p, c_size)
hash_bytes = _declare(fast, "hashtrace_hash_bytes", ctypes.c_int, ctypes.c_int, ctypes.c_char_p, c_size, ctypes.c_char_p)

OK, E_NOT_RUNNING = 0, -4  # hashtrace_status values the package tells apart

if abi_version() != 1:
    raise ImportError(f"hashtrace: libhashtrace speaks ABI {abi_version()}, this package ABI 1")
