"""scikit-learn's own estimator checks on every ltu estimator."""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

import ltu

# Checks that cannot apply to ltu's estimators, each with the reason. They run and must fail
# (scikit-learn marks them xfail, strict); a check that starts to pass is reported.
EXPECTED_FAILED = {}


def expected_failed(estimator):
    return EXPECTED_FAILED


@parametrize_with_checks([cls() for cls in ltu.ESTIMATORS.values()], expected_failed_checks=expected_failed)
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
