#!/usr/bin/env python3
"""A remote MCP agent on another machine of the LAN (run by IntegrationTests/netns-test.sh inside client namespace A),
against `healthbridge serve --mcp-bind 10.77.0.1 --mcp-tls` in the server namespace.

With the official Python MCP client (`mcp` 2.x, the venv of IntegrationTests/mcp-interop.sh), over https that trusts
only the server's certificate (an SSL context with the certificate file as its one CA, host-name check on the IP SAN):

  - in the 2025-11-25 era (initialize, a session) and in 2026-07-28 (server/discover, stateless): lists the tools, calls
    a read tool and gets data, lists and reads a resource;
  - the protected-resource metadata names the https resource;
  - a wrong token gets 401 whose WWW-Authenticate names the https resource metadata;
  - plain http to the TLS port gets no HTTP answer;
  - a client that does not trust the certificate (the system's CAs) fails the handshake;
  - with --consent-check (serve --oauth-dynamic-registration): a registered client's authorization request is sent on
    to the consent page of the console, which stays on the server's loopback.

Prints one line per check and exits non-zero on any failure.

    python netns_mcp_agent.py --url https://10.77.0.1:18081/mcp --cert HOME/tls/export-cert.pem --token-file HOME/mcp-token
"""
import argparse
import asyncio
import base64
import hashlib
import json
import os
import socket
import ssl
import sys
import urllib.parse

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

failures = []


def check(name, condition, detail=""):
    print(("ok   " if condition else "FAIL ") + "mcp agent: " + name + ((": " + str(detail)[:400]) if detail and not condition else ""))
    if not condition:
        failures.append(name)
    return condition


def field(obj, name):
    """An attribute by its wire name (the 2.x SDK spells them in snake_case)."""
    snake = "".join("_" + c.lower() if c.isupper() else c for c in name)
    for attribute in (snake, name):
        if obj is not None and hasattr(obj, attribute):
            return getattr(obj, attribute)
    return None


def trusting_context(cert):
    """TLS that trusts only the server's own certificate, with the host-name check on."""
    # With cafile, create_default_context loads that file alone (not the system's CAs).
    return ssl.create_default_context(cafile=cert)


