"""A scripted model on 127.0.0.1 for the harness tests.

It speaks the wire formats the harnesses use (Anthropic Messages with SSE,
OpenAI Responses, Gemini generateContent, OpenAI chat completions): each
request that offers the shell tool is answered with the next call of the
script, or with a closing text once the script is done; every request body
is kept, so that a test reads what the harness sent back as the tool's
result.
"""

import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Script:
    """The calls the model makes, in order, and the requests it received."""

    def __init__(self):
        self.lock = threading.Lock()
        self.calls = []
        self.requests = []

    def reset(self, calls):
        with self.lock:
            self.calls = list(calls)
            self.requests = []

    def answered(self, n_results):
        """The call to make after n_results tool results, or None."""
        with self.lock:
            return self.calls[n_results] if n_results < len(self.calls) else None


def sse(handler, events):
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.send_header("cache-control", "no-cache")
    handler.end_headers()
    for name, data in events:
        chunk = ""
        if name:
            chunk += f"event: {name}\n"
        chunk += f"data: {json.dumps(data)}\n\n"
        handler.wfile.write(chunk.encode())
        handler.wfile.flush()


def anthropic(handler, body, script):
    tools = [t.get("name") for t in body.get("tools", [])]
    results = 0
    for m in body.get("messages", []):
        if m.get("role") == "user" and isinstance(m.get("content"), list):
            results += sum(1 for c in m["content"] if c.get("type") == "tool_result")
    call = script.answered(results) if "Bash" in tools or any(t and t.startswith("mcp__") for t in tools) else None
    if callable(call):
        # A call made from what the harness sent back so far.
        call = call(body)
    mid = "msg_" + uuid.uuid4().hex[:20]
    usage = {"input_tokens": 10, "output_tokens": 10}
    events = [("message_start", {"type": "message_start", "message": {
        "id": mid, "type": "message", "role": "assistant", "model": body.get("model", "m"),
        "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}})]
    if call is None:
        events += [
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "done"}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": usage}),
        ]
    else:
        name, args = call
        events += [
            ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
                "type": "tool_use", "id": "toolu_" + uuid.uuid4().hex[:20], "name": name, "input": {}}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {
                "type": "input_json_delta", "partial_json": json.dumps(args)}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": usage}),
        ]
    events.append(("message_stop", {"type": "message_stop"}))
    sse(handler, events)


def gemini_call(body, script):
    """The next call for a Gemini generateContent request, or None."""
    names = [d.get("name") for t in body.get("tools", []) for d in t.get("functionDeclarations", [])]
    results = sum(1 for c in body.get("contents", []) for p in c.get("parts", []) if "functionResponse" in p)
    if "run_shell_command" in names or any(n and n.startswith("mcp_") for n in names):
        call = script.answered(results)
        # A call made from what the harness sent back so far.
        return call(body) if callable(call) else call
    return None


def gemini_reply(call):
    usage = {"promptTokenCount": 10, "candidatesTokenCount": 10, "totalTokenCount": 20}
    if call is None:
        # Also what Gemini CLI's own side requests (next speaker, routing)
        # read: a JSON text that ends the turn.
        parts = [{"text": json.dumps({"reasoning": "done", "next_speaker": "user", "model_choice": "flash"})}]
    else:
        name, args = call
        parts = [{"functionCall": {"name": name, "args": args}}]
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}],
            "usageMetadata": usage, "modelVersion": "gemini-2.5-flash"}


