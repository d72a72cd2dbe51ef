// Shared by every page: language, API calls with the error envelope, tile names.
const TEXT = {
  "zh-TW": {
    snap: "拍照算台", live: "即時", ledger: "記帳", language: "English", photo: "拍照或選擇照片",
    self_drawn: "自摸", dealer: "莊家", streak: "連莊", round_wind: "圈風", seat_wind: "門風", preset: "規則",
    score: "算台", total: "合計", add_to_ledger: "記入帳本", table: "牌桌", discarder: "放槍", tap_to_fix: "點一張牌可更正",
    house_rules: "規則", warnings: "注意", alternatives: "其他可能的胡牌", no_table: "先在記帳頁建立牌桌", added: "已記入帳本",
    players: "玩家", balance: "輸贏", create_table: "建立牌桌", name: "名稱", base: "底", per_tai: "每台",
    record_draw: "流局", draw_seats: "抓位", hands: "牌局", server_camera: "伺服器相機", phone_camera: "手機相機",
    https_note: "手機相機需要 HTTPS：以 taicam serve --https 啟動，並接受自簽憑證。", start: "開始", stop: "停止",
    la: "拉（港式結算）", swap: "頭四圈後東南、西北互調", winner: "胡牌者",
    keep_for_training: "協助改進 taicam：保留這張照片和我的更正",
    keep_note: "開啟後，照片（已去除 EXIF）、辨識結果、你的更正和最後的牌存在這台伺服器的標註資料夾，只用來訓練模型。只記在這台裝置上，預設關閉。",
    this_is_right: "這手牌正確", kept_confirmed: "已確認並保存，謝謝", kept: "已保存這張照片", likely: "可能是：",
  },
  en: {
    snap: "Snap & score", live: "Live", ledger: "Ledger", language: "中文", photo: "Take or choose a photo",
    self_drawn: "Self-drawn", dealer: "Dealer", streak: "Streak", round_wind: "Round wind", seat_wind: "Seat wind", preset: "Rules",
    score: "Score", total: "Total", add_to_ledger: "Add to ledger", table: "Table", discarder: "Discarder", tap_to_fix: "Tap a tile to correct it",
    house_rules: "House rules", warnings: "Warnings", alternatives: "Other possible winning tiles", no_table: "Create a table on the Ledger page first", added: "Added to the ledger",
    players: "Players", balance: "Balance", create_table: "Create table", name: "Name", base: "Base", per_tai: "Per tai",
    record_draw: "Drawn hand", draw_seats: "Draw seats", hands: "Hands", server_camera: "Server camera", phone_camera: "Phone camera",
    https_note: "The phone camera needs HTTPS: start with taicam serve --https and accept the self-signed certificate.", start: "Start", stop: "Stop",
    la: "拉 settlement (HK)", swap: "Swap E↔S, W↔N after the first four rounds", winner: "Winner",
    keep_for_training: "Help improve taicam: keep this photo and my corrections",
    keep_note: "When on, the photo (EXIF removed), what taicam read, your corrections and the final hand are kept in this server's label store and used only to train the model. Remembered on this device; off by default.",
    this_is_right: "This is right", kept_confirmed: "Confirmed and kept, thank you", kept: "Photo kept", likely: "Likely:",
  },
};
let lang = localStorage.getItem("taicam-lang") || "zh-TW";
function t(key) { return (TEXT[lang] && TEXT[lang][key]) || key; }
function applyText() {
  document.documentElement.lang = lang;
  document.querySelectorAll("[data-t]").forEach(el => { el.textContent = t(el.dataset.t); });
}
function toggleLanguage() { lang = lang === "zh-TW" ? "en" : "zh-TW"; localStorage.setItem("taicam-lang", lang); applyText(); if (window.onLanguage) window.onLanguage(); }

