import pytest

from support.release import workflow_text
from swiftpm_guard.core.names import WorkflowSpec
from swiftpm_guard.errors import InputError
from swiftpm_guard.sources.workflow import frameworks_in_workflow


def lines_of(text, names):
    rows = text.splitlines()
    return [next(i + 1 for i, row in enumerate(rows) if f'"{n}"' in row) for n in names]


def test_array_in_reusable_workflow_script_with_file_lines():
    names = ["executorch", "backend_coreml", "kernels_llm"]
    text = workflow_text(names)
    found = frameworks_in_workflow(text, "build-frameworks", "FRAMEWORKS", file="apple.yml")
    assert [d.name for d in found] == names
    assert [d.origin.line for d in found] == lines_of(text, names)
    assert {d.origin.file for d in found} == {"apple.yml"}


STEPS = """\
on: push
jobs:
  build:
    runs-on: macos-14
    steps:
      - uses: actions/checkout@v4
      - name: build
        run: |
          # frameworks we ship
          FRAMEWORKS=( "executorch" 'backend_'"coreml" \\
            kernels_llm  # a comment ) inside
          )
"""


def test_run_steps_odd_quoting_and_comments():
    found = frameworks_in_workflow(STEPS, "build", "FRAMEWORKS", file="w.yml")
    assert [(d.name, d.origin.line) for d in found] == [
        ("executorch", 10), ("backend_coreml", 10), ("kernels_llm", 11),
    ]


def test_append_is_bad_input_naming_its_line():
    with pytest.raises(InputError, match=r"w.yml:13: FRAMEWORKS\+=\( … \) appends"):
        frameworks_in_workflow(STEPS + "          FRAMEWORKS+=(kernels_custom)\n", "build",
                               "FRAMEWORKS", file="w.yml")


def test_plain_scalar_script_falls_back_to_searching_lines():
    text = "jobs:\n  j:\n    steps:\n      - run: X=(a\n          b)\n"
    found = frameworks_in_workflow(text, "j", "X", file="w.yml")
    assert [(d.name, d.origin.line) for d in found] == [("a", 4), ("b", 5)]


@pytest.mark.parametrize(("text", "message"), [
    ("jobs: [", "invalid YAML"),
    ("- a\n- b\n", "not a YAML mapping"),
    ("on: push\n", "no 'jobs'"),
    ("jobs:\n  other:\n    steps: []\n", "no job 'build'"),
    ("jobs:\n  build:\n    steps:\n      - run: echo hi\n", "no bash array"),
    ("jobs:\n  build:\n    steps:\n      - run: FRAMEWORKS=()\n", "is empty"),
    ("jobs:\n  build:\n    steps:\n      - run: FRAMEWORKS=( $EXTRA )\n", "only literal"),
    ("jobs:\n  build:\n    steps:\n      - run: FRAMEWORKS=( a-b )\n", "not a framework"),
    ("jobs:\n  build:\n    steps:\n      - run: FRAMEWORKS=( \"a\n", "unterminated"),
    ("jobs:\n  build:\n    steps:\n      - run: FRAMEWORKS=( a b\n", "not closed"),
])
def test_bad_workflows_are_one_line_errors(text, message):
    with pytest.raises(InputError, match=message) as caught:
        frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")
    assert str(caught.value).startswith("w.yml")
    assert "\n" not in str(caught.value)


def test_alias_bomb_is_not_expanded():
    bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]']
    for level in range(1, 12):
        prev = chr(ord("a") + level - 1)
        bomb.append(f"{chr(ord('a') + level)}: &{chr(ord('a') + level)} [{','.join(['*' + prev] * 9)}]")
    text = "\n".join(bomb) + "\njobs:\n  build:\n    steps:\n      - run: FRAMEWORKS=(x)\n"
    found = frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")
    assert [d.name for d in found] == ["x"]


def test_spec_parsing_validates_parts():
    assert WorkflowSpec.parse("C:/w.yml:build:FW") == WorkflowSpec("C:/w.yml", "build", "FW")
    for bad in ("w.yml:build", "w.yml:bu ild:FW", "w.yml:build:F-W", "::"):
        with pytest.raises(InputError):
            WorkflowSpec.parse(bad)
