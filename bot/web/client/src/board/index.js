// The boards: game id → a draw function. A per-game board draws the view into an SVG
// (see svg.js); a game without one gets the facts panel (facts.js).
//
// A draw function is called as draw(container, ctx) on every state, with the same
// container as long as the game stays the same. It updates what it drew last time in
// place (no flicker, no layout shift) and shows only what the view says. ctx holds:
//   game      the game id
//   view      the viewer's view JSON, as the server sent it
//   seats     [{index, name, ai, you}] of the table
//   seat      the viewer's seat index, or null for a spectator
//   version   the state's version
//   choices   every choice of the moment, flat: [{code, label, style, disabled, menu}]
//   step      the guided step open now, or null: {title, choices: [{code, label, style,
//             disabled}]}, the follow-up menu a choice opened (the server's `menu`
//             message; its codes are the game adapter's, e.g. a column after a slot).
//             The board is drawn again whenever it opens, changes or closes (Cancel, a
//             Take back, the move played). While it is open the board's targets are the
//             step's choices that have a place on it, not the table's choices again
//   choose    choose(code): play one of the step's choices (its panel's button) or,
//             otherwise, of the table's choices (a board may offer touches on them)
//
// To add a board: write board/<game>.js exporting draw, import it here and add it to BOARDS.
import { drawFacts } from './facts.js';
import { draw as drawWinter } from './winter-tales.js';
import { draw as drawInn } from './fairy-tale-inn.js';
import { draw as drawTreasure } from './treasure.js';
import { draw as drawPocket } from './pocket.js';
import { draw as drawCrossroads } from './crossroads-inn.js';

const BOARDS = new Map([
  ['winter-tales', drawWinter],
  ['pocket', drawPocket],
  ['fairy-tale-inn', drawInn],
  ['treasure', drawTreasure],
  ['crossroads-inn', drawCrossroads],
]);

export const GAME_NAMES = {
  'fairy-tale-inn': 'Fairy Tale Inn',
  pocket: 'Fairy Tale in My Pocket',
  'crossroads-inn': 'Crossroads Inn',
  treasure: 'Save the Treasure of Fairy Tales',
  'winter-tales': 'Winter Tales',
};

export function gameName(game) {
  return GAME_NAMES[game] ?? 'Fabletop';
}

export function registerBoard(game, draw) {
  BOARDS.set(game, draw);
}

export function boardFor(game) {
  return BOARDS.get(game) ?? drawFacts;
}

/** Draw ctx.view into container with the game's board (a fresh container on a new game). */
export function drawBoard(container, ctx) {
  const key = BOARDS.has(ctx.game) ? `game:${ctx.game}` : 'facts';
  if (container.dataset.board !== key) {
    container.replaceChildren();
    container.dataset.board = key;
  }
  boardFor(ctx.game)(container, ctx);
}
