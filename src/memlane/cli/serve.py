"""`memlane serve` (REST API, OpenAI-compatible proxy, MCP over HTTP, inspector), `memlane mcp`
(the memory tools over stdio) and `memlane keys` (API keys, stored hashed).

The server's packages are an extra (`pip install 'memlane[server]'`): these commands register
without them and print the install hint when run.
"""

from __future__ import annotations

import argparse
import errno
import gc
import os
import re
import signal
import socket
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from ..errors import MissingExtra, UsageError
from ..server import cpu
from . import JSON_HELP, add_embedder_arg, emit, tokens

KEYS_HELP = "API keys file (default $MEMLANE_KEYS or ~/.memlane/keys.json)"

UPSTREAM_TIMEOUT = 120.0


def _env_float(name: str, default: float) -> float:
    raw = os.environ.get(name)
    if not raw:
        return default
    try:
        return float(raw)
    except ValueError:
        raise UsageError(f"${name}={raw!r} is not a number of seconds") from None


def _register_serve(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser(
        "serve", help="run the HTTP service: REST API, OpenAI-compatible proxy, MCP, inspector",
        description="Serve memlane over HTTP. With no API keys configured it serves one "
                    "namespace (--namespace, default 'default') to anyone on loopback (dev "
                    "mode); add keys with "
                    "`memlane keys add NAMESPACE` before binding another address.")
    p.add_argument("--host", default="127.0.0.1", help="address to bind (default %(default)s)")
    p.add_argument("--port", type=int, default=8765, help="port (default %(default)s)")
    p.add_argument("--upstream", default=None, metavar="URL",
                   help="what the proxy forwards to: an OpenAI-compatible API, e.g. "
                        "http://127.0.0.1:8080/v1 (key: $MEMLANE_UPSTREAM_KEY), or a model "
                        "spec run in-process, e.g. local or local:/path/model.gguf")
    p.add_argument("--upstream-model", default=None, metavar="M",
                   help="model name sent upstream (default: the client's); also writes the "
                        "memory steps, with the offline heuristic as fallback")
    p.add_argument("--upstream-timeout", type=float, metavar="SECONDS",
                   default=_env_float("MEMLANE_UPSTREAM_TIMEOUT", UPSTREAM_TIMEOUT),
                   help="seconds the proxy waits for the upstream (to connect, and for each "
                        "read), in one attempt; then the client gets 504 "
                        "(default $MEMLANE_UPSTREAM_TIMEOUT or %(default)g)")
    p.add_argument("--passthrough", action="append", default=None, metavar="ROUTE",
                   help="a /v1 route besides chat completions that the proxy passes to the "
                        "upstream with the upstream's key, as '[METHOD] PATH' (after /v1/; * "
                        "is one segment, a last ** any rest; no method: GET and POST; DELETE "
                        "only when named), e.g. 'POST embeddings' or 'DELETE files/*'; "
                        "repeat for more. Default: GET models and GET models/* only "
                        "($MEMLANE_PASSTHROUGH, comma-separated, when no flag is given); any "
                        "other route is refused with 403, whatever the client's key")
    p.add_argument("--step", choices=("auto", "model", "heuristic"), default="auto",
                   help="who files memory: the model (--upstream-model, or the in-process one) "
                        "or the offline heuristic; auto: the model, except the local one, which "
                        "rarely writes a usable step and would hold the only model while it "
                        "tried (default auto)")
    p.add_argument("--heuristic-step", action="store_true",
                   help="the same as --step heuristic")
    p.add_argument("--step-worker", choices=("auto", "process", "thread"), default="thread",
                   help="where background memory steps run: thread, a thread of the server "
                        "(the lower median turn); process, a child process of their own (a "
                        "long heuristic step never holds the proxied turns' GIL: a lower tail; "
                        "a crash in native code stays in the child); auto: a process when the "
                        "store is a file or a PostgreSQL URL, else the thread (default thread)")
    p.add_argument("--cpu", default=os.environ.get("MEMLANE_CPU") or "auto", metavar="auto|off|N",
                   help="the CPU the server's threads run on: auto, the least busy one (they "
                        "share one GIL, and on one core they hand it over without waking "
                        "another core: less CPU a turn); N, that CPU; off, any, as the "
                        "operating system places them (several servers on one machine: give "
                        "each its own N, or off) (default $MEMLANE_CPU or auto)")
    p.add_argument("--http", choices=("auto", "httptools", "h11"), default="auto",
                   help="the HTTP parser: httptools (in C, part of the server extra) or h11 "
                        "(pure Python); auto: httptools when installed (default auto)")
    p.add_argument("--keys", default=None, metavar="FILE",
                   help="API keys file (default $MEMLANE_KEYS or ~/.memlane/keys.json)")
    p.add_argument("--budget", type=tokens, default=4000,
                   help="token budget of the proxy's assembled context (default %(default)s)")
    p.add_argument("--ledger", default=None, metavar="PATH",
                   help="quality ledger file (default: the memory's ledger, if it exists)")
    p.add_argument("--no-mcp", action="store_true", help="do not serve MCP at /mcp")
    add_embedder_arg(p)
    p.set_defaults(func=cmd_serve)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    _register_serve(sub)

    p = sub.add_parser("mcp", help="serve the memory tools to an MCP client over stdio",
                       description="For MCP clients that launch a command: "
                                   "`memlane --db PATH --namespace NS mcp`.")
    add_embedder_arg(p)
    p.set_defaults(func=cmd_mcp)

    keys = sub.add_parser("keys", help="manage API keys of `memlane serve` (stored hashed)")
    ksub = keys.add_subparsers(dest="keys_command", metavar="ACTION")
    k = ksub.add_parser("add", help="create a key for NAMESPACE; it is printed once")
    k.add_argument("key_namespace", metavar="NAMESPACE",
                   help="the namespace this key reads and writes (and no other)")
    k.add_argument("--keys", default=None, metavar="FILE", help=KEYS_HELP)
    k.add_argument("--json", action="store_true", help=JSON_HELP)
    k.set_defaults(func=cmd_keys_add)
    k = ksub.add_parser("list", help="list keys (ids and namespaces; never the keys)")
    k.add_argument("--keys", default=None, metavar="FILE", help=KEYS_HELP)
    k.add_argument("--json", action="store_true", help=JSON_HELP)
    k.set_defaults(func=cmd_keys_list)
    k = ksub.add_parser("revoke", help="delete a key by its id (the 8 hex digits after mlk_)")
    k.add_argument("key_id", help="the key's id, as `memlane keys list` shows it")
    k.add_argument("--keys", default=None, metavar="FILE", help=KEYS_HELP)
    k.set_defaults(func=cmd_keys_revoke)

    def keys_help(args: argparse.Namespace) -> int:
        keys.print_help()
        return 0

    keys.set_defaults(func=keys_help)


def _server_extra() -> None:
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as e:
        raise MissingExtra("memlane serve", "server", e.name or "starlette") from None


def _upstream_key(upstream: str) -> str | None:
    key = os.environ.get("MEMLANE_UPSTREAM_KEY")
    if key:
        return key
    # OpenAI's own key goes to OpenAI only, never to some other server named by --upstream.
    if urlsplit(upstream).hostname == "api.openai.com":
        return os.environ.get("OPENAI_API_KEY")
    return None


def cmd_serve(args: argparse.Namespace) -> int:
    _server_extra()

    from ..server.auth import Auth, KeyRing

    if not 0 < args.port < 65536:
        raise UsageError(f"--port {args.port}: use a port from 1 to 65535")
    if args.budget <= 0:
        raise UsageError("--budget must be a positive number of tokens")
    if not 0 < args.upstream_timeout <= 86400:
        raise UsageError(f"--upstream-timeout {args.upstream_timeout:g}: give seconds, more "
                         "than 0 (and at most a day)")
    from ..server.conn import uvicorn_options

    uvicorn_options(args.http)  # a parser that is not installed: said before anything opens
    cpu.parse(args.cpu)  # a malformed --cpu: said before anything opens
    from ..server.upstream import passthrough_routes

    passthrough_routes(passthrough_setting(args.passthrough))  # likewise a bad --passthrough
    ring = KeyRing.load(args.keys)
    auth = Auth.for_host(ring, args.host, dev_namespace=args.namespace)
    # The port first: a busy one is a clear error before the banner, and before the database
    # is opened (which would leave an empty one behind).
    sock = _listen_socket(args.host, args.port)
    try:
        return _serve(args, ring, auth, sock)
    finally:
        sock.close()


def _serve(args: argparse.Namespace, ring: Any, auth: Any, sock: socket.socket) -> int:
    import uvicorn

    from ..server.app import create_app
    from ..server.base import ServerConfig
    from ..server.conn import uvicorn_options

    # Before the memory opens: its threads, and every one started later, share the CPU.
    pinned = cpu.pin(args.cpu)
    url, model = args.upstream, None
    if url and "://" not in url:  # a model spec, answered in-process
        from ..models import get_model

        if re.fullmatch(r"[\w.-]+:\d{1,5}(/\S*)?", url):  # localhost:11434: a URL, no scheme
            meant = f"http://{url}" + ("" if "/" in url else "/v1")
            raise UsageError(f"--upstream {url}: a URL needs its scheme, e.g. --upstream "
                             f"{meant} (or a model spec: local, openai:MODEL)")

        url, model = None, get_model(args.upstream)
    key = _upstream_key(url) if url else None
    heuristic = heuristic_steps(args.upstream, model, args.step, args.heuristic_step)
    memory = build_memory(args.db, url, args.upstream_model, key,
                          heuristic=heuristic, model=model, embedder=args.embedder)
    ledger = _open_ledger(args)
    config = ServerConfig(upstream=url, upstream_model=args.upstream_model,
                          upstream_key=key, budget=args.budget,
                          upstream_timeout=args.upstream_timeout,
                          passthrough=passthrough_setting(args.passthrough),
                          step_worker=args.step_worker)
    if not args.no_mcp:
        try:
            import mcp  # noqa: F401
        except ImportError:
            raise MissingExtra("MCP over HTTP (or pass --no-mcp)", "server", "mcp") from None
    app = create_app(memory, auth, config, ledger=ledger, mcp=not args.no_mcp, model=model)
    where = f"http://{args.host}:{args.port}"
    if auth.dev:
        print(f"memlane: warning: no API keys in {ring.path}: dev mode, every request is "
              f"namespace {args.namespace!r} (loopback only). Add keys with "
              "`memlane keys add NS`.", file=sys.stderr)
    elif args.namespace != "default":
        print(f"memlane: note: --namespace {args.namespace!r} is not used with API keys: each "
              "request's key names its namespace.", file=sys.stderr)
    print(banner(memory.store.url, where, args.upstream, model, args.upstream_model,
                 heuristic=heuristic, mcp=not args.no_mcp,
                 timeout=args.upstream_timeout,
                 steps_in=app.state.service.step_worker_kind, pinned_to=pinned,
                 passthrough=config.passthrough), file=sys.stderr)
    # uvicorn shuts down gracefully on SIGINT and SIGTERM alike (stops accepting, lets requests
    # in flight finish for up to 30 s), then raises the signal again with the handler it found
    # restored. SIGTERM's default handler would kill the process there, before the stores close
    # and checkpoint (the WAL stayed behind): ours turns it into the same exit as Ctrl-C.
    previous = signal.signal(signal.SIGTERM, _terminated)
    # What starting up made (modules, the app, the store's setup) lives as long as the server:
    # out of the collector's way, a full collection no longer walks it (one used to pause
    # proxied turns in the middle: gc's objects after the imports; benchmarks/trace_proxy.py).
    gc.collect()
    gc.freeze()
    try:
        uvicorn.Server(uvicorn.Config(app, log_level="warning", timeout_graceful_shutdown=30,
                                      **uvicorn_options(args.http))).run(sockets=[sock])
    except (_Terminated, KeyboardInterrupt):  # uvicorn.run() swallows the re-raised Ctrl-C too
        pass
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not cut the close
        try:
            # Queued memory steps finish (for STOP_STEPS seconds at most), compaction too.
            closed = app.state.service.close()
            if closed:
                memory.close()  # SQLite: the last connection checkpoints and removes the WAL
                if ledger is not None:
                    ledger.close()
        finally:
            signal.signal(signal.SIGTERM, previous)
    if not closed:
        print("memlane: stopped while a memory step was still running: its stretch is filed "
              "on a later turn (the messages are stored)", file=sys.stderr)
        return 0
    print("memlane: stopped; stores closed", file=sys.stderr)
    return 0


def passthrough_setting(flags: list[str] | None) -> tuple[str, ...] | None:
    """The routes of `--passthrough`, else of `$MEMLANE_PASSTHROUGH` (comma-separated), else
    None (the default: model listing only)."""
    if flags:
        return tuple(flags)
    env = os.environ.get("MEMLANE_PASSTHROUGH", "")
    routes = tuple(r.strip() for r in env.split(",") if r.strip())
    return routes or None


def _listen_socket(host: str, port: int) -> socket.socket:
    """A socket bound to host:port for uvicorn to serve on; `UsageError` when that fails."""
    try:
        family, kind, proto, _, addr = socket.getaddrinfo(
            host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as e:
        raise UsageError(f"--host {host!r}: not an address this machine has ({e.strerror})"
                         ) from None
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as uvicorn binds
    try:
        sock.bind(addr)
    except OSError as e:
        sock.close()
        if e.errno == errno.EADDRINUSE:
            raise UsageError(f"port {port} on {host} is in use (another `memlane serve`?): "
                             "pass --port N, or stop what is listening there") from None
        raise UsageError(f"cannot listen on {host}:{port}: {e.strerror}") from None
    return sock


class _Terminated(Exception):
    """SIGTERM arrived (after uvicorn's own graceful shutdown, or before it started)."""


def _terminated(signum: int, frame: Any) -> None:
    raise _Terminated()


def heuristic_steps(upstream: str | None, model: Any, step: str, heuristic_flag: bool) -> bool:
    """Whether the offline heuristic files memory (`--step`): asked for, or `auto` with the
    in-process local model, whose 135M model rarely writes a valid step and holds the only model
    while it tries (most of a minute every fourth turn), as `memlane chat` decides too."""
    local = model is not None and bool(upstream) and (
        upstream == "local" or str(upstream).startswith("local:"))
    return heuristic_flag or step == "heuristic" or (step == "auto" and local)


def banner(store: str, where: str, upstream: str | None, model: Any, upstream_model: str | None,
           *, heuristic: bool, mcp: bool, timeout: float, steps_in: str | None = None,
           pinned_to: int | None = None, passthrough: tuple[str, ...] | None = None) -> str:
    """What `memlane serve` prints at startup: the routes it serves, where the proxy forwards,
    which model writes memory (the same choice `build_memory` makes), and where (`steps_in`:
    `process` or `thread`, `ServerConfig.step_worker` as the service resolved it)."""
    if model is not None:
        writer = f"the in-process model {getattr(model, 'name', upstream)}"
    elif upstream and upstream_model:
        writer = f"{upstream_model} at the upstream"
    else:
        writer = None
    if writer is None or heuristic:
        steps = "the offline heuristic" + (
            " (--step model: the in-process model writes it)" if heuristic and model is not None
            else "" if heuristic else " (pass --upstream-model M to have the upstream's model "
                                      "write memory)")
    else:
        steps = f"{writer}, with the offline heuristic as fallback"
    lines = [f"memlane: serving {store} at {where}",
             f"  inspector  {where}/",
             f"  REST API   {where}/v1/memlane/threads",
             f"  OpenAPI    {where}/openapi.json"]
    if upstream:
        lines.append(f"  proxy      {where}/v1/chat/completions -> {upstream}"
                     + ("" if model is not None else f" (timeout {timeout:g} s)"))
        if model is None:
            passed = ", ".join(passthrough or ("GET models", "GET models/*"))
            lines.append(f"  passed on  {passed} (under /v1/; --passthrough ROUTE for more)")
    else:
        lines.append("  proxy      off (no --upstream)")
    if mcp:
        lines.append(f"  MCP        {where}/mcp")
    where_steps = {"process": ", in a process of its own",
                   "thread": ", on a thread of the server"}.get(steps_in or "", "")
    lines.append(f"  memory is written by {steps}{where_steps}")
    if pinned_to is not None:
        lines.append(f"  CPU        {pinned_to} (the server's threads share it; --cpu off: any)")
    return "\n".join(lines)


def build_memory(db: str | None, upstream: str | None, upstream_model: str | None,
                 key: str | None, *, heuristic: bool = False, model: Any = None,
                 embedder: str | None = None) -> Any:
    """The server's memory. With a known model (`model`, or `upstream_model` at `upstream`),
    that model writes the memory steps; the offline heuristic files a stretch whenever the
    model's step fails validation, and all of them with `heuristic`."""
    from ..memory import Memory
    from ..step.extractor import HeuristicExtractor

    if model is None and upstream and upstream_model:
        from ..models.openai import OpenAIModel

        model = OpenAIModel(upstream_model, base_url=upstream, api_key=key or "")
    if model is None or heuristic:
        return Memory.open(db, embedder=embedder)
    from ..step.model import FallbackExtractor, ModelExtractor

    return Memory.open(db, embedder=embedder, extractor=FallbackExtractor(
        ModelExtractor(model), HeuristicExtractor()))


def _open_ledger(args: argparse.Namespace) -> Any:
    from ..ledger import Ledger, default_ledger_path

    path = args.ledger or default_ledger_path(args.db)
    if args.ledger or (path != ":memory:" and Path(path).exists()):
        return Ledger(path)
    return None


def cmd_mcp(args: argparse.Namespace) -> int:
    try:
        import mcp  # noqa: F401
    except ImportError:
        raise MissingExtra("memlane mcp", "server", "mcp") from None
    from ..memory import Memory
    from ..server.mcp import run_stdio

    with Memory.open(args.db, namespace=args.namespace, embedder=args.embedder) as memory:
        run_stdio(memory)
    return 0


def cmd_keys_add(args: argparse.Namespace) -> int:
    from ..server.auth import KeyRing

    ring = KeyRing.load(args.keys)
    key = ring.add(args.key_namespace)
    # Only the key on stdout, so `KEY=$(memlane keys add NS)` captures the key alone.
    emit({"namespace": args.key_namespace, "key": key, "keys_file": str(ring.path)}, args.json,
         key)
    if not args.json:
        print(f"memlane: the key for namespace {args.key_namespace!r}, shown only this once "
              f"(only its hash is kept, in {ring.path}).", file=sys.stderr)
    return 0


def cmd_keys_list(args: argparse.Namespace) -> int:
    from ..server.auth import KeyRing

    ring = KeyRing.load(args.keys)
    rows = [{"id": e.id, "namespace": e.namespace, "created": e.created} for e in ring.entries()]
    emit(rows, args.json, "\n".join(f"mlk_{r['id']}_...  {r['namespace']}" for r in rows)
         or f"(no keys in {ring.path})")
    return 0


def cmd_keys_revoke(args: argparse.Namespace) -> int:
    from ..server.auth import KeyRing

    ring = KeyRing.load(args.keys)
    if not ring.revoke(args.key_id):
        raise UsageError(f"no key with id {args.key_id!r} in {ring.path}: see `memlane keys list`")
    print(f"revoked key {args.key_id}")
    return 0
