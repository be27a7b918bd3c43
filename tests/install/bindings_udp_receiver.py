"""The Python half of the cross-language install test: receives message ids over
UDP and traces each one ("Received", the id in and out), as a Python user's
program does with the pip-installed package. Prints its port first, then
"received N recorded R accelerated A module PATH".
    python bindings_udp_receiver.py LOG_DIR COUNT [--width u32]
--width u32 hashes the ids at the wrong width (the test's failure path).
"""
import socket
import sys

import hashtrace


def main():
    log_dir, count = sys.argv[1], int(sys.argv[2])
    wrong_width = sys.argv[3:] == ["--width", "u32"]
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    sock.settimeout(20)
    received = 0
    with hashtrace.session(node="PyReceiver", log_dir=log_dir, read_environment=False) as session:
        print(sock.getsockname()[1], flush=True)
        while received < count:
            try:
                data, _ = sock.recvfrom(64)
            except socket.timeout:
                break
            msg_id = int.from_bytes(data[:8], "little")
            if wrong_width:
                hashtrace.tracepoint("Received", hashtrace.inout("messageid", hashtrace.u32(msg_id & 0xFFFFFFFF)))
            else:
                # The docs' pattern: a plain int is an int64, the same 8 bytes as C's uint64_t id.
                hashtrace.tracepoint("Received", hashtrace.inout("messageid", msg_id))
            received += 1
        recorded = session.stats().recorded
    print(f"received {received} recorded {recorded} accelerated {hashtrace.accelerated()} module {hashtrace.__file__}",
          flush=True)


if __name__ == "__main__":
    main()
