// The Activity's entry point: sign in through Discord, open our session, then keep the
// table's socket and hand every message to the shell.
import './app.css';
import { insideDiscord, signIn } from './discord.js';
import { api, TableSocket } from './net.js';
import { createUI } from './ui.js';

const STEP_WORDS = {
  discord: 'Connecting to Discord…',
  authorize: 'Asking Discord who you are…',
  token: 'Signing you in…',
  authenticate: 'Signing you in…',
  session: 'Finding this channel’s table…',
};

let socket = null;
const ui = createUI(document.getElementById('app'), {
  choose: (code, text) => (socket ? socket.choose(code, text) : null),
  resync: () => {
    if (socket && socket.halted) {
      socket.start(); // the hello brings the table
      return true;
    }
    return socket ? socket.resync() : false;
  },
  retry: () => window.location.reload(),
});

async function boot() {
  if (!insideDiscord()) {
    ui.problem('Open this from Discord',
      'This is Fabletop’s table for Discord. Start it from the Activities of a Discord channel where Fabletop plays.',
      { retry: false });
    return;
  }
  ui.loading(STEP_WORDS.discord);
  let auth;
  let session;
  try {
    const config = await api.config();
    auth = await signIn({
      clientId: config.client_id,
      exchangeCode: (code) => api.exchangeCode(code),
      onStep: (step) => ui.loading(STEP_WORDS[step] ?? STEP_WORDS.discord),
    });
    ui.loading(STEP_WORDS.session);
    session = await api.session(auth.accessToken, auth.channelId, auth.guildId);
  } catch (err) {
    ui.problem('Could not open the table', err && err.message ? err.message : String(err));
    return;
  }
  document.documentElement.dataset.platform = auth.platform ?? 'desktop';
  socket = new TableSocket({
    session: session.session,
    channelId: auth.channelId,
    onMessage: (msg) => ui.handle(msg),
    onStatus: (status) => ui.setStatus(status),
    renewSession: async () => (await api.session(auth.accessToken, auth.channelId, auth.guildId)).session,
  });
  socket.start();
  // Back from the background (a phone's other app): make sure the table is current.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && socket) socket.resync();
  });
}

boot();
