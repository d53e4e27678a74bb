// Save the Treasure of Fairy Tales' board: whose turn and what to do, the box of squares
// (rows A-E, columns 1-5, as the buttons name them: grey and green meadow tiles, open
// squares showing their fairy-tale half or a blank side, the children's figures), the
// king's path with the king and his crown space, the children, and the book of pages.
// Drawn from the view alone, with renderers/treasure.py's colours, markers and letters.
// On a phone the king's path is a track under the box (the picture runs it around the
// box's wall); it keeps the picture's order: space 0 is the crown, the king walks on.
//
// Touches (each one a choice of the moment, from ctx.choices; the codes are those of
// bot/core/choices/treasure.py):
//   t<sq>   a meadow tile that can slide (the shell then shows its directions as a step)
//   g<sq>   a grey tile to turn green after a found page
//   w<dir>  the square next to the figure of the child to act, in that direction
//   y       the figure's own square: stay where it is
//   x       "Stop sliding": a button in the banner
// and, while a tile's step is open (ctx.step), its choices instead:
//   s<sq><dir>  the square next to the chosen tile in that direction, with an arrow
//               (the tile is outlined in gold, the banner says the step's question)
// One layout, 360 units wide, every text at least 10.5 units (9 CSS px from a 336 px wide
// board up); on a wide screen it is shown at most 560 px wide (app.css). Its height is
// fixed by the view's shape (the path's length, the number of children).
import { ownerMarker, ownerStyle, pts, shape } from './marks.js';
import { ensureSvg, fitText, measure, setTarget as markTarget, svg } from './svg.js';

const setTarget = (g, choice, st) => markTarget(g, choice, () => st.ctx, 'tr');

// From renderers/common.py (the colour-vision checked palette the pictures use).
const BG = '#313338';
const PANEL = '#2b2d31';
const PANEL_HI = '#3f4248';
const TEXT = '#f2f3f5';
const MUTED = '#b5bac1';
const INK = '#1e1f22';
const GOLD = '#ffcc08';
const GOLD_DARK = '#9e7700';
// From renderers/treasure.py.
const GREEN = '#5cc84e';
const GREEN_DARK = '#2e8b3a';
const GREY = '#a3a8b0';
const GREY_DARK = '#747982';
const WOOD = '#8b5e3c';
const WOOD_DARK = '#5a3b22';
const CREAM = '#fbf3e0';
const PATH_FREE = '#fff4d6';
const PATH_WALKED = '#8e7a5a';
const KING = '#9b59d6';
const WALL = '#3e6b3a';
const LOST = '#ff8a80';
// The tales' background colours, from data/treasure.json (picture.background).
const TALE_BG = {
  cinderella: '#b7e3ff', 'snow-white': '#ffe3ec', 'red-riding-hood': '#fff3c4', 'hansel-gretel': '#d7f5d0',
  'sleeping-beauty': '#ede1ff', rapunzel: '#cfefff', 'frog-prince': '#fff9c4', 'puss-in-boots': '#ffe0b2',
  'jack-beanstalk': '#e1f5fe', 'three-pigs': '#fce4ec', goldilocks: '#fff8e1', 'ugly-duckling': '#e0f7fa',
};
// ... and their picture's main colour (picture.color), the emblem beside the name.
const TALE_COLOR = {
  cinderella: '#4fa3e0', 'snow-white': '#e53935', 'red-riding-hood': '#d32f2f', 'hansel-gretel': '#b5733a',
  'sleeping-beauty': '#e91e63', rapunzel: '#9e9e9e', 'frog-prince': '#4caf50', 'puss-in-boots': '#6d4c41',
  'jack-beanstalk': '#388e3c', 'three-pigs': '#c62828', goldilocks: '#1e88e5', 'ugly-duckling': '#ff9800',
};
const TARGET = '#3b45c4'; // the touch outline: the shell's blurple, darkened to stand out on light squares
const MIN_FONT = 10.5;

const STEP = { u: [-1, 0], d: [1, 0], l: [0, -1], r: [0, 1] };
const ARROW_ANGLE = { u: 0, r: 90, d: 180, l: 270 };

/** This board's seat marker. */
function seatMarker(seat, cx, cy, r) {
  return ownerMarker(seat, cx, cy, r, { cls: 'tr-marker' });
}

