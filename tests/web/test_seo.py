"""Found by search engines, shown well in link previews: robots.txt, the sharded sitemap, canonical and sharing
tags, JSON-LD, the preview pictures; and nothing private, gated or hidden in any of them."""

from __future__ import annotations

import gzip
import io
import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PIL import Image

from rlx import create_app
from tests.conftest import EXAMPLES, with_examples_indexed
from tests.stand_ins.hub_fixtures import ALICE, GATED_HARBOR, PRIVATE_HARBOR, PUBLIC_HARBOR

PUBLIC = "https://explorer.example.org"
NS = {"sm": "http://www.sitemaps.org/schemas/sitemap/0.9"}
ORIGIN = {"Origin": "http://localhost"}
# What the bundled examples folder holds, read from the folder itself (not from the code under test).
DATASETS = sorted(p.name for p in (EXAMPLES / "datasets" / "rlx-examples").iterdir() if p.is_dir())
SPACES = sorted(p.name for p in (EXAMPLES / "spaces" / "rlx-examples").iterdir() if p.is_dir())
TERMINAL_TASKS = sorted(p.name for p in (EXAMPLES / "datasets/rlx-examples/terminal-basics/tasks").iterdir())


@pytest.fixture
def public_app(make_config, redis_client, examples_indexed):
    """The bundled examples with the Harbor ones indexed, served at a public address, in shards of 4 URLs."""
    app = create_app(make_config(RLX_PUBLIC_URL=PUBLIC))
    app.config["RLX_SITEMAP_SHARD_SIZE"] = 4
    return with_examples_indexed(app, examples_indexed)


def hide(app, *env_ids):
    path = app.extensions["rlx.store"].settings_path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"hidden": list(env_ids)}))


def all_sitemap_urls(client, host="localhost") -> tuple[list[str], list[list[str]]]:
    """Every shard the index names, fetched and parsed: (shard URLs, the page URLs of each shard)."""
    response = client.get("/sitemap.xml", headers={"Host": host})
    assert response.status_code == 200 and response.mimetype == "application/xml"
    index = ET.fromstring(response.data)
    assert index.tag == f"{{{NS['sm']}}}sitemapindex"
    shard_urls = [loc.text for loc in index.findall("sm:sitemap/sm:loc", NS)]
    shards = []
    for url in shard_urls:
        assert url.startswith(PUBLIC + "/sitemap-")
        answer = client.get(url[len(PUBLIC):], headers={"Host": host})
        assert answer.status_code == 200, url
        urlset = ET.fromstring(answer.data)
        assert urlset.tag == f"{{{NS['sm']}}}urlset"
        for entry in urlset.findall("sm:url", NS):
            assert re.fullmatch(r"\d{4}-\d\d-\d\d(T\d\d:\d\d:\d\dZ)?", entry.find("sm:lastmod", NS).text)
        shards.append([loc.text for loc in urlset.findall("sm:url/sm:loc", NS)])
    return shard_urls, shards


def test_the_sitemap_index_lists_shards_of_bounded_size_that_name_every_public_page(public_app):
    client = public_app.test_client()
    shard_urls, shards = all_sitemap_urls(client, host="127.0.0.1:5000")  # the Host named never leaks in
    numbered = shard_urls[:-1]  # then the Spaces' task pages (tests/live/test_space_task_pages.py)
    assert numbered == [f"{PUBLIC}/sitemap-{n}.xml" for n in range(1, len(numbered) + 1)]
    assert shard_urls[-1] == f"{PUBLIC}/sitemap-space-tasks.xml"
    assert max(len(urls) for urls in shards) == 4  # full shards, never past the size
    every = [url for urls in shards for url in urls]
    assert len(every) == len(set(every)) and all(url.startswith(PUBLIC + "/") for url in every)
    for name in DATASETS:
        assert every.count(f"{PUBLIC}/d/rlx-examples/{name}") <= 1
    assert f"{PUBLIC}/d/rlx-examples/terminal-basics" in every
    assert f"{PUBLIC}/s/rlx-examples/echo-env" in every
    for task in TERMINAL_TASKS:
        assert f"{PUBLIC}/t/rlx-examples/terminal-basics/{task}" in every
    assert len(numbered) >= 5  # 13 datasets, 2 Spaces and the tasks of three Harbor examples, four per shard
    assert client.get(f"/sitemap-{len(numbered) + 1}.xml").status_code == 404
    assert client.get("/sitemap-0.xml").status_code == 404
    assert client.get("/sitemap-99999999999999999999.xml").status_code == 404


