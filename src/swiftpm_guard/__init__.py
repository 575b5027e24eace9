"""swiftpm-guard: generate and guard SwiftPM binary-package manifests."""

__version__ = "1.0.0"
