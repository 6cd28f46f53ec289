// Drawing a board of any rows x cols: heat map colours, shot marks, ships, the suggested cell.
"use strict";

const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

function cellName(r, c) { return LETTERS[r] + (c + 1); }

function boardShape(state) {
  // Square boards say "size"; a rectangular board's state says "rows" and "cols".
  return { rows: state.rows ?? state.size, cols: state.cols ?? state.size };
}

function heatColor(p) {
  // White (0) through yellow to red (1).
  const t = Math.max(0, Math.min(1, p));
  const g = Math.round(255 - 190 * t), b = Math.round(255 - 255 * Math.min(1, 2 * t));
  return `rgb(255, ${g}, ${b})`;
}

// opts: state (rows/cols/shots), cells (marginals or null), suggest {row,col}, selected {row,col},
// volley [{row,col}] dashed (the rest of a volley), ships [{row,col,length,horizontal}] drawn solid, hidden [...] outlined (the hidden layout of a replay),
// onClick(r, c), drag {canDrag(r, c), start(r, c), drop(r, c)} (cells that can be dragged, and where), id prefix for cells.
function drawBoard(el, opts) {
  const { rows, cols } = boardShape(opts.state);
  el.innerHTML = "";
  el.style.gridTemplateColumns = `1.6em repeat(${cols}, var(--cell))`;
  const shots = new Map();
  for (const s of opts.state.shots || []) shots.set(s.row * cols + s.col, s);
  const covered = (placements) => {
    const out = new Set();
    for (const p of placements || []) for (let k = 0; k < p.length; k++) out.add((p.row + (p.horizontal ? 0 : k)) * cols + p.col + (p.horizontal ? k : 0));
    return out;
  };
  const shipCells = covered(opts.ships), hiddenCells = covered(opts.hidden);
  // Colours are relative to the most likely unshot cell, so that a flat early board still shows its shape.
  let top = 0;
  if (opts.cells) for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) if (!shots.has(r * cols + c)) top = Math.max(top, opts.cells[r][c]);
  el.appendChild(document.createElement("span"));
  for (let c = 0; c < cols; c++) {
    const h = document.createElement("span"); h.className = "label"; h.textContent = c + 1; el.appendChild(h);
  }
  for (let r = 0; r < rows; r++) {
    const l = document.createElement("span"); l.className = "label"; l.textContent = LETTERS[r]; el.appendChild(l);
    for (let c = 0; c < cols; c++) {
      const d = document.createElement("button");
      d.type = "button";
      d.className = "cell";
      d.id = `${opts.id}-${r}-${c}`;
      d.title = cellName(r, c);
      const shot = shots.get(r * cols + c);
      if (shipCells.has(r * cols + c)) d.classList.add("ship");
      if (hiddenCells.has(r * cols + c)) d.classList.add("hidden-ship");
      if (shot) {
        d.classList.add(shot.result);
        d.textContent = shot.result === "miss" ? "·" : shot.result === "sunk" ? "#" : "X";
      } else if (opts.cells) {
        const p = opts.cells[r][c];
        d.style.background = heatColor(top > 0 ? p / top : 0);
        d.textContent = p >= 0.995 ? "100" : p < 0.005 ? "" : Math.round(100 * p);
      }
      if (opts.suggest && opts.suggest.row === r && opts.suggest.col === c) d.classList.add("suggest");
      if ((opts.volley || []).some((v) => v.row === r && v.col === c)) d.classList.add("volley");
      if (opts.selected && opts.selected.row === r && opts.selected.col === c) d.classList.add("selected");
      if (opts.onClick) d.addEventListener("click", () => opts.onClick(r, c));
      else d.disabled = true;
      if (opts.drag) {
        d.draggable = opts.drag.canDrag(r, c);
        d.addEventListener("dragstart", (e) => { e.dataTransfer.setData("text/plain", d.id); opts.drag.start(r, c); });
        d.addEventListener("dragover", (e) => e.preventDefault());
        d.addEventListener("drop", (e) => { e.preventDefault(); opts.drag.drop(r, c); });
      }
      el.appendChild(d);
    }
  }
}

// JSON in and out of the API; an error answer becomes an Error carrying the server's one line. A call that
// takes a while shows "computing…" with the engine's progress, and Cancel stops it on the server too.
let pending = null;
async function api(path, body) {
  const busy = document.getElementById("busy");
  const controller = new AbortController();
  const job = Math.random().toString(36).slice(2) + Date.now().toString(36);
  pending = { controller, job };
  let poller = null;
  const timer = setTimeout(() => {
    busy.hidden = false;
    poller = setInterval(async () => {
      try {
        const answer = await fetch(`/api/progress?job=${job}`);
        if (!answer.ok) return;
        const p = await answer.json();
        document.getElementById("busy-done").textContent = p.fraction == null ? "" : `${Math.round(100 * p.fraction)}%`;
      } catch (e) { /* the call ended meanwhile */ }
    }, 250);
  }, 300);
  try {
    const headers = { "X-Battlelog-Job": job };
    const init = body === undefined ? { headers, signal: controller.signal }
      : { method: "POST", headers: { ...headers, "Content-Type": "application/json" }, body: JSON.stringify(body), signal: controller.signal };
    const response = await fetch(path, init);
    const data = await response.json();
    if (!response.ok) throw new Error(data.error || `HTTP ${response.status}`);
    return data;
  } catch (e) {
    if (e.name === "AbortError") throw new Error("cancelled");
    throw e;
  } finally {
    clearTimeout(timer);
    if (poller) clearInterval(poller);
    busy.hidden = true;
    document.getElementById("busy-done").textContent = "";
    if (pending && pending.job === job) pending = null;
  }
}

function cancelPending() {
  if (!pending) return;
  const { controller, job } = pending;
  fetch("/api/cancel", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ job }) })
    .catch(() => {}).finally(() => controller.abort());
}
