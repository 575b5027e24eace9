"""Size caps for the text inputs we read whole (real ones are kilobytes; hostile ones are not),
and the time bounds every layer shares."""

TEMPLATE_MAX_BYTES = 4 * 1024 * 1024
WORKFLOW_MAX_BYTES = 2 * 1024 * 1024
CHECKSUMS_MAX_BYTES = 1024 * 1024
LIST_MAX_BYTES = 1024 * 1024

#: How long tree-sitter-bash may take on a job's scripts (a 2 MiB one takes well under 1 s).
BASH_PARSE_SECONDS = 20.0

#: Entries per framework zip. A real xcframework zip holds a few thousand; a central directory
#: of millions is hostile (3 million cost 1.45 GB with zipfile), so we stop at the cap.
ZIP_MAX_ENTRIES = 200_000
#: The central directory zipfile reads whole: a real one is well under a megabyte; 16 MiB of
#: the smallest records is 360,000 entries, about 160 MB of zipfile's objects.
ZIP_DIRECTORY_MAX_BYTES = 16 * 1024 * 1024
#: Reading one zip's small entries (metadata, symlink targets; at most 512 MiB by their caps).
ZIP_READ_SECONDS = 120.0
#: `--verify-zips`, per zip: the declared uncompressed bytes it decompresses (a real
#: xcframework zip holds well under a gigabyte; deflate runs at a few hundred MB/s), and
#: how long it may take. Past either bound the zip is `zip-unverified`, not passed.
ZIP_VERIFY_MAX_BYTES = 16 * 1024**3
ZIP_VERIFY_SECONDS = 300.0

#: A run's artifact, and any one built zip: real ones are a few GB. A local zip past it is
#: refused before a byte is hashed (a sparse file can claim a terabyte).
ARTIFACT_MAX_BYTES = 16 * 1024**3
#: Hashing every local zip of one folder (SHA-256 runs at several hundred MB/s a core).
HASH_SECONDS = 900.0

#: One git process that talks to a remote: a slow runner can take a while, not forever.
GIT_NETWORK_SECONDS = 180.0
#: One git process of an audit; a fetch of hundreds of shallow branches fits easily.
GIT_AUDIT_SECONDS = 300.0
#: Folders below a stub folder (or the stub root) we walk: real ones are one or two deep.
TREE_MAX_DEPTH = 64
