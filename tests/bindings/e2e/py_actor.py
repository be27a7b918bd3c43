"""The Python node of the three-language test (a ROS-like node): acts on the
commands the C++ relay forwards, tracing each.
    python3 py_actor.py        (prints its port, then serves one relay)
"""
import socket
import struct
import sys

import hashtrace

COMMAND = struct.Struct("<Qd")


def read_exact(conn, n):
    data = b""
    while len(data) < n:
        chunk = conn.recv(n - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def main():
    acted = 0
    with hashtrace.session(node="PyActor"):
        hashtrace.set_thread_name("actor")
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
            listener.bind(("127.0.0.1", 0))
            listener.listen(1)
            print(listener.getsockname()[1], flush=True)
            conn, _ = listener.accept()
            with conn:
                while (data := read_exact(conn, COMMAND.size)) is not None:
                    message_id, gain = COMMAND.unpack(data)
                    hashtrace.tracepoint("Acted", hashtrace.inp("command", hashtrace.u64(message_id), gain), hashtrace.none)
                    acted += 1
    print(f"py_actor: acted on {acted} commands", file=sys.stderr)


if __name__ == "__main__":
    main()
