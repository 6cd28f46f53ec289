"""Serve battlelog in the browser: advice in a real game, a game against the computer, and experiments.

Starts a local web server and prints its address; open it in a browser. The page's JSON API (under
/api/, see docs/web.md) can be used by scripts too, with JSON bodies (Content-Type: application/json).
It listens on 127.0.0.1 only, unless --host says otherwise (with a warning: the server has no login),
answers only requests for its own names and from its own page (not other web sites), and bounds how
long a request may take to arrive, the connections, each client's games and the engine's queue
(docs/web.md, "Safety"). Ctrl-C stops it.

examples:
  battlelog serve                                   # http://127.0.0.1:8000/
  battlelog serve --port 8080 --results experiments/results
  curl -s --json '{"size": 5, "ships": [3, 2], "shots": []}' localhost:8000/api/marginals
"""

from __future__ import annotations

import argparse
import ipaddress
import socket
import sys
from pathlib import Path

from battlelog.commands.boards import whole
from battlelog.errors import BattlelogError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (default: 127.0.0.1, this machine only)")
    parser.add_argument("--port", type=whole, default=8000, help="the port to listen on (default: 8000; 0 picks a free one)")
    parser.add_argument("--results", metavar="DIR", help="a folder of experiment results to show (e.g. experiments/results)")
    parser.add_argument("--boards", metavar="DIR", help="a folder of BattleshipQA board files (board_*.txt) for the Ask panel")
    parser.add_argument(
        "--workers", type=whole, default=2,
        help="processes that run advice, and threads that run games against the computer (default: 2)",
    )
    parser.add_argument(
        "--book", type=whole, default=4000, metavar="STATES",  # battlelog.web.book.SIZE (not imported: the CLI starts light)
        help="the 10x10 opening book's size: the most likely early states of an advised game, answered in advance "
        "and kept in the user's cache folder (default: 4000; 0: none)",
    )  # fmt: skip


def bind(host: str, port: int) -> socket.socket:
    """A listening socket; a port in use or an address not of this machine is one line."""
    if not 0 <= port <= 65535:
        raise BattlelogError(f"--port {port} is not a port number (0..65535)")
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise BattlelogError(f"--host {host}: cannot resolve it ({exc.strerror})") from None
    family, _, _, _, address = infos[0]
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as exc:
        sock.close()
        raise BattlelogError(
            f"cannot listen on {host} port {port}: {exc.strerror} (is another server running? try --port)"
        ) from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def exposure_warning(host: str, address: str) -> str | None:
    """The warning to print when ``host`` (bound at ``address``) is reachable from other machines."""
    try:
        if ipaddress.ip_address(address.split("%")[0]).is_loopback:
            return None
    except ValueError:
        pass
    return f"battlelog: warning: serving on {host}, which other machines may reach; the server has no login"


def run(args: argparse.Namespace) -> int:
    results = None
    if args.results is not None:
        results = Path(args.results)
        if not results.is_dir():
            raise BattlelogError(f"--results {args.results}: not a folder")
    if args.boards is not None and not Path(args.boards).is_dir():
        raise BattlelogError(f"--boards {args.boards}: not a folder")
    if args.workers < 1:
        raise BattlelogError("--workers must be at least 1")
    if not 0 <= args.book <= 100_000:
        raise BattlelogError("--book must be 0 to 100000 states")
    import uvicorn  # imported here: the other commands never load the web stack

    from battlelog.web.app import create_app
    from battlelog.web.connections import server_config
    from battlelog.web.service import EngineService

    sock = bind(args.host, args.port)
    port = sock.getsockname()[1]
    warning = exposure_warning(args.host, sock.getsockname()[0])
    if warning is not None:
        print(warning, file=sys.stderr)
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"battlelog: serving on http://{shown}:{port}/ (Ctrl-C stops it)", flush=True)
    app = create_app(results, EngineService(args.workers), book_states=args.book, hosts=[args.host],
                     boards=None if args.boards is None else Path(args.boards))
    try:
        uvicorn.Server(server_config(app)).run(sockets=[sock])  # shuts down gracefully on Ctrl-C, then raises it again
    except KeyboardInterrupt:
        pass  # Ctrl-C is how a server is stopped: not an error
    finally:
        sock.close()
    print("battlelog: server stopped", flush=True)
    return 0
