// Winter Tales' board for the Activity: Wintertown, its Quests, the seats, the fourteen
// characters, the Memory Track and (in a seat's own view) the Story cards in hand, drawn
// as one SVG from the view, in the colours, shapes and letters of the bot's picture
// (renderers/winter_tales.py). Every legal choice of the moment that stands for something
// on the board (a space to move to, a character to activate, a card or a card's side to
// play, a Memory space) is a touch there; the choice adapter's codes (a<i>, t<i>, g<kind>.<j>)
// say nothing of what they stand for, so each choice is placed by its label (the adapter's
// action_label, built from the printed names of winter-tales-data.js). A place that stands
// for several choices opens a small list of them. The rest stay as the shell's buttons.
// While a guided step is open (ctx.step: what a group or a kind opened, e.g. the starting
// spaces after a character of the draft) its choices are placed the same way instead; the
// step's codes are a<i>/t<i> too, so they are placed by their labels as well.
//
// Layout: a column 400 units wide (text at 11 units or more, so 9 CSS px or more once the
// board is 330 px wide or wider; touches at 54 units or more, so 44 CSS px at that width);
// a board wider than 700 px puts the panels in two columns. The height depends only on
// the number of seats, the Memory Track's length and (own view) a hand over the limit.
import { ownerStyle as seatStyle, polygon, shape, star } from './marks.js';
import { svg, ensureSvg } from './svg.js';
import { DATA } from './winter-tales-data.js';

// ------------------------------------------------------------------ colours
// renderers/common.py (the seat marks are in marks.js), BG...
const BG = '#313338';
const PANEL = '#2B2D31';
const PANEL_HI = '#3F4248';
const GRID = '#565A62';
const TEXT = '#F2F3F5';
const MUTED = '#B5BAC1';
const DIM = '#80848E';
const INK = '#1E1F22';
const GOLD = '#FFCC08';
const WARN = '#F23F43';
// renderers/winter_tales.py: the map's colours
const NIGHT = '#21283D';
const STREET = '#6B748C';
const STREET_EDGE = '#3A4052';
const SQUARE_FILL = '#454D63';
const LOC_FILL = '#333A50';
const LOC_EDGE = '#8A93AD';
const SNOW = '#E8EEF8';
const BOOKMARK = '#E04F5F';
// renderers/winter_factions.py: FACTION_COLOR, GLYPH, FACTION_LABEL
const FACTION_COLOR = { spring: '#8BD86E', winter: '#9CCBFF', writer: '#B898FA', none: '#B8BBC2' };
const GLYPH = { spring: '✿', winter: '❄', writer: '✎', none: '◇' };
const FACTION_LABEL = { spring: 'Spring', winter: 'Winter', writer: 'Writer' };

// ------------------------------------------------------------------ geometry
const W = 400;
const FONT = 'gg sans, Noto Sans, system-ui, sans-serif';
const SMALL = 11; // the smallest type: 9 CSS px on a board 330 px wide
const BODY = 12;
const HEAD = 14;
const TOUCH = 54; // the smallest touch: 44 CSS px on a board 330 px wide
const GAP = 6;
const MAP_H = 480;
const LOC_W = 96;
const LOC_H = 74;
const SQUARE_R = 14;
const STATUE_R = 20;
const TOKEN_R = 9;
const SECTION_HEAD = 22;
const QUEST_ROW = 34;
const SEAT_ROW = 30;
const CHAR_ROW = 54;
const CHAR_H = 50;
const CELL_H = 64;
const CARD_ROW = 58;
const CARD_H = 54;
const NOTE_ROW = 20;
const WIDE_AT = 700; // px of board: two columns

