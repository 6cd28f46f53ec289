// The Ask panel: a BattleshipQA board (from serve --boards), cells revealed by clicking, a question in
// Rothe et al.'s language answered exactly by /api/ask (its answers, entropy and EIG), answers recorded as
// evidence for the next question, and the heat map of /api/ask/cells. The state lives in the page.
"use strict";

const ask = { boards: [], board: null, revealed: new Set(), answers: [], last: null };

function askEl(id) { return document.getElementById(id); }

function askState() {
  // The question-asking state (docs/questions.md) of what the page shows: hidden cells H, revealed ones as the truth says.
  const b = ask.board;
  const rows = b.truth.map((line, r) => line.split(",").map((s, c) => (ask.revealed.has(r * b.cols + c) ? s : "H")).join(","));
  const noise = Number(askEl("ask-noise").value);
  return { ships: b.ships.map((name) => ({ name })), lengths: b.lengths, board: rows, answers: ask.answers, noise };
}

function askDraw(cells) {
  const b = ask.board;
  const shots = [];
  for (const cell of ask.revealed) {
    const r = Math.floor(cell / b.cols), c = cell % b.cols;
    shots.push({ row: r, col: c, result: b.truth[r].split(",")[c] === "W" ? "miss" : "hit" });
  }
  drawBoard(askEl("ask-board"), { state: { rows: b.rows, cols: b.cols, shots }, cells, id: "ask", onClick: askReveal });
  for (const s of shots) if (s.result === "hit") askEl(`ask-${s.row}-${s.col}`).textContent = b.truth[s.row].split(",")[s.col];
}

async function askRefresh() {
  // The heat map of the state; a state with too many layouts to list is said in one line, the board drawn bare.
  askEl("ask-recorded").textContent = ask.answers.length
    ? ask.answers.map((a) => `${a.question} → ${JSON.stringify(a.answer)}`).join("; ") : "none";
  askEl("ask-error").textContent = "";
  try {
    const heat = await api("/api/ask/cells", { state: askState() });
    askEl("ask-models").textContent = `${heat.models.toLocaleString()} layouts fit`;
    askDraw(heat.cells);
  } catch (e) {
    askEl("ask-models").textContent = "";
    askEl("ask-error").textContent = `Heat map: ${e.message}`;
    askDraw(null);
  }
}

function askReveal(r, c) {
  ask.revealed.add(r * ask.board.cols + c);
  askRefresh();
}

function askShow(result) {
  const out = askEl("ask-result");
  out.innerHTML = "";
  const caption = document.createElement("p");
  caption.innerHTML = "<b></b> over <span></span> layouts: entropy <span></span> bits, EIG <b></b> bits";
  const parts = caption.children;
  parts[0].textContent = result.question;
  parts[1].textContent = result.models.toLocaleString();
  parts[2].textContent = result.entropy.toFixed(4);
  parts[3].textContent = result.eig.toFixed(4);
  parts[3].id = "ask-eig";
  out.appendChild(caption);
  const table = document.createElement("table");
  table.className = "summary";
  table.innerHTML = "<tr><th>answer</th><th>chance</th><th></th></tr>";
  for (const a of result.answers) {
    const row = table.insertRow();
    row.insertCell().textContent = JSON.stringify(a.answer);
    row.insertCell().textContent = `${(100 * a.p).toFixed(2)}%`;
    const record = document.createElement("button");
    record.textContent = "Record this answer";
    record.className = "ask-record";
    record.addEventListener("click", () => askRecord(result.question, a.answer));
    row.insertCell().appendChild(record);
  }
  out.appendChild(table);
}

async function askQuestion() {
  const question = askEl("ask-program").value.trim();
  if (!question || !ask.board) return;
  askEl("ask-error").textContent = "";
  try {
    ask.last = question;
    askShow(await api("/api/ask", { state: askState(), question }));
  } catch (e) {
    askEl("ask-result").innerHTML = "";
    askEl("ask-error").textContent = `Refused: ${e.message}`;
  }
}

async function askRecord(question, answer) {
  // The answer becomes evidence; the question is asked again under it (its EIG is then what is left to learn).
  ask.answers = [...ask.answers, { question, answer }];
  await askRefresh();
  askEl("ask-program").value = question;
  await askQuestion();
}

function askNew() {
  ask.board = ask.boards.find((b) => b.name === askEl("ask-choice").value) || null;
  ask.revealed = new Set();
  ask.answers = [];
  askEl("ask-result").innerHTML = "";
  if (ask.board) askRefresh();
}

async function setupAsk() {
  try {
    ask.boards = (await api("/api/ask/boards")).boards;
  } catch (e) {
    askEl("ask-error").textContent = e.message;
    return;
  }
  askEl("ask-none").hidden = ask.boards.length > 0;
  fillSelect(askEl("ask-choice"), ask.boards.map((b) => b.name), ask.boards.length ? ask.boards[0].name : null);
  askEl("ask-setup").addEventListener("submit", (e) => { e.preventDefault(); askNew(); });
  askEl("ask-choice").addEventListener("change", askNew);
  askEl("ask-form").addEventListener("submit", (e) => { e.preventDefault(); askQuestion(); });
  askEl("ask-undo").addEventListener("click", () => { ask.answers = ask.answers.slice(0, -1); askRefresh(); });
  askNew();
}

// Started when the tab is first opened: a page that never asks costs the server nothing.
document.addEventListener("DOMContentLoaded", () => askEl("tab-ask").addEventListener("click", setupAsk, { once: true }));
