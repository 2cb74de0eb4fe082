#!/usr/bin/env python3
"""Interop check of `healthbridge mcp` with the official Python MCP client.

Against a store filled by `healthbridge demo`, over stdio: initializes, lists the tools, calls every tool and
checks every structured result against the tool's declared output schema (jsonschema), answers "how many steps did I
walk each day last week, and how did I sleep?", walks a paginated result to the end, triggers errors, lists and gets
the prompts, lists and reads the resources, subscribes to two and sees a `log_quantity` write within 1 s, and times 200
sequential tools/call round trips (best of up to three timings). Then the prompts, resources and push again over
streamable HTTP, against `healthbridge serve` with MCP on a free loopback port. Then the same checks in MCP 2026-07-28
(the client's default `mode="auto"`: server/discover, no session), over stdio and over HTTP, with push through a
subscriptions/listen stream and a delete_entries that answers input_required (a confirmation form) before it deletes.
Prints one line per check and `N passed, M failed`;
exits non-zero on any failure or when the 200 calls take longer than the limit.

    python IntegrationTests/mcp_interop.py --binary .build/debug/healthbridge --home /tmp/hb
"""

import argparse
import asyncio
import datetime as dt
import json
import re
import subprocess
import sys
import socket
import time
import warnings

import jsonschema
import mcp_types
from mcp import Client, ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.client.subscriptions import ResourceUpdated

# resources/subscribe is the 2025 protocol's push, which this checks on purpose (2026-07-28 has subscriptions/listen).
warnings.filterwarnings("ignore", message="resources/(un)?subscribe is removed")

READ_TOOLS = {
    "list_types", "list_sources", "query_samples", "summarize", "sleep_nights", "list_workouts", "get_workout",
    "activity_summaries", "latest", "health_today", "energy_balance", "get_changes", "health_coverage",
}
WRITE_TOOLS = {"log_food", "log_weight", "log_water", "log_quantity", "log_workout", "delete_entries"}
EXPECTED_TOOLS = READ_TOOLS | WRITE_TOOLS

passed = 0
failed = 0
scope = ""  # prefixed to the checks' names: "" for stdio, "http: " for the run against `serve`


def check(name, condition, detail=""):
    global passed, failed
    name = scope + name
    if condition:
        passed += 1
        print(f"ok    {name}")
    else:
        failed += 1
        print(f"FAIL  {name}{': ' + str(detail) if detail else ''}")
    return condition


def field(obj, name):
    """An attribute by its wire name: the 2.x SDK spells them in snake_case, 1.x as on the wire."""
    if obj is None:
        return None
    snake = re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), name)
    for attribute in (snake, name):
        if hasattr(obj, attribute):
            return getattr(obj, attribute)
    return None


def text_of(result):
    return "\n".join(c.text for c in result.content if getattr(c, "type", "") == "text")


def percentiles(latencies):
    """p50 and p99 of per-call latencies, in ms."""
    ordered = sorted(latencies)
    if not ordered:
        return "no calls"
    pick = lambda q: ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))] * 1000
    return f"p50 {pick(0.50):.2f} ms, p99 {pick(0.99):.2f} ms"


async def time_calls(session, label):
    """200 sequential `latest` calls, printed with their p50/p99 (a figure, not a check)."""
    latencies = []
    started = time.perf_counter()
    for _ in range(200):
        before = time.perf_counter()
        await session.call_tool("latest", {"type": "bodyMass"})
        latencies.append(time.perf_counter() - before)
    print(f"{label}: 200 sequential tools/call: {time.perf_counter() - started:.2f} s ({percentiles(latencies)})")


