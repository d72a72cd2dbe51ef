"""Every notice and photo-path error in the reader's language: zh-TW (the default at a Taiwan table) or English.

A notice (``vision.notices.Notice``) is a stable code and parameters; this module holds the one
template per code and language and fills it. Tiles are named as a player says them in zh-TW
(五筒) and by code in English (5p). The API and CLI return ``{"code", "message", "params"}``.
"""

from __future__ import annotations

from typing import Any

from scoring.tiles import chinese_name
from vision import notices
from vision.notices import Notice

ZH = "zh-TW"
EN = "en"
LANGUAGES = (ZH, EN)

NOTICE_TEMPLATES: dict[str, dict[str, str]] = {
    notices.NO_TILES: {ZH: "照片裡找不到牌", EN: "no tiles detected"},
    notices.TWO_WINNING_CANDIDATES: {
        ZH: "{tiles}都可能是胡的那張牌",
        EN: "two tiles could be the winning tile: {tiles}",
    },
    notices.NO_MELD: {ZH: "手牌旁的{tiles}組不成面子，已略過", EN: "tiles {tiles} near the hand form no meld; left out"},
    notices.FACELESS_KONG: {ZH: "暗槓沒有露出牌面，不知道是哪張牌", EN: "a concealed kong shows no face: its tile is unknown"},
    notices.FACE_DOWN_IN_HAND: {
        ZH: "手牌裡有{count}張蓋著的牌，已略過：請翻開或更正",
        EN: "{count} face-down tile(s) in the hand row left out: turn them up or correct them",
    },
    notices.TILE_COUNT: {
        ZH: "應有{expected}張牌，看到{seen}張（面子每組算3張）",
        EN: "{expected} tiles expected, {seen} seen (counting each meld as 3)",
    },
    notices.NOTHING_SET_APART: {ZH: "沒有一張牌被放在旁邊當作胡的牌", EN: "no tile is set apart as the winning tile"},
    notices.OVER_FOUR_COPIES: {ZH: "看到{count}張{tile}：一副牌只有4張", EN: "{count} copies of {tile}: a set has only 4"},
    notices.LOW_CONFIDENCE_TILE: {
        ZH: "{tile}看得不太確定（{confidence}）",
        EN: "low-confidence tile {tile} ({confidence})",
    },
    notices.SECOND_READING: {
        ZH: "把{old}改讀成{tile}（模型的第二選擇，{confidence}），因為{old}組不成合法的牌；若不對請更正",
        EN: "read {old} as {tile} (the model's second choice, {confidence}) because {old} makes no legal hand;"
        " correct it if that is wrong",
    },
    notices.WINNING_SET_BY_CALLER: {ZH: "胡的牌由你指定：{tile}", EN: "winning tile set by the caller: {tile}"},
    notices.WINNING_CHOSEN: {
        ZH: "沒有牌被放在旁邊：選了台數最高的{tile}當胡的牌；若不是，請從其他可能中選",
        EN: "no tile was set apart: {tile} chosen as the winning tile because it scores most;"
        " pick another from the alternatives if it was not",
    },
}

# The scoring errors a photo can run into, by the code the scoring core gives them, in zh-TW; in
# English the core's own message stands (it says more: which tiles, which count).
ERROR_TEMPLATES_ZH: dict[str, str] = {
    "not_winning": "{tile}胡不了這手牌；聽的是{waits}",
    "not_winning_no_waits": "這不是胡牌：{tile}湊不成5組面子加1對，這16張也沒有聽任何牌",
    "tile_count": "胡牌要有17張（面子每組算3張），這手有{count}張",
    "too_many_copies": "{tile}出現{count}次：一副牌只有4張",
    "duplicate_flower": "每張花只有一張：{tile}出現兩次",
    "no_winning_tile": "不知道胡的是哪張牌：把它放在旁邊或指定它",
}


def pick_language(requested: str | None) -> str:
    """The first supported language of an ``Accept-Language`` header or ``?lang=`` value; English when none."""
    for part in (requested or "").split(","):
        tag = part.split(";")[0].strip().lower()
        if tag.startswith("zh"):
            return ZH
        if tag.startswith("en"):
            return EN
    return EN


def tile_label(code: str, lang: str) -> str:
    return chinese_name(code) if lang == ZH else code


def _fill(template: str, params: dict[str, Any], lang: str) -> str:
    joiner = "、" if lang == ZH else " "
    values = dict(params)
    for key in ("tile", "old"):
        if values.get(key) is not None:  # a photo with no winning tile has none to name
            values[key] = tile_label(values[key], lang)
    for key in ("tiles", "waits"):
        if key in values:
            values[key] = joiner.join(tile_label(code, lang) for code in values[key])
    return template.format(**values)


def notice_message(notice: Notice, lang: str = EN) -> str:
    return _fill(NOTICE_TEMPLATES[notice.code][lang], notice.params, lang)


def notice_json(notice: Notice, lang: str = EN) -> dict[str, Any]:
    return {"code": notice.code, "message": notice_message(notice, lang), "params": notice.params}


def localise_error(error: dict[str, Any], params: dict[str, Any], lang: str) -> dict[str, Any]:
    """The scoring error ``{"code", "message", "details"}`` worded in ``lang``.

    ``params`` carries what the photo knows (the winning tile); the core's details add the rest.
    """
    code = error["code"]
    values = {**params, **(error.get("details") or {})}
    key = "not_winning_no_waits" if code == "not_winning" and not values.get("waits") else code
    template = ERROR_TEMPLATES_ZH.get(key)
    if lang != ZH or template is None:
        return error
    return {**error, "message": _fill(template, values, lang)}
