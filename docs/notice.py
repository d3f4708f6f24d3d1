"""The two halves of docs/notice.sh that are easier in Python.

    python3 docs/notice.py model SAVED
                                      a scripted model on 127.0.0.1: prints
                                      its URL, then serves until ended; the
                                      path of the saved output goes to SAVED
    python3 docs/notice.py svg < PANE > SVG
                                      a pane captured by `tmux capture-pane
                                      -e -p`, as an SVG picture

The model is the harness tests' (crates/capout/tests/harness/model.py): it
answers the first request with a Bash call of `seq 100000` and the second
with a short text that names the saved output, taken from the notice in
the tool result it was sent.
"""

import html
import os
import re
import signal
import sys
import unicodedata
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "crates", "capout", "tests", "harness"))

NOTICE = re.compile(r"full output: (\S+)\)")


def last_result(body):
    """The text of the last tool result in an Anthropic Messages request."""
    text = ""
    for m in body.get("messages", []):
        if m.get("role") == "user" and isinstance(m.get("content"), list):
            for c in m["content"]:
                if c.get("type") == "tool_result":
                    content = c.get("content")
                    if isinstance(content, list):
                        content = "".join(x.get("text", "") for x in content)
                    text = content or ""
    return text


def serve(saved):
    import model

    scripted = model.anthropic

    def anthropic(handler, body, script):
        results = sum(1 for m in body.get("messages", []) if m.get("role") == "user"
                      and isinstance(m.get("content"), list)
                      for c in m["content"] if c.get("type") == "tool_result")
        if results != 1:
            return scripted(handler, body, script)
        # The answer to the tool result: what a model makes of the notice.
        found = NOTICE.search(last_result(body))
        if found:
            with open(saved, "w") as f:
                f.write(found.group(1))
        text = (f"I got the tail; the whole output is saved in {found.group(1)}, to read in pages."
                if found else "The output came back whole.")
        usage = {"input_tokens": 10, "output_tokens": 10}
        model.sse(handler, [
            ("message_start", {"type": "message_start", "message": {
                "id": "msg_" + uuid.uuid4().hex[:20], "type": "message", "role": "assistant",
                "model": body.get("model", "m"), "content": [], "stop_reason": None,
                "stop_sequence": None, "usage": usage}}),
            ("content_block_start", {"type": "content_block_start", "index": 0,
                                     "content_block": {"type": "text", "text": ""}}),
            ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                     "delta": {"type": "text_delta", "text": text}}),
            ("content_block_stop", {"type": "content_block_stop", "index": 0}),
            ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                               "usage": usage}),
            ("message_stop", {"type": "message_stop"}),
        ])

    # The handler looks the function up in model's globals at each request.
    model.anthropic = anthropic
    server, script, url = model.start()
    script.reset([("Bash", {"command": "seq 100000", "description": "Count to 100000"})])
    print(url, flush=True)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    signal.pause()


# The picture: a dark terminal, its 16 colours those of a common dark theme.
FONT = 14
CELL_W, CELL_H = 8.4, 18
PAD = 14
BG, FG = "#1b1d23", "#d6d6d6"
ANSI16 = ["#282c34", "#e06c75", "#98c379", "#e5c07b", "#61afef", "#c678dd", "#56b6c2", "#c8ccd4",
          "#5c6370", "#ef7b84", "#a8d38a", "#f0cf8f", "#74bdf5", "#d28ce6", "#67c6d2", "#ffffff"]


