// Ledger: tables, running balances, dealer rotation, drawn hands and seat draws.
header("ledger");
const $ = id => document.getElementById(id);
const JSON_HEADERS = { "content-type": "application/json" };

async function refresh(selectId) {
  const tables = await api("/v1/tables");
  $("tables").innerHTML = tables.map(tb => `<option value="${esc(tb.id)}">${esc(tb.name)}</option>`).join("");
  if (selectId) $("tables").value = selectId;
  if (tables.length) render(await api(`/v1/tables/${$("tables").value}`));
}

function render(table) {
  $("view").hidden = false;
  $("state").textContent = `${t("round_wind")} ${table.round_wind} · ${t("dealer")} ${table.dealer} · ${t("streak")} ${table.dealer_streak} · ${table.preset}`;
  $("players").innerHTML = table.players.map(p => `<tr><td>${esc(p.name)}</td><td>${esc(p.seat)}</td><td>${esc(p.balance)}</td></tr>`).join("");
  $("history").innerHTML = table.history.slice().reverse().map(h => {
    if (h.kind === "draw") return `<tr><td>#${esc(h.seq)}</td><td colspan="3">${t("record_draw")}</td></tr>`;
    if (h.kind === "seats") return `<tr><td>#${esc(h.seq)}</td><td colspan="3">${t("draw_seats")}</td></tr>`;
    const how = h.self_drawn ? t("self_drawn") : `${t("discarder")} ${esc(h.discarder)}`;
    return `<tr><td>#${esc(h.seq)}</td><td>${t("winner")} ${esc(h.winner)}</td><td>${how}</td><td>${esc(h.tai)}</td></tr>`;
  }).join("");
}

$("create").addEventListener("click", async () => {
  const body = {
    name: $("name").value, players: [0, 1, 2, 3].map(i => $("p" + i).value), base: parseFloat($("base").value), per_tai: parseFloat($("per_tai").value),
    preset: $("preset").value, options: { la: $("la").checked, swap_after_east_round: $("swap").checked },
  };
  try { const table = await api("/v1/tables", { method: "POST", body: JSON.stringify(body), headers: JSON_HEADERS }); refresh(table.id); }
  catch (error) { toast(error.message); }
});
$("tables").addEventListener("change", () => refresh($("tables").value));
$("draw").addEventListener("click", async () => render(await api(`/v1/tables/${$("tables").value}/draws`, { method: "POST", body: "{}", headers: JSON_HEADERS })));
$("seats").addEventListener("click", async () => render(await api(`/v1/tables/${$("tables").value}/seats`, { method: "POST" })));
refresh();
