"""The action's check mode reads the version-specific manifests beside the template through
the contents API when the workspace is no clone (issue 24), as it reads the template."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from urllib.parse import unquote

from support.actions_env import (
    FRAMEWORKS_FROM,
    REPOSITORY,
    WORKFLOW,
    make_origin,
    push_payload,
)
from support.git_remote import commit_folder
from support.release import (
    BINARY_ONLY_KEYS,
    PRODUCT_KEYS,
    template_text,
    workflow_text,
    write_template_branch,
)
from swiftpm_guard.action import main as action

TOKEN = "ghs_inProcessToken"
VARIANT = "Package@swift-6.0.swift"


def test_the_contents_api_lists_the_root_and_reads_each_version_specific_manifest(
        tmp_path, fake_github, runner):
    origin = make_origin(tmp_path / "remote")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "swiftpm"
        write_template_branch(folder, PRODUCT_KEYS)
        (folder / f"{VARIANT}.template").write_text(
            template_text(PRODUCT_KEYS, (*BINARY_ONLY_KEYS, "kleidiai")))
        commit_folder(origin.bare, "swiftpm", folder, "a Swift 6 manifest")
    fake_github.add_repo(REPOSITORY, git_dir=origin.bare)
    fake_github.add_token(TOKEN)
    workspace = tmp_path / "workspace"
    (workspace / WORKFLOW).parent.mkdir(parents=True)  # no actions/checkout: no clone
    (workspace / WORKFLOW).write_text(workflow_text([*PRODUCT_KEYS, *BINARY_ONLY_KEYS]))
    step = runner.step(
        workspace,
        "push",
        push_payload(ref="refs/heads/main", before=origin.main,
                     after="b" * 40),
        sha="b" * 40,
        inputs={"frameworks-from": FRAMEWORKS_FROM, "github-token": TOKEN},
    )
    assert action.main(step.env) == 1
    paths = [unquote(r.path.split("/contents/", 1)[1])
             for r in fake_github.calls("repos/get-content")]
    assert paths.pop(0) == ".github/swiftpm-guard.yml"  # the configuration file (none here)
    assert paths[:3] == ["", "Package.swift.template", ".Package.swift"]
    assert f"{VARIANT}.template" in paths
    report = json.loads((workspace / ".swiftpm-guard" / "report.json").read_text())
    assert {(f["code"], f["subject"], f["file"]) for f in report["findings"]
            if f["code"] != "needs-swiftpm"} == {
        ("unfilled-placeholder", "kleidiai", f"{VARIANT}.template"),
        ("unfilled-placeholder", "kleidiai_debug", f"{VARIANT}.template")}
    assert "version-specific manifests beside it" in step.summary()