function hex(c) {
  const n = parseInt(c.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}
function mix(a, b, t) {
  const x = hex(a);
  const y = hex(b);
  return `#${x.map((v, i) => Math.round(v + (y[i] - v) * t).toString(16).padStart(2, '0')).join('')}`;
}
function luminance(c) {
  const [r, g, b] = hex(c).map((v) => {
    const s = v / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function contrast(a, b) {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p);
  return (x + 0.05) / (y + 0.05);
}
/** renderers/common.py readable_on: dark ink or white, whichever contrasts more. */
function inkOn(c) {
  return contrast(c, INK) >= contrast(c, TEXT) ? INK : TEXT;
}

function text(x, y, words, { size = BODY, fill = TEXT, weight = null, anchor = 'start', cls = null } = {}) {
  return svg('text', {
    x, y, 'font-size': size, 'font-family': FONT, 'font-weight': weight, fill, 'text-anchor': anchor,
    'dominant-baseline': 'middle', class: cls,
  }, words);
}

/** A cut to fit about `width` units (no measuring: a generous average glyph width). */
function fit(words, size, width, bold = false) {
  const per = size * (bold ? 0.6 : 0.55);
  const max = Math.max(1, Math.floor(width / per));
  const s = String(words);
  return s.length <= max ? s : `${s.slice(0, max - 1).trimEnd()}…`;
}

/** Words broken into at most `lines` lines of about `width` units. */
function wrap(words, size, width, lines, bold = false) {
  const per = size * (bold ? 0.6 : 0.55);
  const max = Math.max(1, Math.floor(width / per));
  const out = [];
  let line = '';
  for (const word of String(words).split(/\s+/).filter(Boolean)) {
    const next = line ? `${line} ${word}` : word;
    if (next.length <= max || !line) line = next;
    else {
      out.push(line);
      line = word;
    }
  }
  if (line) out.push(line);
  if (out.length > lines) {
    const kept = out.slice(0, lines);
    kept[lines - 1] = fit(`${kept[lines - 1]} ${out.slice(lines).join(' ')}`, size, width, bold);
    return kept;
  }
  return out.map((l) => fit(l, size, width, bold));
}

// ------------------------------------------------------------------ names
const SPACES = new Map(DATA.spaces.map((s) => [s.id, s]));
const CHARACTERS = new Map(DATA.characters.map((c) => [c.id, c]));
const SPACE_BY_NAME = new Map(DATA.spaces.map((s) => [s.name, s.id]));
const CHAR_BY_NAME = new Map(DATA.characters.map((c) => [c.name, c.id]));
const QUEST_BY_NAME = new Map(Object.entries(DATA.quests).map(([id, name]) => [name, id]));

function spaceName(id) {
  return SPACES.get(id)?.name ?? (id ? String(id).replace(/_/g, ' ') : '—');
}
function charName(id) {
  return CHARACTERS.get(id)?.name ?? (id ? String(id).replace(/_/g, ' ') : '—');
}
function questName(counterOrQuest) {
  const quest = DATA.counters[counterOrQuest] ?? counterOrQuest;
  return DATA.quests[quest] ?? String(quest ?? '').replace(/_/g, ' ');
}
function cardTitle(id) {
  return DATA.cards[id] ?? DATA.neutral[id] ?? String(id ?? '').replace(/_/g, ' ');
}
function memoryTitle(m) {
  if (m.source === 'objective' || m.objective) return DATA.objectives[m.objective ?? m.card] ?? 'Objective';
  return cardTitle(m.card);
}
function cardNumber(id) {
  const tail = String(id).split('_').pop();
  return /^\d+$/.test(tail) ? `#${Number(tail)} ` : '';
}

// ------------------------------------------------------------------ choices → places
/** The longest name of `names` (a Map name → id) that `words` starts with: [id, rest]. */
function lead(words, names) {
  let best = null;
  for (const [name, id] of names) {
    if (words.startsWith(name) && (!best || name.length > best[0].length)) best = [name, id];
  }
  return best ? [best[1], words.slice(best[0].length)] : null;
}
function after(words, prefix, names) {
  return words.startsWith(prefix) ? lead(words.slice(prefix.length), names) : null;
}
function sideOf(rest) {
  if (/Spring/.test(rest) || /\(spring\)/.test(rest)) return 'spring';
  if (/Winter/.test(rest) || /\(winter\)/.test(rest)) return 'winter';
  return null;
}

/** Where on the board a choice's label puts it: a key ('space:<id>', 'char:<id>',
 * 'card:<id>', 'card:<id>:<side>', 'mem:<slot>'), or null (it stays a button only).
 * byStart: a character's draft choice ("<character> in <space>") goes on its space (the
 * step after a character was chosen), not on the character. */
export function placeOf(choice, view, byStart = false) {
  const code = String(choice.code ?? '');
  const label = String(choice.label ?? '').replace(/…$/, '');
  const hand = new Map((view?.hand ?? []).map((c) => [c.title, c.id]));
  if (/^g[a-z_]+\.\d+$/.test(code)) {
    const name = label.replace(/ \(\d+\)$/, '');
    if (CHAR_BY_NAME.has(name)) return `char:${CHAR_BY_NAME.get(name)}`;
    if (SPACE_BY_NAME.has(name)) return `space:${SPACE_BY_NAME.get(name)}`;
    if (hand.has(name)) return `card:${hand.get(name)}`;
    return null;
  }
  if (!/^[at]\d+$/.test(code)) return null;
  let m;
  for (const prefix of ['Move to ', 'Relocate to ']) {
    if ((m = after(label, prefix, SPACE_BY_NAME))) return `space:${m[0]}`;
  }
  if ((m = after(label, 'Generate ', QUEST_BY_NAME)) && m[1].startsWith(' at ')) {
    const target = m[1].slice(4);
    if (SPACE_BY_NAME.has(target)) return `space:${SPACE_BY_NAME.get(target)}`;
    if (CHAR_BY_NAME.has(target)) return `char:${CHAR_BY_NAME.get(target)}`; // under a Fairy Tale
  }
  for (const prefix of ['Activate ', 'Start a Battle with ', 'Spring a Trap with ', 'Step in with ',
    'Pass the Great Artefact to ', 'Use the Great Artefact (', 'Free round (', 'Save ', 'Power to ']) {
    if ((m = after(label, prefix, CHAR_BY_NAME))) return `char:${m[0]}`;
  }
  if ((m = after(label, 'Discard ', hand))) return `card:${m[0]}`;
  for (const prefix of ['Play ', 'Hide ']) {
    if ((m = after(label, prefix, hand))) {
      const side = sideOf(m[1]);
      return side ? `card:${m[0]}:${side}` : `card:${m[0]}`;
    }
  }
  if ((m = /^(Memory: |Complete ).*\(slot (\d+)\)$/.exec(label))) return `mem:${m[2]}`;
  if ((m = /^Move the Bookmark to Memory (\d+)$/.exec(label))) return `mem:${m[1]}`;
  if ((m = after(label, 'Start the Quest ', QUEST_BY_NAME))) {
    const where = questSpace(view, m[0]);
    return where ? `space:${where}` : null;
  }
  if (label.startsWith('Use ')) {
    const on = / on (.+?)(?: at |$)/.exec(label);
    if (on && CHAR_BY_NAME.has(on[1])) return `char:${CHAR_BY_NAME.get(on[1])}`;
    const at = / at (.+)$/.exec(label);
    if (at && SPACE_BY_NAME.has(at[1])) return `space:${SPACE_BY_NAME.get(at[1])}`;
    return null;
  }
  const who = lead(label, CHAR_BY_NAME);
  if (who) {
    const rest = who[1];
    const inSpace = rest.startsWith(' in ') ? lead(rest.slice(4), SPACE_BY_NAME) : null;
    if (inSpace) return byStart ? `space:${inSpace[0]}` : `char:${who[0]}`; // a character and where it starts
    const back = /^ returns? in /.exec(rest);
    const s = back ? lead(rest.slice(back[0].length), SPACE_BY_NAME) : null;
    if (s) return `space:${s[0]}`;
  }
  const arrow = label.indexOf(' → ');
  if (arrow > 0) {
    const target = label.slice(arrow + 3);
    if (SPACE_BY_NAME.has(target)) return `space:${SPACE_BY_NAME.get(target)}`;
    if (CHAR_BY_NAME.has(target)) return `char:${CHAR_BY_NAME.get(target)}`;
  }
  return null;
}

/** Where a Quest lies: its counter's space, or its carrier's. */
function questSpace(view, quest) {
  for (const q of view?.quests ?? []) {
    if (q.quest !== quest && q.counter !== quest) continue;
    if (q.space) return q.space;
    const carrier = (view.figures ?? []).find((f) => f.id === q.carrier);
    if (carrier?.space) return carrier.space;
  }
  return null;
}

function thingName(key) {
  const [kind, id, side] = key.split(':');
  if (kind === 'space') return spaceName(id);
  if (kind === 'char') return charName(id);
  if (kind === 'mem') return `Memory space ${id}`;
  if (kind === 'card') return side ? `${cardTitle(id)}, ${FACTION_LABEL[side]} side` : cardTitle(id);
  return key;
}

/** The draft choices' one character, when every "<character> in <space>" choice is of the
 * same one (a guided step after that character was picked), else null. */
function draftCharacter(choices) {
  const chars = new Set();
  for (const choice of choices) {
    const label = String(choice.label ?? '');
    const who = lead(label, CHAR_BY_NAME);
    if (who && who[1].startsWith(' in ') && lead(who[1].slice(4), SPACE_BY_NAME)) chars.add(who[0]);
  }
  return chars.size === 1 ? [...chars][0] : null;
}

function placesOf(choices, view, inStep = false) {
  const places = new Map();
  // In a step whose draft choices are one character's, each is its starting space.
  const byStart = inStep && draftCharacter(choices) !== null;
  for (const choice of choices) {
    if (choice.disabled) continue;
    const key = placeOf(choice, view, byStart);
    if (!key) continue;
    if (!places.has(key)) places.set(key, []);
    places.get(key).push(choice);
  }
  // A card whose sides are touches: its whole-card choices go with each side.
  for (const [key, list] of [...places]) {
    const parts = key.split(':');
    if (parts[0] !== 'card' || parts.length !== 2) continue;
    const sides = ['spring', 'winter'].filter((s) => places.has(`${key}:${s}`));
    if (!sides.length) continue;
    for (const s of sides) places.get(`${key}:${s}`).push(...list);
    places.delete(key);
  }
  return places;
}

// ------------------------------------------------------------------ pieces
function marker(seat, cx, cy, r, { dim = false, letterSize = SMALL } = {}) {
  const g = svg('g', { 'aria-hidden': 'true' });
  if (seat === null || seat === undefined) {
    g.append(svg('circle', { cx, cy, r, fill: 'none', stroke: DIM, 'stroke-width': 1.5, 'stroke-dasharray': '3 2' }));
    return g;
  }
  const st = seatStyle(seat);
  const fill = dim ? mix(st.color, BG, 0.55) : st.color;
  g.append(shape(st.shape, cx, cy, r, { fill, stroke: INK, 'stroke-width': 1.5 }));
  const dy = st.shape === 'triangle' ? r * 0.18 : 0;
  g.append(text(cx, cy + dy + 0.5, st.letter, { size: letterSize, fill: inkOn(fill), weight: 700, anchor: 'middle' }));
  return g;
}

/** A figure on the map: its owner's marker on a black (Fairy Tale) or white (Soldier) base. */
function token(f, cx, cy, powered) {
  const g = svg('g', { 'aria-hidden': 'true', 'data-figure': f.id });
  const spring = f.faction === 'spring';
  g.append(svg('ellipse', {
    cx, cy: cy + 7, rx: TOKEN_R + 1, ry: 4.5, fill: spring ? INK : SNOW, stroke: spring ? MUTED : INK, 'stroke-width': 1,
  }));
  const m = marker(f.owner, cx, cy, TOKEN_R, { dim: f.incapacitated });
  if (f.incapacitated) m.setAttribute('transform', `rotate(32 ${cx} ${cy})`);
  g.append(m);
  if (powered) g.append(svg('polygon', { points: star(cx - TOKEN_R + 1, cy - TOKEN_R + 1, 4.5), fill: GOLD, stroke: INK, 'stroke-width': 0.6 }));
  if (f.incapacitated) {
    const bx = cx - 7;
    const by = cy + 6;
    g.append(svg('circle', { cx: bx, cy: by, r: 4.5, fill: WARN, stroke: INK, 'stroke-width': 0.8 }),
      svg('path', { d: `M${bx - 2} ${by - 2}L${bx + 2} ${by + 2}M${bx + 2} ${by - 2}L${bx - 2} ${by + 2}`, stroke: TEXT, 'stroke-width': 1.2 }));
  }
  return g;
}

/** A Quest counter: a hexagon in its Faction's colour with its Faction's glyph. */
function counterMark(faction, cx, cy, ongoing) {
  const g = svg('g', { 'aria-hidden': 'true' });
  const col = FACTION_COLOR[faction] ?? FACTION_COLOR.none;
  g.append(svg('polygon', { points: polygon(cx, cy, TOKEN_R + 1, 6, 30), fill: col, stroke: ongoing ? TEXT : INK, 'stroke-width': ongoing ? 2.5 : 1.2 }));
  g.append(text(cx, cy + 0.5, GLYPH[faction] ?? GLYPH.none, { size: SMALL, fill: INK, anchor: 'middle', weight: 700 }));
  return g;
}

// ------------------------------------------------------------------ map geometry
function mapX(x) {
  return 26 + ((x - 0.08) / 0.84) * 348;
}
function mapY(y) {
  return 36 + ((y - 0.08) / 0.84) * 404;
}
const POS = new Map(DATA.spaces.map((s) => {
  let x = mapX(s.x);
  let y = mapY(s.y);
  if (s.kind === 'location') {
    x = Math.min(W - 4 - LOC_W / 2, Math.max(4 + LOC_W / 2, x));
    y = Math.min(MAP_H - 3 - LOC_H / 2, Math.max(4 + LOC_H / 2, y));
  }
  return [s.id, { x, y }];
}));

/** Where each Square's name goes: under it when there is room, else above, beside or at a
 * corner of it, clear of the Locations, the other Squares and the names already placed. */
const LABELS = (() => {
  const taken = [];
  for (const s of DATA.spaces) {
    const { x, y } = POS.get(s.id);
    if (s.kind === 'location') taken.push([x - LOC_W / 2 - 1, y - LOC_H / 2 - 1, x + LOC_W / 2 + 1, y + LOC_H / 2 + 1]);
    else {
      const r = (s.statue ? STATUE_R : SQUARE_R) + 4;
      taken.push([x - r, y - r, x + r, y + r, s.id]);
    }
  }
  const out = new Map();
  const clear = (b, self) => b[0] >= 2 && b[1] >= 2 && b[2] <= W - 2 && b[3] <= MAP_H - 2
    && !taken.some((t) => t[4] !== self && b[0] < t[2] && t[0] < b[2] && b[1] < t[3] && t[1] < b[3]);
  for (const s of DATA.spaces.filter((sp) => sp.kind !== 'location')) {
    const { x, y } = POS.get(s.id);
    const r = (s.statue ? STATUE_R : SQUARE_R) + 4;
    const w = squareLabel(s.name).length * SMALL * 0.58 + 4;
    const h = SMALL + 3;
    const tries = [[0, r + h / 2], [0, -r - h / 2], [r + w / 2 + 2, 0], [-r - w / 2 - 2, 0],
      [r * 0.6 + w / 2, r * 0.7 + h / 2], [-r * 0.6 - w / 2, r * 0.7 + h / 2],
      [r * 0.6 + w / 2, -r * 0.7 - h / 2], [-r * 0.6 - w / 2, -r * 0.7 - h / 2]];
    let chosen = null;
    for (const [dx, dy] of tries) {
      const box = [x + dx - w / 2, y + dy - h / 2, x + dx + w / 2, y + dy + h / 2];
      if (clear(box, s.id)) {
        chosen = { x: x + dx, y: y + dy + 0.5, box };
        break;
      }
    }
    if (!chosen) chosen = { x, y: y + r + h / 2, box: [x - w / 2, y + r, x + w / 2, y + r + h] };
    taken.push(chosen.box);
    out.set(s.id, chosen);
  }
  return out;
})();

function locationLines(name) {
  return wrap(name, SMALL, LOC_W - 8, 2, true);
}

function squareLabel(name) {
  return name.replace(/ Square$/, '').replace(/'/g, '’');
}

function staticMap() {
  const g = svg('g', { class: 'wt-map-static', 'aria-hidden': 'true' });
  g.append(svg('rect', { x: 0, y: 0, width: W, height: MAP_H, rx: 8, fill: NIGHT }));
  // snow: fixed by a seed so the map never flickers
  let seed = 17;
  const flakes = svg('g', {});
  for (let i = 0; i < 90; i += 1) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const x = (seed % 3970) / 10;
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const y = (seed % 4770) / 10;
    flakes.append(svg('circle', { cx: x.toFixed(1), cy: y.toFixed(1), r: 0.6 + (i % 3) * 0.4, fill: mix(NIGHT, SNOW, 0.3 + (i % 3) * 0.1) }));
  }
  g.append(flakes);
  for (const [a, b] of DATA.edges) {
    const p = POS.get(a);
    const q = POS.get(b);
    g.append(svg('line', { x1: p.x, y1: p.y, x2: q.x, y2: q.y, stroke: STREET_EDGE, 'stroke-width': 8, 'stroke-linecap': 'round' }));
  }
  for (const [a, b] of DATA.edges) {
    const p = POS.get(a);
    const q = POS.get(b);
    g.append(svg('line', { x1: p.x, y1: p.y, x2: q.x, y2: q.y, stroke: STREET, 'stroke-width': 4, 'stroke-linecap': 'round' }));
  }
  for (const s of DATA.spaces) {
    const { x, y } = POS.get(s.id);
    if (s.kind === 'location') {
      g.append(svg('rect', { 'data-space': s.id, x: x - LOC_W / 2, y: y - LOC_H / 2, width: LOC_W, height: LOC_H, rx: 7, fill: LOC_FILL, stroke: LOC_EDGE, 'stroke-width': 1.5 }));
      locationLines(s.name).forEach((line, i) => {
        g.append(text(x, y - LOC_H / 2 + 10 + i * 13, line, { size: SMALL, weight: 700, anchor: 'middle', fill: TEXT }));
      });
    } else {
      const r = s.statue ? STATUE_R : SQUARE_R;
      g.append(svg('circle', { cx: x, cy: y, r: r + 4, fill: mix(STREET, SNOW, 0.35) }));
      g.append(svg('circle', { cx: x, cy: y, r: r + 1.5, fill: STREET_EDGE }));
      g.append(svg('circle', { 'data-space': s.id, cx: x, cy: y, r, fill: SQUARE_FILL }));
      if (s.statue) {
        // Mangiafuoco's statue: a pedestal and a heavy silhouette
        g.append(svg('path', {
          d: `M${x - 10} ${y + 12}h20v-4h-3l-2-14h-2.5a4 4 0 1 0 -5 0h-2.5l-2 14h-3z`,
          fill: '#C9CED9', opacity: 0.85,
        }));
      }
      const at = LABELS.get(s.id);
      g.append(text(at.x, at.y, squareLabel(s.name), { size: SMALL, weight: 700, anchor: 'middle', fill: mix(MUTED, SNOW, 0.3), cls: 'wt-halo' }));
    }
  }
  return g;
}

/** Where each piece of a space stands (figures and Quest counters). */
function spaceSpots(space, n) {
  const { x, y } = POS.get(space);
  const s = SPACES.get(space);
  const spots = [];
  if (s?.kind === 'location') {
    const per = n > 8 ? Math.ceil(n / 2) : 4; // a crowd overlaps a little, in two rows
    const pitch = Math.min(20, (LOC_W - 20) / Math.max(1, per - 1));
    const top = y - LOC_H / 2 + (locationLines(s.name).length > 1 ? 40 : 28);
    for (let i = 0; i < n; i += 1) {
      const row = Math.floor(i / per);
      const inRow = Math.min(per, n - row * per);
      const col = i % per;
      spots.push({ x: x - ((inRow - 1) * pitch) / 2 + col * pitch, y: top + row * 21 });
    }
  } else {
    for (let i = 0; i < n; i += 1) {
      const pitch = n > 3 ? 14 : 19;
      spots.push({ x: x - ((n - 1) * pitch) / 2 + i * pitch, y: y - 1 });
    }
  }
  return spots;
}

// ------------------------------------------------------------------ the board state
const STATES = new WeakMap();

function stateOf(container) {
  let st = STATES.get(container);
  if (!st) {
    st = { ctx: null, places: new Map(), sigs: {}, sections: {}, wide: null, picker: null, observer: null };
    STATES.set(container, st);
  }
  return st;
}

function seatName(ctx, seat) {
  const s = (ctx.seats ?? []).find((x) => x.index === seat);
  return s?.name ?? `Player ${seatStyle(seat).letter}`;
}

// ------------------------------------------------------------------ targets
function addTarget(st, parent, key, x, y, w, h, rx = 6) {
  const choices = st.places.get(key);
  if (!choices?.length) return null;
  const hw = Math.max(w, TOUCH);
  const hh = Math.max(h, TOUCH);
  const label = choices.length === 1 ? String(choices[0].label) : `${thingName(key)}: ${choices.length} choices`;
  const g = svg('g', {
    class: 'wt-target', role: 'button', tabindex: '0', 'aria-label': label,
    'data-key': key, 'data-codes': choices.map((c) => c.code).join(' '),
  });
  g.append(svg('rect', {
    class: 'wt-hit', x: x + w / 2 - hw / 2, y: y + h / 2 - hh / 2, width: hw, height: hh, fill: 'transparent',
  }));
  g.append(svg('rect', { class: 'wt-hl', x: x - 1, y: y - 1, width: w + 2, height: h + 2, rx, 'pointer-events': 'none' }));
  parent.append(g);
  return g;
}

function activate(container, key) {
  const st = stateOf(container);
  const choices = st.places.get(key);
  if (!choices?.length || !st.ctx) return;
  if (choices.length === 1) {
    closePicker(container, false);
    st.ctx.choose(choices[0].code);
    return;
  }
  openPicker(container, key, choices);
}

function onKey(container, event) {
  const g = event.target.closest?.('.wt-target');
  if (!g) return;
  if (event.key === 'Enter' || event.key === ' ' || event.key === 'Spacebar') {
    event.preventDefault();
    activate(container, g.dataset.key);
  }
}

// ------------------------------------------------------------------ the list of several choices
function closePicker(container, refocus = true) {
  const st = stateOf(container);
  if (!st.picker) return;
  const { el, key } = st.picker;
  st.picker = null;
  el.remove();
  if (refocus) container.querySelector(`.wt-target[data-key="${CSS.escape(key)}"]`)?.focus();
}

function openPicker(container, key, choices) {
  closePicker(container, false);
  const st = stateOf(container);
  const el = document.createElement('div');
  el.className = 'wt-picker';
  el.setAttribute('role', 'dialog');
  el.setAttribute('aria-labelledby', 'wt-picker-h');
  const h = document.createElement('h3');
  h.className = 'wt-picker-h';
  h.id = 'wt-picker-h';
  h.textContent = thingName(key);
  const grid = document.createElement('div');
  grid.className = 'wt-picker-grid';
  for (const choice of choices) {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = `choice choice-${['primary', 'success', 'danger'].includes(choice.style) ? choice.style : 'secondary'}`;
    b.dataset.wtCode = String(choice.code);
    b.textContent = String(choice.label);
    b.addEventListener('click', () => {
      closePicker(container);
      st.ctx?.choose(choice.code);
    });
    grid.append(b);
  }
  const cancel = document.createElement('button');
  cancel.type = 'button';
  cancel.className = 'choice choice-secondary wt-picker-cancel';
  cancel.textContent = 'Cancel';
  cancel.addEventListener('click', () => closePicker(container));
  const top = document.createElement('div');
  top.className = 'wt-picker-top';
  top.append(h, cancel);
  el.append(top, grid);
  el.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      closePicker(container);
    }
  });
  container.append(el);
  st.picker = { el, key, codes: choices.map((c) => c.code).join(' ') };
  grid.querySelector('button')?.focus();
}

