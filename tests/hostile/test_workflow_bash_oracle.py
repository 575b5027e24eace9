"""The workflow reader against real bash (issue 25): for scripts generated over a grammar of
the constructs that can build the array, either the reader refuses, or the list it returns is
the list bash has at the end of the script (no assignment: bash has none either). Never a
different list.

Each script runs in /bin/bash with an empty environment (`env={}`), no network
(`unshare -n` when this process may create a network namespace; else the run says so in its
skip reason for that part only and bash still runs), a 5 s timeout, in a fresh folder. A line
appended to the script prints a marker made at run time (`$((6*7))`, so a here-document that
swallows the line cannot fake it) and the array, NUL-separated; a script that exits first or
ends inside a quote prints no marker and says nothing about the list. GitHub expressions are
rendered before bash runs, as the runner renders them, with hostile values where GitHub
would allow them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from functools import cache
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swiftpm_guard.errors import InputError, Missing
from swiftpm_guard.sources.bash_array import Rejected, read_array
from swiftpm_guard.sources.workflow import frameworks_in_workflow

BASH = "/bin/bash"
pytestmark = pytest.mark.skipif(not os.access(BASH, os.X_OK), reason="no /bin/bash")

MARKER = "ORACLE"
PRINT = f"\nbuiltin printf '%s\\0' \"{MARKER}$((6*7))\" \"${{FRAMEWORKS[@]}}\"\n"

#: What the runner renders each expression to: values GitHub allows, chosen to hurt.
RENDERED = {
    "${{ github.sha }}": "0123456789abcdef0123456789abcdef01234567",
    "${{ github.run_id }}": "4242",
    "${{ inputs.version }}": '1"; FRAMEWORKS+=(from_input); : "',
    "${{ matrix.name }}": "m'; FRAMEWORKS+=(from_matrix); : '",
    "${{ format('FRAMEWORKS+=({0})', 'fmt') }}": "FRAMEWORKS+=(fmt)",
}

NAMES = st.lists(st.sampled_from(["executorch", "backend_coreml", "kernels_llm", "a1", "b_2"]),
                 min_size=1, max_size=4)

#: Statements that leave the array alone (reads, text that mentions it, other variables).
HARMLESS = [
    'echo "${FRAMEWORKS[@]}"', "n=${#FRAMEWORKS[@]}", 'x="${FRAMEWORKS[0]}"',
    "echo $FRAMEWORKS", 'for f in "${FRAMEWORKS[@]}"; do echo "$f"; done',
    "# FRAMEWORKS+=(in_comment)", 'echo "FRAMEWORKS+=(in_string)"',
    "echo 'FRAMEWORKS=(in_single)'", "echo x # FRAMEWORKS=(after_word)",
    'echo "${{ github.sha }}"', "echo '${{ github.run_id }}'", "i=0; echo $(( i + 1 ))",
    'if [ -n "${FRAMEWORKS[*]}" ]; then echo yes; fi', "f() { echo \"$1\"; }; f a",
    "( echo sub )", 'echo "${FRAMEWORKS[@]:-none}"', "set -u", "IFS=,",
    "declare -a other=(x y); other+=(z)", "export PATH", 'echo "$(( ${#FRAMEWORKS[@]} + 1 ))"',
]

#: Statements that can change the array, some directly, some by names or code made at run
#: time, some hidden where tree-sitter-bash and bash disagree on where text ends.
SETTERS = [
    "FRAMEWORKS+=(appended)", "FRAMEWORKS[1]=element", "printf -v 'FRAMEWORKS[0]' pv",
    'declare "FRAMEWORKS[2]=declared"', "declare -n ref=FRAMEWORKS; ref+=(via_ref)",
    "for FRAMEWORKS in loop; do :; done", ': "${FRAMEWORKS[5]:=defaulted}"',
    "(( FRAMEWORKS[0]=1 ))", "let 'FRAMEWORKS[0]=2'", "trap 'FRAMEWORKS+=(trapped)' DEBUG",
    "v=FRAME; eval \"${v}WORKS+=(evaled)\"", "source <(echo 'FRAMEWORKS+=(sourced)')",
    ". /dev/stdin <<< 'FRAMEWORKS+=(dotted)'", "mapfile -t FRAMEWORKS < <(echo mapped)",
    'read -ra FRAMEWORKS <<< "read1 read2"', 'v=FRAMEWORKS; read -ra "$v" <<< "byname"',
    'v=FRAME; w=WORKS; mapfile -t "$v$w" < <(echo built)',
    "i='FRAMEWORKS[0]=9'; echo $(( i ))", "k='FRAMEWORKS[3]=7'; x=(a b); echo \"${x[k]}\"",
    "PS4='+${FRAMEWORKS[7]:=traced}'; set -x; true; set +x",
    "shopt -s expand_aliases; alias z='FRAMEWORKS+=(aliased)'\nz", "unset FRAMEWORKS",
    "unset 'FRAMEWORKS[0]'", "c=eval; $c 'FRAMEWORKS+=(dynamic)'",
    "exec {FRAMEWORKS}>/dev/null", "test -v 'q[FRAMEWORKS[0]=5]'",
    "x='(from_text)'; declare -a FRAMEWORKS=$x", "x='(t)'; n=FRAMEWORKS; declare -a \"$n\"=$x",
    ": <<EOF\n${FRAMEWORKS[8]:=heredoc_default}\nEOF",
    "echo 'a\\'; FRAMEWORKS+=(after_backslash_quote); echo '#'",
    "echo a#b; FRAMEWORKS+=(after_hash_word)", "echo ${{ format('FRAMEWORKS+=({0})', 'fmt') }}",
    "${{ format('FRAMEWORKS+=({0})', 'fmt') }}", 'echo "${{ inputs.version }}"',
    "echo '${{ matrix.name }}'", "v=FRAMEWORKS; declare -n r=$v; r=(named)",
    "if true; then FRAMEWORKS=(in_if); fi", "f() { FRAMEWORKS=(in_function); }; f",
    "true && FRAMEWORKS=(in_list)", "FRAMEWORKS=(second)", "declare -a FRAMEWORKS=(declared_a)",
    "x=FRAMEWORKS; y='[0]=ind'; declare \"$x$y\"", "$'eval' 'FRAMEWORKS+=(ansi_named)'",
    "\\eval 'FRAMEWORKS+=(escaped)'", "e''val 'FRAMEWORKS+=(split)'",
    "builtin eval 'FRAMEWORKS+=(builtin)'", "command eval 'FRAMEWORKS+=(command)'",
    "'declare' 'FRAMEWORKS[3]=quoted_declare'",
    "echo done\n\\eval 'FRAMEWORKS+=(after_line_break)'",
    "echo a\\\n#b; FRAMEWORKS+=(after_continued_hash)",
]

#: Statements that leave bash's list alone here but that the reader cannot promise: indirect
#: reads, here-documents (tree-sitter-bash ends some before bash does: what follows is code to
#: it, text to bash), arithmetic that assigns.
REFUSED = [
    "cat <<EOF\nFRAMEWORKS+=(in_heredoc)\nEOF", "cat <<'EOF'\n$(FRAMEWORKS+=(q))\nEOF",
    "cat <<-EOF\n\tFRAMEWORKS+=(in_tabbed)\n\tEOF", "i=0; (( i++ )); echo $(( i + 1 ))",
    "echo ${!FRAMEWORKS}", "v='FRAMEWORKS[0]'; echo \"${!v}\"",
    ": <<EOF\n`FRAMEWORKS+=(q)`\nEOF",
    "cat <<EOF\nx\nEOF \nFRAMEWORKS+=(after_spaced_eof)\nEOF",
    "cat <<-EOF\n\tx\n  EOF\nFRAMEWORKS+=(after_indented_eof)\n\tEOF",
]

EXITS = ["exit 0", "false", "set -e; false"]

#: Where the one assignment may sit: at the top, or inside text that bash and a careless
#: reader end in different places (the reader must then not see an assignment bash never
#: runs, nor miss one it does).
WRAPPERS = [
    "@@", "@@", "cat <<EOF\nEOF \n@@\nEOF", "cat <<-EOF\n  EOF\n@@\n\tEOF",
    "cat <<EOF\nEOF\r\n@@\nEOF", 'echo "x\\"; @@; echo "', "echo $'x\\'; @@; echo '",
    "@@ &\nwait", "@@\r", "@@ # \r", "cat <<EOF\nx\\\nEOF\n@@\nEOF",
    "cat <<'EOF'\nx\\\nEOF\n@@\nEOF",
    ": '\n@@\n'", "# \\\n@@", "cat <<'EOF'\n@@\nEOF", "echo a#b @@",
]


def assignment(names: list[str], style: int) -> str:
    """The literal assignment, spaced the ways bash and tree-sitter-bash may read apart (a
    form feed or a vertical tab is white space to the grammar, a word character to bash)."""
    words = " ".join(f'"{n}"' if style == 1 else n for n in names)
    if style == 2:
        return "FRAMEWORKS=(\n  " + "\n  ".join(names) + "\n)"
    if style == 3:
        return "FRAMEWORKS=( " + "\f".join(names) + " )"
    if style == 4:
        return "FRAMEWORKS=( " + "\v ".join(names) + " )"
    return f"FRAMEWORKS=( {words} )"


@st.composite
def scripts(draw: st.DrawFn) -> str:
    pool = HARMLESS * 3 + SETTERS + REFUSED + EXITS
    before = draw(st.lists(st.sampled_from(pool), max_size=3))
    after = draw(st.lists(st.sampled_from(pool), max_size=3))
    names = draw(NAMES)
    line = draw(st.sampled_from(WRAPPERS)).replace("@@", assignment(names, draw(
        st.integers(0, 4))))
    return "\n".join([*before, line, *after]) + "\n"


@cache
def network_isolation() -> list[str]:
    """`unshare -n` when it works here (root, or user namespaces); else nothing."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return []
    try:
        done = subprocess.run([unshare, "-n", "true"], capture_output=True, timeout=10,
                              check=False)
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [unshare, "-n"] if done.returncode == 0 else []


