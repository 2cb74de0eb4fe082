#!/usr/bin/env python3
"""OAuth for the MCP endpoint with the official Python client's own OAuth support (issue 26).

The client identifies itself with a Client ID Metadata Document: the test makes a self-signed certificate for
127.0.0.1 (openssl), serves `https://127.0.0.1:PORT/client.json` from a Python https server, and starts
`healthbridge serve --demo --mcp-public-url http://127.0.0.1:PORT --oauth-client-ca CERT` on loopback (no dynamic
registration). The client gets a 401, discovers the metadata, uses its `client_metadata_url` as client_id (the
server fetches the document over TLS, trusting the certificate through --oauth-client-ca), and opens the
authorization URL in headless Chromium, which is signed in to the console: the consent page (naming the client and
where its metadata came from) is answered there (read stepCount only). Then: a read of stepCount has data and one of
heartRate looks empty; a forced refresh rotates the refresh token; revocation makes the next call 401; after a
restart with another public URL (and --oauth-dynamic-registration) the token is refused (it was minted for another
resource) and a short dynamic-registration flow works; the audit log has the events and no token.

    python3 IntegrationTests/mcp_oauth.py .build/debug/healthbridge
"""
import asyncio
import http.server
import json
import os
import re
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata
from selenium import webdriver
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import WebDriverWait

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hbapi  # noqa: E402

BINARY = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else ".build/debug/healthbridge")
FAILED = []


def check(condition, what):
    print(("ok   " if condition else "FAIL ") + what, flush=True)
    if not condition:
        FAILED.append(what)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Memory(TokenStorage):
    def __init__(self):
        self.tokens, self.client = None, None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens):
        self.tokens = tokens

    async def get_client_info(self):
        return self.client

    async def set_client_info(self, client_info):
        self.client = client_info


class Callback(http.server.BaseHTTPRequestHandler):
    """The client's redirect URI: keeps the query of the last request."""
    received = None
    event = threading.Event()

    def do_GET(self):
        parsed = urllib.parse.urlparse(self.path)
        if parsed.path != "/callback":   # the browser asks for /favicon.ico too
            self.send_response(404)
            self.end_headers()
            return
        Callback.received = urllib.parse.parse_qs(parsed.query)
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.end_headers()
        self.wfile.write(b"done")
        Callback.event.set()

    def log_message(self, *args):
        pass


class ClientDocument(http.server.BaseHTTPRequestHandler):
    """The client's metadata document at https://127.0.0.1:PORT/client.json; keeps the paths asked for."""
    document = b""
    requests = []

    def do_GET(self):
        ClientDocument.requests.append(self.path)
        if self.path != "/client.json":
            self.send_response(404)
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(ClientDocument.document)))
        self.end_headers()
        self.wfile.write(ClientDocument.document)

    def log_message(self, *args):
        pass


def document_server(directory, callback_port):
    """A self-signed certificate for 127.0.0.1 and an https server of the client's metadata document: (server, url,
    certificate path)."""
    certificate, key = os.path.join(directory, "client-ca.pem"), os.path.join(directory, "client-key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                    "-keyout", key, "-out", certificate, "-days", "2", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-addext", "extendedKeyUsage=serverAuth"],
                   check=True, capture_output=True)
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), ClientDocument)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificate, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    url = "https://127.0.0.1:%d/client.json" % server.server_address[1]
    ClientDocument.document = json.dumps({
        "client_id": url, "client_name": "HealthBridge CI agent", "client_uri": "https://127.0.0.1/",
        "redirect_uris": ["http://127.0.0.1:%d/callback" % callback_port], "token_endpoint_auth_method": "none",
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"]}).encode()
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, url, certificate


def raw_mcp(url, token):
    """One initialize with `token`: the HTTP status and WWW-Authenticate."""
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "initialize",
                       "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                                  "clientInfo": {"name": "raw", "version": "1"}}}).encode()
    request = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/json", "Accept": "application/json, text/event-stream",
        "Authorization": "Bearer " + token})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.headers.get("WWW-Authenticate")
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("WWW-Authenticate")


def login_link(server, previous=None):
    """The last one-time console link `serve` printed (the log is appended to across restarts): one other than
    `previous`."""
    deadline = time.time() + 60
    while time.time() < deadline:
        with open(server.log.name, errors="replace") as handle:
            found = re.findall(r"HealthBridge console: (http://\S+)", handle.read())
        if found and found[-1] != previous:
            return found[-1]
        time.sleep(0.2)
    raise RuntimeError("serve printed no console link")


