// Fairy Tale in My Pocket: the peasant's table drawn from the view (one shared peasant,
// played open: every seat and a spectator see the same view). What it shows is what
// renderers/pocket.py's picture shows: the time of day and the cards left, health,
// Defense, gold, the goals, the items, this turn's card, the tile stacks and the
// discard pile by their faces and sizes, and the explored map with its borders (open:
// a path; dense trees: a dark green band of little trees; rose bushes: a dark red band
// of roses) and the pawn (orange, white halo, the tile ringed in white).
//
// Every legal choice of the moment that stands for something on the board is a touch
// on it (codes: bot/core/choices/pocket.py):
//   g.<tile> gb.<tile> w.<tile> r.<tile> rb.<tile> to.<tile>   that tile on the map
//   st                                                        the pawn's own tile
//   pn pe ps pw                                               the dashed square on that side
//   x                                                         the stack explored (the pawn's)
//   xm (the Mirror), fw (the Wand)                            the special item
//   f.<item> fl.<item> d.<item>, dr drl (Elixir), coat        that item
//   f (fight), dh (do the good deed)                          this turn's card
//   s.<item> b.<item>                                         that card of the discard pile
//   t.<tile>                                                  the Mirror's tiles, in the tray
// A thing with one choice plays it at a touch; a thing with several (a tile you may walk
// to or reach with the Boots) is chosen first, and the tray under the map shows its
// choices with Cancel. Every other choice (rest or go on, pay, leave, ...) stays a button
// of the shell.
//
// While a guided step is open (ctx.step, see board/index.js) the targets are the step's
// choices instead, placed by the same rules and these (the adapter's two steps):
//   to.<tile> opens the ways to that tile, g. gb. w. r. rb.<tile>: they all stand on the
//             tile, so the tile is outlined as chosen (data-chosen) and its ways are
//             the tray's buttons at once, under the step's question (no Cancel of the
//             tray's own: the step's Cancel, or Escape, closes the step)
//   fk        opens the fights keeping a free item out, f-<item>… fw-<item>… (the Wand):
//             each on every item it keeps out (an item with several opens them in the
//             tray, as above; one step's choices all on one item: that item is chosen)
// Single-choice targets are wired by svg.js setTarget (a tap, Enter or Space plays it).
import { ensureSvg, setTarget, svg } from './svg.js';

// Colours: renderers/pocket.py (FOREST, KINGDOM, TREES, ...) and renderers/common.py
// (BG, PANEL, GRID, TEXT, MUTED, DIM, INK, GOLD, WARN, GOOD), as the picture has them.
const C = {
  bg: '#313338', panel: '#2B2D31', panelHi: '#3F4248', grid: '#565A62',
  text: '#F2F3F5', muted: '#B5BAC1', dim: '#80848E', ink: '#1E1F22',
  gold: '#FFCC08', goldDark: '#9E7700', warn: '#F23F43', good: '#23A55A',
  forest: '#3A7D44', forestDark: '#1F4D26', kingdom: '#8C6AB8', kingdomDark: '#553C78',
  trees: '#143A1A', treeTop: '#5DB85F', roses: '#7A1C2E', rose: '#FF5C8A', roseEdge: '#FFD0DC',
  path: '#E0C48C', heart: '#F24E5E', shield: '#7EA8D8', special: '#A86BD8', item: '#3D7EC9',
  pawn: '#E69F00', white: '#FFFFFF', loss: '#FF8A80', sky: '#56B4E9', forestMark: '#B9F6CA',
  focus: '#00A8FC',
};
const KIND = { villain: ['VILLAIN', C.warn], good_deed: ['GOOD DEED', C.good], peddler: ['PEDDLER', C.gold], event: ['EVENT', C.sky] };
const SIDES = ['n', 'e', 's', 'w'];
const DELTA = { n: [0, -1], e: [1, 0], s: [0, 1], w: [-1, 0] };
const OPPOSITE = { n: 's', e: 'w', s: 'n', w: 'e' };
const SEVERITY = { open: 0, trees: 1, roses: 2 };
const SIDE_WORD = { n: 'north', e: 'east', s: 'south', w: 'west' };
const SPARING = /^fw?(?:-[a-z_]+)+$/; // a fight keeping free items out (Wand or not)

const W = 400; // one column's width (the phone's whole board)
const FS = 12; // the smallest text: 10 px at 336 px (a 360 px phone), 9 px or more up to 424 wide
const T = 54; // a touch target's smallest side: 44 CSS px or more at 336 px wide
const GAP = 10;
const WIDE = 700; // from this container width, two columns (the map beside the rest)
const FONT = '"gg sans", "Noto Sans", system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif';

// ------------------------------------------------------------------ small helpers

let measureCtx = null;
function textWidth(text, size, bold) {
  if (!measureCtx) measureCtx = document.createElement('canvas').getContext('2d');
  if (!measureCtx) return text.length * size * 0.6;
  measureCtx.font = `${bold ? 700 : 400} ${size}px ${FONT}`;
  return measureCtx.measureText(text).width;
}

/** Lines of at most `width` (a word too long is cut with a hyphen); at most `max` lines. */
function wrap(text, size, width, max = 99, bold = false) {
  const words = String(text).split(/\s+/).filter(Boolean);
  const lines = [];
  let line = '';
  const push = (w) => {
    const next = line ? `${line} ${w}` : w;
    if (textWidth(next, size, bold) <= width) { line = next; return; }
    if (line) lines.push(line);
    line = '';
    let rest = w;
    while (textWidth(rest, size, bold) > width && rest.length > 3) {
      let k = rest.length - 1;
      while (k > 2 && textWidth(`${rest.slice(0, k)}-`, size, bold) > width) k -= 1;
      lines.push(`${rest.slice(0, k)}-`);
      rest = rest.slice(k);
    }
    line = rest;
  };
  words.forEach(push);
  if (line) lines.push(line);
  if (lines.length > max) {
    const kept = lines.slice(0, max);
    let last = kept[max - 1];
    while (last.length > 1 && textWidth(`${last}…`, size, bold) > width) last = last.slice(0, -1);
    kept[max - 1] = `${last}…`;
    return kept;
  }
  return lines;
}

