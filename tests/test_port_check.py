"""``python -m eagertape port-check``: each alias form followed to its TF name, each
name resolved as ``eagertape.tf`` resolves it (left-out reasons the facade's own),
unknown names found by real TensorFlow, notebooks, the JSON, the documented
differences' table against docs/differences.md, and the corpora's findings."""
import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import eagertape.tf as etf
import tf_oracle
from eagertape import port_check
from eagertape.tf._differences import ANCHORS, DIFFERENCES

ROOT = Path(__file__).resolve().parent.parent
HAS_KERAS = importlib.util.find_spec("keras") is not None
HAS_TF = importlib.util.find_spec("tensorflow") is not None

PROGRAM = '''\
import tensorflow as tf
from tensorflow import keras
from tensorflow.keras import layers
from tensorflow.keras.layers import Dense as D
import tensorflow.compat.v1 as tf1

L = tf.keras.layers
act = L.Activation
model = keras.Sequential([layers.Dense(3), D(2), act("relu")])
x = tf.reduce_sum(tf.constant([1.0]))
sess = tf.Session()
y = tf.reduce_summ([1.0])
for g in tf.config.list_physical_devices("GPU"):
    tf.config.experimental.set_memory_growth(g, True)
ph = tf1.placeholder(tf.float32)
tf.tpu.XLAOptions("a", 1.0, step=0)
z = keras.layers.Foo(3)


@tf.function(jit_compile=True)
def f(x):
    print(x.numpy())
    return tf.random.normal([2])
'''


def _check(paths, facade=False, **kw):
    """``port_check.check`` (and, with ``facade``, ``_same_as_facade`` of its result),
    here, or in a fresh interpreter where an earlier test of this worker imported
    Keras on TF's backend (Keras has one backend a process), so that tf.keras names
    resolve as a user's port-check run resolves them."""
    try:
        etf.keras
    except RuntimeError:
        pass
    else:
        result = port_check.check(paths, **kw)
        return (result, _same_as_facade(result)) if facade else result
    code = ("import json, sys; sys.path.insert(0, sys.argv[3]); import test_port_check as t; "
            "r = t.port_check.check(json.loads(sys.argv[1]), **json.loads(sys.argv[2])); "
            "print(json.dumps([r, t._same_as_facade(r)]))")
    env = {k: v for k, v in os.environ.items() if k != "KERAS_BACKEND"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [env.get("PYTHONPATH")] if p])
    r = subprocess.run([sys.executable, "-c", code, json.dumps([str(p) for p in paths]),
                        json.dumps(kw), str(ROOT / "tests")],
                       capture_output=True, text=True, timeout=600, env=env)
    assert r.returncode == 0, r.stderr[-3000:]
    result, wrong = json.loads(r.stdout.splitlines()[-1])
    return (result, [tuple(w) for w in wrong]) if facade else result


def _facade(chain):
    """What ``getattr`` on eagertape.tf gives for ``chain``: ("resolved", None),
    ("left_out", reason) or ("error", message): the oracle the checker must match."""
    obj = etf
    for part in chain.split(".")[1:]:
        try:
            obj = getattr(obj, part)
        except AttributeError as e:
            m = re.search(r"is left out of eagertape's TensorFlow facade: (.*)", str(e), re.S)
            return ("left_out", m.group(1)) if m else ("error", str(e))
        except Exception as e:      # a facade module that fails to load
            return "raised", f"{type(e).__name__}: {e}"
    return "resolved", None


def _same_as_facade(result):
    """Each name's status in ``result`` is what the facade's getattr gives."""
    wrong = []
    for chain, e in result["names"].items():
        status, reason = _facade(chain)
        if status == "resolved" or status == "left_out":
            if (e["status"], e["reason"]) != (status, reason):
                wrong.append((chain, e["status"], status))
        elif status == "raised":
            if e["status"] != "not_checked" or not e["reason"].endswith(reason):
                wrong.append((chain, e["status"], status))
        elif e["status"] not in ("missing", "unknown"):
            wrong.append((chain, e["status"], status))
    return wrong


@pytest.fixture
def prog(tmp_path):
    path = tmp_path / "prog.py"
    path.write_text(PROGRAM)
    return path


