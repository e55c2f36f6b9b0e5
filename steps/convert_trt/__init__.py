"""Step ``convert``: ONNX → inference engine (TensorRT / mixed-precision ONNX / PyTorch) with an FP16 debugger.

Kept in Polygraphy's shape: :mod:`.inspect` (model inspection), :mod:`.backends` (build and run
an engine), :mod:`.comparator` + :mod:`.debugger` (find the layers that must stay FP32).
:mod:`.runtime` loads a finished engine bundle for serving.
"""