/** An arrow pointing dir ('u', 'd', 'l', 'r') in the middle of a square of side s at (x, y). */
function arrow(x, y, s, dir) {
  const cx = x + s / 2;
  const cy = y + s / 2;
  const k = s * 0.2;
  const shaft = [[cx - k * 0.45, cy + k * 1.1], [cx - k * 0.45, cy], [cx - k * 1.1, cy], [cx, cy - k * 1.2],
    [cx + k * 1.1, cy], [cx + k * 0.45, cy], [cx + k * 0.45, cy + k * 1.1]];
  return svg('polygon', { class: 'tr-arrow', points: pts(shaft), fill: TARGET, stroke: '#ffffff', 'stroke-width': 2,
    'stroke-linejoin': 'round', transform: `rotate(${ARROW_ANGLE[dir] ?? 0} ${cx.toFixed(2)} ${cy.toFixed(2)})`,
    'aria-hidden': 'true' });
}

function label(attrs, words = '') {
  return svg('text', { 'font-size': MIN_FONT, fill: TEXT, 'dominant-baseline': 'central', ...attrs }, words);
}

function crown(cx, cy, r, fill = GOLD) {
  return svg('polygon', { points: pts([[cx - r, cy + r * 0.6], [cx - r, cy - r * 0.4], [cx - r * 0.5, cy + r * 0.1],
    [cx, cy - r * 0.7], [cx + r * 0.5, cy + r * 0.1], [cx + r, cy - r * 0.4], [cx + r, cy + r * 0.6]]),
  fill, stroke: GOLD_DARK, 'stroke-width': 1 });
}

function appleTree(cx, cy, r) {
  const g = svg('g', { 'aria-hidden': 'true' });
  g.append(svg('rect', { x: cx - r * 0.14, y: cy, width: r * 0.28, height: r * 0.9, fill: WOOD }));
  for (const [ox, oy] of [[-0.45, -0.1], [0.45, -0.1], [0, -0.5], [0, 0.05]]) {
    g.append(svg('circle', { cx: cx + ox * r, cy: cy + oy * r, r: r * 0.5, fill: GREEN_DARK }));
  }
  for (const [ox, oy] of [[-0.5, -0.1], [0.35, -0.3], [0.05, -0.6], [0.4, 0.15], [-0.2, 0.1]]) {
    g.append(svg('circle', { cx: cx + ox * r, cy: cy + oy * r, r: r * 0.16, fill: '#e53935' }));
  }
  return g;
}

function gate(cx, cy, r) {
  const g = svg('g', { 'aria-hidden': 'true' });
  g.append(svg('path', { d: `M${cx - r},${cy + r} V${cy - r * 0.2} A${r},${r * 0.8} 0 0 1 ${cx + r},${cy - r * 0.2} V${cy + r} Z`, fill: WOOD_DARK }));
  for (let k = -2; k <= 2; k += 1) {
    g.append(svg('line', { x1: cx + k * r * 0.35, y1: cy - r * 0.6 + Math.abs(k) * r * 0.15, x2: cx + k * r * 0.35, y2: cy + r, stroke: GOLD, 'stroke-width': 1.5 }));
  }
  g.append(svg('line', { x1: cx - r, y1: cy + r * 0.3, x2: cx + r, y2: cy + r * 0.3, stroke: GOLD, 'stroke-width': 1.5 }));
  return g;
}

// ----------------------------------------------------------------------------- text



/** words in tspans of el at most maxWidth wide, at most maxLines (the last cut), centred on
 * el's y when middle, else from it down. */
function wrapText(el, words, maxWidth, maxLines, lineHeight, middle = true) {
  const sig = `${words}|${maxWidth}|${maxLines}`;
  if (el.dataset.sig === sig) return;
  el.dataset.sig = sig;
  el.replaceChildren();
  const x = el.getAttribute('x');
  const probe = svg('tspan', { x });
  el.append(probe);
  const lines = [];
  let line = '';
  for (const word of words.split(/\s+/).filter(Boolean)) {
    const candidate = line ? `${line} ${word}` : word;
    probe.textContent = candidate;
    if (!line || measure(el) <= maxWidth) line = candidate;
    else { lines.push(line); line = word; }
  }
  if (line) lines.push(line);
  probe.remove();
  const shown = lines.length > maxLines ? [...lines.slice(0, maxLines - 1), lines.slice(maxLines - 1).join(' ')] : lines;
  shown.forEach((text, i) => {
    const first = middle ? -((shown.length - 1) * lineHeight) / 2 : 0;
    const t = svg('tspan', { x, dy: i === 0 ? first : lineHeight });
    el.append(t);
    t.textContent = text;
    let cut = text.length;
    while (cut > 1 && t.getComputedTextLength() > maxWidth) {
      cut -= 1;
      t.textContent = `${text.slice(0, cut).trimEnd()}…`;
    }
  });
}