function text(x, y, words, { size = FS, bold = false, fill = C.text, anchor = 'start', outline = null } = {}) {
  const attrs = { x, y, 'font-size': size, 'font-weight': bold ? 700 : 400, fill, 'text-anchor': anchor, 'dominant-baseline': 'middle' };
  if (outline) Object.assign(attrs, { stroke: outline, 'stroke-width': 3, 'paint-order': 'stroke', 'stroke-linejoin': 'round' });
  const el = svg('text', attrs);
  el.textContent = words;
  return el;
}

function lines(x, y, list, lh, opts) {
  return list.map((line, i) => text(x, y + i * lh, line, opts));
}

function rect(x, y, w, h, attrs = {}) {
  return svg('rect', { x, y, width: w, height: h, ...attrs });
}

function heart(cx, cy, r, fill, stroke) {
  const pts = [];
  for (let k = 0; k < 24; k += 1) {
    const t = (2 * Math.PI * k) / 24;
    const x = 16 * Math.sin(t) ** 3;
    const y = -(13 * Math.cos(t) - 5 * Math.cos(2 * t) - 2 * Math.cos(3 * t) - Math.cos(4 * t));
    pts.push(`${(cx + (x * r) / 16).toFixed(1)},${(cy + (y * r) / 16).toFixed(1)}`);
  }
  return svg('polygon', { points: pts.join(' '), fill: fill ?? 'none', stroke, 'stroke-width': 1.5 });
}

function shieldShape(cx, cy, r) {
  const p = [[cx - r, cy - r * 0.8], [cx, cy - r], [cx + r, cy - r * 0.8], [cx + r, cy], [cx, cy + r], [cx - r, cy]];
  return svg('polygon', { points: p.map((q) => q.join(',')).join(' '), fill: C.shield, stroke: C.ink, 'stroke-width': 1.5 });
}

function coin(cx, cy, r, full = true) {
  return full
    ? svg('circle', { cx, cy, r, fill: C.gold, stroke: C.goldDark, 'stroke-width': 1.5 })
    : svg('circle', { cx, cy, r, fill: 'none', stroke: C.dim, 'stroke-width': 1.5 });
}

function treeMark(cx, cy, r, fill) {
  return svg('polygon', { points: `${cx},${cy - r} ${cx + r * 0.8},${cy + r * 0.6} ${cx - r * 0.8},${cy + r * 0.6}`, fill });
}

function crownMark(cx, cy, r) {
  const p = [[cx - r, cy + r * 0.6], [cx - r, cy - r * 0.4], [cx - r * 0.5, cy + r * 0.1], [cx, cy - r * 0.7],
    [cx + r * 0.5, cy + r * 0.1], [cx + r, cy - r * 0.4], [cx + r, cy + r * 0.6]];
  return svg('polygon', { points: p.map((q) => q.join(',')).join(' '), fill: C.gold, stroke: C.goldDark, 'stroke-width': 1 });
}

function pawnMark(cx, cy, r) {
  return [
    svg('ellipse', { cx, cy: cy - r * 0.05, rx: r * 1.15, ry: r * 1.2, fill: C.white }),
    svg('polygon', { points: `${cx - r * 0.75},${cy + r * 0.95} ${cx},${cy - r * 0.2} ${cx + r * 0.75},${cy + r * 0.95}`, fill: C.pawn, stroke: C.ink, 'stroke-width': 1.5 }),
    svg('circle', { cx, cy: cy - r * 0.58, r: r * 0.38, fill: C.pawn, stroke: C.ink, 'stroke-width': 1.5 }),
  ];
}

/** A child of `parent` kept by key: the same element on every draw, its content redrawn
 * only when `sig` changes (a focused target keeps the focus). */
function keyed(parent, key, sig, build, tag = 'g') {
  let el = null;
  for (const child of parent.children) if (child.dataset.key === key) { el = child; break; }
  if (!el) {
    el = svg(tag, { 'data-key': key });
    parent.append(el);
  }
  if (el.dataset.sig !== sig) {
    el.dataset.sig = sig;
    build(el);
  }
  el.dataset.seen = '1';
  return el;
}

function sweep(parent) {
  for (const child of [...parent.children]) {
    if (child.dataset.seen) delete child.dataset.seen;
    else if (child.dataset.key) child.remove();
  }
}

// ------------------------------------------------------------------ the choices

/** Which codes each thing on the board stands for (only codes among the choices). */
function thingsOf(view, choices) {
  const open = new Map(choices.filter((c) => !c.disabled).map((c) => [String(c.code), c]));
  const things = new Map();
  const add = (key, code) => {
    if (!open.has(code)) return;
    if (!things.has(key)) things.set(key, []);
    if (!things.get(key).includes(code)) things.get(key).push(code);
  };
  for (const t of view.map ?? []) {
    if (open.has(`to.${t.id}`)) { add(`tile:${t.id}`, `to.${t.id}`); continue; }
    for (const head of ['g', 'r', 'gb', 'rb', 'w']) add(`tile:${t.id}`, `${head}.${t.id}`);
  }
  add(`tile:${view.pawn}`, 'st');
  for (const side of SIDES) add(`ghost:${side}`, `p${side}`);
  const here = (view.map ?? []).find((t) => t.id === view.pawn);
  add(`stack:${here?.stack ?? 'forest'}`, 'x');
  if (view.special === 'mirror') add('special', 'xm');
  if (view.special === 'wand') add('special', 'fw');
  for (const it of view.items ?? []) {
    for (const head of ['f', 'fl', 'd']) add(`item:${it.id}`, `${head}.${it.id}`);
    if (it.id === 'elixir') { add('item:elixir', 'dr'); add('item:elixir', 'drl'); }
    if (it.id === 'repellant') add('item:repellant', 'coat');
  }
  add('card', 'f');
  add('card', 'dh');
  (view.discard ?? []).forEach((card, i) => {
    add(`discard:${i}`, `s.${card.item}`);
    add(`discard:${i}`, `b.${card.item}`);
  });
  // The fights keeping free items out (the fk step): on each item kept out.
  for (const code of open.keys()) {
    if (!SPARING.test(code)) continue;
    const kept = code.split('-').slice(1);
    for (const it of view.items ?? []) if (kept.includes(it.id)) add(`item:${it.id}`, code);
  }
  for (const tile of view.decision?.mirror_tiles ?? []) add(`mirror:${tile}`, `t.${tile}`);
  return { things, open };
}

/** Make `g` a touch target for `codes` (one: it plays it; several: it opens them in the
 * tray), with a hit area of at least T×T around the box (x, y, w, h). */