def test_alias_forms_left_out_and_attention(prog):
    result, wrong = _check([prog], facade=True, tensorflow="none")
    names = result["names"]
    lines = {c: [w["line"] for w in e["where"]] for c, e in names.items()}
    # every alias form, followed to the chain it spells, at the lines it is used
    assert lines["tf.keras"] == [2]
    assert lines["tf.keras.layers"] == [3, 7]
    assert lines["tf.keras.layers.Dense"] == [4, 9]          # the import and `layers.Dense`
    assert lines["tf.keras.layers.Activation"] == [8, 9]     # `act = L.Activation`, `act(...)`
    assert lines["tf.keras.Sequential"] == [9]
    assert lines["tf.compat.v1"] == [5]
    assert lines["tf.compat.v1.placeholder"] == [15]
    assert lines["tf.reduce_sum"] == [10]
    assert "tf.keras.layers.Dense.Dense" not in names and "tf" not in names
    # resolved, left out (with the facade's own reason), missing, unknown to Keras
    for chain in ("tf.reduce_sum", "tf.constant", "tf.float32", "tf.function",
                  "tf.random.normal", "tf.config.experimental.set_memory_growth"):
        assert names[chain]["status"] == "resolved", chain
    with pytest.raises(AttributeError) as e:
        etf.tpu.XLAOptions       # noqa: B018
    assert names["tf.tpu.XLAOptions"]["status"] == "left_out"
    assert names["tf.tpu.XLAOptions"]["reason"] == str(e.value).split("facade: ", 1)[1]
    # TF 1's graph mode is the facade's (tf/_v1_graph.py); its queues are left out
    assert names["tf.compat.v1.placeholder"]["status"] == "resolved"
    # without TensorFlow asked, a name eagertape lacks stays missing, and says so
    for chain in ("tf.Session", "tf.reduce_summ"):
        assert names[chain]["status"] == "missing"
        assert names[chain]["reason"].startswith("TensorFlow was not asked")
    if HAS_KERAS:
        for chain in ("tf.keras.layers.Dense", "tf.keras.Sequential", "tf.keras.layers"):
            assert names[chain]["status"] == "resolved", chain
        assert names["tf.keras.layers.Foo"]["status"] == "unknown"
        assert "Keras 3" in names["tf.keras.layers.Foo"]["reason"]
    assert wrong == []
    s = result["summary"]
    assert s["names"] == len(names) == sum(s[k] for k in port_check.STATUSES)
    assert (s["left_out"], s["missing"]) == (1, 2)     # tf.tpu.XLAOptions (placeholder resolves)
    assert result["files"][str(prog)]["names"] == len(names)
    # the patterns, with their lines
    kinds = sorted((a["line"], a["kind"]) for a in result["attention"])
    assert kinds == [(11, "graph_mode"), (14, "memory_growth"), (15, "graph_mode"),
                     (20, "jit_compile"), (22, "numpy_in_function")]
    assert [a["anchor"] for a in result["attention"] if a["kind"] == "jit_compile"] == \
        ["jit-compile"]
    # the differences touched, by name
    assert names["tf.random.normal"]["differences"][0]["anchor"] == "random"
    assert [d["anchor"] for d in names["tf.function"]["differences"]] == ["autograph"]
    assert names["tf.reduce_sum"]["differences"] == []


