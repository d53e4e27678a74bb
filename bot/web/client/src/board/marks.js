// A seat's mark on every board: its colour, shape and letter, as the server's pictures draw
// them (renderers/common.py SEAT_COLORS, draw_shape and owner_marker), so a player knows
// their pieces in the Activity and on the channel's picture alike. One copy for every board.
import { svg } from './svg.js';

/** renderers/common.py's seat palette: colour-vision safe, in seat order. */
export const OWNER_COLORS = ['#e99700', '#55aacc', '#feff6b', '#00cc89', '#cc79a7', '#e8645a', '#4887e4'];
export const OWNER_SHAPES = ['circle', 'square', 'diamond', 'triangle', 'hexagon', 'star', 'pentagon'];
export const OWNER_COLOR_NAMES = ['orange', 'sky blue', 'yellow', 'green', 'pink', 'red', 'blue'];
export const MARK_INK = '#1e1f22';
/** The smallest letter a mark carries (the 9 px phone minimum at the boards' scale). */
export const MARK_MIN_FONT = 10.5;

/** A seat's colour, shape, letter (A for seat 0) and the colour's name for labels. */
export function ownerStyle(seat) {
  const i = ((seat % OWNER_COLORS.length) + OWNER_COLORS.length) % OWNER_COLORS.length;
  return { color: OWNER_COLORS[i], shape: OWNER_SHAPES[i], letter: String.fromCharCode(65 + (seat % 26)),
    colorName: OWNER_COLOR_NAMES[i] };
}

/** SVG points of a list of [x, y]. */
export function pts(list) {
  return list.map(([x, y]) => `${x.toFixed(2)},${y.toFixed(2)}`).join(' ');
}

/** The points of a regular polygon of radius r, its first corner up (turned by rotation°). */
export function polygon(cx, cy, r, sides, rotation = 0) {
  return pts(Array.from({ length: sides }, (_, k) => {
    const a = ((rotation - 90 + (360 * k) / sides) * Math.PI) / 180;
    return [cx + r * Math.cos(a), cy + r * Math.sin(a)];
  }));
}

/** The points of a five-pointed star of outer radius r. */
export function star(cx, cy, r, inner = 0.45) {
  return pts(Array.from({ length: 10 }, (_, k) => {
    const rr = k % 2 ? r * inner : r;
    const a = ((-90 + 36 * k) * Math.PI) / 180;
    return [cx + rr * Math.cos(a), cy + rr * Math.sin(a)];
  }));
}

/** A named shape of about radius r (renderers/common.py draw_shape); unknown names draw an
 * octagon, as the picture does. */
export function shape(name, cx, cy, r, attrs) {
  if (name === 'circle') return svg('circle', { cx, cy, r, ...attrs });
  if (name === 'square') {
    const s = r * 0.92;
    return svg('rect', { x: cx - s, y: cy - s, width: 2 * s, height: 2 * s, rx: Math.max(1, s * 0.22), ...attrs });
  }
  const points = {
    diamond: () => polygon(cx, cy, r, 4), triangle: () => polygon(cx, cy + r * 0.15, r * 1.15, 3),
    hexagon: () => polygon(cx, cy, r, 6, 30), pentagon: () => polygon(cx, cy, r * 1.05, 5),
    star: () => star(cx, cy, r * 1.15),
  }[name] ?? (() => polygon(cx, cy, r, 8, 22.5));
  return svg('polygon', { points: points(), ...attrs });
}

/** A seat's marker: its shape in its colour with its letter (renderers/common.py
 * owner_marker). With `letterOnlyIfReadable`, a marker too small for a readable letter is its
 * shape alone, as the picture's crowded spaces are. */
export function ownerMarker(seat, cx, cy, r, { cls = 'seat-marker', strokeWidth = 1.5,
  letterOnlyIfReadable = false } = {}) {
  const st = ownerStyle(seat);
  const g = svg('g', { class: cls },
    shape(st.shape, cx, cy, r, { fill: st.color, stroke: MARK_INK, 'stroke-width': strokeWidth }));
  if (!letterOnlyIfReadable || r * 1.05 >= MARK_MIN_FONT - 0.01) {
    g.append(svg('text', { x: cx, y: cy + (st.shape === 'triangle' ? r * 0.18 : 0), 'text-anchor': 'middle',
      'dominant-baseline': 'central', 'font-size': Math.max(MARK_MIN_FONT, r * 1.05), 'font-weight': 700,
      fill: MARK_INK }, st.letter));
  }
  return g;
}
