// The Discord side of the Activity: the Embedded App SDK's handshake with the Discord
// client that frames us, and signing the person in. Kept apart from the rest so a test can
// run it against a fake Discord host (tests/web/host/).
//
// The SDK speaks postMessage with its parent window: [opcode, payload] with opcodes
// HANDSHAKE 0, FRAME 1, CLOSE 2 (HELLO 3 is legacy). It sends
// [0, {v: 1, encoding: "json", client_id, frame_id, sdk_version}] when constructed, waits for
// the FRAME {cmd: "DISPATCH", evt: "READY"} and then sends commands as
// [1, {cmd, args, nonce}], each answered by [1, {cmd, evt: null, nonce, data}] (or evt
// "ERROR" with data {code, message}).
import { DiscordSDK } from '@discord/embedded-app-sdk';

/** Whether this page was opened by Discord as an Activity (the SDK needs these). */
export function insideDiscord(search = window.location.search) {
  const query = new URLSearchParams(search);
  return ['frame_id', 'instance_id', 'platform'].every((name) => query.get(name));
}

/** A problem worded for the person: what went wrong and what they can do. */
export class SignInError extends Error {
  constructor(words, cause) {
    super(words);
    this.name = 'SignInError';
    this.cause = cause;
  }
}

function within(promise, ms, words) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new SignInError(words)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** The words of an SDK rejection ({code, message}, an Error, or anything). */
function sdkWords(err) {
  if (err && typeof err === 'object' && typeof err.message === 'string' && err.message) {
    return err.message;
  }
  return 'no reason given';
}

/**
 * Sign in through Discord: ready, authorize (a code), our server swaps the code for an
 * access token, authenticate with it. Resolves to what the rest of the app needs.
 *
 * @param {object} o
 * @param {string} o.clientId the application's id (GET /api/config)
 * @param {(code: string) => Promise<string>} o.exchangeCode POST /api/token
 * @param {(step: string) => void} [o.onStep] told "discord", "authorize", "token", "authenticate"
 * @param {typeof DiscordSDK} [o.SDK]
 * @param {number} [o.timeoutMs]
 */
export async function signIn({ clientId, exchangeCode, onStep = () => {}, SDK = DiscordSDK, timeoutMs = 20000 }) {
  onStep('discord');
  let sdk;
  try {
    sdk = new SDK(clientId);
  } catch (err) {
    throw new SignInError(`Discord did not start the Activity properly (${sdkWords(err)}).`, err);
  }
  await within(sdk.ready(), timeoutMs, 'Discord did not answer. Close the Activity and open it again.');

  onStep('authorize');
  let code;
  try {
    ({ code } = await sdk.commands.authorize({
      client_id: clientId,
      response_type: 'code',
      state: '',
      prompt: 'none',
      scope: ['identify'],
    }));
  } catch (err) {
    throw new SignInError(`Discord did not let Fabletop know who you are (${sdkWords(err)}).`, err);
  }

  onStep('token');
  const accessToken = await exchangeCode(code);

  onStep('authenticate');
  let auth;
  try {
    auth = await sdk.commands.authenticate({ access_token: accessToken });
  } catch (err) {
    throw new SignInError(`Discord did not accept the sign-in (${sdkWords(err)}).`, err);
  }
  if (!sdk.channelId) {
    throw new SignInError('Discord did not say which channel this is. Open the Activity from a channel.');
  }
  return {
    sdk,
    accessToken,
    user: auth.user,
    channelId: sdk.channelId,
    guildId: sdk.guildId,
    platform: sdk.platform,
  };
}
