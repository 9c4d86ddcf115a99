"""The HTML the web server writes itself (web/pages.py): every value escaped, the page's own script before
textual's, and each page sent with the headers that keep it to this server (no frame, no sniffing, no referrer,
no cache, a Content-Security-Policy naming the console's WebSocket origin)."""

from __future__ import annotations

from stablepay_console.web.pages import REASON_MESSAGE, console_page, refusal_page, security_headers

HOSTILE = '<script>alert("x")</script>&\'"'
ESCAPED = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&amp;&#x27;&quot;"


def test_the_console_page_escapes_every_value_and_loads_our_script_before_textuals() -> None:
    page = console_page(title=HOSTILE, script_url='/static/js/textual.js?v=1&x="', style_url="/static/css/x.css?a<b",
                        ws_url="wss://console.example/ws?x='y'", font_size=16)
    assert HOSTILE not in page and page.count(ESCAPED) == 2  # the title and the intro
    assert '<script src="/static/js/textual.js?v=1&amp;x=&quot;"></script>' in page
    assert '<link rel="stylesheet" href="/static/css/x.css?a&lt;b">' in page
    assert 'data-session-websocket-url="wss://console.example/ws?x=&#x27;y&#x27;"' in page
    assert 'data-font-size="16"' in page
    ours, theirs = page.index('message[0] === "stablepay_reason"'), page.index('<script src="/static/js/textual')
    assert ours < theirs and REASON_MESSAGE == "stablepay_reason"
    assert "fonts.googleapis" not in page and 'action="/signout"' in page


def test_a_refusal_page_escapes_its_title_and_message() -> None:
    page = refusal_page(HOSTILE, "Not signed in: " + HOSTILE)
    assert HOSTILE not in page
    assert f"<title>{ESCAPED}</title>" in page and f"<h1>{ESCAPED}</h1>" in page
    assert f"<p>Not signed in: {ESCAPED}</p>" in page


def test_each_page_keeps_to_this_server() -> None:
    headers = security_headers("wss://console.example")
    assert headers == {
        "Content-Security-Policy": "default-src 'self'; script-src 'self' 'unsafe-inline'; "
        "style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self' wss://console.example; "
        "frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
        "X-Frame-Options": "DENY",
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-store",
    }
    assert "connect-src 'self' ws://127.0.0.1:8080;" in security_headers("ws://127.0.0.1:8080")["Content-Security-Policy"]