function target(g, state, key, codes, box, name) {
  const { open } = state;
  const [x, y, w, h] = box;
  const hw = Math.max(w, T);
  const hh = Math.max(h, T);
  const selected = state.selected === key;
  const label = codes.length === 1
    ? String(open.get(codes[0]).label ?? codes[0])
    : `${name}: ${codes.length} choices (${codes.map((c) => open.get(c).label).join('; ')})`;
  // One choice: svg.js's target (role, label, data-code; a tap, Enter or Space plays the
  // choice of the latest state). Several: a button that opens them in the tray.
  const getCtx = () => g.ownerSVGElement?.__pocket?.ctx;
  if (codes.length === 1) {
    setTarget(g, open.get(codes[0]), getCtx, 'pk');
    g.removeAttribute('data-codes');
    g.removeAttribute('aria-expanded');
  } else {
    setTarget(g, null, getCtx, 'pk');
    g.setAttribute('role', 'button');
    g.setAttribute('tabindex', '0');
    g.setAttribute('aria-label', label);
    g.setAttribute('data-codes', codes.join(' '));
    g.setAttribute('aria-expanded', selected ? 'true' : 'false');
  }
  g.setAttribute('class', `pk-target${selected ? ' is-selected' : ''}`);
  g.dataset.thing = key;
  let hit = g.querySelector(':scope > rect.pk-hit');
  if (!hit) {
    hit = rect(0, 0, 0, 0, { class: 'pk-hit', rx: 8 });
    g.append(hit);
  }
  g.append(hit); // on top: the highlight is seen, the touch lands on it
  hit.setAttribute('x', x - (hw - w) / 2 + 1.5);
  hit.setAttribute('y', y - (hh - h) / 2 + 1.5);
  hit.setAttribute('width', hw - 3);
  hit.setAttribute('height', hh - 3);
  hit.setAttribute('fill', 'transparent');
  hit.setAttribute('stroke', selected ? C.focus : C.gold);
  hit.setAttribute('stroke-width', selected ? 4 : 3);
  hit.setAttribute('stroke-dasharray', selected ? 'none' : '7 4');
  if (!g.dataset.wiredTray) {
    g.dataset.wiredTray = '1';
    const act = () => {
      const root = g.ownerSVGElement;
      const s = root?.__pocket;
      if (!s || g.dataset.code || !g.dataset.codes) return; // one choice: setTarget's
      s.selected = s.selected === g.dataset.thing ? null : g.dataset.thing;
      s.redraw();
      const tray = root.querySelector('[data-key="tray"] [role="button"]');
      if (s.selected && tray) tray.focus({ preventScroll: false });
    };
    g.addEventListener('click', act);
    g.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' || e.key === ' ' || e.key === 'Spacebar') {
        e.preventDefault();
        act();
      }
    });
  }
}

function untarget(g) {
  for (const a of ['role', 'tabindex', 'aria-label', 'data-code', 'data-codes', 'aria-expanded']) g.removeAttribute(a);
  g.setAttribute('class', 'pk-thing');
  g.querySelector(':scope > rect.pk-hit')?.remove();
}

/** Mark `g` as the thing `key`: a target when it has choices, else a plain drawing; the
 * thing a step is about (its choices are the tray's) is outlined as chosen instead. */
function wire(g, state, key, box, name) {
  const codes = state.things.get(key);
  const chosen = state.fixed === key;
  if (codes && codes.length && !chosen) target(g, state, key, codes, box, name);
  else untarget(g);
  let ring = g.querySelector(':scope > rect.pk-chosen');
  if (!chosen) {
    ring?.remove();
    delete g.dataset.chosen;
    return;
  }
  if (!ring) ring = rect(0, 0, 0, 0, { class: 'pk-chosen', rx: 8, fill: 'none', stroke: C.focus, 'stroke-width': 4, 'aria-hidden': 'true' });
  g.append(ring); // on top of what the thing's drawing put there
  const [x, y, w, h] = box;
  ring.setAttribute('x', x + 2);
  ring.setAttribute('y', y + 2);
  ring.setAttribute('width', Math.max(0, w - 4));
  ring.setAttribute('height', Math.max(0, h - 4));
  g.dataset.chosen = '1';
}

// ------------------------------------------------------------------ the sections

function panel(g, w, h, title, accent) {
  g.append(rect(0, 0, w, h, { rx: 10, fill: C.panel, stroke: C.grid, 'stroke-width': 1 }));
  if (accent) g.append(rect(0, 0, 6, h, { rx: 3, fill: accent }));
  if (title) g.append(text(12, 16, title, { bold: true, fill: C.muted }));
}

