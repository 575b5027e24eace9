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
          FRAMEWORKS=( "executorch" 'backend_coreml'
            kernels_llm
          )
"""


def test_run_steps_with_quoted_and_bare_names_one_a_line():
    found = frameworks_in_workflow(STEPS, "build", "FRAMEWORKS", file="w.yml")
    assert [(d.name, d.origin.line) for d in found] == [
        ("executorch", 10), ("backend_coreml", 10), ("kernels_llm", 11),
    ]


def test_append_is_bad_input_naming_its_line():
    with pytest.raises(InputError, match=r"w.yml:13: FRAMEWORKS\+=\( … \) appends"):
        frameworks_in_workflow(STEPS + "          FRAMEWORKS+=(kernels_custom)\n", "build",
                               "FRAMEWORKS", file="w.yml")


def test_a_one_line_plain_scalar_script_is_read_on_its_line():
    text = "jobs:\n  j:\n    steps:\n      - run: X=(a b)\n"
    found = frameworks_in_workflow(text, "j", "X", file="w.yml")
    assert [(d.name, d.origin.line) for d in found] == [("a", 4), ("b", 4)]


@pytest.mark.parametrize(("text", "message"), [
    ("jobs: [", "invalid YAML"),
    ("- a\n- b\n", "not a YAML mapping"),
    ("on: push\n", "no 'jobs'"),
    ("jobs:\n  other:\n    steps: []\n", "no job 'build'"),
    ("jobs:\n  build:\n    steps:\n      - run: echo hi\n", "no bash array"),
    ("jobs:\n  build:\n    steps:\n      - run: FRAMEWORKS=()\n", "is empty"),
    ("jobs:\n  build:\n    steps:\n      - run: FRAMEWORKS=( $EXTRA )\n", "plain names"),
    ("jobs:\n  build:\n    steps:\n      - run: FRAMEWORKS=( a-b )\n", "plain names"),
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
    "arithmetic": ("(( FRAMEWORKS[1]=1 ))", 2, "arithmetic here assigns"),
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
    with pytest.raises(InputError, match=r"w.yml:4: (a .* here is white space to tree-sitter|"
                                         r"FRAMEWORKS=\( … \) holds more than plain names)"):
        frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")


@pytest.mark.parametrize("script", [
    "cat <<EOF\nnotes\nEOF \nFRAMEWORKS=( a b )\nEOF", "cat <<'EOF'\nx\\\nEOF\nFRAMEWORKS=( a b )",
    "FRAMEWORKS=( a b )\ncat <<EOF\nFRAMEWORKS=( a b c )\nEOF"])
def test_a_here_document_is_refused(script):
    """tree-sitter-bash ends a body at `EOF ` and bash does not: the reader takes none."""
    with pytest.raises(InputError, match="here-document") as caught:
        frameworks_in_workflow(run_step(script), "build", "FRAMEWORKS", file="w.yml")
    assert "\n" not in str(caught.value)


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


def test_a_step_under_the_runners_own_bash_is_read():
    text = ("defaults:\n  run:\n    shell: bash\njobs:\n  build:\n    defaults:\n      run:\n"
            "        shell: bash\n    steps:\n      - shell: bash\n        run: FRAMEWORKS=( a b )\n")
    found = frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")
    assert [d.name for d in found] == ["a", "b"]


@pytest.mark.parametrize("shell", [
    "bash -x {0}", "bash -l {0}", "/bin/bash -e {0}", "env bash -e {0}", "sh -e {0}", "pwsh",
    "python {0}", "bash --noprofile --norc -eo pipefail {0}", "env -S 'bash -e' {0}"])
def test_a_step_under_any_other_shell_is_refused_naming_its_line(shell):
    text = (f"jobs:\n  build:\n    steps:\n      - shell: {shell}\n"
            "        run: FRAMEWORKS=( a b )\n")
    with pytest.raises(InputError, match=r"^w.yml:4: the step holding FRAMEWORKS=\( … \) runs "
                       r"under shell .*; declare the names") as caught:
        frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(("where", "line"), [("workflow", 3), ("job", 5)])
def test_a_default_shell_other_than_bash_is_refused(where, line):
    defaults = "defaults:\n  run:\n    shell: bash -x {0}\n"
    job = "    " + defaults.replace("\n  ", "\n      ") if where == "job" else ""
    text = (f"{defaults if where == 'workflow' else ''}jobs:\n  build:\n{job}    steps:\n"
            "      - run: FRAMEWORKS=( a b )\n")
    with pytest.raises(InputError, match=rf"^w.yml:{line}: the step holding .* shell "
                       r"'bash -x \{0\}'"):
        frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")


def env_at(level: str, body: str) -> str:
    """`body` (lines `NAME: value`) as the env: of the workflow, the job or the step."""
    def block(indent: int) -> str:
        return "env:\n" + "".join(f"{' ' * indent}{row}\n" for row in body.split("\n"))
    workflow = block(2) if level == "workflow" else ""
    job = "    " + block(6) if level == "job" else ""
    step = "        " + block(10) if level == "step" else ""
    return (f"{workflow}jobs:\n  build:\n{job}    steps:\n      - run: FRAMEWORKS=( a b )\n"
            f"{step}")


@pytest.mark.parametrize("level", ["workflow", "job", "step"])
@pytest.mark.parametrize("body", [
    "BASH_ENV: ./more.sh", "SHELLOPTS: xtrace\nPS4: '$(FRAMEWORKS+=(c))'", "ENV: x",
    "BASHOPTS: extdebug", "IFS: ','", "BASH_FUNC_echo%%: '() { :; }'", "PROMPT_COMMAND: x",
    "GLOBIGNORE: '*'", "BASH_XTRACEFD: '2'", "histchars: x", "not-a-name: x", "PATH: /x"])
def test_an_env_that_bash_reads_is_refused_naming_its_line(level, body):
    text = env_at(level, body)
    with pytest.raises(InputError, match=r"env: sets '.*', (a variable bash gives a meaning "
                       r"to|not a plain variable name).*; declare the names") as caught:
        frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")
    name = body.split(":", 1)[0]
    rows = text.split("\n")
    assert rows[caught.value.line - 1].strip().startswith(f"{name}:")


@pytest.mark.parametrize("level", ["workflow", "job", "step"])
def test_plain_env_names_keep_the_list_readable(level):
    found = frameworks_in_workflow(env_at(level, "VERSION: '1.2'\nBUILD_TOOL: cmake"),
                                   "build", "FRAMEWORKS", file="w.yml")
    assert [d.name for d in found] == ["a", "b"]


def test_an_env_made_by_an_expression_is_refused():
    text = ("jobs:\n  build:\n    env: ${{ fromJSON(inputs.env) }}\n    steps:\n"
            "      - run: FRAMEWORKS=( a b )\n")
    with pytest.raises(InputError, match=r"^w.yml:3: env: is not a mapping of names"):
        frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")


def test_a_reusable_workflow_script_keeps_its_own_shell():
    """The called workflow runs `with.script`; a caller's defaults do not reach it."""
    text = ("defaults:\n  run:\n    shell: pwsh\njobs:\n  build:\n    uses: o/r/.github/"
            "workflows/macos_job.yml@main\n    with:\n      script: |\n"
            "        FRAMEWORKS=( a b )\n")
    found = frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")
    assert [(d.name, d.origin.line) for d in found] == [("a", 9), ("b", 9)]


