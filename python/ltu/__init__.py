"""ltu: small interpretable classifiers of linear threshold units, as scikit-learn estimators
that export to microcontrollers.

One estimator class per learner of ltu's registry; its parameters are the learner's options of
``ltu train`` (flag ``--prune-fraction`` is parameter ``prune_fraction``; ``None`` keeps the
learner's default, as leaving the flag out does), plus ``random_state`` (``--seed``). Training
runs in the Rust library, with ``ltu train``'s own option checks and warnings; ``save`` writes
the file ``ltu train`` writes, and predictions go through the device runtime.
"""

import inspect as _inspect
import json as _json
import warnings as _warnings
from pathlib import Path as _Path

import numpy as _np
from sklearn.base import BaseEstimator as _BaseEstimator
from sklearn.base import ClassifierMixin as _ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets as _check_targets
from sklearn.utils.validation import check_array as _check_array
from sklearn.utils.validation import check_is_fitted as _check_is_fitted
from sklearn.utils.validation import column_or_1d as _column_or_1d
from sklearn.utils.validation import validate_data as _validate_data

from . import _ltu

__all__ = ["load", "from_bytes", "Model", "ESTIMATORS"]

_DESCRIPTION = _json.loads(_ltu.describe())
__version__ = _DESCRIPTION["version"]

# Class names of the registry's learners; a learner not named here gets one from its `--algo` name.
_CLASS_NAMES = {
    "ptree": "PerceptronTree",
    "ndl": "NeuralDecisionList",
    "hsi": "HalfspaceIntersection",
    "sparse": "SparsePerceptron",
    "oblique": "ObliqueTree",
    "fringe": "Fringe",
}

# Learners that learn two classes only (the learner refuses other data with a ValueError).
_TWO_CLASS = {"hsi"}

# Options renamed for scikit-learn: the seed is `random_state`.
_RENAMED = {"--seed": "random_state"}


def _param_name(flag):
    return _RENAMED.get(flag, flag[2:].replace("-", "_"))


def _is_categorical(series_or_column):
    import pandas as pd

    dtype = series_or_column.dtype
    return isinstance(dtype, pd.CategoricalDtype) or dtype.kind in "OSUb" or pd.api.types.is_string_dtype(dtype)


def _labels(values):
    """Text of each categorical cell (None for missing); TypeError for other objects."""
    out = []
    for v in values:
        if v is None or (isinstance(v, float) and v != v):
            out.append(None)
            continue
        try:
            import pandas as pd

            if v is pd.NA or v is pd.NaT:
                out.append(None)
                continue
        except ImportError:
            pass
        if isinstance(v, (str, bool, _np.bool_, int, float, _np.integer, _np.floating)):
            out.append(str(v))
        else:
            raise TypeError(f"argument must be a string or a number, not {type(v).__name__}")
    return out


def _columns(X):
    """The columns of X: a list of (name, values, categories or None, dtype), categories in order of
    first appearance (a pandas categorical: its declared order)."""
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None and isinstance(X, pd.DataFrame):
        if X.shape[1] == 0 or X.shape[0] == 0:
            raise ValueError(f"X has shape {X.shape}: at least one row and one column are needed")
        cols = []
        for j, name in enumerate(X.columns):
            s = X.iloc[:, j]
            if isinstance(s.dtype, pd.CategoricalDtype):
                cats = [str(c) for c in s.cat.categories]
                codes = s.cat.codes.to_numpy().astype(_np.float64)
                codes[codes < 0] = _np.nan
                cols.append((str(name), codes, cats))
            elif s.dtype.kind in "biuf" and s.dtype.kind != "b":
                v = s.to_numpy(dtype=_np.float64, na_value=_np.nan)
                cols.append((str(name), v, None))
            else:
                cols.append((str(name),) + _coded(s.to_numpy(dtype=object)))
        return cols
    X = _check_array(X, dtype=None, ensure_all_finite=False, ensure_min_samples=1)
    if X.dtype.kind in "iuf":
        X = X.astype(_np.float64, copy=False)
        return [(f"x{j}", X[:, j], None) for j in range(X.shape[1])]
    X = X.astype(object, copy=False)
    return [(f"x{j}",) + _coded(X[:, j]) for j in range(X.shape[1])]


def _coded(values):
    """An object column: numeric if every present cell is a (non-bool) number, else categorical."""
    labels = _labels(values)
    numbers = all(
        v is None or (isinstance(v, (int, float, _np.integer, _np.floating)) and not isinstance(v, (bool, _np.bool_)))
        for v in values
    )
    if numbers:
        return (_np.array([_np.nan if v is None else float(v) for v in values], dtype=_np.float64), None)
    cats, index = [], {}
    codes = _np.empty(len(labels), dtype=_np.float64)
    for i, v in enumerate(labels):
        if v is None:
            codes[i] = _np.nan
            continue
        k = index.get(v)
        if k is None:
            k = index[v] = len(cats)
            cats.append(v)
        codes[i] = k
    return (codes, cats)


