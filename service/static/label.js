// The labeling editor: draw, move, resize and delete boxes; set codes by keyboard or palette;
// sticky label, continuous drawing, undo/redo that autosaves, zoom, changeable shortcuts.
const $ = id => document.getElementById(id);
const JSON_HEADERS = { "content-type": "application/json" };
const DEFAULT_KEYS = { undo: "ctrl+z", redo: "ctrl+shift+z", redo2: "ctrl+y", delete: "Delete", next: "n", check: "Enter", continuous: "c", back: "b", zoomIn: "+", zoomOut: "-" };
const keys = { ...DEFAULT_KEYS, ...JSON.parse(localStorage.getItem("taicam-label-keys") || "{}") };

let image = null, meta = null, boxes = [], selected = -1, zoom = 1, sticky = localStorage.getItem("taicam-sticky") || "1m";
let undoStack = [], redoStack = [], pendingDigit = null, continuous = false, drag = null, saveTimer = null, saving = Promise.resolve();

// --- server -----------------------------------------------------------------------------
async function loadQueue() {
  const queue = await api("/v1/label/images");
  // Each photo says where it came from (snap, live, import); corrected and unscorable ones are marked.
  $("queue").innerHTML = queue.map(e => `<li data-id="${esc(e.id)}" data-source="${esc(e.source)}" class="${e.checked ? "checked" : ""} ${meta && meta.id === e.id ? "current" : ""}">
    ${e.checked ? "✓" : "·"} #${esc(e.id)} <span class="source">${esc(e.source)}</span> ${esc(e.original)} (${esc(e.boxes)}${e.min_confidence !== null ? ", " + esc(e.min_confidence) : ""})
    ${e.corrected ? `<span class="corrected">✎${esc(e.corrected)}</span>` : ""}${e.confirmed ? " 👍" : ""}${e.unscorable ? ` <span class="issue">unscorable</span>` : ""}
    ${e.issues.length ? `<div class="issue">${esc(e.issues.join("; "))}</div>` : ""}</li>`).join("");
  $("queue").querySelectorAll("li").forEach(li => li.addEventListener("click", () => open(parseInt(li.dataset.id, 10))));
  const stats = await api("/v1/label/stats");
  const most = Math.max(1, ...Object.values(stats));
  $("chart").innerHTML = Object.entries(stats).map(([code, n]) => `<div class="bar"><span style="width:2.2rem">${esc(code)}</span><div style="width:${(120 * Number(n)) / most}px"></div><span>${esc(n)}</span></div>`).join("");
  return queue;
}

async function open(id) {
  await saving;
  meta = await api(`/v1/label/images/${id}`);
  boxes = meta.boxes.map(b => ({ ...b }));
  undoStack = []; redoStack = []; selected = -1;
  image = new Image();
  image.onload = () => { fitZoom(); draw(); };
  image.src = withToken(`/v1/label/images/${id}/file`);
  status();
  loadQueue();
}

function scheduleSave(extra = {}) {
  clearTimeout(saveTimer);
  saveTimer = setTimeout(() => { saving = save(extra); }, 250);
}

async function save(extra = {}) {
  if (!meta) return;
  try {
    const body = { boxes: boxes.map(b => ({ code: b.code, box: b.box, source: b.source, confidence: b.confidence, state: b.state })), version: meta.version, ...extra };
    const saved = await api(`/v1/label/images/${meta.id}`, { method: "PUT", body: JSON.stringify(body), headers: JSON_HEADERS });
    meta.version = saved.version; meta.checked = saved.checked; meta.issues = saved.issues;
    status("saved");
  } catch (error) {
    status(error.status === 409 ? "⚠ conflict: " + error.message : "⚠ " + error.message);
  }
}

function status(text = "") {
  $("status").textContent = meta ? `#${meta.id} ${meta.source} v${meta.version} ${meta.checked ? "✓" : ""} ${text}` : text;
  $("sticky").textContent = `${sticky} ${TILE_NAMES[sticky] || ""}`;
  $("mode").textContent = continuous ? "連續繪製 / continuous" : "";
  $("pending").textContent = pendingDigit ? `${pendingDigit}…` : "";
}

// --- editing with history -------------------------------------------------------------------
function change(mutate) {
  undoStack.push(JSON.stringify(boxes));
  redoStack = [];
  mutate();
  draw(); scheduleSave();
}
function undo() { if (!undoStack.length) return; redoStack.push(JSON.stringify(boxes)); boxes = JSON.parse(undoStack.pop()); selected = Math.min(selected, boxes.length - 1); draw(); scheduleSave(); }
function redo() { if (!redoStack.length) return; undoStack.push(JSON.stringify(boxes)); boxes = JSON.parse(redoStack.pop()); draw(); scheduleSave(); }

function setCode(code) {
  sticky = code; localStorage.setItem("taicam-sticky", code);
  if (selected >= 0) change(() => { boxes[selected].code = code; boxes[selected].source = "human"; boxes[selected].confidence = null; boxes[selected].state = "corrected"; });
  status();
}