def browser(address):
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu", "--no-first-run",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost, EXCLUDE %s" % address):
        options.add_argument(argument)
    chromium = next((p for p in ("/usr/bin/chromium", "/usr/bin/chromium-browser") if os.path.exists(p)), None)
    if chromium:
        options.binary_location = chromium
    service = webdriver.ChromeService(executable_path="/usr/bin/chromedriver") if os.path.exists("/usr/bin/chromedriver") else None
    return webdriver.Chrome(options=options, service=service)


async def flow(url, driver, callback_port, state, client_metadata_url=None):
    """One whole client run: with `client_metadata_url` the client identifies itself by its metadata document,
    without it the client registers itself (RFC 7591)."""
    storage = Memory()
    leg = "(metadata document) " if client_metadata_url else "(dynamic registration) "

    async def redirect_handler(authorization_url):
        # The person's side: the browser follows /oauth/authorize to the console's consent page and answers it.
        Callback.event.clear()
        driver.get(authorization_url)
        try:
            WebDriverWait(driver, 20).until(EC.presence_of_element_located((By.ID, "consent-form")))
        except Exception:
            print("no consent form at %s: %s" % (driver.current_url, driver.find_element(By.TAG_NAME, "body").text[:300]))
            raise
        state["consent_page"] = driver.page_source
        for box in driver.find_elements(By.CSS_SELECTOR, "#consent-form input[type=checkbox]"):
            if box.is_selected():
                box.click()
        driver.find_element(By.CSS_SELECTOR, "#consent-read input[value=stepCount]").click()
        driver.find_element(By.ID, "consent-approve").click()

    async def callback_handler():
        await asyncio.get_running_loop().run_in_executor(None, Callback.event.wait, 30)
        query = Callback.received or {}
        return AuthorizationCodeResult(code=query.get("code", [""])[0], state=query.get("state", [None])[0],
                                       iss=query.get("iss", [None])[0])

    provider = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(client_name="mcp-oauth integration", token_endpoint_auth_method="none",
                                            redirect_uris=["http://127.0.0.1:%d/callback" % callback_port],
                                            grant_types=["authorization_code", "refresh_token"],
                                            response_types=["code"]),
        storage=storage, redirect_handler=redirect_handler, callback_handler=callback_handler,
        client_metadata_url=client_metadata_url)
    async with create_mcp_http_client(auth=provider) as http:
        async with streamable_http_client(url, http_client=http) as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write) as session:
                await session.initialize()
                page = state.get("consent_page", "")
                if client_metadata_url:
                    check(storage.client.client_id == client_metadata_url, leg + "the client_id is the document's URL")
                    # The name is the document's (the client's own metadata object says "mcp-oauth integration").
                    check("Allow" in page and "HealthBridge CI agent" in page and "mcp-oauth integration" not in page,
                          leg + "the consent page names the client as its document does")
                    check("fetched from <code>%s</code>" % client_metadata_url in page,
                          leg + "the consent page says where the client's metadata came from")
                else:
                    check("Allow" in page and "mcp-oauth integration" in page and "registered itself" in page,
                          leg + "the consent page names the registered client")
                steps = await session.call_tool("query_samples", {"type": "stepCount", "start": "7d"})
                check(not steps.is_error and steps.structured_content["count"] > 0, leg + "an approved type has data")
                heart = await session.call_tool("query_samples", {"type": "heartRate", "start": "7d"})
                check(not heart.is_error and heart.structured_content["count"] == 0, leg + "a type not approved looks empty")
                first = storage.tokens
                check(first is not None and first.refresh_token, leg + "the client holds an access and a refresh token")
                # Force a refresh on the next request (the client refreshes an expired token by itself).
                provider.context.token_expiry_time = time.time() - 1
                again = await session.call_tool("list_types", {})
                check(not again.is_error, leg + "a call after the refresh works")
                check(storage.tokens.refresh_token != first.refresh_token
                      and storage.tokens.access_token != first.access_token, leg + "the refresh rotated both tokens")
                state["first"], state["tokens"], state["client_id"] = first, storage.tokens, storage.client.client_id


