// The shell around the board: the header (game, table, seats, the connection), the
// spectator banner, the prompt and the choices of the moment, the guided step menus, the
// news, and the pages for "no table here" and for problems. It shows only what the server
// sent; every update is made in place so nothing on screen jumps.
import { drawBoard, gameName } from './board/index.js';

const PENDING_MS = 10000;
const MAX_TEXT = 1800;
const NEWS_LIMIT = 30;

function h(tag, props = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === 'class') el.className = value;
    else if (name === 'text') el.textContent = value;
    else if (name.startsWith('on')) el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  el.append(...children);
  return el;
}

const STATUS_WORDS = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Connection lost, reconnecting…',
  stopped: 'Disconnected: tap ↻ to reconnect',
};

const TABLE_STATUS = {
  lobby: 'Waiting for players',
  playing: 'Playing',
  finished: 'Finished',
  aborted: 'Stopped',
};

/**
 * @param {HTMLElement} root #app
 * @param {{choose: (code: string) => number|null, resync: () => boolean, retry: () => void}} actions
 */
export function createUI(root, actions) {
  // ---------------------------------------------------------------- the screens
  const loadingText = h('p', { class: 'screen-text', role: 'status' });
  const loadingScreen = h('section', { class: 'screen screen-loading', 'data-screen': 'loading' },
    h('div', { class: 'spinner', 'aria-hidden': 'true' }), loadingText);

  const problemTitle = h('h1', { class: 'screen-title', tabindex: '-1' });
  const problemText = h('p', { class: 'screen-text' });
  const problemRetry = h('button', { type: 'button', class: 'btn btn-primary', text: 'Try again', onclick: () => actions.retry() });
  const problemScreen = h('section', { class: 'screen screen-problem', 'data-screen': 'problem', role: 'alert' },
    problemTitle, problemText, problemRetry);

  const noTableText = h('p', { class: 'screen-text no-table-text' });
  const noTableError = h('p', { class: 'refusal', role: 'alert' });
  const noTableScreen = h('section', { class: 'screen screen-no-table', 'data-screen': 'no-table', 'aria-labelledby': 'no-table-h' },
    h('h1', { class: 'screen-title', id: 'no-table-h', text: 'No table here yet', tabindex: '-1' }),
    noTableText,
    noTableError,
    h('button', { type: 'button', class: 'btn btn-primary', text: 'Check again', onclick: () => actions.resync() }));

  // ---------------------------------------------------------------- the table
  const title = h('h1', { class: 'game-name', text: 'Fabletop' });
  const tableStatus = h('span', { class: 'chip table-status' });
  const refresh = h('button', {
    type: 'button', class: 'icon-btn', 'aria-label': 'Refresh the table', title: 'Refresh the table',
    onclick: () => actions.resync(),
  }, h('span', { 'aria-hidden': 'true', text: '↻' }));
  const seatList = h('ul', { class: 'seats', 'aria-label': 'Seats' });
  const conn = h('p', { class: 'conn', role: 'status', 'data-status': 'connecting', text: STATUS_WORDS.connecting });
  const header = h('header', { class: 'bar' },
    h('div', { class: 'bar-top' }, title, tableStatus, refresh), seatList, conn);

  const banner = h('p', { class: 'banner', hidden: true, role: 'note' },
    'You are watching this table. Only the seated players choose.');

  const board = h('div', { class: 'board', id: 'board', tabindex: '0', 'aria-labelledby': 'board-h' });
  const boardArea = h('section', { class: 'board-area', 'aria-labelledby': 'board-h' },
    h('h2', { class: 'visually-hidden', id: 'board-h', text: 'The table' }), board);

  const stepTitle = h('h2', { class: 'step-title', id: 'step-h', tabindex: '-1' });
  const stepGrid = h('div', { class: 'choice-grid', role: 'group', 'aria-labelledby': 'step-h' });
  const stepRefusal = h('p', { class: 'refusal', role: 'alert' });
  // A guided step holds nothing on the server (its codes are resolved from the table's
  // legal moves alone), so Cancel only closes the panel here, sending nothing: the way
  // back to the first choice where the game's adapter offers no Take back of its own.
  const stepCancel = h('button', {
    type: 'button', class: 'btn step-cancel', text: 'Cancel', 'aria-label': 'Cancel this step',
    onclick: () => cancelStep(),
  });
  const step = h('section', { class: 'panel step', hidden: true, 'aria-labelledby': 'step-h' },
    h('div', { class: 'step-top' }, stepTitle, stepCancel), stepGrid, stepRefusal);
  // Escape cancels the step from its panel or from the board (unless the board used the
  // key itself, e.g. to close a list of its own).
  for (const where of [step, board]) {
    where.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && !event.defaultPrevented && stepId !== null) {
        event.preventDefault();
        cancelStep();
      }
    });
  }

  // A choice that asks for words (a "form" message): a text box, Send and Cancel.
  const formLabel = h('label', { class: 'step-title', id: 'form-h', for: 'form-text' });
  const formText = h('textarea', { class: 'form-text', id: 'form-text', rows: '4', maxlength: String(MAX_TEXT), required: true });
  const formSend = h('button', { type: 'submit', class: 'choice choice-primary', text: 'Send' });
  const formCancel = h('button', { type: 'button', class: 'choice choice-secondary', text: 'Cancel', onclick: () => closeForm() });
  const formRefusal = h('p', { class: 'refusal', role: 'alert' });
  const form = h('form', { class: 'panel form-panel', hidden: true, 'aria-labelledby': 'form-h', novalidate: true },
    formLabel, formText, h('div', { class: 'choice-grid' }, formSend, formCancel), formRefusal);
  let formCode = null;
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const words = formText.value.trim();
    if (!words) {
      formRefusal.textContent = 'Write something first.';
      formText.focus();
      return;
    }
    choose(formCode, formSend, form, formRefusal, words);
  });

  const prompt = h('p', { class: 'prompt' });
  const momentTitle = h('h2', { class: 'section-h', id: 'moment-h', tabindex: '-1', text: 'Your choices' });
  const menus = h('div', { class: 'menus' });
  const idle = h('p', { class: 'idle muted', text: 'Nothing to choose right now.' });
  const momentRefusal = h('p', { class: 'refusal', role: 'alert' });
  const moment = h('section', { class: 'panel moment', 'aria-labelledby': 'moment-h' },
    momentTitle, prompt, menus, idle, momentRefusal);

  const newsList = h('ol', { class: 'news-lines', 'aria-live': 'polite', 'aria-relevant': 'additions' });
  const noNews = h('p', { class: 'muted no-news', text: 'What happens at the table shows here.' });
  const news = h('section', { class: 'panel news', 'aria-labelledby': 'news-h' },
    h('h2', { class: 'section-h', id: 'news-h', text: 'News' }), noNews, newsList);

  const tableScreen = h('section', { class: 'screen-table', 'data-screen': 'table' },
    header, banner,
    h('main', { class: 'layout' }, boardArea, h('div', { class: 'side' }, step, form, moment, news)));

  const screens = [loadingScreen, problemScreen, noTableScreen, tableScreen];
  root.replaceChildren(...screens);

  function show(name) {
    root.dataset.phase = name;
    for (const s of screens) s.hidden = s.dataset.screen !== name;
  }

  // ---------------------------------------------------------------- choices
  /** id of a choose in flight → where its answer goes */
  const pending = new Map();
  let state = null;
  let stepId = null;
  /** The open step's menu as the board gets it (ctx.step), or null. */
  let stepMenu = null;

  function clearPending(id) {
    const p = pending.get(id);
    if (!p) return null;
    clearTimeout(p.timer);
    p.button?.classList.remove('is-pending');
    p.button?.removeAttribute('aria-busy');
    p.scope.removeAttribute('aria-busy');
    pending.delete(id);
    return p;
  }

  function clearAllPending() {
    for (const id of [...pending.keys()]) clearPending(id);
  }

  function choose(code, button, scope, refusal, text, fromBoard = false) {
    if ([...pending.values()].some((p) => p.scope === scope)) return; // one at a time
    refusal.textContent = '';
    const id = actions.choose(code, text);
    if (id === null) {
      refusal.textContent = 'Not connected right now: your choice was not sent. Try again in a moment.';
      return;
    }
    button.classList.add('is-pending');
    button.setAttribute('aria-busy', 'true');
    scope.setAttribute('aria-busy', 'true');
    const timer = setTimeout(() => clearPending(id), PENDING_MS);
    pending.set(id, { button, scope, refusal, timer, closes: scope === step || scope === form, fromBoard });
  }

  /** Make grid hold one button per choice, reusing the buttons of codes it already has. */
  function renderChoices(grid, choices, scope, refusal) {
    const byCode = new Map([...grid.children].map((b) => [b.dataset.code, b]));
    choices.forEach((choice, i) => {
      const code = String(choice.code);
      let button = byCode.get(code);
      if (!button) {
        button = h('button', { type: 'button', class: 'choice', 'data-code': code });
        button.addEventListener('click', () => {
          if (!button.disabled) choose(button.dataset.code, button, scope, refusal, undefined, pressing);
        });
      }
      byCode.delete(code);
      const label = String(choice.label ?? code);
      const words = [choice.emoji ? h('span', { class: 'choice-emoji', 'aria-hidden': 'true', text: choice.emoji }) : null,
        h('span', { class: 'choice-label', text: label }),
        choice.description ? h('span', { class: 'choice-desc', text: choice.description }) : null].filter(Boolean);
      const sig = JSON.stringify([choice.emoji, label, choice.description]);
      if (button.dataset.sig !== sig) {
        button.replaceChildren(...words);
        button.dataset.sig = sig;
      }
      button.setAttribute('aria-label', choice.description ? `${label}: ${choice.description}` : label);
      button.className = `choice choice-${['primary', 'success', 'danger'].includes(choice.style) ? choice.style : 'secondary'}${button.classList.contains('is-pending') ? ' is-pending' : ''}`;
      button.disabled = !!choice.disabled;
      if (grid.children[i] !== button) grid.insertBefore(button, grid.children[i] ?? null);
    });
    for (const gone of byCode.values()) gone.remove();
  }

  function renderMenus(list) {
    const sections = [...menus.children];
    list.forEach((menu, i) => {
      let section = sections[i];
      if (!section) {
        const headingId = `menu-${i}-h`;
        section = h('section', { class: 'menu', 'aria-labelledby': headingId },
          h('h3', { class: 'menu-title', id: headingId }),
          h('div', { class: 'choice-grid', role: 'group', 'aria-labelledby': headingId }),
          h('p', { class: 'refusal', role: 'alert' }));
        menus.append(section);
      }
      const heading = section.querySelector('.menu-title');
      const titleText = String(menu.title ?? menu.prompt ?? '');
      if (heading.textContent !== titleText) heading.textContent = titleText;
      heading.hidden = !titleText;
      renderChoices(section.querySelector('.choice-grid'), Array.isArray(menu.choices) ? menu.choices : [],
        section, section.querySelector('.refusal'));
    });
    for (const gone of sections.slice(list.length)) gone.remove();
    idle.hidden = list.some((m) => Array.isArray(m.choices) && m.choices.length);
  }

  function openStep(id, menu, fromBoard = false) {
    hideForm();
    const wasOpen = !step.hidden;
    stepId = id;
    // The adapters write Discord's markdown; the bold marks would show as asterisks here.
    const titleText = String(menu?.title ?? menu?.prompt ?? 'Choose').replace(/\*\*/g, '');
    stepTitle.textContent = titleText;
    stepRefusal.textContent = '';
    const choices = Array.isArray(menu?.choices) ? menu.choices : [];
    renderChoices(stepGrid, choices, step, stepRefusal);
    stepMenu = {
      title: titleText,
      choices: choices.map((c) => ({ code: String(c.code), label: String(c.label ?? c.code),
        style: c.style ?? 'secondary', disabled: !!c.disabled })),
    };
    step.hidden = false;
    moment.hidden = true;
    redraw();
    // A step opened by a touch on the board keeps the keyboard on the board (on its first
    // step target, without scrolling: on a phone the panel is below the board and the
    // step's places are on it); one opened by a button moves it to the step's first button.
    if (fromBoard) {
      board.querySelector('[role=button][tabindex="0"]')?.focus({ preventScroll: true });
    } else if (!wasOpen || !step.contains(document.activeElement)) {
      (stepGrid.querySelector('button:not([disabled])') ?? stepTitle).focus({ preventScroll: false });
    }
  }

  function closeStep() {
    if (step.hidden && stepMenu === null) return;
    const hadFocus = step.contains(document.activeElement);
    const onBoard = board.contains(document.activeElement);
    step.hidden = true;
    moment.hidden = false;
    stepId = null;
    stepMenu = null;
    stepGrid.replaceChildren();
    stepRefusal.textContent = '';
    if (hadFocus) momentTitle.focus();
    return onBoard;
  }

  /** Cancel (or Escape): back to the table's choices, on the board and in the panel. */
  function cancelStep() {
    if (stepId === null) return;
    for (const [id, p] of [...pending]) if (p.scope === step) clearPending(id);
    const onBoard = closeStep();
    redraw();
    if (onBoard && !board.contains(document.activeElement)) {
      board.querySelector('[role=button][tabindex="0"]')?.focus({ preventScroll: true });
    }
  }

  // ---------------------------------------------------------------- the board
  /** True while a touch on the board presses a shell button (its choose is the board's). */
  let pressing = false;

  function press(button) {
    if (!button || button.disabled) return;
    pressing = true;
    try { button.click(); } finally { pressing = false; }
  }

  /** Draw the board for the latest state and the open step (ctx: see board/index.js). */
  function redraw() {
    if (!state) return;
    const menuList = Array.isArray(state.menus) ? state.menus : [];
    const choices = menuList.flatMap((menu, i) => (Array.isArray(menu.choices) ? menu.choices : [])
      .map((c) => ({ ...c, menu: i })));
    const view = state.view && typeof state.view === 'object' ? state.view : null;
    drawBoard(board, {
      game: state.game,
      view,
      seats: Array.isArray(state.table?.seats) ? state.table.seats : [],
      seat: state.seat ?? null,
      version: state.version,
      choices,
      step: stepMenu,
      choose: (code) => {
        const sel = `button[data-code="${CSS.escape(String(code))}"]`;
        // The step's own choices first: a code there is the step's (the table's buttons
        // are hidden behind it, and may share nothing with it).
        if (stepMenu && stepMenu.choices.some((c) => c.code === String(code))) {
          press(stepGrid.querySelector(sel));
        } else {
          press(menus.querySelector(sel));
        }
      },
    });
  }

  function openForm(msg) {
    step.hidden = true;
    moment.hidden = true;
    formCode = String(msg.code ?? '');
    formLabel.textContent = String(msg.title ?? 'In your own words');
    formRefusal.textContent = '';
    formText.value = '';
    form.hidden = false;
    formText.focus();
  }

  function hideForm() {
    form.hidden = true;
    formCode = null;
  }

  /** Cancel, or a state after the words were sent: back to the step or the table's choices. */
  function closeForm() {
    if (form.hidden) return;
    const hadFocus = form.contains(document.activeElement);
    hideForm();
    if (stepId !== null) {
      step.hidden = false;
      if (hadFocus) stepTitle.focus();
    } else {
      moment.hidden = false;
      if (hadFocus) momentTitle.focus();
    }
  }

  // ---------------------------------------------------------------- header, news
  function renderSeats(seats, view) {
    const toAct = new Set([].concat(view?.to_act ?? []).filter((x) => typeof x === 'number'));
    const items = [...seatList.children];
    seats.forEach((seat, i) => {
      let li = items[i];
      if (!li) {
        li = h('li', { class: 'seat' }, h('span', { class: 'seat-name' }), h('span', { class: 'seat-tags' }),
          h('span', { class: 'visually-hidden seat-to-play' }));
        seatList.append(li);
      }
      const tags = [];
      if (seat.you) tags.push('you');
      if (seat.ai) tags.push('AI');
      // Whose turn it is shows as the marker (its room kept on every chip, app.css) and is
      // said to screen readers; a visible word would change the chip's width each turn.
      li.querySelector('.seat-to-play').textContent = toAct.has(seat.index) ? ', to play' : '';
      li.className = `seat${seat.you ? ' seat-you' : ''}${toAct.has(seat.index) ? ' seat-turn' : ''}`;
      li.dataset.index = seat.index;
      li.querySelector('.seat-name').textContent = seat.name ?? `Seat ${seat.index + 1}`;
      li.querySelector('.seat-tags').textContent = tags.length ? ` (${tags.join(', ')})` : '';
    });
    for (const gone of items.slice(seats.length)) gone.remove();
  }

  /** The news lines of each commit are appended once (a state sent on hello or resync has none). */
  let newsVersion = null;
  function addNews(lines, version) {
    if (version === newsVersion) return; // the same state again
    newsVersion = version;
    for (const line of lines) newsList.append(h('li', { text: String(line) }));
    while (newsList.children.length > NEWS_LIMIT) newsList.firstElementChild.remove();
    noNews.hidden = newsList.children.length > 0;
    newsList.scrollTop = newsList.scrollHeight;
  }

  // ---------------------------------------------------------------- messages
  function showState(msg) {
    const table = msg.table ?? {};
    const seats = Array.isArray(table.seats) ? table.seats : [];
    const view = msg.view && typeof msg.view === 'object' ? msg.view : null; // null before the start
    const focusedCode = document.activeElement?.dataset?.code;
    const focusWasInMoment = moment.contains(document.activeElement);

    // A state after one of our choices: that choice is done (its step too).
    const done = [...pending.values()].some((p) => p.closes);
    clearAllPending();
    if (done) {
      hideForm();
      closeStep();
      moment.hidden = false;
    }

    state = msg;
    show('table');
    if (conn.dataset.status === 'error' && root.dataset.conn === 'live') setStatus('live');
    root.dataset.game = msg.game ?? '';
    root.dataset.version = String(msg.version);
    const name = gameName(msg.game);
    if (title.textContent !== name) title.textContent = name;
    document.title = `${name} · Fabletop`;
    tableStatus.textContent = TABLE_STATUS[table.status] ?? (table.status ? String(table.status) : '');
    tableStatus.hidden = !tableStatus.textContent;
    renderSeats(seats, view);
    banner.hidden = msg.seat !== null && msg.seat !== undefined;
    momentTitle.textContent = banner.hidden ? 'Your choices' : 'Choices';

    const promptText = typeof view?.prompt === 'string' ? view.prompt : '';
    if (prompt.textContent !== promptText) prompt.textContent = promptText;
    prompt.hidden = !promptText;
    const menuList = Array.isArray(msg.menus) ? msg.menus : [];
    renderMenus(menuList);
    momentRefusal.textContent = '';

    redraw();
    addNews(Array.isArray(msg.lines) ? msg.lines : [], msg.version);

    // Keep the keyboard where it was: the same choice if it is still there.
    if (document.activeElement === document.body || !document.activeElement?.isConnected) {
      const same = focusedCode && menus.querySelector(`button[data-code="${CSS.escape(focusedCode)}"]`);
      if (same && !same.disabled) same.focus();
      else if (focusWasInMoment) momentTitle.focus();
    }
  }

  function refused(msg) {
    const p = clearPending(msg.id);
    const words = String(msg.text ?? 'That choice was refused.');
    const target = p ? p.refusal : (!form.hidden ? formRefusal : !step.hidden ? stepRefusal : momentRefusal);
    target.textContent = words;
    target.scrollIntoView({ block: 'nearest' }); // a phone may have it below the fold
    redraw(); // the step stays open (or none is): the board shows the same targets again
  }

  function onStepMenu(msg) {
    const p = clearPending(msg.id);
    openStep(msg.id, msg.menu ?? {}, !!p?.fromBoard);
  }

  function error(msg) {
    clearAllPending();
    const words = String(msg.text ?? 'Something went wrong.');
    if (root.dataset.phase === 'table') {
      conn.textContent = words;
      conn.dataset.status = 'error';
    } else if (root.dataset.phase === 'no-table') {
      noTableError.textContent = words;
    } else {
      problem('Something went wrong', words);
    }
  }

  function noTable(msg) {
    clearAllPending();
    hideForm();
    closeStep();
    state = null;
    noTableText.textContent = String(msg.text ?? 'There is no table in this channel.');
    noTableError.textContent = '';
    const first = root.dataset.phase !== 'no-table';
    show('no-table');
    if (first) noTableScreen.querySelector('h1').focus();
  }

  function handle(msg) {
    switch (msg.type) {
      case 'state': return showState(msg);
      case 'no_table': return noTable(msg);
      case 'menu': return onStepMenu(msg);
      case 'form': clearPending(msg.id); return openForm(msg);
      case 'refused': return refused(msg);
      case 'error': return error(msg);
      default: return undefined;
    }
  }

  function setStatus(status) {
    if (status === 'stopped' && conn.dataset.status === 'error') {
      conn.dataset.status = 'error'; // keep the server's words of why
    } else {
      conn.dataset.status = status;
      conn.textContent = STATUS_WORDS[status] ?? status;
    }
    root.dataset.conn = status;
    if (status !== 'live') clearAllPending();
  }

  function loading(words) {
    loadingText.textContent = words;
    show('loading');
  }

  function problem(heading, words, { retry = true } = {}) {
    problemTitle.textContent = heading;
    problemText.textContent = words;
    problemRetry.hidden = !retry;
    show('problem');
    problemTitle.focus();
  }

  show('loading');
  return { handle, setStatus, loading, problem, get state() { return state; }, get stepId() { return stepId; } };
}