def test_sitemaps_come_gzipped_to_a_crawler_that_accepts_it_still_streamed_and_plain_to_one_that_does_not(
        public_app):
    client = public_app.test_client()
    for path in ("/sitemap.xml", "/sitemap-1.xml", "/sitemap-2.xml"):
        plain = client.get(path)
        assert plain.status_code == 200 and "Content-Encoding" not in plain.headers, path
        assert plain.data.startswith(b"<?xml"), path
        zipped = client.get(path, headers={"Accept-Encoding": "deflate, gzip"})
        assert zipped.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in zipped.headers["Vary"], path
        assert gzip.decompress(zipped.data) == plain.data, path
        refused = client.get(path, headers={"Accept-Encoding": "gzip;q=0, identity"})
        assert "Content-Encoding" not in refused.headers and refused.data == plain.data, path
    shard = client.get("/sitemap-1.xml", headers={"Accept-Encoding": "gzip"}, buffered=False)
    assert shard.is_streamed and "Content-Length" not in shard.headers  # sent as it is written, length unknown
    shard.close()


def test_a_sitemap_url_opens_the_page_it_names_whose_canonical_url_is_that_same_url(public_app):
    client = public_app.test_client()
    _, shards = all_sitemap_urls(client)
    named = [url for urls in shards for url in urls if "/rlx-examples/terminal-basics" in url or "echo-env" in url]
    assert len(named) == len(TERMINAL_TASKS) + 2
    for url in named:
        assert canonical(head_of(client.get(url[len(PUBLIC):]))) == url


def test_hidden_environments_are_in_no_sitemap_no_preview_and_no_sharing_tag(public_app):
    client = public_app.test_client()
    _, before = all_sitemap_urls(client)
    assert any("/terminal-basics" in url for urls in before for url in urls)
    assert client.get("/preview/d/rlx-examples/terminal-basics.png").status_code == 200

    hide(public_app, "rlx-examples/terminal-basics", "space:rlx-examples/echo-env")
    _, after = all_sitemap_urls(client)
    every = "\n".join(url for urls in after for url in urls)
    assert "terminal-basics" not in every and "echo-env" not in every
    assert f"{PUBLIC}/d/rlx-examples/python-bugfix" in every
    for path in ("/preview/d/rlx-examples/terminal-basics.png", "/preview/s/rlx-examples/echo-env.png"):
        response = client.get(path)
        assert response.status_code == 404 and response.mimetype != "image/png"
    for page in ("/d/rlx-examples/terminal-basics", f"/t/rlx-examples/terminal-basics/{TERMINAL_TASKS[0]}"):
        response = client.get(page)  # hidden is absent for the public: no page to share at all
        assert response.status_code == 404
        text = response.get_data(as_text=True)
        assert "terminal-basics" not in sharing_tags(text) and "application/ld+json" not in text


def head_of(response) -> str:
    assert response.status_code == 200, response.status_code
    text = response.get_data(as_text=True)
    return text[:text.index("</head>")]


def sharing_tags(head: str) -> str:
    return "\n".join(re.findall(r'<meta (?:property="og:|name="twitter:)[^>]*>', head))


def tag(head: str, name: str) -> str | None:
    attribute = "property" if name.startswith("og:") else "name"
    found = re.search(rf'<meta {attribute}="{re.escape(name)}" content="([^"]*)">', head)
    return found.group(1) if found else None


def canonical(head: str) -> str | None:
    found = re.search(r'<link rel="canonical" href="([^"]*)">', head)
    return found.group(1) if found else None


