"""The web inspector in a real headless browser (Debian's `chromium`): it loads, shows the layers
of a seeded thread with the same numbers as the API, and a buffer line links to its record. A
screenshot is saved under the test's tmp dir.

Chromium is driven by its command-line flags (`--dump-dom`, `--screenshot`) with a virtual time
budget, which lets the page's fetches finish before the DOM is read.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import urllib.request
from html.parser import HTMLParser

import pytest

pytest.importorskip("starlette")
pytest.importorskip("mcp")

from memlane.cli.core import ingest  # noqa: E402
from memlane.context.policy import Policy  # noqa: E402
from memlane.ledger import Ledger  # noqa: E402
from memlane.memory import Cadence, Memory  # noqa: E402
from memlane.server.app import create_app  # noqa: E402
from memlane.server.auth import Auth, KeyRing  # noqa: E402
from memlane.testing import serve_in_thread  # noqa: E402

FACT = "Hi, I'm Ravi. My passport number is K4471902."


def chromium() -> str:
    for name in (os.environ.get("MEMLANE_CHROMIUM"), "chromium", "chromium-browser",
                 "google-chrome"):
        if name and shutil.which(name):
            return str(shutil.which(name))
    pytest.skip("no headless browser: install Debian's chromium (apt-get install -y chromium) "
                "or set MEMLANE_CHROMIUM")


def browse(tmp_path, url: str, *extra: str) -> str:
    profile = tmp_path / f"profile-{len(list(tmp_path.iterdir()))}"
    profile.mkdir()
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking", "--disable-component-update",
           "--disable-sync", f"--user-data-dir={profile}", "--virtual-time-budget=10000",
           "--hide-scrollbars", *extra, url]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


class Node:
    def __init__(self, tag: str, attrs: dict[str, str]) -> None:
        self.tag, self.attrs, self.children, self.parts = tag, attrs, [], []

    @property
    def text(self) -> str:
        return "".join(self.parts + [c.text for c in self.children])

    def iter(self):
        yield self
        for c in self.children:
            yield from c.iter()

    def find_all(self, tag: str | None = None, **attrs: str) -> list[Node]:
        def has(n: Node) -> bool:
            for k, v in attrs.items():
                k = k.rstrip("_").replace("_", "-")
                if k == "class":
                    if v not in n.attrs.get("class", "").split():
                        return False
                elif n.attrs.get(k) != v:
                    return False
            return True

        return [n for n in self.iter() if (tag is None or n.tag == tag) and has(n)]


class DOM(HTMLParser):
    VOID = {"meta", "br", "input", "link", "img", "hr"}

    def __init__(self, html: str) -> None:
        super().__init__()
        self.root = Node("#root", {})
        self.stack = [self.root]
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(node)
        if tag not in self.VOID:
            self.stack.append(node)

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        self.stack[-1].parts.append(data)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    chromium()
    tmp = tmp_path_factory.mktemp("inspector")
    memory = Memory.open(tmp / "m.db", cadence=Cadence(every_user_turns=2),
                         # dedupe_lines off: the first stretch's line stays beside the frame
                         # note of its record, so the page has a line that links to a record
                         # (leaving such repeats out is tested in test_assemble.py).
                         policy=Policy(short_term_turns=2, working_turns=3, fill_budget=False,
                                       dedupe_lines=False))
    msgs = [{"role": "user", "content": FACT}, {"role": "assistant", "content": "Noted."}]
    for i in range(150):  # ~5,000 tokens: more than the page's 4,000 budget holds
        msgs += [{"role": "user", "content": f"Question {i} about the weather in Oslo in week {i},"
                                             " is it cold?"},
                 {"role": "assistant", "content": f"Week {i} in Oslo is usually mild."}]
    ingest(memory, "seeded", msgs)
    ingest(memory, "other thread", msgs[:4])
    ledger = Ledger(tmp / "ledger.db")
    ledger.record_answer(namespace="default", thread_id="seeded", seq=2, agent_version="test",
                         prompt_version="p1", model="scripted", answer_tokens=3,
                         signals={"asked_again": {"key": "passport"}})
    app = create_app(memory, Auth(KeyRing(), dev=True), ledger=ledger, mcp=False)
    with serve_in_thread(app) as url:
        with urllib.request.urlopen(f"{url}/v1/memlane/threads/seeded/context") as r:
            ctx = json.load(r)
        yield url, ctx, memory
    memory.close()
    ledger.close()


@pytest.fixture(scope="module")
def page(site, tmp_path_factory):
    """The thread's page as the browser rendered it (one browser run for the tests below)."""
    url, _, _ = site
    return DOM(browse(tmp_path_factory.mktemp("dump"), f"{url}/#/thread/seeded",
                      "--dump-dom")).root


