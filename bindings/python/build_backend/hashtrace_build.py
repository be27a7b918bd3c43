"""The PEP 517 build backend of the hashtrace package (standard library only).

`pip install bindings/python` builds a wheel that brings everything the fast
path needs, so a user gets it by default:

  hashtrace/*.py, py.typed, __init__.pyi   the package and its type hints
  hashtrace/libhashtrace.so.0              the C API, built from this repository with CMake
                                           (-DHASHTRACE_SDK_ONLY=ON, the hashtrace_c target)
  hashtrace/hashtrace_speedups*.so         the C accelerator (src/speedups.c), built for the
                                           interpreter running pip, its RUNPATH $ORIGIN: it
                                           finds the libhashtrace beside it, no ldconfig

It needs what the SDK needs (a C/C++ compiler, CMake, OpenSSL, concurrentqueue,
xxHash: scripts/install-deps.sh) and the interpreter's headers (Debian:
python3-dev). Nothing is downloaded: the backend has no build requirements.

Settings (pip install --config-settings KEY=VALUE, or `-C KEY=VALUE` on newer pips):
  libhashtrace=PATH   bundle this libhashtrace.so.0 (e.g. a CMake build's
                      build/bindings/c/libhashtrace.so.0) instead of building one
  native=off          a pure-Python wheel (ctypes over a libhashtrace installed
                      elsewhere: HASHTRACE_LIBRARY or the system's library path)
  werror=on           compile the accelerator with -Werror (the project's CI)
"""
import base64
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import zipfile

NAME = "hashtrace"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # bindings/python
REPO = os.path.dirname(os.path.dirname(HERE))                         # the repository's root
SUMMARY = "hash-based causality tracing: Python tracepoints over libhashtrace"


def _read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


def _version():
    """pyproject.toml's version, checked against the package's __version__ and, in a
    repository, the CMake project's: one version, or the build stops."""
    version = re.search(r'^version\s*=\s*"([^"]+)"', _read(os.path.join(HERE, "pyproject.toml")), re.M).group(1)
    package = re.search(r'^__version__\s*=\s*"([^"]+)"', _read(os.path.join(HERE, NAME, "__init__.py")), re.M).group(1)
    versions = {"pyproject.toml": version, "hashtrace/__init__.py": package}
    top = os.path.join(REPO, "CMakeLists.txt")
    if os.path.exists(top):
        versions["CMakeLists.txt"] = re.search(r"project\(hashtrace VERSION ([0-9.]+)", _read(top)).group(1)
    if len(set(versions.values())) != 1:
        raise RuntimeError(f"hashtrace build: the versions disagree: {versions}")
    return version


def _setting(config_settings, key, default):
    value = (config_settings or {}).get(key, default)
    return value[-1] if isinstance(value, list) else value


def _run(command, **kw):
    print("hashtrace build:", " ".join(shlex.quote(c) for c in command), flush=True)
    subprocess.run(command, check=True, **kw)


def _build_libhashtrace(work):
    """libhashtrace.so.0 from this repository's CMake project (only the SDK and the C library)."""
    if not os.path.exists(os.path.join(REPO, "bindings", "c", "CMakeLists.txt")):
        raise RuntimeError("hashtrace build: the repository is not beside bindings/python (pip copied the "
                           "source elsewhere?); build from the repository, or pass "
                           "--config-settings libhashtrace=/path/to/libhashtrace.so.0")
    if not shutil.which("cmake"):
        raise RuntimeError("hashtrace build: cmake is needed to build libhashtrace (Debian: apt install cmake; "
                           "scripts/install-deps.sh installs everything)")
    build = os.path.join(work, "cmake")
    _run(["cmake", "-S", REPO, "-B", build, "-DHASHTRACE_SDK_ONLY=ON", "-DCMAKE_BUILD_TYPE=Release"],
         stdout=subprocess.DEVNULL)
    _run(["cmake", "--build", build, "--target", "hashtrace_c"])
    return os.path.join(build, "bindings", "c", "libhashtrace.so.0")


