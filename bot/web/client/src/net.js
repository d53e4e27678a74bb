// Our server: the HTTP calls of signing in, and the table's WebSocket.
// Every URL is relative: inside Discord they go through Discord's proxy to our server.

/** A refusal or failure of our server, in the server's words when it gave some. */
export class ApiError extends Error {
  constructor(words, status) {
    super(words);
    this.name = 'ApiError';
    this.status = status;
  }
}

async function call(path, { method = 'GET', body, token } = {}) {
  const headers = { Accept: 'application/json' };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers.Authorization = `Bearer ${token}`;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      cache: 'no-store',
    });
  } catch (err) {
    throw new ApiError('The Fabletop server could not be reached. Check your connection and try again.', 0);
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok || !data || typeof data !== 'object' || data.error) {
    const words = data && typeof data.error === 'string' && data.error
      ? data.error
      : `The Fabletop server answered ${response.status} ${response.statusText || ''}`.trim();
    throw new ApiError(words, response.status);
  }
  return data;
}

export const api = {
  /** GET /api/config → {client_id} */
  async config() {
    const data = await call('/api/config');
    if (typeof data.client_id !== 'string' || !data.client_id) {
      throw new ApiError('The Fabletop server has no Discord application configured.', 500);
    }
    return data;
  },
  /** POST /api/token {code} → the access token */
  async exchangeCode(code) {
    const data = await call('/api/token', { method: 'POST', body: { code } });
    if (typeof data.access_token !== 'string') throw new ApiError('The sign-in gave no token.', 500);
    return data.access_token;
  },
  /** POST /api/session with the bearer → {session, user: {id, name}} */
  async session(accessToken, channelId, guildId) {
    const data = await call('/api/session', {
      method: 'POST',
      token: accessToken,
      body: { channel_id: channelId, guild_id: guildId ?? null },
    });
    if (typeof data.session !== 'string') throw new ApiError('The server opened no session.', 500);
    return data;
  },
};

/** The close code of a socket the server refused for its session or its limits. */
export const CLOSE_REFUSED = 4403;

export function socketUrl(loc = window.location) {
  return `${loc.protocol === 'https:' ? 'wss:' : 'ws:'}//${loc.host}/api/ws`;
}

/**
 * The table's WebSocket: hello with the last version seen, reconnects with backoff after a
 * drop, and never lets an older state replace a newer one.
 *
 * onMessage gets every server message worth showing (a state only if it is not older than
 * the last one); onStatus gets "connecting", "live", "reconnecting" or "stopped" (the
 * server refused the session twice: its error message says why; start() tries again).
 */
export class TableSocket {
  constructor({
    session,
    channelId,
    onMessage,
    onStatus = () => {},
    renewSession = null,
    url = socketUrl(),
    backoffMs = 500,
    maxBackoffMs = 15000,
    WebSocketImpl = WebSocket,
  }) {
    this.session = session;
    this.channelId = channelId;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.renewSession = renewSession;
    this.url = url;
    this.backoffMs = backoffMs;
    this.maxBackoffMs = maxBackoffMs;
    this.WebSocketImpl = WebSocketImpl;
    /** The version of the state on screen (null before the first). */
    this.version = null;
    this.ws = null;
    this.nextId = 1;
    this.failures = 0;
    this.stopped = false;
    this.timer = null;
    this.heard = false;
    this.refusals = 0;
    this.renewing = false;
  }

  start() {
    this.stopped = false;
    this.refusals = 0;
    this.failures = 0;
    this.open();
  }

  /** Closed for good (refused twice, or stopped): start() again to reconnect. */
  get halted() {
    return this.stopped;
  }

  stop() {
    this.stopped = true;
    clearTimeout(this.timer);
    if (this.ws) this.ws.close(1000, 'bye');
    this.onStatus('stopped');
  }

  get connected() {
    return !!this.ws && this.ws.readyState === 1;
  }

  open() {
    clearTimeout(this.timer);
    this.onStatus(this.failures ? 'reconnecting' : 'connecting');
    let ws;
    try {
      ws = new this.WebSocketImpl(this.url);
    } catch {
      this.retry();
      return;
    }
    this.ws = ws;
    this.heard = false;
    ws.addEventListener('open', () => {
      ws.send(JSON.stringify({
        type: 'hello',
        session: this.session,
        channel_id: this.channelId,
        version: this.version,
      }));
    });
    ws.addEventListener('message', (event) => {
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      if (!msg || typeof msg !== 'object') return;
      if (!this.heard && (msg.type === 'state' || msg.type === 'no_table')) {
        this.heard = true; // the server took our hello
        this.failures = 0;
        this.refusals = 0;
        this.onStatus('live');
      }
      this.receive(msg);
    });
    ws.addEventListener('close', (event) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (event.code === CLOSE_REFUSED) {
        // The server refused the session (expired, another channel, too many boards): a
        // fresh session once; refused again, stop and leave its words on screen.
        this.refusals += 1;
        if (this.refusals > 1 || !this.renewSession) {
          this.stopped = true;
          this.onStatus('stopped');
          return;
        }
        this.renewing = true;
      }
      this.failures = this.heard ? 1 : this.failures + 1;
      this.retry();
    });
  }

  retry() {
    if (this.stopped) return;
    this.onStatus('reconnecting');
    const step = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** Math.max(0, this.failures - 1));
    const delay = step / 2 + Math.random() * (step / 2);
    this.timer = setTimeout(async () => {
      // Refused for its session, or several tries in a row closed before the server took
      // the hello (a restart that lost the sessions): a fresh session, then on.
      if ((this.renewing || this.failures >= 3) && this.renewSession) {
        this.renewing = false;
        try {
          this.session = await this.renewSession();
        } catch {
          /* the next try says more */
        }
      }
      if (!this.stopped) this.open();
    }, delay);
  }

  receive(msg) {
    if (msg.type === 'state') {
      if (typeof msg.version !== 'number') return;
      if (this.version !== null && msg.version < this.version) return; // older than shown
      this.version = msg.version;
    }
    this.onMessage(msg);
  }

  send(msg) {
    if (!this.connected) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  /** Send a choice (with words, for a form); the id the server's menu, form or refusal
   * will answer with, or null when offline. */
  choose(code, text) {
    if (this.version === null) return null; // nothing shown yet: nothing to choose from
    const id = this.nextId++;
    const msg = { type: 'choose', id, version: this.version, code };
    if (typeof text === 'string') msg.text = text;
    return this.send(msg) ? id : null;
  }

  resync() {
    return this.send({ type: 'resync' });
  }
}
