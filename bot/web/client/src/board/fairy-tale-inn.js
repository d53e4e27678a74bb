// Fairy Tale Inn's board: the status banner, the two players, the inn (7 x 6, row 1 at
// the bottom, column numbers on top where tokens drop in), the Guest List with the bag,
// the key of the special rooms, and the characters in play (an HTML list under the SVG:
// the legend of the tokens' pictograms). Drawn from the view alone, as
// renderers/fairy_tale_inn.py draws the bot's picture: the same colours, token shapes
// (seat A round, seat B square, Rats and Beanstalks grey hexagons), letters and
// pictograms (renderers/fti_icons.py, ported to SVG on the same 100 x 100 grid).
//
// Touches (each one a choice of the moment, from ctx.choices; see
// bot/core/choices/fairy_tale_inn.py for the codes):
//   s<slot>     a Guest List slot (the shell then shows the columns as a guided step)
//   r<column>   a column of the inn, while the Pied Piper's Rat waits for one
//   x, e        the extra-turn offer: two buttons in the banner
// and, while the slot's step is open (ctx.step), its choices instead:
//   d<slot>c<column>  a column of the inn (the chosen slot is outlined, the banner says
//                     the step's question)
// Every other choice stays a button of the shell only.
//
// Two layouts, chosen by the container's width: narrow (a phone: 360 units wide, all in
// one column) and wide (720 units: the inn on the left, players and Guest List on the
// right). Every text is at least 10.5 units, so at least 9 CSS px from a 336 px wide board
// (a 360 px phone) up. The SVG's height is fixed by the layout, so no update moves the page.
import { ownerMarker, ownerStyle, shape } from './marks.js';
import { ensureSvg, fitText, measure, setTarget as markTarget, svg } from './svg.js';

const setTarget = (g, choice, st) => markTarget(g, choice, () => st.ctx, 'inn');

// ----------------------------------------------------------------------------- colours
// From renderers/common.py (the colour-vision checked palette the pictures use).
const BG = '#313338';
const PANEL = '#2b2d31';
const PANEL_HI = '#3f4248';
const GRID = '#565a62';
const TEXT = '#f2f3f5';
const MUTED = '#b5bac1';
const DIM = '#80848e';
const INK = '#1e1f22';
const GOLD = '#ffcc08';
const GOLD_DARK = '#9e7700';
const HIGHLIGHT = '#ffffff';
const WARN = '#f23f43';
const GOOD = '#23a55a';
const NEUTRAL = '#9a9ea6';
// renderers/fairy_tale_inn.py ROOM_TINT, NO_ABILITY_RED, EXTRA_TEAL, KIND_COLOR.
const ROOM_TINT = { gold1: '#4a4024', gold2: '#5a481a', no_ability: '#4e2c30', extra_turn: '#1e454a' };
const NO_ABILITY_RED = '#f26d6d';
const EXTRA_TEAL = '#4fd1c5';
const TARGET = '#8c96ff'; // the touch highlight (the shell's blurple, lightened for contrast on the inn)

const ROOM_LEGEND = [['gold1', '+1 gold'], ['gold2', '+2 gold'], ['no_ability', 'no ability'],
  ['extra_turn', 'extra turn for 1']];
const KIND_LABEL = { when_played: 'When Played', ongoing: 'Ongoing', end_of_game: 'End of Game' };

// ----------------------------------------------------------------------------- shapes

/** This board's seat marker. */
function seatMarker(seat, cx, cy, r) {
  return ownerMarker(seat, cx, cy, r, { cls: 'inn-marker' });
}

function crown(cx, by, w) {
  const h = w * 1.1;
  const pts = [[cx - w, by], [cx - w, by - h], [cx - w / 2, by - h * 0.45], [cx, by - h],
    [cx + w / 2, by - h * 0.45], [cx + w, by - h], [cx + w, by]];
  return svg('polygon', { points: pts.map((p) => p.join(',')).join(' '), fill: GOLD, stroke: INK, 'stroke-width': 1 });
}

/** Money: a stack of count coins seen from the side (renderers/fairy_tale_inn.py draw_coins). */
function coins(cx, cy, width, count = 1) {
  const g = svg('g', { class: 'inn-coins' });
  const r = width / 2;
  const face = width * 0.42;
  const thick = width * 0.2;
  const lw = Math.max(0.6, width / 16);
  const bottom = cy + (face + count * thick) / 2;
  let top = bottom;
  for (let i = 0; i < count; i += 1) {
    top = bottom - face - (i + 1) * thick;
    g.append(
      svg('ellipse', { cx, cy: top + thick + face / 2, rx: r, ry: face / 2, fill: GOLD_DARK, stroke: INK, 'stroke-width': lw }),
      svg('rect', { x: cx - r, y: top + face / 2, width: 2 * r, height: thick, fill: GOLD_DARK }),
      svg('line', { x1: cx - r + lw / 2, y1: top + face / 2, x2: cx - r + lw / 2, y2: top + thick + face / 2, stroke: INK, 'stroke-width': lw }),
      svg('line', { x1: cx + r - lw / 2, y1: top + face / 2, x2: cx + r - lw / 2, y2: top + thick + face / 2, stroke: INK, 'stroke-width': lw }),
      svg('ellipse', { cx, cy: top + face / 2, rx: r, ry: face / 2, fill: GOLD, stroke: INK, 'stroke-width': lw }),
    );
  }
  g.append(svg('ellipse', { cx, cy: top + face / 2, rx: r * 0.6, ry: (face * 0.6) / 2, fill: 'none', stroke: GOLD_DARK, 'stroke-width': lw }));
  return g;
}

