// The people around the games, on top of app.js's helpers: players' pages (with their
// ratings over time and your games with them), following, the leaderboards, the archive
// of finished public games and the running games to watch.
'use strict';

const COUNTRY_NAMES = typeof Intl.DisplayNames === 'function' ? new Intl.DisplayNames(['en'], { type: 'region' }) : null;
const LANGUAGE_NAMES = typeof Intl.DisplayNames === 'function' ? new Intl.DisplayNames(['en'], { type: 'language' }) : null;

/** A link to a player's page. */
function playerLink(name) {
  const link = document.createElement('a');
  link.href = `/players/${encodeURIComponent(name)}`;
  link.textContent = name;
  return link;
}

/** A rating as players read it: the estimate, and "provisional" while it is a first guess. */
function ratingWords(rating) {
  if (!rating) return 'unrated';
  const shown = rating.rating.toFixed(1);
  return rating.provisional ? `${shown} (provisional, ${rating.games} rated ${rating.games === 1 ? 'game' : 'games'})` : shown;
}

/** What a game was set up with, in a line: time control, options, seats, rated. */
function gameSetup(game) {
  const parts = [];
  const control = game.time_control;
  if (control.type === 'days_per_move') parts.push(`${control.days} ${control.days === 1 ? 'day' : 'days'} per turn`);
  else if (control.type === 'time_bank') parts.push(`time bank ${Math.round(control.initial_seconds / 3600)} h + ${Math.round(control.increment_seconds / 3600)} h a turn`);
  else parts.push('no time limit');
  for (const [name, value] of Object.entries(game.options ?? {})) {
    if (value === true) parts.push(words(name));
    else if (Array.isArray(value) && value.length) parts.push(`${words(name)}: ${value.map(words).join(', ')}`);
  }
  const taken = game.seats.filter((seat) => seat.account || seat.bot).length;
  if (game.status === 'open') parts.push(`${taken} of ${game.seat_count} seats taken`);
  parts.push(game.rated ? 'rated' : 'not rated');
  return parts.join(' · ');
}

/** A game in a list of games to read (archive, watching, a player's page). */
function watchItem(game) {
  const item = document.createElement('li');
  const link = document.createElement('a');
  link.href = `/games/${game.id}`;
  link.className = 'game-link';
  link.dataset.gameId = game.id;
  link.textContent = game.name;
  item.append(link);
  const details = document.createElement('span');
  details.className = 'details';
  const people = game.seats.map((seat, index) => {
    const name = seatName(seat);
    const place = game.outcome ? ` ${ordinal(game.outcome.places[index])}` : '';
    const change = seat.rating_change ? ` ${signed(seat.rating_change.after - seat.rating_change.before)}` : '';
    return `${name}${place}${change}`;
  });
  details.textContent = ` ${kindName(game.kind)} · ${people.join(', ')} · ${gameSetup(game)} · ${new Date(game.updated_at).toLocaleDateString()}`;
  item.append(details);
  return item;
}

function ordinal(place) {
  return ['1st', '2nd', '3rd', '4th', '5th'][place - 1] ?? `${place}th`;
}

function signed(number) {
  const rounded = number.toFixed(1);
  return number >= 0 ? `+${rounded}` : `−${rounded.slice(1)}`;
}

function listOrNothing(list, items, nothing) {
  list.replaceChildren(...items);
  if (!items.length) {
    const none = document.createElement('li');
    none.textContent = nothing;
    list.append(none);
  }
}

// --- A player's page -------------------------------------------------------------------

/** The rating's history as a small line chart, oldest at the left. */
function ratingChart(kind, history) {
  const points = history.filter((change) => change.kind === kind).reverse();
  const namespace = 'http://www.w3.org/2000/svg';
  const svg = document.createElementNS(namespace, 'svg');
  svg.setAttribute('class', 'rating-chart');
  svg.setAttribute('role', 'img');
  const values = [points[0]?.rating_before ?? 25, ...points.map((change) => change.rating_after)];
  const low = Math.min(...values) - 1;
  const high = Math.max(...values) + 1;
  const width = 240;
  const height = 60;
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('aria-label', `${kindName(kind)} rating over the last ${points.length} rated games: from ${values[0].toFixed(1)} to ${values[values.length - 1].toFixed(1)}`);
  const line = document.createElementNS(namespace, 'polyline');
  const step = values.length > 1 ? width / (values.length - 1) : 0;
  line.setAttribute('points', values.map((value, index) => `${(index * step).toFixed(1)},${(height - ((value - low) / (high - low)) * height).toFixed(1)}`).join(' '));
  svg.append(line);
  return svg;
}

