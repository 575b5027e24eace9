from swiftpm_guard.cli.main import main

raise SystemExit(main())
