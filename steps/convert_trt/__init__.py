"""Step ``convert``: ONNX → inference engine (TensorRT / mixed-precision ONNX / PyTorch) with an FP16 debugger.

Kept in Polygraphy's shape: :mod:`mlkit.engine.inspect` (model inspection), :mod:`mlkit.engine.backends`
(build and run an engine), :mod:`.evaluators` + :mod:`.comparator` + :mod:`.debugger` (find the layers that must
stay FP32). :mod:`mlkit.engine.runtime` loads a finished engine bundle for serving.
"""
