"""`swiftpm-guard check` must not pay for PyGithub or requests: only the action loads them.
Nor for HTTP, TLS or YAML: a local check reads no API and, without a workflow or a
configuration file, no YAML (issue 34: the CLI's start-up is most of its gap to openssl)."""

from __future__ import annotations

import subprocess
import sys

from support.release import Release

#: What a local check never uses: PyGithub and its stack, the HTTP and TLS clients, PyYAML.
HEAVY = ("github", "requests", "urllib3", "jwt", "nacl", "http.client", "ssl", "yaml")
PROBE = f"""
import sys
HEAVY = {HEAVY!r}
from swiftpm_guard.cli.main import main
code = main(sys.argv[1:])
print("heavy:", ",".join(m for m in HEAVY if m in sys.modules))
raise SystemExit(code)
"""


def test_check_on_a_20_placeholder_template_imports_no_http_client(release: Release):
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            PROBE,
            "check",
            "--template",
            str(release.template),
            "--version",
            release.version,
            "--artifacts",
            str(release.artifacts),
            "--quiet",
            "--accept-static",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "20 asked, 20 built" in done.stdout
    assert done.stdout.strip().endswith("heavy:")


def test_importing_the_action_does_not_import_pygithub_either():
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, swiftpm_guard.action.main; "
            "print('github' in sys.modules, 'requests' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.stdout.strip() == "False False", done.stderr


def test_importing_the_cli_loads_no_http_tls_or_yaml():
    done = subprocess.run(
        [sys.executable, "-c", "import sys, swiftpm_guard.cli.main; "
         f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