// --- drawing -------------------------------------------------------------------------------
function fitZoom() { const stage = $("stage"); zoom = Math.min(1, (stage.clientWidth - 10) / image.naturalWidth, (stage.clientHeight - 10) / image.naturalHeight) || 1; }
function draw() {
  const canvas = $("canvas"), ctx = canvas.getContext("2d");
  if (!image) return;
  canvas.width = image.naturalWidth * zoom; canvas.height = image.naturalHeight * zoom;
  ctx.drawImage(image, 0, 0, canvas.width, canvas.height);
  ctx.font = "13px sans-serif";
  boxes.forEach((b, i) => {
    const [x1, y1, x2, y2] = b.box.map(v => v * zoom);
    ctx.strokeStyle = i === selected ? "#ff0" : b.source === "model" ? "#0af" : "#f33";
    ctx.lineWidth = i === selected ? 3 : 2;
    ctx.strokeRect(x1, y1, x2 - x1, y2 - y1);
    ctx.fillStyle = ctx.strokeStyle; ctx.fillText(b.code, x1 + 2, y1 - 3);
    if (i === selected) ctx.fillRect(x2 - 4, y2 - 4, 8, 8);
  });
  if (drag && drag.kind === "new") { ctx.strokeStyle = "#ff0"; ctx.strokeRect(drag.x0 * zoom, drag.y0 * zoom, (drag.x - drag.x0) * zoom, (drag.y - drag.y0) * zoom); }
}

function point(event) { const r = $("canvas").getBoundingClientRect(); return [(event.clientX - r.left) / zoom, (event.clientY - r.top) / zoom]; }
function hit(x, y) { for (let i = boxes.length - 1; i >= 0; i--) { const [x1, y1, x2, y2] = boxes[i].box; if (x >= x1 && x <= x2 && y >= y1 && y <= y2) return i; } return -1; }

$("canvas").addEventListener("mousedown", event => {
  const [x, y] = point(event);
  if (selected >= 0) {
    const [, , x2, y2] = boxes[selected].box;
    if (Math.abs(x - x2) * zoom < 8 && Math.abs(y - y2) * zoom < 8) { drag = { kind: "resize", before: JSON.stringify(boxes) }; return; }
  }
  const index = continuous ? -1 : hit(x, y);
  if (index >= 0) { selected = index; drag = { kind: "move", x, y, before: JSON.stringify(boxes) }; draw(); return; }
  drag = { kind: "new", x0: x, y0: y, x, y };
});
window.addEventListener("mousemove", event => {
  if (!drag) return;
  const [x, y] = point(event);
  if (drag.kind === "new") { drag.x = x; drag.y = y; }
  else if (drag.kind === "move") { const dx = x - drag.x, dy = y - drag.y; drag.x = x; drag.y = y; const b = boxes[selected].box; boxes[selected].box = [b[0] + dx, b[1] + dy, b[2] + dx, b[3] + dy]; }
  else if (drag.kind === "resize") { const b = boxes[selected].box; boxes[selected].box = [b[0], b[1], Math.max(b[0] + 2, x), Math.max(b[1] + 2, y)]; }
  draw();
});
window.addEventListener("mouseup", () => {
  if (!drag) return;
  const done = drag; drag = null;
  if (done.kind === "new") {
    const x1 = Math.min(done.x0, done.x), x2 = Math.max(done.x0, done.x), y1 = Math.min(done.y0, done.y), y2 = Math.max(done.y0, done.y);
    if (x2 - x1 > 3 && y2 - y1 > 3) change(() => { boxes.push({ code: sticky, box: [x1, y1, x2, y2], source: "human", confidence: null, state: "corrected" }); selected = boxes.length - 1; });
    else { selected = -1; draw(); }
  } else {
    undoStack.push(done.before); redoStack = [];
    boxes[selected].source = "human"; boxes[selected].state = "corrected";
    draw(); scheduleSave();
  }
});
$("stage").addEventListener("wheel", event => { if (!event.ctrlKey && !event.metaKey) return; event.preventDefault(); zoom *= event.deltaY < 0 ? 1.15 : 1 / 1.15; draw(); }, { passive: false });

