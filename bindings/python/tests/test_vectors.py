"""The golden vectors of tests/vectors/ (see its README) through queuey.Envelope."""
from pathlib import Path

import pytest

from conftest import by_name, vector_rows as rows
import queuey


def body(vectors_dir: Path, name: str) -> bytes:
    return (vectors_dir / "bodies" / name).read_bytes()


def test_every_file_has_rows():
    assert len(rows("valid.tsv")) > 20
    assert len(rows("transitions.tsv")) > 10
    assert len(rows("malformed.tsv")) > 50


@by_name(rows("valid.tsv"))
def test_valid_decodes_and_encodes_canonically(vectors_dir, row):
    _, source, canonical = row
    with queuey.Envelope.from_bytes(body(vectors_dir, source)) as env:
        assert env.to_bytes() == body(vectors_dir, canonical)


def transition(env: queuey.Envelope, name: str) -> queuey.Envelope:
    if name == "next_attempt":
        return env.next_attempt()
    kind, _, priority = name.partition(":")
    assert kind == "deferred", f"unknown transition {name}"
    return env.deferred(int(priority))


@by_name(rows("transitions.tsv"))
def test_transition_gives_the_expected_body(vectors_dir, row):
    _, source, name, expected = row
    with queuey.Envelope.from_bytes(body(vectors_dir, source)) as env:
        before = env.to_bytes()
        with transition(env, name) as after:
            assert after.to_bytes() == body(vectors_dir, expected)
        assert env.to_bytes() == before  # a value: the transition made a new envelope


@by_name(rows("malformed.tsv"))
def test_malformed_raises_with_status_and_field(vectors_dir, row):
    _, source, status, field = row
    with pytest.raises(queuey.EnvelopeError) as raised:
        queuey.Envelope.from_bytes(body(vectors_dir, source))
    error = raised.value
    assert "QY_ERR_" + error.status.name == status
    assert error.field == field
    assert field in error.message
    assert isinstance(error, ValueError)
