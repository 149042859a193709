// Plays a whole game of every kind through the client @hey-api/openapi-ts generated from
// openapi/openapi.json, with its zod validators parsing every request and response at run
// time (a missing field, a wrong type or an unknown `kind` or `type` fails; zod objects let
// unknown fields through, which the Rust tests' strict validation catches). Game content
// is reached through the spec's discriminated unions only: `kind` narrows an envelope,
// `type` an action or event.
//
// Usage: npx tsx play.ts <base url>   (next to the generated `client/` folder)

import { createClient } from './client/client';
import * as sdk from './client/sdk.gen';
import type { ActionAccepted, CreateGame, LegalActions } from './client/types.gen';

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

async function play(base: string, kind: Kind, seats: number, seed: number): Promise<void> {
  const next = random(seed);
  const anonymous = createClient({ baseUrl: base });
  const players = [];
  for (let seat = 0; seat < seats; seat++) {
    const body = { name: `ts-${kind.replace('_', '-')}-${seed}-${seat}`, password: 's3cret-pass' };
    must(await sdk.createAccount({ client: anonymous, body }), 'register');
    const issued = must(await sdk.createToken({ client: anonymous, body }), 'sign in');
    players.push(createClient({ baseUrl: base, auth: () => issued.token }));
  }
  // `kind` and `seats` vary at run time here; the spec ties each kind to its seat counts.
  const body = { kind, seats } as CreateGame;
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
  const log = must(await sdk.listEvents({ client: players[0], path: { id: created.id } }), 'events');
  const exported = must(await sdk.exportGame({ client: players[0], path: { id: created.id } }), 'export');
  if (!exported.complete || exported.actions?.length !== actions) throw new Error('export incomplete');
  console.log(
    `typescript client: a whole ${kind} game, ${actions} actions (${types.size} action types), ` +
      `${log.events.length} events, every answer validated by the generated zod schemas`,
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