def _as_table(X):
    """X as a pandas DataFrame (kept) or a 2-D array (ValueError otherwise, as scikit-learn says)."""
    try:
        import pandas as pd

        if isinstance(X, pd.DataFrame):
            return X
    except ImportError:
        pass
    return _check_array(X, dtype=None, ensure_all_finite=False, ensure_min_samples=1)


def _matrix(cols, n_rows):
    x = _np.empty((n_rows, len(cols)), dtype=_np.float64)
    for j, c in enumerate(cols):
        x[:, j] = c[1]
    if _np.isinf(x).any():
        raise ValueError("Input X contains infinity: ltu reads NaN as missing but needs every other value finite")
    return x


def _decision(native, x, columns=None):
    """``decision_function`` of rows ``x``: the runtime's per-class scores, as ``ltu predict
    --scores`` prints them (``-inf`` where it prints nothing: a class the deciding unit does not
    score), one column per class (``columns``: the model's class index of each, default the
    model's order). With two classes, as scikit-learn's classifiers give it: one value per row,
    the second class's score minus the first's, positive where the runtime predicts the second.
    The runtime breaks a tie of scores (a binary unit's score 0, equal rows of a machine) for one
    class, which these values cannot show."""
    x = _np.ascontiguousarray(x)
    n_rows = x.shape[0]
    scores = _np.asarray(native.scores(x.tobytes(), n_rows), dtype=_np.float64)
    scores = scores.reshape(n_rows, -1)
    if columns is not None:
        scores = scores[:, columns]
    if scores.shape[1] == 2:
        return scores[:, 1] - scores[:, 0]
    return scores


class Model:
    """A trained model file: predictions through the device runtime (as ``ltu predict``),
    ``inspect``, ``codegen``, ``device_cost``, ``save``."""

    def __init__(self, native):
        self._native = native
        schema = _json.loads(native.schema()) if _has_names(native) else None
        self.schema = schema
        self.classes_ = _np.array(schema["classes"], dtype=object) if schema else None
        self.feature_names_in_ = (
            _np.array([a["name"] for a in schema["attributes"]], dtype=object) if schema else None
        )
        self.n_features_in_ = native.n_inputs()

    def _x(self, X):
        if self.schema is None:
            x = _check_array(X, dtype=_np.float64, ensure_all_finite="allow-nan")
        else:
            x = _encode(X, self.schema["attributes"])
        if x.shape[1] != self.n_features_in_:
            raise ValueError(f"X has {x.shape[1]} features, but the model is expecting {self.n_features_in_} features as input")
        return x

    def predict_index(self, X):
        """The runtime's class index of each row."""
        x = self._x(X)
        return _np.asarray(self._native.predict(_np.ascontiguousarray(x).tobytes(), x.shape[0]), dtype=_np.intp)

    def predict(self, X):
        """The class name of each row, as ``ltu predict`` prints it."""
        idx = self.predict_index(X)
        if self.classes_ is None:
            return idx
        return self.classes_[idx]

    def decision_function(self, X):
        """The runtime's scores of each row, columns in the order of ``classes_`` (see
        ``decision_function`` of the estimators)."""
        return _decision(self._native, self._x(X))

    def to_bytes(self, data_file=None):
        return self._native.to_bytes(None if data_file is None else str(data_file))

    def save(self, path, data_file=None):
        _Path(path).write_bytes(self.to_bytes(data_file))

    def inspect(self, data_file=None):
        return _json.loads(self._native.inspect(None if data_file is None else str(data_file)))

    def codegen(self, lang="c", path=None):
        return _json.loads(self._native.codegen(lang, None if path is None else str(path)))

    def device_cost(self):
        return _json.loads(self._native.device_cost())


def _has_names(native):
    try:
        native.schema()
        return True
    except ValueError:
        return False


