// turnpost's web page: plain JavaScript over the public API, no build step. It signs in,
// lists your games, shows a game's board (the server's SVG), steps through its history and
// plays by choosing among the legal actions, or by clicking a space first.
'use strict';

const TOKEN_KEY = 'turnpost.token';
const NAME_KEY = 'turnpost.name';
const $ = (id) => document.getElementById(id);

async function api(method, path, body) {
  const headers = {};
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) {
    let problem;
    try {
      problem = JSON.parse(text);
    } catch {
      problem = { code: `http_${response.status}`, detail: text };
    }
    if (problem.code === 'token_expired' || problem.code === 'token_revoked') signOut();
    throw problem;
  }
  const type = response.headers.get('content-type') || '';
  return type.includes('json') ? JSON.parse(text) : text;
}

function showError(problem) {
  $('error').textContent = problem ? `${problem.code}: ${problem.detail}` : '';
}

function show(page) {
  for (const id of ['sign-in-page', 'lobby-page', 'game-page']) $(id).hidden = id !== page;
  const signedIn = Boolean(localStorage.getItem(TOKEN_KEY));
  $('sign-out').hidden = !signedIn;
  $('who').textContent = signedIn ? `signed in as ${localStorage.getItem(NAME_KEY)}` : '';
}

function signOut() {
  localStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(NAME_KEY);
  location.href = '/';
}

async function signIn(register) {
  const name = $('name').value;
  const password = $('password').value;
  try {
    if (register) await api('POST', '/v1/accounts', { name, password });
    const issued = await api('POST', '/v1/tokens', { name, password });
    localStorage.setItem(TOKEN_KEY, issued.token);
    localStorage.setItem(NAME_KEY, issued.account.name);
    showError(null);
    route();
  } catch (problem) {
    showError(problem);
  }
}

function gameItem(game, action) {
  const item = document.createElement('li');
  const link = document.createElement('a');
  link.href = `/games/${game.id}`;
  link.className = 'game-link';
  link.dataset.gameId = game.id;
  const players = game.seats.map((seat) => (seat.account ? seat.account.name : 'open')).join(', ');
  link.textContent = `${game.kind} ${game.id}: ${players} (${game.status}${game.rated ? ', rated' : ''})`;
  item.append(link);
  if (game.your_turn) item.className = 'your-turn';
  if (action) item.append(' ', ...[action].flat());
  return item;
}

// The new-game form offers each kind's options, drawn from its options schema: a checkbox
// per yes/no option and a group of checkboxes per list of choices, so an option a kind adds
// appears here without a change to the page. The server checks the combination.
const lobby = { kinds: [], spec: null };

async function resolved(schema) {
  if (!schema.$ref) return schema;
  lobby.spec ??= await api('GET', '/openapi.json');
  return lobby.spec.components.schemas[schema.$ref.split('/').pop()];
}

function optionLabel(name, description, input) {
  const label = document.createElement('label');
  label.className = 'option';
  const hint = document.createElement('small');
  hint.textContent = description || '';
  label.append(input, ` ${name.replaceAll('_', ' ')} `, hint);
  return label;
}

function checkbox(option, value, checked) {
  const input = document.createElement('input');
  input.type = 'checkbox';
  input.dataset.option = option;
  if (value !== undefined) input.dataset.value = value;
  input.checked = checked;
  return input;
}

async function showOptions() {
  const kind = lobby.kinds.find((k) => k.kind === $('new-kind').value);
  if (!kind) return;
  const seats = $('new-seats');
  seats.min = kind.min_players;
  seats.max = kind.max_players;
  seats.value = Math.min(Math.max(Number(seats.value), kind.min_players), kind.max_players);
  const defaults = kind.default_options || {};
  const fields = [];
  for (const [name, property] of Object.entries(kind.options_schema.properties || {})) {
    if (property.type === 'boolean') {
      fields.push(optionLabel(name, property.description, checkbox(name, undefined, defaults[name] === true)));
    } else if (property.type === 'array') {
      const items = await resolved(property.items);
      if (!items.enum) continue;
      const group = document.createElement('fieldset');
      const legend = document.createElement('legend');
      legend.textContent = name.replaceAll('_', ' ');
      legend.title = property.description || '';
      group.append(legend);
      for (const value of items.enum) {
        const chosen = (defaults[name] || []).includes(value);
        group.append(optionLabel(value, '', checkbox(name, value, chosen)));
      }
      fields.push(group);
    }
  }
  // Another kind may have been chosen while the schema was fetched.
  if ($('new-kind').value === kind.kind) $('new-options').replaceChildren(...fields);
}