// ------------------------------------------------------------------ sections
function bannerSection(g, ctx) {
  const v = ctx.view ?? {};
  g.append(svg('rect', { x: 0, y: 0, width: W, height: 46, rx: 8, fill: PANEL }));
  const made = (v.memories ?? []).filter((m) => m.slot < (v.epilogue_space ?? 4)).length;
  let head;
  if (!v.chapter) head = `Setup · a story of ${v.length ?? 3} Memories`;
  else head = `Chapter ${v.chapter} · Memories ${made}/${v.length ?? 3}`;
  let second = '';
  let accent = GOLD;
  if (v.winner) {
    const who = { spring: 'Spring wins', winter: 'Winter wins', writer: 'The Writer wins', none: 'Nobody wins' }[v.winner] ?? `${v.winner} wins`;
    const score = v.final ? Object.entries(v.final).map(([k, n]) => `${FACTION_LABEL[k] ?? k} ${n}`).join(' · ') : '';
    head = `The story is told: ${who}`;
    second = score;
    accent = '#23A55A';
  } else if (v.phase === 'epilogue' || v.epilogue_count) {
    const c = v.epilogue_count ?? {};
    second = `The Epilogue: Spring ${c.spring ?? 0} · Winter ${c.winter ?? 0}`;
  } else {
    const parts = [];
    if (v.acting !== null && v.acting !== undefined) parts.push(`Acting: ${seatName(ctx, v.acting)} (${FACTION_LABEL[v.factions?.[v.acting]] ?? '?'})`);
    const waiting = (v.to_act ?? []).filter((s) => s !== v.acting);
    if (waiting.length) parts.push(`Waiting for ${waiting.slice(0, 3).map((s) => seatName(ctx, s)).join(', ')}`);
    second = parts.join(' · ') || String(v.decision ?? v.phase ?? '');
  }
  g.append(svg('rect', { x: 0, y: 0, width: 6, height: 46, rx: 3, fill: accent }));
  g.append(text(14, 15, fit(head, HEAD, W - 24, true), { size: HEAD, weight: 700 }));
  g.append(text(14, 34, fit(second, BODY, W - 24), { size: BODY, fill: MUTED }));
  return 46;
}

