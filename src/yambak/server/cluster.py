"""Several server processes over one PostgreSQL and one Redis: who owns what, and what travels.

- **Ownership.** One process at a time owns a table's (or a score sheet's) live
  state: it holds the Redis key `yambak:lease:KIND:ID` (value: its node id,
  expiring after `lease_seconds`, renewed three times per period while the process
  lives). Only the owner applies actions and runs bots. The lease is a liveness
  hint, not the safety net: the safety net is the event log's primary key in the
  database, so that two processes that both believe they own a table can never
  both commit the same version (the loser reloads from the log and follows).
- **Forwarding.** An action, a join, a rematch or a sheet entry that reaches a
  process that does not own its table goes to the owner on the owner's Redis
  channel `yambak:rpc:NODE`, and the answer comes back on the sender's.
- **Events.** The owner publishes every committed event on `yambak:ev:KIND:ID`;
  every process with clients on that table follows the channel, applies the
  events to its mirror in version order (a gap or a doubt reloads from the log)
  and sends each of its own clients its view. A channel that had no subscriber
  at its last event goes quiet: the owner stops publishing on it until a process
  that starts following announces itself to the owner (before it reads the log).
- **Takeover.** A process whose clients watch a table checks its owner every
  half second: an owner whose Redis connection is gone (`PUBSUB NUMSUB`: a killed
  process drops it at once) or whose lease expired is replaced: the watcher takes
  the lease and rebuilds the table from the log; tables with bots and no watcher
  are adopted by a sweep. A forwarded request that meets a dead owner does the same.
- **Redis down.** Nothing is lost and nothing is half-made: every event is in the
  log before it is published, and every process compares the tables and sheets its
  clients watch with the log once a second (`RECONCILE_SECONDS`): a copy still behind
  what the log held a round earlier reads it again and sends its clients what they
  missed (an owner that another process overtook follows it from then on), so
  processes converge within two seconds, with or without Redis. A request that needs Redis while it is down (making
  a table or sheet, forwarding to another process's table) is refused with a coded
  503 before anything is stored; the lease of a new table or sheet is taken before its
  row is written.
- **Limits.** The create/join rate limit per client address is a token bucket in
  Redis, shared by every process; while Redis is down each process counts the same
  budget itself (`RedisLimiter`). The caps on open game sockets (per address and
  table, per address, per table) count every process's sockets in Redis sorted sets,
  each socket a member that expires unless its process renews it (`SharedSocketCaps`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import secrets
import socket
import time
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from typing import Any, Protocol, Required, TypedDict

import redis
import redis.asyncio as aredis

from ..engine import IllegalAction
from ..viewtypes import JSONObject, JSONValue
from . import metrics
from .limits import ClientLimiter, SocketCaps, Ticket
from .live import RequestError, failure

__all__ = ["Cluster", "RedisLimiter", "Owner", "OwnerMessage", "Published", "SharedSocketCaps"]

log = logging.getLogger("yambak.cluster")

_RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
  else
    table.insert(lost, i)
  end
end
return lost
"""
# Take a lease that is free, or held by a node known to be dead.
_TAKE = """
local held = redis.call('GET', KEYS[1])
if (not held) or held == ARGV[2] or held == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[3])
  return 1
end
return 0
"""
# Hand a lease held by ARGV[1] to ARGV[2] (no moment without an owner for a watcher to take it).
_PASS = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
  return 1
end
return 0
"""
_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
"""
_BUCKET = """
local now = redis.call('TIME')
local t = tonumber(now[1]) + tonumber(now[2]) / 1000000
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local v = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
local tokens, stamp = tonumber(v[1]) or burst, tonumber(v[2]) or t
tokens = math.min(burst, tokens + (t - stamp) * rate)
local ok = 0
if tokens >= 1 then tokens = tokens - 1; ok = 1 end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', tostring(t))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return ok
"""


# A socket joins the caps' sorted sets (KEYS) unless one is full (ARGV[3..]: each key's cap); a member's
# score is when it expires unless renewed (Redis's own clock: every process reads the same).
_SOCKET_IN = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now)
  if redis.call('ZCARD', key) >= tonumber(ARGV[2 + i]) then return i end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now + tonumber(ARGV[2]), ARGV[1])
  redis.call('PEXPIRE', key, tonumber(ARGV[2]))