def responses(handler, body, script):
    """OpenAI Responses with SSE, as Codex CLI speaks it: a tool result is
    an input item of type `function_call_output` (or `custom_tool_call_output`)."""
    items = body.get("input", [])
    results = sum(1 for i in items if isinstance(i, dict) and i.get("type", "").endswith("call_output"))
    call = script.answered(results) if body.get("tools") else None
    if callable(call):
        # A call made from what the harness sent back so far.
        call = call(body)
    rid = "resp_" + uuid.uuid4().hex[:20]
    if call is None:
        item = {"type": "message", "id": "msg_" + uuid.uuid4().hex[:20], "role": "assistant", "status": "completed",
                "content": [{"type": "output_text", "text": "done", "annotations": []}]}
    else:
        name, args = call
        item = {"type": "function_call", "id": "fc_" + uuid.uuid4().hex[:20], "status": "completed",
                "call_id": "call_" + uuid.uuid4().hex[:20], "name": name, "arguments": json.dumps(args)}
        if "." in name:
            # An MCP tool reaches the model in a namespace: `server.tool`.
            item["namespace"], item["name"] = name.rsplit(".", 1)
    usage = {"input_tokens": 10, "input_tokens_details": {"cached_tokens": 0}, "output_tokens": 10,
             "output_tokens_details": {"reasoning_tokens": 0}, "total_tokens": 20}
    sse(handler, [
        ("response.created", {"type": "response.created", "response": {"id": rid}}),
        ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed", "response": {"id": rid, "usage": usage}}),
    ])


def offers(script, n_results, tools):
    """Whether the request offers the tool of the script's next call: for
    harnesses whose shell tool is not named `bash` (Droid's `Execute`)."""
    call = script.answered(n_results)
    return call is not None and not callable(call) and call[0] in tools


def chat(handler, body, script):
    """OpenAI chat completions, streamed (opencode's @ai-sdk/openai-compatible)."""
    tools = [t.get("function", {}).get("name") for t in body.get("tools", [])]
    results = sum(1 for m in body.get("messages", []) if m.get("role") == "tool")
    call = script.answered(results) if "bash" in tools or offers(script, results, tools) else None
    if callable(call):
        # A call made from what the harness sent back so far.
        call = call(body)
    cid = "chatcmpl-" + uuid.uuid4().hex[:20]
    base = {"id": cid, "object": "chat.completion.chunk", "created": 0, "model": body.get("model", "m")}
    if call is None:
        deltas = [({"role": "assistant", "content": "done"}, None), ({}, "stop")]
    else:
        name, args = call
        if callable(args):
            # Arguments made from the last tool result: a path that
            # exists only while the harness runs.
            last = [m.get("content") for m in body.get("messages", []) if m.get("role") == "tool"][-1]
            args = args("".join(x.get("text", "") for x in last) if isinstance(last, list) else last)
        deltas = [({"role": "assistant", "tool_calls": [{"index": 0, "id": "call_" + uuid.uuid4().hex[:20],
                   "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]}, None),
                  ({}, "tool_calls")]
    events = [(None, {**base, "choices": [{"index": 0, "delta": d, "finish_reason": f}]}) for d, f in deltas]
    events.append((None, {**base, "choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20}}))
    sse(handler, events)
    handler.wfile.write(b"data: [DONE]\n\n")
    handler.wfile.flush()


class Handler(BaseHTTPRequestHandler):
    script = None

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(404)
        self.end_headers()

    def do_HEAD(self):
        self.do_GET()

    def do_POST(self):
        length = int(self.headers.get("content-length", 0))
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        with self.script.lock:
            self.script.requests.append({"path": self.path, "body": body})
        path = self.path.split("?")[0]
        if path.endswith("/v1/messages") and body.get("stream"):
            anthropic(self, body, self.script)
        elif path.endswith("/v1/messages"):
            self.reply({"id": "msg_x", "type": "message", "role": "assistant", "model": "m",
                        "content": [{"type": "text", "text": "ok"}], "stop_reason": "end_turn",
                        "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}})
        elif path.endswith(":streamGenerateContent"):
            sse(self, [(None, gemini_reply(gemini_call(body, self.script)))])
        elif path.endswith(":generateContent"):
            self.reply(gemini_reply(gemini_call(body, self.script)))
        elif path.endswith(":countTokens"):
            self.reply({"totalTokens": 10})
        elif path.endswith("/responses"):
            responses(self, body, self.script)
        elif path.endswith("/chat/completions"):
            chat(self, body, self.script)
        elif path.endswith("/count_tokens"):
            self.reply({"input_tokens": 10})
        else:
            self.send_response(404)
            self.end_headers()

    def reply(self, obj):
        data = json.dumps(obj).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


def start():
    """Starts the server on a free port of 127.0.0.1: (server, script, url)."""
    script = Script()
    handler = type("H", (Handler,), {"script": script})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, script, f"http://127.0.0.1:{server.server_address[1]}"