def colour256(n):
    if n < 16:
        return ANSI16[n]
    if n < 232:
        n -= 16
        levels = [0, 95, 135, 175, 215, 255]
        r, g, b = levels[n // 36], levels[n // 6 % 6], levels[n % 6]
    else:
        r = g = b = 8 + 10 * (n - 232)
    return f"#{r:02x}{g:02x}{b:02x}"


class Style:
    def __init__(self):
        self.reset()

    def reset(self):
        self.fg = self.bg = None
        self.bold = self.dim = self.italic = self.underline = self.reverse = False

    def key(self):
        return (self.fg, self.bg, self.bold, self.dim, self.italic, self.underline, self.reverse)

    def apply(self, params):
        codes = [int(p) if p.isdigit() else 0 for p in (params.split(";") if params else ["0"])]
        i = 0
        while i < len(codes):
            c = codes[i]
            if c == 0:
                self.reset()
            elif c == 1:
                self.bold = True
            elif c == 2:
                self.dim = True
            elif c == 3:
                self.italic = True
            elif c == 4:
                self.underline = True
            elif c == 7:
                self.reverse = True
            elif c == 22:
                self.bold = self.dim = False
            elif c == 23:
                self.italic = False
            elif c == 24:
                self.underline = False
            elif c == 27:
                self.reverse = False
            elif 30 <= c <= 37 or 90 <= c <= 97:
                self.fg = ANSI16[c - 30 if c < 90 else c - 82]
            elif 40 <= c <= 47 or 100 <= c <= 107:
                self.bg = ANSI16[c - 40 if c < 100 else c - 92]
            elif c == 39:
                self.fg = None
            elif c == 49:
                self.bg = None
            elif c in (38, 48) and i + 1 < len(codes):
                if codes[i + 1] == 5 and i + 2 < len(codes):
                    value, i = colour256(codes[i + 2]), i + 2
                elif codes[i + 1] == 2 and i + 4 < len(codes):
                    value, i = "#{:02x}{:02x}{:02x}".format(*codes[i + 2:i + 5]), i + 4
                else:
                    value = None
                if c == 38:
                    self.fg = value
                else:
                    self.bg = value
            i += 1


def width(ch):
    if unicodedata.combining(ch):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def cells(line, style):
    """The runs of one row: (column, width in cells, text, style key)."""
    runs, col = [], 0
    for part in re.split(r"(\x1b\[[0-9;:]*[A-Za-z])", line):
        if part.startswith("\x1b["):
            if part.endswith("m"):
                style.apply(part[2:-1].replace(":", ";"))
            continue
        for ch in part:
            w = width(ch)
            if runs and runs[-1][3] == style.key() and w == 1 and runs[-1][4]:
                runs[-1][1] += 1
                runs[-1][2] += ch
            else:
                # A wide glyph is a run of its own, so that its two cells are its own.
                runs.append([col, w, ch, style.key(), w == 1])
            col += w
    return runs


def svg(pane):
    rows = pane.rstrip("\n").split("\n")
    cols = max(80, max(sum(r[1] for r in cells(row, Style())) for row in rows))
    w, h = 2 * PAD + cols * CELL_W, 2 * PAD + len(rows) * CELL_H
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:.0f}" height="{h:.0f}" '
           f'viewBox="0 0 {w:.0f} {h:.0f}" xml:space="preserve" font-size="{FONT}" '
           "font-family=\"'DejaVu Sans Mono', Menlo, Consolas, 'Liberation Mono', monospace\">",
           f'<rect width="100%" height="100%" rx="8" fill="{BG}"/>']
    style = Style()
    for y, row in enumerate(rows):
        top = PAD + y * CELL_H
        base = top + CELL_H * 0.75
        for col, n, text, (fg, bg, bold, dim, italic, underline, reverse), _ in cells(row, style):
            if reverse:
                fg, bg = bg or BG, fg or FG
            x = PAD + col * CELL_W
            if bg:
                out.append(f'<rect x="{x:.1f}" y="{top}" width="{n * CELL_W:.1f}" height="{CELL_H}" fill="{bg}"/>')
            if not text.strip():
                continue
            attrs = [f'x="{x:.1f}"', f'y="{base:.1f}"', f'fill="{fg or FG}"']
            # Glyphs from a fallback font may be wider or narrower than
            # the cell: each run is stretched to its columns.
            attrs.append(f'textLength="{n * CELL_W:.1f}" lengthAdjust="spacingAndGlyphs"')
            if bold:
                attrs.append('font-weight="bold"')
            if dim:
                attrs.append('opacity="0.6"')
            if italic:
                attrs.append('font-style="italic"')
            if underline:
                attrs.append('text-decoration="underline"')
            out.append(f"<text {' '.join(attrs)}>{html.escape(text, quote=False)}</text>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main():
    if sys.argv[1:2] == ["model"] and len(sys.argv) == 3:
        serve(sys.argv[2])
    elif sys.argv[1:] == ["svg"]:
        sys.stdout.write(svg(sys.stdin.read()))
    else:
        sys.exit("usage: python3 docs/notice.py model SAVED | svg < PANE > SVG")


if __name__ == "__main__":
    main()
