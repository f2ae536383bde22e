#!/usr/bin/env python3
"""Slow clients (slowloris) for the test suite, in a process of their own.

Opens COUNT connections to 127.0.0.1:PORT from each source address, sends each the start of a
request head that never ends, and then obeys one command a line on standard input, answering each
with one line of JSON on standard output:

    (at start)         {"opened": 2000, "refused": 0}
    trickle            {"kept": 64}       one more byte on every connection; how many are still open
    closed SECONDS     {"closed": 500}    how many the server closes within SECONDS in all
    (end of input)     closes every connection and exits

The test process itself never holds these thousands of descriptors: Foundation's Process.run() on
Linux over-reads /proc/self/fd when it holds more than about a thousand
(swift-corelibs-foundation#5472) and crashed a parallel test run that way.

Usage: slow-clients.py PORT COUNT SOURCE[,SOURCE...]
"""

import json
import resource
import select
import socket
import sys
import time

HEAD = b"GET /health HTTP/1.1\r\nHost: x\r\nX-Slow: "


def answer(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def open_all(port, count, sources):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = count * len(sources) + 64
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, wanted), hard))
    opened, refused = [], 0
    for source in sources:
        for _ in range(count):
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.settimeout(5)
            try:
                sock.bind((source, 0))
                sock.connect(("127.0.0.1", port))
                sock.sendall(HEAD)
            except OSError:
                sock.close()
                refused += 1
                continue
            opened.append(sock)
    return opened, refused


def trickle(connections):
    kept = 0
    for sock in connections:
        try:
            sent = sock.send(b"a", socket.MSG_DONTWAIT)
            kept += sent == 1
        except BlockingIOError:
            kept += 1
        except OSError:
            pass
    return kept


def closed_within(connections, seconds):
    """Counts connections that reach end of file or a reset before the deadline."""
    poller = select.epoll()
    by_fd = {}
    for sock in connections:
        poller.register(sock.fileno(), select.EPOLLIN | select.EPOLLRDHUP | select.EPOLLERR)
        by_fd[sock.fileno()] = sock
    closed = 0
    deadline = time.monotonic() + seconds
    while by_fd:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        for fd, _ in poller.poll(left):
            sock = by_fd[fd]
            try:
                data = sock.recv(4096, socket.MSG_DONTWAIT)
            except BlockingIOError:
                continue
            except OSError:
                data = b""
            if not data:
                closed += 1
                poller.unregister(fd)
                del by_fd[fd]
    poller.close()
    return closed


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    port, count, sources = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(",")
    connections, refused = open_all(port, count, sources)
    answer({"opened": len(connections), "refused": refused})
    for line in sys.stdin:
        words = line.split()
        if words == ["trickle"]:
            answer({"kept": trickle(connections)})
        elif len(words) == 2 and words[0] == "closed":
            answer({"closed": closed_within(connections, float(words[1]))})
        else:
            answer({"error": "unknown command: " + line.strip()})
    for sock in connections:
        sock.close()


if __name__ == "__main__":
    main()
