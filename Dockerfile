# The steps image: every step runs as `python -m steps.<name> --<input> VALUE …` (see docs/CONTRACT.md).
# Not built in this repository's CI (no Docker engine there).
#
#   CPU:  docker build -t aipipe-steps:cpu .
#   CUDA: docker build -t aipipe-steps:cuda \
#           --build-arg BASE_IMAGE=nvidia/cuda:12.8.1-cudnn-runtime-ubuntu24.04 \
#           --build-arg TORCH_INDEX_URL=https://download.pytorch.org/whl/cu128 .
ARG BASE_IMAGE=python:3.11-slim
FROM ${BASE_IMAGE}

ARG TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1 \
    VIRTUAL_ENV=/opt/aipipe PATH=/opt/aipipe/bin:$PATH

# CUDA bases ship no Python; the python:* base already has it.
RUN if ! command -v python3 >/dev/null; then \
        apt-get update && apt-get install -y --no-install-recommends python3 python3-venv \
        && rm -rf /var/lib/apt/lists/*; \
    fi \
    && python3 -m venv "$VIRTUAL_ENV"

WORKDIR /app
COPY pyproject.toml README.md ./
COPY aipipe ./aipipe
COPY mlkit ./mlkit
COPY steps ./steps
COPY pipelines ./pipelines
RUN pip install --extra-index-url "${TORCH_INDEX_URL}" . \
    && useradd --uid 1000 --create-home aipipe \
    && install -d -o aipipe /tmp/outputs

USER 1000
# Templates set the command (`python -m steps.<name>`); running the image bare lists the steps.
CMD ["python", "-c", "from aipipe.contract import STEPS; print('\\n'.join(f'python -m {s.module}' for s in STEPS.values()))"]
