"""A third-party MCP server for the harness tests, on stdio with nothing
but Python's own library: `lines` returns N lines (`line 1` ...) as one
text block, `json_document` a JSON document of N items."""

import json
import sys

TOOLS = [
    {"name": "lines", "description": "Returns n lines of text.",
     "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}},
    {"name": "json_document", "description": "Returns a JSON document of n items.",
     "inputSchema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}},
]


def lines(n):
    return "".join(f"line {i}\n" for i in range(1, n + 1))


def document(n):
    return json.dumps({"items": [{"id": i, "name": f"item {i}"} for i in range(n)]})


def answer(request):
    method, params = request.get("method"), request.get("params") or {}
    if method == "initialize":
        return {"protocolVersion": params.get("protocolVersion", "2025-06-18"),
                "capabilities": {"tools": {}}, "serverInfo": {"name": "third", "version": "1.0.0"}}
    if method == "tools/list":
        return {"tools": TOOLS}
    if method == "tools/call":
        name, n = params.get("name"), int((params.get("arguments") or {}).get("n", 10))
        text = lines(n) if name == "lines" else document(n)
        return {"content": [{"type": "text", "text": text}], "isError": False}
    if method == "ping":
        return {}
    return None


def main():
    for line in sys.stdin:
        try:
            request = json.loads(line)
        except ValueError:
            continue
        if "id" not in request:
            continue
        result = answer(request)
        if result is None:
            reply = {"jsonrpc": "2.0", "id": request["id"], "error": {"code": -32601, "message": "no such method"}}
        else:
            reply = {"jsonrpc": "2.0", "id": request["id"], "result": result}
        sys.stdout.write(json.dumps(reply) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
