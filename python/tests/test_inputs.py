"""Input handling: pandas frames, categorical and text columns, missing values, clear errors,
pickling and scikit-learn's model selection tools."""

import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import FunctionTransformer

import ltu
from common import DATA, read_csv


def test_pandas_categorical_text_and_missing_columns():
    rng = np.random.default_rng(0)
    n = 200
    colour = rng.choice(["red", "green", "blue"], n)
    size = rng.normal(size=n)
    y = np.where((colour == "red") | (size > 1.0), "yes", "no")
    size[::17] = np.nan
    X = pd.DataFrame({"colour": pd.Categorical(colour), "size": size, "tag": colour.astype(object)})
    est = ltu.PerceptronTree().fit(X, y)
    assert list(est.feature_names_in_) == ["colour", "size", "tag"]
    assert est.n_features_in_ == 3
    schema = est.model_.schema
    kinds = [a["categories"] is not None for a in schema["attributes"]]
    assert kinds == [True, False, True]
    assert est.score(X, y) > 0.9
    # An unseen category reads as missing, as `ltu predict` reads it.
    X2 = X.copy()
    X2["tag"] = "purple"
    assert len(est.predict(X2)) == n


def test_numpy_and_pandas_give_the_same_model():
    X, y = read_csv(DATA / "iris.csv")
    a = ltu.NeuralDecisionList().fit(X, y).to_bytes()
    b = ltu.NeuralDecisionList().fit(X.to_numpy(), y.to_numpy())
    # Column names differ (x0.. for arrays), so compare predictions and the device part.
    assert (ltu.from_bytes(a).predict_index(X.to_numpy()) == b.model_.predict_index(X.to_numpy())).all()


def test_bad_input_is_a_value_error():
    X, y = read_csv(DATA / "iris.csv")
    with pytest.raises(ValueError, match="infinity"):
        Xi = X.to_numpy().copy()
        Xi[0, 0] = np.inf
        ltu.PerceptronTree().fit(Xi, y)
    with pytest.raises(ValueError, match="prune-fraction"):
        ltu.PerceptronTree(prune_fraction=2.0).fit(X, y)
    with pytest.raises(ValueError, match="order"):
        ltu.PerceptronTree(order="sideways").fit(X, y)
    with pytest.raises(ValueError, match="features"):
        ltu.PerceptronTree().fit(X, y).predict(X.iloc[:, :2].to_numpy())
    with pytest.raises(ValueError, match="2 rows but y has 3"):
        ltu.PerceptronTree().fit(X.iloc[:2], y.iloc[:3])


def test_budget_and_pickle_and_clone():
    X, y = read_csv(DATA / "glass.csv")
    est = ltu.PerceptronTree(max_bytes=300, random_state=1).fit(X, y)
    assert est.device_cost()["device_bytes"] <= 300
    again = pickle.loads(pickle.dumps(est))
    assert (again.predict(X) == est.predict(X)).all()
    assert again.to_bytes() == est.to_bytes()
    assert clone(est).get_params() == est.get_params()


def test_model_selection_tools():
    X, y = read_csv(DATA / "iris.csv")
    scores = cross_val_score(ltu.PerceptronTree(), X, y, cv=3)
    assert scores.mean() > 0.8
    grid = GridSearchCV(ltu.PerceptronTree(), {"max_depth": [1, 3]}, cv=3).fit(X, y)
    assert grid.best_params_["max_depth"] in (1, 3)
    pipe = Pipeline([("id", FunctionTransformer()), ("tree", ltu.Fringe())]).fit(X.to_numpy(), y)
    assert pipe.score(X.to_numpy(), y) > 0.8


def test_every_learner_option_is_a_parameter():
    described = {o["flag"] for o in __import__("json").loads(ltu._ltu.describe())["options"]}
    params = set()
    for cls in ltu.ESTIMATORS.values():
        params |= set(cls().get_params())
    for flag in described - {"--algo"}:
        name = "random_state" if flag == "--seed" else flag[2:].replace("-", "_")
        assert name in params, flag
