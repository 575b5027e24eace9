# swiftpm-guard as a Docker action. On main the runner builds this file on every job: its
# default target is `runtime`, what the action needs at run time and nothing that only builds
# it. Releases pull the `release` target prebuilt: the same files, less what nothing reads at
# run time, flattened into one layer. README, "Container image": why this base, what is left
# out and why that is safe.
FROM debian:trixie-slim AS runtime

COPY requirements.lock /tmp/requirements.lock

# System packages and the locked dependencies in one step, so that what only builds the image
# (python3-venv, pip) and what git depends on but the action never runs (perl) leave
# in the layer they came in: removed in a later layer they would still be pulled.
#
# - Debian's own python3 (3.13) and git; ca-certificates for HTTPS to the GitHub API, remotes
#   and binary targets. Versions are not pinned: the Debian stable suite only takes security
#   and point-release fixes, and a pinned version vanishes from the mirror when its successor
#   lands.
# - SwiftPM: Debian's swiftlang (Swift 6.0.3, the toolchain scripts/swift-toolchain.sh gives
#   the tests), which the action runs as /usr/bin/swift for `swift package dump-package`,
#   `describe` and `resolve`. A manifest is compiled and linked, then run: swift-driver,
#   swift-frontend, swift-package, clang as the linker driver, binutils' ld, gcc's and
#   libc6-dev's crt files; unzip unpacks binary targets, git fetches package dependencies.
# - Not unpacked (dpkg path-exclude, as the slim base does for documentation):
#   git's programs that are not a git client (scalar, git-shell, git-daemon, git-http-backend,
#   git-imap-send, gitweb); of the Swift toolchain (2.1 GB unpacked, 0.6 GB kept), every program
#   but the ones above (an allow-list: no lldb, REPL, sourcekit-lsp, clangd, docc, lld,
#   swift-format), the libraries only they load (lldb, sourcekitd, LTO, IndexStore, the
#   dependency scanner), the static and embedded standard libraries, clang's runtime libraries
#   (sanitizers, profiling), the ABI baselines, migrator data, manuals; of gcc, the C and LTO
#   compilers and lto-dump (clang compiles, gcc's files only link) and the sanitizer runtimes.
#   tests/e2e/test_image_swiftpm.py runs dump-package, describe and resolve in the image as the
#   runner runs it; test_image_contents.py pins what is kept and what is not.
# - Python dependencies from the hash-locked file only (`make lock` regenerates it), checked
#   complete by `pip check`, then removed: pip (3.13's venv has no setuptools); cryptography,
#   which PyJWT needs only for GitHub-App (RS/ES) signing while the action authenticates with
#   a token (PyJWT imports it optionally); pycparser, which cffi needs only to compile C
#   declarations, not to load PyNaCl's compiled module.
# - python3-venv once the venv exists, with what it alone brought: ensurepip's wheels (dpkg
#   without --force: it refuses if anything else needs them).
# - perl, last, with dpkg: git Depends on it for porcelain written in Perl (send-email, svn,
#   cvs*, archimport, add--interactive's old script) and the action runs only git's compiled
#   builtins and its HTTPS helper. apt would now report git's dependency on perl and
#   liberror-perl as unmet, so nothing may install packages after this point;
#   tests/e2e/test_image_contents.py pins exactly those two as the only unmet ones.
# hadolint ignore=DL3008
RUN printf 'path-exclude %s\n' /usr/bin/scalar /usr/lib/git-core/scalar /usr/bin/git-shell \
        /usr/lib/git-core/git-shell /usr/lib/git-core/git-daemon \
        /usr/lib/git-core/git-http-backend /usr/lib/git-core/git-imap-send '/usr/share/gitweb/*' \
        '/usr/libexec/swift/bin/*' '/usr/libexec/swift/lib/liblldb*' \
        /usr/libexec/swift/lib/libsourcekitdInProc.so '/usr/libexec/swift/lib/libLTO*' \
        '/usr/libexec/swift/lib/libIndexStore*' \
        /usr/libexec/swift/lib/swift/host/lib_InternalSwiftScan.so \
        '/usr/libexec/swift/lib/swift_static/*' '/usr/libexec/swift/lib/swift/embedded/*' \
        '/usr/libexec/swift/lib/swift/FrameworkABIBaseline/*' \
        '/usr/libexec/swift/lib/swift/migrator/*' \
        '/usr/libexec/swift/lib/clang/*/lib/*' '/usr/libexec/swift/share/docc/*' \
        '/usr/libexec/swift/share/man/*' '/usr/libexec/gcc/*/cc1' '/usr/libexec/gcc/*/lto1' \
        '/usr/lib/*-linux-gnu/lib*san.so*' '/usr/lib/gcc/*-linux-gnu/*/lib*san*' \
        '/usr/bin/*lto-dump*' \
        > /etc/dpkg/dpkg.cfg.d/swiftpm-guard \
    && printf 'path-include /usr/libexec/swift/bin/%s\n' swift swiftc swift-driver swift-frontend \
        swift-autolink-extract swift-package clang clang-17 >> /etc/dpkg/dpkg.cfg.d/swiftpm-guard \
    && apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates git python3 python3-venv \
        swiftlang libc6-dev unzip \
    && python3 -m venv /opt/swiftpm-guard \
    && /opt/swiftpm-guard/bin/pip install --no-cache-dir --no-deps --require-hashes \
        --cert /etc/ssl/certs/ca-certificates.crt -r /tmp/requirements.lock \
    && /opt/swiftpm-guard/bin/pip check \
    && /opt/swiftpm-guard/bin/pip uninstall --yes --quiet cryptography pycparser pip \
    && dpkg --purge python3-venv python3.13-venv python3-pip-whl python3-setuptools-whl \
    && dpkg --purge --force-depends perl liberror-perl libperl5.40 perl-modules-5.40 \
        libgdbm-compat4t64 libgdbm6t64 \
    && rm -rf /var/lib/apt/lists/* /tmp/requirements.lock

# Our code: .dockerignore lets only src/swiftpm_guard, entrypoint.py and requirements.lock into
# the context. The package goes on the venv's path through a .pth file (no build backend
# needed), compiled ahead so a run never writes bytecode. The CLI, like the action, runs the
# image's own tools (git, swift and what SwiftPM starts) whatever PATH the job passes in.
COPY . /app/
RUN printf '/app/src\n' > "$(/opt/swiftpm-guard/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/swiftpm_guard.pth" \
    && /opt/swiftpm-guard/bin/python -m compileall -q /app \
    && printf '%s\n' '#!/opt/swiftpm-guard/bin/python -I' 'import os' \
        'from swiftpm_guard.infra.git import SYSTEM_PATH' 'os.environ["PATH"] = SYSTEM_PATH' \
        'from swiftpm_guard.cli.main import run' 'run()' > /usr/local/bin/swiftpm-guard \
    && chmod 755 /usr/local/bin/swiftpm-guard

# The runner passes the job's environment through (PATH, PYTHONPATH, HOME may be anything), so
# Python is named by absolute path and -I ignores PYTHON* variables, the user site and the
# current directory (the workspace); -u keeps log lines in order with git's output; UTF-8
# whatever locale the job claims (the image has none but C). --image: entrypoint.py sets PATH
# to the image's system folders and makes input swift auto mean /usr/bin/swift.
ENTRYPOINT ["/opt/swiftpm-guard/bin/python", "-I", "-u", "-X", "utf8", "/app/entrypoint.py", \
            "--image"]

# The released image (`--target release`; scripts/release.sh and the release workflow). A pull
# unpacks every file of every layer, base included, one at a time, and most of its time goes
# there; so the release holds each file once, in one layer (the base's files that the runtime
# layer replaced are not pulled twice), without what nothing reads when the action runs:
# - /usr/share/zoneinfo but Etc/UTC, where /etc/localtime points: TZ is unset in the
#   container, git and Python format times in UTC, nothing looks a zone up by name;
# - perl-base (perl, its modules) and the Perl modules of debconf: git runs only its compiled
#   builtins and nothing else runs Perl, as in `runtime`, which already lacks perl itself;
# - dpkg's per-package scripts and file lists (/var/lib/dpkg/info): dpkg alone reads them, and
#   no package may be installed into this image anyway (see above); /var/lib/dpkg/status stays,
#   so scanners still list every package and version;
# - bash completions, the debconf cache, logs.
# tests/e2e/test_image_contents.py pins that these and only these differ from `runtime`, that
# the image's configuration is the same, and the e2e registry test runs the action from it.
FROM runtime AS pruned
RUN find /usr/share/zoneinfo -mindepth 1 -maxdepth 1 ! -name Etc -exec rm -rf {} + \
    && find /usr/share/zoneinfo/Etc -mindepth 1 ! -name UTC -exec rm -rf {} + \
    && rm -rf /usr/bin/perl /usr/bin/perl5.* /usr/lib/*-linux-gnu/perl-base /usr/share/perl5 \
        /var/lib/dpkg/info /usr/share/bash-completion /var/cache/debconf /var/log/*

FROM scratch AS release
# hadolint ignore=DL3067
COPY --from=pruned / /
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
ENTRYPOINT ["/opt/swiftpm-guard/bin/python", "-I", "-u", "-X", "utf8", "/app/entrypoint.py", \
            "--image"]

# The default target, what `runs.image: Dockerfile` builds: `runtime` itself. (BuildKit builds
# only the stages a target needs; the legacy builder builds them all unless given --target.)
FROM runtime