@pytest.mark.parametrize("path, expected", [
    ("/?q=grid&sort=likes", "/"),
    ("/d/rlx-examples/terminal-basics?page=1&q=csv", "/d/rlx-examples/terminal-basics"),
    (f"/t/rlx-examples/terminal-basics/{TERMINAL_TASKS[0]}?f=instruction.md",
     f"/t/rlx-examples/terminal-basics/{TERMINAL_TASKS[0]}"),
    ("/s/rlx-examples/echo-env", "/s/rlx-examples/echo-env"),
    ("/community", "/community"),
])
def test_every_page_kind_names_its_canonical_url_and_sharing_tags_on_the_public_origin(public_app, path, expected):
    head = head_of(public_app.test_client().get(path, headers={"Host": "localhost:8080"}))
    assert canonical(head) == PUBLIC + expected
    assert tag(head, "og:url") == PUBLIC + expected
    for name in ("og:title", "og:description", "og:image", "twitter:title", "twitter:description", "twitter:image"):
        assert tag(head, name), name
    assert tag(head, "twitter:card") == "summary_large_image"
    assert tag(head, "og:image").startswith(PUBLIC + "/preview/")
    assert "noindex" not in head


def test_an_environment_page_shares_its_own_picture_and_a_dataset_page_describes_itself_in_json_ld(public_app):
    client = public_app.test_client()
    head = head_of(client.get("/d/rlx-examples/terminal-basics"))
    image = tag(head, "og:image").replace("&amp;", "&")
    assert image.startswith(f"{PUBLIC}/preview/d/rlx-examples/terminal-basics.png?v=")
    assert "Terminal" in tag(head, "og:title")
    data = json.loads(re.search(r'<script type="application/ld\+json"[^>]*>(.*?)</script>', head, re.S).group(1))
    assert data["@type"] == "Dataset" and data["@context"] == "https://schema.org"
    assert data["url"] == f"{PUBLIC}/d/rlx-examples/terminal-basics" and data["name"] and data["description"]

    space = head_of(client.get("/s/rlx-examples/echo-env"))
    assert tag(space, "og:image").startswith(f"{PUBLIC}/preview/s/rlx-examples/echo-env.png?v=")
    assert "application/ld+json" not in space  # a Space is not a dataset


def test_the_preview_is_a_1200_by_630_png_drawn_once_and_cached_by_version(public_app):
    client = public_app.test_client()
    head = head_of(client.get("/d/rlx-examples/terminal-basics"))
    url = tag(head, "og:image").replace("&amp;", "&")[len(PUBLIC):]
    first = client.get(url)
    assert first.status_code == 200 and first.mimetype == "image/png"
    assert "immutable" in first.headers["Cache-Control"] and "public" in first.headers["Cache-Control"]
    picture = Image.open(io.BytesIO(first.data))
    assert picture.format == "PNG" and picture.size == (1200, 630)

    kept = sorted((Path(public_app.config["RLX"].storage_dir) / "previews").glob("d-rlx-examples+terminal-basics.*"))
    assert len(kept) == 1
    made_at = kept[0].stat().st_mtime_ns
    again = client.get(url)
    assert again.data == first.data and kept[0].stat().st_mtime_ns == made_at  # served from the store
    unversioned = client.get(url.split("?")[0])
    assert unversioned.data == first.data and "immutable" not in unversioned.headers["Cache-Control"]
    assert client.get(url, headers={"If-None-Match": again.headers["ETag"]}).status_code == 304

    site = client.get("/preview/site.png")
    assert site.status_code == 200 and Image.open(io.BytesIO(site.data)).size == (1200, 630)


@pytest.mark.parametrize("path", ["/preview/d/rlx-examples/no-such-thing.png", "/preview/d/../etc.png",
                                  "/preview/x/rlx-examples/terminal-basics.png"])
def test_a_preview_of_nothing_listed_is_a_404(public_app, path):
    assert public_app.test_client().get(path).status_code == 404


def test_robots_txt_keeps_crawlers_off_the_api_and_names_the_sitemap(public_app):
    response = public_app.test_client().get("/robots.txt", headers={"Host": "127.0.0.1"})
    assert response.status_code == 200 and response.mimetype == "text/plain"
    lines = response.get_data(as_text=True).splitlines()
    assert lines[0] == "User-agent: *"
    for path in ("/api/", "/mcp", "/metrics", "/signin", "/d/*/search", "/s/*/play"):
        assert f"Disallow: {path}" in lines
    assert "Allow: /preview/" in lines
    assert f"Sitemap: {PUBLIC}/sitemap.xml" in lines