/** A special room's symbol (renderers/fairy_tale_inn.py draw_room_mark). */
function roomMark(kind, cx, cy, radius, value = false) {
  const g = svg('g', { class: 'inn-room-mark' });
  if (kind === 'gold1' || kind === 'gold2') {
    const count = kind === 'gold1' ? 1 : 2;
    if (value) {
      g.append(svg('text', { x: cx, y: cy - radius * 0.55, 'text-anchor': 'middle', 'dominant-baseline': 'central',
        'font-size': Math.max(10.5, radius * 1.0), 'font-weight': 700, fill: TEXT }, `+${count}`));
      g.append(coins(cx, cy + radius * 0.62, radius * 1.5, count));
    } else {
      g.append(coins(cx, cy, radius * 2, count));
    }
  } else if (kind === 'no_ability') {
    const w = Math.max(1.2, radius * 0.28);
    const k = radius * 0.62;
    g.append(svg('circle', { cx, cy, r: radius - w / 2, fill: INK, stroke: NO_ABILITY_RED, 'stroke-width': w }),
      svg('line', { x1: cx - k, y1: cy - k, x2: cx + k, y2: cy + k, stroke: NO_ABILITY_RED, 'stroke-width': w }));
  } else if (kind === 'extra_turn') {
    const w = Math.max(1.2, radius * 0.26);
    const k = radius * 0.62;
    const at = (deg) => [cx + k * Math.cos((deg * Math.PI) / 180), cy + k * Math.sin((deg * Math.PI) / 180)];
    const [sx, sy] = at(-60);
    const [ex, ey] = at(220);
    const h = radius * 0.5;
    g.append(svg('circle', { cx, cy, r: radius, fill: INK }),
      svg('path', { d: `M${sx.toFixed(2)},${sy.toFixed(2)} A${k},${k} 0 1 1 ${ex.toFixed(2)},${ey.toFixed(2)}`,
        fill: 'none', stroke: EXTRA_TEAL, 'stroke-width': w }),
      svg('polygon', { points: [[sx - h * 0.7, sy - h * 0.55], [sx + h * 0.6, sy - h * 0.35], [sx + h * 0.05, sy + h * 0.75]]
        .map((p) => p.map((v) => v.toFixed(2)).join(',')).join(' '), fill: EXTRA_TEAL }));
  }
  return g;
}

// ----------------------------------------------------------------------------- pictograms
// renderers/fti_icons.py, on its 100 x 100 design grid: [tag, attrs, 'ink' | 'paper'].
const E = (x0, y0, x1, y1, c = 'ink') => ['ellipse', { cx: (x0 + x1) / 2, cy: (y0 + y1) / 2, rx: (x1 - x0) / 2, ry: (y1 - y0) / 2 }, c];
const P = (pts, c = 'ink') => ['polygon', { points: pts.map((p) => p.join(',')).join(' ') }, c];
const L = (pts, w, c = 'ink') => ['polyline', { points: pts.map((p) => p.map((v) => +v.toFixed(2)).join(',')).join(' '),
  'stroke-width': w, fill: 'none', 'stroke-linejoin': 'round' }, c, 'stroke'];

const BEAN_STALK = Array.from({ length: 21 }, (_, i) => [50 + 10 * Math.sin((i * 5) / 14), 100 - i * 5]);
const GLYPHS = {
  pinocchio: [E(12, 30, 58, 76), P([[52, 44], [97, 54], [52, 62]]), P([[10, 36], [60, 36], [30, 2]]),
    E(38, 44, 47, 53, 'paper'), L([[22, 84], [48, 84]], 8)],
  evil_queen: [E(22, 2, 78, 66), E(31, 11, 69, 57, 'paper'), P([[40, 30], [46, 18], [52, 30], [46, 42]]),
    ['rect', { x: 43, y: 62, width: 14, height: 36, rx: 5 }, 'ink'], E(38, 62, 62, 74)],
  princess: [P([[8, 78], [8, 34], [30, 58], [50, 18], [70, 58], [92, 34], [92, 78]]),
    E(0, 22, 16, 38), E(42, 6, 58, 22), E(84, 22, 100, 38), E(42, 54, 58, 70, 'paper'),
    ['rect', { x: 8, y: 82, width: 84, height: 10 }, 'ink']],
  little_pig: [P([[14, 40], [16, 6], [44, 24]]), P([[86, 40], [84, 6], [56, 24]]), E(10, 16, 90, 96),
    E(30, 30, 40, 40, 'paper'), E(60, 30, 70, 40, 'paper'), E(30, 52, 70, 82, 'paper'), E(38, 61, 47, 73), E(53, 61, 62, 73)],
  big_bad_wolf: [P([[14, 2], [40, 30], [60, 30], [86, 2], [92, 48], [72, 66], [50, 98], [28, 66], [8, 48]]),
    P([[26, 42], [44, 48], [30, 54]], 'paper'), P([[74, 42], [56, 48], [70, 54]], 'paper'), E(43, 80, 57, 92, 'paper')],
  red_riding_hood: [P([[50, 2], [80, 30], [86, 60], [96, 98], [4, 98], [14, 60], [20, 30]]), E(30, 30, 70, 70, 'paper'),
    E(40, 45, 46, 51), E(54, 45, 60, 51)],
  jack: [L([[22, 96], [64, 10]], 11), P([[52, 6], [92, 14], [94, 46], [62, 36]]), E(70, 66, 96, 94), E(78, 72, 86, 80, 'paper')],
  pied_piper: [L([[8, 92], [62, 38]], 16), E(56, 30, 72, 46),
    ...[0.3, 0.5, 0.7].map((t) => E(8 + 54 * t - 3.5, 92 - 54 * t - 3.5, 8 + 54 * t + 3.5, 92 - 54 * t + 3.5, 'paper')),
    E(66, 58, 86, 74), L([[84, 66], [84, 8]], 6), P([[84, 6], [98, 18], [98, 30], [84, 20]])],
  rat: [L([[24, 66], [12, 70], [4, 62], [4, 50], [12, 40], [22, 36]], 6), E(18, 40, 74, 82), P([[60, 46], [98, 66], [60, 80]]),
    E(54, 30, 74, 52), E(59, 36, 69, 46, 'paper'), E(74, 56, 81, 63, 'paper')],
  beanstalk: [L(BEAN_STALK, 9), ...[[22, -1], [44, 1], [66, -1], [86, 1]].map(([y, side]) => {
    const x = 50 + 10 * Math.sin(y / 14);
    const tip = x + side * 40;
    return P([[x, 100 - y], [(x + tip) / 2, 100 - y - 14], [tip, 100 - y - 6], [(x + tip) / 2, 100 - y + 6]]
      .map((p) => p.map((v) => +v.toFixed(2))));
  })],
};
const SHORT = { pinocchio: 'Pino', evil_queen: 'Queen', princess: 'Princess', little_pig: 'Pig', big_bad_wolf: 'Wolf',
  red_riding_hood: 'Red', jack: 'Jack', pied_piper: 'Piper', rat: 'Rat', beanstalk: 'Bean' };

