# swiftpm-guard as a Docker action. The runner builds this file on every job, so it is ordered
# for the layer cache (system packages, then locked dependencies, then our code) and kept to
# what the action needs at run time. Why this base: README, "Container image".
FROM debian:bookworm-slim

# Debian's own python3 (3.11) and git; ca-certificates for HTTPS to the GitHub API and remotes.
# Versions are not pinned: the Debian stable suite only takes security and point-release fixes,
# and a pinned version vanishes from the mirror when its successor lands, breaking every build.
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends ca-certificates git python3 python3-venv \
    && rm -rf /var/lib/apt/lists/*

# Python dependencies from the hash-locked file only (`make lock` regenerates it); pip itself
# leaves the image once they are in.
COPY requirements.lock /tmp/requirements.lock
RUN python3 -m venv /opt/swiftpm-guard \
    && /opt/swiftpm-guard/bin/pip install --no-cache-dir --no-deps --require-hashes \
        --cert /etc/ssl/certs/ca-certificates.crt -r /tmp/requirements.lock \
    && /opt/swiftpm-guard/bin/pip check \
    && /opt/swiftpm-guard/bin/pip uninstall --yes --quiet pip setuptools \
    && rm /tmp/requirements.lock

# Our code: .dockerignore lets only src/swiftpm_guard, entrypoint.py and requirements.lock into
# the context. The package goes on the venv's path through a .pth file (no build backend
# needed), compiled ahead so a run never writes bytecode.
COPY . /app/
RUN printf '/app/src\n' > "$(/opt/swiftpm-guard/bin/python -c 'import sysconfig; print(sysconfig.get_path("purelib"))')/swiftpm_guard.pth" \
    && /opt/swiftpm-guard/bin/python -m compileall -q /app \
    && printf '#!/opt/swiftpm-guard/bin/python -I\nimport sys\nfrom swiftpm_guard.cli.main import main\nsys.exit(main())\n' > /usr/local/bin/swiftpm-guard \
    && chmod 755 /usr/local/bin/swiftpm-guard

# The runner passes the job's environment through (PATH, PYTHONPATH, HOME may be anything), so
# Python is named by absolute path and -I ignores PYTHON* variables, the user site and the
# current directory (the workspace); -u keeps log lines in order with git's output; UTF-8
# whatever locale the job claims (the image has none but C).
ENTRYPOINT ["/opt/swiftpm-guard/bin/python", "-I", "-u", "-X", "utf8", "/app/entrypoint.py"]
