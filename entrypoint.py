"""The action's entry point: the runner starts this inside the container."""

from swiftpm_guard.action import main

raise SystemExit(main())
