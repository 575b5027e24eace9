"""What each finding code weighs by default and what to change (pure): the findings reference
page (`docs/reference/findings.md`) is generated from this and `core.model.CODES`."""

from __future__ import annotations

#: code → (default severity, what to change). `--warn CODE` turns an error into a warning.
GUIDE: dict[str, tuple[str, str]] = {
    "unfilled-placeholder": ("error", "Build the name (add it to the workflow's FRAMEWORKS, or "
                             "the zip to the artifacts), or remove the template's line asking "
                             "for it. The fix line names the file, the line and the commit that "
                             "brought it."),
    "unclaimed-artifact": ("error", "Add the product and binary target to the template, or "
                           "stop building the name. On a release line that no longer publishes "
                           "it is a warning."),
    "missing-checksum": ("error", "Make the build produce the zip the finding names, or drop "
                         "the name from FRAMEWORKS (the line the finding is on) and the "
                         "template. `render`, `publish` and a `check` with a version and zips "
                         "need every declared name built; a workflow list alone only declares "
                         "names."),
    "missing-stub": ("error", "Add `.Package.swift/<name>/` beside the template with one Swift "
                     "source file (a `dummy.swift`)."),
    "empty-stub": ("error", "Put a Swift source file in the stub folder: SwiftPM rejects a "
                   "source target without sources."),
    "orphan-stub": ("error", "Remove the stub folder, or add the product it belongs to."),
    "unknown-role": ("warning", "Declare the name inside `let products = …` or `let targets = "
                     "…`, or add its stub folder, or run with the real SwiftPM (`swift`)."),
    "stray-file": ("warning", "Remove the file from the stub root (a `.DS_Store`)."),
    "stub-symlink": ("error", "Replace the link by a real folder: links are never followed."),
    "bad-checksum": ("error", "Fix the checksum source: 64 lowercase hex digits, as "
                     "`shasum -a 256` prints."),
    "conflicting-artifact": ("error", "Use one source per name, or rebuild: two sources give "
                             "the name different checksums."),
    "version-mismatch": ("error", "Rebuild the zip for this version, or pass the right "
                         "`--version`."),
    "bad-version": ("error", "Name the branch `<prefix>X.Y.Z` or `<prefix>X.Y.Z.YYYYMMDD`, or "
                    "pass `--version-pattern`."),
    "missing-version": ("warning", "Use `__VERSION__` in the binary target URLs so each "
                        "release points at its own zips."),
    "malformed-placeholder": ("error", "Spell the placeholder exactly: `__SHA256_<name>__`, "
                              "`__VERSION__`."),
    "zip-layout": ("error", "Rebuild the zip with `ditto -c -k --keepParent "
                   "<name>.xcframework <name>-<version>.zip` or `zip -ry -X` from the folder "
                   "holding it: one `<name>.xcframework/` at the root and nothing else."),
    "swift-error": ("error", "Fix the template line SwiftPM names (its message is quoted)."),
    "needs-swiftpm": ("error", "Run the check where `swift` is (`--swift`, a macOS or Ubuntu "
                      "runner, the image with SwiftPM), or accept an unproven static reading "
                      "with `--accept-static` (input `accept-static`)."),
    "tools-version": ("error", "Make the first line `// swift-tools-version:X.Y` with X.Y "
                      "from 5.3 to 6.0, nothing before or after it."),
    "url": ("error", "Make the binary target URL https, ending in `.zip`, holding the version "
            "and the target's name."),
    "checksum-mismatch": ("error", "Give each binary target its own name's checksum "
                          "placeholder, and a URL naming its own built zip."),
    "placeholder-left": ("error", "In a template, fill it (a Jinja template writes "
                         "`{{ version }}` and `{{ checksums['<name>'] }}`); on a published "
                         "branch, republish the version with `publish --update` and every "
                         "checksum: consumers of this branch cannot resolve it."),
    "duplicate-checksum": ("error", "Republish with the right zips: two names share one "
                           "checksum."),
    "reused-checksum": ("error", "Check the checksum list the version was published from: a "
                        "name kept another version's checksum."),
    "branch-version": ("error", "Republish: the manifest's version is not the branch's."),
    "manifest-unreadable": ("error", "Republish the branch: its Package.swift is missing, too "
                            "large or not UTF-8."),
    "unrecognised-manifest": ("warning", "Check the branch by hand: no checksum was "
                              "recognised."),
    "edited-after-publish": ("warning", "Review the edit; to republish on top of it use "
                             "`publish --update`, never `--allow-overwrite`."),
    "url-missing": ("error", "Upload the zip to the URL the manifest names, or fix the base "
                    "URL."),
    "url-error": ("error", "Check the host: the URL answered neither the zip nor 404 after "
                  "retries."),
    "url-checksum": ("error", "Upload the zip the checksum was taken from, or republish with "
                     "the served zip's checksum."),
    "url-not-zip": ("error", "Serve the zip itself at the URL (not an HTML page)."),
    "url-no-artifact": ("error", "Upload a zip holding `<name>.xcframework/Info.plist` at its "
                        "root."),
    "url-exists": ("error", "An earlier run uploaded this version without publishing: publish "
                   "those zips, or replace them by running without `verify-absent`."),
    "zip-plist": ("error", "Rebuild the XCFramework with `xcodebuild -create-xcframework`: its "
                  "Info.plist is missing or not XCFramework metadata."),
    "zip-library-missing": ("error", "Rebuild the XCFramework: a library its Info.plist lists "
                            "is not in the zip."),
    "missing-slice": ("error", "Build the XCFramework with a library for the platform the "
                      "finding names (`xcodebuild archive` for its device and its simulator "
                      "destination, each passed to `xcodebuild -create-xcframework`), or drop "
                      "the platform from the manifest's `platforms:`."),
    "slice-minimum-os": ("error", "Build the library with a deployment target no higher than "
                         "the manifest's (`IPHONEOS_DEPLOYMENT_TARGET`, "
                         "`MACOSX_DEPLOYMENT_TARGET`, …), or raise the platform's version in "
                         "`platforms:`."),
    "zip-symlinks": ("error", "Zip with `-y` so a macOS framework keeps its symlinks."),
    "zip-link": ("error", "Zip with `-y` from inside the build folder, so each symlink points "
                 "at a file in its own bundle (never an absolute path or `..` out)."),
    "zip-unverified": ("error", "Rebuild the zip, or publish it with `--no-verify-zips` "
                       "(input `verify-zips: false`) if its size is meant: past the bound, "
                       "its entries were not all verified."),
    "zip-signature": ("notice", "Sign all zips of the release or none, if that was not meant."),
    "resolve-failed": ("error", "Fix the target SwiftPM names (its own error is quoted)."),
    "resolve-error": ("error", "Read SwiftPM's error; check every target's URL and checksum."),
    "resolved": ("notice", "Nothing: SwiftPM downloaded and accepted the target."),
    "published-tree": ("error", "Remove the file, submodule or name from the template ref "
                       "(rename a root file to ASCII letters, digits, `.`, `_` and `-`, or move "
                       "it into a folder): the published tree must be what consumers read."),
    "unchecked-manifest": ("error", "Remove the root manifest from the template ref, or name "
                           "its template (`template`, `--template`) so it is rendered and "
                           "checked."),
    "commit-proof": ("error", "Nothing was pushed. The commit publish built differs from what "
                     "its check judged: report it with the log."),
    "download-growth": ("error", "Stop shipping what consumers do not need (SwiftPM downloads "
                        "every binary target of the package, used or not, debug twins "
                        "included: move rarely used frameworks to another package), or raise "
                        "`download-growth-limit` when the growth is meant."),
    "branch-exists": ("error", "Release another version, or add a commit on top with "
                      "`update: true` (`publish --update`); a published version is never "
                      "rewritten unless `allow-overwrite` says so."),
}