async function showPlayer(name) {
  show('player-page');
  const me = localStorage.getItem(NAME_KEY);
  const player = await api('GET', `/v1/accounts/${encodeURIComponent(name)}`);
  const own = player.name.toLowerCase() === me.toLowerCase();
  document.title = `${player.name} - turnpost`;
  $('player-name').textContent = player.name;
  const facts = [`member since ${new Date(player.created_at).toLocaleDateString()}`];
  if (player.country) facts.push(COUNTRY_NAMES?.of(player.country) ?? player.country);
  if (player.language) facts.push(`speaks ${LANGUAGE_NAMES?.of(player.language) ?? player.language}`);
  if (player.last_seen) facts.push(`last seen ${new Date(`${player.last_seen}T12:00:00Z`).toLocaleDateString()}`);
  facts.push(`${player.followers} ${player.followers === 1 ? 'follower' : 'followers'}`, `follows ${player.following}`);
  $('player-facts').textContent = facts.join(' · ');
  $('player-about').textContent = player.about;
  $('player-about').hidden = !player.about;
  $('player-hidden').hidden = !player.activity_hidden;
  const follow = $('player-follow');
  follow.hidden = own || player.activity_hidden;
  follow.textContent = player.you_follow ? 'Stop following' : 'Follow';
  follow.setAttribute('aria-pressed', String(player.you_follow));
  follow.onclick = async () => {
    try {
      await api(player.you_follow ? 'DELETE' : 'PUT', `/v1/me/following/${encodeURIComponent(player.name)}`);
      showError(null);
      await showPlayer(player.name);
    } catch (problem) {
      showError(problem);
    }
  };
  const history = player.ratings.length
    ? (await api('GET', `/v1/accounts/${encodeURIComponent(player.name)}/ratings?limit=200`)).history
    : [];
  $('player-ratings').replaceChildren(...player.ratings.map((rating) => {
    const item = document.createElement('li');
    const link = document.createElement('a');
    link.href = `/leaderboards/${rating.kind}`;
    link.textContent = kindName(rating.kind);
    item.append(link, `: ${ratingWords(rating)}`, ratingChart(rating.kind, history));
    return item;
  }));
  if (!player.ratings.length) $('player-ratings').replaceChildren(Object.assign(document.createElement('li'), { textContent: 'No rated game yet.' }));
  listOrNothing($('player-record'), player.kinds.map((record) => {
    const item = document.createElement('li');
    item.textContent = `${kindName(record.kind)}: ${record.finished} finished, ${record.won} won, ${record.running} running, ${record.open} waiting for players`;
    return item;
  }), 'No games yet.');
  const versus = player.head_to_head;
  $('player-versus').hidden = !versus;
  if (versus) {
    $('player-versus').textContent = versus.games
      ? `Your finished games together: ${versus.games}; you placed ahead in ${versus.you_ahead}, ${player.name} in ${versus.they_ahead}.`
      : `You have not finished a game with ${player.name} yet.`;
  }
  listOrNothing($('player-games'), player.recent_games.map(watchItem), 'No finished public game yet.');
  $('player-archive').href = `/archive?players=${encodeURIComponent(player.name)}`;
  $('profile-form').hidden = !own;
  if (own) {
    const settings = await api('GET', '/v1/me/profile');
    $('profile-about').value = settings.about ?? '';
    $('profile-country').value = settings.country ?? '';
    $('profile-language').value = settings.language ?? '';
    $('profile-last-seen').checked = settings.show_last_seen;
  }
}

async function saveProfile() {
  const text = (id) => $(id).value.trim();
  try {
    await api('PUT', '/v1/me/profile', {
      about: text('profile-about') || null,
      country: text('profile-country').toUpperCase() || null,
      language: text('profile-language').toLowerCase() || null,
      show_last_seen: $('profile-last-seen').checked,
    });
    showError(null);
    await showPlayer(localStorage.getItem(NAME_KEY));
  } catch (problem) {
    showError(problem);
  }
}

// --- Leaderboards ----------------------------------------------------------------------

const board = { kind: null, next: null };

async function kinds() {
  if (!lobby.kinds.length) lobby.kinds = await api('GET', '/v1/game-kinds');
  return lobby.kinds;
}

async function showLeaderboard(kind) {
  show('leaderboard-page');
  const all = await kinds();
  board.kind = kind ?? all[0].kind;
  document.title = `${kindName(board.kind)} leaderboard - turnpost`;
  $('leaderboard-kinds').replaceChildren(...all.map((each) => {
    const link = document.createElement('a');
    link.href = `/leaderboards/${each.kind}`;
    link.textContent = each.name;
    if (each.kind === board.kind) link.setAttribute('aria-current', 'page');
    return link;
  }));
  $('leaderboard-rows').replaceChildren();
  board.next = null;
  await moreLeaderboard(true);
}

