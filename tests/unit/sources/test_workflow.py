import re

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


# Issue 25: the reader believes only what bash does. Each case is a script that today's reader
# read as a literal list while bash builds another (or none); each must now be one line of bad
# input naming the workflow line of the construct.

def run_step(script: str) -> str:
    body = "".join(f"          {line}\n" if line else "\n" for line in script.split("\n"))
    return f"jobs:\n  build:\n    steps:\n      - run: |\n{body}"


SETTERS = {
    "printf-v": ("printf -v 'FRAMEWORKS[1]' extra", 2, "printf -v"),
    "declare-quoted-element": ('declare "FRAMEWORKS[2]=c"', 2, "quoted or computed"),
    "nameref": ("declare -n ref=FRAMEWORKS\nref+=(c)", 2, "nameref"),
    "for-loop-variable": ("for FRAMEWORKS in c; do :; done", 2, "other than in its one"),
    "assigning-default": (': "${FRAMEWORKS[1]:=c}"', 2, "can assign FRAMEWORKS"),
    "arithmetic": ("(( FRAMEWORKS[1]=1 ))", 2, "arithmetic here evaluates FRAMEWORKS"),
    "let": ("let 'FRAMEWORKS[1]=1'", 2, "`let` here"),
    "trap": ("trap 'FRAMEWORKS+=(c)' DEBUG", 2, "`trap` here"),
    "eval-of-split-strings": ('v=FRAME\neval "${v}WORKS+=(c)"', 3, "`eval` here"),
    "source-of-split-strings": ("v=FRAME\nsource <(echo \"${v}WORKS+=(c)\")", 3,
                                "`source` here"),
    "mapfile-by-name": ('v=FRAMEWORKS\nmapfile -t "$v" < list.txt', 3, "`mapfile` here"),
    "read-by-name": ('v=FRAMEWORKS\nread -ra "$v" <<< "c d"', 3, "`read` here"),
    "arithmetic-over-text": ("i='FRAMEWORKS[1]=3'\necho $(( i ))", 3, "sets to text"),
    "prompt-variable": ("PS4='+${FRAMEWORKS[1]:=c}'\nset -x", 2, "PS4 as code"),
    "computed-command": ("c=eval\n$c 'FRAMEWORKS+=(c)'", 3, "comes from c"),
    "background": (None, 1, "background job"),
    # tree-sitter-bash reads `echo done<newline>\eval …` as one command; bash as two.
    "escaped-command-after-a-line-break": ("echo done\n\\eval 'FRAMEWORKS+=(c)'", 2,
                                           "one word across this line break"),
    # `a\<newline>#b` is the word `a#b` to bash: what follows the `;` runs.
    "hash-after-a-continuation": ("echo a\\\n#b; FRAMEWORKS+=(c)", 3, "'#' inside a word"),
}


@pytest.mark.parametrize("case", sorted(SETTERS), ids=sorted(SETTERS))
def test_constructs_that_build_another_list_are_refused_naming_the_line(case):
    after, script_line, message = SETTERS[case]
    script = {"background": "FRAMEWORKS=( a b ) &\nwait"}.get(
        case, f"FRAMEWORKS=( a b )\n{after}")
    with pytest.raises(InputError, match=re.escape(message)) as caught:
        frameworks_in_workflow(run_step(script), "build", "FRAMEWORKS", file="w.yml")
    assert str(caught.value).startswith(f"w.yml:{4 + script_line}: ")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("space", ["\\f", "\\v", "\\r"])
def test_white_space_only_tree_sitter_sees_is_refused(space):
    """`a<FF>b` is one word to bash (its blanks are space and tab), two to tree-sitter-bash;
    YAML keeps the character when a double-quoted scalar escapes it."""
    text = f'jobs:\n  build:\n    steps:\n      - run: "FRAMEWORKS=( a{space}b )"\n'
    with pytest.raises(InputError, match=r"w.yml:4: a .* here is white space to tree-sitter"):
        frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")


