// Crossroads Inn's board: whose turn and which of the nine steps, the viewer's own hand
// (only in a seat's own view: the Basic Inn Tiles of the draft, the Recipes, the two drawn),
// the two Investment Tracks, the viewer's inn (with its five Guest Tiles and doors, its
// gossips and reserved tiles), every innkeeper's counters, the Reputation Board, the other
// inns and the Kingdom Cards. Drawn from the view alone (names and texts from
// crossroads-inn-data.js, a copy of the game's content), with renderers/crossroads_inn.py's
// colours: the tile categories (Furnishings yellow, Services brown, Workers blue, Special
// Guests red) with their letter F S W G, the gossips' ribbons with E P T, the ingredients'
// colours with their names, stone Basic Inn Tiles, the seats' markers of renderers/common.py
// (colour, shape and letter).
//
// Touches (each one a choice of the moment, from ctx.step's choices while a guided step is
// open, else ctx.choices; codes of bot/core/choices/crossroads_inn.py, matched by shape):
//   d<i>                 a Basic Inn Tile of the draft pack (i: of the pack's tiles, sorted)
//   p<i>.<corner>        a corner of the inn, for the tile to place chosen on the hand
//   k.<space>            a space of the inn to build on
//   b.<1|2>.<slot>.gu|go a track tile (the top half pays guldens, the bottom half gossips
//                        when both are offered); b.r.<i>.gu|go a reserved tile (left/right)
//   r.<tier>.<slot>      a track tile to reserve; o.<tier>.<slot> (a tile picked from them)
//   o.<i>                a reserved tile to discard; o.<group> a Guest Tile; o.<gossip> a gossip
//   c<i>, s<i>           a Recipe to cook, or one to keep or discard
//   g.ea / g.pa.<group> / g.ta.<tier>   a gossip, a Guest Tile, a track
//   g.pb.<seat> g.eb.<seat> ...  a step's "whom": the innkeeper's row
//   g.tb.<space> (then g.tb.<mine>.<seat>.<theirs>)  a tile of your inn, then theirs
//   i.<closed>.<open>    the Guest Impression: the closed door's group is chosen on the Guest
//                        Tiles first (a touch of the board's own, aria-pressed, no code), then
//                        the open door's Guest Tile plays the pair (a step's i.<closed>: a tile)
// Every other choice (Skip, Take back, End my turn, the Townsfolk and Travellers actions,
// the political pairs...) stays a button of the shell only. The Basic Inn Tile to place is
// chosen on the hand the same way (the first one at first), then its corner on the inn.
//
// One layout, 360 units wide (on a wide screen at most 36rem, app.css); every text at least
// 10.5 units (9 CSS px from a 336 px wide board up). Its height is fixed by the number of
// seats and whether the view holds a hand, so no update moves the page.
import { ownerMarker, ownerStyle, shape } from './marks.js';
import { ensureSvg, fitText, measure, setTarget as markTarget, svg } from './svg.js';
import { DATA } from './crossroads-inn-data.js';

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
const GOOD = '#23a55a';
// From renderers/crossroads_inn.py: CATEGORY_FILL, GOSSIP_FILL / GOSSIP_LETTER,
// INGREDIENT_FILL, BASIC_FILL, RECIPE_FILL, LOSS, INNER_RING, SPECIAL_FILL.
const CATEGORY_FILL = { yellow: '#f2c94c', brown: '#8b5a2e', blue: '#2f6bc4', red: '#e06a60' };
const CATEGORY_LETTER = { furnishings: 'F', services: 'S', workers: 'W', special_guests: 'G' };
const CATEGORY_SHORT = { furnishings: 'Furnishings', services: 'Services', workers: 'Workers', special_guests: 'Guests' };
const GOSSIPS = ['economic', 'political', 'travellers'];
const GOSSIP_FILL = { economic: '#2ea05a', political: '#4b84e6', travellers: '#f26360' };
const GOSSIP_LETTER = { economic: 'E', political: 'P', travellers: 'T' };
const GOSSIP_WORD = { economic: 'economic', political: 'political', travellers: "traveller's" };
const INGREDIENT_FILL = {
  honey: '#f0b429', berries: '#a24cc2', root_spices: '#b87333', venison: '#9e3636', citrus: '#ff9f1c',
  black_tears: '#1e1f22', pumpkin: '#e86a17', herbal_spices: '#4caf50', epic_cheese: '#ffe066', fish: '#4fb3c9',
};
const BASIC_FILL = '#e4dac2';
const RECIPE_FILL = '#f3e3c0';
const LOSS = '#ff8a80';
const INNER_RING = '#8e96a6';
const SPECIAL_FILL = '#86732f'; // mix(PANEL_HI, GOLD, 0.38)
const TARGET = '#8c96ff'; // the touch outline: the shell's blurple, lightened for the dark board

const STEPS = [['impression', 'Impress'], ['gossip', 'Gossip'], ['invest', 'Invest'], ['reserve', 'Reserve'],
  ['build', 'Build'], ['recipes', 'Recipes'], ['confirm', 'Confirm']];
const STEP_WORDS = { impression: 'the Guest Impression', gossip: 'the gossips', invest: 'Investing',
  reserve: 'Reserving', build: 'Building', recipes: 'the Recipes', confirm: 'confirming the turn' };
const TIER = { 1: 'I', 2: 'II' };
const MIN_FONT = 10.5;
const LH = 12.5;

// ----------------------------------------------------------------------------- geometry
const W = 360;
const M = 4;
const CW = W - 2 * M;
const CARD_W = (CW - 3 * 4) / 4; // four cards a row
const HAND_CARD_H = 118;
const TILE_H = 132;
const CELL_W = CW / 5;
const CELL_H = 60;
const SEAT_H = 58;
const REP_ROW = 26;

// ----------------------------------------------------------------------------- small helpers

/** This board's seat marker. */
function seatMarker(seat, cx, cy, r) {
  return ownerMarker(seat, cx, cy, r, { cls: 'ci-marker', strokeWidth: 1.2, letterOnlyIfReadable: true });
}

function text(attrs, words = '') {
  return svg('text', { 'font-size': MIN_FONT, fill: TEXT, 'dominant-baseline': 'central', ...attrs }, words);
}

function luminance(hex) {
  const v = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * v[0] + 0.7152 * v[1] + 0.0722 * v[2];
}

