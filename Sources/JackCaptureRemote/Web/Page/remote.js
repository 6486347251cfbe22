// jcap's browser remote. The page only shows what jcap sends and sends what is tapped: every
// decision (may this track be armed now? is this stop confirmed?) is jcap's, and its refusals
// are shown as they come. No framework, no build step.
"use strict";

const LOWEST_DB = -60;            // the console's meter scale: -60 to 0 dBFS
const STOP_HOLD_MS = 1000;        // holding Stop this long stops without a question
const MARKS = [["circled", "Circled"], ["false-start", "False start"], ["no-good", "No good"]];

const $ = (id) => document.getElementById(id);
let socket = null;
let state = null;
let trackNames = "";
let messageTimer = null;

// Whether the command went (not while the connection is down).
function send(command) {
  if (socket && socket.readyState === WebSocket.OPEN) {
    socket.send(JSON.stringify(command));
    return true;
  }
  say("Not connected to jcap", true);
  return false;
}

function say(text, refused) {
  const line = $("message");
  line.textContent = text;
  line.className = "message" + (refused ? " refused" : "");
  clearTimeout(messageTimer);
  messageTimer = setTimeout(() => { line.textContent = ""; }, refused ? 8000 : 4000);
}

// MARK: the connection

function connect() {
  const token = new URLSearchParams(location.search).get("token");
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  // The cookie set with the page carries the token; the URL's, when there, too.
  socket = new WebSocket(`${scheme}//${location.host}/ws` + (token ? `?token=${encodeURIComponent(token)}` : ""));
  socket.onopen = () => { $("link").textContent = "connected"; $("link").className = "link up"; };
  socket.onclose = () => {
    $("link").textContent = "reconnecting…"; $("link").className = "link down";
    document.body.dataset.mode = "connecting";
    setTimeout(connect, 1000);
  };
  socket.onmessage = (event) => {
    let message;
    try { message = JSON.parse(event.data); } catch { return; }
    if (message.type === "state") showState(message);
    else if (message.type === "takes") showTakes(message.takes);
    else if (message.type === "events") for (const told of message.events) say(told.text, told.kind === "refused");
  };
}

// MARK: the state

function clock(seconds) {
  const tenths = Math.floor(seconds * 10);
  const h = Math.floor(tenths / 36000), m = Math.floor(tenths / 600) % 60, s = Math.floor(tenths / 10) % 60;
  return `${h}:${String(m).padStart(2, "0")}:${String(s).padStart(2, "0")}.${tenths % 10}`;
}

function span(seconds) {
  if (seconds == null) return "–";
  if (seconds >= 3600) return `${Math.floor(seconds / 3600)} h ${Math.floor(seconds / 60) % 60} min`;
  if (seconds >= 60) return `${Math.floor(seconds / 60)} min`;
  return `${Math.floor(seconds)} s`;
}

function showState(s) {
  state = s;
  document.body.dataset.mode = s.mode;
  $("session").textContent = s.session || "jcap";
  document.title = `${s.session || "jcap"} · jcap remote`;
  const recording = s.take != null;
  $("take-label").textContent = recording ? "Take" : "Next take";
  $("take").textContent = recording ? s.take : (s.nextTake ?? "–");
  $("mode").textContent = s.mode;
  $("timer").textContent = clock(recording ? s.seconds : 0);
  $("disk").textContent = span(s.diskSecondsLeft);
  $("xruns").textContent = s.xruns;
  $("xruns").className = s.xruns > 0 ? "bad" : "";
  $("lost").textContent = s.lostFrames;
  $("lost").className = s.lostFrames > 0 ? "bad" : "";
  $("pause").textContent = s.mode === "paused" ? "▶ Resume" : "❚❚ Pause";

  const question = $("question");
  if (s.pendingStop != null) {
    question.hidden = false;
    question.dataset.asks = "stop";
    $("question-text").textContent = `Stop take ${s.pendingStop}?`;
  } else if (s.pendingDiscard != null) {
    question.hidden = false;
    question.dataset.asks = "discard";
    $("question-text").textContent = `Discard take ${s.pendingDiscard}? Its files are deleted.`;
  } else {
    question.hidden = true;
    question.dataset.asks = "";
  }
  showTracks(s.tracks);
}

