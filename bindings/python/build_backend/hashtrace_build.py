"""A minimal PEP 517 build backend for the pure-Python hashtrace package.

It writes a wheel of the hashtrace/ package with the standard library only,
so installing from the repository downloads nothing (setuptools' backend
would need pip to fetch setuptools and wheel into an isolated environment).
"""
import base64
import hashlib
import os
import zipfile

NAME = "hashtrace"
VERSION = "0.1.0"
TAG = "py3-none-any"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DIST_INFO = f"{NAME}-{VERSION}.dist-info"

METADATA = f"""Metadata-Version: 2.1
Name: {NAME}
Version: {VERSION}
Summary: hash-based causality tracing: Python tracepoints over libhashtrace
Requires-Python: >=3.8
"""
WHEEL = f"""Wheel-Version: 1.0
Generator: hashtrace_build
Root-Is-Purelib: true
Tag: {TAG}
"""


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _package_files():
    root = os.path.join(HERE, NAME)
    for file in sorted(os.listdir(root)):
        if file.endswith(".py"):
            with open(os.path.join(root, file), "rb") as f:
                yield f"{NAME}/{file}", f.read()


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    wheel_name = f"{NAME}-{VERSION}-{TAG}.whl"
    records = []
    with zipfile.ZipFile(os.path.join(wheel_directory, wheel_name), "w", zipfile.ZIP_DEFLATED) as wheel:
        entries = list(_package_files())
        entries += [(f"{DIST_INFO}/METADATA", METADATA.encode()), (f"{DIST_INFO}/WHEEL", WHEEL.encode())]
        for name, data in entries:
            wheel.writestr(name, data)
            records.append(_record_line(name, data))
        records.append(f"{DIST_INFO}/RECORD,,")
        wheel.writestr(f"{DIST_INFO}/RECORD", "\n".join(records) + "\n")
    return wheel_name


def get_requires_for_build_wheel(config_settings=None):
    return []
