# Sourced by the MCP scripts: creates .venv-mcp (the official Python `mcp` package and `jsonschema`) if needed and
# sets $venv to it. Run from the repository root.
venv=.venv-mcp
if [ ! -x "$venv/bin/python" ]; then
  python3 -m venv "$venv"
fi
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check mcp jsonschema
