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

/**
 * Make g a touch target for choice, or stop it being one (choice null): role button,
 * focusable, labelled with the choice's words, its highlight (the child `.${prefix}-hl`)
 * shown, and a tap, Enter or Space playing the choice of the latest state (getCtx()).
 * Wired once per element, so an update in place never adds a second listener.
 */
export function setTarget(g, choice, getCtx, prefix) {
  const hl = g.querySelector(`:scope > .${prefix}-hl`);
  if (choice) {
    g.setAttribute('role', 'button');
    g.setAttribute('tabindex', '0');
    g.setAttribute('aria-label', String(choice.label ?? choice.code));
    g.dataset.code = String(choice.code);
    g.classList.add(`${prefix}-target`);
    hl?.removeAttribute('display');
  } else {
    g.removeAttribute('role');
    g.removeAttribute('tabindex');
    g.removeAttribute('aria-label');
    delete g.dataset.code;
    g.classList.remove(`${prefix}-target`);
    hl?.setAttribute('display', 'none');
  }
  if (!g.dataset.wired) {
    g.dataset.wired = '1';
    const go = () => { if (g.dataset.code) getCtx()?.choose(g.dataset.code); };
    g.addEventListener('click', go);
    g.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ' || event.key === 'Spacebar') {
        event.preventDefault();
        go();
      }
    });
  }
}

/** The rendered width of an SVG text element (0 where the browser cannot measure it). */
export function measure(el) {
  try { return el.getComputedTextLength(); } catch { return 0; }
}

/** Set el's text to text, cut with an ellipsis to fit maxWidth (when the browser can measure). */
export function fitText(el, text, maxWidth) {
  if (el.dataset.full === text && el.dataset.max === String(maxWidth)) return;
  el.dataset.full = text;
  el.dataset.max = String(maxWidth);
  el.textContent = text;
  let cut = text.length;
  while (cut > 1 && measure(el) > maxWidth) {
    cut -= 1;
    el.textContent = `${text.slice(0, cut).trimEnd()}…`;
  }
}
