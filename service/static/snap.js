// Snap & score: upload a photo, see boxes, fix tiles, toggle the context, add to a ledger.
header("snap");
const WINDS = ["E", "S", "W", "N"], WIND_NAMES = { E: "東", S: "南", W: "西", N: "北" };
let photoFile = null, last = null, corrections = {}, selected = null;
const $ = id => document.getElementById(id);
// Turned on after a photo was scored, the switch keeps that photo at once.
keepSwitch($("keep")).addEventListener("change", () => { if ($("keep").checked && photoFile) scorePhoto(); });

for (const id of ["round_wind", "seat_wind", "discarder"]) $(id).innerHTML = WINDS.map(w => `<option value="${w}">${WIND_NAMES[w]} ${w}</option>`).join("");
$("discarder").value = "S";

function context() {
  return {
    self_drawn: $("self_drawn").checked, dealer: $("dealer").checked, dealer_streak: parseInt($("dealer_streak").value || "0", 10),
    round_wind: $("round_wind").value, seat_wind: $("seat_wind").value,
  };
}

let presets = [];
async function loadPresets() {
  presets = await api("/v1/rules");
  $("preset").innerHTML = presets.map(p => `<option value="${esc(p.name)}">${esc(p.name)} (${esc(p.unit)})</option>`).join("");
  $("preset").value = localStorage.getItem("taicam-preset") || "taiwan";
  showOptions();
}

// The house's options for the chosen preset, remembered on this device until changed.
function savedOptions(preset) { return JSON.parse(localStorage.getItem(`taicam-options-${preset}`) || "{}"); }

function houseOptions() {
  const preset = presets.find(p => p.name === $("preset").value);
  const saved = savedOptions($("preset").value);
  return Object.fromEntries((preset ? preset.options : []).filter(o => o.name in saved).map(o => [o.name, saved[o.name]]));
}

function showOptions() {
  const preset = presets.find(p => p.name === $("preset").value);
  const saved = savedOptions($("preset").value);
  const box = $("options");
  box.replaceChildren();
  for (const option of preset ? preset.options : []) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    const value = option.name in saved ? saved[option.name] : option.default;
    if (typeof option.default === "boolean") { input.type = "checkbox"; input.checked = value; }
    else { input.type = "number"; input.min = "0"; input.value = value; }
    input.dataset.option = option.name;
    input.addEventListener("change", () => {
      const options = savedOptions($("preset").value);
      options[option.name] = input.type === "checkbox" ? input.checked : Number(input.value);
      localStorage.setItem(`taicam-options-${$("preset").value}`, JSON.stringify(options));
      rescoreHand();
    });
    const name = document.createElement("span");
    name.textContent = option.name;
    name.title = option.meaning;
    const meaning = document.createElement("small");
    meaning.textContent = option.meaning;
    label.append(input, name, meaning);
    box.appendChild(label);
  }
}

async function scorePhoto() {
  if (!photoFile) return;
  const form = new FormData();
  form.append("image", photoFile);
  form.append("preset", $("preset").value);
  form.append("options", JSON.stringify(houseOptions()));
  for (const [k, v] of Object.entries(context())) form.append(k, String(v));
  if (Object.keys(corrections).length) form.append("corrections", JSON.stringify(corrections));
  if ($("keep").checked) form.append("save_for_training", "true");
  try { show(await api("/v1/score", { method: "POST", body: form })); }
  catch (error) {
    if (error.body && error.body.error && error.body.error.details && error.body.error.details.detections) { show(error.body.error.details, error.message); }
    else { $("result").hidden = false; $("score-error").textContent = error.message; }
  }
}

async function rescoreHand() {
  // Context changes need no new detection: score the recognised hand again.
  if (!last) return;
  const hand = { ...last.hand, ...context(), preset: $("preset").value, options: houseOptions() };
  try { show({ ...last, hand, score: await api("/v1/score/hand", { method: "POST", body: JSON.stringify(hand), headers: { "content-type": "application/json" } }) }); }
  catch (error) { show({ ...last, hand, score: error.body }, error.message); }
}

function show(result, errorMessage) {
  last = result;
  $("result").hidden = false;
  $("photo").src = URL.createObjectURL(photoFile);
  $("photo").onload = () => drawBoxes(result);
  const score = result.score || {};
  $("score-error").textContent = errorMessage || (score.error ? score.error.message : "");
  $("tai").innerHTML = (score.patterns || []).map(p => `<li><span>${esc(p.name)}</span><span>${esc(p.tai)}</span></li>`).join("");
  $("total").textContent = score.total ?? "—";
  showWarnings(result.warnings);
  $("alternatives").innerHTML = (result.alternatives || []).length
    ? `<p>${t("alternatives")}: ` + result.alternatives.map(a => `<button class="secondary" data-win="${esc(a.detection)}">${esc(tileLabel(a.winning_tile))} → ${esc(a.total)}</button>`).join(" ") + "</p>" : "";
  document.querySelectorAll("[data-win]").forEach(b => b.addEventListener("click", () => { winningOverride = b.dataset.win; scoreWithWinning(); }));
  $("ledger-box").hidden = !score.total && score.total !== 0;
  if (result.saved_for_training !== undefined) showKept(result.saved_for_training);  // not on a rescore of the context
}