def test_every_api_answer_says_noindex_and_pages_do_not(public_app):
    client = public_app.test_client()
    for path in ("/api/search", "/api/env/rlx-examples/terminal-basics", "/api/env/rlx-examples/missing",
                 "/api/openapi.json", "/healthz"):
        response = client.get(path)
        assert response.headers.get("X-Robots-Tag") == "noindex", path
    mcp = client.post("/mcp", json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
    assert mcp.headers.get("X-Robots-Tag") == "noindex"
    assert "X-Robots-Tag" not in client.get("/").headers
    assert "X-Robots-Tag" not in client.get("/sitemap.xml").headers


def test_an_error_page_is_noindex_and_shares_nothing_of_its_url(public_app):
    head = head_of_any(public_app.test_client().get("/d/rlx-examples/no-such-dataset"))
    assert '<meta name="robots" content="noindex">' in head
    assert "no-such-dataset" not in sharing_tags(head)


def head_of_any(response) -> str:
    text = response.get_data(as_text=True)
    return text[:text.index("</head>")]


@pytest.fixture
def hub_app(make_config, redis_client, hub):
    app = create_app(make_config(RLX_SOURCE="hub", HF_ENDPOINT=hub.url, RLX_PUBLIC_URL=PUBLIC))
    app.config["RLX_SITEMAP_SHARD_SIZE"] = 3
    return app


def test_private_and_gated_repositories_are_in_no_sitemap_preview_or_sharing_tag(hub_app):
    alice = hub_app.test_client()
    assert alice.post("/signin/token", data={"token": ALICE}, headers=ORIGIN).status_code == 303
    for repo_id in (PRIVATE_HARBOR, GATED_HARBOR):
        head = head_of(alice.get(f"/d/{repo_id}"))  # alice may read it: the page is hers, not the world's
        assert '<meta name="robots" content="noindex">' in head
        assert repo_id not in sharing_tags(head) and repo_id.split("/")[1] not in sharing_tags(head)
        assert tag(head, "og:image") == f"{PUBLIC}/preview/site.png"
        assert "application/ld+json" not in head
        assert alice.get(f"/preview/d/{repo_id}.png").status_code == 404
    _, shards = all_sitemap_urls(alice)
    every = "\n".join(url for urls in shards for url in urls)
    assert f"{PUBLIC}/d/{PUBLIC_HARBOR}" in every
    assert PRIVATE_HARBOR not in every and GATED_HARBOR not in every
    public = head_of(alice.get(f"/d/{PUBLIC_HARBOR}"))
    assert "noindex" not in public and PUBLIC_HARBOR in tag(public, "og:image")


def test_a_run_page_is_fetchable_but_noindex_and_shares_only_the_sites_tags(public_app):
    from tests.runs.test_community_compare import REF, write_run

    run = write_run(public_app)
    client = public_app.test_client()
    head = head_of(client.get(f"/r/{run.id}"))
    assert '<meta name="robots" content="noindex">' in head
    shared = sharing_tags(head)
    assert REF not in shared and run.id not in shared and tag(head, "og:title") == "HF RL Explorer"
    robots = client.get("/robots.txt").get_data(as_text=True).splitlines()
    assert "Disallow: /r/" not in robots and "Disallow: /r/*/events" in robots


def test_a_task_page_describes_the_task_itself(public_app):
    task = "config-rewrite-sed"
    head = head_of(public_app.test_client().get(f"/t/rlx-examples/terminal-basics/{task}"))
    instruction = (EXAMPLES / "datasets/rlx-examples/terminal-basics/tasks" / task / "instruction.md").read_text()
    words = " ".join(instruction.split()[:6]).replace("`", "")
    assert words in tag(head, "og:description").replace("`", "")
    assert tag(head, "og:image").startswith(f"{PUBLIC}/preview/d/rlx-examples/terminal-basics.png?v=")