class Checker:
    def __init__(self, session, schemas):
        self.session = session
        self.schemas = schemas

    async def ok(self, tool, arguments=None, label=None):
        """Calls a tool that must succeed; validates its structured content. Returns it (or None)."""
        label = label or f"{tool} {arguments or {}}"
        try:
            result = await self.session.call_tool(tool, arguments or {})
        except Exception as error:  # the client raises when structured content does not match the schema
            check(label, False, f"{type(error).__name__}: {error}")
            return None
        if not check(label + " succeeds", not field(result, "isError"), text_of(result)[:300]):
            return None
        structured = field(result, "structuredContent")
        if not check(label + " has structuredContent", isinstance(structured, dict)):
            return None
        try:
            jsonschema.validate(structured, self.schemas[tool])
            check(label + " matches outputSchema", True)
        except jsonschema.ValidationError as error:
            check(label + " matches outputSchema", False, error.message)
        check(label + " has a text rendering", len(text_of(result)) > 0)
        return structured

    async def error(self, tool, arguments, code, label):
        result = await self.session.call_tool(tool, arguments)
        structured = field(result, "structuredContent") or {}
        check(label, field(result, "isError") and text_of(result).startswith(code + ": ")
              and structured.get("error", {}).get("code") == code,
              f"isError={field(result, 'isError')} text={text_of(result)[:200]}")
        return structured.get("error", {}).get("message", "")


class Updates:
    """The `notifications/resources/updated` the session receives, with when each arrived."""

    def __init__(self):
        self.received = []
        self.event = asyncio.Event()

    async def handler(self, message):
        notification = getattr(message, "root", message)
        if getattr(notification, "method", "") == "notifications/resources/updated":
            self.received.append((str(notification.params.uri), time.perf_counter()))
            self.event.set()

    async def wait_for(self, uri, since, timeout):
        """Seconds from `since` until an update of `uri` arrived, or None when none arrives within `timeout`."""
        deadline = since + timeout
        while True:
            for got, at in self.received:
                if got == uri and at >= since:
                    return at - since
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                return None
            self.event.clear()
            try:
                await asyncio.wait_for(self.event.wait(), remaining)
            except asyncio.TimeoutError:
                return None


