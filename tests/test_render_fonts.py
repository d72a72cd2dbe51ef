"""The fonts rendered scenes are drawn with: a fixed list, all required (issue #13).

A seed must render the same scene on every machine, or the end-to-end floors in test_vision.py and
the figures of ``python -m bench accuracy`` mean nothing: a machine without Noto once drew other
tiles for the same seeds and read one whole table fewer.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from taicam_datasets import faces
from taicam_datasets.faces import FaceStyle, FontsMissingError, render_fonts

# The fonts every figure was measured with, and the Debian packages `make test` installs for them.
MEASURED_WITH = (
    "/usr/share/fonts/truetype/arphic/ukai.ttc",  # fonts-arphic-ukai
    "/usr/share/fonts/opentype/noto/NotoSerifCJK-Bold.ttc",  # fonts-noto-cjk
    "/usr/share/fonts/opentype/noto/NotoSansCJK-Bold.ttc",  # fonts-noto-cjk
    "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc",  # fonts-noto-cjk
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",  # fonts-wqy-microhei
)


def test_scenes_are_drawn_with_the_five_measured_fonts(monkeypatch):
    monkeypatch.delenv("TAICAM_FONTS", raising=False)
    assert render_fonts() == MEASURED_WITH


def test_the_font_of_a_tile_set_depends_only_on_the_seed(monkeypatch):
    monkeypatch.delenv("TAICAM_FONTS", raising=False)
    picked = {FaceStyle.random(random.Random(seed)).font for seed in range(40)}
    assert picked == set(MEASURED_WITH)
    assert FaceStyle.random(random.Random(7)) == FaceStyle.random(random.Random(7))


def test_a_missing_font_is_an_error_that_names_its_package(monkeypatch):
    monkeypatch.delenv("TAICAM_FONTS", raising=False)
    gone = ("/usr/share/fonts/opentype/noto/NoSuchCJK-Bold.ttc", "fonts-noto-cjk")
    monkeypatch.setattr(faces, "RENDER_FONTS", (*faces.RENDER_FONTS, gone))
    with pytest.raises(FontsMissingError, match=r"NoSuchCJK-Bold\.ttc.*apt-get install fonts-noto-cjk"):
        render_fonts()
    with pytest.raises(FontsMissingError):
        FaceStyle.random(random.Random(0))


def test_taicam_fonts_names_a_folder_to_draw_with_instead(monkeypatch, tmp_path):
    (tmp_path / "b.ttf").write_bytes(b"")
    (tmp_path / "a.otf").write_bytes(b"")
    (tmp_path / "notes.txt").write_text("not a font")
    monkeypatch.setenv("TAICAM_FONTS", str(tmp_path))
    assert render_fonts() == (str(tmp_path / "a.otf"), str(tmp_path / "b.ttf"))
    monkeypatch.setenv("TAICAM_FONTS", str(tmp_path / "empty"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(FontsMissingError, match=r"no \.ttf"):
        render_fonts()


def test_make_test_installs_the_package_of_every_listed_font():
    makefile = (Path(__file__).resolve().parents[1] / "Makefile").read_text(encoding="utf-8")
    installed = re.search(r"^FONT_PACKAGES := (.+)$", makefile, re.M)
    assert installed, "the Makefile names the font packages in FONT_PACKAGES"
    assert {package for _, package in faces.RENDER_FONTS} <= set(installed.group(1).split())