function chosenOptions() {
  const options = {};
  for (const input of $('new-options').querySelectorAll('input[data-option]')) {
    const name = input.dataset.option;
    if (input.dataset.value === undefined) {
      if (input.checked) options[name] = true;
    } else if (input.checked) {
      (options[name] ??= []).push(input.dataset.value);
    }
  }
  return options;
}

/** Shows the account's vacation in the lobby's form. */
function showVacation(vacation) {
  const away = vacation.until !== null;
  $('vacation-status').textContent = (away
    ? `You are on vacation until ${new Date(vacation.until).toLocaleString()}: your clocks stand still. `
    : '') + `${vacation.days_left} of ${vacation.days_per_year} vacation days left this year.`;
  $('vacation-days').max = String(Math.min(60, vacation.days_left));
  $('vacation-days-label').hidden = away;
  $('vacation-start').hidden = away;
  $('vacation-end').hidden = !away;
  $('vacation-automatic').checked = vacation.automatic;
}

/** Shows the account's mail settings in the lobby's form. */
function showEmail(settings) {
  $('email-address').value = settings.address || '';
  $('email-address').disabled = !settings.mail_available && !settings.address;
  for (const box of document.querySelectorAll('input[name="email-topic"]')) {
    box.checked = settings.address ? settings.topics.includes(box.value) : true;
  }
  $('email-digest').checked = settings.digest;
  $('email-digest-hour').value = settings.digest_hour;
  let status = '';
  if (!settings.mail_available) {
    status = 'This server sends no mail.';
  } else if (settings.address && !settings.confirmed) {
    status = `Follow the link mailed to ${settings.address} to confirm it.`;
  } else if (settings.address) {
    status = `Confirmed: ${settings.address}.`;
  }
  $('email-status').textContent = status;
  $('email-resend').hidden = !(settings.mail_available && settings.address && !settings.confirmed);
}

async function showLobby() {
  show('lobby-page');
  const select = $('new-kind');
  if (!select.options.length) {
    lobby.kinds = await api('GET', '/v1/game-kinds');
    for (const kind of lobby.kinds) select.add(new Option(kind.name, kind.kind));
    await showOptions();
  }
  const invited = await api('GET', '/v1/me/invitations');
  $('invitations-title').hidden = invited.invitations.length === 0;
  $('invitations').replaceChildren(
    ...invited.invitations.map((invitation) => {
      const accept = document.createElement('button');
      accept.textContent = 'Accept';
      accept.className = 'accept';
      accept.onclick = () => joinGame(invitation.game.id);
      const decline = document.createElement('button');
      decline.textContent = 'Decline';
      decline.className = 'decline';
      decline.onclick = () => declineInvitation(invitation.game.id);
      const from = invitation.rematch_of ? 'a rematch from' : 'from';
      return gameItem(invitation.game, [`${from} ${invitation.invited_by.name}`, ' ', accept, ' ', decline]);
    }),
  );
  const reminders = await api('GET', '/v1/me/reminders');
  $('reminder-minutes').value = reminders.before_minutes.join(', ');
  showEmail(await api('GET', '/v1/me/email'));
  showVacation(await api('GET', '/v1/me/vacation'));
  const mine = await api('GET', '/v1/games?mine=true&limit=100');
  $('games').replaceChildren(...mine.games.map((game) => gameItem(game)));
  const open = await api('GET', '/v1/games?status=open&limit=50');
  const joinable = open.games.filter((game) => game.your_seat === null);
  $('open-games').replaceChildren(
    ...joinable.map((game) => {
      const join = document.createElement('button');
      join.textContent = 'Join';
      join.onclick = () => joinGame(game.id);
      return gameItem(game, join);
    }),
  );
}

async function declineInvitation(id) {
  try {
    await api('POST', `/v1/games/${id}/decline`, {});
    showError(null);
    await showLobby();
  } catch (problem) {
    showError(problem);
  }
}

