"""The committed Activity bundle (bot/web/static/), without a browser or Node: built from
the sources as they are, loadable under the server's CSP, and shipped with its licenses."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "bot" / "web" / "client"
STATIC = ROOT / "bot" / "web" / "static"
REBUILD = "npm --prefix bot/web/client ci && npm --prefix bot/web/client run build"


def sources() -> list[str]:
    """The files build.mjs hashes, in its order."""
    files = ["build.mjs", "package.json", "package-lock.json"]

    def walk(rel: str) -> None:
        for name in sorted(p.name for p in (CLIENT / rel).iterdir()):
            path = f"{rel}/{name}"
            if (CLIENT / path).is_dir():
                walk(path)
            else:
                files.append(path)

    walk("src")
    return files


def test_the_bundle_is_built_from_the_sources_as_they_are() -> None:
    info = json.loads((STATIC / "build-info.json").read_text(encoding="utf-8"))
    assert info["sources"] == sources(), f"the client's files changed: run {REBUILD}"
    digest = hashlib.sha256()
    for rel in sources():
        digest.update(rel.encode() + b"\0")
        digest.update((CLIENT / rel).read_bytes())
        digest.update(b"\0")
    assert digest.hexdigest() == info["sources_sha256"], (
        f"bot/web/static/ is older than bot/web/client/: run {REBUILD}")


def test_the_page_needs_nothing_the_csp_forbids() -> None:
    html = (STATIC / "index.html").read_text(encoding="utf-8")
    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S | re.I)
    assert scripts and all("src=" in attrs and not body.strip() for attrs, body in scripts)
    assert re.search(r"\sstyle\s*=", html, re.I) is None
    assert "<style" not in html.lower()
    assert re.search(r"\son[a-z]+\s*=", html, re.I) is None
    # Every URL relative to the origin: inside Discord they go through its proxy.
    for url in re.findall(r'(?:src|href)="([^"]+)"', html):
        assert url.startswith("/static/") or url.startswith("data:"), url
    js = (STATIC / "app.js").read_text(encoding="utf-8")
    assert "eval(" not in js and "new Function" not in js


def test_the_licenses_ship_beside_the_bundle() -> None:
    info = json.loads((STATIC / "build-info.json").read_text(encoding="utf-8"))
    assert "@discord/embedded-app-sdk" in info["packages"]
    sdk = (STATIC / "embedded-app-sdk.LICENSE.md").read_text(encoding="utf-8")
    assert "MIT License" in sdk and "Discord" in sdk
    third = (STATIC / "THIRD-PARTY-LICENSES.txt").read_text(encoding="utf-8")
    for name in info["packages"]:
        assert f"{name}@" in third, name