async def prompts_and_resources(session, init, binary, home, updates):
    """Prompts, resources and push (2025 protocol): list and get, list and read, subscribe and see a write."""
    capabilities = field(init, "capabilities")
    check("capabilities: prompts, resources with subscribe", field(capabilities, "prompts") is not None
          and field(field(capabilities, "resources"), "subscribe") is True, capabilities)
    prompts = await session.list_prompts()
    names = [prompt.name for prompt in prompts.prompts]
    check("prompts/list has the five prompts", names == ["daily_check_in", "weekly_trends", "sleep_report",
                                                         "training_load", "doctor_visit_summary"], names)
    trends = await session.get_prompt("weekly_trends")
    text = trends.messages[0].content.text if trends.messages else ""
    check("prompts/get weekly_trends: one user message with the week's numbers",
          len(trends.messages) == 1 and trends.messages[0].role == "user" and "steps total" in text, text[:300])
    steps = await session.call_tool("summarize", {"type": "stepCount", "start": "7d"})
    buckets = (field(steps, "structuredContent") or {}).get("buckets", [])
    check("weekly_trends carries summarize's daily merged steps",
          bool(buckets) and all(f"{round(b['sum']):,}" in text for b in buckets if b.get("sum") is not None), text[:400])
    doctor = await session.get_prompt("doctor_visit_summary", {"days": "30"})
    check("prompts/get doctor_visit_summary days=30", "the last 30 days" in doctor.messages[0].content.text)
    try:
        await session.get_prompt("doctor_visit_summary", {"days": "many"})
        check("an invalid prompt argument is refused", False, "no error")
    except Exception as error:  # McpError
        check("an invalid prompt argument is refused (invalid params)",
              getattr(getattr(error, "error", None), "code", None) == -32602 and "days must be" in str(error), error)

    resources = await session.list_resources()
    listed = {str(r.uri): r for r in resources.resources}
    check("resources/list: types, sources, today", set(listed) == {"healthbridge://types", "healthbridge://sources",
                                                                   "healthbridge://today"}, set(listed))
    check("resources carry mimeType and size", all(field(r, "mimeType") == "application/json" and (r.size or 0) > 0
                                                   for r in listed.values()))
    templates = await session.list_resource_templates()
    check("resources/templates/list: summary and latest",
          sorted(field(t, "uriTemplate") for t in field(templates, "resourceTemplates"))
          == ["healthbridge://latest/{type}", "healthbridge://summary/{type}"])
    read = await session.read_resource("healthbridge://types")
    body = read.contents[0].text
    check("resources/read types: list_types' JSON, size as listed",
          '"types"' in body and len(body.encode()) == listed["healthbridge://types"].size)
    summary = json.loads((await session.read_resource("healthbridge://summary/stepCount")).contents[0].text)
    check("resources/read summary/stepCount: 30 merged daily buckets",
          summary.get("merged") is True and len(summary.get("buckets", [])) == 30)
    try:
        await session.read_resource("healthbridge://summary/stepz")
        check("an unknown type is refused", False, "no error")
    except Exception as error:
        check("resources/read of an unknown type is a clear error",
              getattr(getattr(error, "error", None), "code", None) == -32602 and "HEALTH_INVALID_TYPE" in str(error), error)

    # Push: subscribe, write through log_quantity (the owner allows it), the update arrives within 1 s.
    subprocess.run([binary, "grants", "mcp", "--allow-write", "bloodGlucose", "--home", home], check=True,
                   stdout=subprocess.DEVNULL)
    if updates is None:
        await listen_push(session, binary, home)
        return
    await session.subscribe_resource("healthbridge://latest/bloodGlucose")
    await session.subscribe_resource("healthbridge://types")
    started = time.perf_counter()
    written = await session.call_tool("log_quantity", {"type": "bloodGlucose", "value": 5.4, "unit": "mmol/L"})
    check("log_quantity bloodGlucose with the grant", not field(written, "isError"), text_of(written)[:200])
    for uri in ("healthbridge://latest/bloodGlucose", "healthbridge://types"):
        elapsed = await updates.wait_for(uri, started, 1.0)
        check(f"notifications/resources/updated {uri} within 1 s",
              elapsed is not None and elapsed <= 1.0, f"{elapsed}")
        if elapsed is not None:
            print(f"      push latency {uri}: {elapsed * 1000:.0f} ms (from before the call)")
    latest = json.loads((await session.read_resource("healthbridge://latest/bloodGlucose")).contents[0].text)
    check("the updated resource reads the new value", latest.get("found") is True, latest)
    # A commit of another process on the same data directory (the CLI) is pushed too.
    started = time.perf_counter()
    subprocess.run([binary, "log", "bloodGlucose", "5.9", "--unit", "mmol/L", "--home", home], check=True,
                   stdout=subprocess.DEVNULL)
    committed = time.perf_counter()
    elapsed = await updates.wait_for("healthbridge://latest/bloodGlucose", committed, 1.0)
    if elapsed is None:  # the update may have come before the CLI process exited
        elapsed = await updates.wait_for("healthbridge://latest/bloodGlucose", started, 0.0)
        elapsed = None if elapsed is None else 0.0
    check("another process's write is pushed within 1 s of its commit", elapsed is not None, elapsed)
    await session.unsubscribe_resource("healthbridge://latest/bloodGlucose")
    await session.unsubscribe_resource("healthbridge://types")
    before = len(updates.received)
    await session.call_tool("log_quantity", {"type": "bloodGlucose", "value": 5.6, "unit": "mmol/L"})
    await asyncio.sleep(0.5)
    check("no update after unsubscribing", len(updates.received) == before, updates.received[before:])