async function moreLeaderboard(first) {
  const cursor = board.next ? `&cursor=${encodeURIComponent(board.next)}` : '';
  const page = await api('GET', `/v1/leaderboards/${board.kind}?limit=50${cursor}`);
  if (first) {
    const me = page.you;
    $('leaderboard-you').textContent = me
      ? `You are ranked ${me.rank} with ${me.rating.rating.toFixed(1)} (${me.rating.games} rated games).`
      : `Players are ranked from ${page.minimum_games} rated games of ${kindName(board.kind)}; until then a rating is provisional.`;
  }
  $('leaderboard-rows').append(...page.players.map((entry) => {
    const row = document.createElement('tr');
    if (entry.account.name === localStorage.getItem(NAME_KEY)) row.className = 'you';
    const cells = [String(entry.rank), playerLink(entry.account.name), entry.rating.rating.toFixed(1), `±${entry.rating.uncertainty.toFixed(1)}`, String(entry.rating.games)];
    row.append(...cells.map((content) => {
      const cell = document.createElement('td');
      cell.append(content);
      return cell;
    }));
    return row;
  }));
  if (first && !page.players.length) {
    const row = document.createElement('tr');
    const cell = document.createElement('td');
    cell.colSpan = 5;
    cell.textContent = 'Nobody has enough rated games yet.';
    row.append(cell);
    $('leaderboard-rows').append(row);
  }
  board.next = page.next;
  $('leaderboard-more').hidden = !page.next;
}

// --- The archive and the games to watch --------------------------------------------------

const archive = { next: null, query: '' };

/** The archive's filters as the list's query, from the form. */
function archiveQuery() {
  const query = new URLSearchParams({ status: 'finished', public: 'true', limit: '30' });
  const value = (id) => $(id).value.trim();
  if (value('archive-kind')) query.set('kind', value('archive-kind'));
  if (value('archive-players')) query.set('players', value('archive-players').split(/[\s,]+/).filter(Boolean).join(','));
  if (value('archive-winner')) query.set('winner', value('archive-winner'));
  if (value('archive-options')) query.set('options', value('archive-options').split(/[\s,]+/).filter(Boolean).join(','));
  if (value('archive-time-control')) query.set('time_control', value('archive-time-control'));
  if (value('archive-since')) query.set('since', `${value('archive-since')}T00:00:00Z`);
  if (value('archive-until')) query.set('until', new Date(Date.parse(`${value('archive-until')}T00:00:00Z`) + 86400000).toISOString());
  if (value('archive-min-rating')) query.set('min_rating', value('archive-min-rating'));
  if (value('archive-max-rating')) query.set('max_rating', value('archive-max-rating'));
  return query;
}

async function fillKindSelect(select, anyLabel) {
  if (select.options.length) return;
  select.add(new Option(anyLabel, ''));
  for (const kind of await kinds()) select.add(new Option(kind.name, kind.kind));
}

async function showArchive() {
  show('archive-page');
  document.title = 'Archive - turnpost';
  await fillKindSelect($('archive-kind'), 'Any game');
  const given = new URLSearchParams(location.search);
  if (given.get('players') && !$('archive-players').value) $('archive-players').value = given.get('players');
  await searchArchive();
}

async function searchArchive() {
  archive.query = archiveQuery().toString();
  archive.next = null;
  $('archive-games').replaceChildren();
  await moreArchive(true);
}

async function moreArchive(first) {
  const cursor = archive.next ? `&cursor=${encodeURIComponent(archive.next)}` : '';
  const page = await api('GET', `/v1/games?${archive.query}${cursor}`);
  $('archive-games').append(...page.games.map(watchItem));
  if (first && !page.games.length) listOrNothing($('archive-games'), [], 'No finished public game matches.');
  archive.next = page.next;
  $('archive-more').hidden = !page.next;
}

async function showWatch() {
  show('watch-page');
  document.title = 'Watch - turnpost';
  const following = await api('GET', '/v1/games?status=running&public=true&following=true&limit=50');
  const shown = new Set(following.games.map((game) => game.id));
  listOrNothing($('watch-following'), following.games.map(watchItem), 'None of the players you follow is playing a public game.');
  const all = await api('GET', '/v1/games?status=running&public=true&limit=50');
  listOrNothing($('watch-others'), all.games.filter((game) => !shown.has(game.id)).map(watchItem), 'No other public game is running.');
}

// --- Following, in the lobby ------------------------------------------------------------

