"""`--url-template`'s default is core.urls's, and the help says which it is; `--proxy` is the
only proxy and only host and port (issue 32)."""

from __future__ import annotations

import argparse
import re

import pytest

from swiftpm_guard.cli.options import add_url_arguments, url_settings
from swiftpm_guard.core.option_names import option
from swiftpm_guard.core.urls import DEFAULT_URL_TEMPLATE
from swiftpm_guard.errors import UsageError


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="t")
    add_url_arguments(parser)
    return parser


def test_the_help_shows_the_default_core_uses():
    assert f"(default {DEFAULT_URL_TEMPLATE})" in " ".join(_parser().format_help().split())


def test_no_option_means_the_core_default():
    assert url_settings(_parser().parse_args([])).template == DEFAULT_URL_TEMPLATE


def test_a_given_template_is_kept_and_an_empty_one_is_still_refused():
    given = "{base_url}{name}.zip"
    assert url_settings(_parser().parse_args(["--url-template", given])).template == given
    with pytest.raises(UsageError):
        url_settings(_parser().parse_args(["--url-template", ""]))


def test_proxy_is_the_option_or_none_and_only_host_and_port():
    assert url_settings(_parser().parse_args([])).proxy is None
    given = url_settings(_parser().parse_args(["--proxy", "http://127.0.0.1:3128"]))
    assert given.proxy == "http://127.0.0.1:3128"
    for bad in ("http://user:pw@127.0.0.1:3128", "socks5://h:1", "http://h", "http://h:1/x"):
        with pytest.raises(UsageError, match=re.escape(option("proxy")) + r" .* is not http\(s\)://host:port") as raised:
            url_settings(_parser().parse_args(["--proxy", bad]))
        assert "pw@" not in str(raised.value)
