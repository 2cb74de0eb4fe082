#!/usr/bin/env python3
"""The comparison server of the MCP benchmark: a plain Python FastMCP server (the `mcp` package from PyPI) with one
`latest` tool answering from the same HealthBridge SQLite store, over stdio.

    python scripts/fastmcp_latest.py /path/to/health.sqlite

It does what HealthBridge's `latest` does for a quantity type: the newest sample of the type (by start date), its
value and unit, dates, source and age, as structured content plus a line of text.
"""
import datetime as dt
import sqlite3
import sys

try:  # mcp 1.x
    from mcp.server.fastmcp import FastMCP
except ModuleNotFoundError:  # mcp 2.x renamed FastMCP to MCPServer
    from mcp.server.mcpserver import MCPServer as FastMCP

db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True, check_same_thread=False)
server = FastMCP("python-latest")


def iso(seconds):
    return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).isoformat().replace("+00:00", "Z")


@server.tool()
def latest(type: str) -> dict:
    """The most recent sample of a type (e.g. bodyMass), with its value, unit, dates, source and age."""
    row = db.execute(
        """SELECT s.start, s."end", s.value, u.unit, src.name FROM samples s
           JOIN types t ON t.id = s.type_id
           LEFT JOIN units u ON u.id = s.unit_id
           JOIN sources src ON src.id = s.source_id
           WHERE t.identifier = ? ORDER BY s.start DESC, s.seq DESC LIMIT 1""", (type,)).fetchone()
    if row is None:
        return {"type": type, "found": False, "time_zone": "UTC"}
    start, end, value, unit, source = row
    age = (dt.datetime.now(dt.timezone.utc).timestamp() - end) / 3600
    return {"type": type, "found": True, "value": round(value, 4), "unit": unit, "start": iso(start), "end": iso(end),
            "source": source, "age_hours": round(age, 2), "time_zone": "UTC"}


if __name__ == "__main__":
    server.run()
