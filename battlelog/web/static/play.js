// A game against the computer: place your fleet, then alternate shots until one fleet is sunk.
"use strict";

const play = { board: null, fleet: [], horizontal: true, game: null, view: null, heat: null, volley: [] };

function fleetCells(fleet, cols) {
  const out = new Set();
  for (const p of fleet) for (let k = 0; k < p.length; k++) out.add((p.row + (p.horizontal ? 0 : k)) * cols + p.col + (p.horizontal ? k : 0));
  return out;
}

function drawPlay() {
  const board = play.board;
  const v = play.view;
  const over = v && v.winner;
  drawBoard($("play-theirs"), {
    id: "theirs", state: v ? v.you : board, ships: over ? v.reveal : [], volley: play.volley,
    onClick: v && !over ? (r, c) => shootAt(r, c) : null,
  });
  drawBoard($("play-mine"), {
    id: "mine", state: v ? v.computer : board, ships: v ? v.fleet : play.fleet, cells: v && $("play-heat").checked ? play.heat : null,
    onClick: v ? null : (r, c) => placeAt(r, c),
    drag: v ? null : { canDrag: (r, c) => shipAt(r, c) >= 0, start: dragStart, drop: dropAt },
  });
  $("play-placing").hidden = !!v;
  const next = play.fleet.length < board.ships.length ? board.ships[play.fleet.length] : null;
  $("play-place-status").textContent = next === null ? "Your fleet is placed: start the game."
    : `Click your board to place ship ${play.fleet.length} (length ${next}), ${play.horizontal ? "horizontal" : "vertical"}; or take a random fleet.`;
  if (play.fleet.length) $("play-place-status").textContent += " Drag a placed ship to move it.";
  $("play-start").disabled = false;
  if (!v) { $("play-status").textContent = ""; return; }
  const yours = v.you.shots.length, its = v.computer.shots.length;
  const won = `${v.winner === "you" ? "You won" : "The computer won"}: `;
  if (v.salvo) {
    const counts = `you fired ${v.salvo.you} volleys (${yours} shots), the computer ${v.salvo.computer} (${its} shots).`;
    $("play-status").textContent = over ? won + counts
      : `Your volley: pick ${v.salvo.next} cells (${play.volley.length} picked; click a picked cell to drop it). So far ${counts}`;
  } else {
    $("play-status").textContent = over
      ? `${won}you shot ${yours} times, the computer ${its} times.`
      : `Your turn. You have shot ${yours} times, the computer ${its} times.`;
  }
  if (v.chances && !over) $("play-status").textContent += " " + chanceText(v.chances);
  $("play-status").className = over ? "status over" : "status";
}

// Each side's live chance to win (exact for greedy in both places on small boards, else estimated; docs/web.md).
function chanceText(chances) {
  const pct = (p) => `${Math.round(100 * p)}%`;
  const how = chances.method === "exact" ? "exact" : "estimated";
  return `Chance to win: you ${pct(chances.you)}, the computer ${pct(chances.computer)} (${how}).`;
}

function fits(p, others) {
  // Whether placement p lies on the board without overlapping the `others` (the server checks the touch rule).
  const { rows, cols } = boardShape(play.board);
  if (p.row < 0 || p.col < 0 || (p.horizontal ? p.col + p.length > cols || p.row >= rows : p.row + p.length > rows || p.col >= cols)) return false;
  const taken = fleetCells(others, cols);
  return ![...fleetCells([p], cols)].some((x) => taken.has(x));
}

function placeAt(r, c) {
  const board = play.board;
  if (play.fleet.length >= board.ships.length) return;
  const length = board.ships[play.fleet.length];
  const p = { ship: play.fleet.length, length, row: r, col: c, horizontal: play.horizontal };
  if (!fits(p, play.fleet)) {
    $("play-error").textContent = "That ship does not fit there.";
    return;
  }
  $("play-error").textContent = "";
  play.fleet.push(p);
  drawPlay();
}

// Dragging a placed ship: the cell it is held by lands on the cell it is dropped on, in the same direction.
const dragging = { ship: -1, offset: 0 };

function shipAt(r, c) {
  const { cols } = boardShape(play.board);
  return play.fleet.findIndex((p) => fleetCells([p], cols).has(r * cols + c));
}

function dragStart(r, c) {
  dragging.ship = shipAt(r, c);
  const p = play.fleet[dragging.ship];
  dragging.offset = p ? (p.horizontal ? c - p.col : r - p.row) : 0;
}

function dropAt(r, c) {
  const p = play.fleet[dragging.ship];
  dragging.ship = -1;
  if (!p) return;
  const moved = { ...p, row: p.horizontal ? r : r - dragging.offset, col: p.horizontal ? c - dragging.offset : c };
  if (!fits(moved, play.fleet.filter((q) => q.ship !== p.ship))) {
    $("play-error").textContent = "That ship does not fit there.";
    return;
  }
  $("play-error").textContent = "";
  play.fleet[p.ship] = moved;
  drawPlay();
}

async function startGame() {
  $("play-error").textContent = "";
  const body = { board: play.board, player: $("play-player").value };
  if (play.fleet.length === play.board.ships.length) body.fleet = play.fleet;
  try {
    const answer = await api("/api/play/new", body);
    play.game = answer.game; play.view = answer; play.heat = null; play.volley = [];
  } catch (e) { $("play-error").textContent = `Refused: ${e.message}`; }
  drawPlay();
}

async function shootAt(r, c) {
  $("play-error").textContent = "";
  let body = { game: play.game, row: r, col: c };
  if (play.view.salvo) {
    // Under salvo a click picks a cell of the volley (or drops it); the volley goes once it is whole.
    const at = play.volley.findIndex((p) => p.row === r && p.col === c);
    if (at >= 0) play.volley.splice(at, 1);
    else if (!play.view.you.shots.some((s) => s.row === r && s.col === c)) play.volley.push({ row: r, col: c });
    if (play.volley.length < play.view.salvo.next) { drawPlay(); return; }
    body = { game: play.game, cells: play.volley };
    play.volley = [];
  }
  try {
    play.view = await api("/api/play/shoot", body);
    if ($("play-heat").checked) await loadHeat();
  } catch (e) { $("play-error").textContent = `Refused: ${e.message}`; }
  drawPlay();
}

async function loadHeat() {
  play.heat = (await api("/api/play/heat", { game: play.game })).cells;
}

function resetPlay() {
  Object.assign(play, { board: boardJson("play"), fleet: [], game: null, view: null, heat: null, volley: [] });
  drawPlay();
}

function setupPlay() {
  for (const id of ["play-size", "play-ships", "play-touch", "play-sinks", "play-salvo"]) $(id).addEventListener("change", resetPlay);
  $("play-rotate").addEventListener("click", () => { play.horizontal = !play.horizontal; drawPlay(); });
  document.addEventListener("keydown", (e) => {
    if ((e.key === "r" || e.key === "R") && !$("view-play").hidden && !play.view) { play.horizontal = !play.horizontal; drawPlay(); }
  });
  $("play-clear").addEventListener("click", () => { play.fleet = []; drawPlay(); });
  $("play-random").addEventListener("click", () => { play.fleet = []; startGame(); });
  $("play-start").addEventListener("click", startGame);
  $("play-heat").addEventListener("change", async () => {
    if ($("play-heat").checked && play.game) {
      try { await loadHeat(); } catch (e) { $("play-error").textContent = `Refused: ${e.message}`; }
    }
    drawPlay();
  });
  resetPlay();
}