// Every name or message from the server goes into markup through this (or textContent): a table
// named <img onerror=…> must show as text. The Content-Security-Policy also blocks inline script.
const HTML_ESCAPES = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
function esc(value) { return String(value ?? "").replace(/[&<>"']/g, c => HTML_ESCAPES[c]); }

const TOKEN = new URLSearchParams(location.search).get("token");
function withToken(url) { return TOKEN ? url + (url.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(TOKEN) : url; }

// The server refuses a state change without a JSON body or this header, which another site's page cannot send.
const CSRF_HEADER = "x-taicam-csrf";
async function api(path, options = {}) {
  const headers = { [CSRF_HEADER]: "1", "accept-language": lang, ...(options.headers || {}) };
  const response = await fetch(withToken(path), { ...options, headers });
  const body = await response.json().catch(() => ({ error: { code: "bad_response", message: response.statusText } }));
  if (!response.ok) { const error = new Error(body.error ? body.error.message : response.statusText); error.body = body; error.status = response.status; throw error; }
  return body;
}
function toast(message) { const el = document.getElementById("toast"); el.textContent = message; el.style.display = "block"; setTimeout(() => { el.style.display = "none"; }, 2600); }

const TILE_NAMES = {};
"一二三四五六七八九".split("").forEach((n, i) => { TILE_NAMES[`${i + 1}m`] = n + "萬"; TILE_NAMES[`${i + 1}p`] = n + "筒"; TILE_NAMES[`${i + 1}s`] = n + "條"; });
"東南西北白發中".split("").forEach((n, i) => { TILE_NAMES[`${i + 1}z`] = n; });
"春夏秋冬梅蘭菊竹".split("").forEach((n, i) => { TILE_NAMES[`${i + 1}f`] = n; });
TILE_NAMES.back = "牌背";
const TILE_CODES = Object.keys(TILE_NAMES);
function tileLabel(code) { return lang === "en" ? code : `${TILE_NAMES[code] || code}`; }

// Warnings come worded in the page's language (Accept-Language); each becomes one line in ``box``,
// and ``onTap`` (if given) is called with the warning when its line is tapped.
function showWarningLines(box, warnings, onTap) {
  box.replaceChildren();
  for (const warning of warnings || []) {
    const line = document.createElement("p");
    line.className = "warning";
    line.textContent = "⚠ " + warning.message;
    if (onTap) line.addEventListener("click", () => onTap(warning));
    box.appendChild(line);
  }
}

// The opt-in to keep photos for training: off until the player turns it on, remembered per device.
const KEEP_KEY = "taicam-keep-for-training";
function keepSwitch(input) {
  input.checked = localStorage.getItem(KEEP_KEY) === "true";
  input.addEventListener("change", () => localStorage.setItem(KEEP_KEY, String(input.checked)));
  return input;
}
async function confirmKept(imageId) { return api(`/v1/label/images/${imageId}/confirm`, { method: "POST" }); }

// The kept photo of the snap and live pages, and its "this is right" button (#confirm).
let keptId = null;
function showKept(saved) {
  keptId = saved ? saved.image_id : null;
  if (saved && saved.error) toast(saved.error.message);
  document.getElementById("confirm").hidden = !keptId;
  document.getElementById("confirm").disabled = false;
}
function wireConfirm() {
  document.getElementById("confirm").addEventListener("click", async () => {
    if (!keptId) return;
    try { await confirmKept(keptId); document.getElementById("confirm").disabled = true; toast(t("kept_confirmed")); }
    catch (error) { toast(error.message); }
  });
}

function header(page) {
  const links = ["snap", "live", "ledger"].map(p => `<a href="${withToken("/" + p)}" class="${p === page ? "here" : ""}" data-t="${p}"></a>`).join("");
  document.body.insertAdjacentHTML("afterbegin", `<header><strong>taicam</strong>${links}<span class="spacer"></span><a href="#" id="lang" data-t="language"></a></header>`);
  document.getElementById("lang").addEventListener("click", e => { e.preventDefault(); toggleLanguage(); });
  document.body.insertAdjacentHTML("beforeend", `<div id="toast"></div>`);
  applyText();
}
