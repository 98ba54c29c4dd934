#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
# tcp_lo.py - a workload for bpftrace's TCP and UNIX-socket tools in the
# test guest: a loopback TCP listener, a connection to it that sends 3000
# bytes and is accepted, read and closed; then a UNIX stream socketpair that
# carries "perf-run-undump".  Needs lo up (ip link set lo up).
import socket

srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.bind(("127.0.0.1", 0))
srv.listen(8)
port = srv.getsockname()[1]
cli = socket.create_connection(("127.0.0.1", port))
conn, _ = srv.accept()
cli.sendall(b"x" * 3000)
got = 0
while got < 3000:
    got += len(conn.recv(4096))
cli.close()
conn.close()
srv.close()
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
a.sendall(b"perf-run-undump")
b.recv(100)
print("tcp port %d bytes %d" % (port, got))
