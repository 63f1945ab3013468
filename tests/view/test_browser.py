"""The viewer in a real browser (Debian's Chromium through Playwright): the tree renders,
search finds a slot, a reference link opens, scrolls to and highlights its target, the texture
preview loads, the WebGL canvas draws something, back/forward walk the selections, no console
errors; the ``--html`` export opens from ``file://`` and shows the same tree.  Screenshots go
to a temporary folder (its path is printed).

The standin's tests share one loaded page (``standin``): each starts from the same state,
reached in the page the way a user reaches it (select the root, close the open branches and
the search results), and checks that state first; the page loads again only when the tab
shows another document or after a failed test.  A page load costs about 1.2 s of CPU across
Chromium's processes, about as much as a whole test on a loaded page."""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from brson.cli.app import main
from tests.conftest import PROJECT_ROOT
from tests.view.conftest import STANDIN, Page, Running

#: Chromium through Playwright; one worker, so one browser starts.
pytestmark = [pytest.mark.browser, pytest.mark.xdist_group("browser")]

TIMEOUT = 20_000


def open_view(page: Page, url: str) -> Any:
    p = page.page
    p.goto(url)
    p.wait_for_selector("body[data-tree=ready]", timeout=TIMEOUT)
    p.wait_for_selector("body[data-selected]", timeout=TIMEOUT)
    return p


def select(p: Any, key: str) -> None:
    p.evaluate("key => brsonView.go(key)", key)
    p.wait_for_selector(f"body[data-selected='{key}']", timeout=TIMEOUT)


def until(p: Any, predicate: str, timeout: float = 20.0) -> None:
    """Poll a JavaScript predicate (``wait_for_function`` evaluates a string, which the
    page's Content Security Policy refuses, as it should)."""
    deadline = time.monotonic() + timeout
    while not p.evaluate(predicate):
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {predicate}")
        p.wait_for_timeout(50)


def tree_rows(p: Any) -> list[str]:
    """The names of the rows shown, in order (what 'the same tree' compares): rows under a
    closed branch are in the document but not shown."""
    names: list[str] = p.eval_on_selector_all(
        "#tree .node > .row .name",
        "els => els.filter(e => e.offsetParent !== null).map(e => e.textContent)",
    )
    return names


def in_view(p: Any, selector: str) -> bool:
    box = p.eval_on_selector(
        selector,
        """e => { const r = e.getBoundingClientRect(), pane = e.closest('section')
                .getBoundingClientRect(); return r.top >= pane.top && r.bottom <= pane.bottom; }""",
    )
    return bool(box)


def no_errors(page: Page) -> None:
    assert page.errors == [], page.errors


#: Closes every open branch but the root's, deepest first, as a click on its twisty does.
CLOSE_BRANCHES = """() => {
    const open = [...document.querySelectorAll('#tree .node:not([data-key="0"])')]
        .filter(n => !n.querySelector(':scope > .kids').hidden);
    open.sort((a, b) => b.dataset.key.split('.').length - a.dataset.key.split('.').length);
    for (const n of open) n.querySelector(':scope > .row .twisty').click();
}"""


def restart(page: Page) -> None:
    """Back in the page to where a test starts: no search shown, slot 0 selected, only the
    root open.  Errors since the last test's check belong to no test yet: they fail here."""
    no_errors(page)
    p = page.page
    if p.is_visible("#results"):
        p.click("#close-results")
    p.fill("#search", "")
    p.select_option("#search-mode", "all")
    if p.get_attribute("body", "data-selected") != "0":
        select(p, "0")
    p.evaluate(CLOSE_BRANCHES)


def at_start(page: Page, url: str) -> None:
    """The state every standin test starts from, checked (a test before that left the page
    elsewhere fails here, not somewhere later)."""
    p = page.page
    assert p.url.split("#")[0] == url, p.url
    assert p.get_attribute("body", "data-tree") == "ready"
    assert p.get_attribute("body", "data-selected") == "0"
    assert len(tree_rows(p)) == 4, tree_rows(p)  # the root and its three children
    assert p.eval_on_selector_all("#tree .kids:not([hidden])", "els => els.length") == 1
    assert p.is_hidden("#results") and p.input_value("#search") == ""
    assert p.text_content("#inspector h1") == tree_rows(p)[0]
    no_errors(page)


