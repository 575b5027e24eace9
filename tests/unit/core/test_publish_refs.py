import pytest

from swiftpm_guard.core.names import (
    is_excluded,
    ref_matches,
    validate_excluded,
    validate_ref_glob,
)
from swiftpm_guard.errors import UsageError


def test_branch_globs_match_branches_and_full_globs_match_refs():
    patterns = ("main", "release/*", "refs/tags/v*")
    assert ref_matches("refs/heads/main", patterns) == "main"
    assert ref_matches("refs/heads/release/1.0", patterns) == "release/*"
    assert ref_matches("refs/tags/v1.2.3", patterns) == "refs/tags/v*"
    assert ref_matches("refs/heads/feature/faster-build", patterns) is None
    assert ref_matches("refs/tags/main", ("main",)) is None  # a tag is not the branch
    assert ref_matches("refs/pull/3/merge", patterns) is None
    assert ref_matches("", patterns) is None


@pytest.mark.parametrize("bad", ["-x", "/main", "a..b", "a b", "x;y", ""])
def test_bad_globs_are_refused(bad):
    with pytest.raises(UsageError, match="publish-refs"):
        validate_ref_glob(bad)


def test_exclusions_are_folders_or_files():
    assert validate_excluded(("none",)) == ()
    assert is_excluded(".github/workflows/a.yml", (".github/",))
    assert is_excluded(".github", (".github/",))
    assert not is_excluded(".githubx/a", (".github/",))
    assert is_excluded("docs/x.md", ("docs/x.md",)) and not is_excluded("docs/y.md", ("docs/x.md",))
    # The one path rule: a leading './' is how workflows write a relative path; it is dropped.
    assert validate_excluded(("./a", "docs/", "./b/")) == ("a", "docs/", "b/")
    for bad in ("../x", "/etc", "a//b", "a/./b", ".", "./", "-x", "a b", "a\nb"):
        with pytest.raises(UsageError):
            validate_excluded((bad,))