@pytest.mark.parametrize("terminator", ["EOF ", "  EOF"], ids=["trailing-space", "indented"])
def test_a_decoy_after_a_terminator_bash_does_not_take_is_refused(terminator):
    """tree-sitter-bash ends the body at `EOF ` and at a space-indented `<<-` terminator; bash
    does neither, so the decoy below it is text to bash and the job has no array at all."""
    operator = "<<-" if terminator.startswith(" ") else "<<"
    script = f"cat {operator}EOF\nnotes\n{terminator}\nFRAMEWORKS=( a b )\nEOF"
    with pytest.raises(InputError, match="bash ends this here-document at script line 5") \
            as caught:
        frameworks_in_workflow(run_step(script), "build", "FRAMEWORKS", file="w.yml")
    assert str(caught.value).startswith("w.yml:5: ")


def test_an_unquoted_body_line_ending_in_a_backslash_joins_the_terminator():
    """Bash reads `x\\` then `EOF` as the body line `xEOF`: the decoy is text to it."""
    script = "cat <<EOF\nx\\\nEOF\nFRAMEWORKS=( a b )\nEOF"
    with pytest.raises(InputError, match="bash ends this here-document at script line 5"):
        frameworks_in_workflow(run_step(script), "build", "FRAMEWORKS", file="w.yml")
    quoted = "cat <<'EOF'\nx\\\nEOF\nFRAMEWORKS=( a b )"
    found = frameworks_in_workflow(run_step(quoted), "build", "FRAMEWORKS", file="w.yml")
    assert [(d.name, d.origin.line) for d in found] == [("a", 8), ("b", 8)]


@pytest.mark.parametrize("expression", [
    "${{ format('FRAMEWORKS+=({0})', 'c') }}", 'echo "${{ inputs.version }}"',
    "echo '${{ matrix.name }}'", "echo ${{ github.sha }}"])
def test_github_expressions_that_can_form_code_are_refused(expression):
    script = f"FRAMEWORKS=( a b )\n{expression}"
    with pytest.raises(InputError, match="GitHub expression") as caught:
        frameworks_in_workflow(run_step(script), "build", "FRAMEWORKS", file="w.yml")
    assert str(caught.value).startswith("w.yml:6: ")


def test_github_expressions_of_safe_contexts_in_quotes_are_read():
    script = 'echo "${{ github.sha }}"\nFRAMEWORKS=( a b )\necho \'${{ runner.os }}\''
    found = frameworks_in_workflow(run_step(script), "build", "FRAMEWORKS", file="w.yml")
    assert [(d.name, d.origin.line) for d in found] == [("a", 6), ("b", 6)]


def test_the_real_shape_of_executorch_build_script_is_read():
    """The reusable workflow's CONDA_RUN names the command: a variable the script never sets
    is the environment's; `do ( … ) done` needs no `;` before `done`."""
    script = ('set -eux\nBUILD_TOOL=cmake\nFRAMEWORKS=(\n  "executorch"\n  "threadpool"\n)\n'
              "GITHUB_RUNNER=1 PYTHON_EXECUTABLE=python ${CONDA_RUN} --no-capture-output \\\n"
              '.ci/scripts/setup-macos.sh --build-tool "${BUILD_TOOL}"\n'
              'for FRAMEWORK in "${FRAMEWORKS[@]}"; do (\n  cd cmake-out && \\\n'
              '  zip -r "${RUNNER_TEMP}/${FRAMEWORK}.zip" "${FRAMEWORK}.xcframework"\n) done')
    found = frameworks_in_workflow(run_step(script), "build", "FRAMEWORKS", file="w.yml")
    assert [(d.name, d.origin.line) for d in found] == [("executorch", 8), ("threadpool", 9)]


@pytest.mark.parametrize("shell", [
    "bash", "bash -l {0}", "/bin/bash -e {0}", "env bash -e {0}", "/usr/bin/env bash -e {0}",
    "bash --noprofile --norc -eo pipefail {0}", "/usr/bin/env -u X A=1 bash {0}"])
def test_a_step_whose_shell_runs_bash_is_read(shell):
    text = (f"jobs:\n  build:\n    steps:\n      - shell: {shell}\n"
            "        run: FRAMEWORKS=( a b )\n")
    found = frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")
    assert [d.name for d in found] == ["a", "b"]


@pytest.mark.parametrize("shell", ["sh -e {0}", "pwsh", "python {0}", "zsh {0}", "cmd"])
def test_a_step_under_another_shell_is_not_read(shell):
    text = (f"jobs:\n  build:\n    steps:\n      - shell: {shell}\n"
            "        run: FRAMEWORKS=( a b )\n")
    with pytest.raises(InputError, match="has no bash array"):
        frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")