def main():
    home = tempfile.mkdtemp(prefix="hb-oauth-")
    mcp_port, api_port, callback_port = free_port(), free_port(), free_port()
    url = "http://127.0.0.1:%d/mcp" % mcp_port
    documents, client_metadata_url, certificate = document_server(tempfile.mkdtemp(prefix="hb-oauth-ca-"), callback_port)
    common = ["--demo", "--mcp-port", str(mcp_port), "--api-port", str(api_port), "--api-bind", "127.0.0.1",
              "--no-advertise", "--oauth-client-ca", certificate]
    server = hbapi.Server(BINARY, home, common + ["--mcp-public-url", "http://127.0.0.1:%d" % mcp_port])
    callback = http.server.ThreadingHTTPServer(("127.0.0.1", callback_port), Callback)
    threading.Thread(target=callback.serve_forever, daemon=True).start()
    refused = subprocess.run([BINARY, "serve", "--home", home, "--oauth-client-ca", os.path.join(home, "missing.pem")],
                             capture_output=True, text=True, timeout=60)
    check(refused.returncode != 0 and "--oauth-client-ca: cannot read the CA file" in refused.stderr,
          "serve refuses a missing --oauth-client-ca file at start")
    driver = None
    state = {}
    try:
        login = login_link(server)
        with open(os.path.join(home, "console-address")) as handle:
            address = handle.read().strip()
        driver = browser(address)
        driver.get(login)
        check("Overview" in driver.title or "HealthBridge" in driver.title, "signed in to the console")

        status, challenge = raw_mcp(url, "not-a-token")
        check(status == 401 and 'resource_metadata="http://127.0.0.1:%d/.well-known/oauth-protected-resource/mcp"'
              % mcp_port in (challenge or ""), "a bad token gets 401 with the resource metadata")
        with urllib.request.urlopen("http://127.0.0.1:%d/.well-known/oauth-authorization-server" % mcp_port,
                                    timeout=10) as response:
            metadata = json.load(response)
        check(metadata.get("client_id_metadata_document_supported") is True and "registration_endpoint" not in metadata,
              "the server supports metadata documents and, without the flag, no registration")

        asyncio.run(flow(url, driver, callback_port, state, client_metadata_url=client_metadata_url))
        check("/client.json" in ClientDocument.requests, "the server fetched the client's metadata document over TLS")

        tokens = state["tokens"]
        status, _ = raw_mcp(url, state["first"].access_token)
        check(status == 200, "the previous access token still works until it expires (%d)" % status)
        revoke = urllib.request.Request("http://127.0.0.1:%d/oauth/revoke" % mcp_port, method="POST",
                                        data=urllib.parse.urlencode({"token": tokens.access_token,
                                                                     "client_id": state["client_id"]}).encode(),
                                        headers={"Content-Type": "application/x-www-form-urlencoded"})
        with urllib.request.urlopen(revoke, timeout=10) as response:
            check(response.status == 200, "revocation answers 200")
        status, challenge = raw_mcp(url, tokens.access_token)
        check(status == 401 and 'error="invalid_token"' in (challenge or ""), "a revoked token gets 401")

        # The same server under another public URL: a token minted for the first resource is refused.
        server.stop()
        other = "http://localhost:%d/mcp" % mcp_port
        server = hbapi.Server(BINARY, home, common + ["--mcp-public-url", "http://localhost:%d" % mcp_port,
                                                      "--oauth-dynamic-registration"])
        login = login_link(server, previous=login)
        status, challenge = raw_mcp(url, state["first"].access_token)
        check(status == 401 and "localhost" in (challenge or ""), "a token minted for another resource is refused")

        # A short leg with dynamic registration on (the flag): the client registers itself.
        driver.get(login)
        dynamic = {}
        asyncio.run(flow(other, driver, callback_port, dynamic))
        check(dynamic.get("client_id", "").startswith("hbc-"), "(dynamic registration) the client got a registered client_id")

        audit = subprocess.run([BINARY, "audit", "--json", "--limit", "500", "--home", home], capture_output=True,
                               text=True).stdout
        for action in ("oauth.consent", "token.issue", "token.refresh", "token.revoke", "TOKEN_AUDIENCE"):
            check(action in audit, "the audit log has %s" % action)
        secrets = [tokens.access_token, tokens.refresh_token, state["first"].access_token]
        secrets += [dynamic[k].access_token for k in ("first", "tokens") if k in dynamic]
        check(all(t not in audit for t in secrets), "the audit log holds no token")
    finally:
        if driver:
            driver.quit()
        callback.shutdown()
        documents.shutdown()
        server.stop()
    if FAILED:
        print("%d check(s) failed" % len(FAILED))
        sys.exit(1)
    print("mcp-oauth: all checks passed")


if __name__ == "__main__":
    main()
