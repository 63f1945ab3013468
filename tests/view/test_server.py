"""The viewer's server and data layer without a browser: the safety model (loopback only,
token, Host header, no paths from requests, only the opened file's assets), the endpoints'
answers on the demo package, and the command's errors."""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from brson.cli.app import main
from brson.package import load_package
from brson.view import ViewData, ViewError, page
from brson.view.data import key_path, quaternion_euler
from tests.view.conftest import STANDIN, Running

#: The texture the demo package holds (UserIconTex's StaticTexture2D URL).
TEXTURE = "30a0bc21f298c2e75427245468405849b6c7ea67eb9ced14ecbc5dc1ef3eabb3"


def raw_get(port: int, target: str, host: str | None) -> tuple[int, bytes]:
    """A GET with exactly the request line and Host header given (None: no Host at all)."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        lines = [f"GET {target} HTTP/1.1"]
        if host is not None:
            lines.append(f"Host: {host}")
        lines += ["Connection: close", "", ""]
        sock.sendall("\r\n".join(lines).encode())
        reply = b""
        while chunk := sock.recv(65536):
            reply += chunk
    head, _, body = reply.partition(b"\r\n\r\n")
    return int(head.split()[1]), body


def get(server: Running, path: str, token: bool = True) -> tuple[int, Any]:
    sep = "&" if "?" in path else "?"
    url = server.base + path + (f"{sep}token={server.server.token}" if token else "")
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            body = response.read()
            kind = response.headers["Content-Type"]
            return response.status, json.loads(body) if "json" in kind else body
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


# -- safety ------------------------------------------------------------------------------
def test_binds_loopback_only(standin_server: Running) -> None:
    assert standin_server.server.server_address[0] == "127.0.0.1"
    assert len(standin_server.server.token) >= 32


@pytest.mark.parametrize("path", ["/", "/api/info", "/static/app.js", f"/api/asset/{TEXTURE}"])
def test_missing_or_wrong_token_refused(standin_server: Running, path: str) -> None:
    port = standin_server.server.port
    host = f"127.0.0.1:{port}"
    assert raw_get(port, path, host)[0] == 403
    assert raw_get(port, path + "?token=wrong", host)[0] == 403
    assert raw_get(port, path + "?token=", host)[0] == 403
    right = raw_get(port, f"{path}?token={standin_server.server.token}", host)
    assert right[0] == 200


@pytest.mark.parametrize("host", ["evil.example:80", "127.0.0.1", "127.0.0.1:1", None, ""])
def test_wrong_host_refused(standin_server: Running, host: str | None) -> None:
    """A page elsewhere that rebinds its name to 127.0.0.1 sends its own name as Host."""
    port = standin_server.server.port
    status, _ = raw_get(port, f"/api/info?token={standin_server.server.token}", host)
    assert status == 403
    assert (
        raw_get(port, f"/api/info?token={standin_server.server.token}", f"localhost:{port}")[0]
        == 200
    )


@pytest.mark.parametrize(
    "path",
    [
        "/static/../../../../etc/passwd",
        "/static/%2e%2e/%2e%2e/etc/passwd",
        "/static/..%2f..%2fdata.py",
        "/static/vendor/../../data.py",
        "/static/index.html/../../server.py",
        "/api/asset/../../../etc/passwd",
        "/api/asset/..%2F..%2Fetc%2Fpasswd",
        "/api/asset/" + "a" * 64 + "/../x",
        "/etc/passwd",
        "//etc/passwd",
        "/api/slot/../../etc/passwd",
    ],
)
def test_path_traversal_refused(standin_server: Running, path: str) -> None:
    port = standin_server.server.port
    status, body = raw_get(port, f"{path}?token={standin_server.server.token}", f"127.0.0.1:{port}")
    assert status == 404
    assert b"root:" not in body and b"import" not in body


def test_assets_only_of_the_opened_file(standin_server: Running, samples_dir: Path) -> None:
    status, body = get(standin_server, f"/api/asset/{TEXTURE}")
    assert status == 200 and body.startswith(b"\x89PNG")
    # A real asset of another package, by its hash: not this file's, so not served.
    other = load_package(samples_dir / "mar_coresys.resonitepackage")
    foreign = next(iter(other.assets))
    assert foreign not in load_package(STANDIN).assets
    assert get(standin_server, f"/api/asset/{foreign}")[0] == 404
    # The main tree is an entry of the package too, but not an image the page may fetch.
    main_tree = load_package(STANDIN).main
    assert get(standin_server, f"/api/asset/{main_tree}")[0] in (404, 422)
    assert get(standin_server, "/api/asset/" + hashlib.sha256(b"x").hexdigest())[0] == 404
    assert get(standin_server, "/api/asset/" + TEXTURE.upper())[0] == 404


def test_read_only(standin_server: Running) -> None:
    url = f"{standin_server.base}/api/info?token={standin_server.server.token}"
    for method in ("POST", "PUT", "DELETE"):
        request = urllib.request.Request(url, data=b"{}", method=method)
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request, timeout=10)
        assert caught.value.code == 405


def test_headers(standin_server: Running) -> None:
    url = f"{standin_server.base}/?token={standin_server.server.token}"
    with urllib.request.urlopen(url, timeout=10) as response:
        headers = response.headers
        text = response.read().decode()
    assert headers["Referrer-Policy"] == "no-referrer"
    assert headers["X-Content-Type-Options"] == "nosniff"
    assert "default-src 'none'" in headers["Content-Security-Policy"]
    assert headers["Cache-Control"] == "no-store"
    assert "http://" not in text.replace(standin_server.base, "") and "https://" not in text


# -- answers -----------------------------------------------------------------------------
def test_endpoints(standin_server: Running) -> None:
    assert standin_server.data.index.findings_ready.wait(60)
    status, info = get(standin_server, "/api/info")
    assert status == 200 and info["root"]["name"].startswith("LoadingStandin")
    _, kids = get(standin_server, "/api/children?key=0")
    assert kids["children"][0]["name"] == "Visual" and kids["total"] == 3
    _, detail = get(standin_server, "/api/slot?key=0.0")
    renderer = next(c for c in detail["components"] if c["short"] == "MeshRenderer")
    materials = next(f for f in renderer["fields"] if f["name"] == "Materials")["value"]
    target = materials["items"][0]["target"]
    assert target["key"] == "0.0.1" and target["kind"] == "component"
    assert not detail["pending"]
    _, incoming = get(standin_server, "/api/incoming?key=0.0")
    assert any(r["to"] == "QuadMesh" and r["key"] == "0.0" for r in incoming)
    _, incoming = get(standin_server, "/api/incoming?key=0.0.1")
    assert incoming == [
        {
            "to": "UnlitMaterial",
            "from": "LoadingStandin - Thumbnail v1.3.1/Visual:MeshRenderer.Materials[0]",
            "key": "0.0",
            "component": 1,
        }
    ]
    _, target = get(standin_server, "/api/target?id=00000038-0000-0000-0000-000000000000")
    assert target["key"] == "0.0.1" and target["component"] == 0
    _, found = get(standin_server, "/api/search?q=usericonmat")
    assert [r["key"] for r in found["results"]] == ["0.0.1"]
    _, by_type = get(standin_server, "/api/search?q=StaticTexture2D&mode=type")
    assert [r["key"] for r in by_type["results"]] == ["0.0.0"]
    _, by_id = get(standin_server, "/api/search?q=00000038-0000-0000-0000-000000000000&mode=id")
    assert by_id["results"][0]["key"] == "0.0.1"
    _, findings = get(standin_server, "/api/findings")
    assert findings["ready"] and any(f["code"] == "BR502" for f in findings["findings"])
    assert next(f for f in findings["findings"] if f["code"] == "BR502")["key"] == "0.0"
    status, glb = get(standin_server, "/api/glb?key=0.0")
    assert status == 200 and glb[:4] == b"glTF"
    _, revealed = get(standin_server, "/api/reveal?key=0.2.3")
    # One list per ancestor (the root's children, then 0.2's); keys are the page's to derive.
    lists = revealed["lists"]
    assert len(lists) == 2 and lists[1]["total"] > 3 and "key" not in lists[1]


@pytest.mark.parametrize("key", ["1", "0.99", "0..1", "0.-1", "x", "0.1e3", "0." + "9" * 12])
def test_bad_keys(standin_server: Running, key: str) -> None:
    status, body = get(standin_server, f"/api/slot?key={key}")
    assert status == 404 and b"error" in body


def test_key_path() -> None:
    assert key_path("0") == [] and key_path("0.2.10") == [2, 10]
    with pytest.raises(ViewError):
        key_path("0.a")


def test_typed_values() -> None:
    data = ViewData.open(STANDIN)
    assert data.typed("12345678-0000-0000-0000-000000000000")["pending"]  # the graph is not built
    data.build_now()
    assert data.typed([0.0, 0.7071068, 0.0, 0.7071068], "Rotation")["euler"] == [0.0, 90.0, 0.0]
    color = data.typed([1.0, 0.5, 0.0, 1.0, "sRGB"], "Tint")
    assert color == {"t": "colorX", "v": [1.0, 0.5, 0.0, 1.0], "profile": "sRGB"}
    assert data.typed([1.0, 2.0, 3.0])["t"] == "float3"
    assert data.typed([float(i) for i in range(16)])["t"] == "float4x4"
    assert data.typed(float("nan")) == {"t": "float", "v": "nan"}
    assert data.typed("Bilinear", "FilterMode") == {"t": "enum", "v": "Bilinear"}
    assert data.typed("Bilinear", "Name")["t"] == "str"
    assert data.typed(None) == {"t": "null"}
    external = data.typed("12345678-0000-0000-0000-000000000000")
    assert external["t"] == "ref" and external["target"] is None
    uri = data.typed(f"@packdb:///{TEXTURE}", "URL")
    assert uri["asset"] == TEXTURE and uri["image"] is True
    assert quaternion_euler([0.0, 0.0, 0.0, 1.0]) == [0.0, 0.0, 0.0]


def test_children_paging(tmp_path: Path) -> None:
    """A slot with more children than a page lists them page by page."""
    import brson

    counter = iter(range(1, 1 << 20))

    def guid() -> str:
        return f"{next(counter):08x}-0000-0000-0000-000000000000"

    def slot(name: str, children: list[dict[str, Any]]) -> dict[str, Any]:
        return {
            "ID": guid(),
            "Components": {"ID": guid(), "Data": []},
            "Name": {"ID": guid(), "Data": name},
            "Children": children,
        }

    flat = slot("flat", [slot(f"child {i}", []) for i in range(1203)])
    path = tmp_path / "flat.brson"
    brson.dump({"VersionNumber": "2025.1.1.1", "Types": [], "Object": flat}, path)
    data = ViewData.open(path)
    first = data.children("0")
    assert first["total"] == 1203 and len(first["children"]) == 500
    last = data.children("0", offset=1000)
    assert [c["name"] for c in last["children"]][-1] == "child 1202"
    revealed = data.reveal("0.1100")
    (page,) = revealed["lists"]
    assert page["children"][1100 - page["offset"]]["name"] == "child 1100"


# -- the command -------------------------------------------------------------------------
def test_cli_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["view", str(tmp_path / "missing.brson"), "--no-browser"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "missing.brson" in err[0]
    assert main(["view", str(STANDIN), "--html", str(STANDIN)]) == 2
    assert "never writes over its inputs" in capsys.readouterr().err


def test_missing_vendor_bundle_is_one_clear_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setattr(page, "VENDOR", "vendor/absent.js")
    page.static_file.cache_clear()
    try:
        assert main(["view", str(STANDIN), "--html", str(tmp_path / "x.html")]) == 2
    finally:
        page.static_file.cache_clear()
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "make vendor" in err[0] and STANDIN.name in err[0]
    assert not (tmp_path / "x.html").exists()


def test_cli_serves_until_stopped() -> None:
    """The real command: prints the URL (a free port, the token), answers, stops on a signal."""
    process = subprocess.Popen(
        [sys.executable, "-m", "brson", "view", str(STANDIN), "--no-browser"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        url = line.split(" at ", 1)[1].split()[0]
        assert url.startswith("http://127.0.0.1:") and "token=" in url
        api = url.replace("/?token=", "/api/info?token=")
        with urllib.request.urlopen(api, timeout=30) as response:
            assert json.loads(response.read())["file"] == STANDIN.name
    finally:
        process.send_signal(2)  # SIGINT: Ctrl-C
        _, err = process.communicate(timeout=30)
    assert process.returncode == 0, err
    assert "Traceback" not in err


def test_port_in_use_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["view", str(STANDIN), "--no-browser", "--port", str(port)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"127.0.0.1:{port}" in err[0] and STANDIN.name in err[0]


def test_static_export_refuses_huge_files(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    from brson.view import bundle

    monkeypatch.setattr(bundle, "STATIC_LIMIT", 10)
    out = tmp_path / "x.html"
    assert main(["view", str(STANDIN), "--html", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "36 slots is too many" in err[0] and not out.exists()


def test_glb_of_a_huge_subtree_is_refused(
    standin_server: Running, monkeypatch: pytest.MonkeyPatch
) -> None:
    from brson.view import data

    monkeypatch.setattr(data, "GLB_LIMIT", 5)
    status, body = get(standin_server, "/api/glb?key=0.2")
    assert status == 404 and b"select a smaller part" in body
    assert get(standin_server, "/api/glb?key=0.0")[0] == 200  # 3 slots


def test_closing_ends_kept_alive_connections() -> None:
    """A browser keeps its connection open between requests; stopping the server must end
    that connection's thread, not leave it to wake during interpreter shutdown (where it died
    with a traceback on Ctrl-C)."""
    import http.client
    import threading

    from tests.view.conftest import Running

    running = Running(STANDIN)
    connection = http.client.HTTPConnection("127.0.0.1", running.server.port, timeout=30)
    try:
        token = running.server.token
        connection.request("GET", f"/api/info?token={token}")
        response = connection.getresponse()
        assert response.status == 200 and json.loads(response.read())["file"] == STANDIN.name
        serving = [t for t in threading.enumerate() if t.name == "brson-view-connection"]
        assert serving, "the kept-alive connection has its thread"
        running.close()
        assert not any(t.is_alive() for t in serving), "a connection thread outlived the server"
    finally:
        connection.close()


def test_ctrl_c_while_a_connection_thread_starts_stops_the_server(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-C can land while a connection's thread is starting: the thread runs, and
    KeyboardInterrupt must still reach serve_forever (giving the slot back twice raised a
    ValueError in its place, which the server swallowed: it kept serving, and the thread
    died with a traceback)."""
    import threading

    from tests.view.conftest import Running

    running = Running(STANDIN)
    running.close()  # stop its loop: process_request is driven by hand below
    server = running.server
    real_start = threading.Thread.start
    left, right = socket.socketpair()

    def start_then_interrupt(self: threading.Thread) -> None:
        real_start(self)
        right.close()  # the client goes away: the thread ends and gives its slot back
        self.join(5)
        assert not self.is_alive()
        raise KeyboardInterrupt

    monkeypatch.setattr(threading.Thread, "start", start_then_interrupt)
    try:
        with pytest.raises(KeyboardInterrupt):
            server.process_request(left, ("127.0.0.1", 0))
    finally:
        right.close()
        left.close()
    monkeypatch.undo()
    # every slot is free again, and no more than that
    slots = [server._slots.acquire(blocking=False) for _ in range(40)]
    assert sum(slots) == 32
