// The page: three views (advise, play, results) over the JSON API; no other host is ever asked.
"use strict";

const $ = (id) => document.getElementById(id);

function boardJson(prefix) {
  // A game state without shots (the file format) from a setup form: a size (10) or rows x cols (8x12).
  const ships = $(`${prefix}-ships`).value.split(",").map((s) => s.trim()).filter((s) => s).map(Number);
  const shape = $(`${prefix}-size`).value.trim().match(/^(\d+)\s*[x×]\s*(\d+)$/i);
  const state = shape ? { rows: Number(shape[1]), cols: Number(shape[2]), ships } : { size: Number($(`${prefix}-size`).value), ships };
  const touch = $(`${prefix}-touch`).value, sinks = $(`${prefix}-sinks`).value, salvo = $(`${prefix}-salvo`).value;
  const rules = {};
  if (touch !== "allowed") rules.touch = touch;
  if (sinks !== "named") rules.sinks = sinks;
  if (salvo !== "1") rules.salvo = salvo === "ships" ? "ships" : Number(salvo);
  if (Object.keys(rules).length) state.rules = rules;
  state.shots = [];
  return state;
}

function salvoRule(state) { return (state.rules && state.rules.salvo) || 1; }

function show(view) {
  for (const tab of document.querySelectorAll(".tab")) tab.classList.toggle("active", tab.dataset.view === view);
  for (const section of document.querySelectorAll(".view")) section.hidden = section.id !== `view-${view}`;
}

function fillSelect(el, values, chosen) {
  el.innerHTML = "";
  for (const v of values) {
    const o = document.createElement("option"); o.value = v; o.textContent = v; o.selected = v === chosen; el.appendChild(o);
  }
}

// ----- advise ------------------------------------------------------------------------------------
const advise = { state: null, answer: null, selected: null };

function afloat(state) {
  const sunk = new Set(state.shots.filter((s) => s.result === "sunk" && s.ship != null).map((s) => s.ship));
  return state.ships.map((length, ship) => ({ ship, length })).filter((s) => !sunk.has(s.ship));
}

function sinksRule(state) { return (state.rules && state.rules.sinks) || "named"; }

function drawAdvice() {
  const { state, answer } = advise;
  const target = advise.selected || (answer && answer.suggest);
  const volley = answer && answer.volley;
  drawBoard($("advise-board"), {
    id: "advise", state, cells: answer && answer.cells, suggest: answer && answer.suggest, selected: advise.selected,
    volley: volley ? volley.cells.slice(1) : [],
    onClick: (r, c) => { advise.selected = { row: r, col: c }; drawAdvice(); },
  });
  $("advise-cell").textContent = target ? cellName(target.row, target.col) : "–";
  const buttons = $("advise-answers");
  buttons.innerHTML = "";
  const add = (text, id, result, ship) => {
    const b = document.createElement("button"); b.textContent = text; b.id = id;
    b.disabled = !target; b.addEventListener("click", () => answerShot(result, ship)); buttons.appendChild(b);
  };
  if (answer && answer.suggest === null) {
    const volleys = new Set(state.shots.map((s) => s.volley)).size;
    $("advise-status").textContent = salvoRule(state) !== 1
      ? `Every ship is sunk after ${volleys} volleys (${state.shots.length} shots).` : `Every ship is sunk after ${state.shots.length} shots.`;
    return;
  }
  add("Miss", "answer-miss", "miss"); add("Hit", "answer-hit", "hit");
  const sinks = sinksRule(state);
  if (sinks === "named") for (const s of afloat(state)) add(`Sunk ship ${s.ship} (${s.length})`, `answer-sunk-${s.ship}`, "sunk", s.ship);
  if (sinks === "unnamed") add("Sunk", "answer-sunk", "sunk");
  const left = answer && answer.models != null ? `${answer.models.toLocaleString("en")} layouts fit your answers. ` : "";
  const ships = sinks === "named" ? `Afloat: ${afloat(state).map((s) => s.length).join(", ")}. ` : "";
  let suggest = answer && answer.suggest
    ? `Suggested shot: ${cellName(answer.suggest.row, answer.suggest.col)} (${(100 * answer.cells[answer.suggest.row][answer.suggest.col]).toFixed(1)}% chance of a hit).` : "";
  if (volley) {
    const done = state.shots.filter((s) => s.volley === volley.volley).length;
    suggest += ` Volley ${volley.volley + 1}, shot ${done + 1}: fire ${volley.cells.map((c) => cellName(c.row, c.col)).join(", ")}, answered in this order.`;
  }
  $("advise-status").textContent = `${state.shots.length} shots. ${left}${ships}${suggest}`;
}

async function adviseOn(state) {
  // Ask for the heat map of `state`; the game changes only if the server accepts it.
  $("advise-error").textContent = "";
  try {
    const answer = await api("/api/marginals", state);
    Object.assign(advise, { state, answer, selected: null });
  } catch (e) {
    $("advise-error").textContent = `Refused: ${e.message}`;
  }
  drawAdvice();
}

function answerShot(result, ship) {
  const cell = advise.selected || advise.answer.suggest;
  const shot = { row: cell.row, col: cell.col, result };
  if (ship !== undefined) shot.ship = ship;
  if (advise.answer.volley) shot.volley = advise.answer.volley.volley;
  adviseOn({ ...advise.state, shots: [...advise.state.shots, shot] });
}

function setupAdvise() {
  $("advise-setup").addEventListener("submit", (e) => { e.preventDefault(); adviseOn(boardJson("advise")); });
  $("advise-undo").addEventListener("click", () => {
    if (advise.state && advise.state.shots.length) adviseOn({ ...advise.state, shots: advise.state.shots.slice(0, -1) });
  });
  $("advise-reset").addEventListener("click", () => advise.state && adviseOn({ ...advise.state, shots: [] }));
  $("advise-save").addEventListener("click", () => {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([JSON.stringify(advise.state) + "\n"], { type: "application/json" }));
    a.download = "battlelog-game.json"; a.click();
  });
  $("advise-load").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    if (!file) return;
    let state;
    try { state = JSON.parse(await file.text()); } catch (err) { $("advise-error").textContent = `Refused: ${file.name} is not JSON`; return; }
    adviseOn(state);
  });
  adviseOn(boardJson("advise"));
}

// ----- start ---------------------------------------------------------------------------------------
async function start() {
  for (const tab of document.querySelectorAll(".tab")) tab.addEventListener("click", () => show(tab.dataset.view));
  $("cancel").addEventListener("click", cancelPending);
  const options = await api("/api/options");
  for (const el of document.querySelectorAll("select.touch")) fillSelect(el, options.touch, "allowed");
  for (const el of document.querySelectorAll("select.sinks")) fillSelect(el, options.sinks, "named");
  for (const el of document.querySelectorAll("select.salvo")) fillSelect(el, ["1", "2", "3", "4", "5", "ships"], "1");
  fillSelect($("play-player"), options.players, "problog");
  $("tab-results").hidden = !options.results;
  setupAdvise();
  setupPlay();
  if (options.results) setupResults();
}

document.addEventListener("DOMContentLoaded", start);