async function joinGame(id) {
  try {
    await api('POST', `/v1/games/${id}/seats`, {});
    location.href = `/games/${id}`;
  } catch (problem) {
    showError(problem);
  }
}

// The game page: `at` is null while following the game live, a seq while looking back.
const game = { id: null, summary: null, at: null, space: null, shownSeq: null };

function describe(action) {
  return Object.entries(action)
    .map(([key, value]) => (key === 'type' ? value : `${key}=${JSON.stringify(value)}`))
    .join(' ');
}

async function showGame(id) {
  show('game-page');
  game.id = id;
  await refreshGame();
  follow();
  followChat();
}

// The chat: a long poll for the messages after the last one shown, written on any instance.
const chat = { shown: new Map(), after: 0 };

function chatItem(message) {
  const item = document.createElement('li');
  item.className = 'chat-message';
  item.dataset.messageId = String(message.id);
  const author = document.createElement('strong');
  author.textContent = `${message.author.name}: `;
  item.append(author, message.text === null ? '(deleted)' : message.text);
  if (message.text !== null && message.author.name === localStorage.getItem(NAME_KEY)) {
    const remove = document.createElement('button');
    remove.className = 'delete-message';
    remove.textContent = 'Delete';
    remove.onclick = async () => {
      try {
        showChatMessage(await api('DELETE', `/v1/games/${game.id}/chat/${message.id}`));
      } catch (problem) {
        showError(problem);
      }
    };
    item.append(' ', remove);
  }
  return item;
}

function showChatMessage(message) {
  const item = chatItem(message);
  const old = chat.shown.get(message.id);
  if (old) old.replaceWith(item);
  else $('chat-messages').append(item);
  chat.shown.set(message.id, item);
  chat.after = Math.max(chat.after, message.id);
}

