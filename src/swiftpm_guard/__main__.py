from swiftpm_guard.cli.main import run

run()
