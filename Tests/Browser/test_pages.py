"""The reading pages and feeds in a real browser (Debian's Chromium) against a real diary-server:
lists, an entry, paging to the last page, the search form, every hostile entry opened with
nothing run, headers, screenshots, and the Atom feeds parsed by feedparser."""

import base64
import os
import re
import urllib.error
import urllib.request
from html.parser import HTMLParser
from xml.etree import ElementTree

import feedparser
import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from conftest import SCREENSHOTS

PUBLIC = 45  # alice's public entries: three pages of 20, 20 and 5 on /

# Each: (title, body). Every script would set window.__pwned or the document's title, or add an
# element with id "injected"; none of it may run or reach the DOM as markup.
HOSTILE = [
    ("Script tags", "<script>window.__pwned = 1</script>\n\n<SCRIPT>document.title = 'pwned'</SCRIPT>\n\n<ScRiPt src=\"data:text/javascript,window.__pwned=1\"></ScRiPt>"),
    ("Event handlers", "<img src=x onerror=\"window.__pwned = 1\">\n\n<div id=injected onmouseover=\"window.__pwned = 1\">hover</div>\n\n<details open ontoggle=\"window.__pwned = 1\">x</details>"),
    ("javascript: links", "[a](javascript:window.__pwned=1) [b](JaVaScRiPt:window.__pwned=1) [c](&#106;avascript:window.__pwned=1) "
                          "[d](java&#x0A;script:window.__pwned=1) [e]( javascript:window.__pwned=1) [f](&#x6A;&#x61;vascript:window.__pwned=1)"),
    ("data: and other schemes", "[a](data:text/html;base64,PHNjcmlwdD53aW5kb3cuX19wd25lZD0xPC9zY3JpcHQ+) [b](vbscript:msgbox) [c](file:///etc/passwd)\n\n"
                                "![i](javascript:window.__pwned=1) ![j](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9ImFsZXJ0KDEpIj48L3N2Zz4=)"),
    ("Attribute breakouts", "[q](https://example.com/\" onmouseover=\"window.__pwned=1)\n\n"
                            "[t](https://example.com/ \"title\\\" onmouseover=\\\"window.__pwned=1\")\n\n"
                            "![alt\" onerror=\"window.__pwned=1](https://example.com/x.png)"),
    ("</title><script>window.__pwned=1</script>", "A title that closes the page's title."),
    ("\"><img src=x onerror=window.__pwned=1>", "A title that closes an attribute."),
    ("Frames, styles and SVG", "<iframe id=injected src=\"https://example.com\"></iframe>\n\n<style>body { display: none }</style>\n\n"
                               "<svg onload=\"window.__pwned=1\"><circle r=\"10\"/></svg>\n\n<math><mi xlink:href=\"javascript:window.__pwned=1\">m</mi></math>"),
    ("Forms, base and meta", "<form action=\"javascript:window.__pwned=1\"><button id=injected>go</button></form>\n\n"
                             "<base href=\"javascript:/\">\n\n<meta http-equiv=\"refresh\" content=\"0;url=javascript:window.__pwned=1\">\n\n"
                             "<object data=\"javascript:window.__pwned=1\"></object><embed src=\"javascript:window.__pwned=1\">"),
    ("Code that closes its block", "```\n</code></pre><script>window.__pwned=1</script>\n```\n\n`<script>window.__pwned=1</script>`"),
]


@pytest.fixture(scope="module")
def diary(server):
    """alice's 45 public entries (every fifth in Japanese, all **bold** somewhere), one unlisted, one
    private, the hostile battery, and bob's one entry in a diary of his own."""
    ids = {"public": [], "hostile": []}
    for number in range(1, PUBLIC + 1):
        title = f"京都の紅葉 {number}" if number % 5 == 0 else f"Walk number {number}"
        body = f"Day {number}: we walked **along the river** and saw [the temple](https://example.com/{number}).\n\n- maple\n- tea"
        created = f"2026-10-{1 + (number - 1) // 24:02d}T{(number - 1) % 24:02d}:00:00Z"
        ids["public"].append(server.post("alice", title, body, tags=["walk"], created=created)["entry_id"])
    ids["unlisted"] = server.post("alice", "Unlisted draft", "Only by its address.", visibility="unlisted")["entry_id"]
    ids["private"] = server.post("alice", "Private plans", "Nobody else may see this.", visibility="private")["entry_id"]
    for title, body in HOSTILE:
        ids["hostile"].append(server.post("mallory", title, body, tags=["hostile"])["entry_id"])
    ids["bob"] = server.post("bob", "Bob's only entry", "Hello.")["entry_id"]
    return ids