#: The shapes issue 31 saw the reader get wrong (bash, run as the runner runs the step, built
#: another list), each with the script line the refusal names.
SEEN = {
    "trap-debug": ("trap 'FRAMEWORKS+=(c)' DEBUG\nFRAMEWORKS=( a b )", 1, "`trap` here"),
    "readonly-array": ("readonly -a FRAMEWORKS=( a b c )\nFRAMEWORKS=( a b )", 2,
                       "assigned 2 times"),
    "readonly-after": ("FRAMEWORKS=( a b )\nreadonly FRAMEWORKS", 2, "`readonly FRAMEWORKS`"),
    "declare-r": ("declare -r FRAMEWORKS=( a b )", 1, "inside a declaration"),
    "arithmetic-assigns": ("FRAMEWORKS=( a b )\n: $(( FRAMEWORKS[2]=1 ))", 2, "assigns"),
    "arithmetic-assigns-other": ("FRAMEWORKS=( a b )\n(( i++ ))", 2, "assigns a variable"),
    "c-style-for": ("FRAMEWORKS=( a b )\nfor (( i=0; i<1; i++ )); do :; done", 2, "assigns"),
    "continuation-joins": ("FRAMEWORKS=( ab\\\nc )", 1, "a backslash on the lines"),
    "continuation-splits": ("FRAMEWORKS=( a \\\n b )", 1, "a backslash on the lines"),
    "continuation-before": ("true; \\\nFRAMEWORKS=( a b )", 2, "a backslash on the lines"),
    "comment-in-array": ("FRAMEWORKS=( a # b\n c )", 1, "more than plain names"),
    "joined-quotes": ("FRAMEWORKS=( a\"b\" )", 1, "more than plain names"),
}


@pytest.mark.parametrize("case", sorted(SEEN), ids=sorted(SEEN))
def test_the_shapes_issue_31_saw_are_refused_naming_the_line(case):
    script, script_line, message = SEEN[case]
    with pytest.raises(InputError, match=re.escape(message)) as caught:
        frameworks_in_workflow(run_step(script), "build", "FRAMEWORKS", file="w.yml")
    assert str(caught.value).startswith(f"w.yml:{4 + script_line}: ")
    assert str(caught.value).endswith("which are exact")
    assert "\n" not in str(caught.value)


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
def test_a_script_over_several_lines_that_is_not_a_literal_block_is_refused(style):
    names = [f"n{i}" for i in range(4)]
    if style in (">", ">-"):
        body = "\n".join(f"          {n}" for n in names)
        run = f"{style}\n          FRAMEWORKS=(\n{body}\n          )"
    elif style == "plain":
        run = "FRAMEWORKS=(\n" + "\n".join(f"          {n}" for n in names) + "\n          )"
    else:
        run = f"{style}FRAMEWORKS=(\n" + "\n".join(f"          {n}" for n in names) + \
            f"\n          ){style}"
    text = f"jobs:\n  build:\n    steps:\n      - run: {run}\n"
    with pytest.raises(InputError, match=r"^w.yml:4: .* write it as a literal block"):
        frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")