function mapSection(g, ctx, st) {
  const v = ctx.view ?? {};
  if (!st.staticMap) st.staticMap = staticMap();
  g.append(st.staticMap);
  const items = new Map();
  const put = (space, item) => {
    if (!space || !POS.has(space)) return;
    if (!items.has(space)) items.set(space, []);
    items.get(space).push(item);
  };
  for (const q of v.quests ?? []) if (q.space) put(q.space, { quest: q });
  for (const f of v.figures ?? []) if (f.space && !f.removed) put(f.space, { figure: f });
  const powered = new Set((v.powers ?? []).flatMap((p) => p.characters ?? []));
  const ongoing = v.ongoing;
  const pieces = svg('g', { class: 'wt-pieces' });
  for (const [space, list] of items) {
    spaceSpots(space, list.length).forEach((p, i) => {
      const it = list[i];
      if (it.quest) pieces.append(counterMark(it.quest.faction, p.x, p.y, it.quest.counter === ongoing));
      else pieces.append(token(it.figure, p.x, p.y, powered.has(it.figure.id)));
    });
  }
  g.append(pieces);
  const targets = svg('g', { class: 'wt-targets' });
  for (const s of DATA.spaces) {
    const { x, y } = POS.get(s.id);
    if (s.kind === 'location') addTarget(st, targets, `space:${s.id}`, x - LOC_W / 2, y - LOC_H / 2, LOC_W, LOC_H, 7);
    else {
      const r = (s.statue ? STATUE_R : SQUARE_R) + 5;
      addTarget(st, targets, `space:${s.id}`, x - r, y - r, 2 * r, 2 * r, r);
    }
  }
  g.append(targets);
  return MAP_H;
}

