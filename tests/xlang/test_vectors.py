"""Golden vectors across implementations (tests/vectors/README.md):

- bodies the Rust crate's serializer wrote (tests/vectors/rust) decode in queuey and
  re-encode byte for byte, and queuey's transitions of them give the Rust crate's bytes;
- queuey's own vectors (valid, transitions, malformed) through the Rust crate's decoder,
  where every difference from queuey is listed below and in docs/interop.md: a test
  here fails when the crate starts to behave like queuey, so the list stays true.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

VECTORS = Path(__file__).resolve().parents[1] / "vectors"
BODIES = VECTORS / "bodies"
RUST = VECTORS / "rust"

# queuey's valid or transition vectors whose meaning the Rust crate changes.
RUST_CHANGES_NUMBERS = {  # serde_json without arbitrary_precision: beyond 64 bits -> f64
    "payload_big_integers", "payload_big_integers_next_attempt",
}
RUST_REFUSES = {"payload_deep": "recursion limit exceeded"}  # serde_json nests 128 deep at most
RUST_WRAPS_COUNTERS = {  # `attempt + 1` / `deferrals + 1` wrap in a release build
    "max_values_next_attempt": {"attempt": 0},
    "max_values_deferred_255": {"deferrals": 0},
    "max_values_deferred_0": {"deferrals": 0},
}
# queuey's malformed vectors that the Rust crate accepts.
RUST_ACCEPTS = {
    "invalid_utf8_in_unknown_field_value",  # skipped unknown values are not UTF-8 checked
    "job_id_unhyphenated", "job_id_braced",  # the uuid crate parses every UUID form
    "nul_in_job_type", "nul_in_queue", "nul_in_correlation_id",  # a Rust String may hold NUL
}


def rows(tsv: Path) -> list[list[str]]:
    lines = tsv.read_text(encoding="utf-8").splitlines()[1:]
    return [line.split("\t") for line in lines if line]


def ids(table: list[list[str]]) -> list[str]:
    return [row[0] for row in table]


VALID = rows(VECTORS / "valid.tsv")
TRANSITIONS = rows(VECTORS / "transitions.tsv")
MALFORMED = rows(VECTORS / "malformed.tsv")
RUST_TRANSITIONS = rows(RUST / "transitions.tsv")
RUST_BODIES = sorted(p.name for p in RUST.glob("*.json"))


def payload_objects_sorted(body: str) -> bool:
    """Whether every JSON object inside the body's payload has its keys in sorted order
    (serde_json's, where the envelope's own fields keep their declaration order)."""
    key_lists = []

    def hook(pairs):
        key_lists.append([k for k, _ in pairs])
        return dict(pairs)

    json.loads(body, object_pairs_hook=hook)
    return all(keys == sorted(keys) for keys in key_lists[:-1])  # the last: the envelope


def assert_same_but_key_order(rust: bytes, canonical: bytes):
    """The Rust bytes equal queuey's canonical bytes, except that serde_json writes object
    keys sorted where queuey keeps the input order: then both mean the same."""
    if payload_objects_sorted(canonical.decode()):
        assert rust == canonical
    else:
        assert rust != canonical
        assert json.loads(rust) == json.loads(canonical)
        assert payload_objects_sorted(rust.decode())


def test_rust_vectors_match_the_crate(rust_impl, tmp_path):
    """tests/vectors/rust is what `xlang-rust vectors` writes with the pinned crates."""
    rust_impl.run("vectors", str(tmp_path))
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted(p.name for p in RUST.iterdir() if p.name != "README.md")
    for name in written:
        assert (tmp_path / name).read_bytes() == (RUST / name).read_bytes(), name


@pytest.mark.parametrize("name", RUST_BODIES)
def test_queuey_reencodes_a_rust_body_byte_for_byte(c_impl, name):
    path = RUST / name
    assert c_impl.run("codec", str(path)).stdout == path.read_bytes()


@pytest.mark.parametrize("row", RUST_TRANSITIONS, ids=ids(RUST_TRANSITIONS))
def test_queuey_transitions_give_the_rust_bytes(c_impl, row):
    _, source, transition, expected = row
    out = c_impl.run("codec", str(RUST / source), transition).stdout
    assert out == (RUST / expected).read_bytes()


@pytest.mark.parametrize("row", VALID, ids=ids(VALID))
def test_rust_decodes_queuey_valid_vectors(rust_impl, row):
    name, source, canonical = row
    done = rust_impl.run("codec", str(BODIES / source), check=False)
    if name in RUST_REFUSES:
        assert done.returncode == 1
        assert RUST_REFUSES[name] in done.stderr.decode()
        return
    assert done.returncode == 0, done.stderr.decode()
    expected = (BODIES / canonical).read_bytes()
    if name in RUST_CHANGES_NUMBERS:
        assert_numbers_changed(done.stdout, expected)
    else:
        assert_same_but_key_order(done.stdout, expected)


@pytest.mark.parametrize("row", TRANSITIONS, ids=ids(TRANSITIONS))
def test_rust_transitions_of_queuey_vectors(rust_impl, row):
    name, source, transition, expected_file = row
    rust = rust_impl.run("codec", str(BODIES / source), transition).stdout
    expected = (BODIES / expected_file).read_bytes()
    if name in RUST_CHANGES_NUMBERS:
        assert_numbers_changed(rust, expected)
    elif name in RUST_WRAPS_COUNTERS:
        wrapped = {**json.loads(expected), **RUST_WRAPS_COUNTERS[name]}
        assert json.loads(rust) == wrapped  # queuey saturates instead (behaviour.md 1)
    else:
        assert_same_but_key_order(rust, expected)


def assert_numbers_changed(rust: bytes, queuey: bytes):
    """Integers beyond 64 bits come out of the crate as doubles: not the same number."""
    ours, theirs = json.loads(queuey), json.loads(rust)
    assert {k: v for k, v in theirs.items() if k != "payload"} == \
        {k: v for k, v in ours.items() if k != "payload"}
    assert theirs["payload"] != ours["payload"]
    assert b"1.8446744073709552e+19" in rust and b"18446744073709551616" in queuey


@pytest.mark.parametrize("row", MALFORMED, ids=ids(MALFORMED))
def test_rust_on_queuey_malformed_vectors(rust_impl, row):
    name, source, _status, _field = row
    done = rust_impl.run("codec", str(BODIES / source), check=False)
    if name in RUST_ACCEPTS:
        assert done.returncode == 0, f"the crate now refuses {name}: update docs/interop.md"
    else:
        assert done.returncode == 1, f"the crate accepts {name}: {done.stdout!r}"
        assert done.stderr.startswith(b"xlang-rust: decode: ")


def test_rust_respells_payload_numbers(rust_impl, c_impl):
    """Same values, other text: the crate writes numbers as serde_json prints an i64,
    u64 or f64 (an integer -0 becomes the double -0.0); queuey keeps the digits."""
    source = str(BODIES / "payload_numbers_verbatim.json")
    assert b'"a":1.5,"b":100000.0,"c":-0.0,"d":0.001,"e":25000000000.0' in \
        rust_impl.run("codec", source).stdout
    assert b'"a":1.50,"b":1E5,"c":-0,"d":0.1e-2,"e":2.5E+10' in c_impl.run("codec", source).stdout
