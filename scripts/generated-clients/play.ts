// Plays a whole game of every kind through the client @hey-api/openapi-ts generated from
// openapi/openapi.json, with its zod validators parsing every request and response at run
// time (a missing field, a wrong type or an unknown `kind` or `type` fails; zod objects let
// unknown fields through, which the Rust tests' strict validation catches). Game content
// is reached through the spec's discriminated unions only: `kind` narrows an envelope,
// `type` an action or event.
//
// After each game it follows the game's stream and the account stream with the generated
// Server-Sent Events methods (each frame's data parsed by the generated zod schemas),
// checks that moments are validated as RFC 3339 date-times, and that a problem's code is one
// of the generated `ProblemCode` enum.
//
// Usage: npx tsx play.ts <base url>   (next to the generated `client/` folder)

import { createClient } from './client/client';
import * as sdk from './client/sdk.gen';
import type { ActionAccepted, NewGame, LegalActions, ProblemCode } from './client/types.gen';
import {
  zEternalPalaceEventOut,
  zJavaEventOut,
  zNotificationOut,
  zProblemCode,
  zTikalEventOut,
} from './client/zod.gen';

const KINDS = [
  { kind: 'tikal', seats: 2 },
  { kind: 'java', seats: 2 },
  { kind: 'eternal_palace', seats: 3 },
] as const;

type Kind = (typeof KINDS)[number]['kind'];

function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

function must<T>(result: { data?: T; error?: unknown; response?: Response }, what: string): T {
  if (result.data === undefined) {
    throw new Error(`${what}: ${result.response?.status} ${JSON.stringify(result.error)}`);
  }
  return result.data;
}

const EVENT_OUT = { tikal: zTikalEventOut, java: zJavaEventOut, eternal_palace: zEternalPalaceEventOut };

type Client = ReturnType<typeof createClient>;

/** Every frame's data a generated SSE method yields, until the stream ends. */
async function drain(events: AsyncGenerator<unknown>): Promise<unknown[]> {
  const data: unknown[] = [];
  for await (const item of events) data.push(item);
  return data;
}

async function followStreams(player: Client, id: string, kind: Kind, seqs: number[]): Promise<[number, number]> {
  // `max_seconds` ends each stream, so the generated method's loop ends too.
  const game = await sdk.streamEvents({
    client: player,
    path: { id },
    query: { after: 0, max_seconds: 10 },
    sseMaxRetryAttempts: 1,
  });
  const frames = await drain(game.stream);
  const end = frames.pop();
  if (JSON.stringify(end) !== '{}') throw new Error(`the game stream ended with ${JSON.stringify(end)}`);
  const streamed = frames.map((frame) => EVENT_OUT[kind].parse(frame));
  if (JSON.stringify(streamed.map((event) => Number(event.seq))) !== JSON.stringify(seqs)) {
    throw new Error('the game stream and the log differ');
  }
  for (const event of streamed) {
    if (Number.isNaN(new Date(event.time).getTime())) throw new Error(`not a date: ${event.time}`);
  }
  const account = await sdk.streamNotifications({
    client: player,
    query: { after: 0, max_seconds: 1 },
    sseMaxRetryAttempts: 1,
  });
  const notifications = (await drain(account.stream)).map((frame) => zNotificationOut.parse(frame));
  const types = new Set(notifications.map((notification) => notification.type));
  if (!types.has('game_started') || !types.has('game_finished')) {
    throw new Error(`the account stream lacks the game's start or end: ${[...types]}`);
  }
  return [streamed.length, notifications.length];
}

async function checkProblem(player: Client): Promise<void> {
  const missing = await sdk.getGame({ client: player, path: { id: 'nosuchgame0' } });
  if (missing.response.status !== 404) throw new Error(`a missing game answered ${missing.response.status}`);
  const code: ProblemCode = zProblemCode.parse((missing.error as { code: unknown }).code);
  if (code !== 'game_not_found') throw new Error(`a missing game is ${code}`);
}

/** A page, following and the archive through the generated methods, each answer validated:
 * the finished game is in the first player's latest games and in the archive. */
