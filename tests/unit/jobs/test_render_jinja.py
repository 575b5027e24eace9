import pytest

from support.release import PRODUCT_KEYS, write_release
from swiftpm_guard.errors import InputError
from swiftpm_guard.jobs.check import CheckRequest, check

TEMPLATE = """\
// swift-tools-version:5.9
let version = "{{ version }}"
let products = [
{%- for name in ["executorch", "backend_coreml"] %}
  "{{ name }}": "{{ checksums[name] }}",
  "{{ name }}_debug": "{{ artifacts[name ~ '_debug'].sha256 }}",
{%- endfor %}
]
let targets = [
  "threadpool": "{{ checksums.threadpool }}",
  "threadpool_debug": "{{ checksums['threadpool_debug'] }}",
]
"""


def jinja_release(tmp_path, text=TEMPLATE, built=None):
    release = write_release(tmp_path / "r", built=built)
    template = release.template.with_name("Package.swift.j2")
    template.write_text(text)
    return release, template


def evaluate_jinja(release, template, **extra):
    return check(CheckRequest(templates=(template,), version=release.version,
                             checksums=(release.checksums,), **extra))


def test_jinja_uses_are_tracked_like_placeholders(tmp_path):
    release, template = jinja_release(tmp_path, built=["executorch", "backend_coreml",
                                                       "threadpool", "kernels_llm"])
    outcome = evaluate_jinja(release, template)
    report = outcome.report
    assert report.placeholders == ("backend_coreml", "backend_coreml_debug", "executorch",
                                   "executorch_debug", "threadpool", "threadpool_debug")
    assert report.unclaimed == ("kernels_llm", "kernels_llm_debug")
    text = outcome.rendered[0].text
    assert release.checksum_of["backend_coreml_debug"] in text and '"1.2.3"' in text
    lines = {p.name: p.location.line for p in outcome.rendered[0].placeholders}
    assert lines["executorch"] == 5 and lines["executorch_debug"] == 6
    assert lines["threadpool"] == 10 and lines["threadpool_debug"] == 11


def test_missing_name_is_unfilled_with_its_line_and_shows_in_draft(tmp_path):
    release, template = jinja_release(tmp_path, text='v="{{ version }}"\n\nx="{{ checksums.nope }}"\n')
    outcome = evaluate_jinja(release, template)
    (finding,) = [f for f in outcome.report.findings if f.code == "unfilled-placeholder"]
    assert (finding.subject, finding.line) == ("nope", 3)
    assert '"__SHA256_nope__"' in outcome.rendered[0].text


def test_iterating_claims_everything(tmp_path):
    text = 'v="{{ version }}"\n{% for n, c in checksums.items() %}{{ n }}={{ c }}\n{% endfor %}'
    release, template = jinja_release(tmp_path, text=text)
    report = evaluate_jinja(release, template).report
    assert report.unclaimed == () and len(report.placeholders) == 2 * (len(PRODUCT_KEYS) + 1)


@pytest.mark.parametrize(("text", "line", "needle"), [
    ("a\n{{ undefined_thing }}\n", 2, "undefined"),
    ('{{ "".__class__.__mro__[1].__subclasses__() }}\n', 1, "unsafe"),
    ("{{ version.__class__ }}\n", 1, "unsafe"),
    ('{% import "os" as os %}\n', 1, "no loader"),
    ("{% for x in %}\n", 1, "invalid Jinja2"),
    ("{{ cycler.__init__.__globals__ }}\n", 1, "unsafe"),
    ("\n\n{{ 1 / 0 }}\n", 3, "ZeroDivisionError"),
    ("{{ range(10**9) | list }}\n", 1, "Range too big"),
])
def test_hostile_or_broken_jinja_is_bad_input(tmp_path, text, line, needle):
    release, template = jinja_release(tmp_path, text=text)
    with pytest.raises(InputError) as caught:
        evaluate_jinja(release, template)
    assert caught.value.line == line
    assert needle in str(caught.value) and "\n" not in str(caught.value)