const STATUS_H = 162;
function drawStatus(g, v, state) {
  const seats = state.ctx.seats ?? [];
  const leader = seats.find((s) => s.index === v.turn_seat);
  const sig = JSON.stringify([v.time, v.times, v.time_name, v.deck, v.health, v.max_health, v.defense, v.gold,
    v.max_gold, v.goals, v.result, v.players, v.turn, leader?.name, leader?.you]);
  keyed(g, 'status', sig, (el) => {
    el.replaceChildren();
    panel(el, W, STATUS_H);
    const last = v.time + 1 >= (v.times?.length ?? 3);
    // the sun on its way down: one dot per time of day, the sun on the current one
    const n = Math.max(1, v.times?.length ?? 3);
    for (let i = 0; i < n; i += 1) {
      const cx = 22 + i * 22;
      if (i === v.time) el.append(svg('circle', { cx, cy: 20, r: 8, fill: last ? '#FF8A3D' : '#FFD54F', stroke: '#FFF3C4', 'stroke-width': 1.5 }));
      else el.append(svg('circle', { cx, cy: 20, r: 4, fill: C.white }));
    }
    const when = `${v.time_name} (${v.time + 1} of ${n})`;
    el.append(text(16 + n * 22, 20, when, { bold: true, size: 14 }));
    const room = W - 12 - (16 + n * 22) - textWidth(when, 14, true) - 12;
    const plural = v.deck === 1 ? '' : 's';
    let left = `${v.deck} card${plural} until ${last ? 'sunset' : 'time passes'}`;
    if (textWidth(left, FS, true) > room) left = `${v.deck} card${plural} left`;
    el.append(text(W - 12, 20, left, { bold: true, anchor: 'end', fill: v.deck > 2 ? C.gold : C.loss }));
    // health, defense, gold: Health as wide as 8 hearts, Defense for its parts
    const widths = [116, 152, 100];
    const xs = [12, 12 + 116 + 4, 12 + 116 + 4 + 152 + 4];
    const stats = [['Health', `${v.health}/${v.max_health}`], ['Defense', String(v.defense.total)], ['Gold', `${v.gold}/${v.max_gold}`]];
    stats.forEach(([name, value], k) => {
      const x = xs[k];
      el.append(rect(x, 36, widths[k], 72, { rx: 8, fill: C.bg, stroke: C.grid }));
      if (k === 0) el.append(heart(x + 16, 56, 9, C.heart, C.heart));
      if (k === 1) el.append(shieldShape(x + 16, 56, 9));
      if (k === 2) el.append(coin(x + 16, 56, 8));
      el.append(text(x + 30, 48, name, { bold: true, fill: C.muted }));
      el.append(text(x + 30, 67, value, { bold: true, size: 18 }));
    });
    const hr = Math.min(5, (widths[0] - 14) / (2.6 * v.max_health));
    for (let k = 0; k < v.max_health; k += 1) {
      el.append(heart(12 + 8 + hr + k * hr * 2.6, 92, hr, k < v.health ? C.heart : null, k < v.health ? C.heart : C.dim));
    }
    const dx = xs[1];
    if (v.defense.against_dragons) {
      el.append(text(dx + 34 + textWidth(String(v.defense.total), 18, true), 67, `+${v.defense.against_dragons} vs dragons`, { bold: true, fill: C.gold }));
    }
    const parts = [];
    if (v.defense.dagger) parts.push(`Dagger +${v.defense.dagger}`);
    if (v.defense.princess) parts.push(`Princess +${v.defense.princess}`);
    const note = wrap(parts.length ? parts.join(', ') : 'just you', FS, widths[1] - 12, 2);
    el.append(...lines(dx + 6, note.length > 1 ? 86 : 92, note, 13, { fill: C.muted }));
    const gx = xs[2];
    const cr = Math.min(5, (widths[2] - 14) / (2.5 * v.max_gold));
    for (let k = 0; k < v.max_gold; k += 1) el.append(coin(gx + 8 + cr + k * cr * 2.5, 92, cr, k < v.gold));
    // the goals: done ones ticked, the next one outlined in gold (each as wide as its name)
    const done = [v.goals.rose, v.goals.princess, v.goals.forest_path, v.result === 'won'];
    const names = ['Rose', 'Princess', 'Forest Path', 'Castle'];
    const next = done.indexOf(false);
    const need = names.map((name) => textWidth(name, FS, true) + 34);
    const spare = Math.max(0, (W - 24 - 18 - need.reduce((a, b) => a + b, 0)) / 4);
    let x = 12;
    names.forEach((name, k) => {
      const gw = need[k] + spare;
      el.append(rect(x, 116, gw, 24, { rx: 12, fill: done[k] ? '#2A8A50' : (k === next ? C.panelHi : C.panel), stroke: k === next ? C.gold : C.grid, 'stroke-width': k === next ? 2 : 1 }));
      el.append(text(x + 13, 128, done[k] ? '✓' : String(k + 1), { bold: true, anchor: 'middle', fill: done[k] ? C.white : C.muted }));
      el.append(text(x + 25, 128, name, { bold: true }));
      x += gw + 6;
    });
    let status = '';
    let fill = C.muted;
    if (v.result === 'won') { status = 'You won! The kingdom is saved.'; fill = C.good; }
    else if (v.result === 'lost') { status = 'The game is lost.'; fill = C.loss; }
    else if (leader) status = `${leader.you ? 'You lead' : `${leader.name} leads`} the peasant · turn ${v.turn}`;
    else status = `Turn ${v.turn}`;
    el.append(text(12, 151, wrap(status, FS, W - 24, 1, true)[0], { bold: true, fill }));
  });
}

const CARD_H = 112;
function drawCard(g, v, state) {
  const codes = state.things.get('card') ?? [];
  const sig = JSON.stringify([v.line, v.current_card, v.time, codes, state.selected === 'card',
    codes.map((c) => state.open.get(c)?.label)]);
  const el = keyed(g, 'card', sig, (node) => {
    node.replaceChildren();
    const kind = v.line ? (KIND[v.line.kind] ?? [String(v.line.kind).toUpperCase(), C.grid]) : null;
    panel(node, W, CARD_H, "This turn's card", kind ? kind[1] : C.grid);
    if (kind) {
      const bw = textWidth(kind[0], FS, true) + 16;
      node.append(rect(W - 12 - bw, 6, bw, 20, { rx: 10, fill: kind[1] }));
      node.append(text(W - 12 - bw / 2, 16, kind[0], { bold: true, anchor: 'middle', fill: v.line.kind === 'peddler' ? C.ink : C.white }));
    }
    if (!v.line || !v.current_card) {
      node.append(text(16, 44, 'No card read yet this turn.', { fill: C.muted }));
      return;
    }
    node.append(...lines(16, 36, wrap(v.line.text, 13, W - 32, 3), 17, { size: 13 }));
    let facts = '';
    if (v.line.kind === 'villain' && v.line.villain) facts = `${v.line.villain[0].toUpperCase()}${v.line.villain.slice(1)}: strength ${v.line.strength}`;
    else if (v.line.kind === 'good_deed') facts = `Helping gives +${v.line.gold} gold, and costs a card of time`;
    else if (v.line.kind === 'peddler') facts = 'Buy or trade one item from the discard pile';
    if (facts) node.append(text(16, 88, wrap(facts, FS, W - 32, 1, true)[0], { bold: true, fill: v.line.kind === 'villain' ? C.loss : C.gold }));
    node.append(text(16, 104, `On this card: ${v.current_card.item_name} (${v.current_card.price} gold)`, { fill: C.muted }));
  });
  wire(el, state, 'card', [0, 0, W, CARD_H], "This turn's card");
}

