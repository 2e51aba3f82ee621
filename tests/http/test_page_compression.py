"""A large page (an environment page's task list) still arrives gzipped, whole, and marked as varying by encoding,
though it is compressed at a faster level than the rest."""

import gzip


def test_a_large_page_arrives_gzipped_whole_and_varying_by_encoding(app):
    page = "<!doctype html><ol>" + "".join(f"<li>task {n} of a long list</li>" for n in range(4000)) + "</ol>"
    assert len(page) > 64_000
    app.add_url_rule("/_large_page", "large_page", lambda: page)
    client = app.test_client()
    zipped = client.get("/_large_page", headers={"Accept-Encoding": "gzip"})
    assert zipped.headers["Content-Encoding"] == "gzip" and "Accept-Encoding" in zipped.headers["Vary"]
    assert gzip.decompress(zipped.data).decode() == page
    assert client.get("/_large_page", headers={"Accept-Encoding": "identity"}).get_data(as_text=True) == page
