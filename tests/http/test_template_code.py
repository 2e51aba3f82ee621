"""Apps of one process share their compiled templates, and an edited template is compiled again."""

from jinja2 import DictLoader, Environment

from rlx.http.template_code import PROCESS_TEMPLATE_CODE, ProcessTemplateCode


def test_a_second_environment_renders_an_edited_template_as_edited_not_as_first_compiled():
    shared = ProcessTemplateCode()
    sources = {"page.html": "<p>{{ who }} first</p>"}
    first = Environment(loader=DictLoader(sources), bytecode_cache=shared, autoescape=True)
    assert first.get_template("page.html").render(who="<b>") == "<p>&lt;b&gt; first</p>"
    sources["page.html"] = "<p>{{ who }} edited</p>"
    second = Environment(loader=DictLoader(sources), bytecode_cache=shared, autoescape=True)
    assert second.get_template("page.html").render(who="x") == "<p>x edited</p>"
    third = Environment(loader=DictLoader(sources), bytecode_cache=shared, autoescape=True)
    assert third.get_template("page.html").render(who="y") == "<p>y edited</p>"


def test_two_apps_share_the_code_and_each_renders_with_its_own_settings(make_config, redis_client):
    from rlx import create_app

    plain = create_app(make_config())
    assert plain.jinja_env.bytecode_cache is PROCESS_TEMPLATE_CODE
    titled = create_app(make_config(RLX_PUBLIC_URL="https://explorer.example"))
    for app in (plain, titled):
        assert app.test_client().get("/").status_code == 200
    canonical = titled.test_client().get("/").get_data(as_text=True)
    assert 'href="https://explorer.example/"' in canonical
    assert "explorer.example" not in plain.test_client().get("/").get_data(as_text=True)
