// turnpost's web page: plain JavaScript over the public API, no build step. It signs in,
// lists your games, shows a game's board (the server's SVG), steps through its history and
// plays by choosing among the legal actions, or by clicking a space first.
'use strict';

const TOKEN_KEY = 'turnpost.token';
const NAME_KEY = 'turnpost.name';
const $ = (id) => document.getElementById(id);

// Streams and long polls hold a connection each, and a browser opens only six to one server:
// they are all aborted as the page goes, so the next page does not wait for the server to
// notice that the old ones are gone.
const leaving = new AbortController();
window.addEventListener('pagehide', () => leaving.abort());

async function api(method, path, body) {
  const headers = {};
  const token = localStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: leaving.signal,
    });
  } catch (error) {
    if (error.name === 'AbortError') throw error;
    showOffline(true);
    throw { code: 'offline', detail: 'No connection to the server: try again once you are online.' };
  }
  showOffline(false);
  const text = await response.text();
  if (!response.ok) {
    let problem;
    try {
      problem = JSON.parse(text);
    } catch {
      problem = { code: `http_${response.status}`, detail: text };
    }
    // Any refusal of the token (expired, revoked, the account gone) ends the sign-in and
    // returns to the form, saying why, instead of leaving the page stuck.
    if (response.status === 401 && token) signOut(problem.detail);
    throw problem;
  }
  const type = response.headers.get('content-type') || '';
  return type.includes('json') ? JSON.parse(text) : text;
}

function showOffline(offline) {
  $('offline').hidden = !offline;
}
window.addEventListener('offline', () => showOffline(true));
window.addEventListener('online', () => {
  showOffline(false);
  if (localStorage.getItem(TOKEN_KEY)) route();
});

// The service worker keeps the page on the device and shows pushes. A new version of the
// page installs beside the running one and waits: the player is offered to switch, and
// the page reloads once when the new worker has taken over.
const worker = { registration: null, waiting: null };

async function registerWorker() {
  if (!('serviceWorker' in navigator)) return;
  const hadController = Boolean(navigator.serviceWorker.controller);
  navigator.serviceWorker.addEventListener('controllerchange', () => {
    if (hadController) location.reload();
  });
  navigator.serviceWorker.addEventListener('message', (event) => {
    // A push for the game on screen: the page shows it instead of a notification.
    if (event.data?.type === 'push' && game.id && event.data.message?.game_id === game.id) {
      refreshGame(true).catch(showError);
    }
  });
  const registration = await navigator.serviceWorker.register('/sw.js');
  worker.registration = registration;
  const offer = (waiting) => {
    if (!waiting || !hadController) return;
    worker.waiting = waiting;
    $('update').hidden = false;
  };
  offer(registration.waiting);
  registration.addEventListener('updatefound', () => {
    const installing = registration.installing;
    installing?.addEventListener('statechange', () => {
      if (installing.state === 'installed') offer(installing);
    });
  });
}

// Web Push: this device's subscription, and the account's devices.
const PUSH_KEY = 'turnpost.push';
let pushHere = null;

function pushSupported() {
  return 'serviceWorker' in navigator && 'PushManager' in window && 'Notification' in window;
}

async function currentSubscription() {
  if (!pushSupported()) return null;
  const registration = await navigator.serviceWorker.ready;
  return registration.pushManager.getSubscription();
}

function subscriptionBody(subscription, topics) {
  const json = subscription.toJSON();
  const body = {
    endpoint: json.endpoint,
    expirationTime: json.expirationTime ?? null,
    keys: { p256dh: json.keys.p256dh, auth: json.keys.auth },
  };
  if (topics) body.topics = topics;
  return body;
}

/** Asks for permission (from the player's click), subscribes this browser and tells the server. */
async function enablePush() {
  if (!pushSupported()) {
    $('push-status').textContent = 'This browser cannot receive pushes. On an iPhone, add turnpost to the home screen first.';
    return;
  }
  const permission = await Notification.requestPermission();
  if (permission !== 'granted') {
    $('push-status').textContent = 'Notifications are blocked for this site: allow them in the browser\'s site settings, then try again.';
    return;
  }
  const registration = await navigator.serviceWorker.ready;
  const { public_key } = await api('GET', '/v1/push/vapid-public-key');
  let subscription = await registration.pushManager.getSubscription();
  const key = subscription?.options?.applicationServerKey;
  if (subscription && key && base64url(key) !== public_key) {
    await subscription.unsubscribe();
    subscription = null;
  }
  subscription ??= await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: public_key });
  await api('POST', '/v1/me/push-subscriptions', subscriptionBody(subscription));
  localStorage.setItem(PUSH_KEY, localStorage.getItem(NAME_KEY));
  await showPush();
}

function base64url(buffer) {
  return btoa(String.fromCharCode(...new Uint8Array(buffer)))
    .replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '');
}

/** Shows the account's devices, and what this one gets. */
async function showPush() {
  const subscription = await currentSubscription().catch(() => null);
  let { subscriptions } = await api('GET', '/v1/me/push-subscriptions');
  let here = subscription && subscriptions.find((device) => device.endpoint === subscription.endpoint);
  // This browser subscribed for this account before, but the server lost it (removed
  // elsewhere, or the browser renewed it): said again, quietly.
  if (subscription && !here && localStorage.getItem(PUSH_KEY) === localStorage.getItem(NAME_KEY)) {
    here = await api('POST', '/v1/me/push-subscriptions', subscriptionBody(subscription)).catch(() => null);
    if (here) ({ subscriptions } = await api('GET', '/v1/me/push-subscriptions'));
  }
  const supported = pushSupported();
  const blocked = supported && Notification.permission === 'denied';
  $('push-here').hidden = Boolean(here) || !supported || blocked;
  $('push-offer').hidden = $('push-here').hidden;
  $('push-topics').hidden = !here;
  pushHere = here || null;
  if (here) {
    for (const box of document.querySelectorAll('input[name="push-topic"]')) {
      box.checked = here.topics.includes(box.value);
    }
  }
  $('push-status').textContent = !supported
    ? 'This browser cannot receive pushes. On an iPhone, add turnpost to the home screen first.'
    : blocked
      ? 'Notifications are blocked for this site in this browser\'s settings.'
      : here
        ? 'This device is told when it is your turn, even with the page closed.'
        : 'This device gets no pushes yet.';
  $('push-devices').replaceChildren(...subscriptions.map((device) => {
    const item = document.createElement('li');
    const mine = here && device.id === here.id;
    const delivered = device.last_delivered_at ? `, last push ${new Date(device.last_delivered_at).toLocaleString()}` : '';
    const failed = device.last_error && (!device.last_delivered_at || device.last_failed_at > device.last_delivered_at)
      ? ` (the last push failed: ${device.last_error})` : '';
    item.append(`${device.device}${mine ? ' (this device)' : ''} via ${device.push_service}${delivered}${failed} `);
    item.append(chatButton('Send a test', `Send a test notification to ${device.device}`, async () => {
      await api('POST', `/v1/me/push-subscriptions/${device.id}/test`);
      $('push-status').textContent = `A test notification is on its way to ${device.device}.`;
    }), ' ', chatButton('Remove', `Stop notifying ${device.device}`, async () => {
      await api('DELETE', `/v1/me/push-subscriptions/${device.id}`);
      if (mine) {
        localStorage.removeItem(PUSH_KEY);
        await subscription?.unsubscribe().catch(() => {});
      }
      await showPush();
    }));
    return item;
  }));
  return here;
}