async def listen_push(client, binary, home):
    """Push in the stateless era: a subscriptions/listen stream (acknowledged first, every frame tagged with its id)
    sees a log_quantity write within 1 s, and a write of another process (the CLI) within 1 s of its commit."""
    uris = ["healthbridge://latest/bloodGlucose", "healthbridge://types"]
    async with client.listen(resource_subscriptions=uris) as subscription:
        honored = sorted(field(subscription.honored, "resourceSubscriptions") or [])
        check("subscriptions/listen acknowledged with both resources", honored == sorted(uris), honored)
        seen = {}

        async def collect(wanted, since):
            async for event in subscription:
                if isinstance(event, ResourceUpdated) and event.uri in wanted:
                    seen.setdefault(event.uri, time.perf_counter() - since)
                    if all(uri in seen for uri in wanted):
                        return

        started = time.perf_counter()
        written = await client.call_tool("log_quantity", {"type": "bloodGlucose", "value": 5.4, "unit": "mmol/L"})
        check("log_quantity bloodGlucose with the grant", not field(written, "isError"), text_of(written)[:200])
        try:
            await asyncio.wait_for(collect(uris, started), 2.0)
        except asyncio.TimeoutError:
            pass
        for uri in uris:
            elapsed = seen.get(uri)
            check(f"listen: notifications/resources/updated {uri} within 1 s", elapsed is not None and elapsed <= 1.0,
                  f"{elapsed}")
            if elapsed is not None:
                print(f"      {scope}listen push latency {uri}: {elapsed * 1000:.0f} ms (from before the call)")
        latest = json.loads((await client.read_resource("healthbridge://latest/bloodGlucose")).contents[0].text)
        check("the updated resource reads the new value", latest.get("found") is True, latest)
        seen.clear()
        started = time.perf_counter()
        subprocess.run([binary, "log", "bloodGlucose", "5.9", "--unit", "mmol/L", "--home", home], check=True,
                       stdout=subprocess.DEVNULL)
        committed = time.perf_counter()
        try:
            await asyncio.wait_for(collect(uris[:1], started), 2.0)
        except asyncio.TimeoutError:
            pass
        elapsed = seen.get(uris[0])
        # From the CLI's exit (after its commit); an update before the exit counts as 0.
        check("listen: another process's write is pushed within 1 s of its commit",
              elapsed is not None and elapsed - (committed - started) <= 1.0, elapsed)


class Confirmer:
    """The person behind the client: answers each confirmation the server asks (form elicitation) from a script."""

    def __init__(self):
        self.answers = []
        self.asked = []

    async def __call__(self, context, params):
        self.asked.append(params.message)
        action = self.answers.pop(0) if self.answers else "decline"
        if action == "accept":
            return mcp_types.ElicitResult(action="accept", content={"confirm": True})
        return mcp_types.ElicitResult(action=action)


async def delete_confirmation(client, confirmer, binary, home):
    """delete_entries in the stateless era: input_required with a confirmation form first; declined, nothing is
    deleted; accepted, the entry is."""
    subprocess.run([binary, "grants", "mcp", "--allow-write", "dietaryWater", "--home", home], check=True,
                   stdout=subprocess.DEVNULL)
    logged = await client.call_tool("log_water", {"value": 250, "log_id": "interop-delete"})
    check("log_water with the grant", not field(logged, "isError"), text_of(logged)[:200])
    confirmer.answers = ["decline"]
    declined = await client.call_tool("delete_entries", {"log_id": "interop-delete"})
    check("delete_entries asks the person first (input_required → elicitation)",
          len(confirmer.asked) == 1 and "interop-delete" in confirmer.asked[0], confirmer.asked)
    check("declined: a tool error, nothing deleted", field(declined, "isError") is True, text_of(declined)[:200])
    confirmer.answers = ["accept"]
    deleted = await client.call_tool("delete_entries", {"log_id": "interop-delete"})
    structured = field(deleted, "structuredContent") or {}
    check("accepted: the entry is deleted", not field(deleted, "isError") and structured.get("deleted") == 1,
          text_of(deleted)[:200])
    check("the confirmation was asked again for the second call", len(confirmer.asked) == 2, confirmer.asked)