async function followChat() {
  for (;;) {
    try {
      const log = await api('GET', `/v1/games/${game.id}/chat?after=${chat.after}&wait=30`);
      for (const message of log.messages) showChatMessage(message);
    } catch (problem) {
      console.warn(problem);
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}

async function sendChat() {
  const text = $('chat-text').value;
  if (!text.trim()) return;
  try {
    showChatMessage(await api('POST', `/v1/games/${game.id}/chat`, { text }));
    $('chat-text').value = '';
    showError(null);
  } catch (problem) {
    showError(problem);
  }
}

// Follows the game's event stream (Server-Sent Events read with fetch, which can send the
// bearer token), redrawing once a burst of events has arrived; reconnects after `after`.
async function follow() {
  let after = game.summary.current_seq;
  let redraw = null;
  for (;;) {
    try {
      const response = await fetch(`/v1/games/${game.id}/stream?after=${after}`, {
        headers: { Authorization: `Bearer ${localStorage.getItem(TOKEN_KEY)}` },
      });
      if (!response.ok || !response.body) throw new Error(`stream: ${response.status}`);
      const reader = response.body.getReader();
      const decoder = new TextDecoder();
      let buffer = '';
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += decoder.decode(value, { stream: true });
        let end;
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const id = /^id: (\d+)$/m.exec(frame);
          if (!id) continue;
          after = Number(id[1]);
          clearTimeout(redraw);
          redraw = setTimeout(() => {
            if (game.at === null) refreshGame(true).catch(showError);
          }, 150);
        }
      }
    } catch (error) {
      console.warn(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

async function refreshGame(onlyIfChanged) {
  const summary = await api('GET', `/v1/games/${game.id}`);
  if (onlyIfChanged && game.summary && summary.current_seq === game.summary.current_seq) return;
  game.summary = summary;
  const names = summary.seats.map((seat) => (seat.account ? seat.account.name : 'open'));
  $('game-title').textContent = `${summary.kind} ${summary.id}: ${names.join(' vs ')}`;
  const turn = summary.status === 'running'
    ? `to act: ${summary.to_act.map((seat) => names[seat]).join(', ')}`
    : summary.status;
  $('status').textContent = `seq ${summary.current_seq}, ${turn}` +
    (summary.your_seat === null ? ', you are watching' : `, you are seat ${summary.your_seat}`) +
    (summary.your_turn ? ' - your turn' : '');
  $('join').hidden = !(summary.status === 'open' && summary.your_seat === null);
  const voters = summary.seats.filter((seat) => seat.abandon_vote).map((seat) => names[seat.seat]);
  $('votes').textContent = summary.status === 'running' && voters.length
    ? `Voted to abandon the game: ${voters.join(', ')}`
    : '';
  const away = summary.seats.filter((seat) => seat.vacation_until !== null)
    .map((seat) => `${names[seat.seat]} until ${new Date(seat.vacation_until).toLocaleString()}`);
  $('vacations').textContent = away.length
    ? `On vacation (their clocks stand still): ${away.join(', ')}`
    : '';
  const mySeat = summary.your_seat === null ? null : summary.seats[summary.your_seat];
  const inPlay = mySeat !== null && mySeat.bot === null && mySeat.forfeit === null;
  $('abandon').hidden = !(summary.status === 'running' && inPlay);
  $('take-back').hidden = !(summary.status === 'running' && inPlay && summary.your_turn);
  $('abandon').textContent = mySeat && mySeat.abandon_vote
    ? 'Take back my vote to abandon'
    : 'Vote to abandon';
  $('rematch').hidden = !(['finished', 'abandoned'].includes(summary.status) && mySeat !== null);
  const range = $('at');
  range.max = String(summary.current_seq);
  await drawBoard();
}

async function drawBoard() {
  const summary = game.summary;
  if (summary.status === 'open') {
    $('board').textContent = 'Waiting for players.';
    $('actions').replaceChildren();
    return;
  }
  const seq = game.at === null ? summary.current_seq : game.at;
  $('at').value = String(seq);
  $('at-label').textContent = game.at === null ? `now (seq ${seq})` : `seq ${seq} of ${summary.current_seq}`;
  const query = game.at === null ? '' : `?at=${game.at}`;
  const svg = await api('GET', `/v1/games/${game.id}/board.svg${query}`);
  $('board').innerHTML = svg;
  game.shownSeq = seq;
  $('board').dataset.seq = String(seq);
  for (const space of $('board').querySelectorAll('[data-space]')) {
    space.addEventListener('click', () => {
      game.space = space.dataset.space;
      showActions().catch(showError);
    });
  }
  await showActions();
}

async function showActions() {
  const list = $('actions');
  const live = game.at === null && game.summary.your_turn;
  $('actions-title').hidden = !live;
  if (!live) {
    list.replaceChildren();
    $('filter').textContent = '';
    return;
  }
  const query = game.space ? `?space=${encodeURIComponent(game.space)}` : '';
  const legal = await api('GET', `/v1/games/${game.id}/legal-actions${query}`);
  $('filter').textContent = game.space
    ? `Moves involving ${game.space} (click elsewhere on the board, or `
    : `${legal.actions.length} moves; click a space to narrow them down.`;
  if (game.space) {
    const all = document.createElement('a');
    all.href = '#';
    all.textContent = 'show all';
    all.onclick = (event) => {
      event.preventDefault();
      game.space = null;
      showActions().catch(showError);
    };
    $('filter').append(all, ')');
  }
  list.replaceChildren(
    ...legal.actions.map((action, index) => {
      const item = document.createElement('li');
      const button = document.createElement('button');
      button.className = 'action';
      button.dataset.index = String(index);
      button.textContent = describe(action);
      button.onclick = () => act(legal.seq, action);
      item.append(button);
      return item;
    }),
  );
}

async function act(seq, action) {
  try {
    const accepted = await api('POST', `/v1/games/${game.id}/actions`, { expected_seq: seq, action });
    const last = accepted.events[accepted.events.length - 1];
    $('last-text').textContent = last ? last.text : '';
    game.space = null;
    showError(null);
    await refreshGame();
  } catch (problem) {
    showError(problem);
    await refreshGame();
  }
}

// The server says why when the last action stays (another seat acted, it revealed
// something, it ended the turn): that reason is shown like any refusal.
async function takeBack() {
  try {
    const answer = await api('POST', `/v1/games/${game.id}/take-back`, {
      expected_seq: game.summary.current_seq,
    });
    $('last-text').textContent = answer.events[0].text;
    game.space = null;
    game.at = null;
    showError(null);
  } catch (problem) {
    showError(problem);
  }
  await refreshGame();
}

async function voteToAbandon() {
  const mySeat = game.summary.seats[game.summary.your_seat];
  try {
    await api('POST', `/v1/games/${game.id}/abandon`, { agree: !mySeat.abandon_vote });
    showError(null);
  } catch (problem) {
    showError(problem);
  }
  await refreshGame();
}

async function playAgain() {
  try {
    const rematch = await api('POST', `/v1/games/${game.id}/rematch`, {});
    location.href = `/games/${rematch.id}`;
  } catch (problem) {
    showError(problem);
  }
}

function step(to) {
  const current = game.summary.current_seq;
  const target = Math.max(0, Math.min(current, to));
  game.at = target >= current ? null : target;
  drawBoard().catch(showError);
}

function route() {
  if (!localStorage.getItem(TOKEN_KEY)) {
    show('sign-in-page');
    return;
  }
  const match = location.pathname.match(/^\/games\/([A-Za-z0-9]+)$/);
  (match ? showGame(match[1]) : showLobby()).catch(showError);
}

window.addEventListener('DOMContentLoaded', () => {
  $('sign-in-form').addEventListener('submit', (event) => {
    event.preventDefault();
    signIn(false);
  });
  $('register-button').addEventListener('click', () => signIn(true));
  $('sign-out').addEventListener('click', signOut);
  $('new-game-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const invite = $('new-invite').value.split(',').map((name) => name.trim()).filter(Boolean);
      const created = await api('POST', '/v1/games', {
        kind: $('new-kind').value,
        seats: Number($('new-seats').value),
        options: chosenOptions(),
        rated: $('new-rated').checked,
        ...(invite.length ? { private: true, invite } : {}),
      });
      location.href = `/games/${created.id}`;
    } catch (problem) {
      showError(problem);
    }
  });
  $('new-kind').addEventListener('change', () => showOptions().catch(showError));
  $('reminders-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const before_minutes = $('reminder-minutes').value.split(',')
      .map((text) => text.trim()).filter(Boolean).map(Number);
    try {
      const saved = await api('PUT', '/v1/me/reminders', { before_minutes });
      $('reminder-minutes').value = saved.before_minutes.join(', ');
      showError(null);
    } catch (problem) {
      showError(problem);
    }
  });
  $('vacation-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      showVacation(await api('POST', '/v1/me/vacation', { days: Number($('vacation-days').value) }));
      showError(null);
    } catch (problem) {
      showError(problem);
    }
  });
  $('vacation-end').addEventListener('click', async () => {
    try {
      showVacation(await api('DELETE', '/v1/me/vacation'));
      showError(null);
    } catch (problem) {
      showError(problem);
    }
  });
  $('vacation-automatic').addEventListener('change', async () => {
    try {
      showVacation(await api('PUT', '/v1/me/vacation/automatic',
        { automatic: $('vacation-automatic').checked }));
      showError(null);
    } catch (problem) {
      showError(problem);
    }
  });
  $('email-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    const address = $('email-address').value.trim();
    const topics = [...document.querySelectorAll('input[name="email-topic"]:checked')]
      .map((box) => box.value);
    try {
      showEmail(await api('PUT', '/v1/me/email', {
        address: address || null,
        topics,
        digest: $('email-digest').checked,
        digest_hour: Number($('email-digest-hour').value),
      }));
      showError(null);
    } catch (problem) {
      showError(problem);
    }
  });
  $('email-resend').addEventListener('click', async () => {
    try {
      showEmail(await api('POST', '/v1/me/email/confirmation'));
      showError(null);
    } catch (problem) {
      showError(problem);
    }
  });
  $('join').addEventListener('click', () => joinGame(game.id));
  $('abandon').addEventListener('click', () => voteToAbandon());
  $('take-back').addEventListener('click', () => takeBack());
  $('chat-form').addEventListener('submit', (event) => {
    event.preventDefault();
    sendChat();
  });
  $('rematch').addEventListener('click', () => playAgain());
  $('first').addEventListener('click', () => step(0));
  $('back').addEventListener('click', () => step((game.at ?? game.summary.current_seq) - 1));
  $('forward').addEventListener('click', () => step((game.at ?? game.summary.current_seq) + 1));
  $('live').addEventListener('click', () => step(game.summary.current_seq));
  $('at').addEventListener('change', () => step(Number($('at').value)));
  route();
});