// Refusals are shown in words next to what caused them: after the control the player
// used last (within a few seconds), else at the end of the page.
const lastControl = { element: null, at: 0 };
for (const type of ['click', 'submit', 'change']) {
  document.addEventListener(type, (event) => {
    const control = event.target.closest?.('button, form, select, input, a');
    if (control && control.id !== 'error') Object.assign(lastControl, { element: control, at: Date.now() });
  }, true);
}

/** Text written for developers (`field` names, snake_case codes) as a player reads it. */
function plain(text) {
  return String(text ?? '').replace(/`([^`]*)`/g, (_, code) => words(code));
}

function showError(problem) {
  const error = $('error');
  if (!problem) {
    error.textContent = '';
    return;
  }
  const detail = plain(problem.detail || problem.title || 'Something went wrong.');
  error.textContent = capitalised(detail.replace(/\.?$/, '.'));
  const recent = lastControl.element && Date.now() - lastControl.at < 5000 && lastControl.element.isConnected;
  const anchor = recent ? (lastControl.element.closest('form, p, li, #chooser, #preview-panel') ?? lastControl.element) : null;
  if (anchor && !anchor.contains(error)) anchor.after(error);
  else if (!anchor && error.parentElement !== $('error-home')) $('error-home').append(error);
  error.scrollIntoView({ block: 'nearest' });
}

function show(page) {
  if (page !== 'game-page') document.documentElement.classList.remove('choosing');
  for (const id of ['sign-in-page', 'lobby-page', 'game-page', 'player-page', 'leaderboard-page', 'archive-page', 'watch-page']) {
    $(id).hidden = id !== page;
  }
  $('nav').hidden = page === 'sign-in-page';
  const signedIn = Boolean(localStorage.getItem(TOKEN_KEY));
  $('sign-out').hidden = !signedIn;
  $('who').textContent = signedIn ? `signed in as ${localStorage.getItem(NAME_KEY)}` : '';
}

function signOut(why) {
  localStorage.removeItem(TOKEN_KEY);
  localStorage.removeItem(NAME_KEY);
  if (typeof why === 'string') sessionStorage.setItem('turnpost.signed-out', why);
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
  link.textContent = game.name;
  item.append(link);
  const details = document.createElement('span');
  details.className = 'details';
  const players = game.seats.map((seat) => {
    const rating = seat.rating ? ` ${seat.rating.rating.toFixed(1)}${seat.rating.provisional ? '?' : ''}` : '';
    return `${seatName(seat)}${rating}`;
  }).join(', ');
  details.textContent = ` ${kindName(game.kind)} · ${players} · ${game.status} · ${gameSetup(game)}`;
  item.append(details);
  const mine = game.your_seat === null ? null : game.seats[game.your_seat];
  if (game.your_turn && mine && mine.deadline) item.append(` - ${timeLeft(mine.deadline)}`);
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
  hint.textContent = plain(description);
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
  showSeatRows();
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

// One row per seat: who sits there (you, a person who joins, or a bot).
function showSeatRows() {
  const count = Number($('new-seats').value);
  const rows = $('new-seat-rows');
  const before = [...rows.querySelectorAll('select')].map((select) => select.value);
  const seated = [];
  for (let seat = 0; seat < count; seat++) {
    const select = document.createElement('select');
    select.id = `new-seat-${seat}`;
    select.dataset.seat = String(seat);
    for (const [value, label] of [['me', 'Me'], ['person', 'A player who joins'],
      ['playouts', 'Playouts bot (thinks ahead)'], ['random', 'Random bot']]) {
      select.add(new Option(label, value));
    }
    select.value = before[seat] || (seat === 0 ? 'me' : 'person');
    select.addEventListener('change', () => {
      // One seat is yours: choosing it here frees the one you had.
      if (select.value !== 'me') return;
      for (const other of rows.querySelectorAll('select')) {
        if (other !== select && other.value === 'me') other.value = 'person';
      }
    });
    const label = document.createElement('label');
    label.append(`Seat ${seat + 1} `, select);
    seated.push(label);
  }
  rows.replaceChildren(...seated);
}

function newGameRequest() {
  const seats = [...$('new-seat-rows').querySelectorAll('select')];
  const mine = seats.find((select) => select.value === 'me');
  const bots = seats.filter((select) => ['playouts', 'random'].includes(select.value))
    .map((select) => ({ seat: Number(select.dataset.seat), strategy: select.value }));
  const clock = document.querySelector('input[name="new-clock"]:checked').value;
  const hours = (id) => Math.round(Number($(id).value) * 3600);
  const time_control = clock === 'days_per_move'
    ? { type: 'days_per_move', days: Number($('new-days').value) }
    : clock === 'time_bank'
      ? {
        type: 'time_bank',
        initial_seconds: hours('new-bank-hours'),
        increment_seconds: hours('new-bank-increment'),
        maximum_seconds: hours('new-bank-maximum'),
      }
      : { type: 'none' };
  const invite = $('new-invite').value.split(',').map((name) => name.trim()).filter(Boolean);
  return {
    kind: $('new-kind').value,
    seats: seats.length,
    ...(mine ? { seat: Number(mine.dataset.seat) } : {}),
    options: chosenOptions(),
    time_control,
    bots,
    rated: $('new-rated').checked,
    visibility: chosenVisibility(invite),
    invite,
    spectator_chat: $('new-spectator-chat').checked,
    ...($('new-title').value.trim() ? { title: $('new-title').value.trim() } : {}),
  };
}

/** Who may see the new game; invitations need a game that is not listed. */
function chosenVisibility(invite) {
  const chosen = document.querySelector('input[name="new-visibility"]:checked').value;
  return chosen === 'public' && invite.length > 0 ? 'unlisted' : chosen;
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

/** Lists the accounts the player blocks, each with a way to stop blocking it. */
function showBlocks(list) {
  $('blocks-title').hidden = list.blocked.length === 0;
  $('blocks').replaceChildren(...list.blocked.map((block) => {
    const item = document.createElement('li');
    item.append(`${block.account.name} `, chatButton('Unblock', `Stop blocking ${block.account.name}`, async () => {
      await api('DELETE', `/v1/me/blocks/${encodeURIComponent(block.account.name)}`);
      showBlocks(await api('GET', '/v1/me/blocks'));
    }));
    return item;
  }));
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
  showBlocks(await api('GET', '/v1/me/blocks'));
  // Your turn first, nearest deadline first (the server's order for `my_turn`).
  const myTurn = await api('GET', '/v1/games?my_turn=true&limit=100');
  $('my-turn-games').replaceChildren(...myTurn.games.map((game) => gameItem(game)));
  if (!myTurn.games.length) {
    const none = document.createElement('li');
    none.textContent = 'Nothing waits for you.';
    $('my-turn-games').append(none);
  }
  document.title = myTurn.games.length ? `(${myTurn.games.length}) Your turn - turnpost` : 'turnpost';
  const mine = await api('GET', '/v1/games?mine=true&limit=100');
  $('games').replaceChildren(...mine.games.filter((game) => !game.your_turn).map((game) => gameItem(game)));
  await showPush().catch(() => {});
  await showFollowing();
  await showOpenGames();
  await applyLikeThis();
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

// The move being put together by pointing: the picks made along the legal choices at `seq`,
// the options each step offered (to turn a tile or try the next option in place), and the
// complete action once the picks lead to one.
const move = { seq: null, picks: [], offered: [], action: null, step: null, kept: false };

// Words for the API's vocabulary (docs/vocabulary.md): the same field names and values the
// actions carry, written for a player.
function words(text) {
  return String(text).replaceAll('_', ' ');
}

function capitalised(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// A game's own name ("Eternal Palace"): the server's, once the lobby has read the kinds.
function kindName(kind) {
  const known = lobby.kinds.find((entry) => entry.kind === kind);
  return known ? known.name : words(kind).split(' ').map(capitalised).join(' ');
}

function valueInWords(field, value) {
  if (value === null) return `no ${words(field)}`;
  if (Array.isArray(value)) {
    if (!value.length) return 'none';
    // Groups (dice grouped in Eternal Palace) stay groups: "(1, 2) (3)", not "1, 2, 3".
    if (value.some(Array.isArray)) return value.map((item) => `(${valueInWords(field, item)})`).join(' ');
    return value.map((item) => valueInWords(field, item)).join(', ');
  }
  if (typeof value === 'object') return Object.entries(value).map(([k, v]) => `${words(k)} ${valueInWords(k, v)}`).join(', ');
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (field === 'rotation') return value === 0 ? 'not turned' : `turned ${value} sixth${value > 1 ? 's' : ''} clockwise`;
  return words(value);
}

function fieldInWords(field, value) {
  const said = valueInWords(field, value);
  switch (field) {
    case 'type': return capitalised(said);
    case 'tile': return `${said} tile`;
    case 'space': case 'location': case 'station': return `on ${said}`;
    case 'from': return `from ${said}`;
    case 'to': return `to ${said}`;
    case 'rotation': return said;
    case 'cost': return `for ${said} action point${value === 1 ? '' : 's'}`;
    default: return typeof value === 'boolean' ? `${words(field)}: ${said}` : `${words(field)} ${said}`;
  }
}

/** An action in words: "Place tile: three space tile on E1, turned 3 sixths clockwise, for 3 action points". */
function describe(action) {
  const rest = Object.entries(action).filter(([key]) => key !== 'type')
    .map(([key, value]) => fieldInWords(key, value));
  const what = capitalised(words(action.type));
  return rest.length ? `${what}: ${rest.join(', ')}` : what;
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
  const gone = { moderator: '(hidden by a moderator)', blocked: '(from someone you block)' };
  item.append(chatTime(message.created_at), ' ', author,
    message.text === null ? gone[message.hidden] ?? '(deleted)' : message.text);
  const mine = message.author.name === localStorage.getItem(NAME_KEY);
  if (message.text !== null && !mine) {
    item.append(' ', chatButton('Report', `Report ${message.author.name}'s message`, async () => {
      const reason = window.prompt(`Why report this message of ${message.author.name}?`);
      if (!reason || !reason.trim()) return;
      await api('POST', '/v1/reports', {
        account: message.author.name,
        message: { game_id: game.id, message_id: message.id },
        reason,
      });
      showError(null);
      window.alert('Reported: the moderators will look at it.');
    }));
    item.append(' ', chatButton('Block', `Block ${message.author.name}`, async () => {
      if (!window.confirm(`Block ${message.author.name}? Nothing they write or send reaches you any more.`)) return;
      await api('PUT', `/v1/me/blocks/${encodeURIComponent(message.author.name)}`);
      for (const [id, shown] of chat.shown) {
        if (shown.dataset.author === message.author.name) {
          const hidden = chatItem({ ...shown.message, text: null, hidden: 'blocked' });
          shown.replaceWith(hidden);
          chat.shown.set(id, hidden);
        }
      }
    }));
  }
  item.dataset.author = message.author.name;
  item.message = message;
  if (message.text !== null && mine) {
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

/** When a chat message was written: the time for today's, the day and time for older ones. */
function chatTime(rfc3339) {
  const written = new Date(rfc3339);
  const element = document.createElement('time');
  element.dateTime = rfc3339;
  element.className = 'chat-time';
  const today = written.toDateString() === new Date().toDateString();
  element.textContent = today
    ? written.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' })
    : written.toLocaleString([], { day: 'numeric', month: 'short', hour: '2-digit', minute: '2-digit' });
  element.title = written.toLocaleString();
  return element;
}

/** A small button beside a chat message that runs `act`, showing its refusal if any. */
function chatButton(label, description, act) {
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = label;
  button.setAttribute('aria-label', description);
  button.onclick = async () => {
    try {
      await act();
    } catch (problem) {
      showError(problem);
    }
  };
  return button;
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

// Reads a Server-Sent Events stream with fetch (which, unlike EventSource, can send the
// bearer token), handing each frame's id, event and data on; reconnects after the last id,
// and on an expired sign-in returns to the sign-in form (`api` does that for other calls).
async function readStream(path, onFrame) {
  let after = null;
  for (;;) {
    try {
      const query = after === null ? '' : `${path.includes('?') ? '&' : '?'}after=${after}`;
      const response = await fetch(`${path}${query}`, {
        headers: { Authorization: `Bearer ${localStorage.getItem(TOKEN_KEY)}` },
        signal: leaving.signal,
      });
      if (response.status === 401) {
        signOut('your sign-in is no longer valid');
        return;
      }
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
          const event = /^event: (.*)$/m.exec(frame);
          const data = /^data: (.*)$/m.exec(frame);
          onFrame(after, event ? event[1] : null, data ? JSON.parse(data[1]) : null);
        }
      }
    } catch (error) {
      if (leaving.signal.aborted) return;
      console.warn(error);
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

// Follows the game's events, redrawing once a burst of them has arrived.
function follow() {
  let redraw = null;
  readStream(`/v1/games/${game.id}/stream?after=${game.summary.current_seq}`, () => {
    clearTimeout(redraw);
    redraw = setTimeout(() => {
      if (game.at === null) refreshGame(true).catch(showError);
    }, 150);
  });
}

// Follows the account's notifications on every page: the lobby redraws itself, and when it
// becomes the player's turn anywhere the page title says so and, with permission, the
// browser shows a notification.
function followNotifications() {
  let redraw = null;
  readStream('/v1/me/stream', (id, type, notification) => {
    if (type === 'your_turn' && notification) announceTurn(notification);
    // An invitee answered: the open game on screen shows it, with the way to invite another.
    if (['invitation_declined', 'invitation_accepted'].includes(type) && notification
        && game.id === notification.game_id && !$('game-page').hidden && game.summary) {
      refreshGame().catch(showError);
    }
    if (!$('lobby-page').hidden) {
      clearTimeout(redraw);
      redraw = setTimeout(() => showLobby().catch(showError), 200);
    }
  });
}

function announceTurn(notification) {
  const here = game.id === notification.game_id && !$('game-page').hidden;
  if (!document.hasFocus() || !here) {
    document.title = `(Your turn) ${notification.game_kind} - turnpost`;
  }
  // With pushes on, the service worker tells of it under the same tag.
  if (window.Notification && Notification.permission === 'granted' && document.hidden) {
    const shown = new Notification('Your turn', {
      body: `${kindName(notification.game_kind)} ${notification.game_id}`,
      tag: `game-${notification.game_id}`,
    });
    shown.onclick = () => {
      window.focus();
      location.href = `/games/${notification.game_id}`;
    };
  }
}

// Names as players see them: an account's name, a bot as a bot, a seat a bot took over as
// both, an open seat as open.
function seatName(seat) {
  const bot = seat.bot ? `${words(seat.bot)} bot` : null;
  if (seat.account && bot) return `${seat.account.name} (${bot} plays on)`;
  if (seat.account) return seat.account.name;
  return bot || 'open';
}

// The seats' colours, as the server's texts and pictures name them (docs/vocabulary.md).
const SEAT_COLOURS = ['Red', 'Blue', 'Yellow', 'Green', 'Purple'];

function seatWithColour(seat) {
  return `${SEAT_COLOURS[seat.seat] ?? `Seat ${seat.seat + 1}`} (${seatName(seat)})`;
}

// Time left in words, to the second in the last hour.
function timeLeft(deadline) {
  const ms = Date.parse(deadline) - Date.now();
  if (ms <= 0) return 'time is up';
  const seconds = Math.floor(ms / 1000);
  const days = Math.floor(seconds / 86400);
  const hours = Math.floor((seconds % 86400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days) return `${days} d ${hours} h left`;
  if (hours) return `${hours} h ${minutes} min left`;
  return `${minutes} min ${seconds % 60} s left`;
}

// Each seat's deadline (and time bank) with a countdown that runs in the page.
function showClocks() {
  const summary = game.summary;
  const items = (summary && summary.status === 'running' ? summary.seats : [])
    .filter((seat) => seat.deadline || seat.time_bank_ms !== null)
    .map((seat) => {
      const item = document.createElement('li');
      item.className = 'clock';
      const bank = seat.time_bank_ms !== null && !seat.deadline
        ? `${Math.round(seat.time_bank_ms / 3600000)} h in the bank`
        : '';
      item.textContent = seat.deadline
        ? `${seatName(seat)}: ${timeLeft(seat.deadline)} (until ${new Date(seat.deadline).toLocaleString()})`
        : `${seatName(seat)}: ${bank}`;
      if (seat.deadline && Date.parse(seat.deadline) - Date.now() < 3600000) item.classList.add('urgent');
      return item;
    });
  $('clocks').replaceChildren(...items);
}
setInterval(() => {
  if (!$('game-page').hidden) showClocks();
}, 1000);

// The final standing: places, names and scores, and how the game ended.
function showResult(summary) {
  const banner = $('result');
  if (!summary.outcome) {
    banner.hidden = true;
    return;
  }
  const { scores, places, forfeits } = summary.outcome;
  const order = summary.seats.map((seat) => seat.seat).sort((a, b) => places[a] - places[b] || scores[b] - scores[a]);
  const winners = order.filter((seat) => places[seat] === 1).map((seat) => seatName(summary.seats[seat]));
  const heading = document.createElement('strong');
  heading.textContent = winners.length > 1 ? `A shared win: ${winners.join(' and ')}` : `${winners[0]} wins`;
  // Places as the server ranks them (tied seats share one), not as a list counts.
  const table = document.createElement('ul');
  table.className = 'standing';
  for (const seat of order) {
    const row = document.createElement('li');
    const forfeit = forfeits.find((entry) => entry.seat === seat);
    const change = summary.seats[seat].rating_change;
    row.textContent = `${places[seat]}. ${seatName(summary.seats[seat])}: ${scores[seat]} points` +
      (forfeit ? ` (${words(forfeit.reason)})` : '') +
      (change ? `, rating ${change.before.toFixed(1)} → ${change.after.toFixed(1)} (${signed(change.after - change.before)})` : '');
    table.append(row);
  }
  const tied = order.some((seat) => order.some((other) => other !== seat && scores[other] === scores[seat] && places[other] !== places[seat]));
  const note = document.createElement('p');
  if (tied) {
    const rules = document.createElement('a');
    rules.href = `/rules/${summary.kind.replaceAll('_', '-')}`;
    rules.textContent = 'the rules';
    note.append('Equal scores were separated by the tie-break (see the log and ', rules, ').');
  }
  banner.replaceChildren(heading, table, note);
  banner.hidden = false;
}

// The log in words, newest last: the part since the player's own last action is marked,
// what a take-back took back is struck through, and each entry shows the board at its seq.
const log = { after: 0, gameId: null, items: new Map(), turnSeat: null };
// Clock lines are hidden unless the player asks for them ("Show clock changes").
const CLOCK_EVENTS = new Set(['clock_started', 'clock_stopped']);

// The points the history steps to: the last event of each action (an action's events share
// their seat and time) or of each turn (a seat's run of actions).
function historyStops(byTurn) {
  const stops = [0];
  const items = [...$('log').children].filter((item) => !item.classList.contains('clock-event'));
  items.forEach((item, index) => {
    const next = items[index + 1];
    const ends = !next || (byTurn
      ? next.classList.contains('new-turn')
      : next.dataset.seat !== item.dataset.seat || next.dataset.time !== item.dataset.time);
    if (ends) stops.push(Number(item.dataset.seq));
  });
  return stops;
}

function stepBy(direction, byTurn) {
  const now = game.at ?? game.summary.current_seq;
  const stops = historyStops(byTurn);
  const target = direction < 0
    ? stops.filter((seq) => seq < now).pop() ?? 0
    : stops.find((seq) => seq > now) ?? game.summary.current_seq;
  step(target);
}

async function showLog() {
  if (log.gameId !== game.id) {
    Object.assign(log, { after: 0, gameId: game.id, items: new Map(), turnSeat: null });
    $('log').replaceChildren();
  }
  // A long game's log comes a page at a time: read on until the last page.
  let added = 0;
  for (let more = true; more;) {
    const page = await api('GET', `/v1/games/${game.id}/events?after=${log.after}`);
    more = page.next !== null && page.events.length > 0;
    added += page.events.length;
    appendToLog(page.events);
  }
  markSinceLastMove();
  // The newest entries are what a returning player looks for.
  if (added) $('log').scrollTop = $('log').scrollHeight;
}

function appendToLog(events) {
  for (const event of events) {
    log.after = Math.max(log.after, event.seq);
    const item = document.createElement('li');
    item.dataset.seq = String(event.seq);
    item.dataset.seat = event.seat === null ? '' : String(event.seat);
    item.dataset.time = event.time;
    item.className = event.source === 'server' ? 'server-event' : 'engine-event';
    if (CLOCK_EVENTS.has(event.type)) item.classList.add('clock-event');
    // A turn: the run of a seat's events; its first one opens a group.
    if (event.source !== 'server' && event.seat !== null) {
      if (log.turnSeat !== event.seat) item.classList.add('new-turn');
      log.turnSeat = event.seat;
    }
    const link = document.createElement('button');
    link.className = 'log-entry';
    link.textContent = event.text;
    link.title = `Show the board after event ${event.seq}`;
    link.onclick = () => step(event.seq);
    item.append(link);
    $('log').append(item);
    log.items.set(event.seq, item);
    if (event.type === 'actions_taken_back') {
      for (let seq = event.payload.from_seq; seq <= event.payload.to_seq; seq++) {
        log.items.get(seq)?.classList.add('taken-back');
      }
    }
  }
}

function markSinceLastMove() {
  const mine = game.summary.your_seat;
  const items = [...$('log').children];
  for (const item of items) item.classList.remove('since-last-move', 'first-since-last-move');
  if (mine === null) return;
  let last = -1;
  items.forEach((item, index) => {
    if (item.dataset.seat === String(mine) && item.classList.contains('engine-event') &&
        !item.classList.contains('taken-back')) last = index;
  });
  if (last < 0) return;
  const since = items.slice(last + 1).filter((item) => item.dataset.seat !== String(mine));
  since.forEach((item) => item.classList.add('since-last-move'));
  if (since.length) since[0].classList.add('first-since-last-move');
}

async function refreshGame(onlyIfChanged) {
  const summary = await api('GET', `/v1/games/${game.id}`);
  if (onlyIfChanged && game.summary && summary.current_seq === game.summary.current_seq) return;
  game.summary = summary;
  if (game.ownResultSeq !== summary.current_seq) $('last-text').textContent = '';
  if (summary.your_turn && summary.status === 'running') document.title = `(Your turn) ${kindName(summary.kind)} - turnpost`;
  else document.title = `${summary.name} - turnpost`;
  const names = summary.seats.map(seatName);
  $('game-title').textContent = summary.name;
  $('game-players').replaceChildren(...summary.seats.flatMap((seat, index) => {
    const who = seat.account ? playerLink(seat.account.name) : seatName(seat);
    const rating = seat.rating ? ` (${seat.rating.rating.toFixed(1)}${seat.rating.provisional ? ', provisional' : ''})` : '';
    return [index ? ', ' : '', who, rating];
  }), ` · ${gameSetup(summary)}`);
  $('rules-link').href = `/rules/${summary.kind.replaceAll('_', '-')}`;
  $('rules-link').textContent = `The rules of ${kindName(summary.kind)}`;
  const others = summary.to_act.filter((seat) => seat !== summary.your_seat);
  const turn = summary.status === 'running'
    ? [summary.your_turn ? 'Your turn' : '', others.length ? `${others.map((seat) => seatWithColour(summary.seats[seat])).join(' and ')} to play` : '']
      .filter(Boolean).join(' · ')
    : { open: 'Waiting for players', finished: 'Finished', cancelled: 'Cancelled', abandoned: 'Abandoned' }[summary.status] ?? summary.status;
  $('status').textContent = `${turn} · ` + (summary.your_seat === null
    ? 'you are watching'
    : `you play ${SEAT_COLOURS[summary.your_seat] ?? `seat ${summary.your_seat + 1}`}`);
  $('status').dataset.status = summary.status;
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
  // Take-back is offered only where the server says it would succeed.
  const mayTakeBack = summary.status === 'running' && inPlay && summary.your_turn
    && (await api('GET', `/v1/games/${summary.id}/take-back`).catch(() => ({ possible: false }))).possible;
  $('take-back').hidden = !mayTakeBack;
  $('abandon').textContent = mySeat && mySeat.abandon_vote
    ? 'Take back my vote to abandon'
    : 'Vote to abandon';
  $('rematch').hidden = !(['finished', 'abandoned'].includes(summary.status) && mySeat !== null);
  $('play-like-this').hidden = !['finished', 'abandoned'].includes(summary.status);
  $('resign').hidden = !(summary.status === 'running' && inPlay);
  $('cancel').hidden = !(summary.status === 'open' && summary.created_by_you);
  $('leave').hidden = !(summary.status === 'open' && mySeat !== null && !summary.created_by_you);
  // Spectators write only where the game lets them: elsewhere they read, and are told so.
  const mayWrite = mySeat !== null || summary.spectator_chat;
  $('chat-form').hidden = !mayWrite;
  $('chat-readonly').hidden = mayWrite;
  await showInvited(summary);
  showClocks();
  showResult(summary);
  const range = $('at');
  range.max = String(summary.current_seq);
  await drawBoard();
  if (summary.status !== 'open') await showLog();
}

// An open game's invitations, for its players: the creator sees who declined and invites
// someone else in their place.
const INVITATION_WORDS = { waiting: 'not answered yet', seated: 'took a seat', declined: 'declined' };

async function showInvited(summary) {
  const open = summary.status === 'open' && summary.your_seat !== null && summary.visibility !== 'public';
  $('invited').hidden = !open;
  if (!open) return;
  const { invitations } = await api('GET', `/v1/games/${summary.id}/invitations`);
  $('invited').hidden = invitations.length === 0 && !summary.created_by_you;
  $('invited-list').replaceChildren(...invitations.map((invitation) => {
    const item = document.createElement('li');
    item.textContent = `${invitation.account.name}: ${INVITATION_WORDS[invitation.state] ?? invitation.state}`;
    if (invitation.state === 'declined') item.className = 'declined';
    return item;
  }));
  $('invite-form').hidden = !summary.created_by_you;
}

async function inviteSomeoneElse() {
  const name = $('invite-name').value.trim();
  if (!name) return;
  try {
    await api('POST', `/v1/games/${game.id}/invitations`, { invite: [name] });
    $('invite-name').value = '';
    $('invite-error').textContent = '';
    await showInvited(game.summary);
  } catch (problem) {
    $('invite-error').textContent = problem.detail || problem.title || String(problem);
  }
}

// A phone gets the board laid out narrow: the board, the game's own panels and the seats as
// parts, each drawn to be read at one unit per pixel. Each part gets a block of its own;
// one wider than the screen is panned sideways and pinched to zoom, not shrunk.
const phoneScreen = window.matchMedia('(max-width: 700px)');
const boardLayout = () => (phoneScreen.matches ? 'narrow' : 'wide');
// The zoom of each part that a pinch set (1: as drawn), kept when the board is drawn again.
const partZoom = {};

function showPicture(svgText) {
  const board = $('board');
  const scrolled = {};
  for (const frame of board.querySelectorAll('.board-part')) {
    scrolled[frame.dataset.part] = frame.scrollLeft;
  }
  board.innerHTML = svgText;
  const root = board.querySelector('svg');
  const parts = root ? [...root.children].filter((child) => child.matches('svg.part')) : [];
  board.classList.toggle('narrow', parts.length > 0);
  if (parts.length === 0) return;
  board.replaceChildren(...parts.map((part) => {
    const frame = document.createElement('div');
    frame.className = 'board-part';
    frame.dataset.part = part.dataset.part;
    part.setAttribute('role', 'group');
    part.setAttribute('aria-label', part.querySelector('title')?.textContent || part.dataset.part);
    frame.append(part);
    return frame;
  }));
  for (const frame of board.querySelectorAll('.board-part')) {
    sizePart(frame);
    frame.scrollLeft = scrolled[frame.dataset.part] || 0;
    pinchToZoom(frame);
  }
}

// A part as drawn (readable), as a pinch left it, or as a whole when "Whole board" is on.
function sizePart(frame) {
  const part = frame.firstElementChild;
  const drawn = Number(part.getAttribute('width'));
  const fit = Math.min(1, frame.clientWidth / drawn);
  const zoom = $('board').classList.contains('whole') ? fit
    : Math.max(fit, partZoom[frame.dataset.part] ?? 1);
  part.style.width = `${drawn * zoom}px`;
  part.style.height = 'auto';
  // A part that pans can be panned from the keyboard too (arrow keys once focused).
  if (frame.scrollWidth > frame.clientWidth) {
    frame.tabIndex = 0;
    frame.setAttribute('role', 'region');
    frame.setAttribute('aria-label', `${part.getAttribute('aria-label')} (scrolls sideways)`);
  } else {
    frame.removeAttribute('tabindex');
    frame.removeAttribute('role');
    frame.removeAttribute('aria-label');
  }
}

// Two fingers on a part zoom it around the point between them; one finger pans as usual
// (the part takes pan-x pan-y only, so the page itself is not zoomed).
function pinchToZoom(frame) {
  let start = null;
  const between = (touches) => ({
    spread: Math.hypot(touches[0].clientX - touches[1].clientX, touches[0].clientY - touches[1].clientY),
    x: (touches[0].clientX + touches[1].clientX) / 2,
  });
  frame.addEventListener('touchstart', (event) => {
    if (event.touches.length !== 2) return;
    const part = frame.firstElementChild;
    start = { ...between(event.touches), width: part.getBoundingClientRect().width };
  }, { passive: true });
  frame.addEventListener('touchmove', (event) => {
    if (event.touches.length !== 2 || !start || start.spread === 0) return;
    event.preventDefault();
    const part = frame.firstElementChild;
    const drawn = Number(part.getAttribute('width'));
    const now = between(event.touches);
    const width = start.width * (now.spread / start.spread);
    const left = frame.getBoundingClientRect().left;
    // The point of the picture under the fingers stays under them.
    const under = (frame.scrollLeft + start.x - left) / part.getBoundingClientRect().width;
    partZoom[frame.dataset.part] = Math.min(3, Math.max(0.1, width / drawn));
    $('board').classList.remove('whole');
    $('zoom').setAttribute('aria-pressed', 'false');
    sizePart(frame);
    frame.scrollLeft = under * part.getBoundingClientRect().width - (now.x - left);
  }, { passive: false });
  frame.addEventListener('touchend', (event) => {
    if (event.touches.length < 2) start = null;
  });
}

function showZoomButton() {
  $('zoom').textContent = phoneScreen.matches ? 'Whole board' : 'Zoom';
  $('zoom').title = phoneScreen.matches
    ? 'Shrink the board to the screen (pinch a part to zoom it)'
    : 'Show the board larger (scroll to move around)';
}

function toggleZoom() {
  const board = $('board');
  const pressed = board.classList.contains('narrow')
    ? board.classList.toggle('whole')
    : board.classList.toggle('zoomed');
  $('zoom').setAttribute('aria-pressed', String(pressed));
  for (const frame of board.querySelectorAll('.board-part')) sizePart(frame);
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
  $('at-label').textContent = game.at === null ? `now (event ${seq})` : `event ${seq} of ${summary.current_seq}`;
  const query = new URLSearchParams({ layout: boardLayout() });
  if (game.at !== null) query.set('at', String(game.at));
  const svg = await api('GET', `/v1/games/${game.id}/board.svg?${query}`);
  showPicture(svg);
  delete $('board').dataset.preview;
  game.shownSeq = seq;
  $('board').dataset.seq = String(seq);
  for (const space of $('board').querySelectorAll('[data-space]')) {
    space.addEventListener('click', () => clickSpace(space.dataset.space));
    space.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        clickSpace(space.dataset.space);
      }
    });
  }
  await showActions();
}

// A click on the board picks the space when the current step offers it; otherwise it lists
// every move that involves the space.
function clickSpace(name) {
  const offered = offeredOnBoard(move.step) && move.step.options.find((option) => option.choice === name);
  if (offered) {
    pick(offered.choice);
    return;
  }
  game.space = name;
  $('all-moves').open = true;
  showAllMoves().catch(showError);
}

async function showActions() {
  const live = game.at === null && game.summary.your_turn;
  document.documentElement.classList.toggle('choosing', live);
  $('actions-title').hidden = !live;
  $('chooser').hidden = !live;
  $('all-moves').hidden = !live;
  if (!live) {
    $('actions').replaceChildren();
    $('filter').textContent = '';
    move.step = null;
    return;
  }
  if (move.seq !== game.summary.current_seq) {
    // Another seat acted (a simultaneous phase, a bot): the move being put together is
    // kept, and tried again at the new point; showStep says so if it no longer fits.
    const keep = move.seq !== null && move.picks.length > 0;
    Object.assign(move, { seq: game.summary.current_seq, offered: [], action: null, step: null, kept: keep });
    if (!keep) move.picks = [];
  }
  await showStep();
  if ($('all-moves').open) await showAllMoves();
}

function pick(choice) {
  $('move-notice').textContent = '';
  move.picks.push(choice);
  showStep().catch(showError);
}

function unpick() {
  move.picks.pop();
  showMove();
}

// The move as far as it is put together, on the live board (not a preview's).
function showMove() {
  (($('board').dataset.preview) ? drawBoard() : showStep()).catch(showError);
}

// The step the picks lead to: its options as buttons and as highlighted spaces on the board,
// or, once the action is complete, a preview of the board after it to confirm.
async function showStep() {
  const query = new URLSearchParams({ seq: String(move.seq) });
  for (const choice of move.picks) query.append('choice', choice);
  let step;
  try {
    step = await api('GET', `/v1/games/${game.id}/legal-choices?${query}`);
  } catch (problem) {
    if (problem.code === 'no_such_choice' && move.picks.length) {
      // What was chosen no longer fits the game as it is now: start the move again.
      $('move-notice').textContent = move.kept
        ? 'Another player\'s action changed what you can do: the move you were putting together no longer fits, so choose again.'
        : 'That choice is no longer possible: choose again.';
      Object.assign(move, { picks: [], offered: [], action: null, step: null, kept: false });
      await showStep();
      return;
    }
    if (problem.code !== 'stale_seq') throw problem;
    // The game moved on (another seat, a bot, another tab): look again, keeping the picks.
    await refreshGame();
    return;
  }
  if (move.picks.length) {
    $('move-notice').textContent = move.kept ? 'Another player acted; your move so far still fits.' : '';
  }
  move.kept = false;
  move.step = step;
  $('chooser').dataset.picks = String(move.picks.length);
  $('chooser').dataset.field = step.field || '';
  move.offered[move.picks.length] = step.options;
  move.action = step.action;
  const said = step.chosen.map((chosen) => fieldInWords(chosen.field, chosen.value));
  $('chosen').textContent = said.length ? said.join(' · ') : '';
  $('start-over').hidden = move.picks.length === 0;
  markChoosable(step);
  if (step.action) {
    $('choose-prompt').textContent = '';
    $('options').replaceChildren();
    await showPreview(step.action);
    return;
  }
  $('preview-panel').hidden = true;
  const onBoard = offeredOnBoard(step) && step.options.some((option) => spaceElement(option.choice));
  $('choose-prompt').textContent = step.field === null
    ? 'Nothing to do for now.'
    : `Choose ${step.field === 'type' ? 'what to do' : `the ${words(step.field)}`}` +
      (onBoard ? ': click a highlighted space on the board, or pick here.' : ':');
  $('options').replaceChildren(
    ...step.options.map((option) => {
      const button = document.createElement('button');
      button.className = 'choice';
      button.dataset.choice = option.choice;
      button.textContent = step.field === 'type'
        ? capitalised(valueInWords('type', option.value))
        : valueInWords(step.field, option.value);
      if (option.actions > 1) button.title = `${option.actions} moves`;
      button.onclick = () => pick(option.choice);
      return button;
    }),
  );
}

// The fields that name a place on the board (docs/vocabulary.md); only their options are
// pointed at there. Other small numbers (a group's index, a value) are not places, even
// where a place has the same name.
const PLACE_FIELDS = new Set(['space', 'from', 'to', 'location', 'station']);

function spaceElement(name) {
  return $('board').querySelector(`[data-space="${CSS.escape(name)}"]`);
}

function offeredOnBoard(step) {
  return Boolean(step && !step.action && PLACE_FIELDS.has(step.field));
}

// The spaces the current step offers: highlighted, reachable with Tab, and named for screen
// readers.
function markChoosable(step) {
  for (const space of $('board').querySelectorAll('.choosable')) {
    space.classList.remove('choosable');
    space.removeAttribute('tabindex');
    space.removeAttribute('role');
    space.removeAttribute('aria-label');
  }
  if (!offeredOnBoard(step)) return;
  for (const option of step.options) {
    const space = spaceElement(option.choice);
    if (!space) continue;
    space.classList.add('choosable');
    space.setAttribute('tabindex', '0');
    space.setAttribute('role', 'button');
    // The name holds all the space shows, in order, so a voice command naming the visible
    // text reaches it (WCAG 2.5.3; axe-core's label-content-name-mismatch). Every text, even
    // one the choice's own words hold already: a track's "4" left out broke the sequence.
    const name = `${words(step.field)} ${option.choice}`;
    const shown = [...space.querySelectorAll('text')].map((text) => text.textContent.trim())
      .filter((text) => text).join(' ');
    space.setAttribute('aria-label', shown ? `${name}: ${shown}` : name);
  }
  // On a phone the board is larger than the screen: bring the places offered into view,
  // a wide part panned to have them in its middle.
  const first = $('board').querySelector('.choosable');
  if (first && phoneScreen.matches) {
    first.scrollIntoView({ block: 'nearest', inline: 'center' });
  }
}

// The board after the action, drawn by the server from a dry run: nothing is written until
// the player confirms.
async function showPreview(action) {
  const preview = await api('POST', `/v1/games/${game.id}/actions/preview?board=true&layout=${boardLayout()}`,
    { expected_seq: move.seq, action });
  if (move.action !== action) return;
  showPicture(preview.board_svg);
  $('board').dataset.preview = 'true';
  // Each event's text is a sentence without its full stop.
  const said = preview.events.filter((event) => event.source === 'engine')
    .map((event) => `${event.text.replace(/[.]$/, '')}.`);
  $('preview-text').textContent = `${describe(action)}. ${said.join(' ')}` +
    (preview.complete ? '' : ' What is drawn or rolled is decided when you confirm.');
  $('preview-panel').hidden = false;
  // The last real choice can be changed in place: turn the tile, or try the next option.
  const last = move.picks.length - 1;
  const siblings = last >= 0 ? move.offered[last] || [] : [];
  const field = last >= 0 ? move.step.chosen.filter((chosen) => !chosen.forced)[last]?.field : null;
  const next = $('next-option');
  next.hidden = siblings.length < 2;
  next.textContent = field === 'rotation' ? 'Turn (R)' : `Next ${words(field || 'option')} (R)`;
  $('confirm').focus();
}

function nextOption() {
  const last = move.picks.length - 1;
  const siblings = move.offered[last] || [];
  if (last < 0 || siblings.length < 2) return;
  const at = siblings.findIndex((option) => option.choice === move.picks[last]);
  move.picks[last] = siblings[(at + 1) % siblings.length].choice;
  showStep().catch(showError);
}

// Every legal move in words: the fall-back to pointing, narrowed to one space by a click on
// a space the current step does not offer.
async function showAllMoves() {
  const list = $('actions');
  const query = game.space ? `?space=${encodeURIComponent(game.space)}` : '';
  const legal = await api('GET', `/v1/games/${game.id}/legal-actions${query}`);
  $('filter').textContent = game.space
    ? `Moves involving ${game.space} (`
    : `${legal.actions.length} moves; click a space to narrow them down.`;
  if (game.space) {
    const all = document.createElement('a');
    all.href = '#';
    all.textContent = 'show all';
    all.onclick = (event) => {
      event.preventDefault();
      game.space = null;
      showAllMoves().catch(showError);
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

// What the player's own move or take-back just did, shown until the game moves on (then
// the board's "Last action" and the log say what happened since).
function showOwnResult(seq, event) {
  game.ownResultSeq = seq;
  $('last-text').textContent = event ? `You: ${event.text}` : '';
}

async function act(seq, action) {
  try {
    const accepted = await api('POST', `/v1/games/${game.id}/actions`, { expected_seq: seq, action });
    // The move is made: the next one starts from nothing.
    Object.assign(move, { picks: [], kept: false });
    showOwnResult(accepted.seq, accepted.events[accepted.events.length - 1]);
    game.space = null;
    showError(null);
    await refreshGame();
  } catch (problem) {
    // Refused: choose again, but for another seat's action that came first (the move is
    // tried again where the game is now).
    if (problem.code !== 'stale_seq') Object.assign(move, { picks: [], kept: false });
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
    showOwnResult(answer.seq, answer.events[0]);
    Object.assign(move, { picks: [], kept: false });
    game.space = null;
    game.at = null;
    showError(null);
  } catch (problem) {
    showError(problem);
  }
  await refreshGame();
}

// Resign, cancel or leave: the answer is the game's new summary.
async function gameCommand(command) {
  try {
    await api('POST', `/v1/games/${game.id}/${command}`, {});
    showError(null);
    if (command === 'leave') {
      location.href = '/';
      return;
    }
  } catch (problem) {
    showError(problem);
  }
  await refreshGame();
}

async function voteToAbandon() {
  const mySeat = game.summary.seats[game.summary.your_seat];
  const others = game.summary.seats.filter((seat) => seat.seat !== mySeat.seat && seat.account !== null && seat.bot === null && seat.forfeit === null);
  const question = others.length
    ? 'Vote to abandon this game? It ends, unrated and without a result, once every player still playing has voted.'
    : 'Abandon this game? Nobody else is playing, so it ends now, unrated and without a result.';
  if (!mySeat.abandon_vote && !confirm(question)) return;
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
    const why = sessionStorage.getItem('turnpost.signed-out');
    if (why) {
      sessionStorage.removeItem('turnpost.signed-out');
      $('error').textContent = `Please sign in again (${why}).`;
    }
    $('name').focus();
    return;
  }
  followNotifications();
  const match = location.pathname.match(/^\/games\/([A-Za-z0-9]+)$/);
  const people = match ? false : routePeople(location.pathname);
  (match ? showGame(match[1]) : people || showLobby()).catch(showError);
}

window.addEventListener('DOMContentLoaded', () => {
  $('sign-in-form').addEventListener('submit', (event) => {
    event.preventDefault();
    signIn(false);
  });
  $('register-button').addEventListener('click', () => signIn(true));
  $('sign-out').addEventListener('click', () => signOut());
  $('new-game-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    try {
      const created = await api('POST', '/v1/games', newGameRequest());
      location.href = `/games/${created.id}`;
    } catch (problem) {
      showError(problem);
    }
  });
  $('new-kind').addEventListener('change', () => showOptions().catch(showError));
  $('new-seats').addEventListener('change', showSeatRows);
  for (const id of ['push-enable', 'push-here']) {
    $(id).addEventListener('click', () => enablePush().catch((problem) => {
      $('push-status').textContent = problem.detail ?? `Pushes could not be turned on: ${problem.message ?? problem}`;
    }));
  }
  $('push-topics').addEventListener('change', async () => {
    const topics = [...document.querySelectorAll('input[name="push-topic"]:checked')].map((box) => box.value);
    try {
      if (pushHere) pushHere = await api('PUT', `/v1/me/push-subscriptions/${pushHere.id}/topics`, { topics });
      showError(null);
    } catch (problem) {
      showError(problem);
    }
  });
  $('update-now').addEventListener('click', () => worker.waiting?.postMessage('take-over'));
  $('resign').addEventListener('click', () => {
    if (confirm('Resign this game? It counts as a loss, and a bot plays on for your seat if others remain.')) {
      gameCommand('resign');
    }
  });
  $('cancel').addEventListener('click', () => {
    if (confirm('Cancel this game? Whoever sat down is told.')) gameCommand('cancel');
  });
  $('leave').addEventListener('click', () => gameCommand('leave'));
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
  $('confirm').addEventListener('click', () => {
    if (!move.action) return;
    const action = move.action;
    move.action = null;
    $('preview-panel').hidden = true;
    act(move.seq, action);
  });
  $('next-option').addEventListener('click', nextOption);
  // Back from the preview to the last real choice, past the fields it filled in.
  $('undo-pick').addEventListener('click', unpick);
  $('start-over').addEventListener('click', () => {
    move.picks = [];
    showMove();
  });
  $('all-moves').addEventListener('toggle', () => {
    if ($('all-moves').open) showAllMoves().catch(showError);
  });
  document.addEventListener('keydown', (event) => {
    if ($('game-page').hidden || event.target.closest('input, textarea, select')) return;
    if (event.key === 'Escape' && move.picks.length) {
      unpick();
    } else if ((event.key === 'r' || event.key === 'R') && move.action) {
      nextOption();
    }
  });
  $('invite-form').addEventListener('submit', (event) => {
    event.preventDefault();
    inviteSomeoneElse();
  });
  $('chat-form').addEventListener('submit', (event) => {
    event.preventDefault();
    sendChat();
  });
  $('rematch').addEventListener('click', () => playAgain());
  $('zoom').addEventListener('click', toggleZoom);
  showZoomButton();
  phoneScreen.addEventListener('change', () => {
    showZoomButton();
    $('board').classList.remove('zoomed', 'whole');
    $('zoom').setAttribute('aria-pressed', 'false');
    if (game.summary && game.summary.status !== 'open') drawBoard().catch(showError);
  });
  $('first').addEventListener('click', () => step(0));
  $('back').addEventListener('click', () => step((game.at ?? game.summary.current_seq) - 1));
  $('forward').addEventListener('click', () => step((game.at ?? game.summary.current_seq) + 1));
  $('back-action').addEventListener('click', () => stepBy(-1, false));
  $('forward-action').addEventListener('click', () => stepBy(1, false));
  $('back-turn').addEventListener('click', () => stepBy(-1, true));
  $('forward-turn').addEventListener('click', () => stepBy(1, true));
  $('log-clocks').addEventListener('change', () => {
    $('log').classList.toggle('show-clocks', $('log-clocks').checked);
  });
  $('live').addEventListener('click', () => step(game.summary.current_seq));
  $('at').addEventListener('change', () => step(Number($('at').value)));
  registerWorker().catch(() => {});
  route();
});