// ----------------------------------------------------------------------------- targets


// ----------------------------------------------------------------------------- layout

const W = 360;
const M = 4;
const LAB = 14;
const GAP = 3;
const PER_ROW = 12; // spaces of the king's path in a row of the track
const SPACE = 28;

function layout(view) {
  const rows = view.rows ?? 5;
  const cols = view.cols ?? 5;
  const cell = (W - 2 * M - LAB - (cols - 1) * GAP) / cols;
  const banner = { x: M, y: 4, w: W - 2 * M, h: 52 };
  const grid = { x: M + LAB, y: 62 + 16, cell, rows, cols };
  const gridBottom = grid.y + rows * cell + (rows - 1) * GAP;
  const trackRows = Math.ceil((view.path_length ?? 23) / PER_ROW);
  const track = { y: gridBottom + 12, titleH: 20, rows: trackRows };
  const trackBottom = track.y + track.titleH + trackRows * SPACE + 4;
  const seatRows = Math.ceil((view.players ?? 2) / 2);
  const seats = { y: trackBottom + 6, rows: seatRows, row: 26 };
  const book = { y: seats.y + seatRows * seats.row + 8, lines: 6, lh: 14 };
  const H = Math.ceil(book.y + 18 + book.lines * book.lh + 6);
  return { W, H, banner, grid, track, seats, book };
}

function squareName(row, col) {
  return `${String.fromCharCode(65 + row)}${col + 1}`;
}

// ----------------------------------------------------------------------------- building

