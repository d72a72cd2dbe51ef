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
    notices.UNSURE_FLOWER: {
        ZH: "{tile}也可能是{other}：花牌的字看不太清楚，若不對請更正",
        EN: "flower {tile} could also be {other}; correct it if that is wrong",
    },
    notices.UNSURE_TILE: {
        ZH: "{tile}也可能是{other}（{confidence}）：若不對請更正",
        EN: "tile {tile} could also be {other} ({confidence}); correct it if that is wrong",
    },
    notices.SECOND_READING: {
        ZH: "把{old}改讀成{tile}（模型的第{rank}選擇，{confidence}），因為{old}組不成合法的牌；若不對請更正",
        EN: "read {old} as {tile} (the model's choice no. {rank}, {confidence}) because {old} makes no legal hand;"
        " correct it if that is wrong",
    },
    notices.NAMED_BY_HAND: {
        ZH: "{old}看不清楚：只有{tile}組得成合法的牌，改讀成{tile}；若不對請更正",
        EN: "read {old} as {tile}: no other tile there makes a legal hand; correct it if that is wrong",
    },
    notices.READ_AS_WAITED: {
        ZH: "{old}組不成合法的牌：其餘的牌聽{tile}，改讀成{tile}；若不對請更正",
        EN: "read {old} as {tile}, a tile the rest of the hand waits on, because {old} makes no legal hand;"
        " correct it if that is wrong",
    },
    notices.READ_AS_FLOWER: {
        ZH: "{old}和花牌排在一起：改讀成{tile}；若不對請更正",
        EN: "read {old} as {tile} because it lies in the row of flowers; correct it if that is wrong",
    },
    notices.READ_AS_LONE_FLOWER: {
        ZH: "{old}單獨擺放，偵測器看出是花牌：改讀成{tile}；若不對請更正",
        EN: "read {old} as {tile} because it lies alone and the detector saw a flower there; correct it if that is wrong",
    },
    notices.READ_AS_TILE: {
        ZH: "{old}夾在一排牌中間，花牌不會這樣擺：改讀成{tile}；若不對請更正",
        EN: "read {old} as {tile} because it lies inside a run of tiles, where no flower is laid; correct it if that is wrong",
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
}


# Every other error the service answers, in zh-TW by its code: the English message says more (which
# field, which limit) and stays in ``details.message_en``. English readers get it as the message.
ERROR_SUMMARIES_ZH: dict[str, str] = {
    # the scoring core (scoring.errors.ErrorCode)
    "bad_tile": "有一張牌的代碼不對",
    "bad_field": "資料裡有一個欄位不對",
    "bad_meld": "有一組面子不是合法的吃、碰或槓",
    "bad_context": "胡牌的情況互相矛盾",
    "no_winning_tile": "不知道胡的是哪張牌：把它放在旁邊或指定它",
    "duplicate_flower": "同一張花出現兩次",
    "tile_count": "牌數不對：胡牌要有17張（面子每組算3張）",
    "too_many_copies": "同一張牌超過4張",
    "not_winning": "這手牌不能胡",
    "unknown_preset": "沒有這個規則",
    "unknown_option": "這個規則沒有這個選項",
    "bad_option": "規則選項的值不對",
    "bad_preset": "規則檔有錯，請管理員修正",
    # the HTTP service
    "bad_json": "送來的資料不是正確的 JSON",
    "invalid_request": "請求的格式不對",
    "bad_correction": "更正的牌不對",
    "bad_winning_tile": "指定的胡牌不在手牌裡",
    "too_many_hands": "一次送來的手牌太多",
    "too_large": "檔案太大",
    "not_an_image": "這不是一張照片",
    "busy": "伺服器正忙，請稍後再試",
    "timeout": "傳送太慢，已中斷",
    "model_not_loaded": "辨識模型還沒載入",
    "bad_model": "辨識模型檔案不能用",
    "no_frame": "攝影機沒有畫面",
    "no_camera": "伺服器沒有接攝影機",
    "not_found": "找不到",
    "method_not_allowed": "不支援這個操作",
    "http_error": "請求失敗",
    "unauthorized": "需要權杖：請用 QR 碼裡的連結開啟",
    "bad_host": "這台伺服器不接受這個主機名稱",
    "bad_origin": "其他網站不能在這裡做更改",
    "csrf": "這個更改缺少必要的標頭",
    "internal_error": "伺服器出錯了，請回報請求編號",
    "labeling_off": "這台伺服器沒有開標記工具",
    "store_full": "訓練資料已滿",
    "no_font": "缺少畫牌用的字型",
    # the ledger and the labeling store
    "bad_table": "牌桌的設定不對",
    "bad_hand": "這一把的記錄不對",
    "conflict": "牌桌已經有新的記錄：請重新整理再試",
    "bad_box": "標記框不對",
    "bad_labels": "標記檔不對",
    "bad_classes": "類別清單不對",
    "bad_path": "路徑不對",
    "bad_source": "來源不對",
}


def error_in(code: str, message: str, details: dict[str, Any], lang: str) -> tuple[str, dict[str, Any]]:
    """The envelope's message and details for ``lang``: zh-TW gets the code's own sentence, with the
    English message kept in the details; English is unchanged."""
    summary = ERROR_SUMMARIES_ZH.get(code)
    if lang != ZH or summary is None:
        return message, details
    return summary, {**details, "message_en": message}


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
    for key in ("tile", "old", "other"):
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
    template = ERROR_TEMPLATES_ZH.get(key) or ERROR_SUMMARIES_ZH.get(code)
    if lang != ZH or template is None:
        return error
    return {**error, "message": _fill(template, values, lang)}