def test_unknown_names_and_tf1_names(prog, monkeypatch):
    # What TensorFlow says of the names eagertape lacks (here its answer stubbed; the
    # command-line test below asks the real one).
    asked = []

    def lookup(chains):
        asked.append(sorted(chains))
        return {"tf.Session": "tf1", "tf.reduce_summ": None}, "2.99"
    monkeypatch.setattr(port_check, "tf_lookup", lookup)
    # (in this process: the lookup is stubbed here; where this worker has Keras on
    # TF's backend, the tf.keras names are "not checked", which the summary says)
    result = port_check.check([prog])
    assert asked == [["tf.Session", "tf.reduce_summ"]]
    names = result["names"]
    assert names["tf.Session"]["status"] == "unknown"
    assert "tf.compat.v1.Session" in names["tf.Session"]["reason"]
    assert names["tf.reduce_summ"]["status"] == "unknown"
    assert "TensorFlow 2.99 has no such name" in names["tf.reduce_summ"]["reason"]
    assert result["tensorflow"] == "2.99"
    lines = []
    port_check.report(result, out=lines.append)
    assert lines[0] == port_check.summary_line(result)
    assert re.match(r"1 file, \d+ names: \d+ resolved, 1 left out, 0 missing, "
                    r"([34] unknown|2 unknown, \d+ not checked)$", lines[0]), lines[0]
    text = " ".join("\n".join(lines).split())       # as read, whatever the wrapping
    # grouped by name, with where: the facade's reason said once for tf.compat's names
    assert f"tf.reduce_summ: TensorFlow 2.99 has no such name: a typo? {prog}: 12" in text
    assert text.count("TF 1's graph inputs") == 0     # tf1.placeholder: tf/_v1_graph.py's
    assert f"{prog}:20: jit_compile is ignored" in text


def test_notebook_and_json_shape(tmp_path):
    nb = {"cells": [
        {"cell_type": "markdown", "source": ["tf.summary is not code here"]},
        {"cell_type": "code", "source": ["%matplotlib inline\n", "import tensorflow as tf\n"]},
        {"cell_type": "code",
         "source": "x = tf.ones([2])\n!ls\nw = tf.tpu.XLAOptions('w', x, step=0)\n"},
        {"cell_type": "code", "source": "%%writefile a.csv\n1,,2\n"},
        {"cell_type": "code", "source": " for x in tf.range(3):\n   print(x)\n"}],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "nb.ipynb").write_text(json.dumps(nb))
    (tmp_path / "bad.py").write_text("def f(:\n")
    result = json.loads(json.dumps(port_check.check([tmp_path], tensorflow="none")))
    assert set(result) == {"summary", "names", "files", "attention", "tensorflow"}
    assert set(result["summary"]) == {"files", "names", *port_check.STATUSES, "unreadable"}
    nbpath = str(tmp_path / "sub" / "nb.ipynb")
    assert result["names"]["tf.ones"] == {
        "status": "resolved", "reason": None, "differences": [],
        "where": [{"file": nbpath, "line": 1, "cell": 2}]}
    assert result["names"]["tf.tpu.XLAOptions"]["status"] == "left_out"
    assert result["names"]["tf.tpu.XLAOptions"]["where"] == [{"file": nbpath, "line": 3,
                                                             "cell": 2}]
    # a cell magic is not read; a cell that does not parse is listed, and the others read
    skipped = result["files"][nbpath].pop("cells_skipped")
    assert [c["cell"] for c in skipped] == [4] and skipped[0]["error"].startswith("SyntaxError")
    assert result["files"][nbpath] == {"names": 2, "resolved": 1, "left_out": 1,
                                       "missing": 0, "unknown": 0, "not_checked": 0}
    assert result["files"][str(tmp_path / "bad.py")]["error"].startswith("SyntaxError")
    assert result["summary"] == {"files": 2, "names": 2, "resolved": 1, "left_out": 1,
                                 "missing": 0, "unknown": 0, "not_checked": 0,
                                 "unreadable": 1}
    with pytest.raises(FileNotFoundError, match="argument `paths`"):
        port_check.check([tmp_path / "nowhere.py"])
    with pytest.raises(ValueError, match="argument `tensorflow`"):
        port_check.check([tmp_path], tensorflow="yes")


def test_keras_names_not_checked_without_keras(tmp_path, monkeypatch):
    # Where Keras is not installed, tf.keras names are reported as not checked, saying why.
    def no_keras(name):
        if name == "keras":
            raise ImportError("eagertape.tf.keras is Keras 3 on JAX, which is not installed")
        raise AttributeError(name)
    if "keras" in vars(etf):     # (not getattr: loading Keras here may raise)
        monkeypatch.delattr(etf, "keras")
    monkeypatch.setattr(etf, "__getattr__", no_keras)
    (tmp_path / "p.py").write_text("import tensorflow as tf\nm = tf.keras.Sequential()\n")
    e = port_check.check([tmp_path], tensorflow="none")["names"]["tf.keras.Sequential"]
    assert e["status"] == "not_checked" and "not installed" in e["reason"]


