"""The backend on which the tests that execute compiled code run.

``SYMSHAPE_TEST_BACKEND`` names it: ``cpu`` (the default, and all CI has), ``cuda``
(or ``gpu``, ``rocm``, ``tpu``: any platform name JAX accepts).  The tests that
compile and run code mark themselves ``device``, so that on a machine with a GPU one
command runs exactly them there::

    SYMSHAPE_TEST_BACKEND=cuda python -m pytest -m device

A backend that is named but not present fails the tests that need it (never a silent
fall-back to the CPU, which would pass without testing the GPU).
"""

from __future__ import annotations

import os
from typing import Any

import pytest

ENV = "SYMSHAPE_TEST_BACKEND"


def backend_name() -> str:
    """The platform the device tests run on (``cpu`` unless ``SYMSHAPE_TEST_BACKEND``
    names another)."""
    return os.environ.get(ENV, "").strip().lower() or "cpu"


def jax_backend() -> Any:
    """JAX's client for :func:`backend_name` (it compiles, and its first device runs)."""
    from jax._src import xla_bridge

    name = backend_name()
    try:
        return xla_bridge.get_backend(name)
    except RuntimeError as err:
        pytest.fail(f"{ENV}={name}: JAX has no such backend on this machine ({err})")


def jax_device() -> Any:
    """The device of :func:`jax_backend` that the device tests place buffers on."""
    return jax_backend().devices()[0]


def torch_device() -> Any:
    """The ``torch.device`` of :func:`backend_name` (``cuda`` for ``cuda``/``gpu``)."""
    import torch

    name = {"gpu": "cuda"}.get(backend_name(), backend_name())
    if name == "cuda" and not torch.cuda.is_available():
        pytest.fail(f"{ENV}={backend_name()}: torch sees no CUDA device on this machine")
    return torch.device(name)
