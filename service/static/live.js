// Live view: the server camera (MJPEG + events) or the phone camera (frames over a WebSocket).
header("live");
const $ = id => document.getElementById(id);
let socket = null, stream = null;
keepSwitch($("keep"));  // read when the phone camera starts: the server keeps each newly stable hand's frame

function showStable(result) {
  const score = result.score || {};
  $("stable").hidden = false;
  $("tai").innerHTML = (score.patterns || []).map(p => `<li><span>${esc(p.name)}</span><span>${esc(p.tai)}</span></li>`).join("") || `<li class="error">${esc(score.error ? score.error.message : "")}</li>`;
  $("total").textContent = score.total ?? "—";
  showWarningLines($("warnings"), result.warnings);  // a flower that could be another is worth a look at the table
  toast(`${t("total")}: ${score.total ?? "—"}`);
  showKept(result.saved_for_training);
}

wireConfirm();

$("use-server").addEventListener("click", () => {
  $("server-view").hidden = false; $("phone-view").hidden = true;
  $("server-view").src = withToken("/v1/camera.mjpeg");
  const events = new EventSource(withToken("/v1/camera/events"));
  events.addEventListener("hand", e => showStable(JSON.parse(e.data)));
  events.addEventListener("status", e => { $("status").textContent = JSON.parse(e.data).status; });
  events.onerror = () => { $("status").textContent = "no server camera (taicam serve --camera 0)"; };
});

$("use-phone").addEventListener("click", async () => {
  if (!navigator.mediaDevices || !navigator.mediaDevices.getUserMedia) { $("status").textContent = t("https_note"); return; }
  try { stream = await navigator.mediaDevices.getUserMedia({ video: { facingMode: "environment", width: 1280, height: 720 } }); }
  catch (error) { $("status").textContent = error.message; return; }
  const video = $("phone-view"); video.srcObject = stream; video.hidden = false; $("server-view").hidden = true; await video.play();
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const keep = $("keep").checked ? "&save_for_training=true" : "";
  socket = new WebSocket(withToken(`${scheme}://${location.host}/v1/live?lang=${encodeURIComponent(lang)}${keep}`));
  socket.binaryType = "arraybuffer";
  socket.onmessage = event => {
    const message = JSON.parse(event.data);
    if (message.error) { $("status").textContent = message.error.message; }
    else { $("status").textContent = `${message.detections.length} tiles · ${message.ms} ms`; if (message.stable) showStable(message.stable); }
    sendFrame();
  };
  socket.onopen = sendFrame;
});

function sendFrame() {
  // One frame in flight at a time: the next goes when the answer arrives.
  const video = $("phone-view"), canvas = $("grab");
  if (!socket || socket.readyState !== WebSocket.OPEN || !video.videoWidth) return;
  canvas.width = video.videoWidth; canvas.height = video.videoHeight;
  canvas.getContext("2d").drawImage(video, 0, 0);
  canvas.toBlob(blob => blob && blob.arrayBuffer().then(buffer => socket.send(buffer)), "image/jpeg", 0.8);
}
