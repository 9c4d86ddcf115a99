"""The HTML the server writes itself: the console's page and the pages that refuse. Every value is escaped;
no page holds a token, a key or anything from a console.

The console's page is textual-serve's own (same script, same terminal element) without its web font
from a third-party site: an analyst's browser asks nothing of anyone but this server.
"""

from __future__ import annotations

from html import escape

SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self' 'unsafe-inline'; "
    "style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' {ws}; "
    "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
    "X-Frame-Options": "DENY",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}

REASON_MESSAGE = "stablepay_reason"
"""The text frame that tells the page why its tab has no console: ["stablepay_reason", "…"], then the close."""

PAGE_SCRIPT = """
(() => {
  // Before textual.js: every WebSocket it opens gives the terminal the keyboard once it is open (no click
  // needed), and a reason the server sends before closing replaces "Session ended." (as text, never HTML).
  // textual.js starts its terminal on the window's load event; the document is whole (its style sheet and
  // scripts in) at DOMContentLoaded, earlier on a busy machine: start it then, once.
  document.addEventListener("DOMContentLoaded", () => {
    const start = window.onload;
    if (typeof start === "function") { window.onload = null; start(new Event("load")); }
  });
  const Native = window.WebSocket;
  let reason = "";
  window.WebSocket = class extends Native {
    constructor(url, protocols) {
      super(url, protocols);
      let drawn = false;
      let told = false;
      const keys = () => document.querySelector("#terminal .xterm-helper-textarea");
      // The console starts blurred (textual's web driver), after the few bytes that set the terminal's modes: once
      // its first screenful has come and the terminal has the keyboard, whichever is last, tell it the tab has
      // the focus, so its footer shows its keys. (A console started with its page sends what it drew meanwhile
      // at once, maybe before the focus below.)
      const tell = () => {
        if (drawn && !told && keys() && document.activeElement === keys()) {
          told = true;
          this.send(JSON.stringify(["focus"]));
        }
      };
      this.addEventListener("open", () => setTimeout(() => { if (keys()) { keys().focus(); } tell(); }, 0));
      this.addEventListener("message", (event) => {
        if (typeof event.data !== "string") {
          if (!drawn && event.data.byteLength > 1024) {
            drawn = true;
            tell();
          }
          return;
        }
        try {
          const message = JSON.parse(event.data);
          if (Array.isArray(message) && message[0] === "REASON") { reason = String(message[1]); }
        } catch (error) { /* not ours */ }
      });
      this.addEventListener("close", () => {
        if (reason) { document.querySelector(".closed-dialog .message").textContent = reason; }
      });
    }
  };
})();
""".replace("REASON", REASON_MESSAGE)

CONSOLE_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<link rel="stylesheet" href="{style_url}">
<script>{page_script}</script>
<script src="{script_url}"></script>
<style>
body {{ background: #0c181f; margin: 0; }}
.dialog-container {{ position: absolute; width: 100vw; height: 100vh; display: flex; align-items: center;
  justify-content: center; z-index: 10; }}
.intro {{ width: 640px; padding: 32px; font: 16px menlo, "DejaVu Sans Mono", monospace; text-align: center;
  color: rgba(255,255,255,0.95); background-color: #12232d; }}
body.-first-byte .intro-dialog {{ display: none; }}
body .textual-terminal {{ opacity: 0; }}
body.-first-byte .textual-terminal {{ opacity: 1; }}
.closed-dialog {{ display: none; }}
body.-closed .closed-dialog {{ display: flex; }}
body.-closed .intro-dialog {{ display: none; }}
button {{ padding: 12px 24px; margin: 16px; background: #5e0ba7; color: #fff; border: none; font: inherit; }}
form {{ display: inline; }}
.sign-out {{ position: fixed; top: 0; right: 0; z-index: 20; }}
.sign-out button {{ padding: 1px 8px; margin: 0; font: 12px system-ui, sans-serif; background: #12232d;
  color: rgba(255,255,255,0.8); }}
</style>
</head>
<body>
<form class="sign-out" method="post" action="/signout"><button type="submit">Sign out</button></form>
<div class="dialog-container intro-dialog"><div class="intro">{title}: starting your console…</div></div>
<div class="dialog-container closed-dialog"><div class="intro">
<div class="message">Session ended.</div>
<button type="button" onclick="window.location.href='/'">Start again</button>
<form method="post" action="/signout"><button type="submit">Sign out</button></form>
</div></div>
<div id="terminal" class="textual-terminal" data-session-websocket-url="{ws_url}" data-font-size="{font_size}"></div>
</body>
</html>
"""

REFUSAL_PAGE = """<!DOCTYPE html>
<html lang="en">
<head><meta charset="utf-8"><title>{title}</title>
<style>body {{ font: 16px system-ui, sans-serif; margin: 4em auto; max-width: 40em; color: #222; }}</style>
</head>
<body><h1>{title}</h1><p>{message}</p></body>
</html>
"""


SIGNED_OUT = ("You are signed out of the console, and your consoles have ended. This browser's link or cookie "
              "opens nothing any more: open the sign-in link the server printed to sign in again.")
SIGNED_OUT_PROXY = ("You are signed out of the console, and your consoles have ended. Your company's sign-in may "
                    "still be open in this browser: sign out of it too (with oauth2-proxy, /oauth2/sign_out), or "
                    "the next page you open signs you in again.")


def console_page(*, title: str, script_url: str, style_url: str, ws_url: str, font_size: int) -> str:
    return CONSOLE_PAGE.format(
        title=escape(title), script_url=escape(script_url), style_url=escape(style_url), ws_url=escape(ws_url),
        font_size=int(font_size),
        page_script=PAGE_SCRIPT,
    )


def refusal_page(title: str, message: str) -> str:
    return REFUSAL_PAGE.format(title=escape(title), message=escape(message))


def security_headers(ws_origin: str) -> dict[str, str]:
    headers = dict(SECURITY_HEADERS)
    headers["Content-Security-Policy"] = headers["Content-Security-Policy"].format(ws=ws_origin)
    return headers
