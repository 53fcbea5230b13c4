"""``CITATION.cff`` is valid Citation File Format 1.2.0 and agrees with the package's metadata."""

import json
import tomllib
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = Path(__file__).resolve().parent / "data" / "cff-1.2.0-schema.json"


@pytest.fixture(scope="module")
def citation():
    # CFF dates and versions are strings in the schema: read every scalar as YAML 1.2 would keep it
    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def test_citation_file_is_valid_cff_1_2(citation, validator):
    errors = sorted(validator.iter_errors(citation), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message}" for e in errors)


def test_the_schema_rejects_what_it_should(citation, validator):
    """The check can fail: a file without authors, or with a misspelt key, is refused."""
    assert not validator.is_valid({k: v for k, v in citation.items() if k != "authors"})
    assert not validator.is_valid({**citation, "autors": citation["authors"]})


def test_citation_agrees_with_pyproject(citation):
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert citation["cff-version"] == "1.2.0"
    assert str(citation["version"]) == meta["version"]
    assert citation["license"] == meta["license"]
    # the four papers the book reproduces are cited
    titles = " ".join(r["title"].lower() for r in citation["references"])
    for words in ("privileged and sensitive information", "pinball twsvm", "feature relevance",
                  "oblivious data for fairness"):
        assert words in titles, words