function position(db) {
  return Math.max(0, Math.min(100, (db - LOWEST_DB) / -LOWEST_DB * 100));
}

function showTracks(tracks) {
  const names = tracks.map((t) => t.name).join("\n");
  const list = $("tracks");
  if (names !== trackNames) {
    trackNames = names;
    list.replaceChildren(...tracks.map(makeTrack));
  }
  tracks.forEach((track, index) => {
    const row = list.children[index];
    row.classList.toggle("armed", track.armed);
    row.classList.toggle("dead", track.dead != null);
    row.querySelector(".arm").setAttribute("aria-pressed", String(track.armed));
    row.querySelector(".rms").style.clipPath = `inset(0 ${100 - position(track.average)}% 0 0)`;
    row.querySelector(".pk").style.clipPath = `inset(0 ${100 - position(track.peak)}% 0 0)`;
    row.querySelector(".holdmark").style.left = `calc(${position(track.hold)}% - 2px)`;
    const peak = row.querySelector(".peak");
    const text = track.peak <= -159.5 ? "-inf" : track.peak.toFixed(1);
    peak.textContent = text;
    peak.dataset.peak = track.peak.toFixed(1);
    row.querySelector(".clip").classList.toggle("on", track.clipped);
    row.title = track.dead === "unpatched" ? "Its source is not connected" : track.dead === "silent" ? "Silent while others are not" : "";
  });
}

function makeTrack(track, index) {
  const row = document.createElement("div");
  row.className = "track";
  row.dataset.track = track.name;
  row.innerHTML = `<div class="name"><button class="arm" type="button" title="Arm or disarm (between takes)">${index + 1}</button><span></span></div>
    <div class="meter"><div class="level pk"></div><div class="level rms"></div><div class="holdmark"></div></div>
    <div class="readout"><span class="peak" id="peak-${index}" data-peak="">–</span><span class="clip">CLIP</span></div>`;
  row.querySelector(".name span").textContent = track.name;
  row.querySelector(".arm").addEventListener("click", () => {
    const armed = row.classList.contains("armed");
    send({ command: armed ? "disarm" : "arm", track: track.name });
  });
  row.querySelector(".clip").addEventListener("click", () => send({ command: "clearClips" }));
  return row;
}

// MARK: the take list

function showTakes(takes) {
  const list = $("takes");
  const active = document.activeElement;
  const editing = active && active.classList.contains("note") ? active.closest(".take") : null;
  const rows = takes.map((take) => {
    if (!editing || String(take.take) !== editing.dataset.take) return makeTake(take);
    // The row whose note is being typed: redrawn in place but for its note field.
    const fresh = makeTake(take);
    for (const part of [".take-head", ".marks", ".files"]) editing.querySelector(part).replaceWith(fresh.querySelector(part));
    return editing;
  });
  const at = rows.indexOf(editing);
  // That row stays in the document while the others are redrawn around it: taken out and put
  // back, it would lose its focus, and Enter would then send nothing.
  for (const child of [...list.children]) if (child !== editing || at < 0) child.remove();
  if (takes.length === 0) {
    list.innerHTML = `<p class="empty">No take yet.</p>`;
  } else if (at < 0) {
    list.append(...rows);
  } else {
    editing.before(...rows.slice(0, at));
    editing.after(...rows.slice(at + 1));
  }
}