/** Dark ink or white text, whichever contrasts more (renderers/common.py readable_on). */
function inkOn(fill) {
  const l = luminance(fill);
  const contrast = (a, b) => (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  return contrast(l, luminance(INK)) >= contrast(l, luminance(TEXT)) ? INK : TEXT;
}

/** words in tspans of el, at most maxWidth wide and maxLines lines (the last one cut). */
function wrap(el, words, maxWidth, maxLines, lineHeight = LH) {
  const sig = JSON.stringify([words, maxWidth, maxLines]);
  if (el.dataset.sig === sig) return;
  el.dataset.sig = sig;
  el.replaceChildren();
  const x = el.getAttribute('x');
  const probe = svg('tspan', { x });
  el.append(probe);
  const lines = [];
  let line = '';
  for (const word of String(words).split(/\s+/).filter(Boolean)) {
    const candidate = line ? `${line} ${word}` : word;
    probe.textContent = candidate;
    if (!line || measure(probe) <= maxWidth || measure(probe) === 0) line = candidate;
    else { lines.push(line); line = word; }
  }
  if (line) lines.push(line);
  probe.remove();
  const shown = lines.length > maxLines ? [...lines.slice(0, maxLines - 1), lines.slice(maxLines - 1).join(' ')] : lines;
  shown.forEach((words2, i) => {
    const t = svg('tspan', { x, dy: i === 0 ? 0 : lineHeight });
    el.append(t);
    t.textContent = words2;
    if (measure(t) > maxWidth) {
      let cut = words2.length;
      while (cut > 1 && measure(t) > maxWidth) {
        cut -= 1;
        t.textContent = `${words2.slice(0, cut).trimEnd()}…`;
      }
    }
  });
}

function setText(el, words) {
  const w = String(words);
  if (el.textContent !== w) el.textContent = w;
}

function seatName(ctx, seat) {
  const s = (ctx.seats ?? []).find((x) => x.index === seat);
  return s?.name || `Player ${ownerStyle(seat).letter}`;
}

const tileOf = (id) => DATA.tiles[id] ?? null;
const basicOf = (id) => DATA.basics[id] ?? null;
const recipeOf = (id) => DATA.recipes[id] ?? null;
const groupName = (g) => DATA.groups.find((x) => x.id === g)?.name ?? String(g);
const ingredientName = (i) => DATA.ingredients[i]?.name ?? String(i).replace(/_/g, ' ');

function anyName(id) {
  return tileOf(id)?.name ?? basicOf(id)?.name ?? String(id).replace(/_/g, ' ');
}

function categoryFill(tile) {
  const cat = DATA.categories[tile?.category];
  return cat ? CATEGORY_FILL[cat.colour] ?? PANEL_HI : PANEL_HI;
}

function owned(player) {
  const out = new Map();
  for (const b of Object.values(player?.inn ?? {})) {
    for (const i of b.ingredients ?? []) out.set(i, (out.get(i) ?? 0) + 1);
  }
  return out;
}

const isCorner = (r, c) => (r === 0 || r === 3) && (c === 0 || c === 4);
const isInner = (r, c) => r > 0 && r < 3 && c > 0 && c < 4;

// ----------------------------------------------------------------------------- the targets

/**
 * Where each choice of the moment goes on the board: a map from a place's key to
 * {choice} or, for a tile that can be paid two ways, {gu, go}. Matched by the code's shape
 * (bot/core/choices/crossroads_inn.py action_code); a code with no single place stays a
 * button only.
 */
export function placeChoices(view, choices, me, selected, closed = null) {
  const places = new Map();
  const put = (key, choice, zone = 'choice') => {
    const at = places.get(key) ?? {};
    if (at[zone]) return;
    at[zone] = choice;
    places.set(key, at);
  };
  const pend = view.pending ?? null;
  const codes = [...choices.keys()];
  const packTiles = [...new Set(view.my_pack ?? [])];
  const recipes = [...new Set(view.my_recipes ?? [])];
  const mine = me !== null && me !== undefined ? view.seats?.[me] : null;
  const have = owned(mine);
  const cookable = recipes.filter((r) => (recipeOf(r)?.ingredients ?? []).every((i) => (have.get(i) ?? 0) > 0));
  const tbLeaves = codes.filter((c) => /^g\.tb\.r\dc\d\.\d\.r\dc\d$/.test(c));
  const tbMine = new Set(tbLeaves.map((c) => c.split('.')[2]));
  const iLeaves = codes.filter((c) => /^i\.[a-z]+\.[a-z]+$/.test(c));
  const iClosed = new Set(iLeaves.map((c) => c.split('.')[1]));
  const groups = new Set(DATA.groups.map((g) => g.id));
  for (const [code, choice] of choices) {
    let m;
    if ((m = /^d(\d+)$/.exec(code)) && view.phase === 'draft' && packTiles[+m[1]]) put(`pack:${m[1]}`, choice);
    else if ((m = /^p(\d+)\.(r\dc\d)$/.exec(code))) { if (+m[1] === selected) put(`cell:${me}:${m[2]}`, choice); }
    else if ((m = /^k\.(r\dc\d)$/.exec(code))) put(`cell:${me}:${m[1]}`, choice);
    else if ((m = /^b\.([12])\.(\d)\.(gu|go)$/.exec(code))) put(`tile:${m[1]}.${m[2]}`, choice, m[3]);
    else if ((m = /^b\.([12])\.(\d)$/.exec(code))) put(`tile:${m[1]}.${m[2]}`, choice);
    else if ((m = /^b\.r\.(\d)\.(gu|go)$/.exec(code))) put(`res:${m[1]}`, choice, m[2]);
    else if ((m = /^b\.r\.(\d)$/.exec(code))) put(`res:${m[1]}`, choice);
    else if ((m = /^[br]\.([12])$/.exec(code))) put(`track:${m[1]}`, choice);
    else if ((m = /^r\.([12])\.(\d)$/.exec(code))) put(`tile:${m[1]}.${m[2]}`, choice);
    else if ((m = /^o\.([12])\.(\d)$/.exec(code)) && pend?.kind === 'investment_pick') put(`tile:${m[1]}.${m[2]}`, choice);
    else if ((m = /^o\.(\d)$/.exec(code)) && pend?.kind === 'reserved_discard') put(`res:${m[1]}`, choice);
    else if ((m = /^o\.([a-z]+)$/.exec(code)) && pend?.kind === 'reputation_any' && groups.has(m[1])) put(`guest:${m[1]}`, choice);
    else if ((m = /^o\.([a-z]+)$/.exec(code)) && ['gossip_gain', 'gossip_lose'].includes(pend?.kind) && GOSSIPS.includes(m[1])) put(`gossip:${m[1]}`, choice);
    else if ((m = /^s(\d+)$/.exec(code)) && ['keep_recipe', 'discard_recipe'].includes(pend?.kind)) {
      const r = [...new Set(pend.options ?? [])][+m[1]];
      if (r) put(`${pend.kind === 'keep_recipe' ? 'drawn' : 'recipe'}:${r}`, choice);
    } else if ((m = /^c(\d+)$/.exec(code)) && cookable[+m[1]]) put(`recipe:${cookable[+m[1]]}`, choice);
    else if (code === 'g.ea') put('gossip:economic', choice);
    else if ((m = /^g\.pa\.([a-z]+)$/.exec(code))) put(`guest:${m[1]}`, choice);
    else if ((m = /^g\.ta\.([12])$/.exec(code))) put(`track:${m[1]}`, choice);
    else if ((m = /^g\.(eb|ec|pb|pc)\.(\d)$/.exec(code))) put(`seat:${m[2]}`, choice);
    else if ((m = /^g\.tb\.(r\dc\d)$/.exec(code))) put(`cell:${me}:${m[1]}`, choice);
    else if ((m = /^g\.tb\.r\dc\d\.(\d)\.(r\dc\d)$/.exec(code)) && tbMine.size === 1) put(`cell:${m[1]}:${m[2]}`, choice);
    else if ((m = /^i\.([a-z]+)$/.exec(code))) put(`guest:${m[1]}`, choice);
    else if ((m = /^i\.([a-z]+)\.([a-z]+)$/.exec(code)) && (iClosed.size === 1 || m[1] === closed)) put(`guest:${m[2]}`, choice);
  }
  return places;
}

// ----------------------------------------------------------------------------- layout

function layout(players, me, hand) {
  let y = 4;
  const L = { players, me, hand };
  L.banner = { y, h: 50 }; y += 54;
  L.steps = { y, h: 22 }; y += 28;
  if (hand) { L.hand = { y, h: 20 + 2 * HAND_CARD_H + 4 }; y += L.hand.h + 8; }
  L.tracks = [1, 2].map(() => { const t = { y, h: 20 + TILE_H }; y += t.h + 6; return t; });
  y += 2;
  const order = me !== null ? [me, ...Array.from({ length: players }, (_, s) => s).filter((s) => s !== me)]
    : Array.from({ length: players }, (_, s) => s);
  L.inns = new Map();
  const innBox = (seat, own) => {
    const box = { y, own, seat };
    box.gridY = y + 22;
    let h = 22 + 4 * CELL_H + 4;
    if (own) {
      box.guestY = y + h + 2; h += 56;
      box.gossipY = y + h + 2; h += 54;
      box.resY = y + h + 2; h += 20 + 62;
    } else {
      box.noteY = y + h + 8; h += 18;
    }
    box.h = h;
    y += h + 8;
    L.inns.set(seat, box);
  };
  if (me !== null) innBox(me, true);
  L.seats = { y, h: 20 + players * (SEAT_H + 4) }; y += L.seats.h + 6;
  L.rep = { y, h: 20 + 28 + 5 * REP_ROW + 18 }; y += L.rep.h + 6;
  for (const seat of order) if (seat !== me) innBox(seat, false);
  L.kingdom = { y, h: 20 + 2 * 40 + 16 }; y += L.kingdom.h + 4;
  L.H = Math.ceil(y);
  return L;
}

// ----------------------------------------------------------------------------- building

/** A touch overlay: a transparent hit area and its outline, on top of everything. */
function overlay(st, key, x, y, w, h, zone = 'choice') {
  const g = svg('g', { class: 'ci-spot', 'data-place': key, 'data-zone': zone, display: 'none' },
    svg('rect', { class: 'ci-hit', x, y, width: w, height: h, rx: 6, fill: 'transparent' }),
    svg('rect', { class: 'ci-hl', x: x + 1.5, y: y + 1.5, width: Math.max(0, w - 3), height: Math.max(0, h - 3), rx: 6,
      fill: 'none', stroke: TARGET, 'stroke-width': 3 }));
  st.overlays.append(g);
  const list = st.spots.get(key) ?? [];
  list.push({ g, zone });
  st.spots.set(key, list);
  return g;
}

function heading(parent, x, y, words, right = null) {
  const t = text({ x, y: y + 9, 'font-size': 13, 'font-weight': 700 }, words);
  parent.append(t);
  let r = null;
  if (right !== null) {
    r = text({ x: W - M - 2, y: y + 9, 'text-anchor': 'end', fill: MUTED });
    parent.append(r);
  }
  return { t, r };
}

function cardSlot(parent, x, y, w, h) {
  const g = svg('g', { class: 'ci-card' });
  parent.append(g);
  return { g, x, y, w, h, sig: null };
}

function buildSkeleton(root, L, st) {
  root.replaceChildren(root.querySelector('title'));
  st.spots = new Map();
  st.overlays = svg('g', { class: 'ci-overlays' });
  const P = {};
  root.append(svg('rect', { x: 0, y: 0, width: W, height: L.H, fill: BG }));

  // The banner and the steps.
  const b = L.banner;
  P.bannerFrame = svg('rect', { x: M + 1, y: b.y + 1, width: CW - 2, height: b.h - 2, rx: 7, fill: PANEL, stroke: GRID, 'stroke-width': 2 });
  P.bannerMarker = svg('g');
  P.headline = text({ x: M + 42, y: b.y + 17, 'font-size': 15, 'font-weight': 700 });
  P.detail = text({ x: M + 42, y: b.y + 35, 'font-size': 11, fill: MUTED });
  root.append(P.bannerFrame, P.bannerMarker, P.headline, P.detail);
  const sw = (CW - 6 * 3) / 7;
  P.steps = STEPS.map(([id, word], i) => {
    const x = M + i * (sw + 3);
    const rect = svg('rect', { x, y: L.steps.y, width: sw, height: L.steps.h, rx: 11, fill: PANEL, stroke: GRID, 'stroke-width': 1 });
    const t = text({ x: x + sw / 2, y: L.steps.y + L.steps.h / 2, 'text-anchor': 'middle', fill: MUTED }, word);
    root.append(rect, t);
    return { id, rect, t };
  });
  P.phaseNote = text({ x: M + CW / 2, y: L.steps.y + L.steps.h / 2, 'text-anchor': 'middle', fill: MUTED, 'font-weight': 700 });
  root.append(P.phaseNote);

  // The hand: two rows of four cards.
  if (L.hand) {
    const h = L.hand;
    root.append(svg('rect', { x: M, y: h.y, width: CW, height: h.h, rx: 8, fill: PANEL }));
    P.handHead = heading(root, M + 6, h.y + 2, 'Your hand', '');
    P.handRows = [0, 1].map((row) => {
      const y = h.y + 20 + row * (HAND_CARD_H + 4);
      const label = text({ x: M + 6, y: y + 6, fill: MUTED, 'font-weight': 700 });
      root.append(label);
      const cards = [0, 1, 2, 3].map((i) => cardSlot(root, M + i * (CARD_W + 4), y + 14, CARD_W, HAND_CARD_H - 16));
      return { label, cards };
    });
  }

  // The tracks.
  P.tracks = L.tracks.map((t, k) => {
    const tier = k + 1;
    root.append(svg('rect', { x: M, y: t.y, width: CW, height: t.h, rx: 8, fill: PANEL }));
    const head = heading(root, M + 6, t.y + 1, `Tier ${TIER[tier]} track`, '');
    const tiles = [0, 1, 2, 3].map((slot) => {
      const x = M + slot * (CARD_W + 4);
      const c = cardSlot(root, x, t.y + 20, CARD_W, TILE_H);
      overlay(st, `tile:${tier}.${slot}`, x, t.y + 20, CARD_W, TILE_H);
      overlay(st, `tile:${tier}.${slot}`, x, t.y + 20, CARD_W, 64, 'gu');
      overlay(st, `tile:${tier}.${slot}`, x, t.y + 20 + 64, CARD_W, TILE_H - 64, 'go');
      return c;
    });
    overlay(st, `track:${tier}`, M, t.y, CW, t.h);
    return { head, tiles };
  });

  // The inns.
  P.inns = new Map();
  for (const [seat, box] of L.inns) P.inns.set(seat, buildInn(root, box, st));

  // The innkeepers.
  const S = L.seats;
  root.append(svg('rect', { x: M, y: S.y, width: CW, height: S.h, rx: 8, fill: PANEL }));
  heading(root, M + 6, S.y + 1, 'Innkeepers');
  root.append(text({ x: W - M - 4, y: S.y + 10, 'text-anchor': 'end', fill: MUTED }, 'E economic · P political · T traveller\'s'));
  P.seats = Array.from({ length: L.players }, (_, seat) => {
    const y = S.y + 20 + seat * (SEAT_H + 4);
    const frame = svg('rect', { x: M + 3, y, width: CW - 6, height: SEAT_H, rx: 7, fill: PANEL_HI, stroke: GRID, 'stroke-width': 1.5 });
    const name = text({ x: M + 34, y: y + 12, 'font-size': 13, 'font-weight': 700 });
    const prestige = text({ x: W - M - 10, y: y + 12, 'text-anchor': 'end', 'font-size': 13, 'font-weight': 700, fill: GOLD });
    const line2 = text({ x: M + 34, y: y + 29, fill: MUTED });
    const line3 = text({ x: M + 34, y: y + 45, fill: MUTED });
    const chips = svg('g');
    root.append(frame, seatMarker(seat, M + 18, y + 16, 12), name, prestige, line2, line3, chips);
    overlay(st, `seat:${seat}`, M + 3, y, CW - 6, SEAT_H);
    return { frame, name, prestige, line2, line3, chips, y };
  });

  // The Reputation Board.
  const R = L.rep;
  root.append(svg('rect', { x: M, y: R.y, width: CW, height: R.h, rx: 8, fill: PANEL }));
  heading(root, M + 6, R.y + 1, 'Reputation Board');
  const labelW = 66;
  const colW = (CW - 6 - labelW) / 13;
  const gx = M + 3 + labelW;
  const gy = R.y + 20 + 28;
  root.append(text({ x: M + 6, y: R.y + 27, fill: MUTED }, 'Space'), text({ x: M + 6, y: R.y + 40, fill: GOLD }, 'Prestige'));
  for (let s = 0; s <= 12; s += 1) {
    const cx = gx + (s + 0.5) * colW;
    root.append(text({ x: cx, y: R.y + 27, 'text-anchor': 'middle', fill: MUTED, 'font-weight': 700 }, String(s)));
    const p = DATA.groups[0].prestige[s] ?? 0;
    const same = DATA.groups.every((g) => (g.prestige[s] ?? 0) === p);
    root.append(text({ x: cx, y: R.y + 40, 'text-anchor': 'middle', fill: GOLD, 'font-weight': 700 },
      same ? (p > 0 ? `+${p}` : p < 0 ? `−${-p}` : '0') : ''));
  }
  P.repRows = DATA.groups.map((g, k) => {
    const y = gy + k * REP_ROW;
    root.append(text({ x: M + 6, y: y + REP_ROW / 2, 'font-weight': 700 }, g.name));
    for (let s = 0; s <= 12; s += 1) {
      const special = s === g.special;
      root.append(svg('rect', { x: gx + s * colW + 1, y: y + 1, width: colW - 2, height: REP_ROW - 2, rx: 3,
        fill: special ? SPECIAL_FILL : PANEL_HI, stroke: special ? GOLD : 'none', 'stroke-width': special ? 1.2 : 0 }));
      if (special) root.append(shape('star', gx + (s + 0.5) * colW, y + REP_ROW / 2, 5, { fill: GOLD, opacity: 0.55 }));
    }
    const markers = svg('g');
    root.append(markers);
    return { markers, y, sig: null };
  });
  P.rep = { gx, colW };
  root.append(shape('star', M + 12, R.y + R.h - 9, 5, { fill: GOLD }),
    text({ x: M + 21, y: R.y + R.h - 9, fill: MUTED }, 'gold space: Special Action · below 0: −1 Prestige a space'));

  // The Kingdom Cards and the Recipe deck.
  const K = L.kingdom;
  root.append(svg('rect', { x: M, y: K.y, width: CW, height: K.h, rx: 8, fill: PANEL }));
  P.kingHead = heading(root, M + 6, K.y + 1, 'Kingdom Cards', '');
  P.king = [0, 1].map((i) => {
    const y = K.y + 24 + i * 40;
    const title = text({ x: M + 8, y: y + 6, 'font-size': 11.5, 'font-weight': 700, fill: GOLD });
    const rule = text({ x: M + 8, y: y + 20, fill: MUTED });
    root.append(title, rule);
    return { title, rule };
  });
  P.kingFoot = text({ x: M + 8, y: K.y + K.h - 9, fill: MUTED });
  root.append(P.kingFoot);

  root.append(st.overlays);
  st.parts = P;
}

function buildInn(root, box, st) {
  const seat = box.seat;
  const g = svg('g', { class: 'ci-inn', 'data-seat': seat });
  root.append(g);
  g.append(svg('rect', { x: M, y: box.y, width: CW, height: box.h, rx: 8, fill: PANEL }));
  g.append(seatMarker(seat, M + 14, box.y + 11, 10.5));
  const title = text({ x: M + 30, y: box.y + 11, 'font-size': 13, 'font-weight': 700 });
  const right = text({ x: W - M - 6, y: box.y + 11, 'text-anchor': 'end', fill: MUTED, 'font-weight': 700 });
  g.append(title, right);
  // The inner ring's band (renderers/crossroads_inn.py _inner_ring).
  g.append(svg('rect', { x: M + CELL_W - 2, y: box.gridY + CELL_H - 2, width: 3 * CELL_W + 4, height: 2 * CELL_H + 4, rx: 6,
    fill: INNER_RING, opacity: 0.45 }));
  const cells = new Map();
  for (let r = 0; r < 4; r += 1) {
    for (let c = 0; c < 5; c += 1) {
      const space = `r${r}c${c}`;
      const x = M + c * CELL_W;
      const y = box.gridY + r * CELL_H;
      const cg = svg('g', { class: 'ci-cell', 'data-space': space, 'data-seat': seat });
      g.append(cg);
      cells.set(space, { g: cg, x, y, r, c, sig: null });
      overlay(st, `cell:${seat}:${space}`, x, y, CELL_W, CELL_H);
    }
  }
  const inn = { g, title, right, cells, box };
  if (box.own) {
    inn.guests = DATA.groups.map((grp, i) => {
      const x = M + i * (CW / 5);
      const gg = svg('g', { class: 'ci-guest', 'data-group': grp.id });
      g.append(gg);
      overlay(st, `guest:${grp.id}`, x, box.guestY, CW / 5, 52);
      return { g: gg, x, y: box.guestY, w: CW / 5, h: 52, id: grp.id, sig: null };
    });
    inn.gossips = GOSSIPS.map((kind, i) => {
      const w = CW / 3;
      const x = M + i * w;
      const gg = svg('g', { class: 'ci-gossip', 'data-gossip': kind });
      g.append(gg);
      overlay(st, `gossip:${kind}`, x, box.gossipY, w, 50);
      return { g: gg, x, w, y: box.gossipY, kind, sig: null };
    });
    inn.resHead = text({ x: M + 6, y: box.resY + 8, 'font-weight': 700, fill: MUTED });
    g.append(inn.resHead);
    inn.reserved = [0, 1].map((i) => {
      const w = (CW - 4) / 2;
      const x = M + i * (w + 4);
      const c = cardSlot(g, x, box.resY + 18, w, 62);
      overlay(st, `res:${i}`, x, box.resY + 18, w, 62);
      overlay(st, `res:${i}`, x, box.resY + 18, w / 2, 62, 'gu');
      overlay(st, `res:${i}`, x + w / 2, box.resY + 18, w / 2, 62, 'go');
      return c;
    });
  } else {
    inn.note = text({ x: M + 6, y: box.noteY, fill: MUTED });
    g.append(inn.note);
  }
  return inn;
}

// ----------------------------------------------------------------------------- drawing parts

function coin(cx, cy, value, r = 9) {
  const g = svg('g');
  const words = String(value);
  const w = words.length > 1 ? 2 * r + 6 : 2 * r;
  g.append(svg('rect', { x: cx - w / 2, y: cy - r, width: w, height: 2 * r, rx: r, fill: GOLD, stroke: GOLD_DARK, 'stroke-width': 1.5 }),
    text({ x: cx, y: cy + 0.5, 'text-anchor': 'middle', 'font-weight': 700, fill: INK }, words));
  return { g, w };
}

function gossipToken(cx, cy, kind, words, r = 9) {
  const fill = GOSSIP_FILL[kind];
  const w = Math.max(2 * r, words.length * 6.5 + 8);
  return svg('g', {},
    svg('rect', { x: cx - w / 2, y: cy - r, width: w, height: 2 * r, rx: r, fill, stroke: INK, 'stroke-width': 1 }),
    text({ x: cx, y: cy + 0.5, 'text-anchor': 'middle', 'font-weight': 700, fill: inkOn(fill) }, words));
}

function ingredientPill(x, cy, id, maxW, count = 1) {
  const fill = INGREDIENT_FILL[id] ?? '#c0c0c0';
  const g = svg('g');
  const t = text({ x: x + 5, y: cy + 0.5, 'font-weight': 700, fill: inkOn(fill) });
  const rect = svg('rect', { x, y: cy - 7, width: maxW, height: 14, rx: 7, fill, stroke: id === 'black_tears' ? GRID : INK, 'stroke-width': 1 });
  g.append(rect, t);
  return { g, t, rect, fit: () => {
    fitText(t, `${ingredientName(id)}${count > 1 ? ` ×${count}` : ''}`, maxW - 10);
    const tw = measure(t);
    if (tw > 0) rect.setAttribute('width', String(Math.min(maxW, tw + 10)));
  } };
}

function letterBadge(x, y, letter, fill) {
  return svg('g', {},
    svg('rect', { x, y, width: 14, height: 14, rx: 3, fill: INK, opacity: 0.8 }),
    text({ x: x + 7, y: y + 7.5, 'text-anchor': 'middle', 'font-weight': 700, fill: fill === INK ? TEXT : TEXT }, letter));
}

/** A card of a tile on a track (or reserved: wide). */
function drawTileCard(slot, id, extra = {}) {
  const sig = JSON.stringify([id, extra]);
  if (slot.sig === sig) return;
  slot.sig = sig;
  const { x, y, w, h } = slot;
  const t = id ? tileOf(id) : null;
  const out = [];
  if (!t) {
    out.push(svg('rect', { x: x + 0.5, y: y + 0.5, width: w - 1, height: h - 1, rx: 6, fill: 'none', stroke: GRID, 'stroke-dasharray': '4 3' }),
      text({ x: x + w / 2, y: y + h / 2, 'text-anchor': 'middle', fill: DIM }, extra.empty ?? 'empty'));
    slot.g.replaceChildren(...out);
    return;
  }
  const fill = categoryFill(t);
  const ink = inkOn(fill);
  const wide = w > 120;
  const band = wide ? 20 : 30;
  out.push(svg('rect', { x: x + 0.5, y: y + 0.5, width: w - 1, height: h - 1, rx: 6, fill: PANEL_HI, stroke: GRID }),
    svg('path', { d: `M${x + 0.5},${y + band} V${y + 6} a5.5,5.5 0 0 1 5.5,-5.5 H${x + w - 6} a5.5,5.5 0 0 1 5.5,5.5 V${y + band} Z`, fill }));
  const name = text({ x: x + 5, y: y + (wide ? 10.5 : 9), 'font-size': 11, 'font-weight': 700, fill: ink });
  out.push(name);
  const cat = text({ x: x + 5, y: y + band + 8, fill: MUTED });
  out.push(cat);
  slot.g.replaceChildren(...out);
  if (wide) fitText(name, t.name, w - 10);
  else wrap(name, t.name, w - 10, 2, 11.5);
  fitText(cat, wide ? `${DATA.categories[t.category]?.name ?? ''} · tier ${TIER[t.tier]}` : `${CATEGORY_SHORT[t.category]} · ${TIER[t.tier]}`, w - 10);
  // The cost: guldens (top), the gossips' alternative (bottom on a track card, right on a wide one).
  const cy = y + band + 24;
  const c = coin(x + 14, cy, t.guldens);
  slot.g.append(c.g);
  const effects = [t.effect, t.ingredient ? `+ ${ingredientName(t.ingredient)}` : null].filter(Boolean).join(' ');
  if (wide) {
    if (t.alt) {
      slot.g.append(text({ x: x + 30, y: cy, fill: MUTED }, 'or'),
        gossipToken(x + 58, cy, t.alt[0], `${t.alt[1]} ${GOSSIP_LETTER[t.alt[0]]}`));
    }
    const eff = text({ x: x + (t.alt ? 80 : 30), y: cy, fill: TEXT });
    slot.g.append(eff);
    fitText(eff, effects, w - (t.alt ? 84 : 34));
    if (t.drawback) {
      const d = text({ x: x + 5, y: cy + 14, fill: LOSS });
      slot.g.append(d);
      fitText(d, `Drawback: ${t.drawback}`, w - 10);
    }
    return;
  }
  // What it does, then its drawback and the gossips' price at the bottom (never over each other).
  const bottom = (t.alt ? 22 : 0) + (t.drawback ? 13 : 0);
  const lines = Math.max(1, Math.min(4, Math.floor((h - bottom - 6 - (cy + 17 - y)) / LH) + 1));
  const eff = text({ x: x + 5, y: cy + 17, fill: TEXT });
  slot.g.append(eff);
  wrap(eff, effects, w - 10, lines);
  if (t.drawback) {
    const d = text({ x: x + 5, y: y + h - (t.alt ? 22 : 0) - 9, fill: LOSS });
    slot.g.append(d);
    fitText(d, `− ${t.drawback}`, w - 10);
  }
  if (t.alt) {
    slot.g.append(svg('line', { x1: x + 4, x2: x + w - 4, y1: y + h - 23, y2: y + h - 23, stroke: GRID }),
      text({ x: x + 5, y: y + h - 11, fill: MUTED }, 'or'),
      gossipToken(x + 37, y + h - 11, t.alt[0], `${t.alt[1]} ${GOSSIP_LETTER[t.alt[0]]}`));
  }
}

/** A card of the hand: a Recipe or a Basic Inn Tile. */
function drawHandCard(slot, card, have) {
  const sig = JSON.stringify([card, have ? [...have] : null]);
  if (slot.sig === sig) return;
  slot.sig = sig;
  const { x, y, w, h } = slot;
  if (card) slot.g.dataset.card = card.id;
  else delete slot.g.dataset.card;
  if (!card) { slot.g.replaceChildren(); return; }
  const out = [];
  const basic = card.kind === 'basic';
  const data = basic ? basicOf(card.id) : recipeOf(card.id);
  const fill = basic ? BASIC_FILL : RECIPE_FILL;
  out.push(svg('rect', { x: x + 0.5, y: y + 0.5, width: w - 1, height: h - 1, rx: 6, fill: PANEL_HI, stroke: card.mark ? GOLD : GRID, 'stroke-width': card.mark ? 2 : 1 }),
    svg('path', { d: `M${x + 0.5},${y + 30} V${y + 6} a5.5,5.5 0 0 1 5.5,-5.5 H${x + w - 6} a5.5,5.5 0 0 1 5.5,5.5 V${y + 30} Z`, fill }));
  const name = text({ x: x + 5, y: y + 9, 'font-size': 11, 'font-weight': 700, fill: INK });
  out.push(name);
  slot.g.replaceChildren(...out);
  wrap(name, data?.name ?? card.id, w - 10, 2, 11.5);
  let ly = y + 40;
  if (card.mark) {
    const m = text({ x: x + 5, y: ly, fill: GOLD, 'font-weight': 700 });
    slot.g.append(m);
    fitText(m, card.mark, w - 10);
    ly += LH;
  }
  if (basic) {
    const b = text({ x: x + 5, y: ly, fill: TEXT });
    slot.g.append(b);
    wrap(b, data?.build ?? 'no bonus', w - 10, card.mark ? 2 : 3);
    const cv = text({ x: x + 5, y: y + h - 22, fill: MUTED });
    slot.g.append(cv);
    wrap(cv, `covered: ${data?.cover ?? ''}`, w - 10, 2);
    return;
  }
  for (const ing of data?.ingredients ?? []) {
    const ok = have && (have.get(ing) ?? 0) > 0;
    const t = text({ x: x + 5, y: ly, fill: ok ? TEXT : MUTED, 'font-weight': ok ? 700 : 400 });
    slot.g.append(t);
    fitText(t, `${have ? (ok ? '✓ ' : '✗ ') : ''}${ingredientName(ing)}`, w - 10);
    ly += LH;
  }
  const rw = text({ x: x + 5, y: y + h - 22, fill: GOLD });
  slot.g.append(rw);
  wrap(rw, data?.reward ?? '', w - 10, 2);
}

function drawCell(cell, built, view, seat) {
  const corner = isCorner(cell.r, cell.c);
  const unavailable = corner && view.corners_available === false;
  const fresh = seat === view.active && (view.built ?? []).includes(`r${cell.r}c${cell.c}`);
  const sig = JSON.stringify([built, unavailable, fresh]);
  if (cell.sig === sig) return;
  cell.sig = sig;
  if (built) cell.g.dataset.tile = built.tile;
  else delete cell.g.dataset.tile;
  const { x, y } = cell;
  const w = CELL_W - 4;
  const h = CELL_H - 4;
  const x0 = x + 2;
  const y0 = y + 2;
  const out = [];
  if (!built) {
    out.push(svg('rect', { x: x0, y: y0, width: w, height: h, rx: 5, fill: unavailable ? PANEL : PANEL_HI,
      stroke: corner ? BASIC_FILL : GRID, 'stroke-width': corner ? 1.5 : 1, 'stroke-dasharray': corner ? '4 3' : null }));
    out.push(text({ x: x0 + w / 2, y: y0 + h / 2 - 6, 'text-anchor': 'middle', fill: DIM }, `R${cell.r + 1} C${cell.c + 1}`));
    out.push(text({ x: x0 + w / 2, y: y0 + h / 2 + 8, 'text-anchor': 'middle', fill: DIM },
      unavailable ? 'closed' : corner ? 'corner' : isInner(cell.r, cell.c) ? 'inner' : ''));
    cell.g.replaceChildren(...out);
    return;
  }
  const tile = built.basic ? null : tileOf(built.tile);
  const fill = built.basic ? BASIC_FILL : categoryFill(tile);
  const ink = inkOn(fill);
  out.push(svg('rect', { x: x0, y: y0, width: w, height: h, rx: 5, fill, stroke: fresh ? '#ffffff' : INK, 'stroke-width': fresh ? 2.5 : 1 }));
  const name = text({ x: x0 + 4, y: y0 + 8, 'font-weight': 700, fill: ink });
  out.push(name);
  out.push(letterBadge(x0 + w - 16, y0 + h - 16, built.basic ? 'B' : CATEGORY_LETTER[tile?.category] ?? '?', fill));
  cell.g.replaceChildren(...out);
  wrap(name, anyName(built.tile), w - 7, 2, 11.5);
  const counts = new Map();
  for (const i of built.ingredients ?? []) counts.set(i, (counts.get(i) ?? 0) + 1);
  let iy = y0 + 34;
  for (const [ing, n] of counts) {
    const pill = ingredientPill(x0 + 3, iy, ing, w - 6, n);
    cell.g.append(pill.g);
    pill.fit();
    iy += 15;
    if (iy > y0 + h) break;
  }
  if (built.covers && counts.size < 2) {
    cell.g.append(svg('rect', { x: x0 + 2, y: y0 + h - 15, width: w - 21, height: 13, rx: 3, fill: BASIC_FILL }));
    const cv = text({ x: x0 + 4, y: y0 + h - 8, fill: INK });
    cell.g.append(cv);
    fitText(cv, anyName(built.covers), w - 25);
  } else if (built.basic && !counts.size) {
    const b = text({ x: x0 + 4, y: y0 + h - 9, fill: INK });
    cell.g.append(b);
    fitText(b, 'Basic', w - 24);
  }
}

// ----------------------------------------------------------------------------- updating

function statusWords(view, ctx) {
  const active = typeof view.active === 'number' ? view.active : null;
  const pend = view.pending ?? null;
  const you = (s) => s === ctx.seat;
  if (view.phase === 'over' || (Array.isArray(view.winners) && view.winners.length && view.phase === 'over')) {
    const w = view.winners ?? [];
    const head = w.length === 1 ? (you(w[0]) ? 'You win!' : `${seatName(ctx, w[0])} wins!`)
      : w.length ? `Shared win: ${w.map((s) => seatName(ctx, s)).join(' & ')}` : 'Game over';
    return [head, String(view.prompt ?? ''), w.length ? w[0] : null];
  }
  if (pend) {
    const who = you(pend.seat) ? 'You decide' : `${seatName(ctx, pend.seat)} decides`;
    return [who, `${pend.prompt ?? ''}${pend.source ? ` (${pend.source})` : ''}`, pend.seat];
  }
  if (view.phase === 'draft') {
    const waiting = (view.seats ?? []).filter((p) => !p.picked).map((p) => p.seat);
    const mine = ctx.seat !== null && ctx.seat !== undefined && waiting.includes(ctx.seat);
    return [mine ? 'The draft: keep one tile' : 'The draft', `Round ${view.draft_round} of 3 · ${waiting.length ? `waiting for ${waiting.map((s) => seatName(ctx, s)).join(', ')}` : 'passing on'}`, mine ? ctx.seat : null];
  }
  if (view.phase === 'place_basics') {
    const s = (view.seats ?? []).find((p) => (p.basics_to_place ?? []).length);
    return [s && you(s.seat) ? 'Place your Basic Inn Tiles' : `${s ? seatName(ctx, s.seat) : 'Everyone'} places Basic Inn Tiles`, 'On the four corners of the inn', s ? s.seat : null];
  }
  if (active !== null) {
    const head = you(active) ? `Your turn, ${seatName(ctx, active)}` : `${seatName(ctx, active)}'s turn`;
    const bits = [`Step: ${STEP_WORDS[view.step] ?? view.step}`];
    if (view.step === 'invest') bits.push(`buys left ${view.buys_left}`);
    if (view.step === 'build' && view.bought?.length) bits.push(`placing ${anyName(view.bought[0])}${view.bought.length > 1 ? ` (+${view.bought.length - 1})` : ''}`);
    if (view.last_roll) bits.push(`last roll ${view.last_roll}`);
    return [head, bits.join(' · '), active];
  }
  return ['Crossroads Inn', String(view.prompt ?? ''), null];
}

function updateBanner(P, view, ctx) {
  const [head, detail, marker] = statusWords(view, ctx);
  fitText(P.headline, head, CW - 50);
  fitText(P.detail, detail, CW - 50);
  const sig = String(marker);
  if (P.bannerMarker.dataset.sig !== sig) {
    P.bannerMarker.dataset.sig = sig;
    P.bannerMarker.replaceChildren(...(marker === null ? [] : [seatMarker(marker, M + 21, P.headline.getAttribute('y') * 1 + 8, 13)]));
  }
  P.bannerFrame.setAttribute('stroke', marker === null ? GRID : view.phase === 'over' ? GOOD : ownerStyle(marker).color);
  const inTurn = view.phase === 'turn';
  const at = STEPS.findIndex(([id]) => id === view.step);
  P.steps.forEach((s, i) => {
    s.rect.setAttribute('display', inTurn ? 'inline' : 'none');
    s.t.setAttribute('display', inTurn ? 'inline' : 'none');
    const now = i === at;
    s.rect.setAttribute('fill', now ? GOLD : PANEL);
    s.rect.setAttribute('stroke', now ? GOLD_DARK : GRID);
    s.t.setAttribute('fill', now ? INK : i < at ? DIM : MUTED);
    s.t.setAttribute('font-weight', now ? 700 : 400);
  });
  const phase = { draft: `Draft of the Basic Inn Tiles · round ${view.draft_round} of 3`,
    place_basics: 'Placing the Basic Inn Tiles', over: 'Game over' }[view.phase] ?? '';
  P.phaseNote.setAttribute('display', inTurn ? 'none' : 'inline');
  fitText(P.phaseNote, phase, CW - 8);
}

/** The hand's two rows: what they hold at this moment. */
function handRows(view, st) {
  const pend = view.pending ?? null;
  const me = view.seat;
  const mine = pend && pend.seat === me;
  const recipes = (view.my_recipes ?? []).map((id) => ({ kind: 'recipe', id, key: `recipe:${id}` }));
  if (view.phase === 'draft') {
    return [
      ['Your pack: keep one', [...new Set(view.my_pack ?? [])].map((id, i) => ({ kind: 'basic', id, key: `pack:${i}` }))],
      ['Kept, face down to the others', (view.my_kept ?? []).map((id) => ({ kind: 'basic', id }))],
    ];
  }
  if (view.phase === 'place_basics' && (view.my_kept ?? []).length) {
    return [
      ['Your Basic Inn Tiles to place: choose one, then a corner', [...new Set(view.my_kept)].map((id, i) => ({
        kind: 'basic', id, select: i, mark: i === st.selected ? 'placing now' : null }))],
      [`Your Recipes (${recipes.length})`, recipes],
    ];
  }
  if (mine && pend.kind === 'keep_recipe') {
    return [
      ['Drawn: keep one', [...new Set(pend.options ?? [])].map((id) => ({ kind: 'recipe', id, key: `drawn:${id}`, mark: 'drawn' }))],
      [`Your Recipes (${recipes.length})`, recipes],
    ];
  }
  if (recipes.length > 4) return [[`Your Recipes (${recipes.length})`, recipes.slice(0, 4)], ['', recipes.slice(4, 8)]];
  const cooked = (view.seats?.[me]?.completed ?? []).map((id) => ({ kind: 'recipe', id, mark: 'cooked' }));
  return [[`Your Recipes (${recipes.length})`, recipes],
    [cooked.length ? `Cooked (${cooked.length})` : 'Cooked: none yet (each Recipe not cooked: −2 Prestige at the end)', cooked]];
}

function updateHand(P, view, st) {
  if (!P.handRows) return;
  const rows = handRows(view, st);
  const have = owned(view.seats?.[view.seat]);
  const completed = (view.seats?.[view.seat]?.completed ?? []).length;
  setText(P.handHead.r, view.phase === 'turn' || view.phase === 'over' ? `only you see it · cooked ${completed}` : 'only you see it');
  st.handKeys = new Map();
  rows.forEach(([label, cards], r) => {
    const row = P.handRows[r];
    const more = cards.length > 4 ? ` (+${cards.length - 4} more)` : '';
    fitText(row.label, `${label}${more}`, CW - 12);
    row.cards.forEach((slot, i) => {
      const card = cards[i] ?? null;
      drawHandCard(slot, card, card?.kind === 'recipe' && card.mark !== 'cooked' ? have : null);
      slot.key = card?.key ?? null;
      slot.select = card?.select ?? null;
      slot.label = card ? `${card.kind === 'basic' ? basicOf(card.id)?.name : recipeOf(card.id)?.name}` : '';
    });
  });
}

function updateTracks(P, view) {
  P.tracks.forEach((t, k) => {
    const tier = k + 1;
    const pile = view.discards?.[k] ?? [];
    fitText(t.head.r, `pouch ${view.pouches?.[k] ?? 0} · discard ${pile.length}${pile.length ? `, top: ${anyName(pile[pile.length - 1])}` : ''}`, CW - 110);
    t.tiles.forEach((slot, s) => drawTileCard(slot, view.tracks?.[k]?.[s] ?? null, { tier }));
  });
}

function updateInns(P, view, ctx, st) {
  const me = ctx.seat ?? null;
  for (const [seat, inn] of P.inns) {
    const p = view.seats?.[seat];
    if (!p) continue;
    fitText(inn.title, `${seat === me ? 'Your inn' : `${seatName(ctx, seat)}'s inn`}`, 200);
    setText(inn.right, `covered ${p.covered}/16${p.basics_face_down ? ` · ${p.basics_face_down} tiles face down` : ''}`);
    for (const [space, cell] of inn.cells) drawCell(cell, p.inn?.[space] ?? null, view, seat);
    if (inn.note) {
      fitText(inn.note, p.reserved?.length ? `Reserved: ${p.reserved.map(anyName).join(', ')}` : 'Reserved: none', CW - 12);
    }
    if (inn.guests) {
      inn.guests.forEach((gt) => {
        const rep = p.reputation?.[gt.id] ?? 0;
        const picked = st.closed === gt.id; // chosen on the board for the closed door, not yet played
        const door = picked ? 'picked' : p.closed_door === gt.id ? 'closed' : p.open_door === gt.id ? 'open' : null;
        const sig = JSON.stringify([rep, door]);
        if (gt.sig === sig) return;
        gt.sig = sig;
        const w = CW / 5 - 4;
        const x = gt.x + 2;
        const y = gt.y;
        const name = text({ x: x + w / 2, y: y + 10, 'text-anchor': 'middle' });
        gt.g.replaceChildren(
          svg('rect', { x, y, width: w, height: 50, rx: 6, fill: PANEL_HI, stroke: door === 'closed' ? LOSS : door === 'open' ? GOOD : GRID, 'stroke-width': door ? 2 : 1 }),
          name,
          text({ x: x + w / 2, y: y + 25, 'text-anchor': 'middle', 'font-size': 13, 'font-weight': 700, fill: GOLD }, String(rep)),
          text({ x: x + w / 2, y: y + 40, 'text-anchor': 'middle', fill: door === 'picked' ? GOLD : door === 'closed' ? LOSS : door === 'open' ? GOOD : DIM,
            'font-weight': door ? 700 : 400 }, door === 'picked' ? '→ closed −3' : door === 'closed' ? 'closed −3' : door === 'open' ? 'open +1' : 'guest'));
        fitText(name, groupName(gt.id), w - 4);
      });
      inn.gossips.forEach((gs) => {
        const n = p.gossips?.[gs.kind] ?? 0;
        const sig = String(n);
        if (gs.sig === sig) return;
        gs.sig = sig;
        const fill = GOSSIP_FILL[gs.kind];
        const x = gs.x + 2;
        const w = gs.w - 4;
        const dots = [0, 1, 2].map((k) => svg('circle', { cx: x + 44 + k * 14, cy: gs.y + 33, r: 5.5,
          fill: k < n ? fill : 'none', stroke: fill, 'stroke-width': 1.5 }));
        const label = text({ x: x + 36, y: gs.y + 14, 'font-weight': 700 });
        gs.g.replaceChildren(
          svg('rect', { x, y: gs.y, width: w, height: 48, rx: 6, fill: PANEL_HI, stroke: GRID }),
          svg('circle', { cx: x + 18, cy: gs.y + 24, r: 13, fill, stroke: INK, 'stroke-width': 1.2 }),
          text({ x: x + 18, y: gs.y + 24.5, 'text-anchor': 'middle', 'font-size': 13, 'font-weight': 700, fill: inkOn(fill) }, GOSSIP_LETTER[gs.kind]),
          label, ...dots);
        fitText(label, `${n} ${GOSSIP_WORD[gs.kind]}`, w - 40);
      });
      // While building, this row shows the tiles bought, in the order they go on the inn.
      const building = view.phase === 'turn' && view.step === 'build' && view.active === seat && (view.bought ?? []).length;
      const row = building ? view.bought : (p.reserved ?? []);
      fitText(inn.resHead, building
        ? `To build, in order${view.bought.length > 2 ? ` (+${view.bought.length - 2} more)` : ''}: the first goes on a space you tap`
        : `Reserved tiles (${(p.reserved ?? []).length}/2)`, CW - 12);
      inn.resHead.setAttribute('fill', building ? GOLD : MUTED);
      inn.reserved.forEach((slot, i) => drawTileCard(slot, row[i] ?? null, { empty: building ? '' : 'no reserved tile' }));
    }
  }
}

function updateSeats(P, view, ctx) {
  P.seats.forEach((row, seat) => {
    const p = view.seats?.[seat];
    if (!p) return;
    const active = view.phase === 'turn' && view.active === seat;
    const won = view.phase === 'over' && (view.winners ?? []).includes(seat);
    row.frame.setAttribute('stroke', active ? ownerStyle(seat).color : won ? GOOD : GRID);
    row.frame.setAttribute('stroke-width', active || won ? 2.5 : 1.5);
    const tags = [seat === ctx.seat ? 'you' : null, active ? 'to play' : null, won ? 'winner' : null].filter(Boolean);
    fitText(row.name, `${seatName(ctx, seat)}${tags.length ? ` · ${tags.join(' · ')}` : ''}`, CW - 140);
    setText(row.prestige, p.score !== null && p.score !== undefined ? `Score ${p.score}` : `Prestige ${p.prestige}`);
    const parts = p.score_parts;
    const signed = (n) => (n < 0 ? `−${-n}` : `+${n}`);
    fitText(row.line2, parts
      ? `Prestige ${parts.prestige ?? p.prestige} · Rep. ${signed(parts.reputation ?? 0)} · guldens ${signed(parts.guldens ?? 0)}`
      : `Revenue ${p.revenue} · Chest ${p.chest} · Pouch ${p.pouch}${p.debts ? ` · Debts ${p.debts}` : ''}`, CW - 150);
    fitText(row.line3, parts
      ? `gossips ${signed(parts.gossips ?? 0)} · ingredients ${signed(parts.ingredients ?? 0)} · debts ${signed(parts.debts ?? 0)} · Recipes ${signed(parts.recipes ?? 0)} = ${parts.total ?? p.score}`
      : `Inn ${p.covered}/16 · Recipes ${p.recipes} · Cooked ${(p.completed ?? []).length} · Reserved ${(p.reserved ?? []).length}`, CW - 40);
    const sig = JSON.stringify(p.gossips);
    if (row.chips.dataset.sig !== sig) {
      row.chips.dataset.sig = sig;
      row.chips.replaceChildren(...GOSSIPS.map((k, i) => gossipToken(W - M - 100 + i * 34, row.y + 29, k, `${GOSSIP_LETTER[k]} ${p.gossips?.[k] ?? 0}`)));
    }
  });
}

function updateReputation(P, view) {
  const { gx, colW } = P.rep;
  DATA.groups.forEach((g, k) => {
    const row = P.repRows[k];
    const at = new Map();
    (view.seats ?? []).forEach((p) => {
      const v = Math.max(0, Math.min(12, p.reputation?.[g.id] ?? 0));
      at.set(v, [...(at.get(v) ?? []), p.seat]);
    });
    const sig = JSON.stringify([...at]);
    if (row.sig === sig) return;
    row.sig = sig;
    const out = [];
    for (const [v, seats] of at) {
      const cx = gx + (v + 0.5) * colW;
      const cy = row.y + REP_ROW / 2;
      if (seats.length === 1) out.push(seatMarker(seats[0], cx, cy, 10));
      else {
        seats.forEach((s, i) => {
          const dx = seats.length === 2 ? (i ? 4.5 : -4.5) : ((i % 2) ? 4.5 : -4.5);
          const dy = seats.length === 2 ? (i ? 4.5 : -4.5) : (i < 2 ? -5 : 5);
          out.push(seatMarker(s, cx + dx, cy + dy, 5.5));
        });
      }
    }
    row.markers.replaceChildren(...out);
  });
}

function updateKingdom(P, view) {
  const cards = view.kingdom ?? [];
  P.king.forEach((k, i) => {
    const n = cards[i];
    const card = n !== undefined ? DATA.kingdom[String(n)] : null;
    fitText(k.title, card ? `#${n} ${card.title}` : i === 0 ? 'No Kingdom Cards in this game' : '', CW - 16);
    wrap(k.rule, card ? card.rule : '', CW - 16, 1);
  });
  setText(P.kingHead.r, `Recipe deck ${view.deck ?? 0} · discard ${view.recipe_discard ?? 0}`);
  const pool = view.line_pool ?? {};
  fitText(P.kingFoot, Object.keys(pool).length
    ? `Line bonus supply: ${GOSSIPS.map((g) => `${GOSSIP_LETTER[g]} ${pool[g] ?? 0}`).join(' · ')} · guldens ${pool.guldens ?? 0}`
    : (view.announced_by !== null && view.announced_by !== undefined ? 'The end of the game is announced.' : ''), CW - 16);
}

function aimTargets(st, view, ctx) {
  const choices = choiceMap(ctx);
  // The Guest Impression is a pair (closed door, open door): the closed door's group is
  // chosen on the board first (no choice yet), then the open door's Guest Tile plays the pair.
  const closedOnes = closedGroups(choices); // st.closed is checked against them in draw()
  const places = placeChoices(view, choices, ctx.seat ?? null, st.selected, st.closed);
  const myInn = st.parts.inns.get(ctx.seat ?? -1);
  for (const gt of myInn?.guests ?? []) {
    const pickable = closedOnes.size > 1 && (st.closed === null ? closedOnes.has(gt.id) : st.closed === gt.id);
    wireSelect(gt, pickable, st, {
      pressed: st.closed === gt.id,
      label: st.closed === gt.id ? `${groupName(gt.id)} behind the closed door: tap again to choose another group`
        : `${groupName(gt.id)} behind the closed door (−3), then choose the open door's group`,
      pick: () => { st.closed = st.closed === gt.id ? null : gt.id; },
    });
  }
  // The hand's cards: their places are named by what they hold.
  const handSpots = new Map();
  for (const row of st.parts.handRows ?? []) {
    for (const slot of row.cards) {
      if (!slot.overlay) {
        slot.overlay = svg('g', { class: 'ci-spot', 'data-zone': 'choice', display: 'none' },
          svg('rect', { class: 'ci-hit', x: slot.x, y: slot.y, width: slot.w, height: slot.h, rx: 6, fill: 'transparent' }),
          svg('rect', { class: 'ci-hl', x: slot.x + 1.5, y: slot.y + 1.5, width: slot.w - 3, height: slot.h - 3, rx: 6, fill: 'none', stroke: TARGET, 'stroke-width': 3 }));
        st.overlays.append(slot.overlay);
      }
      slot.overlay.dataset.place = slot.key ?? '';
      if (slot.key) handSpots.set(slot.key, slot.overlay);
      // The tiles to place are chosen on the hand (no choice: which corner follows on the inn).
      const selectable = slot.select !== null && slot.select !== undefined
        && [...choices.keys()].some((c) => c.startsWith(`p${slot.select}.`));
      wireSelect(slot, selectable, st, {
        pressed: slot.select === st.selected,
        label: `Place ${slot.label} next (then choose its corner on your inn)`,
        pick: () => { st.selected = slot.select; },
      });
    }
  }
  for (const [key, spots] of st.spots) {
    const at = places.get(key) ?? {};
    const split = at.gu && at.go;
    for (const { g, zone } of spots) {
      let choice = null;
      if (zone === 'choice') choice = at.choice ?? (split ? null : at.gu ?? at.go ?? null);
      else if (split) choice = at[zone];
      aim(g, choice, st);
    }
  }
  for (const row of st.parts.handRows ?? []) {
    for (const slot of row.cards) {
      const at = slot.key ? places.get(slot.key) : null;
      aim(slot.overlay, at?.choice ?? null, st);
    }
  }
}

/** The choices the board offers now: the open step's, else the table's (not disabled). */
function choiceMap(ctx) {
  const list = ctx.step && Array.isArray(ctx.step.choices) ? ctx.step.choices : (ctx.choices ?? []);
  return new Map(list.filter((c) => !c.disabled).map((c) => [String(c.code), c]));
}

/** The groups the Guest Impression's pairs may put behind the closed door. */
function closedGroups(choices) {
  return new Set([...choices.keys()].filter((c) => /^i\.[a-z]+\.[a-z]+$/.test(c)).map((c) => c.split('.')[1]));
}

function aim(g, choice, st) {
  markTarget(g, choice, () => st.ctx, 'ci');
  g.setAttribute('display', choice ? 'inline' : 'none');
}

/** A touch that chooses on the board only (which tile to place, which group behind the
 * closed door): role button, aria-pressed, no code; what it chooses is then a target. */
function wireSelect(slot, selectable, st, how) {
  if (!slot.selector) {
    slot.selector = svg('g', { class: 'ci-select', display: 'none' },
      svg('rect', { x: slot.x + 1.5, y: slot.y + 1.5, width: slot.w - 3, height: slot.h - 3, rx: 6, fill: 'transparent',
        stroke: MUTED, 'stroke-width': 2, 'stroke-dasharray': '3 3' }));
    const go = () => {
      if (slot.selector.getAttribute('display') === 'none') return;
      slot.pick?.();
      if (st.ctx) draw(st.container, st.ctx);
      if (slot.selector.getAttribute('display') !== 'none') slot.selector.focus({ preventScroll: true });
    };
    slot.selector.addEventListener('click', go);
    slot.selector.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ' || event.key === 'Spacebar') { event.preventDefault(); go(); }
    });
    st.overlays.append(slot.selector);
  }
  const s = slot.selector;
  slot.pick = how.pick;
  if (selectable) {
    s.setAttribute('display', 'inline');
    s.setAttribute('role', 'button');
    s.setAttribute('tabindex', '0');
    s.setAttribute('aria-pressed', String(!!how.pressed));
    s.setAttribute('aria-label', how.label);
    // The one chosen: solid gold; the others: dashed grey.
    s.firstChild.setAttribute('stroke', how.pressed ? GOLD : MUTED);
    s.firstChild.setAttribute('stroke-dasharray', how.pressed ? 'none' : '3 3');
    s.firstChild.setAttribute('stroke-width', how.pressed ? 3 : 2);
  } else {
    s.setAttribute('display', 'none');
    for (const a of ['role', 'tabindex', 'aria-pressed', 'aria-label']) s.removeAttribute(a);
  }
}