def _encode(X, attributes):
    """X read with a model's columns: a categorical value by its name among the training values (an
    unseen one is missing, as ``ltu predict`` reads it), a number as it is."""
    cols = _columns(X)
    if len(cols) != len(attributes):
        raise ValueError(f"X has {len(cols)} features, but the model is expecting {len(attributes)} features as input")
    n = len(cols[0][1])
    x = _np.empty((n, len(cols)), dtype=_np.float64)
    for j, (col, attr) in enumerate(zip(cols, attributes)):
        _, values, cats = col
        if attr["categories"] is None:
            if cats is not None:
                raise ValueError(f"column `{attr['name']}` is numeric in the model but holds text")
            x[:, j] = values
        else:
            index = {c: k for k, c in enumerate(attr["categories"])}
            if cats is None:
                names = [None if v != v else _number_text(v) for v in values]
            else:
                names = [None if v != v else cats[int(v)] for v in values]
            x[:, j] = [_np.nan if s is None or s not in index else index[s] for s in names]
    if _np.isinf(x).any():
        raise ValueError("Input X contains infinity")
    return x


def _number_text(v):
    return str(int(v)) if float(v).is_integer() else repr(float(v))


class _LtuClassifier(_ClassifierMixin, _BaseEstimator):
    _algo = None
    _options = ()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.non_deterministic = False
        tags.classifier_tags.multi_class = self._algo not in _TWO_CLASS
        return tags

    def _command(self):
        """The options of the ``ltu train`` command this estimator stands for."""
        args = ["--algo", self._algo]
        for flag, name, takes_value in self._options:
            value = getattr(self, name)
            if value is None or value is False and not takes_value:
                continue
            if not takes_value:
                if value is not True:
                    raise ValueError(f"{name}={value!r}: expected True or False")
                args.append(flag)
                continue
            if isinstance(value, (bool, _np.bool_)):
                text = "true" if value else "false"
            elif isinstance(value, (int, _np.integer)):
                text = str(int(value))
            elif isinstance(value, (float, _np.floating)):
                text = repr(float(value))
            elif isinstance(value, str):
                text = value
            else:
                raise ValueError(f"{name}={value!r}: expected a number, a string or None")
            args += [flag, text]
        return args

    def fit(self, X, y):
        """Trains on X (numpy array or pandas DataFrame; text and categorical columns are
        categorical attributes, NaN is missing) and labels y."""
        if y is None:
            raise ValueError(f"{type(self).__name__} requires y to be passed, but the target y is None")
        X = _as_table(X)
        _validate_data(self, X, reset=True, skip_check_array=True)
        cols = _columns(X)
        y = _column_or_1d(_check_array(y, ensure_2d=False, dtype=None, ensure_all_finite=True), warn=True)
        n = len(cols[0][1])
        if len(y) != n:
            raise ValueError(f"X has {n} rows but y has {len(y)} labels")
        _check_targets(y)
        if self._algo in _TWO_CLASS and len(_np.unique(y)) != 2:
            raise ValueError(
                f"Only binary classification is supported: {self._algo} learns two classes, and y has "
                f"{len(_np.unique(y))} class(es)"
            )
        # Class order as `ltu train` numbers it: first appearance; `classes_` is sorted.
        labels, first = _np.unique(y, return_index=True)
        order = labels[_np.argsort(first, kind="stable")]
        model_index = {v: k for k, v in enumerate(order)}
        y_idx = [model_index[v] for v in y]
        x = _matrix(cols, n)
        try:
            native = _ltu.fit(
                self._command(),
                [(c[0], c[2]) for c in cols],
                x.tobytes(),
                y_idx,
                [str(v) for v in order],
            )
        except ValueError as e:
            raise ValueError(f"{e} (X has {n} rows; y has {len(order)} class(es))") from None
        self.classes_ = labels
        self._model_labels = order
        self.model_ = Model(native)
        self._columns_ = [(c[0], c[2]) for c in cols]
        report = _json.loads(native.report())
        self.train_accuracy_ = report["train_accuracy"]
        self.warnings_ = report["warnings"]
        for w in self.warnings_:
            _warnings.warn(w, stacklevel=2)
        return self

    def _encoded(self, X):
        _check_is_fitted(self, "model_")
        X = _as_table(X)
        _validate_data(self, X, reset=False, skip_check_array=True)
        attributes = [{"name": n, "categories": c} for n, c in self._columns_]
        return _encode(X, attributes)

    def _predict_index(self, X):
        x = self._encoded(X)
        return _np.asarray(
            self.model_._native.predict(_np.ascontiguousarray(x).tobytes(), x.shape[0]), dtype=_np.intp
        )

    def decision_function(self, X):
        """The device runtime's scores of each row: what ``ltu predict --scores`` prints (the
        per-class scores of the unit that decided, in the units of its weights; ``-inf`` for a
        class that unit does not score), shape (n_samples, n_classes) with columns in the order
        of ``classes_``; with two classes shape (n_samples,), the score of ``classes_[1]`` minus
        that of ``classes_[0]``. These are not probabilities, and ltu offers no
        ``predict_proba``: see docs/PYTHON.md."""
        x = self._encoded(X)
        # Model class index of each label of `classes_` (the model numbers classes by first appearance).
        model_index = {v: k for k, v in enumerate(self._model_labels)}
        columns = [model_index[v] for v in self.classes_]
        return _decision(self.model_._native, x, columns)

    def predict(self, X):
        """The class of each row, through the device runtime."""
        index = self._predict_index(X)
        return self._model_labels[index]

    def to_bytes(self, data_file=None):
        """The model file ``ltu train`` writes for the same data, options and seed; ``data_file``
        names the file the data was read from (recorded in the file's metadata, as ``ltu train``
        records its data file)."""
        _check_is_fitted(self, "model_")
        return self.model_.to_bytes(data_file)

    def save(self, path, data_file=None):
        """Writes ``to_bytes(data_file)`` to ``path``."""
        _Path(path).write_bytes(self.to_bytes(data_file))

    def inspect(self, data_file=None):
        """``ltu inspect --json`` of the model, as a dict."""
        _check_is_fitted(self, "model_")
        return self.model_.inspect(data_file)

    def codegen(self, lang="c", path=None):
        """``ltu codegen --lang LANG``: with ``path``, writes the code there (C: the header beside
        it) and returns the report; without, the report with ``files``, each file's name and text."""
        _check_is_fitted(self, "model_")
        return self.model_.codegen(lang, path)

    def device_cost(self):
        """Bytes the device stores, worst-case multiply-accumulates, structure, and the cost of
        predicting the training rows."""
        _check_is_fitted(self, "model_")
        return self.model_.device_cost()

    def train_command(self, data_file="DATA.csv", output="model.ltu"):
        """The ``ltu train`` command line that writes the same model file from ``data_file``."""
        return ["ltu", "train", str(data_file)] + self._command() + ["-o", str(output)]

    def __getstate__(self):
        state = self.__dict__.copy()
        if "model_" in state:
            state["model_"] = self.model_.to_bytes()
        return state

    def __setstate__(self, state):
        if isinstance(state.get("model_"), bytes):
            state["model_"] = Model(_ltu.from_bytes(state["model_"]))
        self.__dict__.update(state)


