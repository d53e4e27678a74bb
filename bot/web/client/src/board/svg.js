// Small helpers for the per-game SVG boards.
const NS = 'http://www.w3.org/2000/svg';

/** An SVG element with attributes (no style attributes: the CSP forbids them; use class). */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined && value !== false) el.setAttribute(name, String(value));
  }
  el.append(...children);
  return el;
}

/**
 * The container's one <svg>, made on the first call: role img, a <title> with the words a
 * screen reader says for the board (updated every call), and the viewBox that keeps its
 * shape (the CSS gives it its width, so an update never moves the page).
 */
export function ensureSvg(container, { viewBox, label }) {
  let root = container.querySelector(':scope > svg.board-svg');
  if (!root) {
    root = svg('svg', { class: 'board-svg', viewBox, role: 'img', 'aria-labelledby': 'board-svg-title' });
    root.append(svg('title', { id: 'board-svg-title' }));
    container.append(root);
  }
  root.setAttribute('viewBox', viewBox);
  root.querySelector('title').textContent = label;
  return root;
}
