"""Local service processes the embedded default and the tests start (Label Studio, MLflow, S3)."""