function boardWords(view, ctx) {
  const [head, detail] = statusWords(view, ctx);
  const seats = (view.seats ?? []).map((p) => {
    const s = ownerStyle(p.seat);
    return `${seatName(ctx, p.seat)} (${s.letter}, ${s.colorName} ${s.shape}): Prestige ${p.prestige}, inn ${p.covered} of 16`;
  });
  const tracks = (view.tracks ?? []).map((t, k) => `Tier ${TIER[k + 1]} track: ${t.map((id) => (id ? anyName(id) : 'empty')).join(', ')}`);
  return [`Crossroads Inn. ${head}. ${detail}.`, `${seats.join('; ')}.`, `${tracks.join('. ')}.`].join(' ');
}

// ----------------------------------------------------------------------------- draw

const STATES = new WeakMap();

/** The board's draw function (see board/index.js). */
export function draw(container, ctx) {
  const view = ctx.view && typeof ctx.view === 'object' ? ctx.view : null;
  let st = STATES.get(container);
  if (!st || (st.root && !container.contains(st.root))) {
    st = { ctx: null, key: null, parts: null, root: null, selected: 0, closed: null, container };
    STATES.set(container, st);
  }
  st.ctx = ctx;
  if (!view || !Array.isArray(view.seats) || !Array.isArray(view.tracks)) {
    const empty = container.querySelector(':scope > .ci-empty') ?? Object.assign(document.createElement('p'),
      { className: 'muted ci-empty', textContent: 'The game has not started yet.' });
    if (!empty.isConnected) container.prepend(empty);
    for (const el of container.querySelectorAll(':scope > svg')) el.hidden = true;
    return;
  }
  container.querySelector(':scope > .ci-empty')?.remove();
  for (const el of container.querySelectorAll(':scope > svg')) el.hidden = false;
  const me = typeof ctx.seat === 'number' && view.seat === ctx.seat ? ctx.seat : null;
  const hand = me !== null && Array.isArray(view.my_recipes);
  const players = view.seats.length;
  const L = layout(players, me, hand);
  const root = ensureSvg(container, { viewBox: `0 0 ${W} ${L.H}`, label: boardWords(view, ctx) });
  root.setAttribute('role', 'group');
  root.classList.add('ci-svg');
  st.root = root;
  const key = JSON.stringify([players, me, hand]);
  if (st.key !== key) {
    st.key = key;
    buildSkeleton(root, L, st);
  }
  const kept = [...new Set(view.my_kept ?? [])];
  if (view.phase !== 'place_basics' || st.selected >= kept.length) st.selected = 0;
  const closedOnes = closedGroups(choiceMap(ctx));
  if (!closedOnes.has(st.closed) || closedOnes.size < 2) st.closed = null;
  const P = st.parts;
  updateBanner(P, view, ctx);
  updateHand(P, view, st);
  updateTracks(P, view);
  updateInns(P, view, ctx, st);
  updateSeats(P, view, ctx);
  updateReputation(P, view);
  updateKingdom(P, view);
  aimTargets(st, view, ctx);
}