async def era(url, cert, token, mode, label):
    client = httpx2.AsyncClient(verify=trusting_context(cert), headers={"Authorization": "Bearer " + token},
                                timeout=httpx2.Timeout(30, read=60))
    async with client:
        async with Client(streamable_http_client(url, http_client=client), mode=mode) as session:
            check(f"{label}: protocol {session.protocol_version}",
                  session.protocol_version == ("2026-07-28" if mode == "auto" else "2025-11-25"), session.protocol_version)
            tools = await session.list_tools()
            names = {tool.name for tool in tools.tools}
            check(f"{label}: lists the tools over https", {"health_today", "summarize", "list_types"} <= names, sorted(names))
            result = await session.call_tool("list_types", {})
            structured = field(result, "structuredContent") or {}
            types = structured.get("types") or []
            check(f"{label}: a read tool answers with data (list_types)",
                  not field(result, "isError") and len(types) > 0, result)
            resources = await session.list_resources()
            listed = list(resources.resources)
            check(f"{label}: lists resources", len(listed) > 0, resources)
            if listed:
                read = await session.read_resource(str(listed[0].uri))
                text = "".join(getattr(c, "text", "") or "" for c in read.contents)
                check(f"{label}: reads a resource ({listed[0].uri})", len(text) > 0, read)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True, help="https://HOST:PORT/mcp")
    parser.add_argument("--cert", required=True, help="the server's certificate (PEM), the one trust anchor")
    parser.add_argument("--token-file", required=True, help="the owner's MCP bearer token (file mcp-token)")
    parser.add_argument("--consent-check", action="store_true",
                        help="register a client (serve --oauth-dynamic-registration) and follow /oauth/authorize")
    args = parser.parse_args()
    token = open(args.token_file).read().strip()
    parts = urllib.parse.urlsplit(args.url)
    host, port = parts.hostname, parts.port
    origin = f"https://{parts.netloc}"

    # The two protocol eras over https, trusting only the server's certificate.
    for mode, label in (("legacy", "2025-11-25"), ("auto", "2026-07-28")):
        try:
            await era(args.url, args.cert, token, mode, label)
        except Exception as error:  # any failure of the session is a failed check, with its reason
            check(f"{label}: session over https", False, repr(error))

    async with httpx2.AsyncClient(verify=trusting_context(args.cert), timeout=30) as client:
        # OAuth metadata and the 401 name the https resource.
        metadata = (await client.get(origin + "/.well-known/oauth-protected-resource/mcp")).json()
        check("protected-resource metadata names the https resource", metadata.get("resource") == args.url, metadata)
        check("its authorization server is the https origin", metadata.get("authorization_servers") == [origin], metadata)
        server_metadata = (await client.get(origin + "/.well-known/oauth-authorization-server")).json()
        check("authorization-server metadata: https issuer and endpoints",
              server_metadata.get("issuer") == origin
              and str(server_metadata.get("authorization_endpoint", "")).startswith(origin + "/")
              and str(server_metadata.get("token_endpoint", "")).startswith(origin + "/"), server_metadata)
        wrong = await client.post(args.url, headers={"Authorization": "Bearer wrong-" + token[:8],
                                                     "Content-Type": "application/json",
                                                     "Accept": "application/json, text/event-stream"},
                                  content=json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}))
        challenge = wrong.headers.get("www-authenticate", "")
        check("a wrong token gets 401", wrong.status_code == 401, wrong.status_code)
        check("its WWW-Authenticate names the https resource metadata",
              f'resource_metadata="{origin}/.well-known/oauth-protected-resource/mcp"' in challenge, challenge)

        if args.consent_check:
            # An agent's authorization request goes on to the console's consent page, on the server's loopback.
            redirect_uri = "http://127.0.0.1:38555/callback"
            registered = await client.post(origin + "/oauth/register", json={
                "client_name": "netns agent", "redirect_uris": [redirect_uri], "token_endpoint_auth_method": "none"})
            client_id = registered.json().get("client_id") if registered.status_code in (200, 201) else None
            check("dynamic registration over https", client_id is not None, (registered.status_code, registered.text))
            verifier = base64.urlsafe_b64encode(os.urandom(32)).rstrip(b"=").decode()
            challenge_s256 = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
            authorize = await client.get(origin + "/oauth/authorize", params={
                "client_id": client_id or "", "redirect_uri": redirect_uri, "response_type": "code",
                "code_challenge": challenge_s256, "code_challenge_method": "S256", "state": "netns",
                "resource": args.url, "scope": "health:read"})
            location = authorize.headers.get("location", "")
            consent = urllib.parse.urlsplit(location)
            check("/oauth/authorize sends the person to the console's consent page on the server's loopback",
                  authorize.status_code == 302 and consent.scheme == "http" and (consent.hostname or "").startswith("127.")
                  and consent.path == "/consent", (authorize.status_code, location))

    # Plain http to the TLS port: no HTTP answer.
    try:
        with socket.create_connection((host, port), timeout=10) as plain:
            plain.sendall(f"GET /mcp HTTP/1.1\r\nHost: {parts.netloc}\r\nConnection: close\r\n\r\n".encode())
            answer = b""
            while True:
                chunk = plain.recv(4096)
                if not chunk:
                    break
                answer += chunk
        check("plain http to the TLS port gets no HTTP answer", not answer.startswith(b"HTTP/"), answer[:80])
    except OSError as error:
        check("plain http to the TLS port gets no HTTP answer", True, repr(error))
    try:
        async with httpx2.AsyncClient(timeout=10) as client:
            response = await client.get(f"http://{parts.netloc}/mcp")
        check("plain http is refused (an http:// client)", False, response.status_code)
    except httpx2.HTTPError as error:
        check("plain http is refused (an http:// client)", True, repr(error))

    # A client that does not trust the certificate (the system's CAs only) fails the handshake.
    try:
        with socket.create_connection((host, port), timeout=10) as raw:
            with ssl.create_default_context().wrap_socket(raw, server_hostname=host):
                pass
        check("a client that does not trust the certificate fails the handshake", False, "handshake succeeded")
    except ssl.SSLCertVerificationError as error:
        check("a client that does not trust the certificate fails the handshake", True, repr(error))
    # The trusting context passes the same handshake, host name (the IP SAN) checked.
    try:
        with socket.create_connection((host, port), timeout=10) as raw:
            with trusting_context(args.cert).wrap_socket(raw, server_hostname=host) as tls:
                check(f"trusting only the certificate, the handshake checks the host name {host} ({tls.version()})",
                      True)
    except (OSError, ssl.SSLError) as error:
        check(f"trusting only the certificate, the handshake checks the host name {host}", False, repr(error))

    print(f"mcp agent: {len(failures)} failed")
    sys.exit(1 if failures else 0)


asyncio.run(main())