def _make_class(algo):
    name = _CLASS_NAMES.get(algo["name"]) or algo["name"].capitalize() + "Classifier"
    options = [
        o
        for o in _DESCRIPTION["options"]
        if o["flag"] != "--algo" and (o["algos"] is None or algo["name"] in o["algos"])
    ]
    params = []
    for o in options:
        default = None
        if not o["takes_value"]:
            default = False
        elif o["default"] is not None:
            default = int(o["default"]) if o["default"].lstrip("-").isdigit() else o["default"]
        params.append((o["flag"], _param_name(o["flag"]), o["takes_value"], default, o))
    signature = _inspect.Signature(
        [_inspect.Parameter("self", _inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [_inspect.Parameter(p[1], _inspect.Parameter.KEYWORD_ONLY, default=p[3]) for p in params]
    )
    defaults = {p[1]: p[3] for p in params}

    def __init__(self, **kwargs):
        unknown = set(kwargs) - set(defaults)
        if unknown:
            raise TypeError(f"{name}() got unexpected keyword argument(s) {sorted(unknown)}")
        for k, v in defaults.items():
            setattr(self, k, kwargs.get(k, v))

    __init__.__signature__ = signature
    lines = [f"{algo['about']}.", "", f"``ltu train --algo {algo['name']}`` as a scikit-learn classifier.", "", "Parameters", "----------"]
    for flag, pname, takes_value, default, o in params:
        choices = f" One of {o['choices']}." if o["choices"] else ""
        lines.append(f"{pname} : ({flag}) {o['help']}{choices}")
    cls = type(
        name,
        (_LtuClassifier,),
        {
            "__init__": __init__,
            "__doc__": "\n".join(lines),
            "__module__": __name__,
            "_algo": algo["name"],
            "_options": tuple((p[0], p[1], p[2]) for p in params),
        },
    )
    __init__.__qualname__ = f"{name}.__init__"
    return cls


ESTIMATORS = {}
for _algo in _DESCRIPTION["algos"]:
    _cls = _make_class(_algo)
    globals()[_cls.__name__] = _cls
    ESTIMATORS[_algo["name"]] = _cls
    __all__.append(_cls.__name__)
del _algo, _cls


def load(path):
    """Reads a model file (as ``ltu predict`` does); the returned :class:`Model` predicts through the
    device runtime."""
    return Model(_ltu.load(str(path)))


def from_bytes(data):
    """A :class:`Model` from a model file's bytes."""
    return Model(_ltu.from_bytes(bytes(data)))