end
return 0
"""
# Renew members (ARGV[i + 1] in KEYS[i]) for another ARGV[1] ms: sockets still open.
_SOCKET_RENEW = """
local t = redis.call('TIME')
local until_ = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) + tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, until_, ARGV[i + 1])
  redis.call('PEXPIRE', key, tonumber(ARGV[1]))
end
return 0
"""


class Published(TypedDict, total=False):
    """What else a kind publishes with an event (`SessionKind.published`): a table's roll-offs at the end."""

    rolloffs: list[JSONValue]


class OwnerMessage(Published, total=False):
    """What a session's owner publishes to its mirrors (`Replica`, through the cluster): an event with its
    version (and the text its clients were sent), a `reload`, or a table's news (`tables/kind.py`)."""

    kind: Required[str]  # "event", "reload"; a table's "presence", "presence?", "reaction", "reseat", "rematch"
    v: int
    event: JSONObject
    ref: str | None
    text: str
    online: list[int]  # presence: the seats followed anywhere
    away: dict[str, float]  # presence: seconds since each absent seat left
    message: JSONObject  # reaction: what the table's sockets are sent
    removed: int  # reseat: the open seat that left
    table: str  # rematch: the new table's id


class Owner(Protocol):
    """What a feature (tables, sheets) gives the cluster."""

    async def handle_rpc(self, object_id: str, op: str, args: JSONObject) -> JSONObject: ...

    def on_message(self, object_id: str, message: OwnerMessage) -> None: ...

    async def take_over(self, object_id: str) -> None: ...

    def lost_lease(self, object_id: str) -> None: ...

    def owned_ids(self) -> list[str]: ...

    def watched_ids(self) -> list[str]: ...

    def local_versions(self) -> dict[str, int]: ...

    async def stored_versions(self, ids: list[str]) -> dict[str, int]: ...

    async def reread(self, object_id: str) -> None: ...


# How long an owner trusts that nobody follows a channel: a follower whose announcement was lost (its
# Redis connection dropped and came back, say) gets the next event after that, sees the gap and reloads.
QUIET_SECONDS = 10.0
# How often every process compares the copies its clients watch with the log (module docstring).
RECONCILE_SECONDS = 1.0
# How long a forwarder sends an object's requests to the node that answered the last one without asking
# Redis again: a node that no longer owns it answers "moved", and a dead one fails the liveness check.
OWNER_MEMORY = 30.0


# Forwarded requests that are not a player's (the seats a process's sockets hold, told to the owner).
UNCOUNTED = frozenset({"presence"})


def new_node_id() -> str:
    return f"{socket.gethostname()}-{os.getpid()}-{secrets.token_hex(3)}"


def _text(value: bytes | str | None) -> str | None:
    if not value:
        return None
    return value.decode() if isinstance(value, bytes) else value


def _lease(kind: str, object_id: str) -> str:
    return f"yambak:lease:{kind}:{object_id}"


def _events(kind: str, object_id: str) -> str:
    return f"yambak:ev:{kind}:{object_id}"


def _rpc(node: str) -> str:
    return f"yambak:rpc:{node}"