function sectionHead(g, words, right = '') {
  g.append(text(6, 11, words, { size: BODY, weight: 700, fill: MUTED }));
  if (right) g.append(text(W - 6, 11, right, { size: SMALL, fill: MUTED, anchor: 'end' }));
}

function questSection(g, ctx) {
  const v = ctx.view ?? {};
  const h = SECTION_HEAD + 4 * QUEST_ROW + 4;
  g.append(svg('rect', { x: 0, y: 0, width: W, height: h, rx: 8, fill: PANEL }));
  let right = '';
  if (v.ongoing) {
    const c = v.ongoing_count ?? {};
    right = `Ongoing: Spring ${c.spring ?? 0} · Winter ${c.winter ?? 0}`;
  }
  sectionHead(g, 'Quests', right);
  const shown = (v.quests ?? []).filter((q) => q.space || q.carrier).slice(0, 8);
  if (!shown.length) g.append(text(10, SECTION_HEAD + 14, 'No Quest on the board yet.', { size: SMALL, fill: DIM }));
  shown.forEach((q, i) => {
    const col = i % 2;
    const row = Math.floor(i / 2);
    const x = 6 + col * 196;
    const y = SECTION_HEAD + row * QUEST_ROW;
    g.append(counterMark(q.faction, x + 11, y + 15, q.counter === v.ongoing));
    const name = questName(q.counter);
    g.append(text(x + 26, y + 8, fit(name, SMALL, 164, true), { size: SMALL, weight: 700, fill: q.counter === v.ongoing ? GOLD : TEXT }));
    const where = q.carrier ? `with ${charName(q.carrier)}` : `at ${spaceName(q.space)}`;
    g.append(text(x + 26, y + 22, fit(where, SMALL, 164), { size: SMALL, fill: MUTED }));
  });
  return h;
}