class MarkupChecker(HTMLParser):
    """Collects what would be dangerous in a piece of HTML: elements outside Markdown's own,
    event handlers, and links or images to anything but http(s) (and mailto for links)."""
    ALLOWED = {"p", "a", "img", "em", "strong", "code", "pre", "ul", "ol", "li", "blockquote", "h2", "h3", "h4", "h5", "h6",
               "hr", "br", "del", "table", "thead", "tbody", "tr", "th", "td", "span"}

    def __init__(self):
        super().__init__()
        self.problems = []

    def handle_starttag(self, tag, attributes):
        if tag not in self.ALLOWED:
            self.problems.append(f"<{tag}>")
        for name, value in attributes:
            if name.startswith("on"):
                self.problems.append(f"{tag} {name}")
            if name == "href" and not re.match(r"^(https?:|mailto:|/|#)", value or ""):
                self.problems.append(f"a link to {value!r}")
            if name == "src" and not re.match(r"^https?:", value or ""):
                self.problems.append(f"an image from {value!r}")


def titles_on(browser):
    return [link.text for link in browser.find_elements(By.CSS_SELECTOR, "#entry-list .entry-title a")]


def nothing_ran(browser, expected_title_start):
    """The page's scripts never ran and no author markup reached the DOM as elements."""
    assert browser.execute_script("return window.__pwned === undefined"), "an author's script ran"
    title = browser.execute_script("return document.title")
    assert title.startswith(expected_title_start) and title != "pwned", f"the title changed: {title!r}"
    assert not browser.find_elements(By.ID, "injected"), "an author's element reached the DOM"
    for tag in ("script", "iframe", "svg", "math", "object", "embed", "form:not(#search-form)", "base", "style", "meta"):
        assert not browser.find_elements(By.CSS_SELECTOR, f"body {tag}"), f"an author's <{tag}> reached the DOM"
    assert not browser.find_elements(By.CSS_SELECTOR, "head meta[http-equiv]"), "an author's <meta> reached the head"
    handlers = browser.execute_script(
        "return [...document.querySelectorAll('*')].flatMap(e => [...e.attributes].filter(a => a.name.startsWith('on')).map(a => e.tagName + ' ' + a.name))")
    assert handlers == [], f"event handler attributes: {handlers}"
    for link in browser.find_elements(By.CSS_SELECTOR, "a[href]"):
        href = link.get_attribute("href")
        assert re.match(r"^(https?:|mailto:)", href), f"a link to {href!r}"
    for image in browser.find_elements(By.CSS_SELECTOR, "img"):
        source = image.get_attribute("src")
        assert re.match(r"^https?:", source), f"an image from {source!r}"
    violations = [entry["message"] for entry in browser.get_log("browser") if "Content Security Policy" in entry["message"]]
    assert violations == [], f"the page tried something its policy refused: {violations}"


def test_list_open_an_entry_and_go_back(server, diary, browser):
    browser.get(server.url + "/")
    first = browser.find_element(By.CSS_SELECTOR, "#entry-list .entry-title a")
    assert first.text == "Bob's only entry"
    assert browser.find_element(By.TAG_NAME, "html").get_attribute("lang")
    # alice's newest public entry, opened from the list.
    link = next(link for link in browser.find_elements(By.CSS_SELECTOR, "#entry-list .entry-title a") if link.text == "京都の紅葉 45")
    link.click()
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.ID, "entry-body"))
    assert browser.find_element(By.CSS_SELECTOR, "#entry .entry-title").text == "京都の紅葉 45"
    body = browser.find_element(By.ID, "entry-body")
    assert body.find_element(By.TAG_NAME, "strong").text == "along the river"
    assert body.find_element(By.CSS_SELECTOR, "a").get_attribute("href") == "https://example.com/45"
    assert [item.text for item in body.find_elements(By.CSS_SELECTOR, "li")] == ["maple", "tea"]
    assert browser.find_element(By.CSS_SELECTOR, "#entry time").get_attribute("datetime") == "2026-10-02T20:00:00Z"
    assert browser.find_element(By.ID, "previous-entry")  # its diary's entry before it
    browser.back()
    WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.ID, "entry-list"))
    assert titles_on(browser)[0] == "Bob's only entry"