def test_a_shell_naming_bash_in_a_way_not_followed_is_refused():
    text = ("jobs:\n  build:\n    steps:\n      - shell: env -S 'bash -e' {0}\n"
            "        run: FRAMEWORKS=( a b )\n")
    with pytest.raises(InputError, match=r"w.yml:4: cannot tell whether shell"):
        frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")


@pytest.mark.parametrize(("text", "line", "key"), [
    ("jobs:\n  build:\n    steps:\n      - run: FRAMEWORKS=( a )\n"
     "        run: FRAMEWORKS=( a b )\n", 5, "run"),
    ("jobs:\n  build:\n    steps:\n      - run: FRAMEWORKS=( a )\n    steps:\n"
     "      - run: FRAMEWORKS=( a b )\n", 5, "steps"),
    ("jobs:\n  build:\n    steps:\n      - run: FRAMEWORKS=( a )\n  build:\n"
     "    steps: []\n", 5, "build"),
    ("on: push\njobs:\n  build:\n    steps:\n      - run: FRAMEWORKS=( a )\non: pull\n", 6, "on"),
], ids=["run", "steps", "job", "top-level"])
def test_duplicate_keys_are_bad_input_naming_the_second(text, line, key):
    with pytest.raises(InputError, match=rf"w.yml:{line}: duplicate key '{key}' \(first on"):
        frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")


def test_a_tagged_job_says_it_is_not_a_mapping():
    text = "jobs:\n  build: !!python/object/apply:os.system [echo hi]\n"
    with pytest.raises(InputError) as caught:
        frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")
    assert str(caught.value) == ("w.yml:2: job 'build' is not a mapping: it is a sequence "
                                 "tagged !!python/object/apply:os.system")


@pytest.mark.parametrize("nesting", [
    "x: " + "[" * 20000 + "]" * 20000 + "\n",
    "".join(" " * i + f"k{i}:\n" for i in range(3000)) + " " * 3000 + "v: 1\n",
], ids=["flow", "block"])
def test_deep_yaml_is_one_line_of_bad_input(nesting):
    with pytest.raises(InputError, match="nested too deeply") as caught:
        frameworks_in_workflow(nesting + "jobs: {}\n", "build", "FRAMEWORKS", file="w.yml")
    assert "\n" not in str(caught.value)


def test_deep_bash_is_read_without_recursing():
    script = "(" * 5000 + "true" + ")" * 5000 + "\nFRAMEWORKS=( a )"
    found = frameworks_in_workflow(run_step(script), "build", "FRAMEWORKS", file="w.yml")
    assert [(d.name, d.origin.line) for d in found] == [("a", 6)]


@pytest.mark.parametrize("style", [">", ">-", '"', "'", "plain"])
def test_folded_and_quoted_scripts_map_each_name_to_its_line(style):
    names = [f"n{i}" for i in range(40)]
    if style in (">", ">-"):
        body = "\n".join(f"          {n}" for n in names)
        run = f"{style}\n          FRAMEWORKS=(\n{body}\n          )"
    elif style == "plain":
        run = "FRAMEWORKS=(\n" + "\n".join(f"          {n}" for n in names) + "\n          )"
    else:
        run = f"{style}FRAMEWORKS=(\n" + "\n".join(f"          {n}" for n in names) + \
            f"\n          ){style}"
    text = f"jobs:\n  build:\n    steps:\n      - run: {run}\n"
    found = frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")
    rows = text.split("\n")
    assert [d.name for d in found] == names
    assert all(rows[d.origin.line - 1].strip() == d.name for d in found)


def test_escapes_in_a_double_quoted_script_keep_lines_in_bounds():
    text = ('jobs:\n  build:\n    steps:\n      - run: "FRAMEWORKS=(\\x61 b\\tc\n'
            '          \\u0064\n          e)"\n')
    found = frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")
    assert [d.name for d in found] == ["a", "b", "c", "d", "e"]
    assert [d.origin.line for d in found][-1] == 6
    assert all(4 <= d.origin.line <= 6 for d in found)