async def modern_session_checks(client, confirmer, binary, home, limit):
    """The stateless era through the official client's auto negotiation: discover, then the same checks as 2025."""
    discover = client.session.discover_result
    check(f"server/discover (protocol {client.protocol_version})",
          client.protocol_version == "2026-07-28" and discover is not None
          and "2026-07-28" in field(discover, "supportedVersions") and field(client.server_info, "name") == "healthbridge",
          discover)
    await tool_checks(client, discover, binary, home, limit, None)
    await delete_confirmation(client, confirmer, binary, home)


async def run_modern(binary, home, limit):
    """MCP 2026-07-28 over stdio: the official client in its default mode (auto) discovers and stays stateless."""
    global scope
    scope = "2026 stdio: "
    subprocess.run([binary, "grants", "mcp", "--reset", "--home", home], check=True, stdout=subprocess.DEVNULL)
    confirmer = Confirmer()
    params = StdioServerParameters(command=binary, args=["mcp", "--home", home])
    try:
        async with Client(params, mode="auto", elicitation_callback=confirmer) as client:
            await modern_session_checks(client, confirmer, binary, home, limit)
    finally:
        scope = ""


async def run(binary, home, limit):
    params = StdioServerParameters(command=binary, args=["mcp", "--home", home])
    updates = Updates()
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write, message_handler=updates.handler) as session:
            init = await session.initialize()
            info = field(init, "serverInfo")
            check(f"initialize (protocol {field(init, 'protocolVersion')})", field(info, "name") == "healthbridge", info)
            await tool_checks(session, init, binary, home, limit, updates)


