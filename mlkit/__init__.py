"""The shared ML library every step imports (it never imports ``steps`` or ``pipelines``).

- :mod:`.model`: the model zoo (build, save, load a classifier bundle);
- :mod:`.data`: datasets and image loading/preprocessing;
- :mod:`.accel`: the acceleration layer (AMP, DDP, loaders, prefetch, GPU JPEG decode);
- :mod:`.export`: the model bundle writer (weights, ONNX, config);
- :mod:`.tracking`: the MLflow tracker and model registry;
- :mod:`.engine`: inference engines (build and load TensorRT / ONNX / PyTorch) and their runtime;
- :mod:`.fixtures`: tiny models and datasets for tests and benchmarks.
"""
