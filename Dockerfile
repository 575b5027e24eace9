# swiftpm-guard as a Docker action. Releases pull this image prebuilt; on main the runner builds
# this file on every job. It holds what the action needs at run time and nothing that only
# builds it: README, "Container image" (why this base, what is left out and why that is safe).
FROM debian:bookworm-slim

COPY requirements.lock /tmp/requirements.lock

# System packages and the locked dependencies in one step, so that what only builds the image
# (python3-venv, pip, setuptools) and what git depends on but the action never runs (perl) leave
# in the layer they came in: removed in a later layer they would still be pulled.
#
# - Debian's own python3 (3.11) and git; ca-certificates for HTTPS to the GitHub API and remotes.
#   Versions are not pinned: the Debian stable suite only takes security and point-release
#   fixes, and a pinned version vanishes from the mirror when its successor lands.
# - Not unpacked from git (dpkg path-exclude, as the slim base does for documentation): programs
#   that are not a git client — scalar, git-shell, git-daemon, git-http-backend, git-imap-send,
#   gitweb.
# - Python dependencies from the hash-locked file only (`make lock` regenerates it), checked
#   complete by `pip check`, then removed: pip and setuptools; cryptography, which PyJWT needs
#   only for GitHub-App (RS/ES) signing while the action authenticates with a token (PyJWT
#   imports it optionally); pycparser, which cffi needs only to compile C declarations, not to
#   load PyNaCl's compiled module.
# - python3-venv once the venv exists, with what it alone brought: ensurepip's wheels,
#   distutils, lib2to3 (dpkg without --force: it refuses if anything else needs them).
# - perl, last, with dpkg: git Depends on it for porcelain written in Perl (send-email, svn,
#   cvs*, archimport, add--interactive's old script) and the action runs only git's compiled
#   builtins and its HTTPS helper. apt would now report git's dependency on perl and
#   liberror-perl as unmet, so nothing may install packages after this point;
#   tests/e2e/test_image_contents.py pins exactly those two as the only unmet ones.
# hadolint ignore=DL3008
RUN printf '%s\n' 'path-exclude /usr/bin/scalar' 'path-exclude /usr/lib/git-core/scalar' \
        'path-exclude /usr/bin/git-shell' 'path-exclude /usr/lib/git-core/git-shell' \
        'path-exclude /usr/lib/git-core/git-daemon' 'path-exclude /usr/lib/git-core/git-http-backend' \
        'path-exclude /usr/lib/git-core/git-imap-send' 'path-exclude /usr/share/gitweb/*' \
        > /etc/dpkg/dpkg.cfg.d/swiftpm-guard \
    && apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates git python3 python3-venv \
    && python3 -m venv /opt/swiftpm-guard \
    && /opt/swiftpm-guard/bin/pip install --no-cache-dir --no-deps --require-hashes \
        --cert /etc/ssl/certs/ca-certificates.crt -r /tmp/requirements.lock \
    && /opt/swiftpm-guard/bin/pip check \
    && /opt/swiftpm-guard/bin/pip uninstall --yes --quiet cryptography pycparser pip setuptools \
    && dpkg --purge python3-venv python3.11-venv python3-pip-whl python3-setuptools-whl \
        python3-distutils python3-lib2to3 \
    && dpkg --purge --force-depends perl liberror-perl libperl5.36 perl-modules-5.36 \
        libgdbm-compat4 libgdbm6 \
    && rm -rf /var/lib/apt/lists/* /tmp/requirements.lock

# Our code: .dockerignore lets only src/swiftpm_guard, entrypoint.py and requirements.lock into
# the context. The package goes on the venv's path through a .pth file (no build backend
# needed), compiled ahead so a run never writes bytecode.
COPY . /app/
RUN printf '/app/src\n' > "$(/opt/swiftpm-guard/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/swiftpm_guard.pth" \
    && /opt/swiftpm-guard/bin/python -m compileall -q /app \
    && printf '#!/opt/swiftpm-guard/bin/python -I\nfrom swiftpm_guard.cli.main import run\nrun()\n' > /usr/local/bin/swiftpm-guard \
    && chmod 755 /usr/local/bin/swiftpm-guard

# The runner passes the job's environment through (PATH, PYTHONPATH, HOME may be anything), so
# Python is named by absolute path and -I ignores PYTHON* variables, the user site and the
# current directory (the workspace); -u keeps log lines in order with git's output; UTF-8
# whatever locale the job claims (the image has none but C).
ENTRYPOINT ["/opt/swiftpm-guard/bin/python", "-I", "-u", "-X", "utf8", "/app/entrypoint.py"]