function makeTake(take) {
  const row = document.createElement("div");
  row.className = "take";
  row.dataset.take = take.take;
  const time = take.time ? new Date(take.time).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" }) : "";
  const peak = take.peak == null ? "–" : `${take.peak.toFixed(1)} dBFS`;
  row.innerHTML = `<div class="take-head">
      <span class="number"></span><span class="detail length"></span><span class="detail time"></span>
      <span class="detail peakdb"></span><span class="detail lost"></span><span class="status"></span></div>
    <div class="marks"></div>
    <input class="note" type="text" maxlength="1000" placeholder="Note" aria-label="Note">
    <div class="files"></div>`;
  row.querySelector(".number").textContent = `Take ${take.take}`;
  // A take still recording has no length in the log yet: the timer above shows it.
  row.querySelector(".length").textContent = take.status === "recording" ? "" : clock(take.seconds);
  row.querySelector(".time").textContent = time;
  row.querySelector(".peakdb").textContent = `peak ${peak}`;
  const lost = row.querySelector(".lost");
  lost.textContent = `lost ${take.lostFrames}`;
  if (take.lostFrames > 0) lost.classList.add("lostbad");
  row.querySelector(".status").textContent = take.status === "complete" ? "" : take.status;
  const marks = row.querySelector(".marks");
  for (const [mark, label] of MARKS) {
    const button = document.createElement("button");
    button.type = "button";
    button.dataset.mark = mark;
    button.textContent = label;
    button.classList.toggle("on", take.mark === mark);
    button.setAttribute("aria-pressed", String(take.mark === mark));
    // Tapping the mark a take has clears it.
    button.addEventListener("click", () => send({ command: "mark", take: take.take, mark: take.mark === mark ? "" : mark }));
    marks.append(button);
  }
  const note = row.querySelector(".note");
  note.value = take.note || "";
  // Sent when the field is left (Enter leaves it), if it differs from what was last sent: on
  // leaving, not on "change", which a field focused again after its text was typed never fires.
  let sent = note.value;
  const save = () => {
    if (note.value !== sent && send({ command: "note", take: take.take, text: note.value })) sent = note.value;
  };
  note.addEventListener("blur", save);
  note.addEventListener("keydown", (event) => { if (event.key === "Enter") note.blur(); });
  const files = row.querySelector(".files");
  for (const file of take.files) {
    const link = document.createElement("a");
    link.href = `/takes/${take.take}/${file.index}`;
    link.textContent = file.name;
    link.setAttribute("download", file.name);
    files.append(link);
  }
  return row;
}

// MARK: the buttons

// The scale above the meters, each mark at its place on the console's -60 to 0 dBFS scale.
function drawScale() {
  const scale = $("scale");
  for (const db of [-60, -48, -36, -24, -12, 0]) {
    const mark = document.createElement("span");
    mark.textContent = String(db);
    if (db === -48 || db === -24) mark.className = "minor";
    mark.style.left = `${position(db)}%`;
    scale.append(mark);
  }
}

function setUp() {
  drawScale();
  $("record").addEventListener("click", () => send({ command: "record" }));
  $("pause").addEventListener("click", () => send({ command: state && state.mode === "paused" ? "resume" : "pause" }));
  $("discard").addEventListener("click", () => send({ command: "discardLastTake" }));
  $("clear-clips").addEventListener("click", () => send({ command: "clearClips" }));
  $("confirm-yes").addEventListener("click", () => answer(true));
  $("confirm-no").addEventListener("click", () => answer(false));

  // Stop is protected against a stray tap: a tap asks (jcap's question, answered with Yes), and
  // holding it for a second stops without the question.
  const stop = $("stop");
  let held = null;
  const release = () => {
    if (held == null) return;
    clearTimeout(held.timer);
    stop.classList.remove("holding");
    if (!held.done) send({ command: "requestStop" });
    held = null;
  };
  stop.addEventListener("pointerdown", (event) => {
    event.preventDefault();
    stop.classList.add("holding");
    held = { done: false, timer: setTimeout(() => {
      held.done = true;
      stop.classList.remove("holding");
      send({ command: "requestStop" });
      send({ command: "confirmStop", yes: true });
    }, STOP_HOLD_MS) };
  });
  stop.addEventListener("pointerup", release);
  // Sliding off the button (or the browser taking the touch for a scroll) lets go without asking.
  const abandon = () => { if (held && !held.done) { clearTimeout(held.timer); stop.classList.remove("holding"); held = null; } };
  stop.addEventListener("pointerleave", abandon);
  stop.addEventListener("pointercancel", abandon);
  stop.addEventListener("keydown", (event) => { if (event.key === "Enter" || event.key === " ") send({ command: "requestStop" }); });
  connect();
}

function answer(yes) {
  const asks = $("question").dataset.asks;
  if (asks === "stop") send({ command: "confirmStop", yes });
  else if (asks === "discard") send({ command: "confirmDiscard", yes });
}

setUp();
