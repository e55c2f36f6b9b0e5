"""The train step: a classifier trained with the acceleration layer (:mod:`steps.train.accel`)."""