async def tool_checks(session, init, binary, home, limit, updates):
    """Every tool, the errors, the prompts, resources and push, and the 200 timed calls: the same checks in both eras
    (`session` a 2025 ClientSession, or a 2026-07-28 Client; `updates` None in the stateless era, whose push is
    subscriptions/listen)."""
    listed = await session.list_tools()
    names = {tool.name for tool in listed.tools}
    check("tools/list has the read and write tools", names == EXPECTED_TOOLS, names ^ EXPECTED_TOOLS)
    schemas = {tool.name: field(tool, "outputSchema") for tool in listed.tools}
    for tool in listed.tools:
        check(f"{tool.name}: outputSchema, input schema, honest read-only hint",
              schemas[tool.name] and field(tool, "inputSchema").get("type") == "object"
              and field(field(tool, "annotations"), "readOnlyHint") is (tool.name in READ_TOOLS))
        jsonschema.Draft202012Validator.check_schema(schemas[tool.name])
    c = Checker(session, schemas)

    # Every tool once.
    types = await c.ok("list_types")
    today = dt.date.fromisoformat((types or {}).get("now", dt.date.today().isoformat())[:10])
    check("list_types lists stepCount", any(t["type"] == "stepCount" for t in (types or {}).get("types", [])))
    sources = await c.ok("list_sources", {"type": "stepCount"})
    check("stepCount priority: watch first", bool(sources) and "Watch" in sources["priority_order"][0])
    await c.ok("list_sources")
    samples = await c.ok("query_samples", {"type": "heartRate", "limit": 5})
    check("query_samples gives a cursor", bool(samples) and samples["has_more"] and samples.get("next_cursor"))
    await c.ok("summarize", {"type": "heartRate", "start": "2w", "interval": "week",
                             "statistics": ["average", "min", "max"]})
    await c.ok("summarize", {"type": "stepCount", "start": "3d", "by_source": True})
    await c.ok("health_coverage", {"type": "stepCount", "start": "7d"})
    await c.ok("summarize", {"type": "stepCount", "start": "7d", "contributions": True})
    workouts = await c.ok("list_workouts", {"activity_type": "running", "limit": 3})
    if workouts and workouts["workouts"]:
        detail = await c.ok("get_workout", {"uuid": workouts["workouts"][0]["uuid"], "route_limit": 20})
        check("get_workout route summary and paged points",
              bool(detail) and detail["route"]["point_count"] > 20 and len(detail["route_points"]) == 20
              and detail.get("next_route_offset") == 20)
    else:
        check("list_workouts finds runs", False, workouts)
    activity = await c.ok("activity_summaries")
    check("activity_summaries: empty list with a note on demo data",
          bool(activity) and activity["count"] == 0 and "note" in activity)
    weight = await c.ok("latest", {"type": "bodyMass"})
    check("latest bodyMass in kg", bool(weight) and weight["found"] and weight["unit"] == "kg")
    glance = await c.ok("health_today")
    check("health_today: steps merged", bool(glance) and glance["merged"] is True)
    energy = await c.ok("energy_balance", {"start": "7d"})
    check("energy_balance: burned = active + resting", bool(energy) and all(
        day.get("burned_kcal") is None
        or abs(day["burned_kcal"] - day["active_kcal"] - day["basal_kcal"]) < 1e-6 for day in energy["days"]))

    # "How many steps did I walk each day last week, and how did I sleep?"
    monday = today - dt.timedelta(days=today.weekday() + 7)
    week = {"start": monday.isoformat(), "end": (monday + dt.timedelta(days=7)).isoformat()}
    steps = await c.ok("summarize", {"type": "stepCount", **week}, label="steps per day last week")
    check("steps last week: 7 daily merged totals, priority stated",
          bool(steps) and len(steps["buckets"]) == 7 and steps["merged"] is True
          and len(steps["source_priority"]) >= 2 and all("sum" in b for b in steps["buckets"]), steps)
    nights = await c.ok("sleep_nights", week, label="sleep last week")
    check("sleep last week: 7 nights", bool(nights) and nights["count"] == 7, nights and nights["count"])
    if steps and nights:
        print("      last week:", ", ".join(f"{b['date']} {round(b['sum'])}" for b in steps["buckets"]))
        print("      sleep:", ", ".join(f"{n['date']} {n['asleep_minutes'] / 60:.1f} h" for n in nights["nights"]))

    # A paginated result walked to the end.
    heart_total = next((t["count"] for t in types["types"] if t["type"] == "heartRate"), 0) if types else 0
    seen, pages = set(), 0
    arguments = {"type": "heartRate", "start": "30d", "limit": 1000, "order": "asc"}
    while True:
        page = await c.ok("query_samples", arguments, label=f"query_samples page {pages + 1}")
        if page is None:
            break
        pages += 1
        for sample in page["samples"]:
            seen.add((sample["start"], sample["source"]))
        if not page["has_more"]:
            break
        arguments = {"cursor": page["next_cursor"]}
    check(f"pagination: {pages} pages, {len(seen)} samples, no duplicates, all of them",
          pages > 1 and len(seen) == heart_total, f"{len(seen)} vs {heart_total}")

    # Errors.
    message = await c.error("summarize", {"type": "stepcont"}, "HEALTH_INVALID_TYPE", "unknown type is a tool error")
    check("unknown type suggests the right one", "stepCount" in message, message)
    await c.error("summarize", {"type": "stepCount", "start": "someday"}, "HEALTH_INVALID_RANGE", "bad date")
    await c.error("summarize", {"type": "stepCount", "statistics": ["average"]}, "HEALTH_NO_SUMMARY",
                  "average of a cumulative type")
    await c.error("query_samples", {"cursor": "garbage"}, "HEALTH_INVALID_ARGUMENT", "bad cursor")
    # Writes need the owner's consent: refused by default, with the command that would allow them.
    message = await c.error("log_water", {"value": 250, "log_id": "interop-1"}, "HEALTH_NOT_AUTHORIZED",
                            "a write without a grant is refused")
    check("the refusal names the grants command", "healthbridge grants" in (message or ""), message)
    # The generic quantity log is under the same consent: the write grant is checked before the unit.
    await c.error("log_quantity", {"type": "bloodGlucose", "value": 7.8, "unit": "kg"}, "HEALTH_NOT_AUTHORIZED",
                  "glucose without a write grant is refused")
    await prompts_and_resources(session, init, binary, home, updates)
    changes = await c.ok("get_changes", {"types": ["dietaryWater"], "limit": 5})
    check("get_changes answers an anchor", bool(changes) and changes["anchor"].isdigit())
    await c.ok("list_types", label="server alive after errors")

    # 200 sequential calls, timed up to three times: the best counts, so that a moment of load on a shared
    # machine is not taken for a slow transport (the SDK's polling one takes about 2 s every time).
    timings = []
    for _attempt in range(3):
        started = time.perf_counter()
        latencies = []
        for _ in range(200):
            before = time.perf_counter()
            result = await session.call_tool("latest", {"type": "bodyMass"})
            latencies.append(time.perf_counter() - before)
            if field(result, "isError"):
                check("timed call", False, text_of(result))
                break
        timings.append(time.perf_counter() - started)
        print(f"{scope}200 sequential tools/call: {timings[-1]:.2f} s ({percentiles(latencies)})")
        if timings[-1] <= limit:
            break
    best = min(timings)
    check(f"200 sequential tools/call within {limit} s", best <= limit, f"best {best:.2f} s")


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


