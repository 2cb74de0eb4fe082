#!/usr/bin/env python3
"""A small OpenClaw gateway emulator for the soak (scripts/soak.py): Python standard library only.

It speaks the gateway side of the protocol in ../shared/reference/openclaw-gateway-protocol.md, as
`Tests/GatewayNodeTests/TestGateway.swift` does for the Swift tests, to one or more `healthbridge node` processes:

- WebSocket (RFC 6455), written here on asyncio streams: the HTTP/1.1 upgrade (Sec-WebSocket-Accept), text frames,
  client frames must be masked, fragmented messages reassembled, ping/pong (the node's pings are answered and the
  gateway pings too, expecting its payload back), the close handshake, UTF-8 checked, no extensions negotiated (RSV
  bits must be 0), message size bounded: 64 KiB before the handshake, `policy.maxPayload` after it.
- Handshake: `connect.challenge` {nonce, ts} on open; the first request must be `connect`, whose params are checked
  against the gateway's closed schema (unknown keys and nulls are refused); protocol 3…4; device id = SHA-256 of the
  public key; nonce; signedAt within 2 minutes (and equal to the challenge ts); the shared token or the device token
  this gateway issued; the Ed25519 device signature, v3 else v2 (verified with the RFC 8032 reference arithmetic
  below — the soak does not depend on it being fast, one verification per connect); pairing (a new device, or a
  device whose declared commands changed, is refused NOT_PAIRED / PAIRING_REQUIRED until `approve()`); then
  `hello-ok` with a device token and the policy. Refusals answer the error and close the socket.
- After hello-ok: `tick` {ts} every `tickIntervalMs`; `node.invoke.request` events from `invoke()` after a command
  policy check like upstream's node-command-policy.ts; `node.invoke.result` and `node.event` requests checked against
  their closed schemas (`health.update` payloads too) and answered {ok:true} (late results as well).

Everything that is not well formed is recorded in `violations` (and answered as upstream would); the soak fails on
any. Runs an asyncio loop in a thread (`GatewayThread`) so the soak's threads can call `invoke()`.

Standalone, to watch a node by hand: `python3 scripts/soak_gateway.py --port 18789 --token TOKEN` approves every node
and logs what it does (there is no operator interface to invoke commands from outside).
"""
import argparse
import asyncio
import base64
import hashlib
import json
import os
import re
import secrets
import struct
import threading
import time
import uuid

WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"  # RFC 6455 §1.3
PRE_HANDSHAKE_MAX_PAYLOAD = 64 * 1024
PROTOCOL_VERSION, MIN_NODE_PROTOCOL_VERSION = 4, 3

OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA


def now_ms():
    return int(time.time() * 1000)


# MARK: - Ed25519 verification (RFC 8032 §5.1.7, after the RFC's Python reference code)

