"""Process runners for the embedded engine (local mount-namespace runner)."""
