"""`physics.files.write_atomic`: a reader sees the old file or the new one, and a failure names the file."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from piramida.physics import files


def test_a_full_disk_keeps_the_old_file_leaves_no_temporary_one_and_names_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "run" / "final.zip"
    files.write_atomic(target, b"old")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError) as error:
        files.write_atomic(target, b"new")
    assert error.value.errno == errno.ENOSPC and error.value.filename == str(target)
    assert target.read_bytes() == b"old" and sorted(p.name for p in target.parent.iterdir()) == ["final.zip"]


def test_a_folder_that_cannot_be_made_is_named(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(OSError) as error:
        files.write_atomic(blocker / "out" / "results.json", "{}")
    assert error.value.filename == str(blocker / "out" / "results.json")