@pytest.fixture
def standin(
    _shared_page: Page, standin_server: Running, request: pytest.FixtureRequest
) -> Iterator[Page]:
    """The module's tab on the standin's server, at the start state (see the module's
    docstring).  After a failed test, or a start that failed its check, the tab leaves for
    ``about:blank``: its state is unknown, so the next test loads the page anew."""
    page = _shared_page
    try:
        if page.page.url.split("#")[0] == standin_server.url:
            restart(page)
        else:
            page.errors.clear()
            open_view(page, standin_server.url)
        at_start(page, standin_server.url)
    except Exception:
        page.page.goto("about:blank")
        raise
    failed = request.session.testsfailed
    yield page
    if request.session.testsfailed != failed:
        page.page.goto("about:blank")


@contextmanager
def serving(page: Page, path: Path) -> Iterator[Running]:
    """A server on ``path`` for one test; the tab leaves its page before the server stops
    (requests still running would fail, and count as the next test's errors)."""
    running = Running(path)
    try:
        yield running
    finally:
        page.page.goto("about:blank")
        running.close()


def test_tree_renders(standin: Page, shots: Path) -> None:
    p = standin.page
    rows = tree_rows(p)
    assert rows[0].startswith("LoadingStandin") and rows[1] == "Visual" and len(rows) == 4
    # Rich text shown stripped, kept whole in the tooltip.
    assert rows[2] == "Get Profile Icon - (9 Nodes)"
    title = p.get_attribute("#tree .node[data-key='0.1'] > .row", "title")
    assert title.startswith("<color=#6700FF>Get Profile Icon</color>")
    assert p.text_content("#inspector h1") == rows[0]
    p.wait_for_selector("body[data-findings=ready]", timeout=TIMEOUT)
    assert "BR502" in p.text_content("#finding-list")
    assert p.text_content("[data-key='0.0'] > .row .badge") == "1"
    p.screenshot(path=shots / "tree.png")
    print(f"screenshots in {shots}")
    no_errors(standin)


def test_search_finds_a_slot(standin: Page, shots: Path) -> None:
    p = standin.page
    p.fill("#search", "UserIconMat")
    p.press("#search", "Enter")
    p.wait_for_selector("body[data-selected='0.0.1']", timeout=TIMEOUT)
    assert p.text_content("#result-list").startswith("UserIconMat")
    assert p.text_content("#tree .row.selected .name") == "UserIconMat"
    p.select_option("#search-mode", "type")
    p.fill("#search", "ObjectFieldDrive")
    p.press("#search", "Enter")
    until(p, "() => document.querySelectorAll('#result-list li').length == 3")
    p.screenshot(path=shots / "search.png")
    no_errors(standin)


def test_reference_link_reveals_target(standin: Page, shots: Path) -> None:
    p = standin.page
    p.click("#tree .node[data-key='0.2'] > .row .twisty")  # open another branch first
    p.wait_for_selector("#tree .node[data-key='0.2.20']")
    select(p, "0.2.20")
    select(p, "0.0")
    # Typed values: Visual's rotation as a quaternion with its Euler angles, colours swatched.
    assert "Euler 0°, 180°, 0°" in p.text_content("#inspector")
    assert p.locator("#inspector .swatch").count() >= 4  # QuadMesh's corner colours
    assert p.locator("#inspector .enum", has_text="Linear").count() >= 1
    link = p.locator("a.ref[data-target='0.0.1']")  # MeshRenderer.Materials[0] -> the material
    assert "UserIconMat:UnlitMaterial" in link.text_content()
    link.click()
    p.wait_for_selector("body[data-selected='0.0.1']", timeout=TIMEOUT)
    row = "#tree .node[data-key='0.0.1'] > .row"
    assert p.get_attribute(row, "class") == "row selected flash"
    assert in_view(p, row)
    assert p.get_attribute("#inspector .card[data-component='0']", "class") == "card flash"
    # Referenced by: the material lists the renderer's slot; following it goes back there.
    back_link = p.locator("#inspector a.ref", has_text="MeshRenderer.Materials[0]")
    back_link.click()
    p.wait_for_selector("body[data-selected='0.0']", timeout=TIMEOUT)
    assert "card flash" in p.get_attribute("#inspector .card[data-component='1']", "class")
    p.screenshot(path=shots / "reference.png")
    no_errors(standin)


def test_texture_preview_loads(standin: Page, shots: Path) -> None:
    p = standin.page
    select(p, "0.0.0")
    img = "#inspector img.texture"
    until(p, f"() => !!document.querySelector('{img}') && document.querySelector('{img}').complete")
    width = p.eval_on_selector(img, "e => e.naturalWidth")
    assert width > 0
    p.screenshot(path=shots / "texture.png")
    no_errors(standin)