const ITEMS_H = 22 + 2 * T + 8 + 6;
function drawItems(g, v, state) {
  const box = keyed(g, 'items', 'items', (el) => {
    el.replaceChildren();
    panel(el, W, ITEMS_H, `Items (you carry ${v.item_limit} at most)`);
    el.append(svg('g', { 'data-key': 'slots' }));
  });
  const slots = box.querySelector('[data-key="slots"]');
  const cw = (W - 24 - 16) / 3;
  const at = (i) => [12 + (i % 3) * (cw + 8), 24 + Math.floor(i / 3) * (T + 8), cw, T];
  const cells = [['special', `${v.special_name}`, C.special, C.white, null]];
  const count = Math.max(v.item_limit, v.items.length);
  for (let i = 0; i < Math.min(count, 4); i += 1) {
    const it = v.items[i];
    if (it) cells.push([`item:${it.id}`, it.name, it.empty ? C.panelHi : C.item, it.empty ? C.muted : C.white, it.empty ? 'empty' : (it.coated ? 'coated' : null)]);
    else cells.push([`free:${i}`, 'free', C.panel, C.dim, null]);
  }
  cells.push(['knight', v.knight ? 'Knight: fights the next villain' : 'No knight', v.knight ? C.sky : C.panel, v.knight ? C.ink : C.dim, null]);
  if (cells.length < 6) cells.push(['none', '', null, null, null]);
  cells.forEach(([key, name, fill, ink, note], i) => {
    const [x, y, w, h] = at(i);
    const codes = state.things.get(key) ?? [];
    const sig = JSON.stringify([name, fill, note, x, y, codes, state.selected === key, codes.map((c) => state.open.get(c)?.label)]);
    const el = keyed(slots, `slot:${key}`, sig, (node) => {
      node.replaceChildren();
      if (!fill) return;
      node.append(rect(x, y, w, h, { rx: 10, fill, stroke: fill === C.panel ? C.grid : 'none', 'stroke-dasharray': fill === C.panel ? '4 3' : 'none' }));
      const ls = wrap(name, FS, w - 12, note ? 2 : 3, true);
      const lh = 14;
      const top = y + h / 2 - ((ls.length - 1) * lh) / 2 - (note ? 6 : 0);
      node.append(...lines(x + w / 2, top, ls, lh, { bold: true, fill: ink, anchor: 'middle' }));
      if (note) node.append(text(x + w / 2, y + h - 10, note, { fill: C.muted, anchor: 'middle' }));
      if (key === 'special') node.append(text(x + w - 6, y + 9, '★', { fill: C.white, anchor: 'end', size: FS }));
    });
    wire(el, state, key, [x, y, w, h], name);
  });
  sweep(slots);
}

const PILES_H = 22 + T + 12 + 16 + 2 * T + 8 + 8;
function drawPiles(g, v, state) {
  const sig = JSON.stringify([v.deck, v.set_aside, v.discard.length, v.known_in_deck.length]);
  const box = keyed(g, 'piles', sig, (el) => {
    const keep = el.querySelector('[data-key="cards"]') ?? svg('g', { 'data-key': 'cards' });
    el.replaceChildren();
    panel(el, W, PILES_H, `Cards: deck ${v.deck} · set aside ${v.set_aside} · discard ${v.discard.length}`);
    el.append(text(12, 24 + T + 12 + 4, 'Discard pile (the peddler’s goods), top last', { bold: true, fill: C.muted }));
    el.append(keep);
  });
  // the two tile stacks, by their sizes only (the one explored now lit)
  const sw = (W - 24 - 8) / 2;
  [['forest', `Forest tiles: ${v.forest_stack}`, C.forest], ['kingdom', `Kingdom tiles: ${v.kingdom_stack}${v.kingdom_path_on_top ? ' · Kingdom Path on top' : ''}`, C.kingdom]].forEach(([stack, words, fill], k) => {
    const x = 12 + k * (sw + 8);
    const y = 24;
    const codes = state.things.get(`stack:${stack}`) ?? [];
    const sigS = JSON.stringify([words, codes, codes.map((c) => state.open.get(c)?.label)]);
    const el = keyed(box, `stack:${stack}`, sigS, (node) => {
      node.replaceChildren();
      node.append(rect(x + 4, y + 4, sw - 4, T - 4, { rx: 8, fill: stack === 'forest' ? C.forestDark : C.kingdomDark }));
      node.append(rect(x, y, sw - 4, T - 4, { rx: 8, fill }));
      node.append(stack === 'forest' ? treeMark(x + 16, y + (T - 4) / 2, 9, C.forestMark) : crownMark(x + 16, y + (T - 4) / 2, 9));
      const ls = wrap(words, FS, sw - 40, 2, true);
      node.append(...lines(x + 30, y + (T - 4) / 2 - ((ls.length - 1) * 14) / 2, ls, 14, { bold: true, outline: C.ink }));
    });
    wire(el, state, `stack:${stack}`, [x, y, sw, T], words);
  });
  const cards = box.querySelector('[data-key="cards"]');
  const cw = (W - 24 - 24) / 4;
  const top = 24 + T + 12 + 16;
  v.discard.slice(-8).forEach((card, j) => {
    const i = v.discard.length - Math.min(8, v.discard.length) + j;
    const x = 12 + (j % 4) * (cw + 8);
    const y = top + Math.floor(j / 4) * (T + 8);
    const key = `discard:${i}`;
    const codes = state.things.get(key) ?? [];
    const sigC = JSON.stringify([card, x, y, codes, codes.map((c) => state.open.get(c)?.label)]);
    const el = keyed(cards, key, sigC, (node) => {
      node.replaceChildren();
      node.append(rect(x, y, cw, T, { rx: 8, fill: C.panelHi, stroke: C.grid }));
      const ls = wrap(card.item_name, FS, cw - 10, 2, true);
      node.append(...lines(x + cw / 2, y + 14, ls, 14, { bold: true, anchor: 'middle' }));
      node.append(coin(x + cw / 2 - 12, y + T - 11, 5));
      node.append(text(x + cw / 2 - 4, y + T - 11, `${card.price}`, { bold: true, fill: C.gold }));
    });
    wire(el, state, key, [x, y, cw, T], card.item_name);
  });
  if (!v.discard.length) {
    keyed(cards, 'none', 'none', (node) => {
      node.replaceChildren(text(12, top + 16, 'none yet', { fill: C.dim }));
    });
  }
  sweep(cards);
}

// ------------------------------------------------------------------ the map