_P = 2 ** 255 - 19
_L = 2 ** 252 + 27742317777372353535851937790883648493
_D = -121665 * pow(121666, _P - 2, _P) % _P
_SQRT_M1 = pow(2, (_P - 1) // 4, _P)


def _recover_x(y, sign):
    if y >= _P:
        return None
    x2 = (y * y - 1) * pow(_D * y * y + 1, _P - 2, _P) % _P
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (_P + 3) // 8, _P)
    if (x * x - x2) % _P:
        x = x * _SQRT_M1 % _P
    if (x * x - x2) % _P:
        return None
    if (x & 1) != sign:
        x = _P - x
    return x


def _point_add(p, q):
    a = (p[1] - p[0]) * (q[1] - q[0]) % _P
    b = (p[1] + p[0]) * (q[1] + q[0]) % _P
    c = 2 * p[3] * q[3] * _D % _P
    d = 2 * p[2] * q[2] % _P
    e, f, g, h = b - a, d - c, d + c, b + a
    return e * f % _P, g * h % _P, f * g % _P, e * h % _P


def _point_mul(scalar, point):
    result = (0, 1, 1, 0)
    while scalar:
        if scalar & 1:
            result = _point_add(result, point)
        point = _point_add(point, point)
        scalar >>= 1
    return result


def _point_equal(p, q):
    return (p[0] * q[2] - q[0] * p[2]) % _P == 0 and (p[1] * q[2] - q[1] * p[2]) % _P == 0


def _decompress(data):
    if len(data) != 32:
        return None
    y = int.from_bytes(data, "little")
    sign = y >> 255
    y &= (1 << 255) - 1
    x = _recover_x(y, sign)
    return None if x is None else (x, y, 1, x * y % _P)


_GY = 4 * pow(5, _P - 2, _P) % _P
_GX = _recover_x(_GY, 0)
_G = (_GX, _GY, 1, _GX * _GY % _P)


def ed25519_verify(public_key, message, signature):
    """True when `signature` (64 bytes) is `public_key`'s (32 bytes) Ed25519 signature of `message`."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    a = _decompress(public_key)
    r = _decompress(signature[:32])
    if a is None or r is None:
        return False
    s = int.from_bytes(signature[32:], "little")
    if s >= _L:
        return False
    h = int.from_bytes(hashlib.sha512(signature[:32] + public_key + message).digest(), "little") % _L
    return _point_equal(_point_mul(s, _G), _point_add(r, _point_mul(h, a)))


_B64URL = re.compile(r"[A-Za-z0-9_-]+")


def b64url_decode(text):
    """Base64url without padding (as the node sends keys and signatures); None when malformed."""
    if not isinstance(text, str) or not _B64URL.fullmatch(text) or len(text) % 4 == 1:
        return None
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
    except ValueError:
        return None


def signature_payload(version, device_id, client_id, mode, role, scopes, signed_at, token, nonce, platform=None,
                      family=None):
    """The signed device-auth string, v2 or v3 (v3 appends platform and device family, trimmed, ASCII-lowercased)."""
    parts = ["v2" if version == "v2" else "v3", device_id, client_id, mode, role, ",".join(scopes), str(signed_at),
             token or "", nonce]
    if version == "v3":
        parts += [(platform or "").strip().lower(), (family or "").strip().lower()]
    return "|".join(parts)


# MARK: - Closed schemas (the gateway's TypeBox schemas: objects closed, optionals absent rather than null)

def _is_int(value):
    return (isinstance(value, int) and not isinstance(value, bool)) or (
        isinstance(value, float) and value.is_integer() and abs(value) < 9e15)


def validate(schema, value, path="$"):
    """None when `value` matches `schema`, else what is wrong and where."""
    kind = schema[0]
    if kind == "unknown":
        return None
    if kind == "string":
        return None if isinstance(value, str) else "%s must be a string" % path
    if kind == "nonEmptyString":
        return None if isinstance(value, str) and value else "%s must be a non-empty string" % path
    if kind == "integer":
        if not _is_int(value):
            return "%s must be an integer" % path
        return "%s must be ≥ %d" % (path, schema[1]) if schema[1] is not None and value < schema[1] else None
    if kind == "boolean":
        return None if isinstance(value, bool) else "%s must be a boolean" % path
    if kind == "number":
        return None if _is_int(value) or isinstance(value, float) else "%s must be a number" % path
    if kind == "literal":
        return None if value == schema[1] else '%s must be "%s"' % (path, schema[1])
    if kind == "oneOf":
        return None if isinstance(value, str) and value in schema[1] else "%s must be one of %s" % (
            path, ", ".join(schema[1]))
    if kind == "array":
        if not isinstance(value, list):
            return "%s must be an array" % path
        for index, item in enumerate(value):
            problem = validate(schema[1], item, "%s[%d]" % (path, index))
            if problem:
                return problem
        return None
    if kind == "record":
        if not isinstance(value, dict):
            return "%s must be an object" % path
        for key in sorted(value):
            problem = "%s has an empty key" % path if not key else validate(schema[1], value[key], "%s.%s" % (path, key))
            if problem:
                return problem
        return None
    if kind == "object":
        properties, required = schema[1], schema[2]
        if not isinstance(value, dict):
            return "%s must be an object" % path
        for key in sorted(value):
            if key not in properties:
                return "%s has unknown key '%s'" % (path, key)
        for key in sorted(required):
            if key not in value:
                return "%s lacks '%s'" % (path, key)
        for key in sorted(value):
            problem = validate(properties[key], value[key], "%s.%s" % (path, key))
            if problem:
                return problem
        return None
    raise ValueError("unknown schema kind %r" % kind)


STRING, NON_EMPTY, BOOLEAN, UNKNOWN, NUMBER = ("string",), ("nonEmptyString",), ("boolean",), ("unknown",), ("number",)


def INTEGER(minimum=None):
    return ("integer", minimum)


def OBJECT(properties, required=()):
    return ("object", properties, set(required))


CLIENT_IDS = ["webchat-ui", "openclaw-control-ui", "webchat", "cli", "gateway-client", "openclaw-macos", "openclaw-linux",
              "openclaw-ios", "openclaw-watchos", "openclaw-android", "node-host", "test", "fingerprint", "openclaw-probe"]
CLIENT_MODES = ["node", "cli", "ui", "backend", "worker", "probe", "test", "webchat"]

SCHEMAS = {
    "error": OBJECT({"code": NON_EMPTY, "message": NON_EMPTY, "details": UNKNOWN, "retryable": BOOLEAN,
                     "retryAfterMs": INTEGER(0)}, ["code", "message"]),
    "req": OBJECT({"type": ("literal", "req"), "id": NON_EMPTY, "method": NON_EMPTY, "params": UNKNOWN},
                  ["type", "id", "method"]),
    "event": OBJECT({"type": ("literal", "event"), "event": NON_EMPTY, "payload": UNKNOWN, "seq": INTEGER(0),
                     "stateVersion": UNKNOWN}, ["type", "event"]),
    "connect": OBJECT({
        "minProtocol": INTEGER(1), "maxProtocol": INTEGER(1),
        "client": OBJECT({"id": ("oneOf", CLIENT_IDS), "displayName": NON_EMPTY, "version": NON_EMPTY,
                          "platform": NON_EMPTY, "deviceFamily": NON_EMPTY, "modelIdentifier": NON_EMPTY,
                          "mode": ("oneOf", CLIENT_MODES), "instanceId": NON_EMPTY},
                         ["id", "version", "platform", "mode"]),
        "caps": ("array", NON_EMPTY), "commands": ("array", NON_EMPTY), "permissions": ("record", BOOLEAN),
        "pathEnv": STRING, "role": NON_EMPTY, "scopes": ("array", NON_EMPTY),
        "device": OBJECT({"id": NON_EMPTY, "publicKey": NON_EMPTY, "signature": NON_EMPTY, "signedAt": INTEGER(0),
                          "nonce": NON_EMPTY}, ["id", "publicKey", "signature", "signedAt", "nonce"]),
        "auth": OBJECT({"token": STRING, "deviceToken": STRING, "bootstrapToken": STRING, "password": STRING}),
        "locale": STRING, "userAgent": STRING,
    }, ["minProtocol", "maxProtocol", "client"]),
    "node.invoke.result": OBJECT({"id": NON_EMPTY, "nodeId": NON_EMPTY, "ok": BOOLEAN, "payload": UNKNOWN,
                                  "payloadJSON": STRING,
                                  "error": OBJECT({"code": NON_EMPTY, "message": NON_EMPTY})},
                                 ["id", "nodeId", "ok"]),
    "node.event": OBJECT({"event": NON_EMPTY, "payload": UNKNOWN, "payloadJSON": STRING}, ["event"]),
    # The health plan's payload (the node's own extension fields included; nothing else).
    "health.update": OBJECT({"type": NON_EMPTY, "latestSamples": ("array", OBJECT({
        "dateISO": NON_EMPTY, "endDateISO": STRING, "value": NUMBER, "unit": STRING, "category": STRING,
        "source": STRING}, ["dateISO"]))}, ["type", "latestSamples"]),
}

# MARK: - Command policy (upstream's node-command-policy.ts, as TestGateway's CommandPolicy)

HEALTH_COMMANDS = ["health.query", "health.summary", "health.subscribe", "health.unsubscribe"]
_CANVAS = ["canvas.present", "canvas.hide", "canvas.navigate", "canvas.eval", "canvas.snapshot"]
_CAMERA, _LOCATION = ["camera.list", "camera.snap", "camera.clip"], ["location.get"]
DANGEROUS = {"camera.snap", "camera.clip", "screen.record", "sms.send", "system.run", "browser.proxy", "health.summary"}
PLATFORM_DEFAULTS = {
    "ios": _CANVAS + _CAMERA + _LOCATION + ["device.info", "motion.activity", "motion.pedometer"] + HEALTH_COMMANDS,
    "android": _CANVAS + _CAMERA + _LOCATION + ["device.info", "sms.send"],
    "macos": _CANVAS + _CAMERA + _LOCATION + ["system.notify"],
    "linux": ["system.notify", "system.which"],
    "windows": ["system.notify", "system.which"],
    "watchos": ["device.info", "device.status", "system.notify"],
    "unknown": _CANVAS + _CAMERA + _LOCATION + ["system.notify"],
}


def normalize_platform(platform, family):
    raw = (platform or "").strip().lower()
    for prefix, name in (("ios", "ios"), ("ipados", "ios"), ("android", "android"), ("mac", "macos"),
                         ("darwin", "macos"), ("win", "windows"), ("linux", "linux"), ("watchos", "watchos")):
        if raw.startswith(prefix):
            return name
    family = (family or "").lower()
    if "iphone" in family or "ipad" in family:
        return "ios"
    for word, name in (("android", "android"), ("mac", "macos"), ("linux", "linux")):
        if word in family:
            return name
    return "unknown"


def command_refusal(command, platform, family, declared, allow, deny):
    """None when the policy allows `command` for this node, else upstream's reason."""
    allowlist = {c for c in PLATFORM_DEFAULTS[normalize_platform(platform, family)] if c not in DANGEROUS}
    allowlist |= {c.strip() for c in allow if c.strip()}
    allowlist -= {c.strip() for c in deny}
    command = command.strip()
    if not command:
        return "command required"
    if command not in allowlist:
        return "command not allowlisted"
    if not declared:
        return "node did not declare commands"
    if command not in declared:
        return "command not declared by node"
    return None


# MARK: - WebSocket

class WebSocketClosed(Exception):
    pass


class ProtocolViolation(Exception):
    def __init__(self, code, text):
        super().__init__(text)
        self.code = code


class WebSocket:
    """The server side of one RFC 6455 connection (no extensions)."""

    def __init__(self, reader, writer):
        self.reader, self.writer = reader, writer
        self.write_lock = asyncio.Lock()
        self.close_sent = False
        self.close_received = None  # the peer's close code (1005: none given)
        self.pongs = []

    @staticmethod
    async def accept(reader, writer, timeout=10, max_header_bytes=16384):
        """Reads the HTTP upgrade request and answers 101; None (after an HTTP error answer) when it is not one."""
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), timeout)
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, asyncio.TimeoutError, ConnectionError):
            return None, "no HTTP request"
        if len(head) > max_header_bytes:
            return None, "request head too large"
        lines = head.decode("latin-1").split("\r\n")
        method, _, rest = lines[0].partition(" ")
        headers = {}
        for line in lines[1:]:
            if line:
                name, _, value = line.partition(":")
                headers[name.strip().lower()] = value.strip()
        problem = None
        key = headers.get("sec-websocket-key", "")
        if method != "GET" or not rest.endswith(" HTTP/1.1"):
            problem = "not GET … HTTP/1.1"
        elif "websocket" not in headers.get("upgrade", "").lower():
            problem = "no Upgrade: websocket"
        elif "upgrade" not in [t.strip().lower() for t in headers.get("connection", "").split(",")]:
            problem = "no Connection: upgrade"
        elif headers.get("sec-websocket-version") != "13":
            problem = "Sec-WebSocket-Version is not 13"
        elif len(base64.b64decode(key + "==", validate=False) if key else b"") < 16 or len(key) != 24:
            problem = "bad Sec-WebSocket-Key"
        if problem:
            writer.write(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            await writer.drain()
            return None, problem
        accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
        writer.write(("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      "Sec-WebSocket-Accept: %s\r\n\r\n" % accept).encode())
        await writer.drain()
        return WebSocket(reader, writer), headers

    async def _send_frame(self, opcode, payload):
        header = bytes([0x80 | opcode])
        length = len(payload)
        if length < 126:
            header += bytes([length])
        elif length < 65536:
            header += bytes([126]) + struct.pack("!H", length)
        else:
            header += bytes([127]) + struct.pack("!Q", length)
        async with self.write_lock:
            if self.close_sent and opcode != OP_CLOSE:
                raise WebSocketClosed()
            self.writer.write(header + payload)
            await self.writer.drain()

    async def send_text(self, text):
        await self._send_frame(OP_TEXT, text.encode())

    async def ping(self, payload):
        await self._send_frame(OP_PING, payload)

    async def close(self, code=1000, reason=""):
        """Sends the close frame (once)."""
        if self.close_sent:
            return
        payload = struct.pack("!H", code) + reason.encode()[:120]
        try:
            await self._send_frame(OP_CLOSE, payload)
        except (ConnectionError, RuntimeError):
            pass
        self.close_sent = True

    async def _read_frame(self, limit):
        first, second = await self.reader.readexactly(2)
        fin, rsv, opcode = first & 0x80, first & 0x70, first & 0x0F
        masked, length = second & 0x80, second & 0x7F
        if rsv:
            raise ProtocolViolation(1002, "RSV bits set without a negotiated extension")
        if opcode not in (OP_CONT, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG):
            raise ProtocolViolation(1002, "unknown opcode %d" % opcode)
        if not masked:
            raise ProtocolViolation(1002, "unmasked frame from the client")
        if length == 126:
            length = struct.unpack("!H", await self.reader.readexactly(2))[0]
        elif length == 127:
            length = struct.unpack("!Q", await self.reader.readexactly(8))[0]
        if opcode >= OP_CLOSE and (length > 125 or not fin):
            raise ProtocolViolation(1002, "control frame longer than 125 bytes or fragmented")
        if length > limit:
            raise ProtocolViolation(1009, "frame of %d bytes over the limit of %d" % (length, limit))
        mask = await self.reader.readexactly(4)
        data = await self.reader.readexactly(length)
        if length:
            # XOR with the repeated 4-byte mask, as one big integer operation.
            repeated = (mask * (length // 4 + 1))[:length]
            data = (int.from_bytes(data, "big") ^ int.from_bytes(repeated, "big")).to_bytes(length, "big")
        return bool(fin), opcode, data

    async def receive(self, limit):
        """The next text message (str). Answers pings, records pongs, completes the close handshake (then raises
        WebSocketClosed); raises ProtocolViolation for what RFC 6455 or this gateway refuses."""
        parts, total, kind = [], 0, None
        while True:
            fin, opcode, data = await self._read_frame(limit - total if kind is not None else limit)
            if opcode == OP_PING:
                if not self.close_sent:
                    await self._send_frame(OP_PONG, data)
                continue
            if opcode == OP_PONG:
                self.pongs.append(data)
                continue
            if opcode == OP_CLOSE:
                code = 1005
                if len(data) == 1:
                    raise ProtocolViolation(1002, "close frame with a 1-byte payload")
                if len(data) >= 2:
                    code = struct.unpack("!H", data[:2])[0]
                    try:
                        data[2:].decode("utf-8")
                    except UnicodeDecodeError:
                        raise ProtocolViolation(1007, "close reason is not UTF-8") from None
                    if code < 1000 or code in (1004, 1005, 1006, 1015) or 1016 <= code < 3000 or code >= 5000:
                        raise ProtocolViolation(1002, "invalid close code %d" % code)
                self.close_received = code
                await self.close(1000 if code == 1005 else code)
                raise WebSocketClosed()
            if opcode == OP_CONT:
                if kind is None:
                    raise ProtocolViolation(1002, "continuation frame without a message")
            else:
                if kind is not None:
                    raise ProtocolViolation(1002, "new data frame inside a fragmented message")
                kind = opcode
            parts.append(data)
            total += len(data)
            if fin:
                if kind == OP_BINARY:
                    raise ProtocolViolation(1003, "binary message (the protocol is JSON text frames)")
                try:
                    return b"".join(parts).decode("utf-8")
                except UnicodeDecodeError:
                    raise ProtocolViolation(1007, "text message is not UTF-8") from None


# MARK: - Gateway

class InvokeFailed(Exception):
    pass


class Gateway:
    """The gateway: call its coroutines on its loop (``GatewayThread``)."""

    def __init__(self, token=None, tick_interval_ms=15000, max_payload=26214400, ping_interval=15.0,
                 require_pairing=True, allow_commands=HEALTH_COMMANDS + ["health.sleep"], deny_commands=(),
                 max_skew_ms=120000, log=None):
        self.token, self.tick_interval_ms, self.max_payload = token, tick_interval_ms, max_payload
        self.ping_interval, self.require_pairing, self.max_skew_ms = ping_interval, require_pairing, max_skew_ms
        self.allow_commands, self.deny_commands = list(allow_commands), list(deny_commands)
        self.log = log or (lambda text: None)
        self.sessions = {}  # connId → session dict, after hello-ok
        self.approved = {}  # deviceId → the approved command list
        self.pairing_requests = {}  # requestId → deviceId
        self.device_tokens = {}  # deviceId → issued token
        self.pending = {}  # invoke id → future
        self.violations = []
        self.connects = []  # {deviceId, ok, code, detail, signature}
        self.disconnects = []  # sessions that ended after hello-ok: {connId, nodeId, reason, closeCode}
        self.events = {}  # node event name → count
        self.updates = []  # health.update payloads, in order of arrival
        self.late_results = 0
        self.invokes = 0
        self.pings_sent = self.pongs_matched = self.ticks_sent = 0
        self.stopping = False
        self.server = None
        self.port = None
        self._tick_seq = 0
        self._tasks = set()
        self._connections = {}  # connId → (WebSocket, writer)
        self._node_ready = asyncio.Event()
        self._pairing = asyncio.Event()

    def violation(self, text):
        self.log("VIOLATION: " + text)
        if len(self.violations) < 100:
            self.violations.append(text)

    async def start(self, host="127.0.0.1", port=0):
        self.server = await asyncio.start_server(self._serve, host, port, limit=PRE_HANDSHAKE_MAX_PAYLOAD)
        self.port = self.server.sockets[0].getsockname()[1]
        return self.port

    async def stop(self, reason="gateway stopping"):
        """Stops listening and closes every connection with the close handshake (1001)."""
        self.stopping = True
        self.server.close()
        for ws, _ in list(self._connections.values()):
            await ws.close(1001, reason)
        deadline = time.time() + 3
        while self._connections and time.time() < deadline:
            await asyncio.sleep(0.05)
        for _, writer in list(self._connections.values()):
            writer.close()
        await self.server.wait_closed()

    # MARK: Operator side

    def approve(self, request_or_device_id):
        """`openclaw nodes approve <requestId | deviceId>`: approves the device with the commands it asked for."""
        device_id = self.pairing_requests.pop(request_or_device_id, request_or_device_id)
        asked = next((c for c in reversed(self.connects) if c["deviceId"] == device_id), None)
        self.approved[device_id] = sorted((asked or {}).get("commands") or [])
        for request_id in [r for r, d in self.pairing_requests.items() if d == device_id]:
            del self.pairing_requests[request_id]
        self.log("approved node %s" % device_id)

    async def wait_for_pairing_request(self, timeout):
        await asyncio.wait_for(self._pairing.wait(), timeout)
        return dict(self.pairing_requests)

    async def wait_for_node(self, timeout):
        await asyncio.wait_for(self._node_ready.wait(), timeout)
        return next(iter(self.sessions.values()))["nodeId"]

    async def invoke(self, command, params=None, timeout_ms=30000, gateway_timeout=None, node_id=None):
        """`node.invoke` as an operator calls it: {ok, payload, error}; InvokeFailed when the command is refused by
        the policy, no node is connected, the node disconnects or the gateway's wait ends."""
        session = next((s for s in self.sessions.values() if node_id in (None, s["nodeId"])), None)
        if session is None:
            raise InvokeFailed("no node connected")
        refusal = command_refusal(command, session["platform"], session["deviceFamily"], session["commands"],
                                  self.allow_commands, self.deny_commands)
        if refusal:
            raise InvokeFailed("INVALID_REQUEST: node command not allowed (%s)" % refusal)
        invoke_id = str(uuid.uuid4())
        payload = {"id": invoke_id, "nodeId": session["nodeId"], "command": command,
                   "paramsJSON": None if params is None else json.dumps(params), "timeoutMs": timeout_ms,
                   "idempotencyKey": str(uuid.uuid4())}
        future = asyncio.get_running_loop().create_future()
        self.pending[invoke_id] = (future, session["connId"])
        self.invokes += 1
        try:
            await session["send"](self._event("node.invoke.request", payload))
            return await asyncio.wait_for(asyncio.shield(future), gateway_timeout or timeout_ms / 1000)
        except asyncio.TimeoutError:
            raise InvokeFailed("%s: no node.invoke.result within %.0f s" % (
                command, gateway_timeout or timeout_ms / 1000)) from None
        except (ConnectionError, WebSocketClosed) as error:
            raise InvokeFailed("%s: the node connection is gone (%r)" % (command, error)) from None
        finally:
            self.pending.pop(invoke_id, None)

    def stats(self):
        return {"connects": sum(1 for c in self.connects if c["ok"]),
                "refused_connects": [c["detail"] or c["code"] for c in self.connects if not c["ok"]],
                "disconnects": len(self.disconnects), "invokes": self.invokes, "late_results": self.late_results,
                "events": dict(self.events), "health_updates": len(self.updates), "ticks_sent": self.ticks_sent,
                "pings_sent": self.pings_sent, "pongs_matched": self.pongs_matched,
                "violations": len(self.violations)}

    # MARK: One connection

    def _event(self, name, payload, seq=None):
        frame = {"type": "event", "event": name, "payload": payload}
        if seq is not None:
            frame["seq"] = seq
        return json.dumps(frame, separators=(",", ":"))

    @staticmethod
    def _response(request_id, ok, payload=None, error=None):
        frame = {"type": "res", "id": request_id, "ok": ok}
        if payload is not None:
            frame["payload"] = payload
        if error is not None:
            frame["error"] = error
        return json.dumps(frame, separators=(",", ":"))

    async def _serve(self, reader, writer):
        task = asyncio.current_task()
        self._tasks.add(task)
        try:
            await self._serve_connection(reader, writer)
        except Exception as error:  # noqa: BLE001 - a bug in this emulator must not pass silently
            self.violation("gateway error: %r" % error)
        finally:
            self._tasks.discard(task)
            writer.close()

    async def _serve_connection(self, reader, writer):
        ws, headers = await WebSocket.accept(reader, writer)
        if ws is None:
            self.violation("refused a non-WebSocket connection: %s" % headers)
            return
        conn_id = uuid.uuid4().hex
        self._connections[conn_id] = (ws, writer)
        nonce, ts = str(uuid.uuid4()), now_ms()
        state = {"connId": conn_id, "session": None, "nonce": nonce, "ts": ts, "closeCode": None, "reason": "closed"}
        helpers = []
        try:
            await ws.send_text(self._event("connect.challenge", {"nonce": nonce, "ts": ts}))
            helpers = [asyncio.ensure_future(self._pinger(ws, state))]
            limit = PRE_HANDSHAKE_MAX_PAYLOAD
            while True:
                if state["session"] is None:
                    # Upstream closes a connection that has not connected within its handshake timeout.
                    try:
                        text = await asyncio.wait_for(ws.receive(limit), 30)
                    except asyncio.TimeoutError:
                        self.violation("no connect request within 30 s")
                        await ws.close(1008, "handshake timeout")
                        break
                else:
                    text = await ws.receive(limit)
                if not await self._handle(text, ws, state):
                    await ws.close(1008, state["reason"])
                    break
                if state["session"] is not None and len(helpers) == 1:
                    limit = self.max_payload
                    helpers.append(asyncio.ensure_future(self._ticker(ws, state)))
        except WebSocketClosed:
            state["reason"] = "the node closed the connection (%s)" % ws.close_received
            state["closeCode"] = ws.close_received
        except ProtocolViolation as error:
            self.violation("websocket: %s" % error)
            state["reason"] = "protocol violation: %s" % error
            await ws.close(error.code, str(error)[:100])
        except (asyncio.IncompleteReadError, ConnectionError) as error:
            state["reason"] = "connection lost without a close frame (%s)" % type(error).__name__
        finally:
            for helper in helpers:
                helper.cancel()
            session = state["session"]
            if session is not None:
                self.sessions.pop(conn_id, None)
                if not self.sessions:
                    self._node_ready.clear()
                for invoke_id, (future, owner) in list(self.pending.items()):
                    if owner == conn_id and not future.done():
                        future.set_exception(InvokeFailed("the node disconnected before answering"))
                self.disconnects.append({"connId": conn_id, "nodeId": session["nodeId"], "reason": state["reason"],
                                         "closeCode": state["closeCode"], "duringStop": self.stopping})
                self.log("node %s disconnected: %s" % (session["nodeId"][:12], state["reason"]))
            self._connections.pop(conn_id, None)

    async def _pinger(self, ws, state):
        """Pings every `ping_interval`; the pong must carry the ping's payload before the next ping goes out."""
        last = None
        try:
            while True:
                await asyncio.sleep(self.ping_interval)
                if last is not None:
                    if last in ws.pongs:
                        self.pongs_matched += 1
                    elif not ws.close_sent:
                        self.violation("no pong for the gateway's ping within %.0f s" % self.ping_interval)
                    del ws.pongs[:]
                last = secrets.token_bytes(8)
                await ws.ping(last)
                self.pings_sent += 1
        except (asyncio.CancelledError, ConnectionError, WebSocketClosed):
            pass

    async def _ticker(self, ws, state):
        try:
            while True:
                await asyncio.sleep(self.tick_interval_ms / 1000)
                self._tick_seq += 1
                await ws.send_text(self._event("tick", {"ts": now_ms()}, seq=self._tick_seq))
                self.ticks_sent += 1
        except (asyncio.CancelledError, ConnectionError, WebSocketClosed):
            pass

    async def _handle(self, text, ws, state):
        """One message from the node; False closes the connection."""
        try:
            frame = json.loads(text, parse_constant=lambda name: (_ for _ in ()).throw(ValueError(name)))
        except ValueError:
            self.violation("not JSON: %.80s" % text)
            state["reason"] = "not JSON"
            return False
        kind = frame.get("type") if isinstance(frame, dict) else None
        if kind in ("res", "event"):
            # The node answers only requests of the gateway (this one sends none) and pushes events as `node.event`.
            problem = validate(SCHEMAS["event"] if kind == "event" else OBJECT({
                "type": ("literal", "res"), "id": NON_EMPTY, "ok": BOOLEAN, "payload": UNKNOWN,
                "error": SCHEMAS["error"]}, ["type", "id", "ok"]), frame)
            self.violation("unexpected %s frame from the node%s" % (kind, ": " + problem if problem else ""))
            return True
        problem = validate(SCHEMAS["req"], frame)
        if problem:
            self.violation("frame: %s" % problem)
            request_id = frame.get("id") if isinstance(frame, dict) else None
            if isinstance(request_id, str) and request_id:
                await ws.send_text(self._response(request_id, False, error={
                    "code": "INVALID_REQUEST", "message": "invalid frame: %s" % problem}))
            state["reason"] = "invalid frame"
            return False
        request_id, method, params = frame["id"], frame["method"], frame.get("params")
        session = state["session"]
        if session is None:
            if method != "connect":
                self.violation("first request is %s, not connect" % method)
                await ws.send_text(self._response(request_id, False, error={
                    "code": "INVALID_REQUEST", "message": "first request must be connect"}))
                state["reason"] = "no connect"
                return False
            return await self._connect(request_id, params, ws, state)
        if method == "connect":
            self.violation("a second connect on one connection")
            await ws.send_text(self._response(request_id, False, error={
                "code": "INVALID_REQUEST", "message": "already connected"}))
            return True
        if method in ("node.invoke.result", "node.event"):
            problem = validate(SCHEMAS[method], params)
            if problem:
                self.violation("%s: %s" % (method, problem))
                await ws.send_text(self._response(request_id, False, error={
                    "code": "INVALID_REQUEST", "message": "invalid %s params: %s" % (method, problem)}))
                return True
            if method == "node.invoke.result":
                self._invoke_result(params, session)
            else:
                self._node_event(params)
            await ws.send_text(self._response(request_id, True, payload={"ok": True}))
            return True
        self.violation("unknown method %s" % method)
        await ws.send_text(self._response(request_id, False, error={
            "code": "INVALID_REQUEST", "message": "unknown method: %s" % method}))
        return True

    def _invoke_result(self, params, session):
        outcome = {"ok": params["ok"], "payload": None, "error": params.get("error")}
        if params["nodeId"] != session["nodeId"]:
            self.violation("node.invoke.result for node %s from node %s" % (params["nodeId"], session["nodeId"]))
        if "payloadJSON" in params:
            try:
                outcome["payload"] = json.loads(params["payloadJSON"])
            except ValueError:
                self.violation("node.invoke.result payloadJSON is not JSON: %.80s" % params["payloadJSON"])
        elif "payload" in params:
            outcome["payload"] = params["payload"]
        if params["ok"] and "error" in params:
            self.violation("node.invoke.result ok with an error")
        if not params["ok"] and not (params.get("error") or {}).get("code"):
            self.violation("node.invoke.result failed without an error code")
        waiting = self.pending.get(params["id"])
        if waiting is None or waiting[0].done():
            self.late_results += 1  # upstream answers {ok:true} to a late result too
        else:
            waiting[0].set_result(outcome)

    def _node_event(self, params):
        name = params["event"]
        self.events[name] = self.events.get(name, 0) + 1
        payload = params.get("payload")
        if "payloadJSON" in params:
            try:
                payload = json.loads(params["payloadJSON"])
            except ValueError:
                self.violation("node.event %s payloadJSON is not JSON" % name)
                return
        if name == "health.update":
            problem = validate(SCHEMAS["health.update"], payload)
            if problem:
                self.violation("health.update: %s" % problem)
                return
            self.updates.append(payload)
            self.log("health.update %s: %d samples" % (payload["type"], len(payload["latestSamples"])))

    async def _connect(self, request_id, params, ws, state):
        """The handshake: schema, protocol, device proof, auth, pairing; then hello-ok. False closes."""
        record = {"deviceId": (params or {}).get("device", {}).get("id") if isinstance(params, dict) and isinstance(
            params.get("device"), dict) else None, "ok": False, "code": None, "detail": None, "signature": None,
            "commands": (params or {}).get("commands") if isinstance(params, dict) else None}
        self.connects.append(record)

        async def refuse(code, message, detail=None, extra=None, retryable=None):
            details = dict(extra or {})
            if detail:
                details["code"] = detail
            error = {"code": code, "message": message}
            if details:
                error["details"] = details
            if retryable is not None:
                error["retryable"] = retryable
            record.update(code=code, detail=detail)
            state["reason"] = "connect refused: %s" % (detail or code)
            self.log("connect refused: %s %s" % (detail or code, message))
            await ws.send_text(self._response(request_id, False, error=error))
            return False

        problem = validate(SCHEMAS["connect"], params)
        if problem:
            self.violation("connect: %s" % problem)
            return await refuse("INVALID_REQUEST", "invalid connect params: %s" % problem)
        if params["minProtocol"] > PROTOCOL_VERSION or params["maxProtocol"] < MIN_NODE_PROTOCOL_VERSION:
            return await refuse("INVALID_REQUEST", "protocol mismatch", detail="PROTOCOL_MISMATCH")
        negotiated = min(int(params["maxProtocol"]), PROTOCOL_VERSION)
        client, role = params["client"], params.get("role", "node")
        scopes = params.get("scopes", [])
        if role != "node" or client["mode"] != "node":
            self.violation("a node must connect with role node and client.mode node (got %s / %s)" % (
                role, client["mode"]))
        if scopes:
            self.violation("a node asks for no scopes (got %s)" % scopes)
        if "health" not in params.get("caps", []):
            self.violation("the node does not declare the health cap")
        device = params.get("device")
        if device is None:
            return await refuse("NOT_PAIRED", "device identity required", detail="DEVICE_IDENTITY_REQUIRED")
        public_key = b64url_decode(device["publicKey"])
        if public_key is None or len(public_key) != 32:
            return await refuse("INVALID_REQUEST", "device public key invalid", detail="DEVICE_AUTH_PUBLIC_KEY_INVALID")
        device_id = device["id"]
        if hashlib.sha256(public_key).hexdigest() != device_id:
            return await refuse("INVALID_REQUEST", "device identity mismatch", detail="DEVICE_AUTH_DEVICE_ID_MISMATCH")
        if device["nonce"] != state["nonce"]:
            return await refuse("INVALID_REQUEST", "device nonce mismatch", detail="DEVICE_AUTH_NONCE_MISMATCH")
        if abs(now_ms() - device["signedAt"]) > self.max_skew_ms:
            return await refuse("INVALID_REQUEST", "device signature expired", detail="DEVICE_AUTH_SIGNATURE_EXPIRED")
        if device["signedAt"] != state["ts"]:
            self.violation("device.signedAt %s is not the challenge ts %s" % (device["signedAt"], state["ts"]))
        auth = params.get("auth") or {}
        token = auth.get("token")
        if self.token is not None:
            issued = self.device_tokens.get(device_id)
            if not (token == self.token or (issued and issued in (token, auth.get("deviceToken")))):
                if token is None:
                    return await refuse("INVALID_REQUEST", "unauthorized: gateway token missing",
                                        detail="AUTH_TOKEN_MISSING")
                return await refuse("INVALID_REQUEST", "unauthorized: gateway token mismatch",
                                    detail="AUTH_TOKEN_MISMATCH", extra={"canRetryWithDeviceToken": False})
        signature = b64url_decode(device["signature"])
        version = None
        for candidate in ("v3", "v2"):
            signed = signature_payload(candidate, device_id, client["id"], client["mode"], role, scopes,
                                       device["signedAt"], token, state["nonce"], client["platform"],
                                       client.get("deviceFamily"))
            if signature is not None and ed25519_verify(public_key, signed.encode(), signature):
                version = candidate
                break
        if version is None:
            return await refuse("INVALID_REQUEST", "device signature invalid", detail="DEVICE_AUTH_SIGNATURE_INVALID")
        record["signature"] = version
        commands = sorted(params.get("commands") or [])
        if self.require_pairing and self.approved.get(device_id) != commands:
            request_id_pairing = next((r for r, d in self.pairing_requests.items() if d == device_id), None) \
                or uuid.uuid4().hex
            self.pairing_requests[request_id_pairing] = device_id
            self._pairing.set()
            reason = "not-paired" if device_id not in self.approved else "commands-changed"
            return await refuse("NOT_PAIRED", "pairing required", detail="PAIRING_REQUIRED",
                                extra={"requestId": request_id_pairing, "reason": reason})
        device_token = self.device_tokens.setdefault(device_id, "dt-" + uuid.uuid4().hex)
        hello = {
            "type": "hello-ok", "protocol": negotiated,
            "server": {"version": "soak-gateway", "connId": state["connId"]},
            "features": {"methods": ["node.invoke.result", "node.event"], "events": ["tick", "node.invoke.request"]},
            "snapshot": {"presence": [], "health": {}, "stateVersion": {"presence": 0, "health": 0}, "uptimeMs": 0},
            "auth": {"deviceToken": device_token, "role": role, "scopes": []},
            "policy": {"maxPayload": self.max_payload, "maxBufferedBytes": 52428800,
                       "tickIntervalMs": self.tick_interval_ms},
        }
        conn_id = hello["server"]["connId"]

        async def send(text):
            await ws.send_text(text)

        state["session"] = {"connId": conn_id, "nodeId": device_id, "platform": client["platform"],
                            "deviceFamily": client.get("deviceFamily"), "commands": params.get("commands"),
                            "send": send}
        record["ok"] = True
        await ws.send_text(self._response(request_id, True, payload=hello))
        self.sessions[conn_id] = state["session"]
        self._node_ready.set()
        self.log("node %s connected (%s signature, protocol %d, commands %s)" % (
            device_id[:12], version, negotiated, ",".join(commands)))
        return True


class GatewayThread:
    """A ``Gateway`` on its own asyncio loop in a daemon thread, for threaded callers."""

    def __init__(self, **options):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="soak-gateway", daemon=True)
        self.thread.start()
        self.gateway = self.call(self._make(options))
        self.port = self.call(self.gateway.start())
        self.url = "ws://127.0.0.1:%d" % self.port

    @staticmethod
    async def _make(options):
        return Gateway(**options)

    def call(self, coroutine, timeout=None):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def invoke(self, command, params=None, timeout_ms=30000, gateway_timeout=None):
        return self.call(self.gateway.invoke(command, params, timeout_ms, gateway_timeout))

    def approve(self, request_or_device_id):
        self.loop.call_soon_threadsafe(self.gateway.approve, request_or_device_id)

    def stats(self):
        return self.call(self._stats())

    async def _stats(self):
        return self.gateway.stats()

    def stop(self):
        try:
            self.call(self.gateway.stop(), timeout=10)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=5)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=18789)
    parser.add_argument("--token", default=os.environ.get("OPENCLAW_GATEWAY_TOKEN"))
    parser.add_argument("--tick-ms", type=int, default=15000)
    args = parser.parse_args()

    async def run():
        gateway = Gateway(token=args.token, tick_interval_ms=args.tick_ms, require_pairing=False,
                          log=lambda text: print(time.strftime("%H:%M:%S ") + text, flush=True))
        port = await gateway.start(port=args.port)
        print("gateway on ws://127.0.0.1:%d" % port, flush=True)
        await asyncio.Event().wait()

    try:
        asyncio.run(run())
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