class Cluster:
    def __init__(self, url: str, lease_seconds: float = 3.0, node: str | None = None) -> None:
        self.url = url
        self.node = node or new_node_id()
        self._mine = _rpc(self.node).encode()
        self.lease_ms = max(500, int(lease_seconds * 1000))
        # Many requests ask Redis at once (owner lookups, liveness): they wait for a connection, never fail for one.
        pool = aredis.BlockingConnectionPool.from_url(url, max_connections=32, timeout=10, socket_connect_timeout=2)
        self.redis: aredis.Redis = aredis.Redis(connection_pool=pool)
        self.sync: redis.Redis = redis.Redis.from_url(url, socket_timeout=2, socket_connect_timeout=2)
        self.owners: dict[str, Owner] = {}
        self.owned: set[tuple[str, str]] = set()
        self.followed: set[str] = set()
        # Event channels of owned objects that nobody followed at their last event (since when): not
        # published to for a while. `_stamps` changes when a follower announces itself, so that a late
        # "nobody" answer is not believed.
        self._quiet: dict[str, float] = {}
        self._stamps: dict[str, int] = {}
        self._stamp = 0
        self.orphans: Callable[[], Awaitable[list[str]]] | None = None  # unfinished tables that need an owner
        self.loop: asyncio.AbstractEventLoop | None = None
        self._sub: Any = None  # the connection this node receives on (its requests, the channels it follows)
        self._out: asyncio.Queue[tuple[str, bytes, int | None]] | None = None
        self._pending: dict[str, asyncio.Future[dict[str, Any] | None]] = {}
        self._waiting: dict[tuple[str, str], set[str]] = {}  # requests waiting on each object's owner
        self._alive: dict[str, float] = {}
        self._owners: dict[tuple[str, str], tuple[str, float]] = {}  # where requests went last, and when
        self._tasks: list[asyncio.Task[None]] = []
        self._errands: set[asyncio.Task[None]] = set()  # short tasks, kept until done (the loop holds them weakly)
        self._down_since: float | None = None  # when Redis stopped answering (logged once per outage)
        self._renew = self.redis.register_script(_RENEW)
        self._take = self.redis.register_script(_TAKE)
        self._release = self.redis.register_script(_RELEASE)
        self._pass = self.redis.register_script(_PASS)

    # --- lifecycle ---------------------------------------------------------------------------

    async def start(self) -> None:
        self.loop = asyncio.get_running_loop()
        self._out = asyncio.Queue()
        await self._subscribe()
        for coro in (self._reader(), self._publisher(), self._renewer(), self._monitor(), self._reconciler()):
            self._tasks.append(asyncio.create_task(coro))
        log.info("node %s joined the cluster (lease %d ms)", self.node, self.lease_ms)

    def _spawn(self, coro: Coroutine[object, object, None]) -> None:
        """Run `coro` on the loop, holding its task until it ends."""
        task = asyncio.get_running_loop().create_task(coro)
        self._errands.add(task)
        task.add_done_callback(self._errands.discard)

    async def stop(self) -> None:
        """Leave: hand every lease back at once, so that other processes take the tables over now."""
        for task in self._tasks:
            task.cancel()
        for kind, object_id in list(self.owned):
            try:
                await self._release(keys=[_lease(kind, object_id)], args=[self.node])
            except Exception:  # Redis is gone: the leases expire by themselves
                break
        self.owned.clear()
        self._quiet.clear()
        self._stamps.clear()
        try:
            if self._sub is not None:
                await self._sub.disconnect(nowait=True)
            await self.redis.aclose()
        except Exception:
            pass
        self.sync.close()

    async def ping(self) -> bool:
        return bool(await self.redis.ping())

    async def reachable(self, timeout: float = 1.0) -> None:
        """Refuse, with a coded 503, a request that will need Redis while Redis does not answer (before it
        makes anything: a profile, a table)."""
        try:
            async with asyncio.timeout(timeout):
                await self.redis.ping()
        except (redis.RedisError, OSError, TimeoutError):
            raise RequestError("server/busy", "the server is busy: try again in a moment", 503) from None

    def _connection(self) -> Any:
        """A connection of this node's own, outside the pool: one reader or one writer that runs all the
        time, with no timeout task per read or write (the caller bounds its waits; keepalive finds a dead peer)."""
        pool = self.redis.connection_pool
        return pool.connection_class(**{**pool.connection_kwargs, "socket_timeout": None, "socket_keepalive": True})

    async def _subscribe(self) -> None:
        """Open the receiving connection: this node's request channel and every channel it follows."""
        conn = self._connection()
        await conn.connect()
        self._sub = conn  # before the list is taken: a `follow` from now on subscribes on this connection
        await conn.send_command("SUBSCRIBE", _rpc(self.node), *self.followed)

    # --- leases ------------------------------------------------------------------------------

    def _gain(self, kind: str, object_id: str) -> None:
        """This process owns an object now: it publishes every event until it finds nobody following."""
        self.owned.add((kind, object_id))
        self._listened(_events(kind, object_id))

    def _lose(self, kind: str, object_id: str) -> None:
        self.owned.discard((kind, object_id))
        channel = _events(kind, object_id)
        self._quiet.pop(channel, None)
        self._stamps.pop(channel, None)

    def _listened(self, channel: str) -> None:
        """Someone may follow the channel now: publish on it again."""
        self._quiet.pop(channel, None)
        self._stamp += 1
        self._stamps[channel] = self._stamp

    def claim_new_sync(self, kind: str, object_id: str) -> None:
        """A table or sheet about to be created here: this process owns it (blocking; plain routes). Called
        before its row is written, so that Redis being down refuses the request (503) and stores nothing."""
        try:
            self.sync.set(_lease(kind, object_id), self.node, px=self.lease_ms, nx=True)
        except redis.RedisError as exc:
            log.warning("%s %s: not made, Redis failed: %s", kind, object_id, exc)
            raise RequestError("server/busy", "the server is busy: try again in a moment", 503) from None
        self._gain(kind, object_id)

    async def claim_new(self, kind: str, object_id: str) -> None:
        try:
            await self.redis.set(_lease(kind, object_id), self.node, px=self.lease_ms, nx=True)
        except redis.RedisError as exc:
            log.warning("%s %s: not made, Redis failed: %s", kind, object_id, exc)
            raise RequestError("server/busy", "the server is busy: try again in a moment", 503) from None
        self._gain(kind, object_id)

    def unclaim(self, kind: str, object_id: str) -> None:
        """A claimed object whose row could not be written: forget it (its lease expires by itself)."""
        self._lose(kind, object_id)

    async def owner(self, kind: str, object_id: str) -> str | None:
        held = await self.redis.get(_lease(kind, object_id))
        return _text(held)

    async def take(self, kind: str, object_id: str, dead: str | None) -> bool:
        """Take a lease that is free or held by `dead`; True when this process holds it now."""
        won = await self._take(keys=[_lease(kind, object_id)], args=[self.node, dead or "", self.lease_ms])
        if won:
            self._gain(kind, object_id)
            for request_id in self._waiting.pop((kind, object_id), set()):  # they will be done here now
                future = self._pending.get(request_id)
                if future is not None and not future.done():
                    future.set_result(None)
        return bool(won)

    async def release(self, kind: str, object_id: str) -> None:
        """Give a lease up now (if this process holds it)."""
        self._lose(kind, object_id)
        await self._release(keys=[_lease(kind, object_id)], args=[self.node])

    def disown(self, kind: str, object_id: str) -> None:
        """Another process wrote the log: its lease, not ours."""
        self._lose(kind, object_id)

    async def alive(self, node: str) -> bool:
        """Is a node's Redis connection up? (A killed process loses it at once.)"""
        if node == self.node:
            return True
        seen = self._alive.get(node)
        if seen is not None and time.monotonic() - seen < 0.5:
            return True
        counts = await self.redis.pubsub_numsub(_rpc(node))
        if counts and int(counts[0][1]) > 0:
            self._alive[node] = time.monotonic()
            return True
        self._alive.pop(node, None)
        return False

    def _trouble(self, what: str, exc: BaseException) -> None:
        """Log a failure: once per outage when it is Redis not answering, every time otherwise."""
        if isinstance(exc, redis.RedisError | OSError | TimeoutError):
            if self._down_since is None:
                self._down_since = time.monotonic()
                log.warning("Redis does not answer (%s: %s); what needs it gets 503 until it does", what, exc)
            return
        log.exception("%s failed", what)

    def _fine(self) -> None:
        """Redis answered."""
        if self._down_since is not None:
            log.warning("Redis answers again, after %.1f s", time.monotonic() - self._down_since)
            self._down_since = None

    async def _renewer(self) -> None:
        while True:
            await asyncio.sleep(self.lease_ms / 3000)
            keys = list(self.owned)
            for i in range(0, len(keys), 500):
                chunk = keys[i : i + 500]
                try:
                    lost = await self._renew(keys=[_lease(k, o) for k, o in chunk], args=[self.node, self.lease_ms])
                except Exception as exc:
                    self._trouble("lease renewal", exc)
                    continue
                self._fine()
                for index in lost:
                    kind, object_id = chunk[int(index) - 1]
                    self._lose(kind, object_id)
                    log.warning("%s %s: lease lost", kind, object_id)
                    self.owners[kind].lost_lease(object_id)

    async def _adopt(self, kind: str, ids: list[str]) -> None:
        """Take over every listed object whose owner is gone."""
        for i in range(0, len(ids), 500):
            chunk = ids[i : i + 500]
            held = await self.redis.mget([_lease(kind, o) for o in chunk])
            for object_id, value in zip(chunk, held, strict=True):
                node = _text(value)
                if node == self.node or (node is not None and await self.alive(node)):
                    continue
                if await self.take(kind, object_id, node):
                    metrics.LEASE_MOVES.inc()
                    log.info("%s %s: taking over from %s", kind, object_id, node or "an expired lease")
                    try:
                        await self.owners[kind].take_over(object_id)
                    except Exception:
                        log.exception("%s %s: takeover failed", kind, object_id)

    async def _monitor(self) -> None:
        rounds = 0
        while True:
            await asyncio.sleep(0.5)
            rounds += 1
            try:
                for kind, owner in self.owners.items():
                    await self._adopt(kind, owner.watched_ids())
                if self.orphans is not None and rounds % 10 == 0:
                    await self._adopt("table", await self.orphans())
            except Exception as exc:
                self._trouble("cluster monitor", exc)

    async def _reconciler(self) -> None:
        """Once a second: every table and sheet with clients here whose copy is still behind the version
        the log had a round before is read again (the events its owner published were lost, or another
        process overtook it). A copy only a moment behind (its next event on its way) is left alone."""
        behind: dict[str, dict[str, int]] = {}
        while True:
            await asyncio.sleep(RECONCILE_SECONDS)
            for kind, owner in self.owners.items():
                try:
                    seen = owner.local_versions()
                    earlier, behind[kind] = behind.get(kind, {}), {}
                    if not seen:
                        continue
                    stored = await owner.stored_versions(list(seen))
                    for object_id, version in stored.items():
                        here = seen.get(object_id, version)
                        if here < earlier.get(object_id, 0):
                            metrics.REREAD.inc()
                            log.info("%s %s: at %d here, %d in the log: reading it again", kind, object_id,
                                     here, version)  # fmt: skip
                            await owner.reread(object_id)
                        elif here < version:
                            behind[kind][object_id] = version
                except Exception as exc:
                    self._trouble(f"{kind} reconciliation", exc)

    # --- routing a request to the owner ---------------------------------------------------------

    async def route(
        self,
        kind: str,
        object_id: str,
        op: str,
        args: JSONObject,
        owned: Callable[[], bool],
        promote: Callable[[], Awaitable[None]],
    ) -> JSONObject:
        """Do `op` where the object lives: on its owner, or here once this process has taken it over."""
        try:
            return await self._route(kind, object_id, op, args, owned, promote)
        except redis.RedisError as exc:
            log.warning("%s %s: Redis failed during %s: %s", kind, object_id, op, exc)
            raise RequestError("server/busy", "the server is busy: try again", 503) from None

    async def _route(
        self,
        kind: str,
        object_id: str,
        op: str,
        args: JSONObject,
        owned: Callable[[], bool],
        promote: Callable[[], Awaitable[None]],
    ) -> JSONObject:
        owner_api = self.owners[kind]
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 10
        while True:
            if owned():
                try:
                    return await owner_api.handle_rpc(object_id, op, args)
                except RequestError as exc:
                    if exc.code != "cluster/moved":
                        raise
            known = self._owners.get((kind, object_id))
            if known is not None and time.monotonic() - known[1] < OWNER_MEMORY:
                node: str | None = known[0]
            else:
                node = await self.owner(kind, object_id)
            if node == self.node:
                if not owned():
                    await promote()
                continue
            if node is None or not await self.alive(node):
                if await self.take(kind, object_id, node):
                    metrics.LEASE_MOVES.inc()
                    log.info("%s %s: taking over from %s", kind, object_id, node or "an expired lease")
                    await promote()
                continue
            if op not in UNCOUNTED:
                metrics.FORWARDED.inc()
            reply = await self.call(node, kind, object_id, op, args)
            if reply is None or reply.get("moved"):  # ask Redis again next time
                self._owners.pop((kind, object_id), None)
            else:
                self._owners[(kind, object_id)] = (node, time.monotonic())
            if reply is not None and "result" in reply:
                if reply.get("handoff"):  # the owner passed its lease here
                    metrics.HANDOFFS.inc()
                    self._gain(kind, object_id)
                    self._owners.pop((kind, object_id), None)
                    await promote()
                return dict(reply["result"])
            if reply is not None and "error" in reply:
                err = reply["error"]
                raise RequestError(err["code"], err["message"], err.get("status", 400), **err.get("extra", {}))
            if loop.time() > deadline:
                raise RequestError("server/busy", "the table's server did not answer: try again", 503)
            await asyncio.sleep(0.05)  # moved meanwhile, or no answer: ask again

    async def call(
        self, node: str, kind: str, object_id: str, op: str, args: JSONObject, timeout: float = 2.0
    ) -> dict[str, Any] | None:
        """A request to another node; None when it does not answer in time (or this node took the object
        over meanwhile). Requests go out with the other messages, pipelined: a dead node is found by its
        silence, by the monitor, or by the next request's liveness check."""
        request_id = secrets.token_hex(8)
        future: asyncio.Future[dict[str, Any] | None] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        self._waiting.setdefault((kind, object_id), set()).add(request_id)
        payload = {"id": request_id, "from": self.node, "kind": kind, "target": object_id, "op": op, "args": args}
        try:
            self._send(_rpc(node), payload)
            return await asyncio.wait_for(future, timeout)
        except TimeoutError:
            log.warning("%s %s: %s did not answer %s", kind, object_id, node, op)
            self._alive.pop(node, None)
            return None
        finally:
            self._pending.pop(request_id, None)
            waiting = self._waiting.get((kind, object_id))
            if waiting is not None:
                waiting.discard(request_id)
                if not waiting:
                    del self._waiting[(kind, object_id)]

    async def _serve(self, request: dict[str, Any]) -> None:
        reply: dict[str, Any]
        if request["op"] == "watch":  # a process follows this object now (see `follow`)
            key = (request["kind"], request["target"])
            if key in self.owned:
                self._listened(_events(*key))
                reply = {"result": {}}
            else:
                reply = {"moved": True}
            self._send(_rpc(request["from"]), {"id": request["id"], "reply": reply})
            return
        try:
            owner = self.owners[request["kind"]]
            result = await owner.handle_rpc(request["target"], request["op"], request["args"])
            reply = {"result": result}
            if result.pop("_handoff", False):
                key, target = (request["kind"], request["target"]), _lease(request["kind"], request["target"])
                self._lose(*key)
                if await self._pass(keys=[target], args=[self.node, request["from"], self.lease_ms]):
                    reply["handoff"] = True
                else:  # not ours any more: whoever holds it keeps it
                    log.info("%s %s: lease gone before the handoff", *key)
        except RequestError as exc:
            if exc.code == "cluster/moved":
                reply = {"moved": True}
            else:
                reply = {"error": {"code": exc.code, "message": exc.message, "status": exc.status, "extra": exc.extra}}
        except IllegalAction as exc:
            reply = {"error": {"code": exc.code, "message": exc.message, "status": 400}}
        except Exception as exc:
            refusal = failure(exc, "the action failed on the server")
            if refusal.status == 500:
                log.exception("a forwarded request failed")
            reply = {"error": {"code": refusal.code, "message": refusal.message, "status": refusal.status}}
        self._send(_rpc(request["from"]), {"id": request["id"], "reply": reply})

    # --- events ------------------------------------------------------------------------------

    def quiet(self, kind: str, object_id: str) -> bool:
        """Does nobody else follow the object now (its events are not published: no text is needed)?"""
        since = self._quiet.get(_events(kind, object_id))
        return since is not None and time.monotonic() - since < QUIET_SECONDS

    def publish(self, kind: str, object_id: str, message: OwnerMessage) -> None:
        """Send a committed event (or a reload) to every process following the object; in order.
        A message's `text` (what clients are sent as it is) travels after the JSON header, unescaped."""
        text = message.pop("text", None)
        channel = _events(kind, object_id)
        quiet = self._quiet.get(channel)
        if quiet is not None:
            if time.monotonic() - quiet < QUIET_SECONDS:  # nobody else follows: the log has it for whoever comes
                metrics.QUIET.inc()
                return
            del self._quiet[channel]  # once in a while, ask Redis again
        self._send(channel, {**message, "node": self.node}, text, self._stamps.get(channel))

    def _send(
        self, channel: str, message: Mapping[str, object], text: str | None = None, stamp: int | None = None
    ) -> None:
        """Queue a message for Redis. `stamp`: an owned object's event, whose channel goes quiet when
        Redis finds nobody subscribed and no follower announced itself since the message was queued."""
        if self._out is not None:
            data = json.dumps(message, separators=(",", ":")).encode()
            if text is not None:
                data += b"\n" + text.encode()
            self._out.put_nowait((channel, data, stamp))

    async def _publisher(self) -> None:
        """Send the queued messages, a batch per write, on a connection of its own (no pool, no
        pipeline object per batch: this runs once or twice per action)."""
        assert self._out is not None
        conn: Any = None
        try:
            while True:
                batch = [await self._out.get()]
                while not self._out.empty() and len(batch) < 500:
                    batch.append(self._out.get_nowait())
                try:
                    if conn is None:
                        conn = self._connection()
                    async with asyncio.timeout(5):
                        await conn.send_packed_command(conn.pack_commands([("PUBLISH", c, d) for c, d, _ in batch]))
                        receivers = [await conn.read_response() for _ in batch]
                except Exception as exc:  # followers read the log (`_reconciler`): nothing is lost
                    self._trouble(f"publishing {len(batch)} messages", exc)
                    if conn is not None:
                        await conn.disconnect()
                    conn = None
                    continue
                for (channel, _, stamp), count in zip(batch, receivers, strict=True):
                    if stamp is not None and not count and self._stamps.get(channel) == stamp:
                        self._quiet.setdefault(channel, time.monotonic())
        finally:
            if conn is not None:
                await conn.disconnect(nowait=True)

    async def follow(self, kind: str, object_id: str) -> None:
        """Receive an object's events from now on (before reading it from the log: nothing is missed)."""
        channel = _events(kind, object_id)
        if channel not in self.followed:
            self.followed.add(channel)
            await self._send_subscriber("SUBSCRIBE", channel)
            await self._announce(kind, object_id)

    async def _announce(self, kind: str, object_id: str) -> None:
        """Tell the object's owner that this process follows it, so that it publishes again if its
        channel had gone quiet. A dead or missing owner needs no telling: its successor starts loud."""
        deadline = time.monotonic() + 2.5
        try:
            while time.monotonic() < deadline:
                node = await self.owner(kind, object_id)
                if node is None or node == self.node or not await self.alive(node):
                    return
                reply = await self.call(node, kind, object_id, "watch", {}, timeout=1.0)
                if reply is not None and not reply.get("moved"):
                    return
                await asyncio.sleep(0.05)  # the lease is moving: ask its next holder
        except redis.RedisError as exc:
            log.warning("%s %s: Redis failed while following: %s", kind, object_id, exc)
            return
        log.warning("%s %s: its owner did not hear that this process follows it", kind, object_id)

    async def _announce_all(self) -> None:
        for channel in list(self.followed):
            _, _, kind, object_id = channel.split(":", 3)
            await self._announce(kind, object_id)

    def follow_soon(self, kind: str, object_id: str) -> None:
        """`follow` from a plain route's worker thread (waits for it) or from the event loop (schedules it)."""
        loop = self.loop
        if loop is None:
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._spawn(self.follow(kind, object_id))
        else:
            asyncio.run_coroutine_threadsafe(self.follow(kind, object_id), loop).result(5)

    def unfollow(self, kind: str, object_id: str, owned: bool = False) -> None:
        channel = _events(kind, object_id)
        loop = self.loop
        if loop is None:
            return

        async def leave() -> None:
            self._owners.pop((kind, object_id), None)
            if channel in self.followed:
                self.followed.discard(channel)
                await self._send_subscriber("UNSUBSCRIBE", channel)
            if owned and (kind, object_id) in self.owned:
                self._lose(kind, object_id)
                await self._release(keys=[_lease(kind, object_id)], args=[self.node])

        asyncio.run_coroutine_threadsafe(leave(), loop)

    async def _send_subscriber(self, *command: str) -> None:
        """(Un)subscribe a channel; if the connection is down, the reader's next one subscribes `followed`."""
        if self._sub is not None:
            try:
                await self._sub.send_command(*command)
            except (redis.RedisError, OSError) as exc:
                log.warning("%s %s: Redis failed: %s", command[0].lower(), command[1], exc)

    async def _reader(self) -> None:
        """Read what arrives on the receiving connection, one reply per message (no PubSub object between)."""
        while True:
            try:
                if self._sub is None:
                    await self._subscribe()
                    self._fine()
                    self._spawn(self._announce_all())  # owners may have found nobody following meanwhile
                while True:
                    reply = await self._sub.read_response(push_request=True)  # blocks until a message
                    if reply[0] == b"message":
                        self._deliver(reply[1], reply[2])
            except Exception as exc:
                self._trouble("reading from Redis", exc)
            finally:
                if self._sub is not None:
                    await self._sub.disconnect(nowait=True)
                    self._sub = None
            await asyncio.sleep(0.5)

    def _deliver(self, channel: bytes, payload: bytes) -> None:
        try:
            head, _, text = payload.partition(b"\n")
            data = json.loads(head)
            if text:
                data["text"] = text.decode()
            if channel == self._mine:
                if "reply" in data:
                    future = self._pending.get(data["id"])
                    if future is not None and not future.done():
                        future.set_result(data["reply"])
                else:
                    self._spawn(self._serve(data))
                return
            if data.get("node") == self.node:
                return
            _, _, kind, object_id = channel.decode().split(":", 3)
            owner = self.owners.get(kind)
            if owner is not None:
                owner.on_message(object_id, data)
        except Exception:
            log.exception("a message from Redis failed")