// A kept photo can be confirmed: "this is right" marks every tile the player did not correct as right.
wireConfirm();

// A tap on a warning highlights the tiles it is about; one about a single tile also opens that
// tile's palette, so the fix is one more tap.
function showWarnings(warnings) {
  showWarningLines($("warnings"), warnings, warning => {
    const ids = (warning.params && warning.params.detections) || [];
    highlightBoxes(ids);
    if (ids.length === 1) openPalette(ids[0]);
  });
}

function highlightBoxes(ids) {
  document.querySelectorAll("#photo-wrap .box").forEach(b => b.classList.toggle("highlight", ids.includes(Number(b.dataset.id))));
}

let winningOverride = null;
async function scoreWithWinning() {
  const form = new FormData();
  form.append("image", photoFile); form.append("preset", $("preset").value); form.append("winning_tile", winningOverride);
  form.append("options", JSON.stringify(houseOptions()));
  for (const [k, v] of Object.entries(context())) form.append(k, String(v));
  if (Object.keys(corrections).length) form.append("corrections", JSON.stringify(corrections));
  if ($("keep").checked) form.append("save_for_training", "true");
  try { show(await api("/v1/score", { method: "POST", body: form })); } catch (error) { show(error.body.error.details || last, error.message); }
}

function drawBoxes(result) {
  const wrap = $("photo-wrap"), img = $("photo");
  wrap.querySelectorAll(".box").forEach(b => b.remove());
  const scale = img.clientWidth / img.naturalWidth;
  const roles = {};
  for (const g of result.groups || []) for (const id of g.detections) roles[id] = g.role;
  (result.detections || []).forEach((d, i) => {
    const [x1, y1, x2, y2] = d.box;
    const box = document.createElement("div");
    box.className = "box " + (roles[i] || "");
    box.dataset.id = i;
    Object.assign(box.style, { left: x1 * scale + "px", top: y1 * scale + "px", width: (x2 - x1) * scale + "px", height: (y2 - y1) * scale + "px" });
    const label = document.createElement("span");
    label.textContent = tileLabel(d.code);
    box.appendChild(label);
    box.addEventListener("click", () => openPalette(i));
    wrap.appendChild(box);
  });
}

// The codes that warnings about this one tile name (the flower it could also be, the reading the
// repair changed), other than its reading now: the likeliest corrections, offered first.
function likelyCodes(id) {
  const current = last && last.detections && last.detections[id] ? last.detections[id].code : null;
  const named = [];
  for (const warning of (last && last.warnings) || []) {
    const params = warning.params || {};
    if (!(params.detections || []).includes(id)) continue;
    for (const key of ["other", "old", "tile"]) {
      const code = params[key];
      if (TILE_CODES.includes(code) && code !== current && !named.includes(code)) named.push(code);
    }
  }
  return named;
}

function paletteButton(code, className = "") {
  return `<button class="${className}" data-code="${code}" title="${code}">${TILE_NAMES[code]}</button>`;
}

function openPalette(id) {
  selected = id;
  const likely = likelyCodes(id);
  $("palette").hidden = false;
  $("palette").innerHTML = (likely.length
    ? `<p class="likely"><span>${esc(t("likely"))}</span> ${likely.map(c => paletteButton(c, "likely")).join("")}</p>` : "")
    + TILE_CODES.map(c => paletteButton(c)).join("");
  $("palette").scrollIntoView({ block: "nearest" });
  $("palette").querySelectorAll("button").forEach(b => b.addEventListener("click", () => {
    corrections[selected] = b.dataset.code; $("palette").hidden = true; scorePhoto();
  }));
}

async function loadTables() {
  const tables = await api("/v1/tables");
  $("table").innerHTML = tables.length ? tables.map(tb => `<option value="${esc(tb.id)}">${esc(tb.name)}</option>`).join("") : `<option value="">${t("no_table")}</option>`;
}

$("add").addEventListener("click", async () => {
  if (!last || !last.score || last.score.total === undefined) return;
  const tableId = $("table").value;
  if (!tableId) { toast(t("no_table")); return; }
  const self = $("self_drawn").checked;
  const body = { winner: $("seat_wind").value, self_drawn: self, discarder: self ? null : $("discarder").value, tai: last.score.total, patterns: last.score.patterns };
  try { await api(`/v1/tables/${tableId}/hands`, { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } }); toast(t("added")); }
  catch (error) { toast(error.message); }
});

$("file").addEventListener("change", () => {
  photoFile = $("file").files[0]; corrections = {}; winningOverride = null; keptId = null; $("confirm").hidden = true; scorePhoto();
});
for (const id of ["self_drawn", "dealer", "dealer_streak", "round_wind", "seat_wind"]) $(id).addEventListener("change", rescoreHand);
$("preset").addEventListener("change", () => { localStorage.setItem("taicam-preset", $("preset").value); showOptions(); rescoreHand(); });
// The server words warnings and errors in the page's language: ask again after a switch.
window.onLanguage = () => { loadTables(); if (photoFile) scorePhoto(); };
loadPresets(); loadTables();