/** The pictogram of kind in a size x size square around (cx, cy); an unknown kind: its letters. */
function glyph(kind, cx, cy, size, ink, paper) {
  const parts = GLYPHS[kind];
  if (!parts) {
    const words = SHORT[kind] ?? String(kind).replace(/_/g, ' ');
    return svg('text', { x: cx, y: cy, 'text-anchor': 'middle', 'dominant-baseline': 'central',
      'font-size': Math.max(10.5, size * 0.5), 'font-weight': 700, fill: ink }, words.slice(0, 2));
  }
  const u = size / 100;
  const g = svg('g', { transform: `translate(${(cx - size / 2).toFixed(2)} ${(cy - size / 2).toFixed(2)}) scale(${u.toFixed(4)})`,
    'aria-hidden': 'true' });
  for (const [tag, attrs, colour, paint] of parts) {
    const c = colour === 'paper' ? paper : ink;
    g.append(svg(tag, paint === 'stroke' ? { ...attrs, stroke: c } : { ...attrs, fill: c }));
  }
  return g;
}

/** A token: its owner's colour and shape (a grey hexagon for nobody's) and its pictogram. */
function token(kind, owner, cx, cy, size) {
  const st = owner === null || owner === undefined ? null : ownerStyle(owner);
  const fill = st ? st.color : NEUTRAL;
  return svg('g', { class: 'inn-token' },
    shape(st ? st.shape : 'hexagon', cx, cy, size / 2, { fill, stroke: INK, 'stroke-width': 1.5 }),
    glyph(kind, cx, cy, size * 0.62, INK, fill));
}

// ----------------------------------------------------------------------------- layouts

const MIN_FONT = 10.5;
const WIDE_FROM = 620; // container px from which the wide layout is used

function layout(kind, columns, rows, slots) {
  const wide = kind === 'wide';
  const W = wide ? 720 : 360;
  const M = 4;
  const rowLabel = 12;
  const innW = 360 - 2 * M;
  const cell = (innW - rowLabel) / columns;
  const banner = { x: M, y: 4, w: W - 2 * M, h: 52 };
  const innTop = 62 + (wide ? 0 : 66);
  const head = 34;
  const inn = { x: M, y: innTop, rowLabel, cell, head, gridY: innTop + head + 4, columns, rows };
  const innBottom = inn.gridY + rows * cell + 2;
  const sideX = wide ? 372 : M;
  const sideW = wide ? W - M - sideX : W - 2 * M;
  const playersY = wide ? 62 : 62;
  const players = { x: sideX, y: playersY, w: sideW, h: 60 };
  const guestTop = wide ? playersY + 66 : innBottom + 6;
  const slotW = (sideW - 6) / 2;
  const slotH = 58;
  const slotBoxes = Array.from({ length: slots }, (_, i) => ({
    x: sideX + (i % 2) * (slotW + 6), y: guestTop + 22 + Math.floor(i / 2) * (slotH + 6), w: slotW, h: slotH }));
  const slotsBottom = guestTop + 22 + Math.ceil(slots / 2) * (slotH + 6) - 6;
  const key = { x: sideX, y: slotsBottom + 8, w: sideW, row: 20 };
  const keyBottom = key.y + 2 * key.row + 4;
  const H = Math.ceil(Math.max(keyBottom, innBottom) + 4);
  return { kind, W, H, M, banner, inn, players, guest: { x: sideX, y: guestTop, w: sideW }, slotBoxes, key };
}

// ----------------------------------------------------------------------------- text helpers



/** Words in at most maxLines tspans of el, each at most maxWidth wide (the last one cut). */
function wrapText(el, text, maxWidth, maxLines, lineHeight) {
  const sig = `${text}|${maxWidth}|${maxLines}`;
  if (el.dataset.sig === sig) return;
  el.dataset.sig = sig;
  el.replaceChildren();
  const x = el.getAttribute('x');
  const words = text.split(/\s+/).filter(Boolean);
  const lines = [];
  let line = '';
  const probe = svg('tspan', { x });
  el.append(probe);
  for (const word of words) {
    const candidate = line ? `${line} ${word}` : word;
    probe.textContent = candidate;
    if (!line || measure(el) <= maxWidth) line = candidate;
    else { lines.push(line); line = word; }
  }
  if (line) lines.push(line);
  probe.remove();
  const shown = lines.length > maxLines ? [...lines.slice(0, maxLines - 1), lines.slice(maxLines - 1).join(' ')] : lines;
  const first = -((shown.length - 1) * lineHeight) / 2;
  shown.forEach((words2, i) => {
    const t = svg('tspan', { x, dy: i === 0 ? first : lineHeight });
    el.append(t);
    t.textContent = words2;
    if (measure(el) > 0 && t.getComputedTextLength() > maxWidth) {
      let cut = words2.length;
      while (cut > 1 && t.getComputedTextLength() > maxWidth) {
        cut -= 1;
        t.textContent = `${words2.slice(0, cut).trimEnd()}…`;
      }
    }
  });
}

