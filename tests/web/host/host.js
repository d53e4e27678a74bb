// A fake Discord client for the browser tests: it frames the Activity with the query
// parameters Discord adds, and plays the Discord side of the Embedded App SDK's
// postMessage protocol (@discord/embedded-app-sdk, output/Discord.mjs):
//
//   opcodes  HANDSHAKE 0, FRAME 1, CLOSE 2, HELLO 3 (legacy)
//   app  →   [0, {v: 1, encoding: "json", client_id, frame_id, sdk_version}]
//   host →   [1, {cmd: "DISPATCH", evt: "READY", nonce: null, data: {v, config, user}}]
//   app  →   [1, {cmd, args, nonce}]                      a command
//   host →   [1, {cmd, evt: null, nonce, data}]           its answer, or
//            [1, {cmd, evt: "ERROR", nonce, data: {code, message}}]
//
// The test sets it up through this page's query: activity (the Activity's URL), code (what
// AUTHORIZE answers), platform, channel_id, guild_id, user_id, username, and fail=authorize
// to refuse the sign-in. Everything that passes is kept in window.__fakeDiscord.
(() => {
  const query = new URLSearchParams(window.location.search);
  const opt = (name, fallback) => query.get(name) ?? fallback;
  const activity = new URL(opt('activity', '/'), window.location.href);
  const frameId = opt('frame_id', 'frame-0001');
  const user = {
    id: opt('user_id', '100000000000000001'),
    username: opt('username', 'ada'),
    global_name: opt('global_name', 'Ada'),
  };

  const fake = {
    handshake: null,
    ready: false,
    commands: [],
    logs: [],
    closes: [],
    problems: [],
    frames: 0,
  };
  window.__fakeDiscord = fake;

  const params = new URLSearchParams({
    frame_id: frameId,
    instance_id: opt('instance_id', 'i-0001-gc-1'),
    platform: opt('platform', 'desktop'),
    guild_id: opt('guild_id', '200000000000000002'),
    channel_id: opt('channel_id', '300000000000000003'),
    location_id: opt('location_id', 'gc-200000000000000002-300000000000000003'),
  });
  if (query.get('channel_id') === '') params.delete('channel_id');
  activity.search = params.toString();

  const frame = document.getElementById('activity');
  const send = (message) => frame.contentWindow.postMessage(message, activity.origin);

  const answers = {
    AUTHORIZE(args) {
      if (query.get('fail') === 'authorize') {
        return { error: { code: 5000, message: 'You closed the sign-in window' } };
      }
      return { data: { code: opt('code', 'the-code') } };
    },
    AUTHENTICATE(args) {
      return {
        data: {
          access_token: args.access_token,
          user: { ...user, discriminator: '0', avatar: null, public_flags: 0 },
          scopes: ['identify'],
          expires: new Date(Date.now() + 7 * 24 * 3600 * 1000).toISOString(),
          application: { id: fake.handshake?.client_id ?? '', name: 'Fabletop', description: '', icon: null },
        },
      };
    },
    CAPTURE_LOG(args) {
      fake.logs.push({ level: args.level, message: args.message });
      return { data: null };
    },
    SUBSCRIBE(args, payload) {
      return { data: { evt: payload.evt } };
    },
  };

  window.addEventListener('message', (event) => {
    if (event.source !== frame.contentWindow) return;
    if (event.origin !== activity.origin) {
      fake.problems.push(`message from ${event.origin}, expected ${activity.origin}`);
      return;
    }
    if (!Array.isArray(event.data)) {
      fake.problems.push(`not an [opcode, payload] tuple: ${JSON.stringify(event.data)}`);
      return;
    }
    const [opcode, payload] = event.data;
    if (opcode === 0) {
      fake.handshake = payload;
      if (payload.v !== 1 || payload.frame_id !== frameId || !payload.client_id) {
        fake.problems.push(`bad handshake: ${JSON.stringify(payload)}`);
        send([2, { code: 4000, message: 'bad handshake' }]);
        return;
      }
      fake.ready = true;
      send([1, {
        cmd: 'DISPATCH',
        evt: 'READY',
        nonce: null,
        data: {
          v: 1,
          config: { cdn_host: 'cdn.discordapp.com', api_endpoint: '//discord.com/api', environment: 'production' },
          user: { id: user.id, username: user.username, discriminator: '0' },
        },
      }]);
    } else if (opcode === 1) {
      fake.frames += 1;
      const { cmd, args, nonce } = payload;
      if (cmd !== 'CAPTURE_LOG') fake.commands.push({ cmd, args, nonce });
      const answer = answers[cmd] ? answers[cmd](args ?? {}, payload) : {
        error: { code: 4002, message: `the fake Discord does not play ${cmd}` },
      };
      if (answer.error) send([1, { cmd, evt: 'ERROR', nonce, data: answer.error }]);
      else send([1, { cmd, evt: null, nonce, data: answer.data }]);
    } else if (opcode === 2) {
      fake.closes.push(payload);
    } else {
      fake.problems.push(`unknown opcode ${opcode}`);
    }
  });

  frame.src = activity.toString();
})();
