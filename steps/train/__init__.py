"""The train step: a classifier trained with the acceleration layer (:mod:`mlkit.accel`)."""