function border(a, side, grid) {
  const own = a.edges[side];
  const [dx, dy] = DELTA[side];
  const b = grid.get(`${a.x + dx},${a.y + dy}`);
  if (!b) return [own, false];
  const other = b.edges[OPPOSITE[side]];
  return [(SEVERITY[other] ?? 0) > (SEVERITY[own] ?? 0) ? other : own, true];
}

/** The squares the tile in hand may go to (as renderers/pocket.py's _ghosts). */
function ghosts(v) {
  const dec = v.decision;
  if (!dec || !['place', 'kingdom_path'].includes(dec.kind)) return [];
  let anchorId = v.pawn;
  if (dec.kind === 'kingdom_path') anchorId = (v.map.find((t) => t.role === 'forest_path') ?? {}).id ?? v.pawn;
  const anchor = v.map.find((t) => t.id === anchorId);
  if (!anchor) return [];
  return dec.choices.filter((ch) => ch.action.kind === 'place' && DELTA[ch.action.side]).map((ch) => {
    const [dx, dy] = DELTA[ch.action.side];
    return { x: anchor.x + dx, y: anchor.y + dy, side: ch.action.side, trees: String(ch.label).includes('trees') };
  });
}

/** The map's frame: the tiles with a square of room round them (where a new tile may go),
 * so the placing squares never change its size. */
function mapFrame(v) {
  const xs = v.map.map((t) => t.x);
  const ys = v.map.map((t) => t.y);
  const x0 = Math.min(...xs) - 1;
  const y0 = Math.min(...ys) - 1;
  const cols = Math.max(...xs) - x0 + 2;
  const rows = Math.max(...ys) - y0 + 2;
  const cell = Math.max(T, Math.min(84, W / cols));
  return { x0, y0, cols, rows, cell, width: Math.max(W, cols * cell) };
}

const MAP_HEAD = 40;
function band(g, box, side, kind, t) {
  if (kind === 'open') return;
  const [x0, y0, x1, y1] = box;
  const b = { n: [x0, y0, x1 - x0, t], s: [x0, y1 - t, x1 - x0, t], w: [x0, y0, t, y1 - y0], e: [x1 - t, y0, t, y1 - y0] }[side];
  g.append(rect(...b, { fill: kind === 'trees' ? C.trees : C.roses }));
  const horizontal = side === 'n' || side === 's';
  const length = horizontal ? b[2] : b[3];
  const n = Math.max(2, Math.floor(length / (t * 1.3)));
  for (let k = 0; k < n; k += 1) {
    const f = (k + 0.5) / n;
    const cx = horizontal ? b[0] + f * b[2] : b[0] + b[2] / 2;
    const cy = horizontal ? b[1] + b[3] / 2 : b[1] + f * b[3];
    if (kind === 'trees') g.append(treeMark(cx, cy, t * 0.42, C.treeTop));
    else g.append(svg('circle', { cx, cy, r: t * 0.3, fill: C.rose, stroke: C.roseEdge, 'stroke-width': 1 }));
  }
}

function drawMap(g, v, state, frame) {
  const { x0, y0, rows, cell, width } = frame;
  const height = MAP_HEAD + rows * cell;
  const box = keyed(g, 'map', JSON.stringify([width, height]), (el) => {
    el.replaceChildren();
    el.append(rect(0, 0, width, height, { rx: 10, fill: C.panel, stroke: C.grid }));
    el.append(text(12, 14, 'The map', { bold: true, fill: C.muted }));
    // the legend: the borders have their own patterns, never a colour alone
    let x = 12;
    for (const [kind, words] of [['trees', 'trees: 1 card'], ['roses', 'roses: no way'], ['open', 'open path']]) {
      const lg = svg('g');
      lg.append(rect(x, 24, 26, 12, { fill: C.forest }));
      if (kind === 'open') lg.append(rect(x + 8, 24, 10, 12, { fill: C.path }));
      else band(lg, [x, 24, x + 26, 36], 'n', kind, 12);
      lg.append(text(x + 31, 30, words, { fill: C.muted }));
      el.append(lg);
      x += 31 + textWidth(words, FS, false) + 14;
    }
    el.append(svg('g', { 'data-key': 'paths' }), svg('g', { 'data-key': 'tiles' }));
  });
  const left = (width - frame.cols * cell) / 2;
  const gap = Math.max(4, cell * 0.06);
  const t = Math.max(5, cell * 0.11);
  const at = (x, y) => {
    const bx = left + (x - x0) * cell;
    const by = MAP_HEAD + (y - y0) * cell;
    return [bx + gap / 2, by + gap / 2, bx + cell - gap / 2, by + cell - gap / 2];
  };
  const grid = new Map(v.map.map((tile) => [`${tile.x},${tile.y}`, tile]));
  // open borders between two tiles: a path across the gap
  const pathsSig = JSON.stringify([v.map.map((tile) => [tile.id, tile.x, tile.y, tile.edges]), x0, y0, cell, width]);
  keyed(box, 'paths', pathsSig, (el) => {
    el.replaceChildren();
    for (const tile of v.map) {
      for (const side of ['e', 's']) {
        const [kind, shared] = border(tile, side, grid);
        if (!shared || kind !== 'open') continue;
        const [bx0, by0, bx1, by1] = at(tile.x, tile.y);
        const w = cell * 0.22;
        if (side === 'e') el.append(rect(bx1 - t, (by0 + by1) / 2 - w / 2, gap + 2 * t, w, { fill: C.path }));
        else el.append(rect((bx0 + bx1) / 2 - w / 2, by1 - t, w, gap + 2 * t, { fill: C.path }));
      }
    }
  });
  const tiles = box.querySelector('[data-key="tiles"]');
  const nameSize = cell >= 70 ? 13 : FS;
  for (const tile of v.map) {
    const b = at(tile.x, tile.y);
    const kinds = SIDES.map((side) => border(tile, side, grid)[0]);
    const here = tile.id === v.pawn;
    const key = `tile:${tile.id}`;
    const codes = state.things.get(key) ?? [];
    const sig = JSON.stringify([b, kinds, here, tile.name, tile.used, tile.stack, codes, state.selected === key,
      codes.map((c) => state.open.get(c)?.label)]);
    const el = keyed(tiles, key, sig, (node) => {
      node.replaceChildren();
      const [bx0, by0, bx1, by1] = b;
      const w = bx1 - bx0;
      const h = by1 - by0;
      if (here) node.append(rect(bx0 - 3, by0 - 3, w + 6, h + 6, { rx: 9, fill: 'none', stroke: C.white, 'stroke-width': 4 }));
      node.append(rect(bx0, by0, w, h, { rx: 6, fill: tile.stack === 'forest' ? C.forest : C.kingdom }));
      SIDES.forEach((side, k) => band(node, b, side, kinds[k], t));
      let size = nameSize;
      let ls = wrap(tile.name, size, w - t - 2, 3, true);
      if (ls.some((l) => l.endsWith('-')) && size > FS) {
        size = FS;
        ls = wrap(tile.name, size, w - t - 2, 3, true);
      }
      const lh = size + 1;
      const top = by1 - t - 2 - lh * ls.length + lh / 2;
      node.append(...lines((bx0 + bx1) / 2, top, ls, lh, { size, bold: true, anchor: 'middle', outline: tile.stack === 'forest' ? '#11301A' : '#2E2140' }));
      const mark = Math.max(5, cell * 0.09);
      node.append(tile.stack === 'forest' ? treeMark(bx0 + t + mark + 1, by0 + t + mark + 1, mark, C.forestMark) : crownMark(bx0 + t + mark + 1, by0 + t + mark + 1, mark));
      if (tile.used) {
        const uw = textWidth('used', FS, true) + 8;
        node.append(rect(bx1 - t - uw - 1, by0 + t + 1, uw, 15, { rx: 7, fill: C.panelHi }));
        node.append(text(bx1 - t - uw / 2 - 1, by0 + t + 9, 'used', { bold: true, fill: C.muted, anchor: 'middle' }));
      }
      if (here) node.append(...pawnMark((bx0 + bx1) / 2, by0 + h * 0.36, Math.min(w, h) * 0.14));
    });
    wire(el, state, key, [b[0], b[1], b[2] - b[0], b[3] - b[1]], tile.name);
  }
  for (const gh of ghosts(v)) {
    const b = at(gh.x, gh.y);
    const key = `ghost:${gh.side}`;
    const codes = state.things.get(key) ?? [];
    const sig = JSON.stringify([b, gh, codes, codes.map((c) => state.open.get(c)?.label)]);
    const el = keyed(tiles, key, sig, (node) => {
      node.replaceChildren();
      const [bx0, by0, bx1, by1] = b;
      node.append(rect(bx0 + 3, by0 + 3, bx1 - bx0 - 6, by1 - by0 - 6, { rx: 6, fill: C.bg, stroke: C.white, 'stroke-width': 2, 'stroke-dasharray': '6 5' }));
      node.append(text((bx0 + bx1) / 2, (by0 + by1) / 2 - 7, gh.side.toUpperCase(), { size: Math.min(24, cell * 0.32), bold: true, anchor: 'middle' }));
      node.append(text((bx0 + bx1) / 2, (by0 + by1) / 2 + cell * 0.24, gh.trees ? '-1 card' : 'here?', { bold: true, anchor: 'middle', fill: gh.trees ? C.loss : C.muted }));
    });
    wire(el, state, key, [b[0], b[1], b[2] - b[0], b[3] - b[1]], `Put it ${SIDE_WORD[gh.side]}`);
  }
  sweep(tiles);
  return height;
}