class SharedSocketCaps(SocketCaps):
    """The caps on open game sockets, counted across every process in Redis: one sorted set per cap key,
    one member per socket (`node:n`), expiring `TTL` seconds after its process last renewed it (every
    `RENEW` seconds while the socket is open), so that a killed process's sockets stop counting by
    themselves. While Redis does not answer, this process decides by its own counts (kept all along)."""

    TTL = 15.0
    RENEW = 5.0

    def __init__(self, cluster: Cluster, per_session: int, per_address: int, total: int) -> None:
        super().__init__(per_session, per_address, total)
        self.cluster = cluster
        self._in = cluster.redis.register_script(_SOCKET_IN)
        self._renew = cluster.redis.register_script(_SOCKET_RENEW)
        self._task: asyncio.Task[None] | None = None
        self._left: set[asyncio.Task[None]] = set()

    def _ticket(self, address: str, session: str) -> Ticket:
        self._n += 1
        return Ticket(address, session, f"{self.cluster.node}:{self._n}")

    async def enter(self, address: str, session: str) -> Ticket | str:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._renewer())
        keys = self.keys(address, session)
        ticket = self._ticket(address, session)
        try:
            async with asyncio.timeout(2):
                over = await self._in(
                    keys=list(keys.values()),
                    args=[ticket.member, int(self.TTL * 1000), *(self.limits[name] for name in keys)],
                )
        except (redis.RedisError, OSError, TimeoutError):  # Redis does not answer: this process's counts
            over = self.excess(address, session)
            if over is not None:
                return over
        else:
            if over:
                return list(keys)[int(over) - 1]
        self.tally(ticket, 1)
        return ticket

    def leave(self, ticket: Ticket) -> None:
        if ticket.member not in self.open:
            return
        self.tally(ticket, -1)
        keys = list(self.keys(ticket.address, ticket.session).values())

        async def gone() -> None:
            try:
                async with asyncio.timeout(2):
                    async with self.cluster.redis.pipeline(transaction=False) as pipe:
                        for key in keys:
                            pipe.zrem(key, ticket.member)
                        await pipe.execute()
            except (redis.RedisError, OSError, TimeoutError):
                pass  # it expires by itself

        try:
            task = asyncio.get_running_loop().create_task(gone())
        except RuntimeError:  # no loop (shutting down): it expires by itself
            return
        self._left.add(task)
        task.add_done_callback(self._left.discard)

    async def _renewer(self) -> None:
        while True:
            await asyncio.sleep(self.RENEW)
            pairs = [
                (key, t.member) for t in list(self.open.values()) for key in self.keys(t.address, t.session).values()
            ]
            for i in range(0, len(pairs), 500):
                chunk = pairs[i : i + 500]
                try:
                    await self._renew(keys=[k for k, _ in chunk], args=[int(self.TTL * 1000), *(m for _, m in chunk)])
                except (redis.RedisError, OSError) as exc:
                    self.cluster._trouble("renewing the socket counts", exc)
                    break


class RedisLimiter:
    """A token bucket per client address, shared by every process through Redis. While Redis does not
    answer, this process counts the same budget itself (`ClientLimiter`): a limit that holds, never one
    that lets everything through; Redis is asked again `RETRY` seconds after it failed."""

    RETRY = 1.0

    def __init__(self, url: str, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self.client = redis.Redis.from_url(url, socket_timeout=1, socket_connect_timeout=1)
        self.script = self.client.register_script(_BUCKET)
        self.local = ClientLimiter(rate, burst)
        self.failed_at: float | None = None

    def take(self, client: str) -> bool:
        if self.failed_at is None or time.monotonic() - self.failed_at > self.RETRY:
            try:
                allowed = bool(self.script(keys=[f"yambak:rate:{client}"], args=[self.rate, self.burst]))
                self.failed_at = None
                return allowed
            except redis.RedisError:
                if self.failed_at is None:
                    log.warning("rate limit: Redis unreachable, counting here until it answers")
                self.failed_at = time.monotonic()
        return self.local.take(client)