function seatsSection(g, ctx) {
  const v = ctx.view ?? {};
  const n = v.players ?? (v.factions ?? []).length;
  const h = SECTION_HEAD + n * SEAT_ROW + 4;
  g.append(svg('rect', { x: 0, y: 0, width: W, height: h, rx: 8, fill: PANEL }));
  sectionHead(g, 'Players', `Deck ${v.deck_count ?? 0} · Discard ${v.discard_count ?? 0}`);
  const toAct = new Set(v.to_act ?? []);
  for (let s = 0; s < n; s += 1) {
    const y = SECTION_HEAD + s * SEAT_ROW;
    if (toAct.has(s)) g.append(svg('rect', { x: 3, y: y + 1, width: W - 6, height: SEAT_ROW - 2, rx: 5, fill: PANEL_HI }));
    g.append(marker(s, 16, y + 15, 10, { letterSize: BODY }));
    const you = ctx.seat === s ? ' (you)' : '';
    g.append(text(32, y + 15, fit(`${seatName(ctx, s)}${you}`, BODY, 118, true), { size: BODY, weight: 700 }));
    const fac = v.factions?.[s];
    g.append(text(156, y + 15, `${GLYPH[fac] ?? ''} ${FACTION_LABEL[fac] ?? ''}`, { size: BODY, fill: FACTION_COLOR[fac] ?? MUTED, weight: 700 }));
    const counts = `${v.hand_counts?.[s] ?? 0} cards · ${v.objective_counts?.[s] ?? 0} obj.`;
    g.append(text(W - 8, y + 15, counts, { size: SMALL, fill: MUTED, anchor: 'end' }));
    if (v.arbiter === s) g.append(text(226, y + 15, 'Arbiter', { size: SMALL, fill: GOLD, weight: 700 }));
    if (toAct.has(s)) g.append(svg('polygon', { points: `${W - 4},${y + 9} ${W - 4},${y + 21} ${W - 1},${y + 15}`, fill: GOLD }));
  }
  return h;
}

function characterSection(g, ctx, st) {
  const v = ctx.view ?? {};
  const byId = new Map((v.figures ?? []).map((f) => [f.id, f]));
  const cols = ['spring', 'winter'].map((fac) => DATA.characters.filter((c) => c.faction === fac));
  const rows = Math.max(...cols.map((c) => c.length));
  const h = SECTION_HEAD + rows * CHAR_ROW + 2;
  g.append(svg('rect', { x: 0, y: 0, width: W, height: h, rx: 8, fill: PANEL }));
  g.append(text(8, 11, `${GLYPH.spring} Fairy Tales (Spring)`, { size: BODY, weight: 700, fill: FACTION_COLOR.spring }));
  g.append(text(206, 11, `${GLYPH.winter} Soldiers (Winter)`, { size: BODY, weight: 700, fill: FACTION_COLOR.winter }));
  const powered = new Set((v.powers ?? []).flatMap((p) => p.characters ?? []));
  const carrying = new Map((v.quests ?? []).filter((q) => q.carrier).map((q) => [q.carrier, q]));
  const targets = svg('g', { class: 'wt-targets' });
  cols.forEach((list, ci) => {
    list.forEach((c, ri) => {
      const f = byId.get(c.id) ?? { id: c.id, faction: c.faction, owner: null, space: null, ready: true };
      const x = 4 + ci * 198;
      const y = SECTION_HEAD + ri * CHAR_ROW;
      const w = 194;
      const inPlay = f.owner !== null && f.owner !== undefined && !f.removed;
      g.append(svg('rect', { 'data-character': c.id, x, y, width: w, height: CHAR_H, rx: 7, fill: inPlay ? PANEL_HI : PANEL, stroke: GRID, 'stroke-width': 1 }));
      g.append(marker(inPlay ? f.owner : null, x + 17, y + 17, 11, { dim: f.incapacitated, letterSize: BODY }));
      g.append(svg('rect', { x: x + 9, y: y + 33, width: 16, height: 6, rx: 3, fill: c.faction === 'spring' ? INK : SNOW, stroke: c.faction === 'spring' ? MUTED : INK, 'stroke-width': 1 }));
      g.append(text(x + 34, y + 15, fit(c.name, BODY, w - 40, true), { size: BODY, weight: 700, fill: inPlay ? TEXT : MUTED }));
      let where;
      if (f.removed) where = 'out of the story';
      else if (!inPlay) where = 'not chosen';
      else where = f.space ? spaceName(f.space) : 'off the map';
      const tags = [];
      if (f.incapacitated) tags.push('down');
      else if (inPlay && f.ready === false) tags.push('used');
      if (powered.has(f.id)) tags.push('★');
      if (carrying.has(f.id)) tags.push('⬢');
      const line = tags.length ? `${fit(where, SMALL, w - 44 - tags.join(' ').length * 7)} · ${tags.join(' ')}` : fit(where, SMALL, w - 40);
      g.append(text(x + 34, y + 34, line, { size: SMALL, fill: f.incapacitated ? '#FA777C' : MUTED }));
      addTarget(st, targets, `char:${c.id}`, x, y, w, CHAR_H, 7);
    });
  });
  g.append(targets);
  return h;
}