/** The accounts you follow: their open games, a link to their page, and a box to invite them to a new game. */
async function showFollowing() {
  const list = await api('GET', '/v1/me/following?limit=200');
  listOrNothing($('following'), list.following.map((entry) => {
    const item = document.createElement('li');
    item.append(playerLink(entry.account.name));
    if (entry.open_games) item.append(` waits in ${entry.open_games} open ${entry.open_games === 1 ? 'game' : 'games'}`);
    return item;
  }), 'You follow nobody yet: follow players from their pages.');
  $('invite-following').replaceChildren(...list.following.map((entry) => {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox';
    box.value = entry.account.name;
    box.addEventListener('change', () => {
      const names = $('new-invite').value.split(',').map((name) => name.trim()).filter(Boolean);
      const kept = names.filter((name) => name.toLowerCase() !== box.value.toLowerCase());
      if (box.checked) kept.push(box.value);
      $('new-invite').value = kept.join(', ');
    });
    label.append(box, ` ${entry.account.name}`);
    return label;
  }));
  $('invite-following').hidden = !list.following.length;
  const open = await api('GET', '/v1/games?status=open&following=true&limit=50');
  $('following-games-title').hidden = !open.games.length;
  $('following-games').replaceChildren(...open.games.filter((game) => game.your_seat === null).map((game) => {
    const join = document.createElement('button');
    join.textContent = 'Join';
    join.onclick = () => joinGame(game.id);
    return gameItem(game, join);
  }));
}

/** The lobby's open games, filtered by kind and time control. */
async function showOpenGames() {
  await fillKindSelect($('open-kind'), 'Any game');
  const query = new URLSearchParams({ status: 'open', limit: '50' });
  if ($('open-kind').value) query.set('kind', $('open-kind').value);
  if ($('open-time-control').value) query.set('time_control', $('open-time-control').value);
  const open = await api('GET', `/v1/games?${query}`);
  const joinable = open.games.filter((game) => game.your_seat === null);
  listOrNothing($('open-games'), joinable.map((game) => {
    const join = document.createElement('button');
    join.textContent = 'Join';
    join.onclick = () => joinGame(game.id);
    return gameItem(game, join);
  }), 'No open game matches: create one below.');
}

// --- A game like this -------------------------------------------------------------------

const LIKE_KEY = 'turnpost.like';

/** Opens the lobby with the new-game form set up as `summary` was. */
function playLikeThis(summary) {
  sessionStorage.setItem(LIKE_KEY, JSON.stringify({
    kind: summary.kind,
    seats: summary.seat_count,
    options: summary.options,
    time_control: summary.time_control,
    rated: summary.rated,
  }));
  location.href = '/#new-game';
}

/** The game set up by "Play a game like this", waiting in the form (once). */
async function applyLikeThis() {
  const saved = sessionStorage.getItem(LIKE_KEY);
  if (!saved) return;
  sessionStorage.removeItem(LIKE_KEY);
  const like = JSON.parse(saved);
  $('new-kind').value = like.kind;
  await showOptions();
  $('new-seats').value = like.seats;
  showSeatRows();
  for (const box of $('new-options').querySelectorAll('input[data-option]')) {
    const value = like.options?.[box.dataset.option];
    box.checked = box.dataset.value === undefined ? value === true : (value ?? []).includes(box.dataset.value);
  }
  const control = like.time_control;
  const radio = document.querySelector(`input[name="new-clock"][value="${control.type}"]`);
  if (radio) radio.checked = true;
  if (control.type === 'days_per_move') $('new-days').value = control.days;
  if (control.type === 'time_bank') {
    $('new-bank-hours').value = Math.round(control.initial_seconds / 3600);
    $('new-bank-increment').value = Math.round(control.increment_seconds / 3600);
    $('new-bank-maximum').value = Math.round(control.maximum_seconds / 3600);
  }
  $('new-rated').checked = like.rated;
  $('new-title').value = '';
  $('new-game-form').scrollIntoView();
  $('new-kind').focus();
}

/** Routes of the people pages; false when the path is none of theirs. */
function routePeople(path) {
  const player = path.match(/^\/players\/([^/]+)$/);
  if (player) return showPlayer(decodeURIComponent(player[1]));
  const leaderboard = path.match(/^\/leaderboards(?:\/([a-z_]+))?$/);
  if (leaderboard) return showLeaderboard(leaderboard[1]);
  if (path === '/archive') return showArchive();
  if (path === '/watch') return showWatch();
  return false;
}

window.addEventListener('DOMContentLoaded', () => {
  $('profile-form').addEventListener('submit', (event) => {
    event.preventDefault();
    saveProfile();
  });
  $('leaderboard-more').addEventListener('click', () => moreLeaderboard(false).catch(showError));
  $('archive-form').addEventListener('submit', (event) => {
    event.preventDefault();
    searchArchive().then(() => showError(null), showError);
  });
  $('archive-more').addEventListener('click', () => moreArchive(false).catch(showError));
  for (const id of ['open-kind', 'open-time-control']) {
    $(id).addEventListener('change', () => showOpenGames().catch(showError));
  }
  $('play-like-this').addEventListener('click', () => playLikeThis(game.summary));
  const me = localStorage.getItem(NAME_KEY);
  if (me) $('nav-me').href = `/players/${encodeURIComponent(me)}`;
});