def test_page_shows_the_layers_of_a_seeded_thread(site, page):
    url, ctx, _ = site
    dom = page
    assert dom.find_all("body", data_ready="thread"), "the page did not finish loading"
    threads = [a.attrs["data-thread"] for a in dom.find_all("a") if "data-thread" in a.attrs]
    assert sorted(threads) == ["other thread", "seeded"]
    layers = {n.attrs["data-layer"]: int(n.attrs["data-tokens"])
              for n in dom.find_all("div", class_="layer")}
    assert layers == ctx["trace"]["tokens_by_layer"]
    assert {"system", "buffer", "working", "short_term"} <= set(layers)
    for layer in layers:  # each layer has a token bar
        row = dom.find_all("div", class_="layer", data_layer=layer)[0]
        assert row.find_all("div", class_="bar")
    shown = [m.attrs["data-layer"] for m in dom.find_all("div", class_="msg")]
    assert shown == [m["layer"] for m in ctx["messages"]]
    scores = dom.find_all("tr", class_="score")
    assert [s.attrs["data-seq"] for s in scores] == list(ctx["trace"]["working_scores"])
    ledger = dom.find_all("tr", class_="ledger-row")
    assert len(ledger) == 1 and "asked_again" in ledger[0].text


def test_a_buffer_line_links_to_its_record(site, page, tmp_path):
    url, ctx, memory = site
    dom = page
    lines = dom.find_all("li", class_="buffer-line")
    assert len(lines) == len(ctx["trace"]["buffer"]["lines"]) > 1
    first = lines[0]
    assert first.attrs["data-end"] == str(ctx["trace"]["buffer"]["lines"][0]["end"])
    links = first.find_all("a", class_="record-link")
    assert links, "the first stretch's line points at the record holding the fact"
    rid = int(links[0].attrs["data-record"])
    assert links[0].attrs["href"] == f"#/thread/seeded/record/{rid}"
    target = dom.find_all(id=f"record-{rid}")
    record = memory.records([rid])[0]
    assert target and record.text in target[0].text and "K4471902" in record.text
    # Following the link focuses that record.
    focused = DOM(browse(tmp_path, f"{url}/{links[0].attrs['href']}", "--dump-dom")).root
    assert focused.find_all(id=f"record-{rid}", class_="focused")


def test_screenshot(site, tmp_path):
    url, _, _ = site
    shot = tmp_path / "inspector.png"
    browse(tmp_path, f"{url}/#/thread/seeded", "--window-size=1280,1100", f"--screenshot={shot}")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000
    print(f"inspector screenshot: {shot}")


