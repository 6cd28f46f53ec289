// Experiments under --results: summary tables, plots, and any game replayed with the exact heat map.
"use strict";

const replay = { frames: [], index: 0, layout: null };

function fileUrl(path) { return `/api/results/file?path=${encodeURIComponent(path)}`; }

async function openExperiment(path) {
  $("results-error").textContent = "";
  const detail = $("results-detail");
  try {
    const e = await api(`/api/results/experiment?path=${encodeURIComponent(path)}`);
    detail.innerHTML = "";
    const h = document.createElement("h2"); h.textContent = e.label; detail.appendChild(h);
    detail.appendChild(summaryTable(e.summary));
    for (const [title, table] of [["Distribution of shots (quantiles; chance to finish within k)", e.distribution],
                                  ["Head to head: the chance that A finishes first (A first, B first, alternating)", e.duel]]) {
      if (table.split("\n").length < 3) continue;  // a header alone: no games, or fewer than two players
      const h3 = document.createElement("h3"); h3.textContent = title; detail.appendChild(h3);
      detail.appendChild(summaryTable(table));
    }
    for (const plot of e.plots) { const img = document.createElement("img"); img.src = fileUrl(plot); img.alt = plot; detail.appendChild(img); }
    const list = document.createElement("div"); list.className = "games";
    for (const g of e.games.slice(0, 300)) {
      const b = document.createElement("button");
      b.textContent = `game ${g.game} ${g.player}: ${g.status === "ok" ? g.score : g.status}`;
      b.className = "game";
      b.disabled = g.status !== "ok";
      b.addEventListener("click", () => openReplay(path, g.game, g.player));
      list.appendChild(b);
    }
    detail.appendChild(list);
  } catch (err) { $("results-error").textContent = `Refused: ${err.message}`; }
}

function summaryTable(markdown) {
  // The summary's Markdown table as an HTML table (its second line only aligns the columns).
  const table = document.createElement("table"); table.className = "summary";
  const lines = markdown.trim().split("\n").filter((line, i) => i !== 1);
  lines.forEach((line, i) => {
    const tr = document.createElement("tr");
    for (const text of line.split("|").slice(1, -1)) {
      const cell = document.createElement(i === 0 ? "th" : "td"); cell.textContent = text.trim(); tr.appendChild(cell);
    }
    table.appendChild(tr);
  });
  return table;
}

async function openReplay(path, game, player) {
  $("results-error").textContent = "";
  try {
    const r = await api(`/api/results/replay?path=${encodeURIComponent(path)}&game=${game}&player=${encodeURIComponent(player)}`);
    Object.assign(replay, { frames: r.frames, index: 0, layout: r.layout });
    $("replay").hidden = false;
    $("replay-title").textContent = r.title;
    $("replay-slider").max = r.frames.length - 1;
    drawFrame();
    $("replay").scrollIntoView();
  } catch (err) { $("results-error").textContent = `Refused: ${err.message}`; }
}

function drawFrame() {
  const f = replay.frames[replay.index];
  $("replay-slider").value = replay.index;
  $("replay-caption").textContent = `${replay.index} / ${replay.frames.length - 1}: ${f.caption}`;
  drawBoard($("replay-board"), { id: "replay", state: f.state, cells: f.cells, suggest: f.next, hidden: replay.layout });
}

function step(to) { replay.index = Math.max(0, Math.min(replay.frames.length - 1, to)); drawFrame(); }

async function setupResults() {
  $("replay-first").addEventListener("click", () => step(0));
  $("replay-prev").addEventListener("click", () => step(replay.index - 1));
  $("replay-next").addEventListener("click", () => step(replay.index + 1));
  $("replay-last").addEventListener("click", () => step(replay.frames.length - 1));
  $("replay-slider").addEventListener("input", (e) => step(Number(e.target.value)));
  const index = await api("/api/results");
  const list = $("results-list");
  for (const e of index.experiments) {
    const li = document.createElement("li"); const a = document.createElement("a");
    a.href = "#"; a.textContent = `${e.path}: ${e.label}`; a.dataset.path = e.path;
    a.addEventListener("click", (ev) => { ev.preventDefault(); openExperiment(e.path); });
    li.appendChild(a); list.appendChild(li);
  }
  const plots = $("results-plots");
  for (const path of index.plots) {
    const li = document.createElement("li"); const a = document.createElement("a");
    a.href = "#"; a.textContent = path;
    a.addEventListener("click", (ev) => { ev.preventDefault(); showPlot(path); });
    li.appendChild(a); plots.appendChild(li);
  }
}

function showPlot(path) {
  const detail = $("results-detail");
  detail.innerHTML = "";
  const h = document.createElement("h2"); h.textContent = path; detail.appendChild(h);
  const img = document.createElement("img"); img.src = fileUrl(path); img.alt = path; detail.appendChild(img);
}
