"""The scheduling suite's broker: the integration suite's private node
(QUEUEY_TEST_BROKER_DIR, scripts/broker), driven as the chaos suite drives its own."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "tests" / "chaos"))
sys.path.insert(0, str(REPO / "bindings" / "python"))

from chaos_harness import Broker  # noqa: E402


@pytest.fixture(scope="session")
def broker() -> Broker:
    node = Broker(os.environ.get("QUEUEY_TEST_BROKER_DIR",
                                 str(REPO / "build" / "integration-broker")))
    node.start()  # or reuse: scripts/test stops it at the end
    return node