async def run_http(binary, home, limit):
    """Prompts, resources and push over streamable HTTP: `serve` with MCP on a loopback port, the client's GET stream
    carrying the updates."""
    global scope
    port = free_port()
    server = subprocess.Popen([binary, "serve", "--home", home, "--mcp-port", str(port), "--no-api", "--no-console",
                               "--no-advertise"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        deadline = time.perf_counter() + 30
        while time.perf_counter() < deadline and server.poll() is None:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                await asyncio.sleep(0.1)
        if not check("http: serve listens", server.poll() is None, server.poll()):
            return
        scope = "http: "
        updates = Updates()
        async with streamable_http_client(f"http://127.0.0.1:{port}/mcp") as streams:
            read, write = streams[0], streams[1]
            async with ClientSession(read, write, message_handler=updates.handler) as session:
                init = await session.initialize()
                check(f"initialize (protocol {field(init, 'protocolVersion')})",
                      field(field(init, "serverInfo"), "name") == "healthbridge")
                await prompts_and_resources(session, init, binary, home, updates)
                await time_calls(session, "http 2025")
        scope = "2026 http: "
        subprocess.run([binary, "grants", "mcp", "--reset", "--home", home], check=True, stdout=subprocess.DEVNULL)
        confirmer = Confirmer()
        async with Client(f"http://127.0.0.1:{port}/mcp", mode="auto", elicitation_callback=confirmer) as client:
            await modern_session_checks(client, confirmer, binary, home, limit)
    finally:
        scope = ""
        server.terminate()
        try:
            server.wait(timeout=10)
        except subprocess.TimeoutExpired:
            server.kill()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the healthbridge executable")
    parser.add_argument("--home", required=True, help="a data directory filled by `healthbridge demo`")
    # The regression this catches is the SDK's polling stdio transport (10 ms per read: over 2 s for 200 calls). 1.5 s
    # leaves room for this 2-core VM, whose speed drifts by 2.4x from day to day (0.26 s one week, 0.81 s the next).
    parser.add_argument("--limit", type=float, default=1.5, help="seconds allowed for 200 sequential calls")
    # Over HTTP every call is a request of its own (the client's httpx round trip is most of it).
    parser.add_argument("--http-limit", type=float, default=4.0, help="the same over streamable HTTP (2026-07-28)")
    args = parser.parse_args()
    try:
        asyncio.run(run(args.binary, args.home, args.limit))
    except Exception as error:  # a crash of the server or the session is a failure, not a traceback
        global failed
        failed += 1
        print(f"FAIL  session: {type(error).__name__}: {error}")
    try:
        asyncio.run(run_modern(args.binary, args.home, args.limit))
    except Exception as error:
        failed += 1
        print(f"FAIL  2026 stdio session: {type(error).__name__}: {error}")
    try:
        asyncio.run(run_http(args.binary, args.home, args.http_limit))
    except Exception as error:
        failed += 1
        print(f"FAIL  http session: {type(error).__name__}: {error}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