// ------------------------------------------------------------------ the tray

const TRAY_H = 26 + 2 * T + 8 + 8;
/** Under the map: the choices of the thing chosen (with Cancel), or the Mirror's tiles,
 * or a word on how to play on the board. */
function drawTray(g, v, state, width) {
  const sel = state.selected && state.things.get(state.selected);
  // An open step's question (the adapter writes Discord's bold marks: taken out).
  const asked = state.step ? String(state.step.title ?? '').replace(/\*\*/g, '').trim() : '';
  let title = '';
  let entries = [];
  if (sel && sel.length > 1) {
    title = (state.fixed && asked) || 'Choose how:';
    entries = sel.map((code) => ({ key: `code:${code}`, code, label: String(state.open.get(code).label) }));
    // The step's own choices have the step's Cancel; a thing chosen here has this one.
    if (!state.fixed) entries.push({ key: 'cancel', cancel: true, label: 'Cancel' });
  } else {
    const mirror = [...state.things.keys()].filter((k) => k.startsWith('mirror:'));
    if (mirror.length) {
      title = 'The Mirror shows two places: take one';
      entries = mirror.map((k) => {
        const code = state.things.get(k)[0];
        return { key: `code:${code}`, code, label: String(state.open.get(code).label) };
      });
    }
  }
  const any = state.things.size > 0;
  const hint = !entries.length && (any ? 'Tap a place or thing outlined in gold to play it (every choice is also a button with the choices).'
    : 'Nothing to tap on the board right now.');
  const prompt = !entries.length ? (asked || String(v.prompt || v.reason || '')) : '';
  const sig = JSON.stringify([width, title, hint, prompt, entries.length > 0]);
  const box = keyed(g, 'tray', sig, (el) => {
    el.replaceChildren();
    el.append(rect(0, 0, width, TRAY_H, { rx: 10, fill: C.panel, stroke: entries.length ? C.gold : C.grid, 'stroke-width': entries.length ? 2 : 1 }));
    if (title) el.append(text(12, 15, wrap(title, FS, width - 24, 1, true)[0], { bold: true }));
    let y = 18;
    if (prompt) {
      const ls = wrap(prompt, 13, width - 24, 4, true);
      el.append(...lines(12, y, ls, 17, { size: 13, bold: true }));
      y += ls.length * 17 + 4;
    }
    if (hint) el.append(...lines(12, y, wrap(hint, FS, width - 24, 3), 16, { fill: C.muted }));
    el.append(svg('g', { 'data-key': 'entries' }));
  });
  const list = box.querySelector('[data-key="entries"]');
  // Two rows of two, or of three when there are more (a free item's fights and Cancel).
  const cols = entries.length > 4 ? 3 : 2;
  const cw = (width - 24 - 8 * (cols - 1)) / cols;
  entries.slice(0, 2 * cols).forEach((entry, i) => {
    const x = 12 + (i % cols) * (cw + 8);
    const y = 26 + Math.floor(i / cols) * (T + 8);
    const sig = JSON.stringify([entry, x, y]);
    const el = keyed(list, entry.key, sig, (node) => {
      node.replaceChildren();
      node.append(rect(x, y, cw, T, { rx: 10, fill: entry.cancel ? C.panelHi : '#4752C4' }));
      const ls = wrap(entry.label, FS, cw - 14, 3, true);
      node.append(...lines(x + cw / 2, y + T / 2 - ((ls.length - 1) * 14) / 2, ls, 14, { bold: true, anchor: 'middle' }));
    });
    if (entry.cancel) {
      for (const a of ['data-code', 'data-codes']) el.removeAttribute(a);
      el.setAttribute('role', 'button');
      el.setAttribute('tabindex', '0');
      el.setAttribute('aria-label', 'Cancel');
      el.setAttribute('class', 'pk-target');
      el.dataset.thing = 'cancel';
      if (!el.querySelector(':scope > rect.pk-hit')) {
        el.append(rect(x + 1.5, y + 1.5, cw - 3, T - 3, { class: 'pk-hit', rx: 8, fill: 'transparent', stroke: C.grid, 'stroke-width': 2 }));
      }
      if (!el.dataset.wired) {
        el.dataset.wired = '1';
        const cancel = () => {
          const root = el.ownerSVGElement;
          const s = root?.__pocket;
          if (!s) return;
          const was = s.selected;
          s.selected = null;
          s.redraw();
          root.querySelector(`[data-thing="${CSS.escape(was ?? '')}"]`)?.focus();
        };
        el.addEventListener('click', cancel);
        el.addEventListener('keydown', (e) => {
          if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); cancel(); }
        });
      }
    } else {
      target(el, state, entry.key, [entry.code], [x, y, cw, T], entry.label);
    }
  });
  sweep(list);
}