// --- keyboard -------------------------------------------------------------------------------
function keyName(event) {
  const parts = [];
  if (event.ctrlKey || event.metaKey) parts.push("ctrl");
  if (event.shiftKey && (event.ctrlKey || event.metaKey || event.key.length > 1)) parts.push("shift");
  parts.push(event.key.length === 1 ? event.key.toLowerCase() : event.key);
  return parts.join("+");
}
window.addEventListener("keydown", async event => {
  if (event.target.tagName === "INPUT") return;
  const name = keyName(event);
  const is = action => keys[action] === name || (action === "delete" && event.key === "Backspace");
  if (is("undo")) { event.preventDefault(); undo(); return; }
  if (is("redo") || is("redo2")) { event.preventDefault(); redo(); return; }
  if (event.ctrlKey || event.metaKey) return;
  if (is("delete") && selected >= 0) { change(() => { boxes.splice(selected, 1); selected = -1; }); return; }
  if (is("check")) { event.preventDefault(); await saving; clearTimeout(saveTimer); saving = save({ checked: true }); await saving; const next = (await api("/v1/label/next")).id; loadQueue(); if (next) open(next); return; }
  if (is("next")) { const next = (await api("/v1/label/next")).id; if (next) open(next); return; }
  if (is("continuous")) { continuous = !continuous; status(); return; }
  if (is("zoomIn")) { zoom *= 1.25; draw(); return; }
  if (is("zoomOut")) { zoom /= 1.25; draw(); return; }
  const key = event.key.toLowerCase();
  if (key === keys.back) { setCode("back"); pendingDigit = null; status(); return; }
  // Codes: a digit then a suit (3 then m → 3m), or f then a digit (f then 2 → 2f).
  if (/^[1-9]$/.test(key)) {
    if (pendingDigit === "f") { if (parseInt(key, 10) <= 8) setCode(`${key}f`); pendingDigit = null; }
    else pendingDigit = key;
    status(); return;
  }
  if (key === "f" && !pendingDigit) { pendingDigit = "f"; status(); return; }
  if (pendingDigit && "mpsz".includes(key)) {
    const code = `${pendingDigit}${key}`;
    if (TILE_CODES.includes(code)) setCode(code);
    pendingDigit = null; status();
  }
});

function renderShortcuts() {
  $("shortcuts").innerHTML = Object.entries(keys).map(([action, key]) => `<tr><td>${esc(action)}</td><td><input data-action="${esc(action)}" value="${esc(key)}"></td></tr>`).join("")
    + `<tr><td>code</td><td>3 m → 3m · f 2 → 2f · ${esc(keys.back)} → back</td></tr><tr><td>zoom</td><td>ctrl + wheel</td></tr><tr><td>resize</td><td>drag the yellow corner</td></tr>`;
  $("shortcuts").querySelectorAll("input").forEach(input => input.addEventListener("change", () => {
    keys[input.dataset.action] = input.value; localStorage.setItem("taicam-label-keys", JSON.stringify(keys));
  }));
}

function renderPalette() {
  $("palette").innerHTML = TILE_CODES.map(code => `<button data-code="${code}" title="${code} ${TILE_NAMES[code]}"><img src="${withToken(`/v1/label/tiles/${code}.png`)}" alt="${code}"></button>`).join("");
  // No inline onerror: the Content-Security-Policy allows no inline script. Without a CJK font the code shows as text.
  $("palette").querySelectorAll("img").forEach(img => img.addEventListener("error", () => img.replaceWith(document.createTextNode(img.alt))));
  $("palette").querySelectorAll("button").forEach(b => b.addEventListener("click", () => setCode(b.dataset.code)));
}

// --- side panel -------------------------------------------------------------------------------
$("upload").addEventListener("change", async () => {
  const form = new FormData();
  for (const file of $("upload").files) form.append("files", file);
  try { const result = await api("/v1/label/upload", { method: "POST", body: form }); toast(`+${result.added.length}`); const queue = await loadQueue(); if (!meta && queue.length) open(queue[0].id); }
  catch (error) { toast(error.message); }
});
$("import").addEventListener("click", async () => { try { const r = await api("/v1/label/import", { method: "POST", body: JSON.stringify({ name: $("inbox").value }), headers: JSON_HEADERS }); toast(`+${r.added}`); loadQueue(); } catch (error) { toast(error.message); } });
$("prelabel").addEventListener("click", async () => { try { const r = await api("/v1/label/prelabel", { method: "POST" }); toast(`${r.prelabeled}`); loadQueue(); if (meta) open(meta.id); } catch (error) { toast(error.message); } });
$("export").addEventListener("click", async () => {
  await saving;
  try { const r = await api("/v1/label/export", { method: "POST", body: JSON.stringify({ name: $("export-name").value }), headers: JSON_HEADERS }); $("export-result").textContent = `${r.out}: train ${r.train}, val ${r.val}`; }
  catch (error) { toast(error.message); }
});
$("next").addEventListener("click", async () => { const next = (await api("/v1/label/next")).id; if (next) open(next); });
$("zoom-in").addEventListener("click", () => { zoom *= 1.25; draw(); });
$("zoom-out").addEventListener("click", () => { zoom /= 1.25; draw(); });
$("check").addEventListener("click", async () => { await saving; saving = save({ checked: !meta.checked }); await saving; loadQueue(); });

renderShortcuts(); renderPalette(); status();
loadQueue().then(queue => { const first = queue.find(e => !e.checked) || queue[0]; if (first) open(first.id); });