function build(root, L, view, st) {
  root.replaceChildren(root.querySelector('title'));
  const parts = {};
  root.append(svg('rect', { x: 0, y: 0, width: L.W, height: L.H, fill: BG }));
  const b = L.banner;
  parts.bannerFrame = svg('rect', { x: b.x + 1, y: b.y + 1, width: b.w - 2, height: b.h - 2, rx: 7, fill: PANEL, stroke: MUTED, 'stroke-width': 1.5 });
  parts.headline = label({ x: b.x + 42, y: b.y + 18, 'font-size': 12.5, 'font-weight': 700 });
  parts.detail = label({ x: b.x + 42, y: b.y + 36, 'font-size': 11, fill: MUTED });
  parts.marker = svg('g');
  parts.pages = label({ x: b.x + b.w - 8, y: b.y + 18, 'text-anchor': 'end', 'font-size': 12, 'font-weight': 700, fill: GOLD });
  root.append(parts.bannerFrame, parts.marker, parts.headline, parts.detail, parts.pages);
  // "Stop sliding": over the banner's right part while it is a choice.
  const sw = 112;
  parts.stop = svg('g', { class: 'tr-stop', display: 'none' },
    svg('rect', { x: b.x + b.w - sw, y: b.y, width: sw, height: b.h, rx: 8, fill: '#da373c' }),
    svg('rect', { class: 'tr-hl', x: b.x + b.w - sw + 1.5, y: b.y + 1.5, width: sw - 3, height: b.h - 3, rx: 7, fill: 'none', stroke: TEXT, 'stroke-width': 2 }),
    label({ x: b.x + b.w - sw / 2, y: b.y + b.h / 2, 'text-anchor': 'middle', 'font-size': 13, 'font-weight': 700 }, 'Stop sliding'));
  root.append(parts.stop);

  const G = L.grid;
  const wallW = G.cols * G.cell + (G.cols - 1) * GAP;
  const wallH = G.rows * G.cell + (G.rows - 1) * GAP;
  root.append(svg('rect', { x: G.x - 3, y: G.y - 3, width: wallW + 6, height: wallH + 6, rx: 7, fill: WALL, stroke: WOOD_DARK, 'stroke-width': 2.5 }));
  for (let c = 0; c < G.cols; c += 1) {
    root.append(label({ x: G.x + c * (G.cell + GAP) + G.cell / 2, y: G.y - 10, 'text-anchor': 'middle', 'font-size': 12, 'font-weight': 700 }, String(c + 1)));
  }
  for (let r = 0; r < G.rows; r += 1) {
    root.append(label({ x: M + LAB / 2 - 1, y: G.y + r * (G.cell + GAP) + G.cell / 2, 'text-anchor': 'middle', 'font-size': 12, 'font-weight': 700 }, String.fromCharCode(65 + r)));
  }
  parts.cells = new Map();
  for (let r = 0; r < G.rows; r += 1) {
    for (let c = 0; c < G.cols; c += 1) {
      const x = G.x + c * (G.cell + GAP);
      const y = G.y + r * (G.cell + GAP);
      const sq = squareName(r, c);
      const g = svg('g', { class: 'tr-cell', 'data-square': sq });
      const face = svg('g', { class: 'tr-face' });
      const figures = svg('g');
      const corner = svg('g');
      const hl = svg('rect', { class: 'tr-hl', x: x + 1.5, y: y + 1.5, width: G.cell - 3, height: G.cell - 3, rx: 6, fill: 'none', stroke: TARGET, 'stroke-width': 3, display: 'none' });
      // The tile a step is about (gold), and the arrow of a direction to slide it.
      const picked = svg('rect', { class: 'tr-picked', x: x + 1.5, y: y + 1.5, width: G.cell - 3, height: G.cell - 3, rx: 6, fill: 'none', stroke: GOLD, 'stroke-width': 4, display: 'none' });
      const way = svg('g', { class: 'tr-way' });
      g.append(face, corner, figures, way, picked, hl);
      root.append(g);
      parts.cells.set(sq, { g, face, figures, corner, way, picked, x, y, r, c, sig: null, figSig: null, waySig: '' });
    }
  }
  // The apple tree and the gate, on their corner squares.
  const cornerOf = (name) => parts.cells.get(name);
  const apple = cornerOf(view.apple_tree);
  if (apple) apple.corner.append(appleTree(apple.x + 11, apple.y + 11, 9));
  const gateCell = cornerOf(view.gate);
  if (gateCell) gateCell.corner.append(gate(gateCell.x + G.cell - 11, gateCell.y + G.cell - 11, 8));

  // The king's path.
  const T = L.track;
  parts.kingLine = label({ x: M + 2, y: T.y + 9, 'font-size': 11.5, 'font-weight': 700 });
  root.append(parts.kingLine);
  parts.spaces = [];
  const n = view.path_length ?? 23;
  const x0 = M + 6 + SPACE / 2;
  for (let i = 0; i < n; i += 1) {
    const row = Math.floor(i / PER_ROW);
    const k = i % PER_ROW;
    const col = row % 2 ? PER_ROW - 1 - k : k; // a snake: the path turns at the end of a row
    const cx = x0 + col * SPACE;
    const cy = T.y + T.titleH + row * SPACE + SPACE / 2;
    const disc = svg('circle', { cx, cy, r: i === 0 ? 12.5 : 10.5, fill: PATH_FREE, stroke: i === 0 ? GOLD_DARK : WOOD, 'stroke-width': i === 0 ? 2 : 1.5 });
    root.append(disc);
    if (i === 0) root.append(crown(cx, cy, 7));
    parts.spaces.push({ disc, cx, cy });
  }
  parts.king = svg('g', { class: 'tr-king' });
  root.append(parts.king);

  // The children.
  const S = L.seats;
  parts.seats = Array.from({ length: view.players ?? 2 }, (_, seat) => {
    const x = M + 4 + (seat % 2) * ((W - 2 * M) / 2);
    const y = S.y + Math.floor(seat / 2) * S.row + S.row / 2;
    const name = label({ x: x + 22, y, 'font-size': 12 });
    root.append(seatMarker(seat, x + 9, y, 9), name);
    return { name, x };
  });
  const B = L.book;
  root.append(label({ x: M + 2, y: B.y + 7, 'font-size': 12, 'font-weight': 700 }, 'The book'));
  parts.book = svg('text', { x: M + 2, y: B.y + 24, 'font-size': 11, fill: MUTED, 'dominant-baseline': 'central' });
  root.append(parts.book);
  st.parts = parts;
}