function trackCount(v) {
  const last = Math.max(v.epilogue_space ?? 4, v.bookmark ?? 0, ...(v.memories ?? []).map((m) => m.slot));
  return Math.max(1, Math.ceil(last / 4)) * 4;
}

function trackSection(g, ctx, st) {
  const v = ctx.view ?? {};
  const n = trackCount(v);
  const rows = n / 4;
  const cw = (W - 12 - 3 * 8) / 4;
  const h = SECTION_HEAD + rows * (CELL_H + 6) + 2;
  g.append(svg('rect', { x: 0, y: 0, width: W, height: h, rx: 8, fill: PANEL }));
  sectionHead(g, 'Memory Track', v.bookmark ? `Bookmark on ${v.bookmark}` : '');
  const bySlot = new Map((v.memories ?? []).map((m) => [m.slot, m]));
  const icons = new Set(DATA.objectiveIcons);
  const epi = v.epilogue_space ?? 4;
  const targets = svg('g', { class: 'wt-targets' });
  for (let i = 1; i <= n; i += 1) {
    const x = 6 + ((i - 1) % 4) * (cw + 8);
    const y = SECTION_HEAD + Math.floor((i - 1) / 4) * (CELL_H + 6);
    const mem = bySlot.get(i);
    let fill = PANEL_HI;
    if (mem) fill = mix(PANEL, FACTION_COLOR[mem.faction] ?? FACTION_COLOR.none, 0.55);
    else if (i > epi) fill = PANEL;
    g.append(svg('rect', { 'data-slot': i, x, y, width: cw, height: CELL_H, rx: 6, fill, stroke: i === epi ? GOLD : GRID, 'stroke-width': i === epi ? 2 : 1 }));
    const ink = mem ? inkOn(fill) : (i > epi ? DIM : MUTED);
    g.append(text(x + 6, y + 10, String(i), { size: SMALL, weight: 700, fill: ink }));
    if (icons.has(i) && i < epi) {
      g.append(svg('polygon', { points: star(x + 22, y + 10, 5.5), fill: GOLD, stroke: INK, 'stroke-width': 0.6 }));
    }
    if (i === epi) {
      g.append(text(x + cw / 2, y + CELL_H / 2 + 4, 'Epilogue', { size: SMALL, weight: 700, anchor: 'middle', fill: GOLD }));
    } else if (mem) {
      g.append(text(x + cw - 6, y + 11, GLYPH[mem.faction] ?? GLYPH.none, { size: BODY, anchor: 'end', fill: ink, weight: 700 }));
      wrap(memoryTitle(mem), SMALL, cw - 8, 3, true).forEach((line, k) => {
        g.append(text(x + 4, y + 25 + k * 13, line, { size: SMALL, weight: 700, fill: ink }));
      });
    }
    if (v.bookmark === i) {
      g.append(svg('path', { d: `M${x + cw - 30} ${y - 2}h10v16l-5-4l-5 4z`, fill: BOOKMARK, stroke: INK, 'stroke-width': 0.8 }));
    }
    addTarget(st, targets, `mem:${i}`, x, y, cw, CELL_H, 6);
  }
  g.append(targets);
  return h;
}

function handSection(g, ctx, st) {
  const v = ctx.view ?? {};
  const hand = v.hand ?? [];
  const mine = (v.objectives ?? []).filter((o) => o.seat === v.seat);
  const notes = [];
  for (const o of mine) {
    const state = o.completed ? 'completed' : o.revealed ? 'revealed' : 'secret';
    const places = (o.locations ?? []).map(spaceName).join(', ');
    notes.push(`Objective (${state}): ${o.title}${places ? ` — ${places}` : ''}`);
  }
  if (v.trap_hidden) notes.push(`Hidden under your character (Trap): ${v.trap_hidden.length} cards`);
  const rows = Math.max(DATA.handLimit, hand.length);
  const top = SECTION_HEAD + notes.length * NOTE_ROW;
  const h = top + rows * CARD_ROW + 2;
  g.append(svg('rect', { x: 0, y: 0, width: W, height: h, rx: 8, fill: PANEL }));
  sectionHead(g, 'Your Story cards', `${hand.length}/${DATA.handLimit}`);
  notes.forEach((note, i) => g.append(text(8, SECTION_HEAD + 8 + i * NOTE_ROW, fit(note, SMALL, W - 16), { size: SMALL, fill: GOLD })));
  const targets = svg('g', { class: 'wt-targets' });
  if (!hand.length) g.append(text(10, top + 14, 'No Story cards in hand.', { size: SMALL, fill: DIM }));
  hand.forEach((card, i) => {
    const y = top + i * CARD_ROW;
    const x = 4;
    g.append(svg('rect', { 'data-card': card.id, x, y, width: W - 8, height: CARD_H, rx: 7, fill: PANEL_HI, stroke: GRID, 'stroke-width': 1 }));
    const titleLines = wrap(`${cardNumber(card.id)}${card.title}`, BODY, 118, 3, true);
    titleLines.forEach((line, k) => {
      g.append(text(x + 6, y + CARD_H / 2 + (k - (titleLines.length - 1) / 2) * 14, line, { size: BODY, weight: 700 }));
    });
    const halves = [['spring', card.spring], ['winter', card.winter]];
    halves.forEach(([side, caption], k) => {
      const hx = 134 + k * 130;
      const hw = 126;
      const col = FACTION_COLOR[side];
      g.append(svg('rect', { x: hx, y: y + 3, width: hw, height: CARD_H - 6, rx: 5, fill: mix(PANEL, col, 0.22), stroke: col, 'stroke-width': 1 }));
      const lines = wrap(`${GLYPH[side]} ${caption}`, SMALL, hw - 8, 3);
      lines.forEach((line, j) => {
        g.append(text(hx + 4, y + CARD_H / 2 + (j - (lines.length - 1) / 2) * 13, line, { size: SMALL, fill: TEXT }));
      });
      addTarget(st, targets, `card:${card.id}:${side}`, hx, y + 3, hw, CARD_H - 6, 5);
    });
    addTarget(st, targets, `card:${card.id}`, x, y, W - 8, CARD_H, 7);
  });
  g.append(targets);
  return h;
}

