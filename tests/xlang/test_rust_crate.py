"""Cases that need the Rust crate on one particular side (docs/interop.md)."""

from __future__ import annotations

import json

from steps import enqueue, take, work


def test_a_payload_nested_deeper_than_128_is_malformed_for_the_rust_crate(
        c_impl, rust_impl, url, queue):
    """queuey takes any nesting (tests/vectors: payload_deep); serde_json stops at 128,
    so a Rust worker treats such a body as a malformed envelope."""
    deep = "[" * 129 + "]" * 129
    enqueue(c_impl, url, queue, "ok", payload=deep)
    known = enqueue(c_impl, url, queue, "ok")
    assert [line["job_id"] for line in work(rust_impl, url, queue, 1)] == [known]
    letter = take(c_impl, "dead", url, queue)
    assert letter["headers"]["x-death-reason"] == "malformed envelope"
    assert letter["body"]["payload"] == json.loads(deep)