// ----------------------------------------------------------------------------- updating

function seatName(ctx, seat) {
  const s = (ctx.seats ?? []).find((x) => x.index === seat);
  return s?.name || `Player ${ownerStyle(seat).letter}`;
}

function status(view, ctx) {
  if (view.result === 'won') return 'You saved the Treasure of Fairy Tales!';
  if (view.result === 'lost') return 'The king is home: the king wins.';
  const who = view.turn === ctx.seat ? 'Your turn' : seatName(ctx, view.turn);
  if (view.stage === 'green') return `${who}: pick a grey tile to turn green`;
  if (view.stage === 'step') return `${who}: move your figure (or stay)`;
  if (view.endgame) return `${who}: slide up to 2 times, then step`;
  if (view.slides === 0) return `${who}: slide a meadow tile`;
  return `${who}: slide once more, or stop`;
}

function drawFace(cell, G, info) {
  const { x, y } = cell;
  const s = G.cell;
  const out = [];
  if (info.meadow) {
    const green = info.meadow === 'green';
    out.push(svg('rect', { x: x + 1, y: y + 1, width: s - 2, height: s - 2, rx: 6, fill: green ? GREEN : GREY, stroke: green ? GREEN_DARK : GREY_DARK, 'stroke-width': 2 }));
    [[0.22, 0.3], [0.7, 0.24], [0.4, 0.62], [0.78, 0.7], [0.18, 0.8]].forEach(([fx, fy], k) => {
      const cx = x + fx * s;
      const cy = y + fy * s;
      for (const dx of [-2.4, 0, 2.4]) out.push(svg('line', { x1: cx + dx * 0.6, y1: cy, x2: cx + dx, y2: cy - 5, stroke: green ? GREEN_DARK : GREY_DARK, 'stroke-width': 1.2 }));
      if (green && k % 2 === 0) out.push(svg('circle', { cx, cy: cy - 6, r: 2, fill: '#ffeb3b' }));
    });
  } else if (info.face && info.face.tale) {
    const bg = TALE_BG[info.face.tale] ?? CREAM;
    out.push(svg('rect', { x: x + 1, y: y + 1, width: s - 2, height: s - 2, rx: 6, fill: bg, stroke: GOLD, 'stroke-width': 2 }));
    // The tale's emblem (its picture's colour) and which half: the left or right half of a disc.
    const cx = x + s - 10;
    const cy = y + 10;
    const r = 6.5;
    const left = info.face.half === 0;
    out.push(svg('circle', { cx, cy, r, fill: '#ffffff', stroke: GOLD_DARK, 'stroke-width': 1 }),
      svg('path', { d: `M${cx},${cy - r} A${r},${r} 0 0 ${left ? 0 : 1} ${cx},${cy + r} Z`, fill: TALE_COLOR[info.face.tale] ?? GOLD_DARK }));
    const name = label({ x: x + s / 2, y: y + s / 2 + 6, 'text-anchor': 'middle', 'font-size': MIN_FONT, fill: INK });
    out.push(name);
    return { nodes: out, name, words: info.face.name ?? info.face.tale };
  } else {
    out.push(svg('rect', { x: x + 1, y: y + 1, width: s - 2, height: s - 2, rx: 6, fill: CREAM, stroke: '#c8b890', 'stroke-width': 1.5 }));
  }
  return { nodes: out, name: null, words: '' };
}

function drawFigures(cell, G, figures) {
  const n = figures.length;
  const rad = n === 1 ? 12 : n === 2 ? 10.5 : 9;
  const spots = { 1: [[0.5, 0.5]], 2: [[0.3, 0.5], [0.7, 0.5]], 3: [[0.3, 0.32], [0.7, 0.32], [0.5, 0.7]],
    4: [[0.3, 0.3], [0.7, 0.3], [0.3, 0.7], [0.7, 0.7]] }[Math.min(n, 4)] ?? [];
  return figures.slice(0, 4).map((seat, i) => {
    const [fx, fy] = spots[i];
    const cx = cell.x + fx * G.cell;
    const cy = cell.y + fy * G.cell;
    return svg('g', { class: 'tr-figure' }, svg('circle', { cx, cy, r: rad + 2.5, fill: '#ffffff' }), seatMarker(seat, cx, cy, rad));
  });
}

