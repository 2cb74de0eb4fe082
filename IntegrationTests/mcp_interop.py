#!/usr/bin/env python3
"""Interop check of `healthbridge mcp` with the official Python MCP client.

Against a store filled by `healthbridge demo`, over stdio: initializes, lists the tools, calls every tool and
checks every structured result against the tool's declared output schema (jsonschema), answers "how many steps did I
walk each day last week, and how did I sleep?", walks a paginated result to the end, triggers errors, and times 200
sequential tools/call round trips (best of up to three timings). Prints one line per check and `N passed, M failed`;
exits non-zero on any failure or when the 200 calls take longer than the limit.

    python IntegrationTests/mcp_interop.py --binary .build/debug/healthbridge --home /tmp/hb
"""

import argparse
import asyncio
import datetime as dt
import re
import sys
import time

import jsonschema
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

READ_TOOLS = {
    "list_types", "list_sources", "query_samples", "summarize", "sleep_nights", "list_workouts", "get_workout",
    "activity_summaries", "latest", "health_today", "energy_balance", "get_changes", "health_coverage",
}
WRITE_TOOLS = {"log_food", "log_weight", "log_water", "log_quantity", "log_workout", "delete_entries"}
EXPECTED_TOOLS = READ_TOOLS | WRITE_TOOLS

passed = 0
failed = 0


def check(name, condition, detail=""):
    global passed, failed
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


async def run(binary, home, limit):
    params = StdioServerParameters(command=binary, args=["mcp", "--home", home])
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            info = field(init, "serverInfo")
            check(f"initialize (protocol {field(init, 'protocolVersion')})", field(info, "name") == "healthbridge", info)

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
            changes = await c.ok("get_changes", {"types": ["dietaryWater"], "limit": 5})
            check("get_changes answers an anchor", bool(changes) and changes["anchor"].isdigit())
            await c.ok("list_types", label="server alive after errors")

            # 200 sequential calls, timed up to three times: the best counts, so that a moment of load on a shared
            # machine is not taken for a slow transport (the SDK's polling one takes about 2 s every time).
            timings = []
            for _attempt in range(3):
                started = time.perf_counter()
                for _ in range(200):
                    result = await session.call_tool("latest", {"type": "bodyMass"})
                    if field(result, "isError"):
                        check("timed call", False, text_of(result))
                        break
                timings.append(time.perf_counter() - started)
                print(f"200 sequential tools/call: {timings[-1]:.2f} s")
                if timings[-1] <= limit:
                    break
            best = min(timings)
            check(f"200 sequential tools/call within {limit} s", best <= limit, f"best {best:.2f} s")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--binary", required=True, help="the healthbridge executable")
    parser.add_argument("--home", required=True, help="a data directory filled by `healthbridge demo`")
    # The regression this catches is the SDK's polling stdio transport (10 ms per read: over 2 s for 200 calls). 1.5 s
    # leaves room for this 2-core VM, whose speed drifts by 2.4x from day to day (0.26 s one week, 0.81 s the next).
    parser.add_argument("--limit", type=float, default=1.5, help="seconds allowed for 200 sequential calls")
    args = parser.parse_args()
    try:
        asyncio.run(run(args.binary, args.home, args.limit))
    except Exception as error:  # a crash of the server or the session is a failure, not a traceback
        global failed
        failed += 1
        print(f"FAIL  session: {type(error).__name__}: {error}")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
