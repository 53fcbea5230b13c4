"""The benchmark scripts' records (``benchmarks/_record.py``) and the pages that render them."""

import datetime as dt
import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import _record  # noqa: E402

SCRIPTS = sorted((ROOT / "benchmarks").glob("bench_*.py"))
ROLE = re.compile(r"\{result\}`bench:([a-z0-9_]+):([^`]+)`")
TABLE = re.compile(r"```\{result-table\} bench:([a-z0-9_]+):([a-z0-9_]+)")


def _pages():
    return sorted((ROOT / "book").rglob("*.md"))


def test_record_has_the_fields_in_order(tmp_path):
    rec = _record.Record("demo", "bench_demo.py", packages=("scikit-learn",),
                         argv=["--n", "5", "--quick"])
    rec.value("ratio", 1.25)
    rec.value("count", 3)
    rec.value("verdict", "met")
    rec.table("times", "Times", ["fit", "seconds"], [["a", 0.5], ["b", 2]])
    path = rec.write(tmp_path)
    assert path == tmp_path / "demo.json"
    text = path.read_text()
    data = json.loads(text)
    assert tuple(data) == _record.FIELDS
    assert data["benchmark"] == "demo"
    assert data["command"] == "python benchmarks/bench_demo.py --n 5 --quick"
    assert data["executed_at"].endswith("+00:00")
    when = dt.datetime.fromisoformat(data["executed_at"])
    assert abs((dt.datetime.now(dt.timezone.utc) - when).total_seconds()) < 600
    assert data["seconds"] >= 0
    from lupikit.claims import provenance

    prov = provenance()
    assert data["machine"] == prov["machine"]
    assert data["git_commit"] == prov["git_commit"]
    assert list(data["versions"])[:3] == ["python", "lupikit", "numpy"]
    assert data["versions"]["scikit-learn"] != "not installed"
    assert data["values"] == {"ratio": 1.25, "count": 3, "verdict": "met"}
    assert data["tables"]["times"] == {"caption": "Times", "columns": ["fit", "seconds"],
                                       "rows": [["a", 0.5], ["b", 2]]}
    assert _record.read(path) == data


def test_numpy_numbers_are_written_as_plain_numbers(tmp_path):
    np = pytest.importorskip("numpy")
    rec = _record.Record("demo", "bench_demo.py", argv=[])
    rec.value("x", np.float64(0.5))
    rec.value("n", np.int64(7))
    rec.table("t", "c", ["a"], [[np.float32(1.5)]])
    data = json.loads(rec.write(tmp_path).read_text())
    assert data["values"] == {"x": 0.5, "n": 7}
    assert data["tables"]["t"]["rows"] == [[1.5]]
    assert data["command"] == "python benchmarks/bench_demo.py"


@pytest.mark.parametrize("key", ["Ratio", "a-b", "a.b", "", "é"])
def test_keys_are_lowercase_ascii(key):
    rec = _record.Record("demo", "bench_demo.py", argv=[])
    with pytest.raises(ValueError):
        rec.value(key, 1.0)
    with pytest.raises(ValueError):
        rec.table(key, "c", ["a"], [[1]])


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), None, True, [1]])
def test_values_are_finite_numbers_or_strings(bad):
    rec = _record.Record("demo", "bench_demo.py", argv=[])
    with pytest.raises((ValueError, TypeError)):
        rec.value("x", bad)
    with pytest.raises((ValueError, TypeError)):
        rec.table("t", "c", ["a"], [[bad]])


def test_table_rows_match_the_columns():
    rec = _record.Record("demo", "bench_demo.py", argv=[])
    with pytest.raises(ValueError):
        rec.table("t", "c", ["a", "b"], [[1]])


def test_validate_refuses_other_orders_and_time_zones(tmp_path):
    rec = _record.Record("demo", "bench_demo.py", argv=[])
    good = json.loads(rec.write(tmp_path).read_text())
    swapped = dict(reversed(list(good.items())))
    with pytest.raises(ValueError):
        _record.validate(swapped)
    local = dict(good, executed_at="2026-01-01T10:00:00+01:00")
    with pytest.raises(ValueError):
        _record.validate(local)


def test_a_quick_run_never_writes_to_the_results(tmp_path):
    assert _record.record_dir(None, False) == ROOT / "results" / "benchmarks"
    assert _record.record_dir(tmp_path, True) == tmp_path
    quick = _record.record_dir(None, True)
    assert quick != _record.RECORD_DIR and quick.is_dir()
    quick.rmdir()


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_every_script_writes_a_record_and_has_a_quick_mode(script):
    text = script.read_text()
    assert "import _record" in text
    assert "--quick" in text and ("add_arguments" in text or "--record-dir" in text)
    assert ".write(" in text


def test_the_pages_refer_to_records_of_the_scripts():
    names = {p.stem.removeprefix("bench_") for p in SCRIPTS}
    seen = []
    for page in _pages():
        text = page.read_text()
        for name, key in ROLE.findall(text) + TABLE.findall(text):
            assert any(name == n or name.startswith(n + "_") for n in names), (page, name)
            seen.append((page, name, key))
    assert seen, "no page renders a benchmark record"
    for page, name, key in seen:  # where a record exists, the key is in it
        path = _record.RECORD_DIR / f"{name}.json"
        if not path.exists():
            continue
        record = _record.read(path)
        if key.startswith("@"):
            field = key[1:].split(".", 1)
            assert field[0] in ("machine", "date", "versions", "command", "load"), (page, key)
            if field[0] == "versions":
                assert field[1] in record["versions"], (page, name, key)
        else:
            assert key in record["values"] or key in record["tables"], (page, name, key)


def test_the_committed_records_are_well_formed():
    for path in sorted(_record.RECORD_DIR.glob("*.json")):
        record = _record.read(path)
        assert record["benchmark"] == path.stem
        assert record["command"].startswith("python benchmarks/bench_")
        assert "--quick" not in record["command"].split(), path
