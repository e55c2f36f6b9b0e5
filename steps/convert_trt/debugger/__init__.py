"""The engine-agnostic FP16 precision debugger: marking strategies, interventions, the iteration loop."""
