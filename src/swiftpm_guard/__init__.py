"""swiftpm-guard: generate and guard SwiftPM binary-package manifests."""

__version__ = "0.1.0"
