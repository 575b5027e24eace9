"""On a pull request into `main`, a template-side finding is placed on the workflow line where
the dropped name's neighbour stands, in the order of the base branch's list as gather read it
(placement reads nothing itself)."""

from __future__ import annotations

from swiftpm_guard.core.model import Artifact, Finding, Location, Severity
from swiftpm_guard.core.names import WorkflowSpec
from swiftpm_guard.jobs.check import CheckRequest, Sources
from swiftpm_guard.jobs.placement import place

WORKFLOW = ".github/workflows/apple.yml"
TEMPLATE = "Package.swift.template"


def _listed(names: list[str], first_line: int) -> tuple[Artifact, ...]:
    """A workflow array's names, one a line, each with its debug twin (as gather reads them)."""
    return tuple(Artifact(name=name + twin, sha256=None,
                          origin=Location(WORKFLOW, first_line + index), source="workflow")
                 for index, name in enumerate(names) for twin in ("", "_debug"))


def _request(tmp_path) -> CheckRequest:
    return CheckRequest(templates=(TEMPLATE,), version=None, root=tmp_path,
                        template_ref="swiftpm", base_ref="main",
                        frameworks_from=(WORKFLOW_SPEC,))


WORKFLOW_SPEC = WorkflowSpec(WORKFLOW, "build", "FRAMEWORKS")
DROPPED = Finding(code="unfilled-placeholder", severity=Severity.ERROR, subject="kernels_llm",
                  message="no zip", file=TEMPLATE, line=40)


def _head() -> Sources:
    # The pull request dropped kernels_llm: the head's list is a, kernels_optimized, z.
    return Sources(templates=(), artifacts=_listed(["a", "kernels_optimized", "z"], 10),
                   ref_paths={TEMPLATE: "swiftpm"})


def test_the_dropped_name_goes_on_its_next_neighbour_in_the_bases_order(tmp_path):
    base = Sources(templates=(), artifacts=_listed(["a", "kernels_llm", "kernels_optimized",
                                                    "z"], 20))
    placement = place([DROPPED], _head(), _request(tmp_path), base)
    assert placement.of(DROPPED) == (WORKFLOW, 11)  # kernels_optimized's line in the head
    assert placement.moved == (DROPPED,) and placement.template_side


def test_without_the_bases_list_it_goes_on_the_arrays_first_entry(tmp_path):
    placement = place([DROPPED], _head(), _request(tmp_path), None)
    assert placement.of(DROPPED) == (WORKFLOW, 10)
    assert placement.moved == (DROPPED,)


def test_a_check_that_is_no_pull_request_into_main_moves_nothing(tmp_path):
    request = CheckRequest(templates=(TEMPLATE,), version=None, root=tmp_path,
                           template_ref="swiftpm", frameworks_from=(WORKFLOW_SPEC,))
    placement = place([DROPPED], _head(), request, None)
    assert placement.moved == () and not placement.template_side
    assert placement.elsewhere == {DROPPED: f"swiftpm:{TEMPLATE}:40"}