function update(parts, L, view, ctx, choices, st) {
  const G = L.grid;
  const b = L.banner;
  const over = view.result === 'won' || view.result === 'lost';
  const head = status(view, ctx);
  parts.headline.setAttribute('fill', view.result === 'won' ? GREEN : view.result === 'lost' ? LOST : TEXT);
  parts.bannerFrame.setAttribute('stroke', over ? (view.result === 'won' ? GREEN : LOST) : ownerStyle(view.turn).color);
  const markerSig = JSON.stringify([over, view.turn]);
  if (parts.marker.dataset.sig !== markerSig) {
    parts.marker.dataset.sig = markerSig;
    parts.marker.replaceChildren(over ? crown(b.x + 20, b.y + b.h / 2, 11, view.result === 'won' ? GOLD : PANEL_HI) : seatMarker(view.turn, b.x + 20, b.y + b.h / 2, 13));
  }
  const stop = choices.get('x') ?? null;
  const right = stop ? 112 + 6 : 88;
  fitText(parts.headline, head, b.w - 42 - right);
  // While a step is open its question is the one to answer (Discord's bold marks out).
  const asked = ctx.step ? String(ctx.step.title ?? '').replace(/\*\*/g, '') : '';
  fitText(parts.detail, asked || String(view.prompt ?? ''), b.w - 42 - (stop ? 118 : 8));
  const pages = `Pages ${(view.pages ?? []).length}/${view.total_pages ?? 12}`;
  if (parts.pages.textContent !== pages) parts.pages.textContent = pages;
  parts.pages.setAttribute('display', stop ? 'none' : 'inline');
  parts.stop.setAttribute('display', stop ? 'inline' : 'none');
  setTarget(parts.stop, stop, st);

  // Which square each choice stands for.
  const bySquare = new Map();
  for (const [code, choice] of choices) {
    const m = /^[tg]([A-I][1-9])$/.exec(code);
    if (m) bySquare.set(m[1], choice);
  }
  const mine = (view.cells ?? []).find((c) => (c.figures ?? []).includes(view.turn));
  // A tile's step: each direction is the square the tile would slide onto.
  const ways = new Map();
  let picked = null;
  for (const [code, choice] of choices) {
    const m = /^s([A-I])([1-9])([udlr])$/.exec(code);
    if (!m) continue;
    const row = m[1].charCodeAt(0) - 65;
    const col = Number(m[2]) - 1;
    const [dr, dc] = STEP[m[3]];
    picked = squareName(row, col);
    const to = squareName(row + dr, col + dc);
    bySquare.set(to, choice);
    ways.set(to, m[3]);
  }
  if (mine) {
    for (const [d, [dr, dc]] of Object.entries(STEP)) {
      const choice = choices.get(`w${d}`);
      if (choice) bySquare.set(squareName(mine.row + dr, mine.col + dc), choice);
    }
    if (choices.get('y')) bySquare.set(mine.square, choices.get('y'));
  }

  for (const info of view.cells ?? []) {
    const cell = parts.cells.get(info.square);
    if (!cell) continue;
    const sig = JSON.stringify([info.meadow, info.face]);
    if (cell.sig !== sig) {
      cell.sig = sig;
      const drawn = drawFace(cell, G, info);
      cell.face.replaceChildren(...drawn.nodes);
      if (drawn.name) wrapText(drawn.name, drawn.words, G.cell - 4, 4, 11.5);
    }
    const figSig = JSON.stringify(info.figures ?? []);
    if (cell.figSig !== figSig) {
      cell.figSig = figSig;
      cell.figures.replaceChildren(...drawFigures(cell, G, info.figures ?? []));
    }
    const waySig = ways.get(info.square) ?? '';
    if (cell.waySig !== waySig) {
      cell.waySig = waySig;
      cell.way.replaceChildren(...(waySig ? [arrow(cell.x, cell.y, G.cell, waySig)] : []));
    }
    cell.picked.setAttribute('display', info.square === picked ? 'inline' : 'none');
    if (info.square === picked) cell.g.dataset.picked = '1';
    else delete cell.g.dataset.picked;
    setTarget(cell.g, bySquare.get(info.square) ?? null, st);
  }

  // The king.
  const n = parts.spaces.length;
  parts.spaces.forEach((sp, i) => {
    if (i > 0) sp.disc.setAttribute('fill', i <= view.king ? PATH_WALKED : PATH_FREE);
  });
  const at = parts.spaces[((view.king ?? 0) % n + n) % n];
  const kingSig = String(view.king);
  if (at && parts.king.dataset.sig !== kingSig) {
    parts.king.dataset.sig = kingSig;
    parts.king.replaceChildren(svg('circle', { cx: at.cx, cy: at.cy, r: 11, fill: KING, stroke: INK, 'stroke-width': 1.5 }),
      label({ x: at.cx, y: at.cy + 0.5, 'text-anchor': 'middle', 'font-size': 12, 'font-weight': 700 }, 'K'));
  }
  const left = (view.path_length ?? n) - (view.king ?? 0);
  fitText(parts.kingLine, view.king_walking
    ? `King: ${view.king} of ${view.path_length} steps walked, ${left} to his crown`
    : 'King: waits on his crown until a page is found', W - 2 * M - 4);

  parts.seats.forEach((s, seat) => {
    const out = (view.figures_out ?? []).includes(seat);
    const you = seat === ctx.seat ? ' (you)' : '';
    s.name.setAttribute('font-weight', seat === view.turn && !over ? 700 : 400);
    s.name.setAttribute('fill', out ? GREEN : TEXT);
    fitText(s.name, `${seatName(ctx, seat)}${you}${out ? ' (out!)' : ''}`, (W - 2 * M) / 2 - 30);
  });
  wrapText(parts.book, (view.page_names ?? []).length ? (view.page_names ?? []).join(', ') : 'No pages yet.',
    W - 2 * M - 6, L.book.lines, L.book.lh, false);
}

