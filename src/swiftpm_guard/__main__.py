from swiftpm_guard.cli import main

raise SystemExit(main())
