// The fallback board: the view's public facts as a readable panel. The per-seat lists
// (one entry per seat) go in a "Seat by seat" table; every other top-level field is a
// term and its value in a definition list. Updated in place, entry by entry.

/** Fields the shell shows itself, or that say nothing to a person. */
const HIDDEN = new Set(['seat', 'players', 'prompt']);
/** Fields whose numbers are seat indexes: shown as the seats' names. */
const SEAT_FIELDS = new Set(['to_act', 'starter', 'winners', 'winner', 'current_seat', 'active_seat', 'turn_seat']);
const LIST_LIMIT = 40;
const OPEN_LIMIT = 8;

export function humanize(key) {
  const words = String(key).replace(/([a-z])([A-Z])/g, '$1 $2').replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function h(tag, cls, text) {
  const el = document.createElement(tag);
  if (cls) el.className = cls;
  if (text !== undefined) el.textContent = text;
  return el;
}

const isScalar = (v) => v === null || ['string', 'number', 'boolean'].includes(typeof v);
const isPlainObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

function scalarText(v) {
  if (v === null || v === undefined) return '—';
  if (v === true) return 'yes';
  if (v === false) return 'no';
  return String(v);
}

function seatName(seats, index) {
  const seat = seats.find((s) => s.index === index);
  return seat ? seat.name : `Seat ${Number(index) + 1}`;
}

/** The one-line words for an object: its name first, then its other plain facts. */
function summary(obj) {
  const lead = ['name', 'label', 'title'].find((k) => typeof obj[k] === 'string' && obj[k]);
  const rest = Object.entries(obj)
    .filter(([k, v]) => k !== lead && isScalar(v) && v !== null && k !== 'text' && k !== 'id')
    .map(([k, v]) => `${humanize(k).toLowerCase()} ${scalarText(v)}`);
  const head = lead ? obj[lead] : '';
  return [head, rest.join(', ')].filter(Boolean).join(' — ');
}

function describe(value, depth = 0) {
  if (isScalar(value)) {
    const span = h('span', value === null ? 'muted' : '', scalarText(value));
    return span;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return h('span', 'muted', 'none');
    if (value.every(isScalar)) {
      const shown = value.slice(0, LIST_LIMIT).map(scalarText).join(', ');
      return h('span', '', value.length > LIST_LIMIT ? `${shown} … (${value.length} in all)` : shown);
    }
    const list = h('ol', 'fact-items');
    value.forEach((item) => {
      const li = h('li');
      if (isPlainObject(item)) {
        li.textContent = summary(item);
        if (typeof item.text === 'string' && item.text) li.append(h('span', 'fact-note', item.text));
      } else if (Array.isArray(item)) {
        li.append(describe(item, depth + 1));
      } else {
        li.textContent = scalarText(item);
      }
      list.append(li);
    });
    if (value.length <= OPEN_LIMIT) return list;
    const details = h('details', 'fact-more');
    details.append(h('summary', '', `${value.length} entries`), list);
    return details;
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return h('span', 'muted', 'none');
    if (depth >= 1 || entries.every(([, v]) => isScalar(v))) {
      return h('span', '', entries.map(([k, v]) => `${humanize(k)}: ${isScalar(v) ? scalarText(v) : summary(v)}`).join('; '));
    }
    const dl = h('dl', 'fact-sub');
    for (const [k, v] of entries) {
      dl.append(h('dt', '', humanize(k)));
      const dd = h('dd');
      dd.append(describe(v, depth + 1));
      dl.append(dd);
    }
    return dl;
  }
  return h('span', '', String(value));
}

function seatValue(value, seats) {
  if (typeof value === 'number') return h('span', '', seatName(seats, value));
  if (Array.isArray(value) && value.every((v) => typeof v === 'number')) {
    return h('span', '', value.length ? value.map((v) => seatName(seats, v)).join(', ') : 'none');
  }
  return describe(value);
}

/** Which fields hold one entry per seat (a list as long as the table has seats). */
function perSeatFields(view, seats) {
  const count = seats.length || (typeof view.players === 'number' ? view.players : 0);
  if (count < 1) return [];
  return Object.keys(view).filter((k) => !HIDDEN.has(k) && !SEAT_FIELDS.has(k)
    && Array.isArray(view[k]) && view[k].length === count && count > 0
    && (view[k].every(isScalar) || view[k].every(isPlainObject)));
}

function ensure(container) {
  let root = container.querySelector(':scope > .facts');
  if (!root) {
    root = h('div', 'facts');
    const seatsSection = h('section', 'facts-seats');
    seatsSection.setAttribute('aria-labelledby', 'facts-seats-h');
    const heading = h('h3', 'facts-h', 'Seat by seat');
    heading.id = 'facts-seats-h';
    seatsSection.append(heading, h('div', 'facts-seats-body'));
    const listHeading = h('h3', 'facts-h', 'On the table');
    listHeading.id = 'facts-list-h';
    const dl = h('dl', 'facts-list');
    dl.setAttribute('aria-labelledby', 'facts-list-h');
    const empty = h('p', 'muted facts-empty', 'The game has not started yet.');
    root.append(empty, seatsSection, listHeading, dl);
    container.append(root);
  }
  return root;
}

function update(node, json, build) {
  if (node.dataset.json === json) return false;
  const wasOpen = !!node.querySelector('details[open]');
  node.replaceChildren(build());
  if (wasOpen) node.querySelector('details')?.setAttribute('open', '');
  const changed = node.dataset.json !== undefined;
  node.dataset.json = json;
  return changed;
}

function flash(el) {
  el.classList.remove('fact--changed');
  void el.offsetWidth; // restart the highlight
  el.classList.add('fact--changed');
}

function drawSeats(body, view, seats, fields) {
  const json = JSON.stringify([fields.map((k) => view[k]), seats.map((s) => [s.index, s.name, s.you])]);
  if (body.dataset.json === json) return;
  body.dataset.json = json;
  body.replaceChildren();
  if (!fields.length) return;
  const count = view[fields[0]].length;
  const scalarFields = fields.filter((k) => view[k].every(isScalar));
  const objectFields = fields.filter((k) => !scalarFields.includes(k));
  const rows = Array.from({ length: count }, (_, i) => seats[i] ?? { index: i, name: `Seat ${i + 1}` });
  if (scalarFields.length) {
    const table = h('table', 'facts-table');
    const head = h('tr');
    head.append(h('th', '', 'Seat'));
    for (const k of scalarFields) {
      const th = h('th', '', humanize(k));
      th.scope = 'col';
      head.append(th);
    }
    const thead = h('thead');
    thead.append(head);
    const tbody = h('tbody');
    rows.forEach((seat, i) => {
      const tr = h('tr', seat.you ? 'is-you' : '');
      const th = h('th', '', seat.name);
      th.scope = 'row';
      tr.append(th);
      for (const k of scalarFields) tr.append(h('td', '', scalarText(view[k][i])));
      tbody.append(tr);
    });
    table.append(thead, tbody);
    body.append(table);
  }
  if (objectFields.length) {
    const list = h('div', 'facts-seat-cards');
    rows.forEach((seat, i) => {
      const card = h('section', `facts-seat-card${seat.you ? ' is-you' : ''}`);
      card.append(h('h4', '', seat.name));
      const dl = h('dl', 'fact-sub');
      for (const k of objectFields) {
        dl.append(h('dt', '', humanize(k)));
        const dd = h('dd');
        dd.append(describe(view[k][i], 1));
        dl.append(dd);
      }
      card.append(dl);
      list.append(card);
    });
    body.append(list);
  }
}

/** The fallback draw function (see board/index.js). */
export function drawFacts(container, ctx) {
  const view = isPlainObject(ctx.view) ? ctx.view : {};
  const seats = ctx.seats ?? [];
  const root = ensure(container);
  root.querySelector('.facts-empty').hidden = isPlainObject(ctx.view);
  const fields = perSeatFields(view, seats);
  const seatsSection = root.querySelector('.facts-seats');
  seatsSection.hidden = fields.length === 0;
  drawSeats(root.querySelector('.facts-seats-body'), view, seats, fields);

  const dl = root.querySelector('.facts-list');
  const keys = Object.keys(view).filter((k) => !HIDDEN.has(k) && !fields.includes(k));
  const existing = new Map([...dl.children].map((el) => [el.dataset.key, el]));
  let at = 0;
  for (const key of keys) {
    let entry = existing.get(key);
    if (!entry) {
      entry = h('div', 'fact');
      entry.dataset.key = key;
      entry.append(h('dt', '', humanize(key)), h('dd'));
    }
    existing.delete(key);
    if (dl.children[at] !== entry) dl.insertBefore(entry, dl.children[at] ?? null);
    at += 1;
    const value = view[key];
    const dd = entry.querySelector('dd');
    const changed = update(dd, JSON.stringify(value) ?? 'null',
      () => (SEAT_FIELDS.has(key) ? seatValue(value, seats) : describe(value)));
    if (changed) flash(entry);
  }
  for (const gone of existing.values()) gone.remove();
  root.querySelector('#facts-list-h').hidden = keys.length === 0;
}