// ------------------------------------------------------------------ the board

function layout(g, key, x, y) {
  const el = keyed(g, `at:${key}`, 'at', () => {});
  el.setAttribute('transform', `translate(${x} ${y})`);
  return el;
}

function paint(container, state) {
  const v = state.ctx.view;
  const wide = (container.clientWidth || 0) >= WIDE;
  const frame = mapFrame(v);
  const mapH = MAP_HEAD + frame.rows * frame.cell;
  const side = [['status', STATUS_H], ['card', CARD_H], ['items', ITEMS_H], ['piles', PILES_H]];
  let width;
  let height;
  const places = {};
  if (wide) {
    places.map = [0, 0];
    places.tray = [0, mapH + GAP];
    let y = 0;
    const x = frame.width + 20;
    for (const [k, h] of side) { places[k] = [x, y]; y += h + GAP; }
    width = x + W;
    height = Math.max(mapH + GAP + TRAY_H, y - GAP);
  } else {
    let y = 0;
    for (const [k, h] of [side[0], side[1], ['map', mapH], ['tray', TRAY_H], side[2], side[3]]) {
      places[k] = [0, y];
      y += h + GAP;
    }
    width = frame.width;
    height = y - GAP;
  }
  const mode = wide ? 'wide' : 'narrow';
  const leader = (state.ctx.seats ?? []).find((s) => s.index === v.turn_seat);
  const label = `Fairy Tale in My Pocket: ${v.time_name}, health ${v.health} of ${v.max_health}, Defense ${v.defense.total}, gold ${v.gold} of ${v.max_gold}; the peasant is at the ${(v.map.find((t) => t.id === v.pawn) ?? {}).name ?? v.pawn}${leader ? `, led by ${leader.name}` : ''}.`;
  const root = ensureSvg(container, { viewBox: `0 0 ${width} ${height}`, label });
  // A group, not an image: an image's parts are hidden from a screen reader, and the
  // board's touches are buttons it must reach.
  root.setAttribute('role', 'group');
  root.setAttribute('font-family', FONT);
  root.classList.add('pocket-board');
  root.dataset.mode = mode;
  root.__pocket = state;
  let top = root.querySelector(':scope > g[data-key="pocket"]');
  if (!top || top.dataset.mode !== mode) {
    top?.remove();
    top = svg('g', { 'data-key': 'pocket', 'data-mode': mode });
    root.append(top);
  }
  drawStatus(layout(top, 'status', ...places.status), v, state);
  drawCard(layout(top, 'card', ...places.card), v, state);
  drawMap(layout(top, 'map', ...places.map), v, state, frame);
  drawTray(layout(top, 'tray', ...places.tray), v, state, frame.width);
  drawItems(layout(top, 'items', ...places.items), v, state);
  drawPiles(layout(top, 'piles', ...places.piles), v, state);
}

/** The board (see board/index.js). */
export function draw(container, ctx) {
  const v = ctx.view;
  if (!v || !Array.isArray(v.map) || !v.map.length) {
    container.replaceChildren();
    const p = document.createElement('p');
    p.className = 'muted pocket-empty';
    p.textContent = 'The game has not started yet.';
    container.append(p);
    return;
  }
  container.querySelector(':scope > .pocket-empty')?.remove();
  const old = container.querySelector(':scope > svg.board-svg')?.__pocket;
  // While a step is open its choices are the board's targets, not the table's again.
  const step = ctx.step && Array.isArray(ctx.step.choices) ? ctx.step : null;
  const { things, open } = thingsOf(v, step ? step.choices : (ctx.choices ?? []));
  const stepKey = step ? JSON.stringify([step.title, step.choices.map((c) => c.code)]) : '';
  let selected = old && old.ctx.version === ctx.version && old.stepKey === stepKey ? old.selected : null;
  if (selected && !((things.get(selected) ?? []).length > 1)) selected = null;
  // A step whose choices all stand on one thing (the ways to a tile): that thing is the
  // chosen one and its choices are the tray's buttons at once.
  let fixed = null;
  if (step && things.size === 1) {
    const [[key, codes]] = things;
    if (codes.length > 1) fixed = key;
  }
  if (fixed) selected = fixed;
  const state = { ctx, things, open, selected, fixed, step, stepKey, redraw: null };
  state.redraw = () => paint(container, state);
  paint(container, state);
  // Two columns or one by the room there is: a phone turned round, a window made wider.
  if (!container.__pocketResize && typeof ResizeObserver === 'function') {
    container.__pocketResize = new ResizeObserver(() => {
      const root = container.querySelector(':scope > svg.pocket-board');
      const s = root?.__pocket;
      if (!s || !container.isConnected || container.dataset.board !== 'game:pocket') return;
      if ((container.clientWidth >= WIDE) !== (root.dataset.mode === 'wide')) s.redraw();
    });
    container.__pocketResize.observe(container);
  }
}