async function checkPeople(players: Client[], names: string[], id: string, kind: Kind): Promise<void> {
  const profile = { about: 'Plays from a generated client.', country: 'AT', language: 'de', show_last_seen: true } as const;
  const stored = must(await sdk.setProfile({ client: players[0], body: profile }), 'set profile');
  if (stored.country !== 'AT') throw new Error(`profile stored as ${JSON.stringify(stored)}`);
  must(await sdk.followAccount({ client: players[1], path: { name: names[0] } }), 'follow');
  const page = must(await sdk.getPlayer({ client: players[1], path: { name: names[0] } }), 'player page');
  if (!page.you_follow || page.recent_games.length !== 1 || page.recent_games[0].id !== id || page.recent_games[0].kind !== kind) {
    throw new Error(`player page: ${JSON.stringify(page).slice(0, 300)}`);
  }
  const archive = must(
    await sdk.listGames({ client: players[1], query: { status: 'finished', public: true, players: names.join(',') } }),
    'archive',
  );
  if (archive.games.length !== 1 || archive.games[0].id !== id) throw new Error('the archive misses the game');
}

async function play(base: string, kind: Kind, seats: number, seed: number): Promise<void> {
  const next = random(seed);
  const anonymous = createClient({ baseUrl: base });
  const players = [];
  const names: string[] = [];
  for (let seat = 0; seat < seats; seat++) {
    const body = { name: `ts-${kind.replace('_', '-')}-${seed}-${seat}`, password: 's3cret-pass' };
    names.push(body.name);
    must(await sdk.createAccount({ client: anonymous, body }), 'register');
    const issued = must(await sdk.createToken({ client: anonymous, body }), 'sign in');
    players.push(createClient({ baseUrl: base, auth: () => issued.token }));
  }
  // `kind` and `seats` vary at run time here; the spec ties each kind to its seat counts.
  const body = { kind, seats } as NewGame;
  const created = must(await sdk.createGame({ client: players[0], body }), 'create');
  if (created.kind !== kind) throw new Error(`created a ${created.kind} game`);
  for (const player of players.slice(1)) {
    must(await sdk.joinGame({ client: player, path: { id: created.id }, body: {} }), 'join');
  }
  let actions = 0;
  const types = new Set<string>();
  for (;;) {
    const summary = must(await sdk.getGame({ client: players[0], path: { id: created.id } }), 'summary');
    if (summary.status === 'finished') break;
    const seat = summary.to_act[Math.floor(next() * summary.to_act.length)];
    const player = players[seat];
    const legal: LegalActions = must(
      await sdk.getLegalActions({ client: player, path: { id: created.id } }),
      'legal actions',
    );
    const view = must(await sdk.getView({ client: player, path: { id: created.id } }), 'view');
    if (view.kind !== kind || legal.kind !== kind) throw new Error('kind changed');
    const action = legal.actions[Math.floor(next() * legal.actions.length)];
    types.add(action.type);
    const accepted: ActionAccepted = must(
      await sdk.postAction({
        client: player,
        path: { id: created.id },
        body: { expected_seq: legal.seq, action },
      }),
      'act',
    );
    if (accepted.events.length === 0) throw new Error('an action appended nothing');
    actions++;
    if (actions > 20000) throw new Error('the game does not end');
  }
  // The log a page of 200 at a time, each page continuing at the last one's `next`.
  const seqs: number[] = [];
  let cursor: string | undefined;
  let pages = 0;
  for (;;) {
    const log = must(
      await sdk.listEvents({ client: players[0], path: { id: created.id }, query: { limit: 200, cursor } }),
      'events',
    );
    seqs.push(...log.events.map((event) => Number(event.seq)));
    pages++;
    if (log.next === null) {
      if (seqs.length !== Number(log.current_seq) || seqs.some((seq, index) => seq !== index + 1)) {
        throw new Error(`the pages miss or repeat events: ${seqs.length} of ${log.current_seq}`);
      }
      break;
    }
    cursor = log.next;
  }
  const [streamed, notified] = await followStreams(players[0], created.id, kind, seqs);
  await checkProblem(players[0]);
  await checkPeople(players, names, created.id, kind);
  const exported = must(await sdk.exportGame({ client: players[0], path: { id: created.id } }), 'export');
  if (!exported.complete || exported.actions?.length !== actions) throw new Error('export incomplete');
  console.log(
    `typescript client: a whole ${kind} game, ${actions} actions (${types.size} action types), ` +
      `${seqs.length} events (${pages} pages), every answer validated by the generated zod schemas; the game's ` +
      `stream (${streamed} events) and the account stream (${notified} notifications) followed; a player's page, ` +
      'following and the archive read',
  );
}

async function main(): Promise<void> {
  const base = process.argv[2];
  for (const [index, { kind, seats }] of KINDS.entries()) {
    await play(base, kind, seats, index + 1);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