def canvas_pixels(p: Any) -> dict[str, int]:
    """How many pixels of the viewport differ from its background, and how many colours."""
    result: dict[str, int] = p.evaluate(
        """() => {
        const c = document.getElementById('canvas');
        const copy = document.createElement('canvas');
        copy.width = c.width; copy.height = c.height;
        const g = copy.getContext('2d');
        g.drawImage(c, 0, 0);
        const px = g.getImageData(0, 0, c.width, c.height).data;
        let lit = 0, bright = 0; const colours = new Set();
        for (let i = 0; i < px.length; i += 4) {
          const [r, gg, b] = [px[i], px[i + 1], px[i + 2]];
          if (Math.abs(r - 0x15) + Math.abs(gg - 0x18) + Math.abs(b - 0x1e) > 24) lit++;
          if (r > 180 && gg > 180 && b > 180) bright++;
          colours.add((r << 16) | (gg << 8) | b);
        }
        return { lit, bright, colours: colours.size, total: px.length / 4 };
    }"""
    )
    return result


def test_webgl_canvas_not_blank(standin: Page, shots: Path) -> None:
    p = standin.page
    p.wait_for_selector("body[data-viewport=loaded]", timeout=TIMEOUT)
    select(p, "0.0")  # Visual: the textured quad (its own scale is 0; shown without it)
    p.evaluate("document.body.dataset.viewport = ''")
    p.click("#load-3d")
    p.wait_for_selector("body[data-viewport=loaded]", timeout=TIMEOUT)
    p.wait_for_timeout(300)
    pixels = canvas_pixels(p)
    assert pixels["total"] > 10_000
    assert pixels["lit"] > pixels["total"] * 0.05, pixels  # the quad covers part of the view
    assert pixels["bright"] > 500, pixels  # the icon texture's light silhouette
    assert pixels["colours"] > 50, pixels
    p.screenshot(path=shots / "viewport.png")
    # Selection synced: clicking the quad in the viewport selects its slot in the tree.
    select(p, "0.2")
    box = p.locator("#canvas").bounding_box()
    p.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    p.wait_for_selector("body[data-selected='0.0']", timeout=TIMEOUT)
    no_errors(standin)


def test_back_and_forward(standin: Page) -> None:
    p = standin.page
    for key in ("0.0", "0.0.1", "0.2.5"):
        select(p, key)
    p.click("#back")
    p.wait_for_selector("body[data-selected='0.0.1']", timeout=TIMEOUT)
    p.go_back()
    p.wait_for_selector("body[data-selected='0.0']", timeout=TIMEOUT)
    p.click("#forward")
    p.wait_for_selector("body[data-selected='0.0.1']", timeout=TIMEOUT)
    p.go_forward()
    p.wait_for_selector("body[data-selected='0.2.5']", timeout=TIMEOUT)
    assert p.text_content("#tree .row.selected .name") == p.text_content("#inspector h1")
    no_errors(standin)


def test_flux_pane_draws_a_slots_graph(standin: Page, shots: Path) -> None:
    """The group slot 'Get Profile Icon' holds 9 nodes with 8 connections among them: drawn
    at their slots' positions, and a click on a node opens its slot in the inspector."""
    p = standin.page
    select(p, "0.1")
    p.wait_for_selector("body[data-flux='9']", timeout=TIMEOUT)
    assert not p.is_hidden("#flux")
    assert p.locator("#flux-graph .flux-node").count() == 9
    assert p.locator("#flux-graph line.flux-edge.value").count() == 8
    assert p.text_content("#flux-status") == "9 nodes, 8 connections"

    def left(node_id: str) -> float:
        box = p.locator(f"#flux-graph .flux-node[data-id='{node_id}']").bounding_box()
        assert box is not None
        return float(box["x"])

    # Stored x: ObjectValueSource<Uri> 0.135, UserUserID 0.525, ObjectFieldDrive<Uri> 0.885.
    source, user, drive = (
        f"{n}-0000-0000-0000-000000000000" for n in ("000000ee", "000000dd", "00000103")
    )
    assert left(source) < left(user) < left(drive)
    p.screenshot(path=shots / "flux.png")
    p.click(f"#flux-graph .flux-node[data-id='{user}']")
    p.wait_for_selector("body[data-selected='0.1.0']", timeout=TIMEOUT)
    assert p.text_content("#inspector h1") == "UserUserID"
    assert p.locator("#flux-graph .flux-node.selected").count() == 1
    select(p, "0.0")  # no ProtoFlux under Visual: the pane goes
    p.wait_for_selector("body[data-flux='0']", timeout=TIMEOUT)
    assert p.is_hidden("#flux")
    no_errors(standin)


