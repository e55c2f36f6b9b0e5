"""Inference engines: :mod:`.inspect` (ONNX inspection), :mod:`.backends` (build and run an engine),
:mod:`.compiled` (torch.compile plans and caches), :mod:`.runtime` (load a finished engine bundle)."""
