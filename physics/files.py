"""Files written so that nothing is lost: a reader sees the old file or the new one, never half.

Every layer writes through this one function (the referee's match records, the play app's
games, training checkpoints, evaluation results and benchmark JSON), so it lives at the
bottom of the stack, beside the kernel's other process-level helpers.
"""

from __future__ import annotations

import io
import os
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np


def write_atomic(path: str | Path, data: str | bytes) -> None:
    """Write `data` to `path` through a synced temporary file in the same folder and `os.replace`.

    The folder is created if missing; the file gets the permissions `open` would give it.
    An `OSError` (a full disk, a folder that cannot be written) names `path` whatever step
    failed, so that every command's message says which file was not written.
    """
    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as error:
        raise OSError(error.errno, error.strerror, str(target)) from error
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
            f.flush()
            os.fsync(f.fileno())
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes it owner-only
        os.replace(tmp, target)
    except BaseException as error:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(error, OSError):
            raise OSError(error.errno, error.strerror, str(target)) from error
        raise


def npz_bytes(arrays: Mapping[str, Any]) -> bytes:
    """Named arrays as the bytes of an `.npz` file (numbers only: read back with `allow_pickle=False`)."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()