def render(script: str) -> str:
    for expression, value in RENDERED.items():
        script = script.replace(expression, value)
    return script


def bash_list(script: str) -> list[str] | None:
    """The array bash holds at the end of the script, or None if bash never got there."""
    with tempfile.TemporaryDirectory(prefix="oracle-") as folder:
        path = Path(folder) / "script.sh"
        path.write_text(render(script) + PRINT)
        try:
            done = subprocess.run([*network_isolation(), BASH, str(path)], cwd=folder, env={},
                                  capture_output=True, timeout=5, check=False,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return None
    start = done.stdout.find(f"{MARKER}42\0".encode())
    if start < 0:
        return None
    fields = done.stdout[start:].split(b"\0")[1:]
    if fields and fields[-1] == b"":
        fields.pop()
    return [f.decode("utf-8", "replace") for f in fields]


def check(script: str) -> None:
    """Refused; or no assignment, and bash builds none; or bash's very list."""
    result = read_array(script.encode(), "FRAMEWORKS")
    if isinstance(result, Rejected):
        return
    expected = bash_list(script)
    if expected is None:
        return
    assert ([] if result is None else [e.word for e in result]) == expected, script


@settings(max_examples=200, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(script=scripts())
def test_the_reader_never_returns_a_list_bash_does_not_build(script):
    check(script)


@pytest.mark.parametrize("setter", SETTERS + REFUSED)
def test_every_setter_is_refused_after_the_assignment(setter):
    """Each construct alone, after a literal assignment, is refused in one line."""
    script = f"FRAMEWORKS=( executorch )\n{setter}\n"
    result = read_array(script.encode(), "FRAMEWORKS")
    assert isinstance(result, Rejected), (setter, result)
    assert "\n" not in result.message


def test_the_setters_are_real():
    """Bash agrees the list is not the literal one after each setter: the cases are real."""
    same = [s for s in SETTERS
            if bash_list(f"FRAMEWORKS=( executorch )\n{s}\n") == ["executorch"]]
    assert same == []


@pytest.mark.parametrize("harmless", HARMLESS)
def test_harmless_statements_keep_the_list_readable(harmless):
    script = f"FRAMEWORKS=( executorch kernels_llm )\n{harmless}\n"
    result = read_array(script.encode(), "FRAMEWORKS")
    assert not isinstance(result, Rejected), (harmless, result)
    assert result is not None
    assert [e.word for e in result] == ["executorch", "kernels_llm"]
    if "set -u" not in harmless:
        assert bash_list(script) == ["executorch", "kernels_llm"]


def test_the_sandbox_runs_bash_with_an_empty_environment():
    script = 'FRAMEWORKS=( "${HOME:-unset}" "${GITHUB_TOKEN:-none}" )\n'
    assert bash_list(script) == ["unset", "none"]
    if not network_isolation():
        pytest.skip("no network namespace here (unshare -n needs root or user namespaces): "
                    "bash ran without network isolation")


# Issue 31: every workflow the reader accepts (the corpus, the examples), its script run by
# bash as the runner runs a `run:` step: `bash --noprofile --norc -eo pipefail {0}`, with the
# workflow's, the job's and the step's `env:` and nothing else.

ROOT = Path(__file__).resolve().parents[2]
RUNNER_BASH = [BASH, "--noprofile", "--norc", "-eo", "pipefail"]


def workflow_files() -> list[tuple[str, str, str, str]]:
    """(id, workflow text, job, variable) of each corpus case and example workflow."""
    found = []
    for path in sorted((Path(__file__).parent / "corpus").glob("workflow*.yml")):
        for case in yaml.safe_load(path.read_text()):
            argv = case.get("argv") or []
            if "--frameworks-from" not in argv:
                continue
            spec = argv[argv.index("--frameworks-from") + 1].rsplit(":", 2)
            if len(spec) != 3:
                continue
            file, job, var = spec
            text = (case.get("files") or {}).get(file)
            if isinstance(text, str):
                found.append((f"{path.stem}:{case['id']}", text, job, var))
    examples = [*sorted((ROOT / "docs" / "examples").glob("*.yml")),
                ROOT / "examples" / "release" / "workflow" / "apple.yml"]
    for path in examples:
        jobs = (yaml.safe_load(path.read_text()) or {}).get("jobs") or {}
        found += [(f"{path.name}:{job}", path.read_text(), job, "FRAMEWORKS") for job in jobs]
    return found


def the_step(text: str, job: str, var: str) -> tuple[str, dict[str, str]] | None:
    """The script that assigns `var` and the environment the runner gives it, read with a
    plain YAML load (not the reader's)."""
    workflow = yaml.safe_load(text)
    node = workflow["jobs"][job]
    steps = [({}, (node.get("with") or {}).get("script"))]
    steps += [(step.get("env") or {}, step.get("run")) for step in node.get("steps") or []]
    for step_env, script in steps:
        if isinstance(script, str) and f"{var}=(" in script:
            env = {**(workflow.get("env") or {}), **(node.get("env") or {}), **step_env}
            return script, {str(k): str(v) for k, v in env.items()}
    return None


def runner_list(script: str, env: dict[str, str]) -> list[str] | None:
    """The array at the end of the script, bash run with the runner's own command line."""
    with tempfile.TemporaryDirectory(prefix="oracle-") as folder:
        path = Path(folder) / "script.sh"
        path.write_text(render(script) + PRINT)
        try:
            done = subprocess.run([*network_isolation(), *RUNNER_BASH, str(path)], cwd=folder,
                                  env=env, capture_output=True, timeout=5, check=False,
                                  stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return None
    start = done.stdout.find(f"{MARKER}42\0".encode())
    if start < 0:
        return None
    fields = done.stdout[start:].split(b"\0")[1:]
    return [f.decode("utf-8", "replace") for f in fields if f]


def test_every_accepted_workflow_builds_the_reader_s_list_in_the_runner_s_bash():
    """The reader's list is bash's, for every accepted corpus case and example; and enough of
    them reach the end of their script that the comparison is real (the ExecuTorch examples
    call scripts that are not here, so `-e` stops them)."""
    accepted = compared = 0
    for case_id, text, job, var in workflow_files():
        try:
            names = frameworks_in_workflow(text, job, var, file="w.yml")
        except (InputError, Missing):
            continue
        accepted += 1
        step = the_step(text, job, var)
        assert step is not None, case_id
        built = runner_list(*step)
        if built is not None:
            compared += 1
            assert built == [d.name for d in names], case_id
    assert accepted >= 10
    assert compared >= accepted // 2, (compared, accepted)


@pytest.mark.parametrize(("env", "refused"), [
    ({"BASH_ENV": "more.sh"}, "BASH_ENV"),
    ({"SHELLOPTS": "xtrace", "BASH_ENV": "more.sh"}, "SHELLOPTS"),
], ids=["bash-env", "shellopts"])
def test_an_env_bash_reads_builds_another_list_and_is_refused(env, refused):
    """Real: bash as the runner runs it, with that env:, builds (a b c) from `( a b )`."""
    script = "FRAMEWORKS=( a b )\n"
    with tempfile.TemporaryDirectory(prefix="oracle-") as folder:
        (Path(folder) / "more.sh").write_text("trap 'FRAMEWORKS+=(c)' DEBUG\n")
        (Path(folder) / "script.sh").write_text(script + PRINT)
        done = subprocess.run([*RUNNER_BASH, "script.sh"], cwd=folder, env=env,
                              capture_output=True, timeout=5, check=False)
    assert done.stdout.split(b"\0")[1:-1] == [b"a", b"b", b"c"]
    body = "".join(f"      {k}: {v}\n" for k, v in env.items())
    text = f"jobs:\n  build:\n    env:\n{body}    steps:\n      - run: |\n          {script}"
    with pytest.raises(InputError, match=f"env: sets '{refused}'"):
        frameworks_in_workflow(text, "build", "FRAMEWORKS", file="w.yml")


def test_a_continuation_in_the_array_is_refused_where_bash_joins_words():
    script = "FRAMEWORKS=( executorch thread\\\npool )\n"
    assert bash_list(script) == ["executorch", "threadpool"]
    assert isinstance(read_array(script.encode(), "FRAMEWORKS"), Rejected)