def _build_speedups(work, library, werror):
    """The accelerator for the interpreter running this build, linked to library, found at $ORIGIN."""
    include = sysconfig.get_paths()["include"]
    if not os.path.exists(os.path.join(include, "Python.h")):
        raise RuntimeError(f"hashtrace build: no Python.h in {include}: the accelerator needs the interpreter's "
                           "headers (Debian: apt install python3-dev)")
    lib_dir = os.path.join(work, "lib")
    os.makedirs(lib_dir, exist_ok=True)
    shutil.copyfile(library, os.path.join(lib_dir, "libhashtrace.so.0"))
    output = os.path.join(work, "hashtrace_speedups" + sysconfig.get_config_var("EXT_SUFFIX"))
    cc = shlex.split(sysconfig.get_config_var("CC") or "cc")
    flags = ["-std=c99", "-O2", "-fPIC", "-Wall", "-Wextra"] + (["-Werror"] if werror else [])
    _run(cc + flags + ["-shared", "-I", include, "-I", os.path.join(REPO, "bindings", "c", "include"),
                       os.path.join(HERE, "src", "speedups.c"), "-o", output,
                       "-L", lib_dir, "-l:libhashtrace.so.0", "-Wl,-rpath,$ORIGIN"])
    return output, os.path.join(lib_dir, "libhashtrace.so.0")


def _native_tag():
    """cp311-cp311-linux_x86_64 for the interpreter running the build."""
    if sys.implementation.name != "cpython":
        raise RuntimeError("hashtrace build: the accelerator is for CPython; pass --config-settings native=off")
    version = f"{sys.version_info.major}{sys.version_info.minor}"
    soabi = sysconfig.get_config_var("SOABI") or ""  # cpython-311-x86_64-linux-gnu, a debug build cpython-311d-...
    abi = "cp" + soabi.split("-")[1] if soabi.startswith("cpython-") else "cp" + version
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"cp{version}-{abi}-{platform}"


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _package_files():
    root = os.path.join(HERE, NAME)
    for file in sorted(os.listdir(root)):
        if file.endswith((".py", ".pyi")) or file == "py.typed":
            with open(os.path.join(root, file), "rb") as f:
                yield f"{NAME}/{file}", f.read(), 0o644


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    native = _setting(config_settings, "native", "on") != "off"
    tag = _native_tag() if native else "py3-none-any"
    entries = list(_package_files())
    work = tempfile.mkdtemp(prefix="hashtrace-build-")
    try:
        if native:
            library = _setting(config_settings, "libhashtrace", "") or _build_libhashtrace(work)
            speedups, bundled = _build_speedups(work, library, _setting(config_settings, "werror", "off") == "on")
            for path in (speedups, bundled):
                with open(path, "rb") as f:
                    entries.append((f"{NAME}/{os.path.basename(path)}", f.read(), 0o755))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    dist_info = f"{NAME}-{version}.dist-info"
    metadata = (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {version}\nSummary: {SUMMARY}\n"
                "Requires-Python: >=3.8\n")
    wheel_file = (f"Wheel-Version: 1.0\nGenerator: hashtrace_build\nRoot-Is-Purelib: {'false' if native else 'true'}\n"
                  f"Tag: {tag}\n")
    entries += [(f"{dist_info}/METADATA", metadata.encode(), 0o644), (f"{dist_info}/WHEEL", wheel_file.encode(), 0o644)]
    wheel_name = f"{NAME}-{version}-{tag}.whl"
    records = []
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as wheel:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))  # the same inputs, the same wheel
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
            records.append(_record_line(name, data))
        records.append(f"{dist_info}/RECORD,,")
        wheel.writestr(f"{dist_info}/RECORD", "\n".join(records) + "\n")
    return wheel_name


def get_requires_for_build_wheel(config_settings=None):
    return []
