"""Engine backends behind one interface (:mod:`.base`): TensorRT, mixed-precision ONNX, PyTorch."""
