from __future__ import annotations

import os

import pytest

from tests.conftest import missing_service
from yambak.store import Store

PG_URL = os.environ.get("YAMBAK_TEST_POSTGRES_URL")


@pytest.fixture(params=["sqlite", "postgresql"])
def store(request, tmp_path):
    if request.param == "sqlite":
        s = Store(f"sqlite:///{tmp_path}/store.db")
    else:
        if not PG_URL:
            missing_service(
                "YAMBAK_TEST_POSTGRES_URL is not set: make test starts PostgreSQL (scripts/test-services.sh)"
            )
        s = Store(PG_URL)
    yield s
    s.close()