function boardWords(view, ctx) {
  const open = (view.cells ?? []).filter((c) => c.meadow === null || c.meadow === undefined)
    .map((c) => `${c.square} ${c.face?.name ? `${c.face.name} (${c.face.half === 0 ? 'left' : 'right'} half)` : 'blank'}`);
  const figs = (view.cells ?? []).flatMap((c) => (c.figures ?? []).map((s) => `${seatName(ctx, s)} (${ownerStyle(s).letter}) on ${c.square}`));
  const greens = (view.cells ?? []).filter((c) => c.meadow === 'green').map((c) => c.square);
  return [`Save the Treasure of Fairy Tales. ${status(view, ctx)}.`,
    `Open squares: ${open.join('; ') || 'none'}.`, `Green tiles: ${greens.join(', ') || 'none'}.`,
    `Figures: ${figs.join('; ') || 'none on the board'}.`,
    `Pages ${(view.pages ?? []).length} of ${view.total_pages ?? 12}. King: ${view.king} of ${view.path_length} steps.`].join(' ');
}

const STATES = new WeakMap();

/** The board's draw function (see board/index.js). */
export function draw(container, ctx) {
  const view = ctx.view && typeof ctx.view === 'object' ? ctx.view : null;
  let st = STATES.get(container);
  if (!st || !container.contains(st.root ?? null)) {
    st = { ctx: null, key: null, parts: null, root: null };
    STATES.set(container, st);
  }
  st.ctx = ctx;
  if (!view || !Array.isArray(view.cells)) {
    if (!container.querySelector(':scope > .tr-empty')) {
      const p = document.createElement('p');
      p.className = 'muted tr-empty';
      p.textContent = 'The game has not started yet.';
      container.prepend(p);
    }
    container.querySelector(':scope > svg')?.setAttribute('display', 'none');
    return;
  }
  container.querySelector(':scope > .tr-empty')?.remove();
  const L = layout(view);
  const root = ensureSvg(container, { viewBox: `0 0 ${L.W} ${L.H}`, label: boardWords(view, ctx) });
  root.removeAttribute('display');
  root.setAttribute('role', 'group');
  root.classList.add('tr-svg');
  st.root = root;
  const key = JSON.stringify([view.rows, view.cols, view.path_length, view.players, view.apple_tree, view.gate]);
  if (st.key !== key) {
    st.key = key;
    build(root, L, view, st);
  }
  // While a step is open its choices are the board's targets, not the table's again.
  const source = ctx.step ? ctx.step.choices : ctx.choices;
  const choices = new Map((source ?? []).filter((c) => !c.disabled).map((c) => [String(c.code), c]));
  update(st.parts, L, view, ctx, choices, st);
}
