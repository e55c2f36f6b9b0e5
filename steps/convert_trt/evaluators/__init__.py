"""Reference evaluators the FP16 debugger compares an engine against (ONNX Runtime, PyTorch)."""