// ------------------------------------------------------------------ drawing
const SECTIONS = [
  ['banner', bannerSection, (ctx) => [ctx.view?.chapter, ctx.view?.length, ctx.view?.memories, ctx.view?.epilogue_space, ctx.view?.winner, ctx.view?.final, ctx.view?.phase, ctx.view?.epilogue_count, ctx.view?.acting, ctx.view?.to_act, ctx.view?.decision, ctx.view?.factions]],
  ['map', mapSection, (ctx) => [ctx.view?.figures, ctx.view?.quests, ctx.view?.powers, ctx.view?.ongoing]],
  ['quests', questSection, (ctx) => [ctx.view?.quests, ctx.view?.ongoing, ctx.view?.ongoing_count, ctx.view?.figures]],
  ['seats', seatsSection, (ctx) => [ctx.view?.players, ctx.view?.factions, ctx.view?.to_act, ctx.view?.arbiter, ctx.view?.hand_counts, ctx.view?.objective_counts, ctx.view?.deck_count, ctx.view?.discard_count]],
  ['characters', characterSection, (ctx) => [ctx.view?.figures, ctx.view?.powers, ctx.view?.quests]],
  ['track', trackSection, (ctx) => [ctx.view?.memories, ctx.view?.bookmark, ctx.view?.epilogue_space]],
  ['hand', handSection, (ctx) => [ctx.view?.hand, ctx.view?.objectives, ctx.view?.trap_hidden, ctx.view?.seat]],
];
const LEFT = new Set(['banner', 'map', 'quests', 'seats']);

function boardLabel(ctx) {
  const v = ctx.view ?? {};
  const here = (v.figures ?? []).filter((f) => f.space && !f.removed)
    .map((f) => `${charName(f.id)} (${f.owner !== null && f.owner !== undefined ? seatStyle(f.owner).letter : 'nobody'}) in ${spaceName(f.space)}`);
  return `Winter Tales board: Wintertown. ${here.length ? here.join('; ') : 'No character on the map yet'}.`;
}

/** The board's draw function (see board/index.js). */
export function draw(container, ctx) {
  const st = stateOf(container);
  st.ctx = ctx;
  const view = ctx.view && typeof ctx.view === 'object' ? ctx.view : null;
  const root = ensureSvg(container, { viewBox: `0 0 ${W} 100`, label: view ? boardLabel(ctx) : 'Winter Tales: the game has not started yet.' });
  if (!st.wired) {
    st.wired = true;
    root.setAttribute('role', 'group'); // its touches must stay visible to screen readers
    root.classList.add('wt-board');
    root.addEventListener('click', (event) => {
      const g = event.target.closest?.('.wt-target');
      if (g) activate(container, g.dataset.key);
    });
    root.addEventListener('keydown', (event) => onKey(container, event));
    if (typeof ResizeObserver === 'function') {
      st.observer = new ResizeObserver(() => {
        const wide = container.clientWidth >= WIDE_AT;
        if (st.ctx && wide !== st.wide) layout(container, root, st);
      });
      st.observer.observe(container);
    }
  }
  const focusedKey = document.activeElement?.closest?.('.wt-target')?.dataset.key ?? null;
  // While a step is open its choices are the board's targets, not the table's again.
  st.places = view ? placesOf((ctx.step ? ctx.step.choices : ctx.choices) ?? [], view, !!ctx.step) : new Map();
  const placesSig = JSON.stringify([...st.places].map(([k, list]) => [k, list.map((c) => [c.code, c.label])]));
  for (const [name, fn, sigOf] of SECTIONS) {
    let g = st.sections[name];
    if (!g) {
      g = svg('g', { class: `wt-section wt-${name}` });
      st.sections[name] = g;
      root.append(g);
    }
    const show = !!view && (name !== 'hand' || Array.isArray(view.hand));
    const sig = show ? JSON.stringify([sigOf(ctx), name === 'banner' || name === 'seats' ? (ctx.seats ?? []).map((s) => s.name) : null, ctx.seat, placesSig]) : 'hidden';
    if (st.sigs[name] === sig) continue;
    st.sigs[name] = sig;
    g.replaceChildren();
    g.dataset.height = show ? String(fn(g, ctx, st)) : '0';
    g.hidden = !show;
    if (!show) g.setAttribute('display', 'none');
    else g.removeAttribute('display');
  }
  layout(container, root, st);
  if (focusedKey && !document.activeElement?.isConnected) {
    container.querySelector(`.wt-target[data-key="${CSS.escape(focusedKey)}"]`)?.focus();
  }
  if (st.picker) {
    const still = st.places.get(st.picker.key);
    if (!still || still.map((c) => c.code).join(' ') !== st.picker.codes) closePicker(container, false);
  }
}

function layout(container, root, st) {
  const wide = container.clientWidth >= WIDE_AT;
  st.wide = wide;
  const cols = wide ? [[], []] : [[]];
  for (const [name] of SECTIONS) {
    const g = st.sections[name];
    if (!g || g.hidden) continue;
    cols[wide && !LEFT.has(name) ? 1 : 0].push(g);
  }
  let height = 0;
  cols.forEach((list, c) => {
    let y = 0;
    for (const g of list) {
      g.setAttribute('transform', `translate(${c * (W + 16)} ${y})`);
      y += Number(g.dataset.height) + GAP;
    }
    height = Math.max(height, y - GAP);
  });
  const width = wide ? 2 * W + 16 : W;
  root.setAttribute('viewBox', `0 0 ${width} ${Math.max(100, Math.ceil(height))}`);
  root.classList.toggle('wt-wide', wide);
}