def test_differences_table_agrees_with_the_docs():
    docs = (ROOT / "docs" / "differences.md").read_text()
    in_docs = re.findall(r'<a id="([\w-]+)"></a>', docs)
    table = [anchor for _, anchor, _ in DIFFERENCES] + [a for _, a in ANCHORS.values()]
    assert sorted(set(table)) == sorted(in_docs)       # each row's anchor, and no other
    assert len(in_docs) == len(set(in_docs))
    for patterns, anchor, line in DIFFERENCES:
        assert line and all(p.startswith("tf.") for p in patterns), anchor


def _corpus_findings(folder):
    result, wrong = _check([folder], facade=True, tensorflow="none")
    assert wrong == []
    return result


@pytest.mark.skipif(not HAS_KERAS, reason="the Keras corpus needs Keras")
def test_the_keras_corpus_resolves():
    # The 28 programs pass (tests/test_keras.py): every name they use resolves.
    result = _corpus_findings(ROOT / "tests" / "keras_corpus")
    s = result["summary"]
    assert s["files"] == len(list((ROOT / "tests" / "keras_corpus").glob("*.py")))
    assert s["names"] == s["resolved"] > 100, s
    assert {"tf.GradientTape", "tf.keras.layers.Dense", "tf.function"} <= set(result["names"])


def test_the_census_findings_are_the_facades():
    folder = ROOT / "tests" / "census" / "programs"
    if not folder.is_dir() or not any(folder.iterdir()):
        pytest.skip("tests/census/programs/ has no programs yet")
    if not HAS_KERAS:
        pytest.skip("the census uses tf.keras, which needs Keras")
    result = _corpus_findings(folder)
    assert result["summary"]["names"] > 0


@pytest.mark.subprocess
@pytest.mark.skipif(not HAS_TF, reason="asks TensorFlow, which is not installed")
def test_tensorflow_says_which_names_it_has():
    # The lookup the checker makes of an installed TensorFlow (its process kept on
    # disk by the oracle's cache): TF 2 names, TF 1 names, and names of neither.
    chains = ["tf.Session", "tf.reduce_sum", "tf.reduce_summ", "tf.data.experimental.AUTOTUNE",
              "tf.placeholder", "tf.nn.relu"]
    found, version = tf_oracle.cached("port-check-tf-lookup", (chains, port_check._TF_LOOKUP),
                                      lambda: port_check.tf_lookup(chains),
                                      keep=lambda value: value[0] is not None)
    assert version.startswith("2.")
    assert found == {"tf.Session": "tf1", "tf.placeholder": "tf1", "tf.reduce_sum": "tf2",
                     "tf.reduce_summ": None, "tf.data.experimental.AUTOTUNE": "tf2",
                     "tf.nn.relu": "tf2"}


@pytest.mark.subprocess
def test_the_command_line(tmp_path, capsys):
    # One run of `python -m eagertape port-check --json`: its exit status and JSON;
    # then main in-process for the human report and the other exit statuses.
    prog = tmp_path / "prog.py"
    prog.write_text("import tensorflow as tf\nx = tf.reduce_sum([1.0])\n"
                    "tf.tpu.XLAOptions('x', x, step=0)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    r = subprocess.run([sys.executable, "-m", "eagertape", "port-check", "--json", str(prog)],
                       capture_output=True, text=True, timeout=300, env=env, cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    result = json.loads(r.stdout)
    assert result["summary"]["names"] == 2 and result["summary"]["left_out"] == 1
    assert result["names"]["tf.tpu.XLAOptions"]["where"] == [{"file": str(prog), "line": 3}]
    ok = tmp_path / "ok.py"
    ok.write_text("import tensorflow as tf\nprint(tf.reduce_sum([1.0]))\n")
    capsys.readouterr()
    assert port_check.main([str(ok)]) == 0
    assert capsys.readouterr().out.startswith("1 file, 1 names: 1 resolved, 0 left out")
    assert port_check.main([str(tmp_path / "nowhere")]) == 2
    assert "neither a file nor a directory" in capsys.readouterr().err
