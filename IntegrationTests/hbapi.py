"""Helpers shared by the export-API scripts (netns, soak, schemathesis): run `healthbridge serve`, issue pairing
codes, and talk to the paired HTTPS API with the server's certificate pinned by its SHA-256 fingerprint."""
import hashlib
import http.client
import json
import os
import signal
import ssl
import subprocess
import time


class Server:
    """`healthbridge serve` in a temporary data directory; `prefix` runs it elsewhere (e.g. `ip netns exec ns`)."""

    def __init__(self, binary, home, args=(), prefix=(), log=None):
        self.binary, self.home = binary, home
        env = dict(os.environ, HEALTHBRIDGE_LOG_LEVEL=os.environ.get("HEALTHBRIDGE_LOG_LEVEL", "warning"))
        self.log = open(log or os.path.join(home, "serve.log"), "ab")
        self.process = subprocess.Popen(list(prefix) + [binary, "serve", "--home", home] + list(args),
                                        stdout=self.log, stderr=self.log, env=env)
        self.info = self.wait_for_runtime()

    def wait_for_runtime(self, timeout=120):
        path = os.path.join(self.home, "export-server.json")
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError("serve exited with %s (see %s)" % (self.process.returncode, self.log.name))
            try:
                with open(path) as handle:
                    info = json.load(handle)
                if info.get("pid") == self.process.pid:
                    return info
            except (OSError, ValueError):
                pass
            time.sleep(0.2)
        raise RuntimeError("serve did not start the export API within %d s" % timeout)

    def pair_code(self, prefix=()):
        out = subprocess.run(list(prefix) + [self.binary, "pair-code", "--home", self.home, "--json"],
                             check=True, capture_output=True, text=True).stdout
        return json.loads(out)["code"]

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


class PinnedClient:
    """HTTPS to the export API, trusting exactly the certificate with `fingerprint` (hex SHA-256 of its DER)."""

    def __init__(self, host, port, fingerprint, token=None, timeout=15, source=None):
        self.host, self.port, self.fingerprint, self.token, self.timeout = host, port, fingerprint.lower(), token, timeout
        self.source = source
        self.context = ssl.create_default_context()
        self.context.check_hostname = False
        self.context.verify_mode = ssl.CERT_NONE
        self.connection = None

    def connect(self):
        connection = http.client.HTTPSConnection(self.host, self.port, timeout=self.timeout, context=self.context,
                                                 source_address=(self.source, 0) if self.source else None)
        connection.connect()
        der = connection.sock.getpeercert(binary_form=True)
        if hashlib.sha256(der).hexdigest() != self.fingerprint:
            connection.close()
            raise ssl.SSLError("certificate fingerprint mismatch")
        self.connection = connection

    def request(self, method, path, body=None, headers=None):
        """(status, headers, parsed JSON or None). Reuses the connection (keep-alive), reconnecting when needed."""
        all_headers = {"Accept": "application/json"}
        if self.token:
            all_headers["Authorization"] = "Bearer " + self.token
        if body is not None:
            body = json.dumps(body).encode() if not isinstance(body, bytes) else body
            all_headers["Content-Type"] = "application/json"
        all_headers.update(headers or {})
        for attempt in range(2):
            if self.connection is None:
                self.connect()
            try:
                self.connection.request(method, path, body=body, headers=all_headers)
                response = self.connection.getresponse()
                data = response.read()
                if response.getheader("Connection", "").lower() == "close":
                    self.close()
                try:
                    parsed = json.loads(data) if data else None
                except ValueError:
                    parsed = None
                return response.status, {k.lower(): v for k, v in response.getheaders()}, parsed
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self.close()
                if attempt == 1:
                    raise

    def close(self):
        if self.connection is not None:
            self.connection.close()
            self.connection = None

    def pair(self, code, name):
        status, _, answer = self.request("POST", "/api/v1/pair", {"code": code, "clientName": name})
        if status != 200:
            raise RuntimeError("pairing failed: %s %s" % (status, answer))
        self.token = answer["token"]
        return answer


def stop_and_drop(servers, work, psql, url, schema):
    """Ends a PostgreSQL scenario: stops the servers still running, removes the work directory, and drops the
    schema with the role HealthBridge made for its person (`hb_<schema>_<hash>`)."""
    import shutil
    for server in servers:
        try:
            server.stop()
        except Exception:  # noqa: BLE001 - already killed
            pass
    if not os.environ.get("HB_KEEP_WORK"): shutil.rmtree(work, ignore_errors=True)
    pattern = ("hb_" + schema + "_").replace("_", "\\_") + "%"
    sql = ("DROP SCHEMA IF EXISTS %s CASCADE; DO $$ DECLARE r text; BEGIN FOR r IN SELECT rolname FROM pg_roles "
           "WHERE rolname LIKE '%s' LOOP EXECUTE format('DROP OWNED BY %%I', r); EXECUTE format('DROP ROLE %%I', r); "
           "END LOOP; END $$;" % (schema, pattern))
    subprocess.run([psql, url.split("?")[0], "-q", "-c", sql], capture_output=True)