def test_older_entries_to_the_last_page(server, diary, browser):
    browser.get(server.url + "/")
    seen, pages = titles_on(browser), 1
    while browser.find_elements(By.ID, "older-entries"):
        browser.find_element(By.ID, "older-entries").click()
        WebDriverWait(browser, 30).until(lambda b: b.find_elements(By.ID, "newer-entries"))
        seen += titles_on(browser)
        pages += 1
    public = PUBLIC + len(HOSTILE) + 1
    assert len(seen) == public and len(set(seen)) == public, f"{len(seen)} rows on {pages} pages"
    assert pages == (public + 19) // 20
    assert "Unlisted draft" not in seen and "Private plans" not in seen
    assert seen[-1] == "Walk number 1"


def test_search_from_the_form(server, diary, browser):
    browser.get(server.url + "/search")
    field = browser.find_element(By.ID, "search-q")
    field.send_keys("京都")
    field.submit()
    WebDriverWait(browser, 30).until(lambda b: "q=" in b.current_url and b.find_elements(By.ID, "entry-list"))
    titles = titles_on(browser)
    assert sorted(titles) == sorted(f"京都の紅葉 {n}" for n in range(5, PUBLIC + 1, 5))
    marks = browser.find_elements(By.CSS_SELECTOR, "#entry-list mark")
    assert marks and all(mark.text == "京都" for mark in marks)
    assert browser.find_element(By.ID, "search-q").get_attribute("value") == "京都"


@pytest.mark.parametrize("index", range(len(HOSTILE)))
def test_a_hostile_entry_runs_nothing(server, diary, browser, index):
    title, _ = HOSTILE[index]
    browser.get(f"{server.url}/entries/{diary['hostile'][index]}")
    assert browser.find_element(By.CSS_SELECTOR, "#entry .entry-title").text == title
    nothing_ran(browser, title)


def test_lists_and_searches_of_hostile_entries_run_nothing(server, diary, browser):
    for path in ("/", "/tags/hostile", "/search?q=script", "/search?q=%22%3E%3Cimg+src%3Dx+onerror%3Dwindow.__pwned%3D1%3E"):
        browser.get(server.url + path)
        nothing_ran(browser, "")


def test_unlisted_is_readable_and_private_is_a_404_page(server, diary, browser):
    browser.get(f"{server.url}/entries/{diary['unlisted']}")
    assert browser.find_element(By.CSS_SELECTOR, "#entry .entry-title").text == "Unlisted draft"
    status, _, body = server.get(f"/entries/{diary['private']}")
    assert status == 404 and b"Private plans" not in body and b"Nobody else" not in body
    status_unused, _, body_unused = server.get("/entries/999999")
    private_id = str(diary["private"]).encode()
    assert status_unused == 404 and body.replace(private_id, b"N") == body_unused.replace(b"999999", b"N"), \
        "a private entry's 404 is an unused id's 404"
    browser.get(f"{server.url}/entries/{diary['private']}")
    assert browser.find_element(By.ID, "error")


def test_pages_carry_a_strict_policy(server, diary):
    for path in ("/", f"/entries/{diary['public'][0]}", "/search?q=tea", "/entries/999999", f"/diaries/1"):
        status, headers, _ = server.get(path)
        assert headers["Content-Type"].startswith("text/html"), path
        policy = headers["Content-Security-Policy"]
        assert "default-src 'none'" in policy and "frame-ancestors 'none'" in policy and "script-src" not in policy.replace("script-src 'none'", ""), policy
        assert headers["X-Content-Type-Options"] == "nosniff"
        assert headers["Referrer-Policy"]
    status, headers, _ = server.get("/search?q=%22")
    assert status == 400 and headers["Content-Type"].startswith("text/html")


def test_screenshots_at_desktop_and_phone_widths(server, diary, browser):
    os.makedirs(SCREENSHOTS, exist_ok=True)
    entry = diary["public"][-1]
    for width, height in ((1280, 800), (390, 844)):
        browser.set_window_size(width, height)
        for name, path in (("list", "/"), ("entry", f"/entries/{entry}")):
            browser.get(server.url + path)
            # Nothing wider than the window: no sideways scrolling on a phone.
            inner = browser.execute_script("return window.innerWidth")
            assert browser.execute_script("return document.documentElement.scrollWidth") <= inner, f"{path} at {width} px scrolls sideways"
            assert browser.save_screenshot(os.path.join(SCREENSHOTS, f"{name}-{width}x{height}.png"))
    browser.set_window_size(1280, 800)