def test_keyboard_walks_the_tree(standin: Page) -> None:
    p = standin.page
    p.focus("#tree-pane")
    for key, expected in [
        ("ArrowDown", "0.0"),
        ("ArrowRight", None),  # opens 0.0
        ("ArrowRight", "0.0.0"),
        ("ArrowDown", "0.0.1"),
        ("ArrowLeft", "0.0"),
        ("ArrowLeft", None),  # closes it
        ("ArrowDown", "0.1"),
        ("ArrowUp", "0.0"),
        ("ArrowLeft", "0"),
    ]:
        before = p.get_attribute("body", "data-selected")
        p.keyboard.press(key)
        if expected is None:
            p.wait_for_timeout(150)
            assert p.get_attribute("body", "data-selected") == before
        else:
            p.wait_for_selector(f"body[data-selected='{expected}']", timeout=TIMEOUT)
    assert p.is_hidden("#tree .node[data-key='0.0'] > .kids")
    no_errors(standin)


def test_static_export_from_file(standin: Page, tmp_path: Path, shots: Path) -> None:
    # The server's tree first, from the start state (the export below opens in this tab).
    p = standin.page
    select(p, "0.2.3")
    server_rows = tree_rows(p)
    out = tmp_path / "standin.html"
    assert main(["view", str(STANDIN), "--html", str(out)]) == 0
    text = out.read_text()
    assert "http://" not in text.split("</style>")[0] and "token" not in text.split("<body")[1][:80]
    p = open_view(standin, out.as_uri())
    select(p, "0.2.3")
    p.wait_for_selector("body[data-viewport=loaded]", timeout=TIMEOUT)
    assert tree_rows(p) == server_rows  # the file shows the same tree as the server
    p.screenshot(path=shots / "static.png")
    no_errors(standin)
    # Search, references and the texture work from the file too.
    p.fill("#search", "UserIconTex")
    p.press("#search", "Enter")
    p.wait_for_selector("body[data-selected='0.0.0']", timeout=TIMEOUT)
    assert p.eval_on_selector("#inspector img.texture", "e => e.src.startsWith('data:image/')")
    select(p, "0.0")
    p.locator("a.ref[data-target='0.0.1']").click()
    p.wait_for_selector("body[data-selected='0.0.1']", timeout=TIMEOUT)
    select(p, "0.1")  # the ProtoFlux pane reads the graph from the file too
    p.wait_for_selector("body[data-flux='9']", timeout=TIMEOUT)
    no_errors(standin)


@pytest.mark.parametrize(
    "name",
    [
        "mar_coresys.resonitepackage",
        "orange3134_AvatarRootIdentification.brson",
        "mar_AimConstraint.pg.brson",
        "redx_5ce7cdf5.7zbson",
    ],
)
def test_real_samples(page: Page, samples_dir: Path, name: str) -> None:
    """Every kind of real file opens: the deepest slot is revealed, its inspector shows."""
    from brson.view.data import walk_keys

    with serving(page, samples_dir / name) as running:
        deepest = max((key for key, _ in walk_keys(running.data.tree.root)), key=len)
        p = open_view(page, running.url)
        assert tree_rows(p)
        select(p, deepest)
        assert in_view(p, f"#tree .node[data-key='{deepest}'] > .row")
        p.wait_for_selector("body[data-findings=ready]", timeout=60_000)
        no_errors(page)


def test_lazy_on_a_generated_world(page: Page, tmp_path: Path) -> None:
    """The page never receives the whole tree: on a 2,000-slot world (benchmarks/worlds.py)
    the first paint draws the root and its children only, and opening the deepest slot asks
    for its ancestors' children, not for the rest."""
    sys.path.insert(0, str(PROJECT_ROOT / "benchmarks"))
    import worlds

    from brson.view.data import walk_keys

    data, _meta = worlds.generate(2000)
    path = tmp_path / "world.bson"
    path.write_bytes(data)
    sizes: list[int] = []
    # Tree data only: the findings list is the whole file's by design (validate's findings,
    # ~750 KB here) and arrives whenever validation ends, before or after the check below.

    def record(r: Any) -> None:
        if "/api/" in r.url and "/api/findings" not in r.url:
            sizes.append(len(r.body()))

    page.page.on("response", record)
    try:
        with serving(page, path) as running:
            p = open_view(page, running.url)
            root_children = running.data.children("0")["total"]
            assert p.eval_on_selector_all("#tree .node", "els => els.length") == 1 + root_children
            deepest = max((key for key, _ in walk_keys(running.data.tree.root)), key=len)
            select(p, deepest)
            shown = p.eval_on_selector_all("#tree .node", "els => els.length")
            assert shown < 400, shown  # the path's siblings, not 2,000 rows
            assert max(sizes) < 300_000, max(sizes)
            no_errors(page)
    finally:
        page.page.remove_listener("response", record)  # the tab is the module's