function text(attrs, words = '') {
  return svg('text', { 'font-size': MIN_FONT, fill: TEXT, ...attrs }, words);
}

// ----------------------------------------------------------------------------- the view

function roomKind(room) {
  return room.kind === 'gold' ? `gold${room.amount}` : room.kind;
}

function seatName(ctx, seat) {
  const s = (ctx.seats ?? []).find((x) => x.index === seat);
  return s?.name || `Player ${ownerStyle(seat).letter}`;
}

function charName(view, kind) {
  const ch = (view.characters ?? []).find((c) => c.id === kind);
  if (ch) return ch.name;
  for (const col of view.grid ?? []) for (const cell of col) if (cell.token === kind) return cell.name;
  return String(kind).replace(/_/g, ' ').replace(/\b\w/g, (m) => m.toUpperCase());
}

function tied(view) {
  const gold = view.gold ?? [];
  return gold.length > 1 && new Set(gold).size === 1;
}

function statusLines(view, ctx) {
  const over = Array.isArray(view.winners);
  const prompt = typeof view.prompt === 'string' ? view.prompt : '';
  if (over) {
    const detail = view.reason ? `Game over: ${view.reason}.` : 'Game over.';
    if (view.winners.length === 1) {
      const seat = view.winners[0];
      const you = seat === ctx.seat;
      const who = `${seatName(ctx, seat)} wins!`;
      if (tied(view)) {
        return [`Tie on gold: ${you ? 'you win!' : who}`,
          `Tied at ${view.gold[0]} gold: the player who did not start wins.`];
      }
      return [you ? 'You win!' : who, detail];
    }
    if (view.winners.length) return [`A draw: ${view.winners.map((s) => seatName(ctx, s)).join(' & ')} share the win`, detail];
    return ['A draw: nobody wins', detail];
  }
  if (typeof view.to_act === 'number') {
    const seat = view.to_act;
    return [seat === ctx.seat ? `Your turn, ${seatName(ctx, seat)}` : `${seatName(ctx, seat)} to play`, prompt];
  }
  return ['Fairy Tale Inn', prompt];
}

function fullColumns(view) {
  const full = new Set();
  (view.grid ?? []).forEach((col, i) => { if (col.length >= view.rows) full.add(i + 1); });
  return full;
}

// ----------------------------------------------------------------------------- targets


// ----------------------------------------------------------------------------- building