def test_page_is_organised_around_what_the_model_sees(site, page):
    url, ctx, _ = site
    dom = page
    order = [n.attrs["id"] for n in dom.find_all("section") if "id" in n.attrs]
    assert order[:3] == ["layers", "context", "buffer"], order
    assert order.index("working") > order.index("records")
    # The tools the model is sent are a layer of the chart and a block of the context.
    assert dom.find_all("div", class_="layer", data_layer="tools")
    tools = dom.find_all("div", class_="tools-block")
    assert tools and "search_memory" in tools[0].text
    # The scores table is folded away.
    (working,) = dom.find_all("section", id="working")
    assert working.find_all("details") and working.find_all("summary")
    # `#ids` in the notes are links to their records.
    (block,) = dom.find_all("div", class_="msg", data_layer="buffer")
    ids = [a.attrs["data-record"] for a in block.find_all("a", class_="record-link")]
    expected = sorted({str(i) for b in ctx["trace"]["buffer"]["lines"] for i in b["record_ids"]})
    assert sorted(set(ids)) == expected and ids
    shown = {n.attrs["data-record"] for n in dom.find_all("div", class_="record")}
    assert set(ids) <= shown


def test_state_is_in_the_url_and_a_record_shows_its_sources(site, tmp_path):
    url, _, memory = site
    rec = next(r for r in memory.records() if "K4471902" in r.text)
    with urllib.request.urlopen(f"{url}/v1/memlane/threads/seeded/context?budget=2000") as r:
        small = json.load(r)
    dom = DOM(browse(tmp_path, f"{url}/#/thread/seeded/record/{rec.id}?budget=2000",
                     "--dump-dom")).root
    assert dom.find_all("body", data_ready="thread")
    layers = {n.attrs["data-layer"]: int(n.attrs["data-tokens"])
              for n in dom.find_all("div", class_="layer")}
    assert layers == small["trace"]["tokens_by_layer"]
    assert dom.find_all("input", id="budget")[0].attrs.get("value") in ("2000", "4000")
    (focused,) = dom.find_all(id=f"record-{rec.id}", class_="focused")
    sources = focused.find_all("div", class_="source")
    assert sources and FACT in sources[0].text and sources[0].attrs["data-seq"] == "1"
    # Links keep the budget.
    links = [a.attrs["href"] for a in dom.find_all("a", class_="record-link")]
    assert links and all(h.endswith("?budget=2000") for h in links)
    shot = tmp_path / "focused.png"
    browse(tmp_path, f"{url}/#/thread/seeded/record/{rec.id}?budget=2000",
           "--window-size=1280,4200", f"--screenshot={shot}")
    print(f"inspector focused screenshot: {shot}")


def test_a_thread_without_ledger_rows_prints_no_stray_null(site, tmp_path):
    url, _, _ = site
    # "other thread" has no ledger rows and no working scores: those sections are left out,
    # not printed as the text "null".
    dom = DOM(browse(tmp_path, f"{url}/#/thread/other%20thread", "--dump-dom")).root
    assert dom.find_all("body", data_ready="thread")
    (view,) = dom.find_all(id="view")
    assert view.find_all("h2", id="thread-title")
    assert "null" not in "".join(view.parts)


def test_notes_are_a_layer_in_order_with_linked_ids(site, page):
    url, ctx, _ = site
    dom = page
    chart = [n.attrs["data-layer"] for n in dom.find_all("div", class_="layer")]
    assert "notes" in chart, "the seeded thread has notes at this budget"
    assert chart.index("notes") < chart.index("buffer")  # in the order the model reads them
    groups = [g.attrs["data-group"] for g in dom.find_all("div", class_="group")]
    assert groups.index("notes") < groups.index("buffer")
    (notes,) = dom.find_all("div", class_="msg", data_layer="notes")
    ids = {a.attrs["data-record"] for a in notes.find_all("a", class_="record-link")}
    expected = {m for msg in ctx["messages"] if msg["layer"] == "notes"
                for m in __import__("re").findall(r"#(\d+)\b", msg["content"])}
    assert ids == expected and ids
    in_view = {n.attrs["data-record"] for n in dom.find_all("div", class_="record")}
    assert ids <= in_view  # "records in view" counts the notes' records
    (system,) = [g for g in dom.find_all("div", class_="group")
                 if g.attrs["data-group"] == "system"]
    assert "memlane's" in system.find_all("h3")[0].text  # not a proxied thread
