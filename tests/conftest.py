"""Fixtures shared by the test suite."""

import pytest
from helpers import LESSONS


@pytest.fixture(params=LESSONS, ids=[lesson.id for lesson in LESSONS])
def lesson(request):
    return request.param