def test_dark_mode_follows_the_reader(server, diary, browser):
    def background():
        browser.get(server.url + "/")
        red, green, blue = (int(n) for n in re.findall(r"\d+", browser.execute_script("return getComputedStyle(document.body).backgroundColor"))[:3])
        return 0.2126 * red + 0.7152 * green + 0.0722 * blue
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]})
    light = background()
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "dark"}]})
    dark = background()
    browser.execute_cdp_cmd("Emulation.setEmulatedMedia", {"features": []})
    assert light > 200 and dark < 60, f"background luminance light {light:.0f}, dark {dark:.0f}"


def test_feeds_parse_with_every_public_entry_and_no_other(server, diary):
    status, headers, raw = server.get("/feed.atom")
    assert status == 200 and headers["Content-Type"].startswith("application/atom+xml")
    feed = feedparser.parse(raw)
    assert not feed.bozo, feed.get("bozo_exception")
    titles = [entry.title for entry in feed.entries]
    assert len(titles) == 20 and titles[0] == "Bob's only entry"
    assert "Unlisted draft" not in titles and "Private plans" not in titles
    for entry in feed.entries:
        assert entry.id and entry.published and entry.updated and entry.author
        assert entry.link.startswith(server.url + "/entries/"), entry.link
        assert entry.content[0].type == "text/html"
    assert feedparser.parse(server.get("/feed.atom")[2]).entries[0].id == feed.entries[0].id, "ids are stable"
    # The HTML in <content> as the feed carries it (feedparser cleans what it hands over, so the
    # raw XML is read here): only harmless elements, no handlers, no script URLs.
    contents = ElementTree.fromstring(raw).findall("{http://www.w3.org/2005/Atom}entry/{http://www.w3.org/2005/Atom}content")
    assert len(contents) == 20 and all(content.get("type") == "html" for content in contents)
    for content in contents:
        checker = MarkupChecker()
        checker.feed(content.text or "")
        assert checker.problems == [], checker.problems

    # alice's diary: her newest 20 public entries, nothing unlisted or private.
    diary_id = server.request("GET", f"/api/entries/{diary['public'][0]}")["diary_id"]
    alice = feedparser.parse(server.get(f"/diaries/{diary_id}/feed.atom")[2])
    assert not alice.bozo, alice.get("bozo_exception")
    expected = [f"京都の紅葉 {n}" if n % 5 == 0 else f"Walk number {n}" for n in range(PUBLIC, PUBLIC - 20, -1)]
    assert [entry.title for entry in alice.entries] == expected
    # Autodiscovery from the pages.
    _, _, home = server.get("/")
    assert b'rel="alternate" type="application/atom+xml"' in home


def atompub_get(server, path, user):
    """Status, headers and body of an AtomPub GET with `user`'s token as Basic credentials."""
    request = urllib.request.Request(server.url + path)
    credentials = base64.b64encode(f"{user}:{server.user(user)}".encode()).decode()
    request.add_header("Authorization", f"Basic {credentials}")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def test_atompub_collection_parses_with_feedparser(server, diary):
    """AtomPub's collection feed (issue 23) as feedparser reads it: alice's entries newest first,
    each with its edit and alternate links and its Markdown; the service document is XML naming
    the collection; bob is refused alice's collection."""
    diary_id = server.request("GET", f"/api/entries/{diary['public'][0]}")["diary_id"]
    collection = f"/atom/diaries/{diary_id}/entry"
    status, headers, service = atompub_get(server, "/atom", "alice")
    assert status == 200 and headers["Content-Type"].startswith("application/atomsvc+xml")
    hrefs = [element.get("href") for element in ElementTree.fromstring(service).iter("{http://www.w3.org/2007/app}collection")]
    assert server.url + collection in hrefs, hrefs
    status, headers, raw = atompub_get(server, collection, "alice")
    assert status == 200 and headers["Content-Type"].startswith("application/atom+xml")
    feed = feedparser.parse(raw)
    assert not feed.bozo, feed.get("bozo_exception")
    assert len(feed.entries) == 20
    assert any(link.rel == "next" for link in feed.feed.links), feed.feed.links
    dates = [entry.updated_parsed for entry in feed.entries]
    assert dates == sorted(dates, reverse=True)
    for entry in feed.entries:
        rels = {link.rel: link.href for link in entry.links}
        assert rels["edit"].startswith(server.url + collection + "/"), rels
        assert rels["alternate"].startswith(server.url + "/entries/"), rels
        assert entry.title and entry.id and entry.content[0].type == "text/x-markdown"
    assert atompub_get(server, collection, "bob")[0] == 403