function buildSkeleton(root, L, view, st) {
  root.replaceChildren(root.querySelector('title'));
  const parts = {};
  root.append(svg('rect', { x: 0, y: 0, width: L.W, height: L.H, fill: BG }));

  // The banner: a marker, the headline and the detail; the extra-turn buttons over it.
  const b = L.banner;
  const banner = svg('g', { class: 'inn-banner' });
  parts.bannerFrame = svg('rect', { x: b.x + 1, y: b.y + 1, width: b.w - 2, height: b.h - 2, rx: 7, fill: PANEL, stroke: GRID, 'stroke-width': 2 });
  parts.bannerMarker = svg('g');
  parts.headline = text({ x: b.x + 46, y: b.y + 21, 'font-size': 15, 'font-weight': 700, 'dominant-baseline': 'central' });
  parts.detail = text({ x: b.x + 46, y: b.y + 38, 'font-size': 11, fill: MUTED, 'dominant-baseline': 'central' });
  parts.bannerText = svg('g', {}, parts.headline, parts.detail);
  parts.offer = svg('g', { display: 'none' });
  const half = (b.w - 6) / 2;
  parts.offerButtons = ['x', 'e'].map((code, i) => {
    const x = b.x + i * (half + 6);
    const g = svg('g', { class: 'inn-offer', 'data-slot': code },
      svg('rect', { x, y: b.y, width: half, height: b.h, rx: 8, fill: code === 'x' ? '#1f6b3c' : '#4e5058' }),
      svg('rect', { class: 'inn-hl', x: x + 1.5, y: b.y + 1.5, width: half - 3, height: b.h - 3, rx: 7, fill: 'none', stroke: TARGET, 'stroke-width': 2.5 }),
      text({ x: x + half / 2, y: b.y + b.h / 2, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': 13, 'font-weight': 700 }));
    parts.offer.append(g);
    return g;
  });
  banner.append(parts.bannerFrame, parts.bannerMarker, parts.bannerText, parts.offer);
  root.append(banner);

  // The players.
  const p = L.players;
  const pw = (p.w - 6) / 2;
  parts.players = [0, 1].map((seat) => {
    const x = p.x + seat * (pw + 6);
    const g = svg('g', { class: 'inn-player' });
    const frame = svg('rect', { x: x + 1, y: p.y + 1, width: pw - 2, height: p.h - 2, rx: 7, fill: PANEL, stroke: GRID, 'stroke-width': 2 });
    const name = text({ x: x + 38, y: p.y + 17, 'font-size': 13, 'font-weight': 700, 'dominant-baseline': 'central' });
    const status = text({ x: x + 38, y: p.y + 33, fill: MUTED, 'dominant-baseline': 'central' });
    const extra = text({ x: x + 38, y: p.y + 48, fill: MUTED, 'dominant-baseline': 'central' });
    const gold = text({ x: x + pw - 8, y: p.y + 19, 'text-anchor': 'end', 'font-size': 20, 'font-weight': 700, fill: GOLD, 'dominant-baseline': 'central' });
    const coin = svg('g');
    g.append(frame, seatMarker(seat, x + 19, p.y + 21, 13), name, status, extra, gold, coin);
    root.append(g);
    return { g, frame, name, status, extra, gold, coin, x, w: pw };
  });

  // The inn.
  const I = L.inn;
  const gx = I.x + I.rowLabel;
  const inn = svg('g', { class: 'inn-inn' });
  inn.append(svg('rect', { x: gx - 2, y: I.gridY - 2, width: I.columns * I.cell + 4, height: I.rows * I.cell + 4, rx: 6, fill: PANEL, stroke: GRID, 'stroke-width': 1.5 }));
  for (let r = 1; r <= I.rows; r += 1) {
    inn.append(text({ x: I.x + I.rowLabel / 2 - 1, y: I.gridY + (I.rows - r + 0.5) * I.cell, 'text-anchor': 'middle',
      'dominant-baseline': 'central', 'font-weight': 700, fill: MUTED }, String(r)));
  }
  const rooms = new Map((view.rooms ?? []).map((rm) => [`${rm.column},${rm.row}`, roomKind(rm)]));
  parts.cells = new Map();
  parts.columns = [];
  for (let c = 1; c <= I.columns; c += 1) {
    const x = gx + (c - 1) * I.cell;
    const col = svg('g', { class: 'inn-column', 'data-column': c });
    const head = svg('g', { class: 'inn-head' });
    col.append(svg('rect', { class: 'inn-hit', x, y: I.y, width: I.cell, height: I.head + 4 + I.rows * I.cell, fill: 'transparent' }));
    col.append(head);
    for (let r = 1; r <= I.rows; r += 1) {
      const y = I.gridY + (I.rows - r) * I.cell;
      const room = rooms.get(`${c},${r}`) ?? null;
      const bg = svg('rect', { x: x + 2, y: y + 2, width: I.cell - 4, height: I.cell - 4, rx: 5, fill: room ? ROOM_TINT[room] ?? PANEL_HI : PANEL_HI });
      const cellG = svg('g', { class: 'inn-cell', 'data-cell': `${c},${r}` }, bg);
      const content = svg('g');
      const last = svg('rect', { x: x + 1, y: y + 1, width: I.cell - 2, height: I.cell - 2, rx: 6, fill: 'none', stroke: HIGHLIGHT, 'stroke-width': 2.5, display: 'none' });
      cellG.append(content, last);
      col.append(cellG);
      parts.cells.set(`${c},${r}`, { bg, content, last, room, x, y, sig: null });
    }
    col.append(svg('rect', { class: 'inn-hl', x: x + 0.5, y: I.y + 0.5, width: I.cell - 1, height: I.head + 3 + I.rows * I.cell, rx: 6,
      fill: 'none', stroke: TARGET, 'stroke-width': 2.5, display: 'none' }));
    inn.append(col);
    parts.columns.push({ g: col, head, sig: null, x });
  }
  root.append(inn);

  // The Guest List.
  const G = L.guest;
  root.append(text({ x: G.x + 2, y: G.y + 10, 'font-size': 13, 'font-weight': 700, 'dominant-baseline': 'central' }, 'Guest List'));
  parts.bag = text({ x: G.x + G.w - 2, y: G.y + 10, 'text-anchor': 'end', 'font-size': 11, 'font-weight': 700, fill: MUTED, 'dominant-baseline': 'central' });
  root.append(parts.bag);
  parts.slots = L.slotBoxes.map((box, i) => {
    const g = svg('g', { class: 'inn-slot', 'data-slot': i + 1 });
    const frame = svg('rect', { x: box.x + 1, y: box.y + 1, width: box.w - 2, height: box.h - 2, rx: 7, fill: PANEL, stroke: GRID, 'stroke-width': 1.5 });
    const cost = svg('g');
    const face = svg('g');
    const name = text({ x: box.x + 80, y: box.y + box.h / 2, 'font-size': 11.5, 'font-weight': 700, 'dominant-baseline': 'central' });
    const hl = svg('rect', { class: 'inn-hl', x: box.x + 1, y: box.y + 1, width: box.w - 2, height: box.h - 2, rx: 7, fill: 'none', stroke: TARGET, 'stroke-width': 2.5, display: 'none' });
    g.append(frame, cost, face, name, hl);
    root.append(g);
    return { g, frame, cost, face, name, box, sig: null };
  });

  // The key of the special rooms.
  const K = L.key;
  const kw = K.w / 2;
  ROOM_LEGEND.forEach(([kind, label], i) => {
    const x = K.x + (i % 2) * kw;
    const y = K.y + Math.floor(i / 2) * K.row + K.row / 2;
    root.append(roomMark(kind, x + 12, y, 7.5), text({ x: x + 26, y, fill: MUTED, 'dominant-baseline': 'central' }, label));
  });
  st.parts = parts;
}

// ----------------------------------------------------------------------------- updating

function updateBanner(parts, L, view, ctx, choices) {
  const [head, detail] = statusLines(view, ctx);
  const b = L.banner;
  const over = Array.isArray(view.winners);
  const turn = !over && typeof view.to_act === 'number';
  parts.bannerFrame.setAttribute('stroke', turn ? ownerStyle(view.to_act).color : over ? GOOD : GRID);
  parts.headline.setAttribute('fill', over ? GOOD : TEXT);
  const markerSig = JSON.stringify([over, view.winners, view.to_act]);
  if (parts.bannerMarker.dataset.sig !== markerSig) {
    parts.bannerMarker.dataset.sig = markerSig;
    const cx = b.x + 22;
    const cy = b.y + b.h / 2;
    const m = [];
    if (turn) m.push(seatMarker(view.to_act, cx, cy, 14));
    else if (over && view.winners.length === 1) m.push(crown(cx, cy - 6, 10), seatMarker(view.winners[0], cx, cy + 7, 12));
    else if (over && view.winners.length) view.winners.forEach((s, i) => m.push(seatMarker(s, cx + i * 8, cy + (i ? 6 : -6), 10)));
    else if (over) m.push(svg('circle', { cx, cy, r: 13, fill: PANEL_HI, stroke: MUTED }), text({ x: cx, y: cy, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': 16, 'font-weight': 700 }, '='));
    parts.bannerMarker.replaceChildren(...m);
  }
  const avail = b.w - 46 - 8;
  fitText(parts.headline, head, avail);
  // While a step is open its question is the one to answer (the adapter's words, with
  // Discord's bold marks taken out).
  const asked = ctx.step ? String(ctx.step.title ?? '').replace(/\*\*/g, '') : '';
  fitText(parts.detail, asked || detail, avail);
  // The extra-turn offer: its two choices take the banner's place while they are open.
  const offer = ['x', 'e'].map((code) => choices.get(code) ?? null);
  const open = offer.some(Boolean);
  if (open) parts.offer.removeAttribute('display');
  else parts.offer.setAttribute('display', 'none');
  parts.bannerText.setAttribute('display', open ? 'none' : 'inline');
  parts.bannerMarker.setAttribute('display', open ? 'none' : 'inline');
  parts.bannerFrame.setAttribute('display', open ? 'none' : 'inline');
  parts.offerButtons.forEach((g, i) => {
    const choice = offer[i];
    g.setAttribute('display', choice ? 'inline' : 'none');
    const label = g.querySelector('text');
    if (choice) fitText(label, String(choice.label), (b.w - 6) / 2 - 12);
  });
  return offer;
}

function updatePlayers(parts, view, ctx) {
  const over = Array.isArray(view.winners);
  parts.players.forEach((pl, seat) => {
    const st = ownerStyle(seat);
    const active = !over && view.to_act === seat;
    const winner = over && view.winners.includes(seat);
    pl.frame.setAttribute('stroke', active ? st.color : winner ? GOOD : GRID);
    pl.frame.setAttribute('stroke-width', active || winner ? 3 : 1.5);
    const gold = String((view.gold ?? [])[seat] ?? 0);
    if (pl.gold.textContent !== gold) pl.gold.textContent = gold;
    const goldW = measure(pl.gold) || gold.length * 12;
    const coinX = pl.x + pl.w - 8 - goldW - 10;
    if (pl.coin.dataset.x !== String(coinX)) {
      pl.coin.dataset.x = String(coinX);
      pl.coin.replaceChildren(coins(coinX, pl.gold.getAttribute('y') * 1 + 1, 14, 2));
    }
    const nameW = coinX - 9 - (pl.x + 38) - 2;
    fitText(pl.name, seatName(ctx, seat), nameW);
    const status = [];
    if (active) status.push('to play');
    if (winner) status.push(tied(view) && view.winners.length === 1 ? 'wins the tie' : 'winner');
    if (seat === ctx.seat) status.push('you');
    if (seat === view.starter) status.push('went first');
    pl.status.setAttribute('fill', active ? st.color : winner ? GOOD : MUTED);
    fitText(pl.status, status.join(' · '), pl.w - 38 - 6);
    let extra = '';
    const bonus = (view.end_bonus ?? [])[seat];
    const preview = (view.end_preview ?? [])[seat];
    if (over && bonus) extra = `incl. +${bonus} at game end`;
    else if (!over && preview) extra = `game end: +${preview} so far`;
    fitText(pl.extra, extra, pl.w - 38 - 6);
  });
}

function columnState(view, c, full) {
  const rat = view.rat_columns ?? [];
  if (rat.length && rat.includes(c)) return 'rat';
  if (rat.length && !full.has(c)) return 'piper';
  if (full.has(c)) return 'full';
  return 'open';
}

function columnHead(L, c, state, x) {
  const I = L.inn;
  const cx = x + I.cell / 2;
  const cy = I.y + I.head / 2;
  if (state === 'rat') {
    return [svg('circle', { cx, cy, r: 14, fill: TEXT, stroke: GOLD, 'stroke-width': 2.5 }),
      text({ x: cx, y: cy, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': 16, 'font-weight': 700, fill: INK }, String(c))];
  }
  if (state === 'piper') {
    return [svg('circle', { cx, cy, r: 12, fill: PANEL, stroke: GRID, 'stroke-width': 1.5 }),
      text({ x: cx, y: cy, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': 13, 'font-weight': 700, fill: DIM }, String(c))];
  }
  if (state === 'full') {
    return [svg('rect', { x: cx - 20, y: cy - 16, width: 40, height: 32, rx: 6, fill: PANEL, stroke: WARN, 'stroke-width': 1.5 }),
      text({ x: cx, y: cy - 7, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': 12, 'font-weight': 700, fill: MUTED }, String(c)),
      text({ x: cx, y: cy + 8, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': MIN_FONT, 'font-weight': 700, fill: WARN }, 'FULL')];
  }
  return [svg('circle', { cx, cy, r: 13, fill: PANEL_HI, stroke: MUTED, 'stroke-width': 1 }),
    text({ x: cx, y: cy, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': 16, 'font-weight': 700 }, String(c))];
}

/** The open step's drops by column, and the slot they drop from (null: no such step). */
function stepDrops(choices) {
  const byColumn = new Map();
  let slot = null;
  for (const [code, choice] of choices) {
    const m = /^d(\d)c(\d{1,2})$/.exec(code);
    if (!m) continue;
    slot = Number(m[1]);
    byColumn.set(Number(m[2]), choice);
  }
  return { byColumn, slot };
}

function updateInn(parts, L, view, choices, st) {
  const I = L.inn;
  const full = fullColumns(view);
  const last = new Set((view.last_cells ?? []).map(([c, r]) => `${c},${r}`));
  const drops = stepDrops(choices).byColumn;
  parts.columns.forEach((col, i) => {
    const c = i + 1;
    const state = columnState(view, c, full);
    if (col.sig !== state) {
      col.sig = state;
      col.head.replaceChildren(...columnHead(L, c, state, col.x));
    }
    setTarget(col.g, choices.get(`r${c}`) ?? drops.get(c) ?? null, st);
  });
  for (const [key, cell] of parts.cells) {
    const [c, r] = key.split(',').map(Number);
    const piece = (view.grid?.[c - 1] ?? [])[r - 1] ?? null;
    const columnFull = full.has(c);
    const sig = JSON.stringify([piece?.token ?? null, piece?.owner ?? null, columnFull]);
    if (cell.sig !== sig) {
      cell.sig = sig;
      const fill = cell.room ? ROOM_TINT[cell.room] ?? PANEL_HI : columnFull ? '#35383d' : PANEL_HI;
      cell.bg.setAttribute('fill', fill);
      const cx = cell.x + I.cell / 2;
      const cy = cell.y + I.cell / 2;
      const content = [];
      if (piece) {
        content.push(token(piece.token, piece.owner, cx, cy, I.cell - 8));
        if (cell.room) content.push(roomMark(cell.room, cell.x + 9, cell.y + 9, 6.5));
      } else if (cell.room) {
        content.push(roomMark(cell.room, cx, cy, 11.5, true));
      }
      cell.content.replaceChildren(...content);
    }
    if (last.has(key)) cell.last.removeAttribute('display');
    else cell.last.setAttribute('display', 'none');
  }
}

function updateSlots(parts, view, choices, st) {
  const slots = [...(view.guest_list ?? [])].sort((a, b) => a.slot - b.slot);
  const chosen = stepDrops(choices).slot; // the slot whose columns the step asks for
  parts.slots.forEach((sl, i) => {
    const slot = slots[i] ?? { slot: i + 1, cost: 0, token: null, name: null };
    const choice = choices.get(`s${slot.slot}`) ?? null;
    const { box } = sl;
    const cy = box.y + box.h / 2;
    const sig = JSON.stringify([slot.token, slot.cost, slot.name]);
    if (sl.sig !== sig) {
      sl.sig = sig;
      const cost = [];
      if (slot.cost) {
        cost.push(text({ x: box.x + 19, y: cy - 9, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': 15, 'font-weight': 700 }, String(slot.cost)),
          coins(box.x + 19, cy + 11, 16, Math.min(slot.cost, 3)));
      } else {
        cost.push(text({ x: box.x + 19, y: cy, 'text-anchor': 'middle', 'dominant-baseline': 'central', 'font-size': 11, 'font-weight': 700, fill: GOOD }, 'free'));
      }
      sl.cost.replaceChildren(...cost);
      const fx = box.x + 57;
      sl.face.replaceChildren(...(slot.token === null
        ? [svg('circle', { cx: fx, cy, r: 18, fill: 'none', stroke: DIM, 'stroke-width': 1.5 })]
        : [svg('circle', { cx: fx, cy, r: 18, fill: PANEL_HI, stroke: MUTED, 'stroke-width': 1 }), glyph(slot.token, fx, cy, 25, TEXT, PANEL_HI)]));
      sl.name.setAttribute('fill', slot.token === null ? DIM : TEXT);
      sl.name.setAttribute('font-weight', slot.token === null ? 400 : 700);
    }
    wrapText(sl.name, slot.token === null ? 'empty' : String(slot.name ?? charName(view, slot.token)), box.w - 80 - 6, 2, 14);
    const picked = chosen === slot.slot;
    sl.frame.setAttribute('stroke', picked ? GOLD : GRID);
    sl.frame.setAttribute('stroke-width', picked ? 3 : 1.5);
    if (picked) sl.g.dataset.chosen = '1';
    else delete sl.g.dataset.chosen;
    setTarget(sl.g, choice, st);
  });
  const bag = `bag: ${view.bag_count ?? 0}`;
  if (parts.bag.textContent !== bag) parts.bag.textContent = bag;
}

// ----------------------------------------------------------------------------- characters

function h(tag, cls, words) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (words !== undefined) el.textContent = words;
  return el;
}

function abilityText(ch) {
  let t = String(ch.text ?? '').trim();
  for (const label of [...Object.values(KIND_LABEL), 'When Dropped']) {
    if (t.toLowerCase().startsWith(`${label.toLowerCase()}:`)) {
      t = t.slice(label.length + 1).trim();
      return t.charAt(0).toUpperCase() + t.slice(1);
    }
  }
  return t;
}

function icon(kind, ownerless = false) {
  const root = svg('svg', { class: 'inn-char-icon', viewBox: '0 0 40 40', 'aria-hidden': 'true', focusable: 'false' });
  if (ownerless) root.append(token(kind, null, 20, 20, 38));
  else root.append(svg('circle', { cx: 20, cy: 20, r: 19, fill: PANEL_HI, stroke: GRID, 'stroke-width': 1 }), glyph(kind, 20, 20, 26, TEXT, PANEL_HI));
  return root;
}

function updateCharacters(container, view) {
  let section = container.querySelector(':scope > .inn-chars');
  if (!section) {
    section = h('section', 'inn-chars');
    section.setAttribute('aria-labelledby', 'inn-chars-h');
    const heading = h('h3', 'inn-chars-h', 'Characters in play');
    heading.id = 'inn-chars-h';
    section.append(heading, h('ul', 'inn-char-list'));
    container.append(section);
  }
  const chars = view.characters ?? [];
  const companions = view.companions_left ?? {};
  const sig = JSON.stringify([chars, companions]);
  if (section.dataset.sig === sig) return;
  section.dataset.sig = sig;
  const list = section.querySelector('ul');
  list.replaceChildren(...chars.map((ch) => {
    const li = h('li', 'inn-char');
    li.dataset.id = ch.id;
    const body = h('div', 'inn-char-body');
    const tag = KIND_LABEL[ch.ability];
    const p = h('p', 'inn-char-text');
    if (tag) p.append(h('span', `inn-char-tag inn-tag-${ch.ability}`, `${tag}: `));
    p.append(abilityText(ch));
    body.append(h('h4', 'inn-char-name', ch.name), p);
    if (ch.companion) {
      const left = companions[ch.companion] ?? 0;
      const comp = h('p', 'inn-char-companion');
      comp.append(icon(ch.companion, true), h('span', '', `${charName(view, ch.companion)}s left on the card: ${left}`));
      body.append(comp);
    }
    li.append(icon(ch.id), body);
    return li;
  }));
  section.hidden = chars.length === 0;
}

// ----------------------------------------------------------------------------- words

function boardWords(view, ctx) {
  const over = Array.isArray(view.winners);
  const seats = (view.gold ?? []).map((g, seat) => {
    const s = ownerStyle(seat);
    return `${seatName(ctx, seat)} (${s.letter}, ${s.colorName} ${s.shape} tokens): ${g} gold`;
  });
  const filled = (view.grid ?? []).reduce((n, col) => n + col.length, 0);
  const full = [...fullColumns(view)];
  const guests = (view.guest_list ?? []).map((s) => `${s.slot}. ${s.token === null ? 'empty' : `${s.name}, ${s.cost ? `${s.cost} gold` : 'free'}`}`);
  const [head] = statusLines(view, ctx);
  return [`Fairy Tale Inn. ${head}.`, seats.join('; ') + '.',
    `The inn: ${filled} of ${(view.columns ?? 7) * (view.rows ?? 6)} rooms filled${full.length ? `; full columns: ${full.join(', ')}` : ''}.`,
    `Guest List: ${guests.join('; ')}. Bag: ${view.bag_count ?? 0}.`, over ? '' : ''].join(' ').trim();
}

// ----------------------------------------------------------------------------- draw

const STATES = new WeakMap();

function layoutKind(container) {
  return (container.clientWidth || 0) >= WIDE_FROM ? 'wide' : 'narrow';
}

/** The board's draw function (see board/index.js). */
export function drawInn(container, ctx) {
  const view = ctx.view && typeof ctx.view === 'object' ? ctx.view : null;
  let st = STATES.get(container);
  if (!st || !container.contains(st.root ?? null)) {
    st?.observer?.disconnect();
    st = { ctx: null, key: null, parts: null, root: null, observer: null, kind: null };
    STATES.set(container, st);
  }
  st.ctx = ctx;
  if (!view || !Array.isArray(view.grid)) {
    const empty = container.querySelector(':scope > .inn-empty') ?? h('p', 'muted inn-empty', 'The game has not started yet.');
    if (!empty.isConnected) container.prepend(empty);
    for (const el of container.querySelectorAll(':scope > svg, :scope > .inn-chars')) el.hidden = true;
    return;
  }
  container.querySelector(':scope > .inn-empty')?.remove();
  for (const el of container.querySelectorAll(':scope > svg, :scope > .inn-chars')) el.hidden = false;
  const kind = layoutKind(container);
  const columns = view.columns ?? view.grid.length;
  const rows = view.rows ?? 6;
  const slots = (view.guest_list ?? []).length || 4;
  const L = layout(kind, columns, rows, slots);
  const root = ensureSvg(container, { viewBox: `0 0 ${L.W} ${L.H}`, label: boardWords(view, ctx) });
  root.setAttribute('role', 'group');
  root.classList.add('inn-svg');
  st.root = root;
  const key = JSON.stringify([kind, columns, rows, slots, view.rooms]);
  if (st.key !== key) {
    st.key = key;
    buildSkeleton(root, L, view, st);
  }
  // While a step is open its choices are the board's targets, not the table's again.
  const source = ctx.step ? ctx.step.choices : ctx.choices;
  const choices = new Map((source ?? []).filter((c) => !c.disabled).map((c) => [String(c.code), c]));
  const { parts } = st;
  updateBanner(parts, L, view, ctx, choices).forEach((choice, i) => setTarget(parts.offerButtons[i], choice, st));
  updatePlayers(parts, view, ctx);
  updateInn(parts, L, view, choices, st);
  updateSlots(parts, view, choices, st);
  updateCharacters(container, view);

  if (!st.observer && typeof ResizeObserver === 'function') {
    st.kind = kind;
    st.observer = new ResizeObserver(() => {
      if (!container.isConnected || !st.ctx || STATES.get(container) !== st
          || container.dataset.board !== 'game:fairy-tale-inn') return;
      const now = layoutKind(container);
      if (now !== st.kind) {
        st.kind = now;
        drawInn(container, st.ctx);
      }
    });
    st.observer.observe(container);
  }
  st.kind = kind;
}

export const draw = drawInn;
