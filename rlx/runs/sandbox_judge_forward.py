"""The judge's forwarder, run inside the sandbox by its system Python (stdlib only): argv is port, socket path.

It binds 127.0.0.1:<port> before anything else and exits 1 when it cannot: something already listening there
(a process the agent left behind, waiting to answer the verifier's judge calls with a score of its choosing) must
make the run fail unjudged, never be talked to. Once bound it forks, prints the serving child's pid (so the worker
can stop it before a multi-step task's next agent phase) and exits 0; the child pipes each connection to the judge
relay's unix socket.
"""

import os
import socket
import sys
import threading


def pipe(source, sink):
    try:
        while True:
            data = source.recv(65536)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    for end in (source, sink):
        try:
            end.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


def serve(client, path):
    upstream = socket.socket(socket.AF_UNIX)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        return
    threading.Thread(target=pipe, args=(client, upstream), daemon=True).start()
    pipe(upstream, client)


def main():
    port, path = int(sys.argv[1]), sys.argv[2]
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)  # no SO_REUSEADDR/PORT: a taken port fails here
    try:
        listener.bind(("127.0.0.1", port))
        listener.listen(16)
    except OSError as exc:
        print(f"the judge's port {port} is taken inside the sandbox ({exc.strerror})", file=sys.stderr)
        sys.exit(1)
    child = os.fork()
    if child:
        print(child, flush=True)
        os._exit(0)
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    while True:
        connection, _ = listener.accept()
        threading.Thread(target=serve, args=(connection, path), daemon=True).start()


if __name__ == "__main__":
    main()
