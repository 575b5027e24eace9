"""The action's entry point: the runner starts this inside the container."""

from swiftpm_guard.action.main import main

raise SystemExit(main())
