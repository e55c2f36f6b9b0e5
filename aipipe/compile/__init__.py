"""Compile Hera pipelines into Argo manifests and lint them (structure and semantics)."""

from aipipe.compile.compiler import CompiledPipeline, compile_pipeline, load_documents
from aipipe.compile.params import PipelineParam, parse_assignments
from aipipe.compile.writer import dump_yaml, write_manifests

__all__ = [
    "CompiledPipeline",
    "PipelineParam",
    "compile_pipeline",
    "dump_yaml",
    "load_documents",
    "parse_assignments",
    "write_manifests",
]
